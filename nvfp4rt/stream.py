"""CUDA streams and events.

A :class:`Stream` either owns a stream it created (destroyed by ``close()``,
the context manager or garbage collection) or wraps a handle made elsewhere
(torch, cupy, the legacy default stream) without owning it.

The default stream of a device (:func:`default_stream`) is the *legacy*
default stream, handle 0.  We chose it over a created per-device stream
because it is what torch's and cupy's default streams are too: work that
nvfp4rt enqueues by default is ordered with the default-stream work of those
libraries and with every blocking stream, without events.  The cost is that
it also serialises with those streams; create a ``Stream(non_blocking=True)``
where overlap matters.

Every driver call goes through :func:`nvfp4rt.driver.call`.
"""
from __future__ import annotations

import sys
import threading
import weakref

from . import driver

__all__ = ["Event", "Stream", "as_stream", "default_stream", "elapsed_ms", "resolve_device"]

#: Raw handle values with a meaning of their own (driver API and DLPack agree).
LEGACY_HANDLE = 0
LEGACY_ALIAS = 1          # CU_STREAM_LEGACY
PER_THREAD_HANDLE = 2     # CU_STREAM_PER_THREAD


def resolve_device(device=None) -> driver.Device:
    """``None`` (this thread's current device), an ordinal or a Device -> that Device, made current."""
    if device is None:
        return driver.device()
    if isinstance(device, driver.Device):
        return device.activate()
    if isinstance(device, int) and not isinstance(device, bool):
        return driver.device(device)
    raise TypeError(f"device must be None, an int ordinal or an nvfp4rt Device, got {type(device).__name__}")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _destroy_stream(handle, device) -> None:
    if sys.is_finalizing():  # the driver frees everything at exit; never raise there
        return
    device.activate()
    driver.call("cuStreamDestroy", handle)


class Stream:
    """A CUDA stream on one device.

    ``Stream(device=None, *, non_blocking=False, priority=0)`` creates a stream
    (lower priority numbers run first; see ``cuCtxGetStreamPriorityRange``).
    ``Stream.from_handle(h, device=None)`` wraps an existing handle without owning it.
    ``int(stream)`` is the raw handle value; ``stream.handle`` the ``CUstream``.
    """

    def __init__(self, device=None, *, non_blocking: bool = False, priority: int = 0):
        if not isinstance(non_blocking, bool):
            raise TypeError(f"non_blocking must be a bool, got {type(non_blocking).__name__}")
        if not _is_int(priority):
            raise TypeError(f"priority must be an int, got {type(priority).__name__}")
        dev = resolve_device(device)
        flags = driver.raw.CUstream_flags.CU_STREAM_NON_BLOCKING if non_blocking else driver.raw.CUstream_flags.CU_STREAM_DEFAULT
        handle = driver.call("cuStreamCreateWithPriority", int(flags), priority)
        self._init(handle, dev, owning=True)
        self.non_blocking = non_blocking
        self.priority = priority

    @classmethod
    def from_handle(cls, handle, device=None) -> "Stream":
        """Wrap ``handle`` (a ``CUstream`` or an int) without owning it: close() never destroys it."""
        if isinstance(handle, driver.raw.CUstream):
            value = int(handle)
        elif _is_int(handle):
            value = handle
        else:
            raise TypeError(f"handle must be a CUstream or an int, got {type(handle).__name__}")
        if value < 0:
            raise ValueError(f"a stream handle must be >= 0, got {value}")
        self = cls.__new__(cls)
        self._init(driver.raw.CUstream(value), resolve_device(device), owning=False)
        self.non_blocking = None  # unknown for a borrowed handle
        self.priority = None
        return self

    def _init(self, handle, dev, *, owning: bool) -> None:
        self.handle = handle
        self.device = dev
        self.owning = owning
        self._finalizer = weakref.finalize(self, _destroy_stream, handle, dev) if owning else None
        if self._finalizer is not None:
            self._finalizer.atexit = False

    # -- identity
    def __int__(self) -> int:
        return int(self.handle)

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and int(self) == int(other) and self.device is other.device

    def __hash__(self) -> int:
        return hash((int(self), self.device.ordinal))

    def __repr__(self) -> str:
        kind = "owned" if self.owning else "borrowed"
        return f"<Stream 0x{int(self):x} on device {self.device.ordinal} ({kind})>"

    @property
    def is_legacy_default(self) -> bool:
        return int(self) in (LEGACY_HANDLE, LEGACY_ALIAS)

    def __cuda_stream__(self):
        """The CUDA stream protocol: ``(version, handle)``."""
        return (0, int(self))

    # -- work
    def synchronize(self) -> None:
        """Block the host until all work enqueued on this stream has finished."""
        self.device.activate()
        driver.call("cuStreamSynchronize", self.handle)

    def query(self) -> bool:
        """True when all work on the stream has finished (never blocks)."""
        self.device.activate()
        try:
            driver.call("cuStreamQuery", self.handle)
        except driver.CudaError as exc:
            if exc.name == "CUDA_ERROR_NOT_READY":
                return False
            raise
        return True

    def wait(self, event: "Event") -> None:
        """Make later work on this stream wait until ``event`` has completed (device side)."""
        if not isinstance(event, Event):
            raise TypeError(f"event must be an nvfp4rt Event, got {type(event).__name__}")
        self.device.activate()
        driver.call("cuStreamWaitEvent", self.handle, event.handle, 0)

    def record(self, event: "Event | None" = None) -> "Event":
        """Record ``event`` (a new timing-disabled one if None) at this point of the stream."""
        if event is None:
            event = Event(self.device, timing=False)
        event.record(self)
        return event

    def wait_stream(self, other: "Stream") -> None:
        """Make this stream wait for the work enqueued on ``other`` so far."""
        self.wait(as_stream(other, device=self.device).record())

    # -- lifetime
    @property
    def closed(self) -> bool:
        return self._finalizer is not None and not self._finalizer.alive

    def close(self) -> None:
        """Destroy an owned stream (pending work still completes); a no-op for borrowed ones."""
        if self._finalizer is not None:
            self._finalizer()

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _destroy_event(handle, device) -> None:
    if sys.is_finalizing():
        return
    device.activate()
    driver.call("cuEventDestroy", handle)


class Event:
    """A CUDA event: ``Event(device=None, *, timing=True)``.

    ``end - start`` (both recorded and complete) is the elapsed time in ms.
    """

    def __init__(self, device=None, *, timing: bool = True):
        if not isinstance(timing, bool):
            raise TypeError(f"timing must be a bool, got {type(timing).__name__}")
        dev = resolve_device(device)
        flags = driver.raw.CUevent_flags.CU_EVENT_DEFAULT if timing else driver.raw.CUevent_flags.CU_EVENT_DISABLE_TIMING
        self.handle = driver.call("cuEventCreate", int(flags))
        self.device = dev
        self.timing = timing
        self._finalizer = weakref.finalize(self, _destroy_event, self.handle, dev)
        self._finalizer.atexit = False

    def __repr__(self) -> str:
        return f"<Event 0x{int(self.handle):x} on device {self.device.ordinal}{'' if self.timing else ' (no timing)'}>"

    def record(self, stream=None) -> "Event":
        """Record the event on ``stream`` (anything :func:`as_stream` takes; None = default stream)."""
        s = as_stream(stream, device=self.device)
        self.device.activate()
        driver.call("cuEventRecord", self.handle, s.handle)
        return self

    def synchronize(self) -> None:
        """Block the host until the work before the event's record point has finished."""
        driver.call("cuEventSynchronize", self.handle)

    def query(self) -> bool:
        """True when the event has completed (or was never recorded)."""
        try:
            driver.call("cuEventQuery", self.handle)
        except driver.CudaError as exc:
            if exc.name == "CUDA_ERROR_NOT_READY":
                return False
            raise
        return True

    def __sub__(self, start: "Event") -> float:
        return elapsed_ms(start, self)

    def close(self) -> None:
        self._finalizer()

    def __enter__(self) -> "Event":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def elapsed_ms(start: Event, end: Event) -> float:
    """Milliseconds between two recorded, completed timing events (``end - start``)."""
    for name, ev in (("start", start), ("end", end)):
        if not isinstance(ev, Event):
            raise TypeError(f"{name} must be an nvfp4rt Event, got {type(ev).__name__}")
        if not ev.timing:
            raise ValueError(f"{name} was created with timing=False; elapsed time needs timing events")
    return float(driver.call("cuEventElapsedTime", start.handle, end.handle))


_defaults: dict[int, Stream] = {}
_defaults_lock = threading.Lock()


def default_stream(device=None) -> Stream:
    """The device's default stream: the legacy default stream (handle 0), wrapped once per device."""
    dev = resolve_device(device)
    s = _defaults.get(dev.ordinal)
    if s is None:
        with _defaults_lock:
            s = _defaults.get(dev.ordinal)
            if s is None:
                s = Stream.from_handle(LEGACY_HANDLE, dev)
                _defaults[dev.ordinal] = s
    return s


def as_stream(x=None, device=None) -> Stream:
    """Normalise a stream-like value to a :class:`Stream`.

    Takes ``None`` (the device's default stream), a Stream, a ``CUstream``, an
    int handle (0 legacy default, 1 ``CU_STREAM_LEGACY``, 2 per-thread default,
    anything else a real handle), an object with ``__cuda_stream__`` (a
    method or attribute giving ``(version, handle)``) or a torch-like
    ``.cuda_stream`` int attribute.  Foreign handles are wrapped, not owned.
    """
    if x is None:
        return default_stream(device)
    if isinstance(x, Stream):
        return x
    if isinstance(x, driver.raw.CUstream) or _is_int(x):
        return Stream.from_handle(x, device)
    proto = getattr(x, "__cuda_stream__", None)
    if proto is not None:
        value = proto() if callable(proto) else proto
        if not (isinstance(value, tuple) and len(value) == 2 and _is_int(value[1])):
            raise TypeError(f"{type(x).__name__}.__cuda_stream__ must give (version, handle), got {value!r}")
        return Stream.from_handle(value[1], device)
    handle = getattr(x, "cuda_stream", None)
    if _is_int(handle):
        return Stream.from_handle(handle, device)
    raise TypeError("stream must be None, an nvfp4rt Stream, a CUstream, an int handle, an object with "
                    f"__cuda_stream__ or a .cuda_stream attribute; got {type(x).__name__}")
