"""An atomic OR into a word of an array, which numba has no word for on the CPU.

A wide bitmap pass (kernel.expand.expand_into_bits on a shared bitmap) has every core set its
children's bits in one bitmap of many GiB, where a plane a core would not fit: two cores may set
bits of one word at once, and a plain read-or-write would lose one of them. Beside the miss to
memory that each child's word is, the locked OR cost nothing measurable (a random word of 8 GiB
each: 38-47 CPU-ns plain, 34-36 locked, AMD EPYC Zen 4, 2 cores, busy, 2026-11-27).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array


@intrinsic
def atomic_or(typingctx: object, array: types.Array, index: types.Integer,
              value: types.Integer) -> tuple:
    """``array[index] |= value`` as one atomic operation (a C-ordered array of 64-bit words); no
    bounds are checked. Returns nothing: the word's old value is not needed."""
    if not (isinstance(array, types.Array) and array.layout == "C" and array.dtype.bitwidth == 64):
        return None

    def codegen(context: object, builder: ir.IRBuilder, signature: types.Signature,
                args: tuple) -> ir.Value:
        array_type, index_type, value_type = signature.args
        data = make_array(array_type)(context, builder, args[0]).data
        at = context.cast(builder, args[1], index_type, types.int64)
        word = context.cast(builder, args[2], value_type, array_type.dtype)
        builder.atomic_rmw("or", builder.gep(data, [at]), word, "monotonic")
        return context.get_dummy_value()

    return types.none(array, index, value), codegen
