"""The benchmark entry point runs, checks every contender and reports it.

No timing is asserted (the machine is shared); what is asserted is that
every contender, gmx checked and unchecked included, returned the
reference's exact output on every variant (memcpy, which computes nothing,
is not checked), and that the table and the JSON carry each of them.
"""

from __future__ import annotations

import json

from gmx.benchmarks.__main__ import RATIOS, main, parse_arguments
from gmx.benchmarks.suite import benchmark_names as variant_names

CONTENDERS = ["gmx", "gmx unchecked", "unfused", "numpy", "torch 1t", "torch", "ort 1t", "ort", "memcpy"]


def test_quick_timing_checks_every_contender(tmp_path, capsys):
    path = tmp_path / "bench.json"
    args = parse_arguments(["--quick", "--repeat", "1", "--warmup", "0", "--sections", "timing", "--json", str(path)])
    assert main(args) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("| variant | kind"))
    for name in CONTENDERS:
        assert f"| {name} ms |" in header
    for a, b in RATIOS:
        assert f"| {a}/{b} |" in header
    report = json.loads(path.read_text())
    assert [v["name"] for v in report["variants"]] == variant_names()
    for variant in report["variants"]:
        assert sorted(variant["contenders"]) == sorted(CONTENDERS)
        for name, result in variant["contenders"].items():
            assert result["error"] is None, (variant["name"], name, result["error"])
            assert len(result["samples"]) == 1
        assert variant["contenders"]["gmx"]["info"]["gmx_ops"] == 1


def test_unknown_section_is_an_argument_error(capsys):
    import pytest

    with pytest.raises(SystemExit) as exit_info:
        parse_arguments(["--sections", "timing,speed"])
    assert exit_info.value.code == 2
    assert "unknown section(s) speed" in capsys.readouterr().err
