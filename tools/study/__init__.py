"""gmx.tools.study: gmx-study's own parts, the stage-by-stage study of one
gather variant. The variants, frontends, contenders, timing and tables it
shares with gmx-bench are in `gmx.tools.experiments`.

- `stages`: the pipelines from frontend TOSA to loops, IR and op counts per
  stage, and what the fusion derived.
- `outcome`: one study end to end (frontend program, stages, checked and
  timed contenders), and a sweep's `Point`.
- `render`: the text of one study.
- `plots`, `report`, then `sweep` (which uses both): `--all --report DIR`.
- `model`: `--model`, a whole program fused against unfused, gather by
  gather and scatter by scatter.
- `spellings`: one variant as every frontend spells it (`--frontend all`,
  and a table of `--all`'s report).
"""
