"""DLPack in pure ctypes: the C structs, dtype codes, a capsule producer and a consumer.

Written from the DLPack 1.x header (``dlpack.h``) and the array API standard's
``__dlpack__`` protocol.  Nothing here talks to the GPU: stream
synchronisation is the caller's job (:mod:`nvfp4rt.array`), so parsing and
building capsules can be tested on any machine.

Producer: :func:`export_capsule` wraps a duck-typed array (``ptr``,
``shape``, byte ``strides``, ``dtype``, ``dtype_hint``, ``device.ordinal``)
into a ``"dltensor_versioned"`` or legacy ``"dltensor"`` capsule.  The
managed tensor's context keeps the array alive until the consumer calls the
deleter; a capsule that is never consumed frees itself in its destructor
(consumers rename the capsules they take to ``"used_..."``, so the
destructor leaves those alone).

Consumer: :func:`consume_capsule` reads either struct, renames the capsule
and returns a :class:`DLPackImport` whose ``release()`` (or garbage
collection) calls the producer's deleter exactly once.
"""
from __future__ import annotations

import ctypes
import threading
import weakref
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

__all__ = [
    "DLDataType", "DLDevice", "DLManagedTensor", "DLManagedTensorVersioned", "DLPackImport", "DLPackVersion",
    "DLTensor", "FP4_X2", "consume_capsule", "dtype_from_dlpack", "dtype_to_dlpack", "export_capsule",
    "host_ndarray", "supported_dtypes",
]

#: The DLPack version this module speaks.
DLPACK_VERSION = (1, 0)

# DLDeviceType
kDLCPU, kDLCUDA, kDLCUDAHost, kDLROCM, kDLCUDAManaged = 1, 2, 3, 10, 13
DEVICE_TYPE_NAMES = {1: "CPU", 2: "CUDA", 3: "CUDA host (pinned)", 4: "OpenCL", 7: "Vulkan", 8: "Metal",
                     9: "VPI", 10: "ROCm", 11: "ROCm host", 12: "ext_dev", 13: "CUDA managed", 14: "oneAPI",
                     15: "WebGPU", 16: "Hexagon", 17: "MAIA"}

# DLDataTypeCode
kDLInt, kDLUInt, kDLFloat, kDLOpaqueHandle, kDLBfloat, kDLComplex, kDLBool = 0, 1, 2, 3, 4, 5, 6
kDLFloat8_e3m4, kDLFloat8_e4m3, kDLFloat8_e4m3b11fnuz, kDLFloat8_e4m3fn = 7, 8, 9, 10
kDLFloat8_e4m3fnuz, kDLFloat8_e5m2, kDLFloat8_e5m2fnuz, kDLFloat8_e8m0fnu = 11, 12, 13, 14
kDLFloat6_e2m3fn, kDLFloat6_e3m2fn, kDLFloat4_e2m1fn = 15, 16, 17

# DLManagedTensorVersioned.flags
FLAG_READ_ONLY = 1 << 0
FLAG_IS_COPIED = 1 << 1
FLAG_IS_SUBBYTE_TYPE_PADDED = 1 << 2

#: ``dtype_hint`` of uint8 storage that holds two e2m1 values per byte, low nibble first
#: (torch's ``float4_e2m1fn_x2``; DLPack code 17, bits 4, lanes 2).
FP4_X2 = "float4_e2m1fn_x2"


# ----------------------------------------------------------------------------- structs

class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),  # in elements; NULL = C-contiguous
        ("byte_offset", ctypes.c_uint64),
    ]


#: ``void (*deleter)(DLManagedTensor*)``; the argument is passed as a plain address.
DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", DELETER),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


# ----------------------------------------------------------------------------- dtypes

def _dtype_table() -> list[tuple[np.dtype, int, int]]:
    rows = [(np.bool_, kDLBool, 8)]
    rows += [(t, kDLInt, np.dtype(t).itemsize * 8) for t in (np.int8, np.int16, np.int32, np.int64)]
    rows += [(t, kDLUInt, np.dtype(t).itemsize * 8) for t in (np.uint8, np.uint16, np.uint32, np.uint64)]
    rows += [(t, kDLFloat, np.dtype(t).itemsize * 8) for t in (np.float16, np.float32, np.float64)]
    rows += [(np.complex64, kDLComplex, 64), (np.complex128, kDLComplex, 128), (ml_dtypes.bfloat16, kDLBfloat, 16)]
    for name, code in (("float8_e3m4", kDLFloat8_e3m4), ("float8_e4m3", kDLFloat8_e4m3),
                       ("float8_e4m3b11fnuz", kDLFloat8_e4m3b11fnuz), ("float8_e4m3fn", kDLFloat8_e4m3fn),
                       ("float8_e4m3fnuz", kDLFloat8_e4m3fnuz), ("float8_e5m2", kDLFloat8_e5m2),
                       ("float8_e5m2fnuz", kDLFloat8_e5m2fnuz), ("float8_e8m0fnu", kDLFloat8_e8m0fnu)):
        t = getattr(ml_dtypes, name, None)
        if t is not None:
            rows.append((t, code, 8))
    return [(np.dtype(t), code, bits) for t, code, bits in rows]


_TO_DL = {dt: (code, bits) for dt, code, bits in _dtype_table()}
_FROM_DL = {(code, bits): dt for dt, (code, bits) in _TO_DL.items()}


def supported_dtypes() -> tuple[np.dtype, ...]:
    """The numpy dtypes a DeviceArray may hold (all byte-addressable)."""
    return tuple(_TO_DL)


def dtype_to_dlpack(dtype, hint: str | None = None) -> tuple[int, int, int]:
    """``(code, bits, lanes)`` for a numpy dtype; uint8 with ``hint=FP4_X2`` gives (17, 4, 2)."""
    dt = np.dtype(dtype)
    if hint == FP4_X2:
        if dt != np.uint8:
            raise ValueError(f"dtype_hint {FP4_X2!r} needs uint8 storage, got {dt}")
        return (kDLFloat4_e2m1fn, 4, 2)
    if hint is not None:
        raise ValueError(f"unknown dtype_hint {hint!r} (known: {FP4_X2!r})")
    try:
        code, bits = _TO_DL[dt]
    except KeyError:
        raise TypeError(f"dtype {dt} has no DLPack equivalent here") from None
    return (code, bits, 1)


def dtype_from_dlpack(code: int, bits: int, lanes: int) -> tuple[np.dtype, str | None]:
    """``(numpy dtype, dtype_hint)`` for a DLPack dtype; packed fp4 pairs become uint8 + FP4_X2."""
    if code == kDLFloat4_e2m1fn and bits == 4 and lanes == 2:
        return np.dtype(np.uint8), FP4_X2
    if code == kDLFloat4_e2m1fn:
        raise TypeError(f"DLPack float4_e2m1fn with bits={bits} lanes={lanes} is not byte-addressable; "
                        "export packed pairs (bits 4, lanes 2, e.g. torch float4_e2m1fn_x2) or uint8 bytes")
    if lanes != 1:
        raise TypeError(f"DLPack vector dtypes (lanes={lanes}) are not supported (code {code}, bits {bits})")
    dt = _FROM_DL.get((code, bits))
    if dt is None:
        raise TypeError(f"DLPack dtype (code={code}, bits={bits}) is not supported")
    return dt, None


# ----------------------------------------------------------------------------- Python C API

def _capi_function(name: str, restype, argtypes):
    # A fresh function object each: setting argtypes on ctypes.pythonapi's shared ones
    # would change them for every other user in the process.
    fn = ctypes.pythonapi[name]
    fn.restype, fn.argtypes = restype, argtypes
    return fn


_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_PyCapsule_New = _capi_function("PyCapsule_New", ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR])
_PyCapsule_GetName = _capi_function("PyCapsule_GetName", ctypes.c_char_p, [ctypes.py_object])
_PyCapsule_GetPointer = _capi_function("PyCapsule_GetPointer", ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p])
_PyCapsule_SetName = _capi_function("PyCapsule_SetName", ctypes.c_int, [ctypes.py_object, ctypes.c_char_p])
_PyCapsule_IsValid_raw = _capi_function("PyCapsule_IsValid", ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p])
_PyCapsule_GetPointer_raw = _capi_function("PyCapsule_GetPointer", ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p])

# Module constants: the capsule keeps a pointer to its name, so these bytes must live forever.
NAME_LEGACY = b"dltensor"
NAME_VERSIONED = b"dltensor_versioned"
USED_LEGACY = b"used_dltensor"
USED_VERSIONED = b"used_dltensor_versioned"


# ----------------------------------------------------------------------------- producer

# address of the managed struct -> everything it points into plus the exported array.
_exports: dict[int, tuple] = {}
_exports_lock = threading.Lock()


def _release_export(address: int) -> None:
    with _exports_lock:
        _exports.pop(address, None)


@DELETER
def _managed_deleter(address):
    """Called by the consumer (any thread; ctypes takes the GIL) when it is done with the tensor."""
    _release_export(address)


@_CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule):
    # Only an unconsumed capsule still owns its tensor; consumers rename the ones they take.
    for name in (NAME_VERSIONED, NAME_LEGACY):
        if _PyCapsule_IsValid_raw(capsule, name):
            _release_export(_PyCapsule_GetPointer_raw(capsule, name))
            return


def export_capsule(arr, *, versioned: bool, readonly: bool = False, copied: bool = False):
    """A DLPack capsule for ``arr`` (kDLCUDA, the array's device ordinal); no synchronisation here."""
    dt = np.dtype(arr.dtype)
    code, bits, lanes = dtype_to_dlpack(dt, getattr(arr, "dtype_hint", None))
    shape = tuple(int(n) for n in arr.shape)
    ndim = len(shape)
    itemsize = dt.itemsize
    strides = []
    for s in arr.strides:
        if s % itemsize:
            raise BufferError(f"byte stride {s} is not a multiple of the item size {itemsize}: DLPack cannot express it")
        strides.append(s // itemsize)
    c_shape = (ctypes.c_int64 * max(ndim, 1))(*shape)
    c_strides = (ctypes.c_int64 * max(ndim, 1))(*strides)
    managed = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    t = managed.dl_tensor
    t.data = int(arr.ptr) or None
    t.device = DLDevice(kDLCUDA, int(arr.device.ordinal))
    t.ndim = ndim
    t.dtype = DLDataType(code, bits, lanes)
    t.shape = ctypes.cast(c_shape, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(c_strides, ctypes.POINTER(ctypes.c_int64))
    t.byte_offset = 0
    managed.manager_ctx = None
    managed.deleter = _managed_deleter
    if versioned:
        managed.version = DLPackVersion(*DLPACK_VERSION)
        managed.flags = (FLAG_READ_ONLY if readonly else 0) | (FLAG_IS_COPIED if copied else 0)
    address = ctypes.addressof(managed)
    with _exports_lock:
        _exports[address] = (managed, c_shape, c_strides, arr)
    try:
        return _PyCapsule_New(address, NAME_VERSIONED if versioned else NAME_LEGACY, _capsule_destructor)
    except BaseException:
        _release_export(address)
        raise


def pending_exports() -> int:
    """How many exported tensors the consumers still hold (for leak tests)."""
    return len(_exports)


# ----------------------------------------------------------------------------- consumer

def _call_deleter(deleter, address: int) -> None:
    if deleter:
        deleter(address)


@dataclass(eq=False)
class DLPackImport:
    """What a consumed capsule describes; ``release()`` hands the tensor back to its producer.

    ``ptr`` already includes ``byte_offset``; ``strides`` are in bytes.
    """

    ptr: int
    shape: tuple
    strides: tuple
    dtype: np.dtype
    dtype_hint: str | None
    device_type: int
    device_id: int
    readonly: bool
    versioned: bool
    _finalizer: weakref.finalize = field(init=False, repr=False)

    @property
    def device_name(self) -> str:
        return DEVICE_TYPE_NAMES.get(self.device_type, f"device type {self.device_type}")

    def release(self) -> None:
        """Call the producer's deleter (once; later calls do nothing)."""
        self._finalizer()

    @property
    def released(self) -> bool:
        return not self._finalizer.alive


def consume_capsule(capsule) -> DLPackImport:
    """Read a ``dltensor`` or ``dltensor_versioned`` capsule and take ownership of its tensor.

    On success the capsule is renamed ``used_...``; on a parse error it is left
    untouched (its own destructor then frees the tensor) and TypeError /
    BufferError is raised.
    """
    try:
        name = _PyCapsule_GetName(capsule)
    except (ValueError, ctypes.ArgumentError):
        raise TypeError(f"expected a DLPack capsule, got {type(capsule).__name__}") from None
    if name == NAME_VERSIONED:
        address = _PyCapsule_GetPointer(capsule, name)
        managed = DLManagedTensorVersioned.from_address(address)
        major, minor = managed.version.major, managed.version.minor
        if major != DLPACK_VERSION[0]:
            raise BufferError(f"DLPack {major}.{minor} tensor: only major version {DLPACK_VERSION[0]} is supported")
        flags = int(managed.flags)
        if flags & FLAG_IS_SUBBYTE_TYPE_PADDED:
            raise BufferError("padded sub-byte DLPack tensors are not supported")
        readonly, used = bool(flags & FLAG_READ_ONLY), USED_VERSIONED
    elif name == NAME_LEGACY:
        address = _PyCapsule_GetPointer(capsule, name)
        managed = DLManagedTensor.from_address(address)
        readonly, used = False, USED_LEGACY
    elif name is not None and name.startswith(b"used_"):
        raise BufferError("this DLPack capsule was already consumed")
    else:
        raise TypeError(f"not a DLPack capsule (capsule name {name!r})")

    t = managed.dl_tensor
    ndim = int(t.ndim)
    if ndim < 0:
        raise BufferError(f"DLPack tensor has ndim {ndim}")
    dtype, hint = dtype_from_dlpack(int(t.dtype.code), int(t.dtype.bits), int(t.dtype.lanes))
    itemsize = dtype.itemsize
    shape = tuple(int(t.shape[i]) for i in range(ndim))
    if any(n < 0 for n in shape):
        raise BufferError(f"DLPack tensor has a negative extent: shape {shape}")
    if t.strides:
        strides = tuple(int(t.strides[i]) * itemsize for i in range(ndim))
    else:
        strides = c_contiguous_strides(shape, itemsize)
    ptr = (int(t.data or 0) + int(t.byte_offset)) if (t.data or t.byte_offset) else 0

    imp = DLPackImport(ptr=ptr, shape=shape, strides=strides, dtype=dtype, dtype_hint=hint,
                       device_type=int(t.device.device_type), device_id=int(t.device.device_id),
                       readonly=readonly, versioned=name == NAME_VERSIONED)
    deleter = managed.deleter  # a ctypes function pointer (falsy when NULL)
    if _PyCapsule_SetName(capsule, used) != 0:
        raise BufferError("could not rename the consumed DLPack capsule")
    imp._finalizer = weakref.finalize(imp, _call_deleter, deleter, address)
    return imp


def c_contiguous_strides(shape, itemsize: int) -> tuple:
    """Byte strides of a C-contiguous array."""
    strides, acc = [], itemsize
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(int(n), 1)
    return tuple(reversed(strides))


def byte_span(shape, strides, itemsize: int) -> tuple[int, int]:
    """``(lowest, highest + itemsize)`` byte offsets an array touches; (0, 0) when it is empty."""
    if any(n == 0 for n in shape):
        return (0, 0)
    lo = sum(s * (n - 1) for n, s in zip(shape, strides) if s < 0)
    hi = sum(s * (n - 1) for n, s in zip(shape, strides) if s > 0)
    return (lo, hi + itemsize)


def host_ndarray(imp: DLPackImport) -> np.ndarray:
    """A numpy view of a host (CPU or CUDA-pinned) import; valid until ``imp.release()``."""
    if imp.device_type not in (kDLCPU, kDLCUDAHost):
        raise BufferError(f"host_ndarray needs a CPU tensor, this one is on {imp.device_name}")
    lo, hi = byte_span(imp.shape, imp.strides, imp.dtype.itemsize)
    if hi == lo:
        return np.empty(imp.shape, imp.dtype)
    buf = (ctypes.c_char * (hi - lo)).from_address(imp.ptr + lo)
    return np.ndarray(imp.shape, imp.dtype, buffer=buf, offset=-lo, strides=imp.strides)
