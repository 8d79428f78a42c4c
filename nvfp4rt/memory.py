"""Device memory: one ``cuMemAlloc`` per :class:`DeviceAllocation`, no caching.

Memory is returned with ``cuMemFree`` exactly once: by ``close()``, by the
context manager, or when the object is garbage collected (``weakref.finalize``
runs the free at most once, so a double free cannot happen).  ``cuMemFree``
waits for work still using the memory, so freeing right after an
asynchronous launch is safe.  At interpreter shutdown nothing is freed (the
driver reclaims the whole context when the process exits) and nothing raises.
"""
from __future__ import annotations

import sys
import weakref

from . import driver
from .stream import resolve_device

__all__ = ["DeviceAllocation", "copy_2d_async"]


def _free(ptr: int, device) -> None:
    if ptr == 0 or sys.is_finalizing():
        return
    device.activate()
    driver.call("cuMemFree", ptr)


class DeviceAllocation:
    """``nbytes`` of device memory on ``device`` (None: the current device).

    ``ptr`` is the address as an int (0 for a zero-byte allocation, which
    allocates nothing).  Using ``ptr`` after ``close()`` raises ValueError.
    """

    def __init__(self, nbytes: int, device=None):
        if not isinstance(nbytes, int) or isinstance(nbytes, bool):
            raise TypeError(f"nbytes must be an int, got {type(nbytes).__name__}")
        if nbytes < 0:
            raise ValueError(f"nbytes must be >= 0, got {nbytes}")
        dev = resolve_device(device)
        ptr = int(driver.call("cuMemAlloc", nbytes)) if nbytes else 0
        self.nbytes = nbytes
        self.device = dev
        self._ptr = ptr
        self._finalizer = weakref.finalize(self, _free, ptr, dev)
        self._finalizer.atexit = False

    @property
    def ptr(self) -> int:
        if not self._finalizer.alive:
            raise ValueError("this DeviceAllocation was freed (close() was called)")
        return self._ptr

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def close(self) -> None:
        """Free the memory now (idempotent)."""
        self._finalizer()

    def __enter__(self) -> "DeviceAllocation":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "freed" if self.closed else f"0x{self._ptr:x}"
        return f"<DeviceAllocation {self.nbytes} bytes at {state} on device {self.device.ordinal}>"


def copy_2d_async(dst: int, dst_pitch: int, src: int, src_pitch: int, width: int, height: int, stream) -> None:
    """Device-to-device copy of ``height`` rows of ``width`` bytes between pitched buffers, queued on
    ``stream`` (a ``CUstream``) with ``cuMemcpy2DAsync``."""
    d = driver.raw
    p = d.CUDA_MEMCPY2D()
    p.srcMemoryType = d.CUmemorytype.CU_MEMORYTYPE_DEVICE
    p.srcDevice = src
    p.srcPitch = src_pitch
    p.dstMemoryType = d.CUmemorytype.CU_MEMORYTYPE_DEVICE
    p.dstDevice = dst
    p.dstPitch = dst_pitch
    p.WidthInBytes = width
    p.Height = height
    driver.call("cuMemcpy2DAsync", p, stream)
