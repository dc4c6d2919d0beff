"""The contract between the code the lowering generates and `gmx.runtime`.

Both sides import these names; nothing else spells them.

Callbacks. Checked code reports errors by calling two functions it declares
private (`declare_error_callbacks`) and the runtime provides, each taking
four i64 and returning nothing:

    @gmx_index_error(site, axis, value, size)
        an index `value` off input `axis` of `size` (`index_checks.in_range`:
        outside [-size, size) for a gmx op, [0, size) for a frontend's scatter)
    @gmx_shape_error(site, dim, input_size, indices_size)
        non-axis `dim` is not broadcastable at run time; a `dim` < 0 is one
        of the SHAPE_ERROR_* kinds, with its own two operands:
        SHAPE_ERROR_NOT_DIVISIBLE  (site, -1, indices last dim, coordinate size)
        SHAPE_ERROR_EMPTY_AXIS     (site, -2, axis, its size 0)
        SHAPE_ERROR_ASSERT         (site, -3, message number, 0): a failed
            `cf.assert`, its message `assert_messages(module)[number]`
            (module attribute `gmx.assert_messages`, --gmx-report-asserts)
        SHAPE_ERROR_SCATTER_ROWS   (site, -4, updates dim size, original dim size):
            a tm_tensor.scatter's updates dim longer, at run time, than the
            original's dim it is written into

and a third, taking nothing:

    @gmx_reported() -> i64
        how many errors the calling thread's current call reported so far
        (a copy into a donated buffer runs only while it is 0)

`site` indexes the module attribute `gmx.error_sites` (`error_sites`
reads it), which holds each checked op's `file:line:col`; every check
numbers its sites through `number_error_sites`.

Signature. Public functions keep their tensor signature in the function
attribute `gmx.signature` through the LLVM lowering, so that a module in the
LLVM dialect can still be called on numpy arrays.

Destinations. A public function marked `gmx.destinations` (by
--gmx-destination-passing) takes one buffer per result of its tensor
signature after its arguments, writes the results there and returns
nothing; the caller allocates those buffers (C-contiguous,
DESTINATION_ALIGNMENT-byte aligned, aliasing no argument) and owns them.

Donations. A public function marked `gmx.donations = array<i64: a_0, ...>`
(one entry per result of its tensor signature; gmx.runtime writes it from
`compile(..., donate=...)`, `pair_donations` decides it) writes result r
into the buffer of its argument a_r (NOT_DONATED: into its own
destination, or a buffer it returns). Each such argument is
`bufferization.writable` (`entry_points`), so that one-shot
bufferization updates it in place, and is no destination argument of its own
(--gmx-destination-passing passes one only for the other results). A donated
result is never materialized in its argument (no tensor.empty becomes the
donated buffer): what one-shot bufferization does not update in place is
computed in a buffer of its own and copied into the donated one at the
end, only when `@gmx_reported` says no error was reported, so that a
gather's result written into a donated argument leaves it unchanged on an
IndexError. The caller passes a C-contiguous buffer of the argument's type that aliases no
other argument (so every pointer argument stays `llvm.noalias`) and reads
it back as the result. A donated buffer is aligned as the caller's array
is (numpy: 16 bytes), not DESTINATION_ALIGNMENT, and the caller reads it
again soon (a cache with a small update): no store into it is a streaming
one (gmx-stream-row-copies). Every other argument is read-only.

Helpers. Copies between non-identity memref layouts call `memrefCopy`
(MLIR's runner utils, which this build's ExecutionEngine lacks); the
runtime registers its own under that name.
"""

from __future__ import annotations

from collections.abc import Sequence

from gmx.dialect.locations import location_text
from gmx.dialect.mlir import func, ir

INDEX_ERROR_FN = "gmx_index_error"
SHAPE_ERROR_FN = "gmx_shape_error"
ERROR_CALLBACKS = (INDEX_ERROR_FN, SHAPE_ERROR_FN)
REPORTED_FN = "gmx_reported"
CALLBACK_ARITY = 4  # i64 arguments of each callback

# Kinds of run-time shape errors, passed as `dim` < 0 to gmx_shape_error.
SHAPE_ERROR_NOT_DIVISIBLE = -1
SHAPE_ERROR_EMPTY_AXIS = -2
SHAPE_ERROR_ASSERT = -3
SHAPE_ERROR_SCATTER_ROWS = -4

ERROR_SITES_ATTR = "gmx.error_sites"
SIGNATURE_ATTR = "gmx.signature"
DESTINATIONS_ATTR = "gmx.destinations"
DONATIONS_ATTR = "gmx.donations"
NOT_DONATED = -1  # a result of DONATIONS_ATTR written into no argument
ASSERT_MESSAGES_ATTR = "gmx.assert_messages"
DESTINATION_ALIGNMENT = 64  # bytes
MEMREF_COPY_FN = "memrefCopy"


def _strings(module, name: str) -> list[str]:
    """The module's string array attribute `name`, empty when absent."""
    if name not in module.attributes:
        return []
    return [ir.StringAttr(s).value for s in ir.ArrayAttr(module.attributes[name])]


def _set_strings(module, name: str, strings: Sequence[str]) -> None:
    module.attributes[name] = ir.ArrayAttr.get([ir.StringAttr.get(s) for s in strings])


def error_sites(module) -> list[str]:
    """The `file:line:col` of each lowered gather, by site number."""
    return _strings(module, ERROR_SITES_ATTR)


def set_error_sites(module, sites: Sequence[str]) -> None:
    """Record the sites (`file:line:col` by site number) on the module."""
    _set_strings(module, ERROR_SITES_ATTR, sites)


def next_error_sites(module, count: int) -> range:
    """The numbers the next `count` error sites of `module` take: after
    those it records, in order."""
    first = len(error_sites(module))
    return range(first, first + count)


def number_error_sites(module, ops: Sequence) -> list[int]:
    """A new error site for each of `ops`, in order (`next_error_sites`),
    its location recorded as the site's; their numbers. Every check numbers
    its sites so, on either backend: convert-gmx-to-linalg's gathers and
    scatters (in walk order), then the checks of the frontends' scatters."""
    numbers = list(next_error_sites(module, len(ops)))
    if ops:
        set_error_sites(module, [*error_sites(module), *(location_text(op.location) for op in ops)])
    return numbers


def assert_messages(module) -> list[str]:
    """The messages of the reported asserts, by number."""
    return _strings(module, ASSERT_MESSAGES_ATTR)


def set_assert_messages(module, messages: Sequence[str]) -> None:
    _set_strings(module, ASSERT_MESSAGES_ATTR, messages)


def _declare(module, functions: Sequence[tuple[str, ir.FunctionType]]) -> None:
    """Private declarations of runtime functions (name, type) at the top
    of the module's body, in order, each once (with the C interface the
    runtime registers them through)."""
    body = module.regions[0].blocks[0]
    existing = {op.attributes["sym_name"].value for op in body.operations if "sym_name" in op.attributes}
    with ir.InsertionPoint.at_block_begin(body), ir.Location.unknown():
        for name, ftype in functions:
            if name in existing:
                continue
            fn = func.FuncOp(name, ftype, visibility="private")
            fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()


def declare_error_callbacks(module) -> None:
    """Private declarations of the error callbacks, each once."""
    i64 = ir.IntegerType.get_signless(64)
    _declare(module, [(name, ir.FunctionType.get([i64] * CALLBACK_ARITY, [])) for name in ERROR_CALLBACKS])


def declare_reported(module) -> None:
    """The private declaration of `@gmx_reported`, once."""
    _declare(module, [(REPORTED_FN, ir.FunctionType.get([], [ir.IntegerType.get_signless(64)]))])


def tensor_signature(function) -> ir.FunctionType:
    """A public function's tensor signature: `gmx.signature` once lowered,
    else its own function type."""
    name = SIGNATURE_ATTR if SIGNATURE_ATTR in function.attributes else "function_type"
    return ir.FunctionType(ir.TypeAttr(function.attributes[name]).value)


def pair_donations(arguments: Sequence, results: Sequence, donate: Sequence[int]) -> tuple[int, ...]:
    """For each result (its type, as anything comparable), the donated
    argument it is written into, or NOT_DONATED: each result in order takes
    the first donated argument of its type not taken yet, as JAX pairs
    `donate_argnums` with outputs. A donated argument no result takes is
    left out (the caller says whether that is an error)."""
    free = sorted(donate)
    pairs = []
    for result in results:
        match = next((k for k in free if arguments[k] == result), NOT_DONATED)
        if match != NOT_DONATED:
            free.remove(match)
        pairs.append(match)
    return tuple(pairs)


def donations(function) -> tuple[int, ...]:
    """The function's DONATIONS_ATTR (the argument each result is written
    into), empty when it donates nothing."""
    if DONATIONS_ATTR not in function.attributes:
        return ()
    return tuple(ir.DenseI64ArrayAttr(function.attributes[DONATIONS_ATTR]))


def donated_arguments(function) -> set[int]:
    """The arguments some result of the function is written into."""
    return {k for k in donations(function) if k != NOT_DONATED}


def set_donations(function, pairs: Sequence[int]) -> None:
    """Record `pair_donations`' answer on the function (nothing when no
    result is written into an argument)."""
    if any(k != NOT_DONATED for k in pairs):
        function.attributes[DONATIONS_ATTR] = ir.DenseI64ArrayAttr.get(list(pairs))
