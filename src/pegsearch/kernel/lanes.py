"""A child's least image in vector instructions, which the compiler does not find on its own.

A child's signature is the least of eight XORs, its parent's images against its jump's images
(kernel.expand). Written in numba, however arranged (a chain, a tree, halves folded like lanes),
the compiler kept those as 40 scalar instructions: 16 loads, 8 XORs, 8 compares and moves. Here
they are written in LLVM's own terms: two loads of a row of eight, one XOR of the two vectors and
LLVM's unsigned-minimum reduction, which a CPU with AVX2 or AVX-512 runs in a few instructions
(English level 15: 8.0 CPU-ns a child for the map and its bits, 6.3 with this; every other CPU
gets the same result from LLVM's generic lowering).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from pegsearch.kernel.tables import ROW

# The images one vector holds: a row (kernel.tables pads every group but the identity alone to
# whole rows).
LANES = ROW
_WORD = ir.IntType(64)
_VECTOR = ir.VectorType(_WORD, LANES)
_REDUCE = f"llvm.vector.reduce.umin.v{LANES}i64"


def _lanes_at(context: object, builder: ir.IRBuilder, array_type: types.Array, array: ir.Value,
              index_type: types.Integer, index: ir.Value) -> ir.Value:
    """The eight words of a C-ordered uint64 array from its flat element `index` on, as a vector."""
    data = make_array(array_type)(context, builder, array).data
    at = context.cast(builder, index, index_type, types.int64)
    return builder.load(builder.bitcast(builder.gep(data, [at]), _VECTOR.as_pointer()), align=8)


@intrinsic
def least_of_lanes(typingctx: object, images: types.Array, start: types.Integer,
                   flip_images: types.Array, at: types.Integer) -> tuple:
    """``min(images[start + g] ^ flip_images.flat[at + g] for g in range(LANES))``, for C-ordered
    uint64 arrays (anything else does not compile). The caller keeps both runs of LANES within
    their arrays: there is no bounds check."""
    if not all(isinstance(array, types.Array) and array.dtype == types.uint64
               and array.layout == "C" for array in (images, flip_images)):
        return None

    def codegen(context: object, builder: ir.IRBuilder, signature: types.Signature,
                args: tuple) -> ir.Value:
        image_type, start_type, flip_type, at_type = signature.args
        mixed = builder.xor(_lanes_at(context, builder, image_type, args[0], start_type, args[1]),
                            _lanes_at(context, builder, flip_type, args[2], at_type, args[3]))
        module = builder.module
        reduce = module.globals.get(_REDUCE) or ir.Function(
            module, ir.FunctionType(_WORD, [_VECTOR]), name=_REDUCE)
        return builder.call(reduce, [mixed])

    return types.uint64(images, start, flip_images, at), codegen
