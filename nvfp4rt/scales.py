"""Block-scale layouts: the linear layout and the 128x4 "blocked" layout.

Linear layout (what the competition calls ``sfa [mn, k/16, l]``): scale ``(i, j, b)``
of row ``i``, scale column ``j`` (elements ``16j .. 16j+15`` along k) and batch
``b``. Physically each batch is a contiguous row-major ``[mn][k/16]`` block, so the
logical array is ``np.transpose`` of an ``(l, mn, k/16)`` allocation.

Blocked layout (cuBLAS block scaling, Blackwell tcgen05): per batch, 512-byte
atoms each holding 128 rows x 4 scale columns.  With ``rest_mn = ceil(mn/128)``
and ``rest_k = ceil((k/16)/4)`` the byte offset of scale ``(i, j, b)`` is::

    ((b*rest_mn + i//128)*rest_k + j//4)*512 + (i%32)*16 + ((i//32)%4)*4 + j%4

and the padding (rows past ``mn``, columns past ``k/16``) holds zeros.  Read in
C order, that is an array of shape ``(l, rest_mn, rest_k, 32, 4, 4)`` indexed by
``(b, i//128, j//4, i%32, (i//32)%4, j%4)``, which is how :func:`to_blocked`
returns it.  Both conversions are reshapes and transposes, no per-element loops.
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "ATOM_ROWS",
    "ATOM_COLS",
    "ATOM_BYTES",
    "blocked_shape",
    "blocked_offset",
    "to_blocked",
    "from_blocked",
    "linear_view",
    "linear_physical",
]

ATOM_ROWS = 128
ATOM_COLS = 4
ATOM_BYTES = ATOM_ROWS * ATOM_COLS  # 512

_BLOCK = 16


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def blocked_shape(mn: int, sf_k: int, l: int = 1) -> tuple:
    """Shape ``(l, rest_mn, rest_k, 32, 4, 4)`` of the blocked scales of ``mn`` rows and ``sf_k`` scale columns."""
    return (l, _ceil_div(mn, ATOM_ROWS), _ceil_div(sf_k, ATOM_COLS), 32, 4, 4)


def blocked_offset(i, j, b, mn: int, sf_k: int):
    """Byte offset of scale (row ``i``, scale column ``j``, batch ``b``) in the blocked layout (the FACTS §2 formula)."""
    i, j, b = (np.asarray(v, dtype=np.int64) for v in (i, j, b))
    rest_mn, rest_k = _ceil_div(mn, ATOM_ROWS), _ceil_div(sf_k, ATOM_COLS)
    return ((b * rest_mn + i // 128) * rest_k + j // 4) * 512 + (i % 32) * 16 + ((i // 32) % 4) * 4 + j % 4


def linear_view(physical):
    """``(l, mn, k/16)`` physical scales -> the logical ``[mn, k/16, l]`` view (no copy)."""
    p = np.asarray(physical)
    if p.ndim != 3:
        raise ValueError(f"physical scales must be (l, mn, k/16), got shape {p.shape}")
    return p.transpose(1, 2, 0)


def linear_physical(logical):
    """Logical ``[mn, k/16, l]`` scales -> a C-contiguous ``(l, mn, k/16)`` array (a view when it already is one)."""
    s = np.asarray(logical)
    if s.ndim != 3:
        raise ValueError(f"logical scales must be [mn, k/16, l], got shape {s.shape}")
    return np.ascontiguousarray(s.transpose(2, 0, 1))


def to_blocked(scales) -> np.ndarray:
    """Linear scales -> blocked layout, zero padded.

    ``scales``: ``[mn, k/16]`` or the competition's ``[mn, k/16, l]`` (any strides,
    any 1-byte dtype such as ``float8_e4m3fn`` or uint8).  Returns a C-contiguous
    array of the same dtype, shape ``(l, rest_mn, rest_k, 32, 4, 4)`` for 3-D
    input and ``(rest_mn, rest_k, 32, 4, 4)`` for 2-D input; its flattened bytes
    are the blocked buffer a kernel reads.
    """
    s = np.asarray(scales)
    if s.ndim not in (2, 3):
        raise ValueError(f"scales must be [mn, k/16] or [mn, k/16, l], got shape {s.shape}")
    if s.dtype.itemsize != 1:
        raise TypeError(f"scales must be a 1-byte dtype (float8_e4m3fn or uint8), got {s.dtype}")
    batched = s.ndim == 3
    phys = s.transpose(2, 0, 1) if batched else s[None]
    l, mn, sf_k = phys.shape
    _, rest_mn, rest_k, *_ = blocked_shape(mn, sf_k, l)
    padded = np.zeros((l, rest_mn * ATOM_ROWS, rest_k * ATOM_COLS), dtype=np.uint8)
    padded[:, :mn, :sf_k] = phys.view(np.uint8)
    # row i = r*128 + q*32 + p, column j = c*4 + t  ->  (b, r, c, p, q, t)
    atoms = padded.reshape(l, rest_mn, 4, 32, rest_k, 4).transpose(0, 1, 4, 3, 2, 5)
    out = np.ascontiguousarray(atoms).view(s.dtype)
    return out if batched else out[0]


def from_blocked(blocked, mn: int, k: int) -> np.ndarray:
    """Blocked scales -> linear scales of ``mn`` rows for logical length ``k`` (``k/16`` scale columns).

    ``blocked``: the array :func:`to_blocked` returns (5-D unbatched or 6-D), or the
    flat buffer (1-D, length ``l * rest_mn * rest_k * 512``; ``l`` is inferred).
    Returns ``[mn, k/16]`` for 5-D input, else the logical ``[mn, k/16, l]`` view
    of a C-contiguous ``(l, mn, k/16)`` array.  The padding is ignored.
    """
    b = np.asarray(blocked)
    if b.dtype.itemsize != 1:
        raise TypeError(f"blocked must be a 1-byte dtype (float8_e4m3fn or uint8), got {b.dtype}")
    if int(mn) <= 0:
        raise ValueError(f"mn must be positive, got {mn}")
    if int(k) <= 0 or int(k) % _BLOCK:
        raise ValueError(f"k must be a positive multiple of {_BLOCK} (logical elements), got {k}")
    mn, sf_k = int(mn), int(k) // _BLOCK
    _, rest_mn, rest_k, *_ = blocked_shape(mn, sf_k)
    per_batch = rest_mn * rest_k * ATOM_BYTES
    if b.ndim == 1:
        if b.size % per_batch or b.size == 0:
            raise ValueError(f"a flat blocked buffer for mn={mn}, k={k} must hold a multiple of {per_batch} bytes, got {b.size}")
        l, batched = b.size // per_batch, True
    elif b.ndim == 5:
        l, batched = 1, False
    elif b.ndim == 6:
        l, batched = b.shape[0], True
    else:
        raise ValueError(f"blocked must be 1-D, 5-D or 6-D, got shape {b.shape}")
    expected = (l, rest_mn, rest_k, 32, 4, 4)
    atoms = b.reshape(-1)
    if atoms.size != l * per_batch:
        raise ValueError(f"blocked has shape {b.shape}, expected {expected[0 if batched else 1:]} for mn={mn}, k={k}")
    atoms = atoms.view(np.uint8).reshape(expected)
    # (b, r, c, p, q, t) -> (b, r, q, p, c, t) -> rows r*128+q*32+p, columns c*4+t
    padded = atoms.transpose(0, 1, 4, 3, 2, 5).reshape(l, rest_mn * ATOM_ROWS, rest_k * ATOM_COLS)
    phys = np.ascontiguousarray(padded[:, :mn, :sf_k]).view(b.dtype)
    return phys.transpose(1, 2, 0) if batched else phys[0]
