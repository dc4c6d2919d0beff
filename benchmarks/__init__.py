"""gmx-bench (`python -m gmx.benchmarks`): gmx's own part of the benchmarks.
The variants, export, contenders, correctness check, timing and tables are
the experiment stack it shares with gmx-study (`gmx.tools.experiments`).

- `suite`: the benchmarked gathers (registry variants at fixed shapes) and
  the contenders of the table.
- `__main__`: the command line and the timing section.
- `report`: the timing section's tables and the JSON.
- `memory`: peak memory per contender, one child process each.
- `compile_time`: gmx-opt on generated modules of many gathers.
"""
