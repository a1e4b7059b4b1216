"""TTL type spellings of what a tt-lang kernel declares (docs/language.md, "Types")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .values import Int, Sym

if TYPE_CHECKING:
    from .evaluate import TensorArg
    from .operation import DataflowBuffer

# Tensor arguments live in interleaved DRAM, as ttnn's DRAM_MEMORY_CONFIG puts them.
DRAM_LAYOUT = "#ttl.layout<dram, interleaved>"

# tt-lang's and ttnn's dtype names (bfloat16, ttnn.bfloat8_b, ...) -> TTL's.
DTYPES = {
    "bf16": "bf16", "bfloat16": "bf16",
    "f32": "f32", "float32": "f32",
    "f16": "f16", "float16": "f16",
    "bfp8_b": "bfp8_b", "bfloat8_b": "bfp8_b",
    "bfp4_b": "bfp4_b", "bfloat4_b": "bfp4_b",
}


def dimension(v: Int) -> str:
    """A shape entry of a tensor type: a knob expression goes in parentheses."""
    if isinstance(v, int):
        return str(v)
    text = v.text
    return text if text.startswith("(") or (text.startswith("@") and text[1:].isidentifier()) \
        else f"({text})"


def tile(dtype: str) -> str:
    return f"!ttcore.tile<32x32, {dtype}>"


def block_type(shape: tuple, dtype: str) -> str:
    return f"tensor<{dimension(shape[0])}x{dimension(shape[1])}x{tile(dtype)}>"


def fold_batch(shape: tuple) -> tuple[tuple, int] | None:
    """A block shape ``(B, .., R, C)`` (R and C in tiles, the leading ones batch entries) as the
    2-D block ttlplan plans, ``(B * .. * R, C)``, and its batch entries; None when a leading
    dimension is not a positive integer or the rows are not known with several entries."""
    batch = 1
    for d in shape[:-2]:
        if isinstance(d, bool) or not isinstance(d, int) or d < 1:
            return None
        batch *= d
    if batch == 1:
        return (shape[-2], shape[-1]), 1
    if not isinstance(shape[-2], int):
        return None
    return (shape[-2] * batch, shape[-1]), batch


def cb_type(buffer: "DataflowBuffer", kernel) -> str:
    count = "?" if kernel.buffer_factor_auto or buffer.block_count is None else \
        str(buffer.block_count)
    rows, cols = (str(s) for s in buffer.shape)
    return f"!ttl.cb<[{rows}, {cols}], {tile(buffer.like.dtype)}, {count}>"


def tensor_type(t: "TensorArg") -> str:
    rows, cols = t.flat_shape
    return f"tensor<{rows}x{cols}x{t.dtype}, {DRAM_LAYOUT}>"


__all__ = ["DTYPES", "Sym", "block_type", "cb_type", "dimension", "fold_batch", "tensor_type",
           "tile"]
