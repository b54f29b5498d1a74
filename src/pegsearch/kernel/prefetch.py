"""A hint to the CPU to fetch a word it will read or write soon, which numba has no word for.

The depth-first walk looks each child up in a dead table of tens of MiB at a random slot: a miss to
memory nearly every time, and 40 % of the walk's time on triangle-9 spent waiting at that one load
(perf). Asked for every child as soon as a position's jumps are listed, the misses overlap one
another and the walk's other work instead of following one another. A wide bitmap pass sets each
child's bit in a plane of GiBs (kernel.expand): asked for the word a few children ahead, its
writes overlap in the same way.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

_BYTE_POINTER = ir.IntType(8).as_pointer()
_INT = ir.IntType(32)
_PREFETCH = "llvm.prefetch.p0"


def _hinted(write: int):
    """The codegen of a prefetch of ``array[index]``, for a read (0) or a write (1)."""

    def codegen(context: object, builder: ir.IRBuilder, signature: types.Signature,
                args: tuple) -> ir.Value:
        array_type, index_type = signature.args
        data = make_array(array_type)(context, builder, args[0]).data
        at = context.cast(builder, args[1], index_type, types.int64)
        pointer = builder.bitcast(builder.gep(data, [at]), _BYTE_POINTER)
        module = builder.module
        hint = module.globals.get(_PREFETCH) or ir.Function(
            module, ir.FunctionType(ir.VoidType(), [_BYTE_POINTER, _INT, _INT, _INT]), name=_PREFETCH)
        # read (0) or write (1), keep in every level (3), data (1)
        builder.call(hint, [pointer, _INT(write), _INT(3), _INT(1)])
        return context.get_dummy_value()

    return codegen


@intrinsic
def prefetch(typingctx: object, array: types.Array, index: types.Integer) -> tuple:
    """Ask for the cache line of ``array[index]`` (a C-ordered array) to be read, keeping it in
    every cache level; nothing is read now and no bounds are checked (a hint cannot fault)."""
    if not (isinstance(array, types.Array) and array.layout == "C"):
        return None
    return types.none(array, index), _hinted(0)


@intrinsic
def prefetch_to_write(typingctx: object, array: types.Array, index: types.Integer) -> tuple:
    """`prefetch`, for a word about to be written: the line comes ready to be changed, so the
    write does not ask for it again."""
    if not (isinstance(array, types.Array) and array.layout == "C"):
        return None
    return types.none(array, index), _hinted(1)
