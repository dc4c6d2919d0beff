"""Benchmarks of gmx: run `python -m benchmarks` from the repository root.

- `programs`: the PyTorch gathers benchmarked and their TOSA export.
- `contenders`: what is timed (fused, unfused), each a callable per program.
- `timing`: interleaved medians.
- `report`: the Markdown table and the JSON.
"""
