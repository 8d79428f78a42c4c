"""NVFP4 GEMM: ``C[:, :, batch] = alpha * A[batch] @ B[batch]^T`` in fp16.

Entry points
------------
* :func:`gemm` on :class:`nvfp4rt.nvfp4.NVFP4Tensor` values: a ``[l, m, k]`` (or ``[m, k]``), b
  ``[l, n, k]`` (or ``[n, k]``), linear scales.  Returns fp16 ``[m, n, l]`` (a view of a
  batch-major ``(l, m, n)`` allocation), or ``[m, n]`` when both inputs are unbatched.
  Tensor scales multiply into the result.
* :func:`gemm_raw` on the competition's tensors (FACTS §2): ``a [m, k/2, l]``, ``b [n, k/2, l]``,
  ``sfa [m, k/16, l]``, ``sfb [n, k/16, l]``, ``c [m, n, l]`` fp16 written in place.  Any strides
  work whose K axis (and c's n axis) is contiguous; inputs may be nvfp4rt device arrays or any
  DLPack / CUDA-array-interface producer (torch, cupy, jax).
* :func:`plan_gemm` returns a cached plan: fixed size, layout, device and kernel variant, with a
  prepared launch that re-packs only the pointers that moved.

Sizes: any ``m, n >= 1`` and ``l >= 1``; ``k`` a positive multiple of 64 (other k raise
ValueError: the kernels consume 64-k chunks and the competition's k are multiples of 256).

Kernel variants and the plan contract
-------------------------------------
``variant="mma"`` is :class:`GemmMmaPlan` (``ptx/gemm_nvfp4_mma.ptx``, mma.sync, any sm_80+ GPU).
``variant="wgmma"`` is ``nvfp4rt.ops.gemm_wgmma.GemmWgmmaPlan`` (sm_90a, A decoded in every CTA) and
``variant="wgmma_cluster"`` is ``nvfp4rt.ops.gemm_wgmma_cluster.GemmClusterPlan`` (sm_90a: A decoded
once per call by a prepass, shared across clusters of CTAs by TMA multicast).  ``variant=None`` picks
wgmma_cluster on compute capability 9.0 when it supports the problem, else wgmma, else mma (see
:func:`variant_for`).

Every variant's plan class follows one contract (docs/gemm.md repeats it)::

    plan = PlanClass(m, n, k, l, layout, *, alpha=1.0, device=None)
    plan(a, b, sfa, sfb, c, stream=None) -> c

* ``layout`` is a :class:`GemmLayout`: byte strides of a, sfa, b, sfb (row and batch) and c's
  row and batch strides in fp16 elements; K (and c's n) are the contiguous axes.
* ``a, b, sfa, sfb, c`` are objects with an int ``.ptr`` (device arrays, strided views,
  :class:`nvfp4rt.launch.Pointer`); the plan checks pointer alignment when a pointer changes
  and raises ValueError naming the argument; it validates sizes and strides in its constructor.
* ``stream``: None (the legacy default stream), an nvfp4rt Stream or a ``CUstream``.
* the constructor raises ValueError for a size or layout it cannot run.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import driver
from ..ptxsource import ptx_dir
from ._args import competition_operands
from .gemv import _CView, _strides_bytes, check_devices, device_operands

__all__ = ["gemm", "gemm_raw", "plan_gemm", "raw_problem", "GemmLayout", "GemmMmaPlan", "variant_for", "mma_geometry",
           "K_MULTIPLE", "VARIANTS"]

#: k must be a positive multiple of this (one pipeline chunk of both kernels).
K_MULTIPLE = 64
VARIANTS = ("mma", "wgmma", "wgmma_cluster")

# ptx/gemm_nvfp4_mma.ptx's geometry (tools/gen_gemm_mma_ptx.py; tests/test_gemm.py compares them)
_MMA_FILE = "gemm_nvfp4_mma.ptx"
_MMA_ENTRY = "nvfp4_gemm_mma"
_MMA_THREADS = 128
_MMA_TILE_M = 128
_MMA_TILE_N = 128
_MMA_STAGES = 3
_MMA_STAGE_BYTES = 9216
_MMA_SHARED = _MMA_STAGES * _MMA_STAGE_BYTES
_MMA_PARTIAL_BYTES = _MMA_TILE_M * _MMA_TILE_N * 4
#: split-K never goes beyond this many CTAs per output tile.
MAX_SPLITS = 16
#: Longest run of K one fp32 tensor-core accumulator may sum (in 64-k chunks): 4096 k.  Longer runs are
#: split (split-K, reduced in fp32 in a fixed order).  On "wide" data at k = 16384 (H200, docs/gemm.md)
#: 16384-long chains missed the 1e-3 tolerance on 87-107 of 4.2M elements, 8192-long ones on 0-1,
#: 4096-long ones on none.
MAX_CHAIN_CHUNKS = 64


@dataclass(frozen=True)
class GemmLayout:
    """Strides of the operands: bytes for a, sfa, b, sfb; fp16 elements for c. K (and c's n) contiguous."""

    a_row: int
    a_batch: int
    sfa_row: int
    sfa_batch: int
    b_row: int
    b_batch: int
    sfb_row: int
    sfb_batch: int
    c_row: int
    c_batch: int

    @classmethod
    def contiguous(cls, m: int, n: int, k: int, l: int = 1) -> "GemmLayout":
        """Batch-major ``(l, rows, cols)`` allocations of every operand, as the competition's tensors are."""
        return cls(k // 2, m * k // 2, k // 16, m * k // 16, k // 2, n * k // 2, k // 16, n * k // 16, n, m * n)


def _check_sizes(m, n, k, l):
    for name, v in (("m", m), ("n", n), ("k", k), ("l", l)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    if k % K_MULTIPLE:
        raise ValueError(f"k={k} must be a multiple of {K_MULTIPLE} (the GEMM kernels consume 64-k chunks)")


def _check_layout(layout: GemmLayout):
    if not isinstance(layout, GemmLayout):
        raise TypeError(f"layout must be a GemmLayout, got {type(layout).__name__}")
    for name in ("a_row", "a_batch", "b_row", "b_batch"):
        v = getattr(layout, name)
        if v < 0 or v % 16:
            raise ValueError(f"{name} stride must be a non-negative multiple of 16 bytes, got {v}")
    for name in ("sfa_row", "sfa_batch", "sfb_row", "sfb_batch"):
        v = getattr(layout, name)
        if v < 0 or v % 4:
            raise ValueError(f"{name} stride must be a non-negative multiple of 4 bytes, got {v}")
    for name in ("c_row", "c_batch"):
        if getattr(layout, name) < 0:
            raise ValueError(f"{name} stride must be non-negative, got {getattr(layout, name)}")


@dataclass(frozen=True)
class MmaGeometry:
    """How the mma kernel covers a problem: output tiles, and K split over ``splits`` CTAs per tile."""

    n_tiles: int
    m_tiles: int
    tiles: int
    chunks: int
    splits: int
    chunks_per_split: int
    grid: tuple
    workspace_bytes: int


def mma_geometry(m: int, n: int, k: int, l: int, slots: int) -> MmaGeometry:
    """Tiles of 128 x 128 and a K split that fills ``slots`` resident CTAs (all splits non-empty).

    ``splits = min(slots // tiles, chunks, MAX_SPLITS)`` (at least 1, and at least
    ``ceil(chunks / MAX_CHAIN_CHUNKS)`` so no accumulator sums more than 4096 k), then ``chunks_per_split =
    ceil(chunks / splits)`` and ``splits`` shrinks to ``ceil(chunks / chunks_per_split)`` so the
    last split is never empty.
    """
    n_tiles = -(-n // _MMA_TILE_N)
    m_tiles = -(-m // _MMA_TILE_M)
    tiles = n_tiles * m_tiles * l
    chunks = k // K_MULTIPLE
    splits = max(1, min(max(1, slots) // tiles, chunks, MAX_SPLITS), -(-chunks // MAX_CHAIN_CHUNKS))
    cps = -(-chunks // splits)
    splits = -(-chunks // cps)
    ws = splits * tiles * _MMA_PARTIAL_BYTES if splits > 1 else 0
    return MmaGeometry(n_tiles, m_tiles, tiles, chunks, splits, cps, (n_tiles, m_tiles, l * splits), ws)


@lru_cache(maxsize=None)
def _mma_kernel(ordinal: int):
    from ..module import load

    dev = driver.Device(ordinal)
    major, minor = dev.compute_capability
    target = dev.arch if (major, minor) == (9, 0) else "sm_80"
    return load(ptx_dir() / _MMA_FILE, device=dev, target=target).kernel(_MMA_ENTRY)


def _stream_key(stream, dev) -> int:
    from ..launch import _stream_handle

    h = _stream_handle(stream, dev)
    try:
        return int(h)
    except TypeError:
        return int(h.getPtr())


class GemmMmaPlan:
    """The portable mma.sync GEMM for one size, layout and device (the plan contract above).

    With split-K the plan owns a workspace (fp32 partial tiles) and zeroed per-tile counters,
    one set per stream it has been called on, so launches on different streams never share them.

    ``kernel``: a loaded kernel with the ``nvfp4_gemm_mma`` parameter list to launch instead of
    the built-in one, with the same arguments and geometry (the split-K factor then follows that
    kernel's own occupancy); ``nvfp4rt lab gemm`` uses this to run a user's kernel under the ABI.
    """

    variant = "mma"

    def __init__(self, m: int, n: int, k: int, l: int, layout: GemmLayout, *, alpha: float = 1.0, device=None,
                 kernel=None):
        _check_sizes(m, n, k, l)
        _check_layout(layout)
        self.m, self.n, self.k, self.l = int(m), int(n), int(k), int(l)
        self.layout, self.alpha = layout, float(alpha)
        self.device = device if device is not None else driver.device()
        major, minor = self.device.compute_capability
        if major < 8:
            raise RuntimeError(f"the mma GEMM needs compute capability 8.0 or newer; "
                               f"{self.device.properties.name} is {major}.{minor}")
        if kernel is not None and kernel.device.ordinal != self.device.ordinal:
            raise ValueError(f"kernel is loaded on device {kernel.device.ordinal}, the plan runs on {self.device.ordinal}")
        self.kernel = kernel if kernel is not None else _mma_kernel(self.device.ordinal)
        occ = driver.call("cuOccupancyMaxActiveBlocksPerMultiprocessor", self.kernel.function, _MMA_THREADS,
                          _MMA_SHARED)
        self.geometry = mma_geometry(self.m, self.n, self.k, self.l,
                                     max(1, int(occ)) * self.device.properties.sm_count)
        self._scratch: dict = {}  # stream key -> (workspace, counters)
        self._launch = None
        self._last_ptrs: tuple = ()
        self._last_stream = None
        self._last_key = None

    @property
    def flops(self) -> int:
        return 2 * self.m * self.n * self.k * self.l

    def _scratch_for(self, key):
        hit = self._scratch.get(key)
        if hit is None:
            from ..array import empty, zeros

            g = self.geometry
            if g.splits > 1:
                ws = empty((g.workspace_bytes // 4,), np.float32, device=self.device)
                cnt = zeros((g.tiles,), np.uint32, device=self.device)
                driver.call("cuCtxSynchronize")  # the counters are zero before any stream uses them
            else:
                ws = cnt = None
            hit = self._scratch[key] = (ws, cnt)
        return hit

    def _args(self, a, b, sfa, sfb, c, ws, cnt):
        from ..launch import Pointer

        g, lay = self.geometry, self.layout
        ws = ws if ws is not None else Pointer(0)
        cnt = cnt if cnt is not None else Pointer(0)
        return (a, sfa, b, sfb, c, ws, cnt, lay.a_row, lay.a_batch, lay.sfa_row, lay.sfa_batch, lay.b_row,
                lay.b_batch, lay.sfb_row, lay.sfb_batch, lay.c_row, lay.c_batch, self.m, self.n, self.k,
                g.splits, g.chunks_per_split, self.alpha)

    def __call__(self, a, b, sfa, sfb, c, stream=None):
        ptrs = (a.ptr, b.ptr, sfa.ptr, sfb.ptr, c.ptr)
        if ptrs != self._last_ptrs:
            for name, ptr, align in zip(("a", "b", "sfa", "sfb", "c"), ptrs, (16, 16, 4, 4, 2)):
                if ptr % align:
                    raise ValueError(f"{name} must be {align}-byte aligned (address 0x{ptr:x})")
        key = _stream_key(stream, self.device) if stream is not self._last_stream or self._launch is None \
            else self._last_key
        ws, cnt = self._scratch_for(key)
        if self._launch is None:
            self._launch = self.kernel.prepare(*self._args(a, b, sfa, sfb, c, ws, cnt), grid=self.geometry.grid,
                                               block=_MMA_THREADS, shared_mem=_MMA_SHARED, stream=stream)
        else:
            if ptrs != self._last_ptrs:  # re-pack only the pointers that moved
                for name, value, old, new in zip(("p_a", "p_b", "p_sfa", "p_sfb", "p_c"), (a, b, sfa, sfb, c),
                                                 self._last_ptrs, ptrs):
                    if old != new:
                        self._launch.set(name, value)
            if stream is not self._last_stream:
                self._launch.set_stream(stream)
                if key != self._last_key and ws is not None:
                    self._launch.set("p_workspace", ws)
                    self._launch.set("p_counters", cnt)
        self._last_ptrs, self._last_stream, self._last_key = ptrs, stream, key
        self._launch.launch()
        return c


# ----------------------------------------------------------------------------- variant choice

def _wgmma_module():
    try:
        mod = importlib.import_module("nvfp4rt.ops.gemm_wgmma")
    except ImportError:
        return None
    return mod if hasattr(mod, "GemmWgmmaPlan") else None


def variant_for(device, m=None, n=None, k=None, l=None, layout=None, alpha: float = 1.0) -> str:
    """The kernel variant for a problem on ``device``.

    Compute capability 9.0: ``"wgmma_cluster"`` (A decoded once per call, multicast across clusters of
    2 CTAs; measured fastest on the benchmark shapes, docs/gemm.md) when it supports the problem, else
    ``"wgmma"`` when nvfp4rt.ops.gemm_wgmma provides it and supports the problem; ``"mma"`` everywhere
    else.  Compute capability below 8.0 raises RuntimeError."""
    major, minor = device.compute_capability
    if major < 8:
        raise RuntimeError(f"nvfp4rt GEMM needs compute capability 8.0 or newer; "
                           f"{device.properties.name} is {major}.{minor}")
    if (major, minor) == (9, 0):
        from . import gemm_wgmma_cluster

        if m is None or gemm_wgmma_cluster.supports(m, n, k, l, layout, alpha):
            return "wgmma_cluster"
        mod = _wgmma_module()
        if mod is not None:
            supports = getattr(mod, "supports", None)
            if supports is None or supports(m, n, k, l, layout):
                return "wgmma"
    return "mma"


def _plan_class(variant: str):
    if variant == "mma":
        return GemmMmaPlan
    if variant == "wgmma_cluster":
        from .gemm_wgmma_cluster import GemmClusterPlan

        return GemmClusterPlan
    if variant == "wgmma":
        mod = _wgmma_module()
        if mod is None:
            raise ValueError("variant='wgmma' needs nvfp4rt.ops.gemm_wgmma.GemmWgmmaPlan, which is not available")
        return mod.GemmWgmmaPlan
    raise ValueError(f"variant must be one of {VARIANTS} or None, got {variant!r}")


@lru_cache(maxsize=64)
def _cached_plan(m, n, k, l, layout, alpha, ordinal, variant):
    return _plan_class(variant)(m, n, k, l, layout, alpha=alpha, device=driver.Device(ordinal))


def plan_gemm(m: int, n: int, k: int, l: int = 1, *, layout: GemmLayout | None = None, alpha: float = 1.0,
              device=None, variant: str | None = None):
    """A cached plan for ``l`` GEMMs of ``m x k`` by ``(n x k)^T``; default layout: batch-major, c ``(l, m, n)``.

    ``variant``: ``"mma"``, ``"wgmma"`` or None (by compute capability, see :func:`variant_for`).
    """
    _check_sizes(m, n, k, l)
    if variant is not None and variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS} or None, got {variant!r}")
    dev = device if device is not None else driver.device()
    layout = layout or GemmLayout.contiguous(m, n, k, l)
    _check_layout(layout)
    v = variant or variant_for(dev, m, n, k, l, layout, alpha)
    return _cached_plan(int(m), int(n), int(k), int(l), layout, float(alpha), dev.ordinal, v)


# ----------------------------------------------------------------------------- the raw form

def raw_problem(a, b, sfa, sfb, c):
    """Check the competition-layout operands (shape, dtype, strides) and return ``(m, n, k, l, GemmLayout)``.

    Works on anything with ``shape``, ``dtype`` and byte ``strides`` (device arrays, DLPack imports,
    strided views); raises TypeError / ValueError naming the argument.  No device is touched.
    """
    competition_operands({"a": a, "b": b}, {"sfa": sfa, "sfb": sfb}, {"c": c})
    m, half_k, l = (int(v) for v in a.shape)
    k = 2 * half_k
    if m < 1 or l < 1:
        raise ValueError(f"a must have m >= 1 rows and l >= 1 batches, got shape {tuple(a.shape)}")
    if k == 0 or k % K_MULTIPLE:
        raise ValueError(f"a's K (2 * a.shape[1] = {k}) must be a positive multiple of {K_MULTIPLE}")
    n = int(b.shape[0])
    if tuple(b.shape[1:]) != (half_k, l) or n < 1:
        raise ValueError(f"b must have shape [n >= 1, {half_k}, {l}] to match a {tuple(a.shape)}, got {tuple(b.shape)}")
    if tuple(sfa.shape) != (m, k // 16, l):
        raise ValueError(f"sfa must have shape [{m}, {k // 16}, {l}], got {tuple(sfa.shape)}")
    if tuple(sfb.shape) != (n, k // 16, l):
        raise ValueError(f"sfb must have shape [{n}, {k // 16}, {l}], got {tuple(sfb.shape)}")
    if tuple(c.shape) != (m, n, l):
        raise ValueError(f"c must have shape [{m}, {n}, {l}], got {tuple(c.shape)}")
    sa, sb, ssa, ssb, sc = (_strides_bytes(x) for x in (a, b, sfa, sfb, c))
    for name, st in (("a", sa), ("b", sb), ("sfa", ssa), ("sfb", ssb)):
        if st[1] != 1:
            raise ValueError(f"{name} must be contiguous along K (stride of axis 1 == 1 byte), got strides {st}")
    if sc[1] != 2:
        raise ValueError(f"c must be contiguous along n (stride of axis 1 == 2 bytes), got strides {sc}")
    for name, st, mult in (("a", sa, 16), ("b", sb, 16), ("sfa", ssa, 4), ("sfb", ssb, 4)):
        for axis, what in ((0, "row"), (2, "batch")):
            if st[axis] < 0 or st[axis] % mult:
                raise ValueError(f"{name}'s {what} stride (axis {axis}) must be a non-negative multiple of {mult} "
                                 f"bytes, got strides {st}")
    for axis in (0, 2):
        if sc[axis] < 0 or sc[axis] % 2:
            raise ValueError(f"c's strides must be non-negative multiples of 2 bytes, got {sc}")
    layout = GemmLayout(sa[0], sa[2], ssa[0], ssa[2], sb[0], sb[2], ssb[0], ssb[2], sc[0] // 2, sc[2] // 2)
    return m, n, k, l, layout


def gemm_raw(a, b, sfa, sfb, c, *, stream=None, alpha: float = 1.0, variant: str | None = None):
    """The competition form: ``c[:, :, i] = alpha * A_i @ B_i^T`` written in place into ``c [m, n, l]`` (fp16).

    a ``[m, k/2, l]`` and b ``[n, k/2, l]``: uint8 packed e2m1 (or torch ``float4_e2m1fn_x2`` bytes);
    sfa ``[m, k/16, l]``, sfb ``[n, k/16, l]``: e4m3 (``float8_e4m3fn`` or uint8 bit patterns).
    k = 2 * a.shape[1] must be a multiple of 64.  Axis 1 of a, b, sfa, sfb and c must be contiguous.
    """
    dev = driver.device()
    arrays, meta = device_operands(_RAW_NAMES, (a, b, sfa, sfb, c), dev)
    return _raw_plan(meta, dev.ordinal, alpha, variant)(*arrays, stream=stream)


_RAW_NAMES = ("a", "b", "sfa", "sfb", "c")


@lru_cache(maxsize=256)
def _raw_plan(meta: tuple, ordinal: int, alpha, variant):
    """The plan of a raw call, by the operands' :func:`~nvfp4rt.ops.gemv.device_operands` metadata: the checks and
    the variant choice run once per kind of operands (exceptions are not cached: bad calls are re-checked)."""
    if variant is not None and variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS} or None, got {variant!r}")
    check_devices(_RAW_NAMES, meta, ordinal)
    m, n, k, l, layout = raw_problem(*meta)
    dev = driver.Device(ordinal)
    v = variant or variant_for(dev, m, n, k, l, layout, alpha)
    return _cached_plan(m, n, k, l, layout, float(alpha), ordinal, v)


# ----------------------------------------------------------------------------- NVFP4Tensor form

def _batched(t, name):
    """(data [l, rows, k/2], scales [l, rows, k/16], was_batched) of an NVFP4Tensor."""
    data, sf = t.data, t.scales
    if len(data.shape) == 2:
        return data.reshape((1,) + tuple(data.shape)), sf.reshape((1,) + tuple(sf.shape)), False
    if len(data.shape) != 3:
        raise ValueError(f"{name} must be [l, rows, k] or [rows, k], got logical shape {t.shape}")
    return data, sf, True


def gemm(a, b, out=None, *, stream=None, variant: str | None = None):
    """NVFP4 GEMM ``A @ B^T`` on :class:`~nvfp4rt.nvfp4.NVFP4Tensor` values (device or host; linear scales).

    a ``[l, m, k]`` or ``[m, k]``; b ``[l, n, k]`` or ``[n, k]`` (same l, same k, k % 64 == 0).
    Returns fp16 ``[m, n, l]`` (a view of a batch-major ``(l, m, n)`` array), or ``[m, n]`` when both
    inputs are 2-D.  ``out`` may be given with that shape (n contiguous).  Tensor scales multiply in.
    """
    from ..array import empty
    from ..nvfp4 import NVFP4Tensor

    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, NVFP4Tensor):
            raise TypeError(f"{name} must be an nvfp4rt NVFP4Tensor (see nvfp4rt.quantize); use gemm_raw for raw tensors")
        if t.scale_layout != "linear":
            raise ValueError(f"{name} has {t.scale_layout!r} scales; gemm needs the linear layout "
                             "(NVFP4Tensor.with_scale_layout('linear') on the host)")
    if a.k != b.k:
        raise ValueError(f"a has k={a.k} but b has k={b.k}")
    if a.k % K_MULTIPLE:
        raise ValueError(f"k={a.k} must be a multiple of {K_MULTIPLE}")
    adata, asf, a_batched = _batched(a, "a")
    bdata, bsf, b_batched = _batched(b, "b")
    l, m, half_k = (int(v) for v in adata.shape)
    n = int(bdata.shape[1])
    if int(bdata.shape[0]) != l:
        raise ValueError(f"a has {l} batch(es) but b has {int(bdata.shape[0])}")
    unbatched = not a_batched and not b_batched
    dev = driver.device()
    if isinstance(adata, np.ndarray) or isinstance(bdata, np.ndarray):
        return gemm(a.to_device(dev), b.to_device(dev), out=out, stream=stream, variant=variant)
    if out is None:
        base = empty((l, m, n), np.float16, device=dev)
        out = base.reshape((m, n)) if unbatched else base.transpose(1, 2, 0)
    want = (m, n) if unbatched else (m, n, l)
    if tuple(out.shape) != want and not (l == 1 and tuple(out.shape) == (m, n)):
        raise ValueError(f"out must have shape {want}, got {tuple(out.shape)}")
    ost = _strides_bytes(out)
    c3 = _CView(out, (m, n, l), (ost[0], ost[1], ost[2] if len(ost) == 3 else 2 * m * n))
    a3 = _CView(adata, (m, half_k, l), (half_k, 1, m * half_k))
    sa3 = _CView(asf, (m, half_k // 8, l), (half_k // 8, 1, m * half_k // 8))
    b3 = _CView(bdata, (n, half_k, l), (half_k, 1, n * half_k))
    sb3 = _CView(bsf, (n, half_k // 8, l), (half_k // 8, 1, n * half_k // 8))
    for name, arr in (("a", adata), ("b", bdata)):
        if _strides_bytes(arr)[-1] != 1 or not _c_contiguous(arr):
            raise ValueError(f"{name}.data must be a C-contiguous device array")
    gemm_raw(a3, b3, sa3, sb3, c3, stream=stream, alpha=float(a.tensor_scale) * float(b.tensor_scale), variant=variant)
    return out


def _c_contiguous(arr) -> bool:
    st = _strides_bytes(arr)
    acc = np.dtype(arr.dtype).itemsize
    for d, s in zip(reversed(tuple(arr.shape)), reversed(st)):
        if d != 1 and s != acc:
            return False
        acc *= d
    return True
