"""TMA tensor-map descriptors (``cuTensorMapEncodeTiled``) with the rules checked first.

A :class:`TensorMap` describes a strided tensor in global memory and the box
(tile) that one ``cp.async.bulk.tensor`` copies.  Kernels take it by value
(``.param .align 64 .b8 tmap[128]``); :mod:`nvfp4rt.launch` packs its 128
bytes (:attr:`TensorMap.bytes`).

Axis order at this API is numpy's: ``shape``, ``strides`` and ``box`` list the
outermost axis first and the innermost (contiguous) axis last, as in
``ndarray.shape``.  The driver wants the opposite (innermost first); the
conversion happens here.  ``strides`` are in bytes, either all ``rank`` of
them as ``ndarray.strides`` gives (the innermost must equal the element size:
TMA reads the innermost axis densely) or just the ``rank - 1`` outer ones.

The driver rejects a bad descriptor with a bare ``CUDA_ERROR_INVALID_VALUE``;
some bad descriptors (e.g. a misaligned shared destination) give silently
wrong data instead.  :func:`check_tensor_map` therefore checks every
documented rule first, as a pure function (no GPU), and raises
:class:`TensorMapError` (a ValueError) naming the rule and the value.

:meth:`TensorMap.repoint` moves a descriptor to a new base address through
``cuTensorMapReplaceAddress``: the driver rewrites the address field of the
existing descriptor (we do not patch the opaque bytes ourselves, since their
layout is not documented).
"""
from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass

import numpy as np

from . import driver

__all__ = ["TensorMap", "TensorMapError", "TensorMapSpec", "check_tensor_map", "SWIZZLE_BYTES"]

TENSOR_MAP_BYTES = 128
MAX_RANK = 5

# name -> (driver enum name, bits per element, is float)
_DTYPES = {
    "uint8": ("CU_TENSOR_MAP_DATA_TYPE_UINT8", 8, False),
    "float8_e4m3fn": ("CU_TENSOR_MAP_DATA_TYPE_UINT8", 8, False),  # TMA moves bytes; fp8 is a byte type to it
    "float8_e5m2": ("CU_TENSOR_MAP_DATA_TYPE_UINT8", 8, False),
    "int8": ("CU_TENSOR_MAP_DATA_TYPE_UINT8", 8, False),
    "uint16": ("CU_TENSOR_MAP_DATA_TYPE_UINT16", 16, False),
    "float16": ("CU_TENSOR_MAP_DATA_TYPE_FLOAT16", 16, True),
    "bfloat16": ("CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", 16, True),
    "uint32": ("CU_TENSOR_MAP_DATA_TYPE_UINT32", 32, False),
    "int32": ("CU_TENSOR_MAP_DATA_TYPE_INT32", 32, False),
    "float32": ("CU_TENSOR_MAP_DATA_TYPE_FLOAT32", 32, True),
    "uint64": ("CU_TENSOR_MAP_DATA_TYPE_UINT64", 64, False),
    "int64": ("CU_TENSOR_MAP_DATA_TYPE_INT64", 64, False),
    "float64": ("CU_TENSOR_MAP_DATA_TYPE_FLOAT64", 64, True),
    # packed 4-bit values (dims count nibbles); the driver supports them on sm_100+ only
    "16u4_align8b": ("CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B", 4, False),
    "16u4_align16b": ("CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B", 4, False),
}
_PACKED_16B = "16u4_align16b"

#: Swizzle name -> span in bytes (the largest inner box a swizzled copy may have).
SWIZZLE_BYTES = {"none": 0, "32B": 32, "64B": 64, "128B": 128}
_SWIZZLE_ENUM = {"none": "NONE", "32B": "32B", "64B": "64B", "128B": "128B"}
_INTERLEAVE = {"none": "NONE", "16B": "16B", "32B": "32B"}
_L2 = {"none": "NONE", "64B": "L2_64B", "128B": "L2_128B", "256B": "L2_256B"}
_OOB = {"zero": "NONE", "nan": "NAN_REQUEST_ZERO_FMA"}


class TensorMapError(ValueError):
    """A tensor-map parameter breaks a documented ``cuTensorMapEncodeTiled`` rule."""


def _dtype_name(dtype) -> str:
    if isinstance(dtype, str) and dtype.lower() in _DTYPES:
        return dtype.lower()
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = str(dtype)
    if name not in _DTYPES:
        raise TensorMapError(f"dtype: {dtype!r} has no TMA data type; supported: {sorted(_DTYPES)}")
    return name


def _choice(what: str, value, table: dict) -> str:
    for key in table:
        if isinstance(value, str) and value.lower() == key.lower():
            return key
    if value is None and "none" in table:
        return "none"
    raise TensorMapError(f"{what}: {value!r} is not one of {list(table)}")


def _ints(what: str, values) -> tuple[int, ...]:
    if isinstance(values, (int, np.integer)) and not isinstance(values, bool):
        values = (values,)
    try:
        out = tuple(values)
    except TypeError:
        raise TensorMapError(f"{what} must be a sequence of ints, got {values!r}") from None
    for v in out:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TensorMapError(f"{what} must hold ints, got {v!r}")
    return tuple(int(v) for v in out)


@dataclass(frozen=True)
class TensorMapSpec:
    """A checked descriptor, in the driver's order (innermost axis first)."""

    dtype: str
    rank: int
    dims: tuple[int, ...]              # elements, innermost first
    strides: tuple[int, ...]           # bytes, rank - 1 of them, innermost first (dims[1:])
    box: tuple[int, ...]               # elements, innermost first
    element_strides: tuple[int, ...]
    interleave: str
    swizzle: str
    l2_promotion: str
    oob_fill: str

    @property
    def element_bits(self) -> int:
        return _DTYPES[self.dtype][1]

    @property
    def box_bytes(self) -> int:
        """Bytes one full box occupies in shared memory (what an mbarrier's expect_tx counts)."""
        return math.prod(math.ceil(b / e) for b, e in zip(self.box, self.element_strides)) * self.element_bits // 8


def check_base_address(address: int, spec: TensorMapSpec) -> None:
    """Rule: the global address is 16-byte aligned (32 for 32B interleave and 16U4_ALIGN16B)."""
    need = 32 if spec.interleave == "32B" or spec.dtype == _PACKED_16B else 16
    if isinstance(address, bool) or not isinstance(address, (int, np.integer)):
        raise TypeError(f"base address must be an int, got {type(address).__name__}")
    if address % need:
        raise TensorMapError(f"base address alignment: 0x{int(address):x} is not a multiple of {need} bytes")


def check_tensor_map(dtype, shape, box, *, strides=None, element_strides=None, interleave="none",
                     swizzle="none", l2_promotion="128B", oob_fill="zero", base_address=None) -> TensorMapSpec:
    """Check every documented ``cuTensorMapEncodeTiled`` rule; return the driver-order spec.

    ``shape``, ``box``, ``strides`` and ``element_strides`` are in numpy order
    (outermost first).  Pure: needs no GPU.  Raises :class:`TensorMapError`.
    """
    name = _dtype_name(dtype)
    bits = _DTYPES[name][1]
    is_float = _DTYPES[name][2]
    interleave = _choice("interleave", interleave, _INTERLEAVE)
    swizzle = _choice("swizzle", swizzle, SWIZZLE_BYTES)
    l2_promotion = _choice("l2_promotion", l2_promotion, _L2)
    oob_fill = _choice("oob_fill", oob_fill, _OOB)

    shape = _ints("shape", shape)
    rank = len(shape)
    if not 1 <= rank <= MAX_RANK:
        raise TensorMapError(f"rank: {rank} dimensions given, TMA supports 1 to {MAX_RANK}")
    if interleave != "none" and rank < 3:
        raise TensorMapError(f"rank with interleave: interleave={interleave} needs rank >= 3, got {rank}")
    for axis, d in enumerate(shape):
        if not 1 <= d <= 2**32:
            raise TensorMapError(f"global dim: shape[{axis}]={d} must be in 1..2**32")
    inner_dim = shape[-1]
    if name == _PACKED_16B and inner_dim % 128:
        raise TensorMapError(f"global dim for 16U4_ALIGN16B: the innermost dim {inner_dim} must be a multiple of 128")
    if name == "16u4_align8b" and inner_dim % 2:
        raise TensorMapError(f"global dim for 16U4_ALIGN8B: the innermost dim {inner_dim} must be even")

    # strides: numpy order, bytes
    if strides is None:
        dense = []
        acc = inner_dim * bits // 8
        for d in reversed(shape[:-1]):
            dense.append(acc)
            acc *= d
        outer_strides = tuple(reversed(dense))
    else:
        strides = _ints("strides", strides)
        if len(strides) == rank:
            if strides[-1] * 8 != bits and not (bits == 4 and strides[-1] == 1):
                raise TensorMapError(f"innermost stride: {strides[-1]} bytes, but TMA reads the innermost axis densely "
                                     f"(its stride must be the element size, {bits / 8:g} bytes)")
            outer_strides = strides[:-1]
        elif len(strides) == rank - 1:
            outer_strides = strides
        else:
            raise TensorMapError(f"strides: expected {rank} (as ndarray.strides) or {rank - 1} byte strides, "
                                 f"got {len(strides)}")
    stride_multiple = 32 if interleave == "32B" or name == _PACKED_16B else 16
    for axis, s in enumerate(outer_strides):
        if s <= 0 or s % stride_multiple:
            raise TensorMapError(f"global stride: strides[{axis}]={s} bytes must be a positive multiple of "
                                 f"{stride_multiple}")
        if s >= 2**40:
            raise TensorMapError(f"global stride: strides[{axis}]={s} bytes must be < 2**40")

    box = _ints("box", box)
    if len(box) != rank:
        raise TensorMapError(f"box: {len(box)} dims given for a rank-{rank} tensor")
    for axis, b in enumerate(box):
        if not 1 <= b <= 256:
            raise TensorMapError(f"box dim: box[{axis}]={b} must be in 1..256")
    inner_box_bytes = box[-1] * bits / 8
    if interleave == "none" and inner_box_bytes % 16:
        raise TensorMapError(f"inner box bytes: box[-1]={box[-1]} elements = {inner_box_bytes:g} bytes, "
                             "which must be a multiple of 16")
    if name == _PACKED_16B and box[-1] != 128:
        raise TensorMapError(f"box dim for 16U4_ALIGN16B: the innermost box must be 128, got {box[-1]}")
    span = SWIZZLE_BYTES[swizzle]
    if interleave == "none" and span and inner_box_bytes > span:
        raise TensorMapError(f"inner box bytes with swizzle: {inner_box_bytes:g} bytes exceed the {swizzle} "
                             f"swizzle span ({span} bytes)")
    if interleave == "32B" and swizzle != "32B":
        raise TensorMapError(f"interleave 32B needs swizzle 32B, got swizzle={swizzle}")

    if element_strides is None:
        element_strides = (1,) * rank
    element_strides = _ints("element_strides", element_strides)
    if len(element_strides) != rank:
        raise TensorMapError(f"element strides: {len(element_strides)} given for a rank-{rank} tensor")
    for axis, e in enumerate(element_strides):
        if not 1 <= e <= 8:
            raise TensorMapError(f"element stride: element_strides[{axis}]={e} must be in 1..8")

    if oob_fill == "nan" and (not is_float):
        raise TensorMapError(f"oob_fill 'nan' (NaN_REQUEST_ZERO_FMA) needs a floating-point dtype, got {name}")

    spec = TensorMapSpec(name, rank, tuple(reversed(shape)), tuple(reversed(outer_strides)), tuple(reversed(box)),
                         tuple(reversed(element_strides)), interleave, swizzle, l2_promotion, oob_fill)
    if base_address is not None:
        check_base_address(base_address, spec)
    return spec


def _base_of(base) -> int:
    if isinstance(base, (int, np.integer)) and not isinstance(base, (bool, np.bool_)):
        return int(base)
    if isinstance(base, driver.raw.CUdeviceptr):
        return int(base)
    ptr = getattr(base, "ptr", None)
    if isinstance(ptr, (int, np.integer)) and not isinstance(ptr, bool):
        return int(ptr)
    cai = getattr(base, "__cuda_array_interface__", None)
    if isinstance(cai, dict):
        return int(cai["data"][0])
    raise TypeError(f"base must be a device address (int), a device array or a Pointer, got {type(base).__name__}")


def _enum(enum_type, name: str):
    value = getattr(enum_type, name, None)
    if value is None:
        raise TensorMapError(f"the installed cuda-bindings has no {enum_type.__name__}.{name}")
    return value


class TensorMap:
    """A ``CUtensorMap`` for tiled TMA copies of one global tensor.

    ``TensorMap(base, dtype, shape, box, strides=None, element_strides=None,
    interleave="none", swizzle="none", l2_promotion="128B", oob_fill="zero")``
    where ``base`` is a device address or array, axes are in numpy order and
    ``strides`` in bytes (default: C-contiguous).  ``swizzle`` is one of
    ``none/32B/64B/128B``, ``interleave`` ``none/16B/32B``, ``l2_promotion``
    ``none/64B/128B/256B``, ``oob_fill`` ``zero`` or ``nan`` (NaN, request
    zero FMA; float dtypes only).
    """

    def __init__(self, base, dtype, shape, box, *, strides=None, element_strides=None, interleave="none",
                 swizzle="none", l2_promotion="128B", oob_fill="zero"):
        self.spec = check_tensor_map(dtype, shape, box, strides=strides, element_strides=element_strides,
                                     interleave=interleave, swizzle=swizzle, l2_promotion=l2_promotion,
                                     oob_fill=oob_fill)
        self.base = _base_of(base)
        check_base_address(self.base, self.spec)
        self._map = self._encode(self.base)

    @classmethod
    def from_array(cls, array, box, **options) -> "TensorMap":
        """A map over a device array (uses its ``ptr``, ``shape``, ``dtype`` and ``strides`` if it has them)."""
        return cls(array, options.pop("dtype", array.dtype), array.shape, box,
                   strides=options.pop("strides", getattr(array, "strides", None)), **options)

    def _encode(self, base: int):
        s = self.spec
        drv = driver.raw
        return driver.call(
            "cuTensorMapEncodeTiled",
            _enum(drv.CUtensorMapDataType, _DTYPES[s.dtype][0]),
            s.rank,
            base,
            [drv.cuuint64_t(d) for d in s.dims],
            [drv.cuuint64_t(x) for x in s.strides],
            [drv.cuuint32_t(b) for b in s.box],
            [drv.cuuint32_t(e) for e in s.element_strides],
            _enum(drv.CUtensorMapInterleave, "CU_TENSOR_MAP_INTERLEAVE_" + _INTERLEAVE[s.interleave]),
            _enum(drv.CUtensorMapSwizzle, "CU_TENSOR_MAP_SWIZZLE_" + _SWIZZLE_ENUM[s.swizzle]),
            _enum(drv.CUtensorMapL2promotion, "CU_TENSOR_MAP_L2_PROMOTION_" + _L2[s.l2_promotion]),
            _enum(drv.CUtensorMapFloatOOBfill, "CU_TENSOR_MAP_FLOAT_OOB_FILL_" + _OOB[s.oob_fill]),
        )

    def __repr__(self) -> str:
        s = self.spec
        return (f"<TensorMap {s.dtype} shape={tuple(reversed(s.dims))} box={tuple(reversed(s.box))} "
                f"swizzle={s.swizzle} base=0x{self.base:x}>")

    @property
    def handle(self):
        """The cuda-python ``CUtensorMap`` object."""
        return self._map

    @property
    def bytes(self) -> bytes:
        """The 128 opaque descriptor bytes, as a kernel takes them by value."""
        return ctypes.string_at(self._map.getPtr(), TENSOR_MAP_BYTES)

    # what nvfp4rt.launch looks for when packing a by-value .b8[128] parameter
    tensor_map_bytes = bytes

    @property
    def box_bytes(self) -> int:
        return self.spec.box_bytes

    def repoint(self, base) -> "TensorMap":
        """Point this descriptor at a new base address (same shape, strides, box).

        Uses ``cuTensorMapReplaceAddress``, which rewrites only the address in
        the existing descriptor.  Prepared launches hold a copy of the bytes:
        ``prepared.set(name, tmap)`` after repointing.
        """
        addr = _base_of(base)
        check_base_address(addr, self.spec)
        driver.call("cuTensorMapReplaceAddress", self._map, addr)
        self.base = addr
        return self
