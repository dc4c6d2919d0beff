"""gmx.tools.experiments: the one experiment stack of gmx-study and gmx-bench.

What a gather experiment needs, each in one place:

- `variants`: the one registry of gather and scatter variants (`REGISTRY`;
  `VARIANTS`, the gathers, is what --all and gmx-bench run), each with its
  gmx-bench benchmarks (`BenchmarkShapes`), and a validated `Study` of one
  (shapes, options, dtypes, seed, inputs, numpy, torch and reference
  forms); the machinery is `variant_base`, the entries `gather_variants`
  and `scatter_variants`.
- `choices`: `Choice`, the Enum base of the tools' user-facing choices
  (`Frontend`, `BenchmarkKind`, gmx-study's `StageKey`), parsed from their
  command-line spelling.
- `dtypes`: element types by their MLIR spelling, numpy/torch/ONNX
  conversions.
- `frontends`: the one export helper: torch -> TOSA and ONNX -> TOSA with
  torch-mlir, gmx programs, the program of a study's frontend (`Frontend`).
- `pipelines`: a program through gmx pipelines, and the one op counter.
- `sites`: the gathers and scatters of a program and what stands in
  front of each (index computation, views of the data, linearisation left).
- `models`: the real-program corpus of gathers (tiny Hugging Face models,
  programs users write, ONNX models) with what --gmx-canonicalize must
  make of each (`MODELS`; its second corpus, each program in every form,
  is `models_per_form`); the machinery (an entry's contract, export,
  reference, checks, seeded inputs, program builders) is `corpus_base`.
- `scatter_corpus`: PyTorch programs that scatter (GNN layers, MoE combine,
  KV cache, backward graphs, a whole training step), per torch-mlir form,
  with the gmx scatters --gmx-canonicalize must leave (gmx-study --model
  NAME@FORM studies each, as it studies `models`), on `corpus_base`'s
  seeds, reference and comparison.
- `contenders`: a `Case` (a study at its inputs), the one contender set and
  its one correctness check against the reference, `ratio`.
- `timing`: interleaved medians.
- `tables`: the one table renderer (Markdown and aligned text) and cell
  formats.
- `machine`: what the measurement ran on.

Layering: dialect -> reference -> passes -> runtime -> tools (checked by
tests/test_architecture.py). This package imports gmx.dialect,
gmx.reference, gmx.passes and gmx.runtime, never another tool: gmx-study
(`gmx.tools.study`, `gmx.tools.gmx_study`) and gmx-bench (`gmx.benchmarks`)
build on it, and nothing here imports them. Torch and ONNX are imported
where used, so that parsing a tool's arguments needs neither.
"""
