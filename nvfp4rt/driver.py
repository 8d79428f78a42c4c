"""The checked CUDA driver layer.

Every call into ``cuda.bindings.driver`` goes through :func:`call`, which turns a
non-success ``CUresult`` into a :class:`CudaError` naming the call, the result
and the driver's description.  Nothing above this module sees raw
``(CUresult, *outputs)`` tuples.

The driver is initialised lazily: importing nvfp4rt never touches the GPU, and on
a machine without a driver the first GPU use raises :class:`CudaUnavailableError`.
"""
from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

from cuda.bindings import driver as _drv

CUresult = _drv.CUresult

__all__ = [
    "CudaError",
    "CudaContextLostError",
    "CudaOutOfMemoryError",
    "CudaUnavailableError",
    "Device",
    "DeviceProperties",
    "call",
    "check",
    "device",
    "device_count",
    "driver_version",
    "is_available",
    "raw",
]

#: The raw cuda-python driver module, for the few modules that build driver structs.
raw = _drv

# Errors after which the context can no longer be used (CUDA calls them "sticky").
_STICKY = frozenset(
    getattr(CUresult, n)
    for n in (
        "CUDA_ERROR_ILLEGAL_ADDRESS",
        "CUDA_ERROR_ILLEGAL_INSTRUCTION",
        "CUDA_ERROR_MISALIGNED_ADDRESS",
        "CUDA_ERROR_INVALID_ADDRESS_SPACE",
        "CUDA_ERROR_INVALID_PC",
        "CUDA_ERROR_LAUNCH_FAILED",
        "CUDA_ERROR_HARDWARE_STACK_ERROR",
        "CUDA_ERROR_ASSERT",
        "CUDA_ERROR_LAUNCH_TIMEOUT",
        "CUDA_ERROR_ECC_UNCORRECTABLE",
        "CUDA_ERROR_CONTEXT_IS_DESTROYED",
        "CUDA_ERROR_TENSOR_MEMORY_LEAK",
    )
    if hasattr(CUresult, n)
)


class CudaError(RuntimeError):
    """A CUDA driver call failed.

    Attributes: ``call`` (the driver function), ``result`` (the ``CUresult``),
    ``name`` (e.g. ``CUDA_ERROR_INVALID_VALUE``) and ``description``.
    """

    def __init__(self, call: str, result, description: str | None = None, detail: str | None = None):
        self.call = call
        self.result = result
        self.name = getattr(result, "name", str(result))
        self.description = description if description is not None else _describe(result)
        self.detail = detail
        msg = f"{call} failed: {self.name} ({self.description})"
        if detail:
            msg += f"\n{detail}"
        super().__init__(msg)


class CudaContextLostError(CudaError):
    """A sticky error: the CUDA context is corrupted and every later call fails.

    The process must be restarted to use this GPU again (this is how CUDA works,
    not a choice of nvfp4rt).
    """

    def __init__(self, call: str, result, description: str | None = None, detail: str | None = None):
        super().__init__(call, result, description, detail)
        self.args = (self.args[0] + "\nThe CUDA context is lost (sticky error); restart the process to use the GPU again.",)


class CudaOutOfMemoryError(CudaError, MemoryError):
    """The device is out of memory."""


class CudaUnavailableError(CudaError):
    """No CUDA driver or no CUDA device on this machine."""

    def __init__(self, detail: str):
        RuntimeError.__init__(self, f"no CUDA driver/device found: {detail}")
        self.call = "cuInit"
        self.result = None
        self.name = "CUDA_ERROR_NO_DEVICE"
        self.description = detail
        self.detail = detail


def _describe(result) -> str:
    try:
        err, text = _drv.cuGetErrorString(result)
        if err == CUresult.CUDA_SUCCESS and text:
            return text.decode() if isinstance(text, bytes) else str(text)
    except Exception:  # the driver library itself may be missing
        pass
    return getattr(result, "name", str(result))


def check(call_name: str, ret):
    """Check the tuple a ``cuda.bindings.driver`` function returned.

    Returns ``None`` for calls without outputs, the single output, or a tuple.
    """
    if isinstance(ret, tuple):
        result, outputs = ret[0], ret[1:]
    else:
        result, outputs = ret, ()
    if result != CUresult.CUDA_SUCCESS:
        raise error_for(call_name, result)
    if not outputs:
        return None
    if len(outputs) == 1:
        return outputs[0]
    return outputs


def error_for(call_name: str, result, detail: str | None = None) -> CudaError:
    """The exception object for a failed call (not raised)."""
    if result in _STICKY:
        return CudaContextLostError(call_name, result, detail=detail)
    if result == CUresult.CUDA_ERROR_OUT_OF_MEMORY:
        return CudaOutOfMemoryError(call_name, result, detail=detail)
    if result in (CUresult.CUDA_ERROR_NO_DEVICE, CUresult.CUDA_ERROR_NOT_INITIALIZED) and call_name == "cuInit":
        return CudaUnavailableError(f"{call_name} returned {result.name}")
    return CudaError(call_name, result, detail=detail)


def call(name: str, *args):
    """Call the driver function ``name`` (after lazy init) and check its result."""
    _ensure_init()
    return check(name, getattr(_drv, name)(*args))


# --------------------------------------------------------------------------- init

_init_lock = threading.Lock()
_init_done = False
_init_error: CudaUnavailableError | None = None


def _ensure_init() -> None:
    global _init_done, _init_error
    if _init_done:
        return
    with _init_lock:
        if _init_done:
            return
        if _init_error is not None:
            raise _init_error
        try:
            ret = _drv.cuInit(0)
        except Exception as exc:  # libcuda.so not found, or unloadable
            _init_error = CudaUnavailableError(f"{type(exc).__name__}: {exc}")
            raise _init_error from None
        result = ret[0] if isinstance(ret, tuple) else ret
        if result != CUresult.CUDA_SUCCESS:
            _init_error = CudaUnavailableError(f"cuInit returned {getattr(result, 'name', result)}")
            raise _init_error
        _init_done = True


def is_available() -> bool:
    """True when a CUDA driver and at least one device are present."""
    try:
        return device_count() > 0
    except CudaError:
        return False


def unavailable_reason() -> str | None:
    """Why the GPU cannot be used here, or None if it can (used by test skips)."""
    try:
        if device_count() == 0:
            return "no CUDA driver/device found: the driver reports 0 devices"
    except CudaError as exc:
        return str(exc)
    return None


def device_count() -> int:
    return int(call("cuDeviceGetCount"))


@functools.cache
def driver_version() -> int:
    """The driver's CUDA version as an int, e.g. 13000 for 13.0."""
    return int(call("cuDriverGetVersion"))


# --------------------------------------------------------------------------- devices

@dataclass(frozen=True)
class DeviceProperties:
    """Properties read once per device."""

    ordinal: int
    name: str
    compute_capability: tuple[int, int]
    sm_count: int
    l2_bytes: int
    max_shared_per_block_optin: int
    max_shared_per_sm: int
    max_threads_per_block: int
    max_registers_per_block: int
    cluster_launch: bool
    total_memory: int
    clock_khz: int
    memory_clock_khz: int
    memory_bus_bits: int

    @property
    def arch(self) -> str:
        """The JIT/ptxas target name, e.g. ``sm_90a`` on Hopper (arch-specific features on)."""
        major, minor = self.compute_capability
        suffix = "a" if (major, minor) in ((9, 0), (10, 0), (10, 1), (10, 3), (12, 0), (12, 1)) else ""
        return f"sm_{major}{minor}{suffix}"


class Device:
    """A CUDA device with its primary context (retained on first use)."""

    _instances: dict[int, "Device"] = {}
    _lock = threading.Lock()

    def __new__(cls, ordinal: int = 0):
        if not isinstance(ordinal, int) or isinstance(ordinal, bool):
            raise TypeError(f"device ordinal must be an int, got {type(ordinal).__name__}")
        with cls._lock:
            dev = cls._instances.get(ordinal)
            if dev is None:
                n = device_count()
                if not 0 <= ordinal < n:
                    raise ValueError(f"device ordinal {ordinal} out of range: this machine has {n} CUDA device(s)")
                dev = super().__new__(cls)
                dev._init(ordinal)
                cls._instances[ordinal] = dev
            return dev

    def _init(self, ordinal: int) -> None:
        self.ordinal = ordinal
        self.handle = call("cuDeviceGet", ordinal)
        self.context = call("cuDevicePrimaryCtxRetain", self.handle)
        self._props: DeviceProperties | None = None
        self._default_stream = None

    def __repr__(self) -> str:
        return f"<Device {self.ordinal}: {self.properties.name} ({self.properties.arch})>"

    def activate(self) -> "Device":
        """Make this device's primary context current on the calling thread."""
        cur = check("cuCtxGetCurrent", _drv.cuCtxGetCurrent())
        if cur is None or int(cur) != int(self.context):
            call("cuCtxSetCurrent", self.context)
        return self

    def _attr(self, name: str) -> int:
        return int(call("cuDeviceGetAttribute", getattr(_drv.CUdevice_attribute, name), self.handle))

    @property
    def properties(self) -> DeviceProperties:
        if self._props is None:
            a = self._attr
            raw_name = call("cuDeviceGetName", 256, self.handle)
            name = raw_name.split(b"\0", 1)[0].decode() if isinstance(raw_name, bytes) else str(raw_name)
            self._props = DeviceProperties(
                ordinal=self.ordinal,
                name=name,
                compute_capability=(
                    a("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR"),
                    a("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR"),
                ),
                sm_count=a("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"),
                l2_bytes=a("CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE"),
                max_shared_per_block_optin=a("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
                max_shared_per_sm=a("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"),
                max_threads_per_block=a("CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK"),
                max_registers_per_block=a("CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK"),
                cluster_launch=bool(a("CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH")),
                total_memory=int(call("cuDeviceTotalMem", self.handle)),
                clock_khz=a("CU_DEVICE_ATTRIBUTE_CLOCK_RATE"),
                memory_clock_khz=a("CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE"),
                memory_bus_bits=a("CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH"),
            )
        return self._props

    @property
    def arch(self) -> str:
        return self.properties.arch

    @property
    def compute_capability(self) -> tuple[int, int]:
        return self.properties.compute_capability

    def synchronize(self) -> None:
        self.activate()
        call("cuCtxSynchronize")

    def mem_info(self) -> tuple[int, int]:
        """(free, total) device memory in bytes."""
        self.activate()
        free, total = call("cuMemGetInfo")
        return int(free), int(total)


_current = threading.local()


def device(ordinal: int | None = None) -> Device:
    """The device ``ordinal`` (default: this thread's current device, initially 0), made current."""
    if ordinal is None:
        ordinal = getattr(_current, "ordinal", 0)
    dev = Device(ordinal)
    dev.activate()
    _current.ordinal = ordinal
    return dev
