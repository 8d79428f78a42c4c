"""SiLU-gated NVFP4 dual GEMM: ``c = fp16(silu(A @ B1^T) * (A @ B2^T))``, silu and the product in fp32.

Entry points
------------
* :func:`dual_gemm_silu` on :class:`nvfp4rt.nvfp4.NVFP4Tensor` values: a ``[l, m, k]`` (or
  ``[m, k]``), b1 and b2 ``[l, n, k]`` (or ``[n, k]``), linear scales.  Returns fp16 ``[m, n, l]``
  (a view of a batch-major ``(l, m, n)`` allocation) or ``[m, n]`` for unbatched inputs.  Tensor
  scales apply inside: ``h1 = ts_a ts_b1 A B1^T``, ``h2 = ts_a ts_b2 A B2^T``.
* :func:`dual_gemm_silu_raw` on the competition's tensors (FACTS §2): ``a [m, k/2, l]``, ``b1``,
  ``b2 [n, k/2, l]`` (packed e2m1 bytes), ``sfa [m, k/16, l]``, ``sfb1``, ``sfb2 [n, k/16, l]``
  (e4m3), ``c [m, n, l]`` fp16 written in place.  Any strides with K (and c's n) contiguous.
* :func:`plan_dual_gemm_silu` returns a cached :class:`DualGemmPlan`.

Three Hopper (sm_90a) implementations, chosen per problem by :func:`variant_for`:

* this module's :class:`DualGemmPlan`, ``ptx/dual_gemm_nvfp4_wgmma.ptx``, one kernel: each CTA tile is
  64 output columns x 128 output rows; consumer warpgroup 0 multiplies B1's 64 rows and warpgroup 1
  B2's 64 rows of the same columns against one decoded A tile (A loaded and decoded once for both
  products, in every CTA); stream-K over all SMs with a deterministic reduction of both
  accumulators, then silu * mul in the epilogue;
* :class:`nvfp4rt.ops.dual_gemm_cluster.DualGemmClusterPlan` (m > 256, or m > 128 with k > 4096): A
  decoded once per call by a prepass, 256-row tiles (m64n256k16) shared by clusters of CTAs through
  TMA multicast, the same B1/B2 warpgroup split and epilogue;
* :class:`nvfp4rt.ops.dual_gemm_tiles.DualGemmTilesPlan` (where 128-row tiles fit one wave whole): the cluster
  GEMM's own kernel built with DUAL = 1, A decoded once per call, CTA tiles of 128 rows x 64 columns (B1 rows
  for warpgroup 0, B2 rows for warpgroup 1), one whole tile per CTA, silu * mul at the store.

GPUs other than compute capability 9.0 raise :class:`NotImplementedError` before any launch: a
faithful fallback would need the two GEMMs in fp32 (the mma GEMM stores fp16, and rounding h1 and
h2 to fp16 before the silu costs up to ~1e-3 relative, the whole tolerance), which is not built.

Sizes: any ``m, n, l >= 1``, ``k`` a positive multiple of 64.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import driver
from ..launch import Pointer
from ..memory import copy_2d_async
from ..ptxsource import ptx_dir
from ._args import positive_int, finite_float, device_ptr

__all__ = ["dual_gemm_silu", "dual_gemm_silu_raw", "plan_dual_gemm_silu", "raw_dual_problem", "DualGemmLayout",
           "DualGemmPlan", "DualGeometry", "dual_geometry", "tile_contributors", "workspace_slot", "shared_bytes",
           "TILE_M", "TILE_N", "STAGE_K", "K_MULTIPLE", "WGMMA_DEPTHS", "kernel_constants", "operands_normal",
           "DualOperands", "variant_for", "cluster_tiles_win", "CLUSTER_MIN_M", "CLUSTER_MIN_K_ONE_M_TILE"]

_KERNEL_FILE = "dual_gemm_nvfp4_wgmma.ptx"
_ENTRY = "nvfp4_dual_gemm_silu_wgmma"
_THREADS = 384
#: output rows (m) and columns (n) of one CTA tile
TILE_M = 128
TILE_N = 64
STAGE_K = 256
#: Default cap on units per CTA: one fp32 tensor-core accumulator sums at most 32 k256 stages (8192 k);
#: longer runs go through the stream-K reduction (fp32, fixed order).  A 16384-long chain missed the
#: 1e-3 tolerance on "wide" data on a few elements in a million (H200, docs/gemm.md).
MAX_CHAIN_STAGES = 32
K_MULTIPLE = 64
_STAGE_BYTES = 36864           # B1 64x128 | B2 64x128 | A 128x128 | sfb1 64x16 | sfb2 64x16 | sfa 128x16
_SLOT_OFFSETS = {"b1": 0, "b2": 8192, "a": 16384, "sfb1": 32768, "sfb2": 33792, "sfa": 34816}
_A16_BYTES = 2 * TILE_M * 272  # 69632: three or four 16 KB a16 buffers, or the epilogue's two fp32 tiles
#: wgmma groups each consumer leaves in flight at its per-piece wait (template constant WG_WAIT), as in
#: the wgmma GEMM: 1 (3 a16 buffers, the default) or 3 (4 a16 buffers; both fit in the 69632-byte region)
WGMMA_DEPTHS = (1, 3)
_PARTIAL_BYTES = 2 * TILE_N * TILE_M * 4  # both accumulators of one tile (64 KB)
MIN_STAGES, MAX_STAGES = 2, 4
_DEFAULT_STAGES = 4


def shared_bytes(num_stages: int) -> int:
    """Dynamic shared memory of one CTA (the PTX header's launch contract)."""
    return 1024 + num_stages * _STAGE_BYTES + _A16_BYTES + 16 * num_stages + 16


@dataclass(frozen=True)
class DualGeometry:
    """How the kernel splits a dual GEMM over the SMs (tiles of 128 m x 64 n, units of k256)."""

    m: int
    n: int
    k: int
    l: int
    m_tiles: int
    n_tiles: int
    k_stages: int
    units: int
    units_per_cta: int
    grid: int
    num_stages: int

    @property
    def tiles(self) -> int:
        return self.l * self.m_tiles * self.n_tiles

    @property
    def shared_mem(self) -> int:
        return shared_bytes(self.num_stages)

    @property
    def workspace_bytes(self) -> int:
        return 2 * self.grid * _PARTIAL_BYTES

    def tile_coords(self, tile: int) -> tuple:
        """(batch, m0, n0) of a tile: batch-major, then m tile, n tile fastest (as the kernel decodes it)."""
        tpb = self.m_tiles * self.n_tiles
        batch, rem = divmod(tile, tpb)
        mt, nt = divmod(rem, self.n_tiles)
        return batch, mt * TILE_M, nt * TILE_N

    @property
    def split_tiles(self) -> int:
        return sum(1 for t in range(self.tiles) if len(tile_contributors(self, t)) > 1)


def dual_geometry(m: int, n: int, k: int, l: int, sm_count: int, *, stages: int | None = None,
                  units_per_cta: int | None = None) -> DualGeometry:
    """The stream-K split (pure): ``units_per_cta = ceil(units / sm_count)`` unless given."""
    m, n, k, l, sm_count = (positive_int(nm, v) for nm, v in (("m", m), ("n", n), ("k", k), ("l", l),
                                                           ("sm_count", sm_count)))
    if k % K_MULTIPLE:
        raise ValueError(f"k must be a multiple of {K_MULTIPLE}, got {k}")
    m_tiles, n_tiles, k_stages = -(-m // TILE_M), -(-n // TILE_N), -(-k // STAGE_K)
    units = l * m_tiles * n_tiles * k_stages
    if units >= 2**31:
        raise ValueError(f"problem too large: {units} units do not fit the kernel's 32-bit indices")
    if units_per_cta is None:
        upc = -(-units // sm_count)
        if k_stages > MAX_CHAIN_STAGES:  # a CTA's run inside one tile is at most upc stages long
            upc = min(upc, MAX_CHAIN_STAGES)
    else:
        upc = positive_int("units_per_cta", units_per_cta)
    grid = -(-units // upc)
    s = _DEFAULT_STAGES if stages is None else positive_int("stages", stages)
    if not MIN_STAGES <= s <= MAX_STAGES:
        raise ValueError(f"stages must be in {MIN_STAGES}..{MAX_STAGES}, got {s}")
    return DualGeometry(m, n, k, l, m_tiles, n_tiles, k_stages, units, upc, grid, s)


def tile_contributors(geo: DualGeometry, tile: int) -> range:
    """CTAs whose unit runs touch ``tile``, in the order the last one adds their partials."""
    first = tile * geo.k_stages
    return range(first // geo.units_per_cta, (first + geo.k_stages - 1) // geo.units_per_cta + 1)


def workspace_slot(geo: DualGeometry, cta: int, tile: int) -> int:
    """Workspace slot of ``cta``'s partial of ``tile``: 2*cta for its first tile, else 2*cta + 1."""
    return 2 * cta + (0 if tile == (cta * geo.units_per_cta) // geo.k_stages else 1)


# ----------------------------------------------------------------------------- layout

@dataclass(frozen=True)
class DualGemmLayout:
    """Strides: bytes for a, sfa, b1, sfb1, b2, sfb2 (row and batch); fp16 elements for c."""

    a_row: int
    a_batch: int
    sfa_row: int
    sfa_batch: int
    b1_row: int
    b1_batch: int
    sfb1_row: int
    sfb1_batch: int
    b2_row: int
    b2_batch: int
    sfb2_row: int
    sfb2_batch: int
    c_row: int
    c_batch: int

    @classmethod
    def contiguous(cls, m: int, n: int, k: int, l: int = 1) -> "DualGemmLayout":
        """Batch-major ``(l, rows, cols)`` allocations of every operand (the competition's)."""
        return cls(k // 2, m * k // 2, k // 16, m * k // 16, k // 2, n * k // 2, k // 16, n * k // 16,
                   k // 2, n * k // 2, k // 16, n * k // 16, n, m * n)


_DATA = ("a", "b1", "b2")
_SCALES = ("sfa", "sfb1", "sfb2")


def layout_problem(m, n, k, l, layout) -> str | None:
    """Why the kernel cannot take this layout (None: it can)."""
    if not isinstance(layout, DualGemmLayout):
        return f"layout must be a DualGemmLayout, got {type(layout).__name__}"
    for name in _DATA:
        for part in ("_row", "_batch"):
            v = getattr(layout, name + part)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0 or v % 16:
                return f"layout.{name}{part} must be a non-negative multiple of 16 bytes (TMA), got {v!r}"
        if getattr(layout, name + "_row") < k // 2:
            return f"layout.{name}_row must be at least k/2 = {k // 2} bytes"
        if l > 1 and getattr(layout, name + "_batch") == 0:
            return f"layout.{name}_batch = 0 (broadcast) is not supported by the TMA maps"
    for name in _SCALES + ("c",):
        for part in ("_row", "_batch"):
            v = getattr(layout, name + part)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                return f"layout.{name}{part} must be a non-negative int, got {v!r}"
    for name in _SCALES:
        if getattr(layout, name + "_row") < k // 16:
            return f"layout.{name}_row must be at least k/16 = {k // 16} bytes"
    if layout.c_row < n:
        return f"layout.c_row must be at least n = {n} elements"
    return None


def kernel_constants(normal_operands: bool = False, wgmma_depth: int = 1) -> dict:
    """Template constants of the kernel variant (the main loop's WG_WAIT/A16_BUFS rule is the GEMM's:
    WG_WAIT <= 2 * A16_BUFS - 5, so depth 1 takes 3 a16 buffers and depth 3 takes 4)."""
    if isinstance(wgmma_depth, bool) or wgmma_depth not in WGMMA_DEPTHS:
        raise ValueError(f"wgmma_depth must be one of {WGMMA_DEPTHS}, got {wgmma_depth!r}")
    return {"NORMAL_OPERANDS": 1 if normal_operands else 0, "WG_WAIT": int(wgmma_depth),
            "A16_BUFS": 3 if wgmma_depth == 1 else 4}


def operands_normal(alphas, requested: bool) -> bool:
    """The NORMAL_OPERANDS choice: the subnormal-operand kernel (the default) takes alpha1 * 2^28 and
    alpha2 * 2^28 as fp32 parameters, so an alpha that large would overflow; then normal operands."""
    big = float(np.finfo(np.float32).max)
    return bool(requested) or any(abs(float(a)) * 2.0**28 > big for a in alphas)


def _require_hopper(device) -> None:
    major, minor = device.compute_capability
    if (major, minor) != (9, 0):
        raise NotImplementedError(
            f"dual_gemm_silu runs only on Hopper (compute capability 9.0, sm_90a wgmma); "
            f"{device.properties.name} is {major}.{minor}.  No fused fallback is built for other GPUs "
            f"(two fp16 GEMMs + an elementwise silu*mul would round h1, h2 to fp16 first).")


@lru_cache(maxsize=None)
def _kernel(ordinal: int, normal_operands: bool, wgmma_depth: int = 1):
    from ..module import load

    return load(ptx_dir() / _KERNEL_FILE, device=driver.Device(ordinal), target="sm_90a",
                constants=kernel_constants(normal_operands, wgmma_depth)).kernel(_ENTRY)


class DualOperands:
    """What both dual GEMM plans do with B1, B2 and their scales: pointer checks, tensor maps (built once,
    re-pointed when a buffer moves) and zero-padded scale rows when the caller's are not 16-byte strided.
    A plan sets ``geometry`` (with ``k``, ``l``, ``k_stages``), ``layout``, ``device``, ``m``, ``n``, ``k``,
    ``l`` and calls :meth:`_init_operands`."""

    def _setup_problem(self, m, n, k, l, layout, device):
        """Set ``layout`` (default: contiguous; checked) and ``device`` (resolved, Hopper, activated);
        return the device properties."""
        self.layout = DualGemmLayout.contiguous(m, n, k, l) if layout is None else layout
        why = layout_problem(m, n, k, l, self.layout)
        if why:
            raise (TypeError if not isinstance(self.layout, DualGemmLayout) else ValueError)(why)
        dev = device if device is not None else driver.device()
        if isinstance(dev, int) and not isinstance(dev, bool):
            dev = driver.device(dev)
        self.device = dev
        _require_hopper(dev)
        dev.activate()
        return dev.properties

    def _init_operands(self) -> None:
        lay, l = self.layout, self.l
        self._sf_pitch = self.geometry.k_stages * 16
        self._pad_needed = {s: getattr(lay, s + "_row") % 16 != 0 or
                            (l > 1 and (getattr(lay, s + "_batch") % 16 or getattr(lay, s + "_batch") == 0))
                            for s in _SCALES}
        self._pads: dict = {}
        self._tmaps: dict = {}
        self._launch = None
        self._launched_maps: dict = {}

    @property
    def flops(self) -> int:
        return 4 * self.m * self.n * self.k * self.l

    def _rows(self, which: str) -> int:
        return self.m if which in ("a", "sfa") else self.n

    def map_spec(self, which: str, padded: bool = False):
        """(shape, outer byte strides, box, swizzle), numpy order, of the 3-D map of one operand."""
        g, lay = self.geometry, self.layout
        rows = self._rows(which)
        box_rows = TILE_M if which in ("a", "sfa") else TILE_N
        if which in _DATA:
            inner, box_inner, swizzle = g.k // 2, STAGE_K // 2, "128B"
            row, batch = getattr(lay, which + "_row"), getattr(lay, which + "_batch")
        else:
            box_inner, swizzle = STAGE_K // 16, "none"
            if padded:
                inner = row = self._sf_pitch
                batch = rows * row
            else:
                inner = g.k // 16
                row, batch = getattr(lay, which + "_row"), getattr(lay, which + "_batch")
        if g.l == 1 or batch == 0:
            batch = rows * row
        return (g.l, rows, inner), (batch, row), (1, box_rows, box_inner), swizzle

    def _tensor_map(self, which: str, ptr: int, padded: bool):
        from ..tma import TensorMap

        key = (which, padded)
        tm = self._tmaps.get(key)
        if tm is None:
            shape, strides, box, swizzle = self.map_spec(which, padded)
            tm = self._tmaps[key] = TensorMap(ptr, "uint8", shape, box, strides=strides, swizzle=swizzle)
        elif tm.base != ptr:
            tm.repoint(ptr)
        return tm

    def _padded_scales(self, which: str, src: int, stream_handle) -> int:
        """Copy [rows][k/16] scale bytes of every batch into zero-padded rows of k_stages*16 bytes."""
        from ..memory import DeviceAllocation

        rows = self._rows(which)
        buf = self._pads.get(which)
        if buf is None:
            nbytes = self.l * rows * self._sf_pitch
            buf = self._pads[which] = DeviceAllocation(nbytes, self.device)
            driver.call("cuMemsetD8", buf.ptr, 0, nbytes)
        row, batch = getattr(self.layout, which + "_row"), getattr(self.layout, which + "_batch")
        for bi in range(self.l):
            copy_2d_async(buf.ptr + bi * rows * self._sf_pitch, self._sf_pitch, src + bi * batch, row,
                          self.k // 16, rows, stream_handle)
        return buf.ptr

    @staticmethod
    def _pointers(arrs: dict) -> dict:
        """Device pointers of the operands, with the alignment TMA (data) and fp16 stores (c) need."""
        ptrs = {name: device_ptr(name, x) for name, x in arrs.items()}
        for name in _DATA:
            if ptrs[name] % 16:
                raise ValueError(f"{name} must be 16-byte aligned for TMA (address 0x{ptrs[name]:x})")
        if ptrs["c"] % 2:
            raise ValueError(f"c must be 2-byte aligned (fp16), address 0x{ptrs['c']:x}")
        return ptrs

    def _scale_copied(self, ptrs: dict, sf: str) -> bool:
        """Whether scale tensor ``sf`` goes through a padded copy (rows or base TMA cannot read in place): a copy
        that :meth:`_operand_maps` makes again on every call."""
        return bool(self._pad_needed[sf] or ptrs[sf] % 16 != 0)

    def _operand_maps(self, ptrs: dict, names, stream_handle) -> dict:
        """Tensor maps of the data operands ``names`` and their scales (padded copies where needed)."""
        maps = {}
        for name in names:
            maps[name] = self._tensor_map(name, ptrs[name], False)
            sf = "sf" + name
            padded = self._scale_copied(ptrs, sf)
            p = self._padded_scales(sf, ptrs[sf], stream_handle) if padded else ptrs[sf]
            maps[sf] = self._tensor_map(sf, p, padded)
        return maps


class DualGemmPlan(DualOperands):
    """A dual GEMM of fixed size and layout on one Hopper device, ready to launch again and again.

    ``DualGemmPlan(m, n, k, l=1, layout=None, *, alpha1=1.0, alpha2=1.0, device=None, stages=None,
    units_per_cta=None, normal_operands=False, wgmma_depth=1, kernel=None)``; ``plan(a, b1, b2, sfa,
    sfb1, sfb2, c, stream=None)``.  ``kernel=`` launches another kernel under this ABI (``nvfp4rt lab
    dual_gemm``).  ``normal_operands=False`` (the default, as in the wgmma GEMM) builds the variant whose
    decoded operands carry an extra 2^-14 (fp16 subnormals, exact; one HMUL2 per pair less) and passes
    alpha * 2^28; an alpha whose 2^28 multiple overflows fp32 keeps normal operands
    (:func:`operands_normal`).  ``wgmma_depth=3`` keeps three wgmma groups in flight per consumer.
    Tensor maps are built on the first call and re-pointed when a buffer moves; the workspace and
    the per-tile counters (zeroed once; the kernel leaves them zero) belong to the plan, so calls
    of one plan on different streams must not overlap.
    """

    def __init__(self, m: int, n: int, k: int, l: int = 1, layout=None, *, alpha1: float = 1.0,
                 alpha2: float = 1.0, device=None, stages: int | None = None, units_per_cta: int | None = None,
                 normal_operands: bool = False, wgmma_depth: int = 1, kernel=None):
        if not isinstance(normal_operands, bool):
            raise TypeError(f"normal_operands must be a bool, got {type(normal_operands).__name__}")
        if isinstance(wgmma_depth, bool) or not isinstance(wgmma_depth, (int, np.integer)):
            raise TypeError(f"wgmma_depth must be an int, got {type(wgmma_depth).__name__}")
        kernel_constants(False, int(wgmma_depth))  # validates the depth
        self.wgmma_depth = int(wgmma_depth)
        self.alpha1, self.alpha2 = finite_float("alpha1", alpha1), finite_float("alpha2", alpha2)
        self.normal_operands = operands_normal((self.alpha1, self.alpha2), normal_operands)
        dual_geometry(m, n, k, l, 1, stages=stages, units_per_cta=units_per_cta)  # validate first
        props = self._setup_problem(m, n, k, l, layout, device)
        dev = self.device
        self.geometry = g = dual_geometry(m, n, k, l, props.sm_count, stages=stages, units_per_cta=units_per_cta)
        self.m, self.n, self.k, self.l = g.m, g.n, g.k, g.l
        if g.shared_mem > props.max_shared_per_block_optin:
            raise ValueError(f"stages={g.num_stages} needs {g.shared_mem} bytes of shared memory; the device "
                             f"allows {props.max_shared_per_block_optin}")
        # kernel=: launch a given kernel with this kernel's ABI and geometry (nvfp4rt lab dual_gemm)
        self.kernel = kernel if kernel is not None else _kernel(dev.ordinal, self.normal_operands, self.wgmma_depth)
        self.kernel.set_max_dynamic_shared(g.shared_mem)
        from ..memory import DeviceAllocation

        self._ws = DeviceAllocation(g.workspace_bytes, dev)
        self._counters = DeviceAllocation(4 * g.tiles, dev)
        driver.call("cuMemsetD32", self._counters.ptr, 0, g.tiles)
        self._init_operands()

    def run(self, a, b1, b2, sfa, sfb1, sfb2, c, stream=None):
        """Launch on ``stream`` (default: the legacy default stream); returns ``c``."""
        from ..launch import _stream_handle
        from .gemm_wgmma import launch_with_maps

        ptrs = self._pointers({"a": a, "b1": b1, "b2": b2, "sfa": sfa, "sfb1": sfb1, "sfb2": sfb2, "c": c})
        handle = _stream_handle(stream, self.device)
        maps = self._operand_maps(ptrs, _DATA, handle)
        scale = 1.0 if self.normal_operands else 2.0**28
        g = self.geometry
        if self._launch is None:
            self._launch = self.kernel.prepare(
                maps["a"], maps["b1"], maps["b2"], maps["sfa"], maps["sfb1"], maps["sfb2"], Pointer(ptrs["c"]),
                Pointer(self._ws.ptr), Pointer(self._counters.ptr), self.layout.c_row, self.layout.c_batch, g.m, g.n,
                g.k_stages, g.m_tiles, g.n_tiles, g.units, g.units_per_cta, g.num_stages,
                self.alpha1 * scale, self.alpha2 * scale,
                grid=g.grid, block=_THREADS, shared_mem=g.shared_mem, stream=stream)
        self._launched_maps = launch_with_maps(self._launch, self._launched_maps, maps, ptrs["c"], stream)
        return c

    __call__ = run

    def __repr__(self) -> str:
        g = self.geometry
        return (f"<DualGemmPlan m={g.m} n={g.n} k={g.k} l={g.l} grid={g.grid} units/cta={g.units_per_cta} "
                f"stages={g.num_stages} split_tiles={g.split_tiles}"
                + (f" wgmma_depth={self.wgmma_depth}" if self.wgmma_depth != 1 else "")
                + ("" if self.normal_operands else " subnormal_operands") + ">")


# ----------------------------------------------------------------------------- public API

#: m above which the cluster kernel (256-row tiles, A decoded once) is considered; at or below it a
#: 256-row tile would be at least half empty and the first kernel's 128-row tiles are used
CLUSTER_MIN_M = 128
#: with one 256-row m tile (m <= 256) the cluster kernel has only ceil(n/64) CTA tiles, so it fills the GPU
#: by splitting k, and each extra contributor's partial costs about 5 us (H200, docs/dual_gemm.md); it is
#: chosen there only for k above this (256x4096x7168: 65.4 vs 68.1 us; 256x3072x4096: 47.9 vs 40.5 us)
CLUSTER_MIN_K_ONE_M_TILE = 4096


def cluster_tiles_win(m: int, n: int, k: int, l: int, sm_count: int = 132) -> bool:
    """Whether the 256-row cluster kernel beats the 128-row tiles' stream-K where m > 256 (pure): where its 256-row
    tiles are full (m a multiple of 256) and its even share over ``sm_count / 2`` clusters of 2 is whole tiles (no
    split, no partials).  Measured on the H100 with the cluster kernel built as a whole program (the runtime's "auto"
    compiler keeps its setmaxnreg; session 43, docs/dual_gemm.md): it wins 512 x 4096 x 7168 (82.8 against 88.8 us)
    and 1024 x 2048 x 4096 (53.1 against 54.9), ties 768 x 3072 x 4096 (65.2, split), and loses every split or padded
    shape measured: 512 x 3072 x 7168 (71.9 against 69.7), 384 x 4096 x 7168 (83.7 against 72.1), 384 x 3072 x 2048
    (33.6 against 28.1), 768 x 4096 x 7168 (186.9 against 131.5), 1024 x 4096 x 7168 (190.7 against 184.3),
    1024 x 3072 x 2048 (48.2 against 46.2).  Built by the JIT linker (``NVFP4RT_COMPILER=link``) the cluster kernel
    is 5-10% slower and lost 512 x 4096 x 7168 and 1024 x 2048 x 4096 too (sessions 20-21)."""
    from .dual_gemm_cluster import TILE_M as ROWS_256, TILE_N as COLS_256

    k_stages = -(-k // STAGE_K)
    cluster_units = l * -(-m // ROWS_256) * -(-n // (2 * COLS_256)) * k_stages  # cluster tiles of 2 CTAs
    cluster_share = -(-cluster_units // (sm_count // 2))
    return m % ROWS_256 == 0 and cluster_share % k_stages == 0


def variant_for(m, n, k, l, layout=None, alpha1: float = 1.0, alpha2: float = 1.0, sm_count: int = 132) -> str:
    """``"wgmma_tiles"`` (nvfp4rt.ops.dual_gemm_tiles) where m > CLUSTER_MIN_M and the GEMM's 128-row tiles fit
    one wave of ``sm_count`` CTAs as whole tiles (:func:`~nvfp4rt.ops.dual_gemm_tiles.whole_tiles`), or where
    m > 256 and :func:`cluster_tiles_win` does not hold (the tiles then run stream-K over clusters of 1); else
    ``"wgmma_cluster"`` (nvfp4rt.ops.dual_gemm_cluster) for m > 256, or m > 128 with k > 4096; else ``"wgmma"``
    (:class:`DualGemmPlan`).  The two GEMM-kernel variants need alphas whose 2^28 multiple fits fp32.  The
    thresholds are measured crossovers (CLUSTER_MIN_M, CLUSTER_MIN_K_ONE_M_TILE; docs/dual_gemm.md, "128-row tiles":
    256 x 4096 x 7168 53 against 61 us, 256 x 3072 x 4096 34 against 41.5 on the H100)."""
    from . import dual_gemm_cluster, dual_gemm_tiles

    fits = dual_gemm_cluster.supports(m, n, k, l, layout, alpha1, alpha2)
    if fits and m > CLUSTER_MIN_M and dual_gemm_tiles.whole_tiles(m, n, k, l, sm_count):
        return "wgmma_tiles"
    big_enough = m > dual_gemm_cluster.TILE_M or (m > CLUSTER_MIN_M and k > CLUSTER_MIN_K_ONE_M_TILE)
    if big_enough and fits:
        if m > dual_gemm_cluster.TILE_M and not cluster_tiles_win(m, n, k, l, sm_count):
            return "wgmma_tiles"
        return "wgmma_cluster"
    return "wgmma"


@lru_cache(maxsize=32)
def _cached_plan(m, n, k, l, layout, alpha1, alpha2, ordinal):
    dev = driver.Device(ordinal)
    variant = variant_for(m, n, k, l, layout, alpha1, alpha2, dev.properties.sm_count)
    if variant == "wgmma_tiles":
        from .dual_gemm_tiles import DualGemmTilesPlan

        return DualGemmTilesPlan(m, n, k, l, layout, alpha1=alpha1, alpha2=alpha2, device=dev)
    if variant == "wgmma_cluster":
        from .dual_gemm_cluster import DualGemmClusterPlan

        return DualGemmClusterPlan(m, n, k, l, layout, alpha1=alpha1, alpha2=alpha2, device=dev)
    return DualGemmPlan(m, n, k, l, layout, alpha1=alpha1, alpha2=alpha2, device=dev)


def plan_dual_gemm_silu(m: int, n: int, k: int, l: int = 1, *, layout: DualGemmLayout | None = None,
                        alpha1: float = 1.0, alpha2: float = 1.0, device=None):
    """A cached plan (default layout: batch-major, the competition's): a
    :class:`~nvfp4rt.ops.dual_gemm_tiles.DualGemmTilesPlan`, a
    :class:`~nvfp4rt.ops.dual_gemm_cluster.DualGemmClusterPlan` or a :class:`DualGemmPlan`, as
    :func:`variant_for` chooses; all are called ``plan(a, b1, b2, sfa, sfb1, sfb2, c, stream=None)``."""
    dual_geometry(m, n, k, l, 1)
    layout = layout or DualGemmLayout.contiguous(m, n, k, l)
    why = layout_problem(m, n, k, l, layout)
    if why:
        raise (TypeError if not isinstance(layout, DualGemmLayout) else ValueError)(why)
    dev = device if device is not None else driver.device()
    _require_hopper(dev)
    return _cached_plan(int(m), int(n), int(k), int(l), layout, finite_float("alpha1", alpha1),
                        finite_float("alpha2", alpha2), dev.ordinal)


def raw_dual_problem(a, b1, b2, sfa, sfb1, sfb2, c):
    """Check the competition-layout operands and return ``(m, n, k, l, DualGemmLayout)``; no device touched."""
    from .gemm import raw_problem

    def renamed(exc, which):
        msg = str(exc)  # raw_problem's messages open with the argument's name: b / sfb -> b1 / sfb1 ...
        for old in ("sfb", "b"):
            if msg.startswith(old + " ") or msg.startswith(old + "'"):
                msg = old + which + msg[len(old):]
                break
        return type(exc)(msg)

    try:
        m, n, k, l, L1 = raw_problem(a, b1, sfa, sfb1, c)
    except (TypeError, ValueError) as exc:
        raise renamed(exc, "1") from None
    if tuple(b2.shape) != tuple(b1.shape):
        raise ValueError(f"b2 must have shape {list(b1.shape)} (the same as b1), got {tuple(b2.shape)}")
    try:
        _, _, _, _, L2 = raw_problem(a, b2, sfa, sfb2, c)
    except (TypeError, ValueError) as exc:
        raise renamed(exc, "2") from None
    layout = DualGemmLayout(L1.a_row, L1.a_batch, L1.sfa_row, L1.sfa_batch, L1.b_row, L1.b_batch, L1.sfb_row,
                            L1.sfb_batch, L2.b_row, L2.b_batch, L2.sfb_row, L2.sfb_batch, L1.c_row, L1.c_batch)
    return m, n, k, l, layout


def dual_gemm_silu_raw(a, b1, b2, sfa, sfb1, sfb2, c, *, stream=None, alpha1: float = 1.0, alpha2: float = 1.0):
    """The competition form: ``c[:, :, i] = silu(alpha1 A_i B1_i^T) * (alpha2 A_i B2_i^T)`` into ``c [m, n, l]``.

    a ``[m, k/2, l]``, b1/b2 ``[n, k/2, l]`` uint8 packed e2m1; sfa ``[m, k/16, l]``, sfb1/sfb2
    ``[n, k/16, l]`` e4m3 (or their uint8 bytes); c fp16.  nvfp4rt device arrays or any DLPack /
    CUDA-array-interface producer.  k % 64 == 0.  Raises NotImplementedError off Hopper.
    """
    from .gemv import device_operands

    dev = driver.device()
    arrs, meta = device_operands(_RAW_NAMES, (a, b1, b2, sfa, sfb1, sfb2, c), dev)
    return _raw_plan(meta, dev.ordinal, alpha1, alpha2)(*arrs, stream=stream)


_RAW_NAMES = ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c")


@lru_cache(maxsize=256)
def _raw_plan(meta: tuple, ordinal: int, alpha1, alpha2):
    """The plan of a raw call, by the operands' metadata (:func:`~nvfp4rt.ops.gemv.device_operands`): checks and
    plan choice once per kind of operands (exceptions are not cached: bad calls are re-checked)."""
    from .gemv import check_devices

    check_devices(_RAW_NAMES, meta, ordinal)
    m, n, k, l, layout = raw_dual_problem(*meta)
    return plan_dual_gemm_silu(m, n, k, l, layout=layout, alpha1=alpha1, alpha2=alpha2, device=driver.Device(ordinal))


def dual_gemm_silu(a, b1, b2, out=None, *, stream=None):
    """``silu(A @ B1^T) * (A @ B2^T)`` in fp16 on :class:`~nvfp4rt.nvfp4.NVFP4Tensor` values (linear scales).

    a ``[l, m, k]`` or ``[m, k]``; b1, b2 ``[l, n, k]`` or ``[n, k]`` (same l, k; k % 64 == 0).
    Returns fp16 ``[m, n, l]`` (view of a batch-major ``(l, m, n)`` array), or ``[m, n]`` when all
    inputs are 2-D; ``out`` may be given with that shape (n contiguous).  Host tensors are copied over.
    """
    from ..array import empty
    from ..nvfp4 import NVFP4Tensor
    from .gemm import _batched, _c_contiguous
    from .gemv import _CView, _strides_bytes

    for name, t in (("a", a), ("b1", b1), ("b2", b2)):
        if not isinstance(t, NVFP4Tensor):
            raise TypeError(f"{name} must be an nvfp4rt NVFP4Tensor (see nvfp4rt.quantize); "
                            "use dual_gemm_silu_raw for raw tensors")
        if t.scale_layout != "linear":
            raise ValueError(f"{name} has {t.scale_layout!r} scales; dual_gemm_silu needs the linear layout")
    for name, t in (("b1", b1), ("b2", b2)):
        if t.k != a.k:
            raise ValueError(f"a has k={a.k} but {name} has k={t.k}")
    if a.k % K_MULTIPLE:
        raise ValueError(f"k={a.k} must be a multiple of {K_MULTIPLE}")
    ad, asf, a_b = _batched(a, "a")
    d1, s1, b1_b = _batched(b1, "b1")
    d2, s2, b2_b = _batched(b2, "b2")
    l, m, half_k = (int(v) for v in ad.shape)
    n = int(d1.shape[1])
    if tuple(int(v) for v in d2.shape) != tuple(int(v) for v in d1.shape):
        raise ValueError(f"b1 {b1.shape} and b2 {b2.shape} must have the same shape")
    if int(d1.shape[0]) != l:
        raise ValueError(f"a has {l} batch(es) but b1/b2 have {int(d1.shape[0])}")
    dev = driver.device()
    if any(isinstance(x, np.ndarray) for x in (ad, d1, d2)):
        return dual_gemm_silu(a.to_device(dev), b1.to_device(dev), b2.to_device(dev), out=out, stream=stream)
    _require_hopper(dev)
    unbatched = not (a_b or b1_b or b2_b)
    if out is None:
        base = empty((l, m, n), np.float16, device=dev)
        out = base.reshape((m, n)) if unbatched else base.transpose(1, 2, 0)
    want = (m, n) if unbatched else (m, n, l)
    if tuple(out.shape) != want and not (l == 1 and tuple(out.shape) == (m, n)):
        raise ValueError(f"out must have shape {want}, got {tuple(out.shape)}")
    ost = _strides_bytes(out)
    c3 = _CView(out, (m, n, l), (ost[0], ost[1], ost[2] if len(ost) == 3 else 2 * m * n))
    views = []
    for name, data, sf, rows in (("a", ad, asf, m), ("b1", d1, s1, n), ("b2", d2, s2, n)):
        if _strides_bytes(data)[-1] != 1 or not _c_contiguous(data):
            raise ValueError(f"{name}.data must be a C-contiguous device array")
        views.append(_CView(data, (rows, half_k, l), (half_k, 1, rows * half_k)))
        views.append(_CView(sf, (rows, half_k // 8, l), (half_k // 8, 1, rows * half_k // 8)))
    (a3, sa3), (b13, sb13), (b23, sb23) = views[0:2], views[2:4], views[4:6]
    ts = float(a.tensor_scale)
    dual_gemm_silu_raw(a3, b13, b23, sa3, sb13, sb23, c3, stream=stream,
                       alpha1=ts * float(b1.tensor_scale), alpha2=ts * float(b2.tensor_scale))
    return out
