"""IREE's CPU tile sizes for the gathers of a module lowered for IREE.

`configure_gathers(module, cpu=True)`: each gather generic convert-gmx-to-
linalg built for IREE (marked `gmx.iree_gather`) with a static output gets
IREE's user configuration (`compilation_info`, which IREE's CPU codegen
takes instead of its own choice) with `gather_plan.iree_cpu_tiles`' tiles:

    %r = linalg.generic {...} outs(%e : tensor<256x128x128xf32>) {...}
           {compilation_info = #iree_codegen.compilation_info<
              lowering_config = #iree_cpu.lowering_config<distribution = [2, 128, 128],
                                                          vector_common_parallel = [1, 1, 16]>,
              translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>>}

(the pipeline IREE 3.13 picks for these generics itself). For other
targets (`cpu=False`) nothing is configured. Either way the marks go.
"""

from __future__ import annotations

from gmx.dialect.mlir import ir

from .gather_builder import IREE_GATHER_MARK
from .index_reading import element_bits_of
from .gather_plan import iree_cpu_tiles
from ..walking import ops_named

CONFIG_ATTR = "compilation_info"


def configure_gathers(module, cpu: bool) -> int:
    """Configure (`cpu`) and unmark every marked gather generic of
    `module`; returns how many were configured."""
    marked = [op for op in ops_named(module, "linalg.generic") if IREE_GATHER_MARK in op.attributes]
    configured = 0
    for op in marked:
        del op.attributes[IREE_GATHER_MARK]
        output = ir.RankedTensorType(op.results[0].type)
        shape = [None if ir.ShapedType.is_dynamic_size(n) else n for n in output.shape]
        tiles = iree_cpu_tiles(shape, element_bits_of(output.element_type)) if cpu else None
        if tiles is not None:
            op.attributes[CONFIG_ATTR] = _compilation_info(tiles.distribution, tiles.vector, op.context)
            configured += 1
    return configured


def _compilation_info(distribution, vector, context) -> ir.Attribute:
    """IREE's `#iree_codegen.compilation_info` (an attribute of a dialect
    this context does not load: parsed as an opaque one)."""
    context.allow_unregistered_dialects = True
    text = (
        "#iree_codegen.compilation_info<lowering_config = #iree_cpu.lowering_config<"
        f"distribution = {list(distribution)}, vector_common_parallel = {list(vector)}>, "
        "translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>>"
    )
    return ir.Attribute.parse(text, context)
