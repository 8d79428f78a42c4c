"""DeviceArray: a typed, shaped view of device memory, and the ways to make one.

A DeviceArray either *owns* its memory (a :class:`~nvfp4rt.memory.DeviceAllocation`
made by :func:`empty`, :func:`zeros`, :func:`full`, :func:`from_numpy`) or
*borrows* it from a producer (a DLPack or CUDA-array-interface object), which
it keeps alive.  Strides are in bytes, as in numpy; owned arrays are
C-contiguous, borrowed ones keep the producer's strides.

Each array has a *stream* (default: the device's default stream, see
:mod:`nvfp4rt.stream`): the stream its own copies and fills run on, and the
one other libraries are made to wait for when they import it through DLPack.

NVFP4 data is not byte-addressable per element: it is stored as uint8 bytes
holding two e2m1 values each (low nibble first) and tagged
``dtype_hint="float4_e2m1fn_x2"``, which is what DLPack import/export use to
talk to torch's ``float4_e2m1fn_x2``.
"""
from __future__ import annotations

import math
import operator
from typing import NamedTuple

import ml_dtypes
import numpy as np

from . import driver
from .dlpack import (FP4_X2, byte_span, c_contiguous_strides, consume_capsule, export_capsule, host_ndarray,
                     kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged, supported_dtypes, DEVICE_TYPE_NAMES)
from .memory import DeviceAllocation
from .stream import Event, Stream, as_stream, resolve_device

__all__ = ["ArrayMeta", "DeviceArray", "asarray", "empty", "from_dlpack", "from_numpy", "full", "zeros"]


# ----------------------------------------------------------------------------- argument checks

def normalize_shape(shape, name: str = "shape") -> tuple[int, ...]:
    """A tuple of non-negative ints from an int or a sequence of ints."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        shape = (shape,)
    try:
        items = tuple(shape)
    except TypeError:
        raise TypeError(f"{name} must be an int or a sequence of ints, got {type(shape).__name__}") from None
    out = []
    for n in items:
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"{name} must contain ints, got {n!r} ({type(n).__name__}) in {items!r}")
        if n < 0:
            raise ValueError(f"{name} must contain non-negative extents, got {items!r}")
        out.append(int(n))
    return tuple(out)


def normalize_dtype(dtype) -> tuple[np.dtype, str | None]:
    """``(numpy dtype, dtype_hint)``; ``"float4_e2m1fn_x2"`` means uint8 storage of packed e2m1 pairs."""
    if isinstance(dtype, str) and dtype == FP4_X2:
        return np.dtype(np.uint8), FP4_X2
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype {dtype!r} is not a numpy dtype") from None
    if dt == np.dtype(ml_dtypes.float4_e2m1fn):
        raise TypeError("dtype float4_e2m1fn is not byte-addressable on the device: store NVFP4 data as packed "
                        f"uint8 bytes (two values per byte, low nibble first), e.g. dtype={FP4_X2!r}")
    if dt not in supported_dtypes():
        names = ", ".join(sorted({str(d) for d in supported_dtypes()}))
        raise TypeError(f"dtype {dt} is not supported on the device; supported: {names}")
    return dt, None


def _is_c_contiguous(shape, strides, itemsize) -> bool:
    expected = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n == 0:
            return True
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


# ----------------------------------------------------------------------------- the array

class ArrayMeta(NamedTuple):
    """What a raw op checks and caches its plan on: the shape, byte strides (None: C-contiguous), dtype and
    device ordinal of an operand.  Hashable; nothing in it changes while the same view is passed again."""

    shape: tuple
    strides: tuple | None
    dtype: object
    ordinal: int


class DeviceArray:
    """An n-dimensional array in device memory.

    ``DeviceArray(shape, dtype=float32, device=None, *, stream=None)`` allocates
    an uninitialised C-contiguous array (like :func:`empty`).
    :meth:`borrow` wraps memory owned by someone else.
    """

    def __init__(self, shape, dtype=np.float32, device=None, *, stream=None):
        shape = normalize_shape(shape)
        dt, hint = normalize_dtype(dtype)
        dev = resolve_device(device)
        nbytes = math.prod(shape) * dt.itemsize
        alloc = DeviceAllocation(nbytes, dev)
        self._setup(alloc._ptr, shape, dt, c_contiguous_strides(shape, dt.itemsize), dev,
                    alloc=alloc, owning=True, owner=None, hint=hint, readonly=False, stream=stream)

    @classmethod
    def borrow(cls, ptr: int, shape, dtype, *, device=None, strides=None, owner=None, dtype_hint=None,
               readonly: bool = False, stream=None) -> "DeviceArray":
        """Wrap device memory at ``ptr`` without owning it; ``owner`` is kept alive as long as the array.

        ``strides`` are in bytes (None: C-contiguous).  ``device`` is a Device,
        an ordinal, None (current device) or any object with an ``ordinal``
        (no GPU is touched then: used to test DLPack export without one).
        """
        if isinstance(ptr, bool) or not isinstance(ptr, (int, np.integer)):
            raise TypeError(f"ptr must be an int address, got {type(ptr).__name__}")
        if not 0 <= int(ptr) < 2**64:
            raise ValueError(f"ptr must be in [0, 2**64), got {ptr}")
        shape = normalize_shape(shape)
        dt, hint = normalize_dtype(dtype)
        hint = dtype_hint if dtype_hint is not None else hint
        if hint is not None and hint != FP4_X2:
            raise ValueError(f"dtype_hint must be None or {FP4_X2!r}, got {hint!r}")
        if hint == FP4_X2 and dt != np.uint8:
            raise ValueError(f"dtype_hint {FP4_X2!r} needs dtype uint8, got {dt}")
        if strides is None:
            strides = c_contiguous_strides(shape, dt.itemsize)
        else:
            strides = normalize_strides(strides, len(shape))
        if isinstance(device, driver.Device) or device is None or isinstance(device, int):
            dev = resolve_device(device)
        elif isinstance(getattr(device, "ordinal", None), int):
            dev = device
        else:
            raise TypeError(f"device must be None, an ordinal, a Device or an object with .ordinal; got {type(device).__name__}")
        self = cls.__new__(cls)
        self._setup(int(ptr), shape, dt, strides, dev, alloc=None, owning=False, owner=owner, hint=hint,
                    readonly=bool(readonly), stream=stream)
        return self

    def _setup(self, ptr, shape, dt, strides, dev, *, alloc, owning, owner, hint, readonly, stream):
        if stream is not None and not isinstance(stream, Stream):
            stream = as_stream(stream, device=dev)
        self._ptr = ptr
        self._shape = shape
        self._dtype = dt
        self._strides = tuple(strides)
        self._device = dev
        self._alloc = alloc          # the allocation the memory belongs to (views share it)
        self._owning = owning        # True only for the array that made the allocation
        self._owner = owner          # the producer (or base array) kept alive
        self._hint = hint
        self._readonly = readonly
        self._stream = stream        # None: the device's default stream
        self._closed = False
        self._host_keepalive = None  # the host buffer of the last async copy from host
        self._meta = None            # ArrayMeta, made on first use (a view's description never changes)

    def _derive(self, ptr, shape, dt, strides, hint) -> "DeviceArray":
        """A view sharing this array's memory (keeps this array alive)."""
        out = DeviceArray.__new__(DeviceArray)
        out._setup(ptr, shape, dt, strides, self._device, alloc=self._alloc, owning=False, owner=self,
                   hint=hint, readonly=self._readonly, stream=self._stream)
        return out

    # -- description
    shape = property(lambda self: self._shape, doc="The extents (tuple of ints).")
    dtype = property(lambda self: self._dtype, doc="The numpy dtype (uint8 for packed fp4).")
    strides = property(lambda self: self._strides, doc="Byte strides, like numpy's.")
    device = property(lambda self: self._device, doc="The Device holding the memory.")
    dtype_hint = property(lambda self: self._hint, doc="'float4_e2m1fn_x2' for packed fp4 bytes, else None.")
    readonly = property(lambda self: self._readonly)
    owning = property(lambda self: self._owning, doc="True when this array allocated its memory.")
    base = property(lambda self: self._owner, doc="The producer or array this one borrows from (None if owning).")

    @property
    def meta(self) -> ArrayMeta:
        """The view's :class:`ArrayMeta` (made once: the raw ops read it on every call)."""
        m = self._meta
        if m is None:
            m = self._meta = ArrayMeta(self._shape, self._strides, self._dtype, self._device.ordinal)
        return m

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self._shape:
            n *= d
        return n

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the elements (size * itemsize), like numpy's."""
        return self.size * self._dtype.itemsize

    @property
    def is_c_contiguous(self) -> bool:
        return _is_c_contiguous(self._shape, self._strides, self.itemsize)

    @property
    def ptr(self) -> int:
        """The device address of element 0, as an int."""
        if self._closed:
            raise ValueError("this DeviceArray is closed")
        if self._alloc is not None and self._alloc.closed:
            raise ValueError("the memory of this DeviceArray was freed (the array it views was closed)")
        return self._ptr

    @property
    def stream(self) -> Stream:
        """The stream this array's copies and fills run on (default: the device's default stream)."""
        return self._stream if self._stream is not None else as_stream(None, device=self._device)

    @stream.setter
    def stream(self, value) -> None:
        self._stream = None if value is None else as_stream(value, device=self._device)

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d DeviceArray")
        return self._shape[0]

    def __repr__(self) -> str:
        hint = f", dtype_hint={self._hint!r}" if self._hint else ""
        state = "closed" if self._closed else f"0x{self._ptr:x}"
        kind = "owning" if self._owning else "view/borrowed"
        return (f"DeviceArray(shape={self._shape}, dtype={self._dtype}{hint}, device={self._device.ordinal}, "
                f"ptr={state}, {kind})")

    # -- lifetime
    @property
    def closed(self) -> bool:
        return self._closed or (self._alloc is not None and self._alloc.closed)

    def close(self) -> None:
        """Release the memory now.

        An owning array frees its allocation (views of it become unusable); a
        borrowed array or view drops its reference to the producer, which is
        released once no view of it is left.
        """
        if self._closed:
            return
        self._closed = True
        if self._owning and self._alloc is not None:
            self._alloc.close()
        self._owner = None
        self._host_keepalive = None

    def __enter__(self) -> "DeviceArray":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- helpers
    def _resolve_stream(self, stream) -> Stream:
        return self.stream if stream is None else as_stream(stream, device=self._device)

    def _require_contiguous(self, what: str) -> None:
        if not self.is_c_contiguous:
            raise ValueError(f"{what} needs a C-contiguous DeviceArray (strides {self._strides} for shape "
                             f"{self._shape}); make a contiguous copy first")

    def _check_host(self, host, name: str, *, writable: bool) -> np.ndarray:
        if not isinstance(host, np.ndarray):
            raise TypeError(f"{name} must be a numpy ndarray, got {type(host).__name__}")
        if host.shape != self._shape:
            raise ValueError(f"{name} has shape {host.shape}, the DeviceArray has shape {self._shape}")
        if host.dtype != self._dtype:
            raise TypeError(f"{name} has dtype {host.dtype}, the DeviceArray has dtype {self._dtype}")
        if not host.flags.c_contiguous:
            raise ValueError(f"{name} must be C-contiguous")
        if writable and not host.flags.writeable:
            raise ValueError(f"{name} must be writable")
        return host

    # -- host transfers
    def numpy(self, stream=None) -> np.ndarray:
        """A host copy (C-contiguous numpy array), complete when this returns.

        The copy runs on ``stream`` (default: the array's stream), so it sees all
        work enqueued there before it.
        """
        if self.size == 0:
            self.ptr  # raises if closed
            return np.empty(self._shape, self._dtype)
        s = self._resolve_stream(stream)
        lo, hi = byte_span(self._shape, self._strides, self.itemsize)
        host = np.empty(hi - lo, np.uint8)
        self._device.activate()
        driver.call("cuMemcpyDtoHAsync", host.ctypes.data, self.ptr + lo, hi - lo, s.handle)
        s.synchronize()
        if self.is_c_contiguous:
            return host.view(self._dtype).reshape(self._shape)
        view = np.ndarray(self._shape, self._dtype, buffer=host, offset=-lo, strides=self._strides)
        return np.ascontiguousarray(view)

    def copy_to_host_async(self, out: np.ndarray, stream=None) -> np.ndarray:
        """Enqueue a copy into ``out`` (same shape and dtype, C-contiguous) on ``stream``; returns ``out``.

        ``out`` must stay alive and untouched until the stream is synchronised.
        The copy is truly asynchronous only when ``out`` is page-locked (pinned)
        memory; for ordinary numpy memory the driver finishes it before returning.
        """
        self._require_contiguous("copy_to_host_async")
        self._check_host(out, "out", writable=True)
        if self.size:
            s = self._resolve_stream(stream)
            self._device.activate()
            driver.call("cuMemcpyDtoHAsync", out.ctypes.data, self.ptr, self.nbytes, s.handle)
        return out

    def copy_from_host_async(self, src: np.ndarray, stream=None) -> "DeviceArray":
        """Enqueue a copy of ``src`` (same shape and dtype, C-contiguous) into this array on ``stream``.

        ``src`` must not change until the stream is synchronised (we keep a
        reference to it until the next host copy, so it is not freed early).
        For ordinary (pageable) numpy memory the driver stages the bytes before
        returning; only pinned memory makes the copy truly asynchronous.
        """
        self._require_contiguous("copy_from_host_async")
        self._check_host(src, "src", writable=False)
        if self.size:
            s = self._resolve_stream(stream)
            self._device.activate()
            driver.call("cuMemcpyHtoDAsync", self.ptr, src.ctypes.data, self.nbytes, s.handle)
            self._host_keepalive = src
        return self

    # -- device-side writes
    def fill(self, value, stream=None) -> "DeviceArray":
        """Set every element to ``value`` (asynchronous on ``stream``; default the array's stream).

        Uses ``cuMemsetD8/D16/D32`` when the element's bytes allow it, else one
        host buffer of the broadcast value copied over (then synchronous).
        """
        self._require_contiguous("fill")
        try:
            scalar = np.array(value, dtype=self._dtype)
        except OverflowError:
            raise ValueError(f"fill value {value!r} does not fit dtype {self._dtype}") from None
        except (TypeError, ValueError):
            raise TypeError(f"fill value {value!r} cannot be converted to dtype {self._dtype}") from None
        if scalar.ndim != 0:
            raise ValueError(f"fill value must be a scalar, got shape {scalar.shape}")
        if self.size == 0:
            return self
        ptr = self.ptr
        s = self._resolve_stream(stream)
        pattern = scalar.tobytes()
        self._device.activate()
        if len(set(pattern)) == 1:
            driver.call("cuMemsetD8Async", ptr, pattern[0], self.nbytes, s.handle)
        elif len(pattern) == 2 and ptr % 2 == 0:
            driver.call("cuMemsetD16Async", ptr, int.from_bytes(pattern, "little"), self.size, s.handle)
        elif len(pattern) == 4 and ptr % 4 == 0:
            driver.call("cuMemsetD32Async", ptr, int.from_bytes(pattern, "little"), self.size, s.handle)
        elif len(pattern) == 8 and pattern[:4] == pattern[4:] and ptr % 4 == 0:
            driver.call("cuMemsetD32Async", ptr, int.from_bytes(pattern[:4], "little"), 2 * self.size, s.handle)
        else:
            host = np.full(self._shape, scalar, dtype=self._dtype)
            driver.call("cuMemcpyHtoDAsync", ptr, host.ctypes.data, self.nbytes, s.handle)
            s.synchronize()  # the broadcast buffer is a temporary
        return self

    def copy(self, stream=None) -> "DeviceArray":
        """A new owning C-contiguous array with the same contents (device-to-device, asynchronous)."""
        self._require_contiguous("copy")
        s = self._resolve_stream(stream)
        out = DeviceArray(self._shape, self._hint or self._dtype, self._device, stream=self._stream)
        if self.size:
            self._device.activate()
            driver.call("cuMemcpyDtoDAsync", out.ptr, self.ptr, self.nbytes, s.handle)
        return out

    # -- views
    def view(self, dtype) -> "DeviceArray":
        """The same bytes as another dtype of the same item size (e.g. uint8 <-> float8_e4m3fn).

        ``view("float4_e2m1fn_x2")`` tags uint8-sized bytes as packed fp4 pairs.
        """
        dt, hint = normalize_dtype(dtype)
        if dt.itemsize != self.itemsize:
            raise ValueError(f"view needs a dtype of the same item size ({self.itemsize} bytes, {self._dtype}); "
                             f"{dt} has {dt.itemsize}")
        return self._derive(self.ptr, self._shape, dt, self._strides, hint)

    def reshape(self, *shape) -> "DeviceArray":
        """A view with a new shape (C-contiguous arrays only; one extent may be -1)."""
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        dims = list(shape) if not isinstance(shape, (int, np.integer)) else [shape]
        unknown = [i for i, n in enumerate(dims) if isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n == -1]
        if len(unknown) > 1:
            raise ValueError(f"reshape: only one extent may be -1, got {tuple(dims)}")
        if unknown:
            rest = 1
            for i, n in enumerate(dims):
                if i != unknown[0]:
                    rest *= operator.index(n)
            if rest == 0 or self.size % rest:
                raise ValueError(f"cannot reshape size {self.size} into {tuple(dims)}")
            dims[unknown[0]] = self.size // rest
        new_shape = normalize_shape(dims)
        n = 1
        for d in new_shape:
            n *= d
        if n != self.size:
            raise ValueError(f"cannot reshape size {self.size} (shape {self._shape}) into {new_shape}")
        self._require_contiguous("reshape")
        return self._derive(self.ptr, new_shape, self._dtype, c_contiguous_strides(new_shape, self.itemsize), self._hint)

    def transpose(self, *axes) -> "DeviceArray":
        """A strided view with the axes permuted (reversed when none are given), like numpy's."""
        if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
            axes = tuple(axes[0])
        if not axes:
            axes = tuple(reversed(range(self.ndim)))
        try:
            axes = tuple(operator.index(a) for a in axes)
        except TypeError:
            raise TypeError(f"transpose axes must be ints, got {axes!r}") from None
        axes = tuple(a + self.ndim if a < 0 else a for a in axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"transpose axes {axes} are not a permutation of range({self.ndim})")
        return self._derive(self.ptr, tuple(self._shape[a] for a in axes), self._dtype,
                            tuple(self._strides[a] for a in axes), self._hint)

    @property
    def T(self) -> "DeviceArray":
        return self.transpose()

    # -- interchange
    def __dlpack_device__(self) -> tuple[int, int]:
        return (kDLCUDA, int(self._device.ordinal))

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Export as a DLPack capsule (array API standard semantics).

        ``stream`` is the *consumer's* stream: None or 1 the legacy default
        stream, 2 the per-thread default stream, -1 no synchronisation, any
        other int a ``CUstream`` handle (0 is refused as ambiguous).  Unless it
        is -1 or the same stream as ours, an event recorded on our stream is
        made a dependency of the consumer's, so the consumer sees our pending
        work without blocking the host.  ``max_version >= (1, 0)`` gives a
        ``dltensor_versioned`` capsule, otherwise a legacy ``dltensor``.
        """
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"cannot export to device {tuple(dl_device)}: the array is on {self.__dlpack_device__()}")
        if stream is not None:
            if isinstance(stream, bool) or not isinstance(stream, int):
                raise TypeError(f"stream must be None or an int, got {type(stream).__name__}")
            if stream == 0:
                raise ValueError("stream=0 is ambiguous for CUDA in DLPack; pass 1 (legacy default) or 2 (per-thread)")
            if stream < -1:
                raise ValueError(f"stream must be -1, 1, 2 or a stream handle, got {stream}")
        versioned = max_version is not None and int(tuple(max_version)[0]) >= 1
        src, copied = self, False
        if copy:
            src, copied = self.copy(), True
        src._make_visible_to(1 if stream is None else stream)
        return export_capsule(src, versioned=versioned, readonly=self._readonly, copied=copied)

    def _our_stream_value(self) -> int:
        return 0 if self._stream is None else int(self._stream)

    def _make_visible_to(self, consumer: int) -> None:
        """Order the consumer's stream after the work enqueued on ours so far (device side)."""
        if consumer == -1:
            return
        ours = self._our_stream_value()
        if ours == consumer or (ours in (0, 1) and consumer in (0, 1)):
            return
        with Event(self._device, timing=False) as ev:
            ev.record(self.stream)
            Stream.from_handle(consumer, self._device).wait(ev)

    @property
    def __cuda_array_interface__(self) -> dict:
        """CUDA array interface v3; ``stream`` is our stream (1 for the legacy default stream)."""
        if self._dtype.kind == "V":
            raise AttributeError(f"dtype {self._dtype} has no CUDA-array-interface typestr; use DLPack")
        ours = self._our_stream_value()
        return {
            "shape": self._shape,
            "typestr": self._dtype.str,
            "data": (self.ptr if self.size else 0, self._readonly),
            "strides": None if self.is_c_contiguous else self._strides,
            "version": 3,
            "stream": 1 if ours in (0, 1) else ours,
        }


def normalize_strides(strides, ndim: int) -> tuple[int, ...]:
    try:
        items = tuple(strides)
    except TypeError:
        raise TypeError(f"strides must be a sequence of ints, got {type(strides).__name__}") from None
    if len(items) != ndim:
        raise ValueError(f"strides {items} must have one entry per dimension ({ndim})")
    for s in items:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"strides must contain ints (bytes), got {s!r}")
    return tuple(int(s) for s in items)


# ----------------------------------------------------------------------------- constructors

def empty(shape, dtype=np.float32, device=None, *, stream=None) -> DeviceArray:
    """An uninitialised C-contiguous array (``dtype`` may be ``"float4_e2m1fn_x2"`` for packed fp4 bytes)."""
    return DeviceArray(shape, dtype, device, stream=stream)


def zeros(shape, dtype=np.float32, device=None, *, stream=None) -> DeviceArray:
    """A zero-filled array (a ``cuMemsetD8Async`` on its stream)."""
    return full(shape, 0, dtype, device, stream=stream)


def full(shape, fill_value, dtype=None, device=None, *, stream=None) -> DeviceArray:
    """An array filled with ``fill_value`` (dtype: numpy's choice for the value when None)."""
    if dtype is None:
        dtype = np.asarray(fill_value).dtype
    return DeviceArray(shape, dtype, device, stream=stream).fill(fill_value)


def from_numpy(a, device=None, *, stream=None) -> DeviceArray:
    """A device copy of a host array.

    With ``stream=None`` the copy is complete when this returns; with a stream
    it is enqueued there (see :meth:`DeviceArray.copy_from_host_async`).
    """
    host = np.asarray(a)
    dt, _ = normalize_dtype(host.dtype)
    host = np.ascontiguousarray(host)
    out = DeviceArray(host.shape, dt, device, stream=stream)
    if host.nbytes:
        out.copy_from_host_async(host, stream=stream)
        if stream is None:
            out.stream.synchronize()
            out._host_keepalive = None
    return out


def _dlpack_stream_arg(s: Stream) -> int:
    value = int(s)
    return 1 if value == 0 else value  # DLPack spells the legacy default stream 1


def _call_dlpack(x, stream_arg):
    try:
        return x.__dlpack__(stream=stream_arg, max_version=(1, 0))
    except TypeError:
        return x.__dlpack__(stream=stream_arg)


def from_dlpack(x, device=None, *, stream=None) -> DeviceArray:
    """Import any DLPack producer.

    CUDA (and CUDA-managed) tensors are imported without a copy: the result
    borrows the memory and hands it back to the producer when it dies.  Our
    ``stream`` (default: the device's default stream) is passed to
    ``__dlpack__`` so the producer's pending work is ordered before ours.
    CPU and CUDA-pinned tensors are copied to ``device`` (synchronously).
    """
    dev_type = None
    if hasattr(x, "__dlpack_device__"):
        dev_type, dev_id = (int(v) for v in x.__dlpack_device__())
    if dev_type in (kDLCUDA, kDLCUDAManaged):
        dev = driver.Device(dev_id)  # not made this thread's current device
        if device is not None and resolve_device(device).ordinal != dev.ordinal:
            raise ValueError(f"the tensor is on CUDA device {dev.ordinal}, not on the requested device "
                             f"{resolve_device(device).ordinal}; cross-device import would need a copy")
        s = as_stream(stream, device=dev)
        cap = _call_dlpack(x, _dlpack_stream_arg(s))
    elif dev_type in (None, kDLCPU, kDLCUDAHost):
        cap = _call_dlpack(x, None)
    else:
        raise TypeError(f"cannot import a tensor on {DEVICE_TYPE_NAMES.get(dev_type, dev_type)} "
                        "(only CUDA, CUDA-managed, CUDA-pinned and CPU tensors)")
    return _from_import(consume_capsule(cap), device, stream)


def _from_import(imp, device, stream) -> DeviceArray:
    if imp.device_type in (kDLCPU, kDLCUDAHost):
        try:
            out = from_numpy(host_ndarray(imp), device)
        finally:
            imp.release()
        if imp.dtype_hint:
            out = out.view(imp.dtype_hint)
        if stream is not None:
            out.stream = stream
        return out
    if imp.device_type not in (kDLCUDA, kDLCUDAManaged):
        imp.release()
        raise TypeError(f"cannot import a DLPack tensor on {imp.device_name}")
    dev = driver.Device(imp.device_id)
    if device is not None and resolve_device(device).ordinal != dev.ordinal:
        imp.release()
        raise ValueError(f"the tensor is on CUDA device {dev.ordinal}, not on the requested device")
    return DeviceArray.borrow(imp.ptr, imp.shape, imp.dtype, device=dev, strides=imp.strides, owner=imp,
                              dtype_hint=imp.dtype_hint, readonly=imp.readonly, stream=stream)


def _from_cuda_array_interface(x, device, stream) -> DeviceArray:
    cai = x.__cuda_array_interface__
    if cai.get("mask") is not None:
        raise TypeError("masked CUDA-array-interface arrays are not supported")
    shape = normalize_shape(cai["shape"], "__cuda_array_interface__ shape")
    dt = np.dtype(cai["typestr"])
    if dt.kind == "V":
        raise TypeError(f"__cuda_array_interface__ typestr {cai['typestr']!r} does not name a numeric dtype")
    ptr, readonly = cai["data"]
    ptr = int(ptr)
    if ptr:
        ordinal = int(driver.call("cuPointerGetAttribute",
                                  driver.raw.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr))
        dev = driver.Device(ordinal)
    else:
        dev = resolve_device(device)
    if device is not None and resolve_device(device).ordinal != dev.ordinal:
        raise ValueError(f"the array is on CUDA device {dev.ordinal}, not on the requested device")
    producer = cai.get("stream")
    if producer is not None:
        if isinstance(producer, bool) or not isinstance(producer, int) or producer == 0:
            raise ValueError(f"__cuda_array_interface__ stream must be None or a non-zero int, got {producer!r}")
        ours = as_stream(stream, device=dev)
        legacy = (0, 1)
        if not (int(ours) == producer or (int(ours) in legacy and producer in legacy)):
            ours.wait(Stream.from_handle(producer, dev).record())
    return DeviceArray.borrow(ptr, shape, dt, device=dev, strides=cai.get("strides"), owner=x,
                              readonly=bool(readonly), stream=stream)


def asarray(x, device=None, *, stream=None) -> DeviceArray:
    """A DeviceArray for ``x``, without a copy whenever ``x`` is already on the GPU.

    * a DeviceArray: returned as is;
    * a DLPack producer (torch, cupy, jax, ...): CUDA tensors imported zero-copy,
      CPU ones copied (:func:`from_dlpack`);
    * a ``__cuda_array_interface__`` producer: imported zero-copy, its ``stream``
      made a dependency of ours;
    * numpy arrays, scalars and nested sequences: copied to ``device``.
    """
    if isinstance(x, DeviceArray):
        if device is not None and resolve_device(device).ordinal != x.device.ordinal:
            raise ValueError(f"x is on device {x.device.ordinal}, not on the requested device")
        return x
    if isinstance(x, np.ndarray):
        return from_numpy(x, device, stream=stream)
    if hasattr(x, "__dlpack__"):
        return from_dlpack(x, device, stream=stream)
    if hasattr(x, "__cuda_array_interface__"):
        return _from_cuda_array_interface(x, device, stream)
    host = np.asarray(x)
    if host.dtype == object:
        raise TypeError(f"cannot make a DeviceArray from {type(x).__name__}")
    return from_numpy(host, device, stream=stream)
