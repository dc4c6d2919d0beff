"""A stable counting sort of positions 0..n-1 by a key in [0, buckets),
built as three serial loops on tensors (count, exclusive prefix sum,
place), and the bounds of each bucket in the order it makes.

The column-tiled gather (`gather_builder`) sorts its rows by the input
slab they read; a scatter of ranges of targets (`scatter_builder`) sorts
its index tuples by the range they write. Stable: within a bucket the
positions stay in increasing order, which is what keeps a scatter's
updates at one position in row-major order.
"""

from __future__ import annotations

from gmx.dialect.mlir import arith, ir, linalg, scf, tensor

from .folding import Folder


def counting_sort(fold: Folder, keys: ir.Value, buckets: int) -> tuple[ir.Value, ir.Value]:
    """(order, ends): positions 0..n-1 of the rank-1 index tensor `keys`
    (each in [0, buckets)) sorted by key, stably, and the end in `order` of
    each key's bucket (its start is the previous one's end: `bucket_start`).
    Three loops of n, buckets and n steps over a tensor of `buckets`
    counters. Each key is read twice (count, place): from a tensor of the
    program's own, never from an argument that another thread may rewrite
    between the two reads (place would then write past its bucket)."""
    index, n = fold.index, ir.RankedTensorType(keys.type).shape[0]
    counters = linalg.fill(index(0), outs=[tensor.empty([buckets], ir.IndexType.get())])

    def loop(upper: int, inits: list[ir.Value], body) -> list[ir.Value]:
        for_op = scf.ForOp(index(0), index(upper), index(1), inits)
        with ir.InsertionPoint(for_op.body):
            scf.YieldOp(body(for_op.induction_variable, *for_op.inner_iter_args))
        return list(for_op.results)

    def count(i, counts):
        k = tensor.extract(keys, [i])
        return [tensor.insert(index(fold.add(tensor.extract(counts, [k]), 1)), counts, [k])]

    def starts(b, counts, total):  # exclusive prefix sum, in place
        here = tensor.extract(counts, [b])
        return [tensor.insert(total, counts, [b]), index(fold.add(total, here))]

    def place(i, next_slot, order):
        k = tensor.extract(keys, [i])
        slot = tensor.extract(next_slot, [k])
        return [tensor.insert(index(fold.add(slot, 1)), next_slot, [k]), tensor.insert(i, order, [slot])]

    (counts,) = loop(n, [counters], count)
    first, _ = loop(buckets, [counts, index(0)], starts)
    ends, order = loop(n, [first, tensor.empty([n], ir.IndexType.get())], place)
    return order, ends


def bucket_start(fold: Folder, ends: ir.Value, bucket: ir.Value) -> ir.Value:
    """Where `bucket` starts in the order: where the previous one ends, 0
    for bucket 0 (ends[-1] is never read: bucket 0 reads ends[0])."""
    previous = tensor.extract(ends, [fold.index(fold.add(fold.maxsi(bucket, 1), -1))])
    return arith.select(fold.value(fold.cmp("eq", bucket, 0)), fold.index(0), previous)
