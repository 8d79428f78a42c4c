"""Batched NVFP4 GEMV: ``c[:, batch] = alpha * A[batch] @ b[batch]``.

Two entry points:

* :func:`gemv` on :class:`nvfp4rt.nvfp4.NVFP4Tensor` values (a: ``[l, m, k]`` or
  ``[m, k]`` logical, b: ``[l, k]`` or ``[k]``), returning fp16 ``[m, l]``.
* :func:`gemv_raw` on the competition's tensors (FACTS §2): ``a [m, k/2, l]``,
  ``b [128, k/2, l]`` (row 0 used), ``sfa [m, k/16, l]``, ``sfb [128, k/16, l]``,
  ``c [m, 1, l]`` written in place.  Any strides whose K axis is contiguous work.

Both validate every argument before anything is launched, then run a
:class:`GemvPlan`.  A plan fixes the problem size, the layouts and the kernel
variant and holds a prepared launch, so calling it again only re-points the
arguments: that is the path for callers who count microseconds.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import driver
from ..memory import copy_2d_async
from ..ptxsource import ptx_dir
from ..array import ArrayMeta, DeviceArray
from ._args import competition_operands

__all__ = ["gemv", "gemv_raw", "GemvPlan", "GemvLayout", "plan_gemv", "variant_for", "MAX_K"]

_THREADS = 256
_WARPS = _THREADS // 32
_STEP_VALUES = 1024  # values of one row a warp consumes per item (16 bytes per lane)
_SMEM_PER_STEP = 2048 + 256  # decoded b (fp16) + its block scales (f32)
_SMEM_OPTIN = 227 * 1024  # Hopper's opt-in shared memory per block (the plan checks the device's)
_MAX_ROWS_PER_CTA = 512  # rows of one CTA: their partial sums sit in shared memory
#: largest K the kernel holds B for in shared memory (227 KB opt-in on Hopper).
MAX_K = ((_SMEM_OPTIN - 256) // _SMEM_PER_STEP) * _STEP_VALUES

_KERNEL_FILE = "gemv_nvfp4.ptx"
_ENTRY = "nvfp4_gemv"


def variant_for(device) -> str:
    """The kernel variant for a device: ``"sm90"`` on Hopper, ``"sm80"`` (portable) elsewhere."""
    major, minor = device.compute_capability
    if major < 8:
        raise RuntimeError(f"nvfp4rt GEMV needs compute capability 8.0 or newer; {device.properties.name} is {major}.{minor}")
    return "sm90" if (major, minor) == (9, 0) else "sm80"


@lru_cache(maxsize=None)
def _kernel(ordinal: int, variant: str):
    from ..module import load

    dev = driver.Device(ordinal)
    target = dev.arch if variant == "sm90" else "sm_80"
    module = load(ptx_dir() / _KERNEL_FILE, device=dev, target=target)
    return module.kernel(_ENTRY)


@dataclass(frozen=True)
class GemvLayout:
    """Byte strides of the operands (c's in fp16 elements). K must be the contiguous axis."""

    a_row: int
    a_batch: int
    sfa_row: int
    sfa_batch: int
    b_batch: int
    sfb_batch: int
    c_row: int
    c_batch: int

    @classmethod
    def contiguous(cls, m: int, k: int, l: int, *, b_rows: int = 1) -> "GemvLayout":
        """Batch-contiguous a/sfa ``(l, m, k/2)``, b/sfb with ``b_rows`` rows per batch, c ``[m, l]``."""
        return cls(k // 2, m * k // 2, k // 16, m * k // 16, b_rows * k // 2, b_rows * k // 16, l, 1)


@dataclass(frozen=True)
class _Geometry:
    steps: int  # items per row, rounded up to warps_per_row * steps_per_warp
    rows_per_tile: int
    log2_warps_per_row: int
    steps_per_warp: int
    ctas_per_batch: int
    rows_per_cta: int
    grid: int
    shared_mem: int

    @property
    def warps_per_row(self) -> int:
        return 1 << self.log2_warps_per_row


def _shared_mem(steps: int, rows_per_cta: int, warps_per_row: int) -> int:
    return steps * _SMEM_PER_STEP + -(-rows_per_cta * warps_per_row * 4 // 16) * 16


def _geometry(m: int, k: int, l: int, ctas_per_sm: int, sm_count: int, smem_limit: int = _SMEM_OPTIN,
              splits: tuple = (1, 2, 4, 8)) -> _Geometry:
    """One wave of CTAs, each on ``rows_per_cta`` rows of one batch; K split over ``g`` warps.

    The grid is ``ctas_per_batch * l`` with ``ctas_per_batch`` about ``resident CTAs / l``, so every
    CTA is resident at once.  Inside a CTA, ``8 / g`` rows are walked at a time and each row's items
    are split over ``g`` warps; a warp's critical path is ``ceil(rows_per_cta / (8/g)) * ceil(steps / g)``
    items, and ``g`` (one of ``splits``) minimises it (on a tie the smaller ``g``).
    """
    real_steps = -(-k // _STEP_VALUES)
    slots = max(1, ctas_per_sm * sm_count)
    rows_target = -(-m // max(1, slots // l))
    best = None
    for warps_per_row in splits:
        rows_per_tile = _WARPS // warps_per_row
        steps_per_warp = -(-real_steps // warps_per_row)
        steps = steps_per_warp * warps_per_row
        room = (smem_limit - steps * _SMEM_PER_STEP) // (4 * warps_per_row)
        if room < rows_per_tile:
            continue  # B of this split does not fit in shared memory
        rows_per_cta = max(1, min(rows_target, _MAX_ROWS_PER_CTA, room))
        ctas_per_batch = -(-m // rows_per_cta)
        waves = -(-(ctas_per_batch * l) // slots)
        cost = waves * -(-rows_per_cta // rows_per_tile) * steps_per_warp
        if best is None or cost < best[0]:
            best = (cost, warps_per_row, rows_per_tile, steps_per_warp, steps, rows_per_cta, ctas_per_batch)
    if best is None:
        raise ValueError(f"k={k} does not fit this kernel's shared memory ({smem_limit} bytes)")
    _, warps_per_row, rows_per_tile, steps_per_warp, steps, rows_per_cta, ctas_per_batch = best
    return _Geometry(steps, rows_per_tile, warps_per_row.bit_length() - 1, steps_per_warp, ctas_per_batch,
                     rows_per_cta, ctas_per_batch * l, _shared_mem(steps, rows_per_cta, warps_per_row))


class GemvPlan:
    """A GEMV of fixed size, layout and device, ready to launch again and again.

    ``plan(a, b, sfa, sfb, c, stream=None)`` takes device arrays (anything with
    ``.ptr``); it checks only what can change between calls cheaply (the
    pointers' alignment) and re-points the prepared launch.

    ``kernel``: a loaded kernel with the ``nvfp4_gemv`` parameter list to launch
    instead of the built-in one, with the same arguments and geometry (the
    ``nvfp4rt lab`` uses this to run a user's kernel under the built-in ABI).
    """

    def __init__(self, m: int, k: int, l: int, layout: GemvLayout, *, alpha: float = 1.0,
                 device=None, variant: str | None = None, kernel=None):
        for name, v in (("m", m), ("k", k), ("l", l)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
                raise ValueError(f"{name} must be a positive int, got {v!r}")
        if k % 32:
            raise ValueError(f"GemvPlan needs k % 32 == 0 (got k={k}); gemv()/gemv_raw() pad other multiples of 16")
        if k > MAX_K:
            raise ValueError(f"k={k} is larger than this kernel supports (k <= {MAX_K}: B is held in shared memory)")
        self.m, self.k, self.l, self.layout, self.alpha = int(m), int(k), int(l), layout, float(alpha)
        self.device = device if device is not None else driver.device()
        self.variant = variant or variant_for(self.device)
        if self.variant not in ("sm90", "sm80"):
            raise ValueError(f"variant must be 'sm90' or 'sm80', got {self.variant!r}")
        if kernel is not None and kernel.device.ordinal != self.device.ordinal:
            raise ValueError(f"kernel is loaded on device {kernel.device.ordinal}, the plan runs on {self.device.ordinal}")
        self.kernel = kernel if kernel is not None else _kernel(self.device.ordinal, self.variant)
        props = self.device.properties
        smem_limit = min(props.max_shared_per_block_optin, _SMEM_OPTIN)
        occ = 4  # the kernel's .minnctapersm; the occupancy query below corrects it
        for _ in range(3):
            geom = _geometry(self.m, self.k, self.l, occ, props.sm_count, smem_limit)
            real = max(1, int(driver.call("cuOccupancyMaxActiveBlocksPerMultiprocessor", self.kernel.function,
                                          _THREADS, geom.shared_mem)))
            if real == occ:
                break
            occ = real
        self.geometry = geom
        for name in ("a_row", "a_batch", "b_batch"):
            if getattr(layout, name) % 16:
                raise ValueError(f"{name} stride must be a multiple of 16 bytes, got {getattr(layout, name)}")
        for name in ("sfa_row", "sfa_batch", "sfb_batch"):
            if getattr(layout, name) % 2:
                raise ValueError(f"{name} stride must be even, got {getattr(layout, name)}")
        self._launch = None
        self._last_ptrs: tuple = ()
        self._last_stream = None

    @property
    def bytes_moved(self) -> int:
        """NVFP4 bytes the GEMV must move: A, its scales, b, its scales and c."""
        m, k, l = self.m, self.k, self.l
        return l * (m * k // 2 + m * k // 16 + k // 2 + k // 16 + 2 * m)

    def _args(self, a, b, sfa, sfb, c):
        g, lay = self.geometry, self.layout
        return (a, sfa, b, sfb, c, lay.a_row, lay.a_batch, lay.sfa_row, lay.sfa_batch, lay.b_batch, lay.sfb_batch,
                lay.c_row, lay.c_batch, self.m, self.k, g.steps, g.rows_per_tile, g.log2_warps_per_row,
                g.steps_per_warp, g.ctas_per_batch, g.rows_per_cta, self.alpha)

    def __call__(self, a, b, sfa, sfb, c, stream=None):
        ptrs = (a.ptr, b.ptr, sfa.ptr, sfb.ptr, c.ptr)
        if ptrs != self._last_ptrs:
            for name, ptr, align in zip(("a", "b", "sfa", "sfb", "c"), ptrs, (16, 16, 2, 2, 2)):
                if ptr % align:
                    raise ValueError(f"{name} must be {align}-byte aligned (address 0x{ptr:x})")
        if self._launch is None:
            self._launch = self.kernel.prepare(*self._args(a, b, sfa, sfb, c), grid=self.geometry.grid,
                                               block=_THREADS, shared_mem=self.geometry.shared_mem, stream=stream)
        else:
            if ptrs != self._last_ptrs:  # re-pack only the pointers that moved
                for name, value, old, new in zip(("p_a", "p_b", "p_sfa", "p_sfb", "p_c"), (a, b, sfa, sfb, c),
                                                 self._last_ptrs, ptrs):
                    if old != new:
                        self._launch.set(name, value)
            if stream is not self._last_stream:
                self._launch.set_stream(stream)
        self._last_ptrs, self._last_stream = ptrs, stream
        self._launch.launch()
        return c


@lru_cache(maxsize=64)
def _cached_plan(m, k, l, layout, alpha, ordinal, variant):
    return GemvPlan(m, k, l, layout, alpha=alpha, device=driver.Device(ordinal), variant=variant)


def plan_gemv(m: int, k: int, l: int = 1, *, layout: GemvLayout | None = None, alpha: float = 1.0,
              device=None, variant: str | None = None) -> GemvPlan:
    """A (cached) plan for an ``m x k`` GEMV over ``l`` batches; default layout: batch-contiguous, c ``[m, l]``."""
    dev = device if device is not None else driver.device()
    layout = layout or GemvLayout.contiguous(m, k, l)
    return _cached_plan(int(m), int(k), int(l), layout, float(alpha), dev.ordinal, variant or variant_for(dev))


# ----------------------------------------------------------------------------- validation helpers

_DEVICE_ARRAY_ATTRS = ("ptr", "shape", "strides", "dtype", "device")


def _as_device(name: str, x, dev):
    if type(x) in _OUR_ARRAY_TYPES or all(hasattr(x, n) for n in _DEVICE_ARRAY_ATTRS) \
            and not isinstance(x, np.ndarray):
        if x.device.ordinal != dev.ordinal:
            raise ValueError(f"{name} is on device {x.device.ordinal}, but the operation runs on device {dev.ordinal}")
        return x  # a device array (ours or a strided view of one)
    from ..array import DeviceArray, asarray

    if isinstance(x, np.ndarray):
        raise TypeError(f"{name} is a numpy array; pass device data (nvfp4rt.asarray(x) copies it to the GPU)")
    try:
        arr = x if isinstance(x, DeviceArray) else asarray(x)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name}: expected a DeviceArray or a CUDA DLPack/CUDA-array-interface producer ({exc})") from None
    if arr.device.ordinal != dev.ordinal:
        raise ValueError(f"{name} is on device {arr.device.ordinal}, but the operation runs on device {dev.ordinal}")
    return arr


def _strides_bytes(arr):
    st = getattr(arr, "strides", None)
    if type(st) is tuple and all(type(v) is int for v in st):
        return st
    if st is None:
        itemsize = np.dtype(arr.dtype).itemsize
        st, acc = [], itemsize
        for d in reversed(arr.shape):
            st.append(acc)
            acc *= d
        st = tuple(reversed(st))
    return tuple(int(s) for s in st)


def gemv_raw(a, b, sfa, sfb, c, *, stream=None, alpha: float = 1.0):
    """The competition form: ``c[:, 0, :] = A @ b`` per batch, written in place into ``c [m, 1, l]`` (fp16).

    a ``[m, k/2, l]`` uint8 (packed e2m1) or torch ``float4_e2m1fn_x2``; b ``[n_b, k/2, l]`` (row 0 is
    used); sfa ``[m, k/16, l]`` and sfb ``[n_b, k/16, l]`` e4m3 (or uint8 bit patterns).
    k must be a multiple of 16 (multiples of 32 run without any copy).

    The checks depend only on the operands' shapes, byte strides, dtypes and devices, so their outcome is
    cached per combination: a loop over the same kind of operands pays them once.
    """
    dev = driver.device()
    arrays, meta = device_operands(_RAW_NAMES, (a, b, sfa, sfb, c), dev)
    m, k, l, layout = _check_raw(meta, dev.ordinal)
    if layout is None:
        return _gemv_padded(*arrays, m, k, l, dev, stream, alpha)
    plan = _cached_plan(m, k, l, layout, float(alpha), dev.ordinal, variant_for(dev))
    return plan(*arrays, stream=stream)


_RAW_NAMES = ("a", "b", "sfa", "sfb", "c")


def device_operands(names, arrays, dev) -> tuple[tuple, tuple]:
    """``(arrays, meta)`` of a raw call: the operands as device arrays (ours pass through; anything else is
    imported, with errors naming the argument) and one :class:`_Meta` per operand, the hashable key the
    raw forms cache their checks and plan choice on (shape, byte strides, dtype and device: nothing that
    changes between calls with the same kind of operands)."""
    if not all(type(x) in _OUR_ARRAY_TYPES for x in arrays):
        arrays = tuple(_as_device(n, x, dev) for n, x in zip(names, arrays))
    return arrays, tuple(x.meta if type(x) in _OUR_ARRAY_TYPES else _meta_of(x) for x in arrays)


def _meta_of(x) -> _Meta:
    """The :class:`_Meta` of a duck-typed device array (ours keep theirs: ``DeviceArray.meta``)."""
    return _Meta(tuple(x.shape), None if x.strides is None else tuple(x.strides), x.dtype, x.device.ordinal)


def check_devices(names, meta, ordinal: int) -> None:
    """ValueError naming the first operand whose :class:`_Meta` is on another device than ``ordinal``."""
    for name, x in zip(names, meta):
        if x.ordinal != ordinal:
            raise ValueError(f"{name} is on device {x.ordinal}, but the operation runs on device {ordinal}")


#: what the raw forms' checks look at (shape, byte strides, dtype, device), one per operand
_Meta = ArrayMeta


@lru_cache(maxsize=256)
def _check_raw(meta: tuple, ordinal: int):
    """``(m, k, l, GemvLayout)`` for valid operands (layout None: k % 32 == 16, the padded path), else a
    TypeError/ValueError naming the operand (exceptions are not cached: bad calls are re-checked)."""
    check_devices(_RAW_NAMES, meta, ordinal)
    a, b, sfa, sfb, c = meta
    competition_operands({"a": a, "b": b}, {"sfa": sfa, "sfb": sfb}, {"c": c})
    m, half_k, l = (int(v) for v in a.shape)
    k = 2 * half_k
    if k == 0 or k % 16:
        raise ValueError(f"a's K (2 * a.shape[1] = {k}) must be a positive multiple of 16")
    if tuple(b.shape[1:]) != (half_k, l) or b.shape[0] < 1:
        raise ValueError(f"b must have shape [n_b >= 1, {half_k}, {l}] to match a {tuple(a.shape)}, got {tuple(b.shape)}")
    if tuple(sfa.shape) != (m, k // 16, l):
        raise ValueError(f"sfa must have shape [{m}, {k // 16}, {l}], got {tuple(sfa.shape)}")
    if tuple(sfb.shape[1:]) != (k // 16, l) or sfb.shape[0] < 1:
        raise ValueError(f"sfb must have shape [n_b >= 1, {k // 16}, {l}], got {tuple(sfb.shape)}")
    if tuple(c.shape) != (m, 1, l):
        raise ValueError(f"c must have shape [{m}, 1, {l}], got {tuple(c.shape)}")
    sa, sb, ssa, ssb, sc = (_strides_bytes(x) for x in meta)
    for name, st in (("a", sa), ("b", sb), ("sfa", ssa), ("sfb", ssb)):
        if st[1] != 1:
            raise ValueError(f"{name} must be contiguous along K (stride of axis 1 == 1 byte), got strides {st}")
    if k % 32:
        return m, k, l, None
    return m, k, l, GemvLayout(sa[0], sa[2], ssa[0], ssa[2], sb[2], ssb[2], sc[0] // 2, sc[2] // 2)


def _gemv_padded(a, b, sfa, sfb, c, m, k, l, dev, stream, alpha):
    """k % 32 == 16: copy the operands into zero-padded buffers with k + 16 (slow but exact)."""
    from ..array import zeros

    kp = k + 16
    pa = zeros((l, m, kp // 2), np.uint8, device=dev)
    psfa = zeros((l, m, kp // 16), np.uint8, device=dev)
    pb = zeros((l, 1, kp // 2), np.uint8, device=dev)
    psfb = zeros((l, 1, kp // 16), np.uint8, device=dev)
    st = _stream_handle(stream, dev)
    for dst, src, width, rows in ((pa, a, k // 2, m), (psfa, sfa, k // 16, m), (pb, b, k // 2, 1), (psfb, sfb, k // 16, 1)):
        s = _strides_bytes(src)
        dpitch = dst.shape[2]
        for batch in range(l):
            copy_2d_async(dst.ptr + batch * rows * dpitch, dpitch, src.ptr + batch * s[2], s[0], width, rows, st)
    layout = GemvLayout(kp // 2, m * kp // 2, kp // 16, m * kp // 16, kp // 2, kp // 16,
                        _strides_bytes(c)[0] // 2, _strides_bytes(c)[2] // 2)
    plan = _cached_plan(m, kp, l, layout, float(alpha), dev.ordinal, variant_for(dev))
    plan(pa, pb, psfa, psfb, c, stream=stream)
    # keep the padded buffers alive until the kernel has read them
    driver.call("cuStreamSynchronize", st)
    for buf in (pa, psfa, pb, psfb):
        buf.close()
    return c


def _stream_handle(stream, dev):
    from ..stream import as_stream

    s = as_stream(stream, device=dev) if stream is not None else None
    return s.handle if s is not None else driver.raw.CUstream(0)


def gemv(a, b, out=None, *, stream=None):
    """NVFP4 GEMV on :class:`~nvfp4rt.nvfp4.NVFP4Tensor` values (device or host).

    a: logical ``[l, m, k]`` (or ``[m, k]``), b: ``[l, k]`` (or ``[k]``), both with linear scales.
    Returns fp16 ``[m, l]`` (``[m]`` when both inputs are unbatched); ``out`` may be given.
    Tensor scales multiply into the result.
    """
    from ..array import empty
    from ..nvfp4 import NVFP4Tensor

    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, NVFP4Tensor):
            raise TypeError(f"{name} must be an nvfp4rt NVFP4Tensor (see nvfp4rt.quantize); use gemv_raw for raw tensors")
        if t.scale_layout != "linear":
            raise ValueError(f"{name} has {t.scale_layout!r} scales; gemv needs the linear layout (nvfp4rt.scales.from_blocked)")
    unbatched = len(a.data.shape) == 2 and len(b.data.shape) == 1
    adata, asf = a.data, a.scales
    bdata, bsf = b.data, b.scales
    if len(adata.shape) == 2:
        adata, asf = _reshape(adata, (1,) + tuple(adata.shape)), _reshape(asf, (1,) + tuple(asf.shape))
    if len(bdata.shape) == 1:
        bdata, bsf = _reshape(bdata, (1,) + tuple(bdata.shape)), _reshape(bsf, (1,) + tuple(bsf.shape))
    if len(adata.shape) != 3 or len(bdata.shape) != 2:
        raise ValueError(f"a must be [l, m, k] or [m, k] and b [l, k] or [k]; got a.data {tuple(a.data.shape)}, b.data {tuple(b.data.shape)}")
    l, m, half_k = adata.shape
    if tuple(bdata.shape) != (l, half_k):
        raise ValueError(f"b must have {l} batch(es) of k={2 * half_k} to match a; got b of logical shape {b.shape}")
    if a.k != b.k:
        raise ValueError(f"a has k={a.k} but b has k={b.k}")
    dev = driver.device()
    if isinstance(adata, np.ndarray):
        a_dev, b_dev = a.to_device(dev), b.to_device(dev)
        return gemv(a_dev, b_dev, out=out, stream=stream)
    if out is None:
        out = empty((m, l), np.float16, device=dev)
    elif tuple(out.shape) not in ((m, l), (m,) if l == 1 else (m, l)):
        raise ValueError(f"out must have shape ({m}, {l}), got {tuple(out.shape)}")
    c3 = _CView(out, (m, 1, l), (2 * l, 2 * l, 2))
    a3 = _CView(adata, (m, half_k, l), (half_k, 1, m * half_k))
    sa3 = _CView(asf, (m, half_k // 8, l), (half_k // 8, 1, m * half_k // 8))
    b3 = _CView(bdata, (1, half_k, l), (half_k, 1, half_k))
    sb3 = _CView(bsf, (1, half_k // 8, l), (half_k // 8, 1, half_k // 8))
    gemv_raw(a3, b3, sa3, sb3, c3, stream=stream, alpha=float(a.tensor_scale) * float(b.tensor_scale))
    if unbatched:
        return _reshape(out, (m,))
    return out


def _reshape(x, shape):
    if isinstance(x, np.ndarray):
        return x.reshape(shape)
    return x.reshape(shape)


class _CView:
    """A strided view (shape, byte strides) of a device array, for the raw entry point."""

    def __init__(self, base, shape, strides):
        self.base, self.shape, self.strides = base, tuple(shape), tuple(strides)
        self.dtype = base.dtype
        self.ptr = base.ptr
        self.device = base.device
        self.meta = _meta_of(self)


#: the device-array types whose attributes need no duck-typing check (the hot path of the raw calls)
_OUR_ARRAY_TYPES = (DeviceArray, _CView)
