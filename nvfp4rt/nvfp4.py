"""NVFP4 tensors on the host: quantize, dequantize, pack and unpack.

An NVFP4 tensor of logical shape ``[..., k]`` is stored as

* ``data``: uint8 ``[..., k/2]``, two e2m1 codes per byte, the element with the
  lower index in the **low nibble** (the order torch's ``float4_e2m1fn_x2`` and
  DLPack's packed sub-byte types use);
* ``scales``: ``float8_e4m3fn`` ``[..., k/16]``, one per 16 consecutive elements
  along k ("linear" layout), or the same scales rearranged into the 128x4
  "blocked" layout of :mod:`nvfp4rt.scales`;
* ``tensor_scale``: one fp32 factor applied on top of every block scale.

Every numeric conversion goes through ml_dtypes' ``float4_e2m1fn`` and
``float8_e4m3fn`` dtypes (round to nearest even), so the value tables used
here are derived from ml_dtypes rather than written out by hand.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import ml_dtypes
import numpy as np

__all__ = [
    "BLOCK",
    "E2M1",
    "E4M3",
    "E2M1_MAX",
    "E4M3_MAX",
    "NVFP4Tensor",
    "quantize",
    "dequantize",
    "pack_fp4",
    "unpack_fp4",
    "unpack_fp4_codes",
    "fp4_values",
    "e4m3_values",
    "decode_scales",
]

#: Elements sharing one block scale.
BLOCK = 16
E2M1 = np.dtype(ml_dtypes.float4_e2m1fn)
E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
#: Largest e2m1 magnitude and largest finite e4m3 value.
E2M1_MAX = float(ml_dtypes.finfo(ml_dtypes.float4_e2m1fn).max)  # 6.0
E4M3_MAX = float(ml_dtypes.finfo(ml_dtypes.float8_e4m3fn).max)  # 448.0

_FLOAT_INPUTS = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64), np.dtype(ml_dtypes.bfloat16))


def fp4_values(dtype=np.float32) -> np.ndarray:
    """The 16 e2m1 values indexed by code (0..15), as ml_dtypes decodes them."""
    return np.arange(16, dtype=np.uint8).view(E2M1).astype(dtype)


def e4m3_values(dtype=np.float32) -> np.ndarray:
    """The 256 e4m3 values indexed by byte (0x7F and 0xFF are NaN), as ml_dtypes decodes them."""
    return np.arange(256, dtype=np.uint8).view(E4M3).astype(dtype)


def decode_scales(scales, dtype=np.float32) -> np.ndarray:
    """e4m3 scales (``float8_e4m3fn`` or their raw uint8 bytes) as ``dtype`` values, by table lookup."""
    s = np.asarray(scales)
    if s.dtype == E4M3:
        s = s.view(np.uint8)
    elif s.dtype != np.uint8:
        raise TypeError(f"scales must be float8_e4m3fn or uint8 bytes, got dtype {s.dtype}")
    return e4m3_values(dtype)[s]


# --------------------------------------------------------------------------- packing


def unpack_fp4_codes(packed) -> np.ndarray:
    """uint8 ``[..., n]`` packed bytes -> uint8 e2m1 codes ``[..., 2n]`` (low nibble first)."""
    p = _as_bytes(packed, "packed")
    codes = np.empty(p.shape[:-1] + (2 * p.shape[-1],), dtype=np.uint8) if p.ndim else None
    if codes is None:
        raise ValueError("packed must have at least one axis")
    codes[..., 0::2] = p & 0x0F
    codes[..., 1::2] = p >> 4
    return codes


def unpack_fp4(packed) -> np.ndarray:
    """uint8 ``[..., n]`` packed bytes -> ``float4_e2m1fn`` ``[..., 2n]`` (low nibble = lower index)."""
    return unpack_fp4_codes(packed).view(E2M1)


def pack_fp4(codes_or_values) -> np.ndarray:
    """Pack e2m1 elements ``[..., 2n]`` into uint8 ``[..., n]``, element 2i in the low nibble.

    Accepts ``float4_e2m1fn`` arrays, integer codes in 0..15, or floats that are
    exactly e2m1 values (anything else raises: rounding belongs to :func:`quantize`).
    """
    x = np.asarray(codes_or_values)
    if x.dtype == E2M1:
        codes = x.view(np.uint8) & 0x0F
    elif np.issubdtype(x.dtype, np.integer):
        if x.size and (x.min() < 0 or x.max() > 15):
            raise ValueError("integer e2m1 codes must lie in 0..15")
        codes = x.astype(np.uint8)
    elif x.dtype.kind == "f" or x.dtype == np.dtype(ml_dtypes.bfloat16):
        as_f4 = x.astype(np.float32).astype(E2M1)
        if not np.array_equal(as_f4.astype(np.float32), x.astype(np.float32)):
            raise ValueError("float values passed to pack_fp4 must be exact e2m1 values (0, ±0.5, ±1, ±1.5, ±2, ±3, ±4, ±6)")
        codes = as_f4.view(np.uint8) & 0x0F
    else:
        raise TypeError(f"codes_or_values must be float4_e2m1fn, integer codes or floats, got dtype {x.dtype}")
    if codes.ndim == 0 or codes.shape[-1] % 2:
        raise ValueError(f"the last axis must have an even length to pack pairs, got shape {codes.shape}")
    return (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)


def _as_bytes(arr, name) -> np.ndarray:
    a = np.asarray(arr)
    if a.dtype == np.int8:
        a = a.view(np.uint8)
    if a.dtype != np.uint8:
        raise TypeError(f"{name} must be uint8 (or int8) packed fp4 bytes, got dtype {a.dtype}")
    return a


# --------------------------------------------------------------------------- the tensor


@dataclass(frozen=True)
class NVFP4Tensor:
    """Packed NVFP4 data with its block scales and tensor scale.

    ``data`` and ``scales`` are numpy arrays on the host or
    :class:`nvfp4rt.array.DeviceArray` values on a GPU; the metadata (``k``,
    ``scale_layout``, ``tensor_scale``) stays here either way, so a tensor can
    move back and forth without losing how to read it.
    """

    data: Any
    scales: Any
    tensor_scale: float = 1.0
    k: int = 0
    scale_layout: str = "linear"

    def __post_init__(self):
        if self.scale_layout not in ("linear", "blocked"):
            raise ValueError(f"scale_layout must be 'linear' or 'blocked', got {self.scale_layout!r}")
        half_k = int(self.data.shape[-1])
        k = int(self.k) if self.k else 2 * half_k
        if k != 2 * half_k or k % BLOCK:
            raise ValueError(f"k={k} does not match data's last axis ({half_k} bytes) or is not a multiple of {BLOCK}")
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "tensor_scale", float(self.tensor_scale))

    @property
    def shape(self) -> tuple:
        """Logical shape ``[..., k]`` (elements, not bytes)."""
        return tuple(self.data.shape[:-1]) + (self.k,)

    @property
    def on_device(self) -> bool:
        return not isinstance(self.data, np.ndarray)

    def to_device(self, device=None) -> "NVFP4Tensor":
        """A copy whose data and scales live on ``device`` (nvfp4rt DeviceArray); metadata kept."""
        from . import array

        if self.on_device:
            return self
        scales = np.ascontiguousarray(self.scales).view(np.uint8).view(E4M3)
        return replace(self, data=array.asarray(np.ascontiguousarray(self.data), device=device),
                       scales=array.asarray(scales, device=device))

    @classmethod
    def from_device(cls, data, scales, *, k=None, tensor_scale=1.0, scale_layout="linear", device=None) -> "NVFP4Tensor":
        """Wrap device (or DLPack-exporting) data and scales without copying them through the host."""
        from . import array

        d = array.asarray(data, device=device)
        s = array.asarray(scales, device=device)
        return cls(d, s, tensor_scale=tensor_scale, k=k or 2 * int(d.shape[-1]), scale_layout=scale_layout)

    def to_host(self) -> "NVFP4Tensor":
        """A copy with numpy data and scales (device-to-host copies); metadata kept."""
        if not self.on_device:
            return self
        data = np.asarray(self.data.numpy()).view(np.uint8)
        scales = np.asarray(self.scales.numpy())
        if scales.dtype != E4M3:
            scales = scales.view(np.uint8).view(E4M3)
        return replace(self, data=data, scales=scales)

    def with_scale_layout(self, layout: str) -> "NVFP4Tensor":
        """The same tensor with its scales rearranged to ``"linear"`` or ``"blocked"`` (host only)."""
        from . import scales as sc

        if layout == self.scale_layout:
            return self
        if self.on_device:
            raise ValueError("scale layout conversion runs on the host: call .to_host() first")
        lead, mn = self.shape[:-2], (self.shape[-2] if len(self.shape) >= 2 else 1)
        nb = int(np.prod(lead, dtype=np.int64))
        if layout == "blocked":
            lin = np.asarray(self.scales).reshape(nb, mn, self.k // BLOCK)
            new = sc.to_blocked(lin.transpose(1, 2, 0))
            new = new.reshape(tuple(lead) + new.shape[1:])
        elif layout == "linear":
            blk = np.asarray(self.scales).reshape((nb,) + np.asarray(self.scales).shape[len(lead):])
            new = sc.from_blocked(blk, mn, self.k).transpose(2, 0, 1)
            new = np.ascontiguousarray(new).reshape(tuple(self.shape[:-1]) + (self.k // BLOCK,))
        else:
            raise ValueError(f"layout must be 'linear' or 'blocked', got {layout!r}")
        return replace(self, scales=new, scale_layout=layout)


def quantize(x, block: int = BLOCK, tensor_scale=None) -> NVFP4Tensor:
    """Quantize ``x`` (float32/float16/bfloat16/float64, shape ``[..., k]``) to NVFP4.

    ``tensor_scale``: None (1.0), ``"auto"`` (global amax / (6 * 448), so the
    largest block scale lands near 448; 1.0 for an all-zero input) or a positive float.
    Block scale = e4m3(block amax / 6 / tensor_scale), rounded to nearest and
    saturated at 448; values = RNE(x / (scale * tensor_scale)) to e2m1, saturated at ±6.
    A block whose scale is zero (all zeros, or too small for e4m3) stores zeros.
    ``k`` must be a multiple of 16 (the block size); non-finite input is rejected.
    """
    if block != BLOCK:
        raise ValueError(f"block must be {BLOCK} (the NVFP4 block size), got {block}")
    arr = np.asarray(x)
    if arr.dtype not in _FLOAT_INPUTS:
        raise TypeError(f"x must be float32, float16, bfloat16 or float64, got dtype {arr.dtype}")
    if arr.ndim == 0:
        raise ValueError("x must have at least one axis (the k axis)")
    k = arr.shape[-1]
    if k == 0 or k % BLOCK:
        raise ValueError(f"k={k} (x's last axis) must be a positive multiple of {BLOCK}, the NVFP4 block size")
    xf = arr.astype(np.float64)
    if not np.all(np.isfinite(xf)):
        raise ValueError("x contains NaN or inf; NVFP4 has no encoding for them")
    if tensor_scale is None:
        ts = 1.0
    elif isinstance(tensor_scale, str):
        if tensor_scale != "auto":
            raise ValueError(f"tensor_scale must be None, 'auto' or a positive float, got {tensor_scale!r}")
        amax = float(np.max(np.abs(xf))) if xf.size else 0.0
        ts = float(np.float32(amax / (E2M1_MAX * E4M3_MAX))) if amax > 0 else 1.0
        if ts == 0.0:  # amax so small the fp32 tensor scale underflows
            ts = 1.0
    else:
        ts = float(np.float32(tensor_scale))
        if not (np.isfinite(ts) and ts > 0):
            raise ValueError(f"tensor_scale must be a positive finite float, got {tensor_scale!r}")
    blocks = xf.reshape(arr.shape[:-1] + (k // BLOCK, BLOCK))
    bmax = np.max(np.abs(blocks), axis=-1)
    scale_f = np.minimum(bmax / E2M1_MAX / ts, E4M3_MAX)
    scales = scale_f.astype(E4M3)  # float64 -> e4m3 in one rounding
    step = scales.astype(np.float64) * ts
    safe = np.where(step > 0, step, 1.0)[..., None]
    y = np.where(step[..., None] > 0, blocks / safe, 0.0)
    y = np.clip(y, -E2M1_MAX, E2M1_MAX)
    # float64 -> e2m1 directly: one rounding (RNE), no intermediate float32 step.
    codes = y.astype(E2M1).view(np.uint8).reshape(arr.shape)
    return NVFP4Tensor(pack_fp4(codes & 0x0F), scales, tensor_scale=ts, k=k, scale_layout="linear")


def dequantize(t: NVFP4Tensor) -> np.ndarray:
    """The float32 values of an NVFP4 tensor (host arrays; device tensors are copied back first)."""
    if not isinstance(t, NVFP4Tensor):
        raise TypeError(f"t must be an NVFP4Tensor, got {type(t).__name__}")
    if t.on_device:
        t = t.to_host()
    if t.scale_layout != "linear":
        t = t.with_scale_layout("linear")
    data = _as_bytes(t.data, "t.data")
    vals = fp4_values(np.float32)[unpack_fp4_codes(data)]
    s = decode_scales(t.scales, np.float32)
    if s.shape != data.shape[:-1] + (t.k // BLOCK,):
        raise ValueError(f"scales have shape {s.shape}, expected {data.shape[:-1] + (t.k // BLOCK,)}")
    out = vals.reshape(s.shape + (BLOCK,)) * s[..., None]
    if t.tensor_scale != 1.0:
        out = out * np.float32(t.tensor_scale)
    return out.reshape(t.shape).astype(np.float32)
