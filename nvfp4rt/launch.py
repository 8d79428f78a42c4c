"""Typed kernel launches through ``cuLaunchKernelEx``, and prepared launches.

Arguments are checked against the kernel's parsed ``.entry`` signature
(:class:`nvfp4rt.ptxsource.EntrySignature`) and packed into ONE contiguous
host buffer laid out by each parameter's size and alignment; a ``void*[]``
array points into it.  The driver copies the bytes at launch time, so the
buffer only has to live until ``cuLaunchKernelEx`` returns (we keep it for
the lifetime of the :class:`PackedArgs`).

How values map to parameters:

* ``.u64``/``.b64`` declared ``.ptr`` (``.param .u64 .ptr .global .align 16 a``)
  is a *pointer*: it takes a device array (anything with an int ``.ptr`` or a
  ``__cuda_array_interface__``), a :class:`Pointer` or a ``CUdeviceptr``.  A
  plain Python int is refused (TypeError): an int passed where an address is
  expected is almost always a bug (a size, an index), and the kernel would
  fault far away from the mistake.
* Every other integer parameter, ``.u64`` without ``.ptr`` included, is an
  integer: ints (or numpy integers) in the type's range; bools are refused.
  For convenience a 64-bit integer parameter also takes a device array or a
  :class:`Pointer` (its address): older kernels declare pointers as plain
  ``.u64``.
* ``.f16``/``.bf16``/``.f32``/``.f64`` take Python or numpy floats (and ints);
  a finite value that overflows the type raises ValueError.
* By-value arrays (``.param .align 64 .b8 tmap[128]``) take a
  :class:`nvfp4rt.tma.TensorMap` or bytes-like of exactly the declared size.

Nothing synchronises after a launch: errors of the launch call itself are
raised typed (:class:`nvfp4rt.driver.CudaError`); errors inside the kernel
surface at the next synchronising call.
"""
from __future__ import annotations

import ctypes
import math
import struct
from dataclasses import dataclass

import numpy as np

from . import driver
from .ptxsource import EntrySignature, Param

__all__ = ["Pointer", "PackedArgs", "LaunchGeometry", "PreparedLaunch", "launch", "launch_geometry", "pack_arguments"]

#: Without opting in, a block may use 48 KiB of shared memory (static + dynamic).
DEFAULT_SHARED_LIMIT = 48 * 1024
#: Clusters up to this many blocks are portable; larger ones need an opt-in.
PORTABLE_CLUSTER_SIZE = 8
_GRID_LIMITS = (2**31 - 1, 65535, 65535)
_BLOCK_LIMITS = (1024, 1024, 64)


@dataclass(frozen=True)
class Pointer:
    """An explicit device address for a pointer parameter (``Pointer(0)`` is NULL)."""

    address: int

    def __post_init__(self):
        a = self.address
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"Pointer address must be an int, got {type(a).__name__}")
        if not 0 <= int(a) < 2**64:
            raise ValueError(f"Pointer address {a} is outside [0, 2**64)")
        object.__setattr__(self, "address", int(a))

    @property
    def ptr(self) -> int:
        return self.address


# ----------------------------------------------------------------------------- value encoders

_INT_FORMATS = {1: "B", 2: "H", 4: "I", 8: "Q"}


def _device_address(value) -> int | None:
    """The device address of a pointer-like value, or None if it is not one."""
    if isinstance(value, Pointer):
        return value.address
    if isinstance(value, driver.raw.CUdeviceptr):
        return int(value)
    ptr = getattr(value, "ptr", None)
    if ptr is not None and not isinstance(ptr, bool) and isinstance(ptr, (int, np.integer)):
        return int(ptr)
    cai = getattr(value, "__cuda_array_interface__", None)
    if isinstance(cai, dict) and "data" in cai:
        return int(cai["data"][0])
    return None


def _what(value) -> str:
    return f"{type(value).__name__} {value!r}" if isinstance(value, (int, float, bool)) else type(value).__name__


def _encoder(kernel_name: str, p: Param):
    """A function value -> bytes for parameter ``p`` (raises naming the parameter)."""
    where = f"{kernel_name}: parameter {p.name!r} (.{p.ptx_type}{f'[{p.count}]' if p.is_array else ''})"

    if p.is_array:
        size = p.size

        def encode_bytes(value):
            raw_bytes = getattr(value, "tensor_map_bytes", None)
            if raw_bytes is None:
                if isinstance(value, (bytes, bytearray, memoryview)):
                    raw_bytes = bytes(value)
                elif isinstance(value, np.ndarray) and value.dtype == np.uint8 and value.ndim == 1:
                    raw_bytes = value.tobytes()
                else:
                    raise TypeError(f"{where} takes a TensorMap or {size} bytes, got {_what(value)}")
            if len(raw_bytes) != size:
                raise ValueError(f"{where} takes exactly {size} bytes, got {len(raw_bytes)}")
            return raw_bytes

        return encode_bytes

    kind = "float" if p.ptx_type == "bf16" else p.kind  # Param.kind reads .bf16 as bits
    if p.is_pointer_hint and p.size == 8:

        def encode_pointer(value):
            addr = _device_address(value)
            if addr is None:
                if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                    raise TypeError(f"{where} is a pointer: pass a device array or nvfp4rt.launch.Pointer(address), "
                                    f"not a plain int ({value!r})")
                raise TypeError(f"{where} is a pointer: expected a device array (.ptr or __cuda_array_interface__) "
                                f"or Pointer, got {_what(value)}")
            if not 0 <= addr < 2**64:
                raise ValueError(f"{where}: address {addr} is outside [0, 2**64)")
            return struct.pack("<Q", addr)

        return encode_pointer

    if kind == "float":
        fmt = {"f16": "<e", "f32": "<f", "f64": "<d"}.get(p.ptx_type)
        finfo_max = {"f16": 65504.0, "bf16": float(np.finfo(np.float32).max), "f32": float(np.finfo(np.float32).max)}.get(p.ptx_type)

        def encode_float(value):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (float, int, np.floating, np.integer)):
                raise TypeError(f"{where} takes a float, got {_what(value)}")
            v = float(value)
            if finfo_max is not None and math.isfinite(v) and abs(v) > finfo_max * (1 + 2**-11):
                raise ValueError(f"{where}: {v!r} overflows .{p.ptx_type}")
            if p.ptx_type == "bf16":
                import ml_dtypes

                return np.array(v, dtype=ml_dtypes.bfloat16).tobytes()
            try:
                return struct.pack(fmt, v)
            except OverflowError:
                raise ValueError(f"{where}: {v!r} overflows .{p.ptx_type}") from None

        return encode_float

    bits = 8 * p.size
    if kind == "signed":
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    elif kind == "unsigned":
        lo, hi = 0, 2**bits - 1
    else:  # .bNN: untyped bits, so either a signed or an unsigned value fits
        lo, hi = -(2 ** (bits - 1)), 2**bits - 1
    fmt = "<" + _INT_FORMATS[p.size]
    mask = 2**bits - 1
    takes_address = p.size == 8

    def encode_int(value):
        if isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{where} takes an int, got a bool ({value!r})")
        if not isinstance(value, (int, np.integer)):
            addr = _device_address(value) if takes_address else None
            if addr is None:
                raise TypeError(f"{where} takes an int, got {_what(value)}")
            value = addr
        v = int(value)
        if not lo <= v <= hi:
            raise ValueError(f"{where}: {v} is out of range [{lo}, {hi}]")
        return struct.pack(fmt, v & mask)

    return encode_int


# ----------------------------------------------------------------------------- packing

class PackedArgs:
    """Kernel arguments packed into one aligned host buffer plus a ``void*[]`` into it.

    ``address`` is the int address of the ``void*[]`` array, i.e. the
    ``kernelParams`` of ``cuLaunchKernelEx`` (0 for a kernel without
    parameters).  ``offsets[name]`` is each parameter's byte offset in
    ``buffer``.  :meth:`set` re-encodes one parameter in place, so the address
    never changes.
    """

    _BASE_ALIGN = 64  # the largest alignment a .param may ask for (a CUtensorMap)

    def __init__(self, signature: EntrySignature, args):
        if not isinstance(signature, EntrySignature):
            raise TypeError(f"signature must be an EntrySignature, got {type(signature).__name__}")
        self.signature = signature
        params = signature.params
        names = [p.name for p in params]
        if isinstance(args, dict):
            missing = [n for n in names if n not in args]
            extra = [k for k in args if k not in names]
            if missing or extra:
                raise TypeError(f"{signature.name} expects arguments {names}; missing {missing}, unexpected {extra}")
            args = [args[n] for n in names]
        elif not isinstance(args, (tuple, list)):
            raise TypeError(f"args must be a tuple/list (in .param order) or a dict by name, got {type(args).__name__}")
        if len(args) != len(params):
            raise TypeError(f"{signature.name} takes {len(params)} argument(s) ({', '.join(names) or 'none'}), "
                            f"got {len(args)}")
        self._encoders = {}
        self.offsets: dict[str, int] = {}
        self.sizes: dict[str, int] = {}
        offset = 0
        for p in params:
            offset = -(-offset // p.alignment) * p.alignment
            self.offsets[p.name] = offset
            self.sizes[p.name] = p.size
            self._encoders[p.name] = _encoder(signature.name, p)
            offset += p.size
        self.nbytes = offset
        self._storage = (ctypes.c_ubyte * (offset + self._BASE_ALIGN))()
        raw_addr = ctypes.addressof(self._storage)
        self._shift = (-raw_addr) % self._BASE_ALIGN
        self.base = raw_addr + self._shift
        self._view = memoryview(self._storage).cast("B")
        for p, value in zip(params, args):
            self.set(p.name, value)
        if params:
            self._pointers = (ctypes.c_void_p * len(params))(*(self.base + self.offsets[p.name] for p in params))
            self.address = ctypes.addressof(self._pointers)
        else:
            self._pointers = None
            self.address = 0

    def set(self, name: str, value) -> None:
        """Re-encode parameter ``name`` in place (other bytes are untouched)."""
        try:
            encode = self._encoders[name]
        except KeyError:
            raise KeyError(f"kernel {self.signature.name} has no parameter {name!r}; "
                           f"it has {list(self.offsets)}") from None
        data = encode(value)
        start = self._shift + self.offsets[name]
        self._view[start:start + len(data)] = data

    @property
    def buffer(self) -> bytes:
        """A copy of the packed parameter bytes (``nbytes`` long)."""
        return bytes(self._view[self._shift:self._shift + self.nbytes])

    def param_bytes(self, name: str) -> bytes:
        start = self._shift + self.offsets[name]
        return bytes(self._view[start:start + self.sizes[name]])


def pack_arguments(signature: EntrySignature, args) -> PackedArgs:
    """Check ``args`` against ``signature`` and pack them (see :class:`PackedArgs`)."""
    return PackedArgs(signature, args)


# ----------------------------------------------------------------------------- geometry

@dataclass(frozen=True)
class LaunchGeometry:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    cluster: tuple[int, int, int] | None

    @property
    def cluster_size(self) -> int:
        return math.prod(self.cluster) if self.cluster else 1


def _dims(name: str, value, limits) -> tuple[int, int, int]:
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        value = (value,)
    if not isinstance(value, (tuple, list)) or not 1 <= len(value) <= 3:
        raise TypeError(f"{name} must be an int or a tuple of 1 to 3 ints, got {value!r}")
    out = []
    for axis, v in zip("xyz", value):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name}.{axis} must be an int, got {_what(v)}")
        if v < 1:
            raise ValueError(f"{name}.{axis} must be positive, got {v}")
        out.append(int(v))
    out += [1] * (3 - len(out))
    for axis, v, lim in zip("xyz", out, limits):
        if v > lim:
            raise ValueError(f"{name}.{axis}={v} exceeds the limit {lim}")
    return tuple(out)


def launch_geometry(grid, block, cluster=None, *, non_portable_cluster: bool = False,
                    max_threads_per_block: int = 1024) -> LaunchGeometry:
    """Validate and normalise launch dimensions to 3-tuples (pure: no GPU needed).

    ``grid`` counts blocks (not clusters); each grid dimension must be a
    multiple of the cluster's.
    """
    g = _dims("grid", grid, _GRID_LIMITS)
    b = _dims("block", block, _BLOCK_LIMITS)
    threads = math.prod(b)
    if threads > max_threads_per_block:
        raise ValueError(f"block {b} has {threads} threads; the device allows at most {max_threads_per_block}")
    c = None
    if cluster is not None:
        c = _dims("cluster", cluster, _GRID_LIMITS)
        for axis, gv, cv in zip("xyz", g, c):
            if gv % cv:
                raise ValueError(f"grid.{axis}={gv} is not a multiple of cluster.{axis}={cv} "
                                 "(the grid counts blocks, and clusters must tile it)")
        size = math.prod(c)
        if size > PORTABLE_CLUSTER_SIZE and not non_portable_cluster:
            raise ValueError(f"cluster {c} has {size} blocks; more than {PORTABLE_CLUSTER_SIZE} is a non-portable "
                             "cluster size: pass non_portable_cluster=True (Hopper allows up to 16)")
    return LaunchGeometry(g, b, c)


# ----------------------------------------------------------------------------- streams and kernels

def _stream_handle(stream, device):
    if stream is None:
        try:
            from .stream import default_stream
        except ImportError:
            return driver.raw.CUstream(0)
        return _stream_handle(default_stream(device), device)
    if isinstance(stream, driver.raw.CUstream):
        return stream
    handle = getattr(stream, "handle", None)
    if isinstance(handle, driver.raw.CUstream):
        return handle
    try:
        from .stream import as_stream
    except ImportError:
        as_stream = None
    if as_stream is not None:
        return as_stream(stream).handle
    raise TypeError(f"stream must be None, a Stream or a CUstream, got {type(stream).__name__}")


def _function_attr(kernel, name: str) -> int:
    return int(driver.call("cuFuncGetAttribute", getattr(driver.raw.CUfunction_attribute, name), kernel.function))


def _kernel_state(kernel) -> dict:
    """Per-kernel launch bookkeeping (static shared size, opt-ins already made)."""
    state = getattr(kernel, "_launch_state", None)
    if state is None:
        state = {"static_shared": None, "max_dynamic_set": None, "non_portable": False}
        kernel._launch_state = state
    return state


def _prepare_shared(kernel, shared_mem) -> int:
    if isinstance(shared_mem, (bool, np.bool_)) or not isinstance(shared_mem, (int, np.integer)):
        raise TypeError(f"shared_mem must be an int (bytes of dynamic shared memory), got {_what(shared_mem)}")
    shared_mem = int(shared_mem)
    if shared_mem < 0:
        raise ValueError(f"shared_mem must be >= 0, got {shared_mem}")
    if shared_mem == 0:
        return 0
    state = _kernel_state(kernel)
    if state["static_shared"] is None:
        state["static_shared"] = _function_attr(kernel, "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES")
    static = state["static_shared"]
    limit = kernel.device.properties.max_shared_per_block_optin
    if shared_mem + static > limit:
        raise ValueError(f"{kernel.name}: shared_mem={shared_mem} bytes of dynamic shared memory plus {static} static "
                         f"exceed the device's {limit} bytes per block (at most {limit - static} dynamic)")
    if shared_mem + static > DEFAULT_SHARED_LIMIT:
        done = state["max_dynamic_set"]
        if done is None or done < shared_mem:
            driver.call("cuFuncSetAttribute", kernel.function,
                        driver.raw.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared_mem)
            state["max_dynamic_set"] = shared_mem
    return shared_mem


def _allow_non_portable(kernel) -> None:
    state = _kernel_state(kernel)
    if not state["non_portable"]:
        driver.call("cuFuncSetAttribute", kernel.function,
                    driver.raw.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
        state["non_portable"] = True


def _build_config(kernel, geometry: LaunchGeometry, shared_mem: int, stream_handle, programmatic: bool = False):
    cfg = driver.raw.CUlaunchConfig()
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = geometry.grid
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = geometry.block
    cfg.sharedMemBytes = shared_mem
    cfg.hStream = stream_handle
    attrs = []
    if geometry.cluster is not None:
        attr = driver.raw.CUlaunchAttribute()
        attr.id = driver.raw.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = geometry.cluster
        attrs.append(attr)
    if programmatic:
        # programmatic dependent launch: this grid may start before the previous kernel on the stream
        # has finished (once all of that kernel's CTAs ran griddepcontrol.launch_dependents or exited);
        # it must griddepcontrol.wait before reading what that kernel writes
        attr = driver.raw.CUlaunchAttribute()
        attr.id = driver.raw.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
        attr.value.programmaticStreamSerializationAllowed = 1
        attrs.append(attr)
    cfg.attrs = attrs  # assign the whole list: appending to cfg.attrs changes a copy
    cfg.numAttrs = len(attrs)
    return cfg


def _check_programmatic(programmatic) -> bool:
    if not isinstance(programmatic, (bool, np.bool_)):
        raise TypeError(f"programmatic must be a bool, got {_what(programmatic)}")
    return bool(programmatic)


_SUCCESS = driver.CUresult.CUDA_SUCCESS
_INVALID_CONTEXT = driver.CUresult.CUDA_ERROR_INVALID_CONTEXT


class PreparedLaunch:
    """A launch with its arguments packed and its ``CUlaunchConfig`` built once.

    ``launch()`` only calls ``cuLaunchKernelEx`` with objects made beforehand;
    ``set(name, value)`` / ``update(**values)`` re-encode just those
    parameters' bytes in place; ``set_stream(s)`` swaps the stream.  A
    :class:`nvfp4rt.tma.TensorMap` is copied by value when set: after
    ``tmap.repoint(...)`` call ``set(name, tmap)`` again.  ``programmatic``:
    see :func:`launch`.
    """

    def __init__(self, kernel, args, *, grid, block, cluster=None, shared_mem=0, stream=None,
                 non_portable_cluster: bool = False, programmatic: bool = False):
        self.programmatic = _check_programmatic(programmatic)
        device = kernel.device
        self.kernel = kernel
        self.device = device
        max_threads = device.properties.max_threads_per_block
        self.geometry = launch_geometry(grid, block, cluster, non_portable_cluster=non_portable_cluster,
                                        max_threads_per_block=max_threads)
        self.args = PackedArgs(kernel.signature, args)
        device.activate()
        self.shared_mem = _prepare_shared(kernel, shared_mem)
        if self.geometry.cluster_size > PORTABLE_CLUSTER_SIZE:
            _allow_non_portable(kernel)
        self._stream_handle = _stream_handle(stream, device)
        self._config = _build_config(kernel, self.geometry, self.shared_mem, self._stream_handle, self.programmatic)
        self._function = kernel.function
        self._params_address = self.args.address
        self._raw_launch = driver.raw.cuLaunchKernelEx

    def __repr__(self) -> str:
        g = self.geometry
        pdl = " programmatic" if self.programmatic else ""
        return (f"<PreparedLaunch {self.kernel.name} grid={g.grid} block={g.block} cluster={g.cluster} "
                f"smem={self.shared_mem}{pdl}>")

    def launch(self) -> None:
        """Launch again (asynchronous); raises a typed CudaError if the launch call fails."""
        result = self._raw_launch(self._config, self._function, self._params_address, 0)[0]
        if result != _SUCCESS:
            self._failed(result)

    __call__ = launch

    def _failed(self, result) -> None:
        if result == _INVALID_CONTEXT:  # called from a thread where our context is not current
            self.device.activate()
            result = self._raw_launch(self._config, self._function, self._params_address, 0)[0]
            if result == _SUCCESS:
                return
        raise driver.error_for("cuLaunchKernelEx", result)

    def set(self, name: str, value) -> "PreparedLaunch":
        self.args.set(name, value)
        return self

    def update(self, **values) -> "PreparedLaunch":
        for name, value in values.items():
            self.args.set(name, value)
        return self

    def set_stream(self, stream) -> "PreparedLaunch":
        handle = _stream_handle(stream, self.device)
        self._stream_handle = handle
        self._config.hStream = handle
        return self


def launch(kernel, args, *, grid, block, cluster=None, shared_mem=0, stream=None,
           non_portable_cluster: bool = False, programmatic: bool = False) -> None:
    """Launch ``kernel`` with ``args`` (in ``.param`` order, or a dict by name).

    ``grid``/``block``/``cluster`` are ints or 1-3 tuples; ``grid`` counts
    blocks and must be a multiple of ``cluster`` per dimension.  Dynamic
    ``shared_mem`` above 48 KiB is opted into automatically (checked against
    the device limit minus the kernel's static shared memory first).
    ``stream=None`` means the device's default stream.  Asynchronous.

    ``programmatic=True`` is programmatic dependent launch (sm_90+): the launch
    carries ``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION``, so this
    grid may begin while the previous kernel on the stream is still running,
    as soon as every CTA of that kernel has executed
    ``griddepcontrol.launch_dependents`` (or exited).  This kernel must execute
    ``griddepcontrol.wait`` before it reads anything the previous kernel
    writes (the wait returns when that grid has completed and its memory is
    visible); a kernel without the wait races.  Without the previous kernel's
    trigger the launch just behaves as an ordinary stream-ordered one.
    """
    PreparedLaunch(kernel, args, grid=grid, block=block, cluster=cluster, shared_mem=shared_mem, stream=stream,
                   non_portable_cluster=non_portable_cluster, programmatic=programmatic).launch()
