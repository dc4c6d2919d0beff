"""One PNG per variant: run time against output size, log-log, one line per
contender (fused, unfused, numpy, torch). Drawn with matplotlib's Agg
backend (no display needed) into bytes, which the caller writes atomically."""

from __future__ import annotations

import io

from .outcome import CONTENDERS, Point

STYLE = {"fused": ("C0", "o"), "unfused": ("C3", "s"), "numpy": ("C2", "^"), "torch": ("C1", "v")}


def series(points: list[Point], name: str) -> tuple[list[int], list[float]]:
    """(outputs, median ms) of contender `name` where it was timed."""
    xs, ys = [], []
    for point in sorted(points, key=lambda p: p.outputs):
        result = point.outcome.run.results.get(name) if point.outcome else None
        if result is not None and result.median_ms is not None:
            xs.append(point.outputs)
            ys.append(result.median_ms)
    return xs, ys


def plot_variant(points: list[Point]) -> bytes:
    """The PNG of one variant's points."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    study = points[0].study
    figure = Figure(figsize=(6, 4), dpi=100)
    axes = figure.add_subplot()
    for name in CONTENDERS:
        xs, ys = series(points, name)
        if xs:
            color, marker = STYLE[name]
            axes.plot(xs, ys, marker=marker, color=color, label=name)
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("output elements")
    axes.set_ylabel("median run time (ms)")
    axes.set_title(f"{study.variant.name}: {study.expression()}", fontsize=10)
    axes.grid(True, which="both", alpha=0.3)
    if axes.lines:
        axes.legend()
    else:
        axes.text(0.5, 0.5, "nothing was timed", ha="center", va="center", transform=axes.transAxes)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()
