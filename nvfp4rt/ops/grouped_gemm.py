"""Grouped NVFP4 GEMM: G independent ``c_g = alpha_g * A_g @ B_g^T`` (fp16) in ONE launch.

Entry points
------------
* :func:`grouped_gemm` on :class:`nvfp4rt.nvfp4.NVFP4Tensor` problems: ``problems`` is a list of
  ``(a, b)`` or ``(a, b, c)``: a ``[m_g, k_g]``, b ``[n_g, k_g]`` (linear scales, host or device),
  c an fp16 ``[m_g, n_g]`` device array (allocated when missing).  Returns the list of c.  Tensor
  scales become the group's alpha.
* :func:`grouped_gemm_raw` on the competition's tensors: a list of ``(a, b, sfa, sfb, c)`` with
  a ``[m, k/2, 1]``, b ``[n, k/2, 1]`` (packed e2m1), sfa ``[m, k/16, 1]``, sfb ``[n, k/16, 1]``
  (e4m3), c ``[m, n, 1]`` fp16 written in place (l = 1 per group; K and c's n contiguous).
* :func:`plan_grouped_gemm` returns a cached :class:`GroupedGemmPlan` for a list of shapes.

Kernel: ``ptx/grouped_gemm_nvfp4_wgmma.ptx`` (sm_90a).  A persistent stream-K schedule over the
flat list of all groups' (tile, k256) units; a device-resident problem table (:func:`build_table`)
and one device buffer of 4 tensor maps per group.  The plan builds each group's maps once and
re-points them (``cuTensorMapReplaceAddress``) only when a buffer moves; the table and maps are
copied to the device only when some pointer or alpha changed since the last call (a cache keyed
by the pointers).

Other GPUs (compute capability != 9.0): :func:`grouped_gemm` and :func:`grouped_gemm_raw` run
``nvfp4rt.gemm_raw`` once per group (G launches of the portable mma kernel) - documented, not
one launch.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import driver
from ..launch import Pointer
from ..ptxsource import ptx_dir
from ._args import positive_int
from .gemm_wgmma_cluster import WHOLE_TILE_SLACK

__all__ = ["grouped_gemm", "grouped_gemm_raw", "plan_grouped_gemm", "GroupedGemmPlan", "GroupedGeometry",
           "grouped_geometry", "build_table", "tile_contributors", "workspace_slot", "find_group", "TILE",
           "STAGE_K", "K_MULTIPLE", "TABLE_ENTRY_BYTES", "TMAPS_PER_GROUP_BYTES", "WGMMA_DEPTHS", "kernel_constants",
           "operands_normal", "shared_bytes", "whole_tile_units", "WHOLE_TILE_SLACK", "GroupedOperands", "alphas_fit", "VARIANTS",
           "variant_for", "CLUSTER_MIN_UNITS"]

_KERNEL_FILE = "grouped_gemm_nvfp4_wgmma.ptx"
_ENTRY = "nvfp4_grouped_gemm_wgmma"
_THREADS = 384
TILE = 128
STAGE_K = 256
#: Default cap on units per CTA: one fp32 tensor-core accumulator sums at most 32 k256 stages (8192 k);
#: longer runs go through the stream-K reduction (fp32, fixed order).  A 16384-long chain missed the
#: 1e-3 tolerance on "wide" data on a few elements in a million (H200, docs/gemm.md).
MAX_CHAIN_STAGES = 32
#: A tile split between CTAs costs its contributors a partial write, a wait and a fixed-order reduction.  So when
#: every tile fits one wave, whole tiles are taken unless they run more than this many units past the even share.
#: Measured on the H100 (docs/grouped_gemm.md, whole tiles against the even share, us): competition case 3, 16
#: against 15 units, 43.2 / 50.8; 100 tiles, 16 / 13, 43.9 / 46.4; 96 tiles, 16 / 12, 44.4 / 44.0; 88 tiles,
#: 16 / 11, 43.4 / 42.1; 120 tiles, 28 / 26, 69.7 / 74.2.  (The GEMM's plan takes whole tiles by the same slack,
#: against its stream-K estimate: gemm_wgmma_cluster.WHOLE_TILE_SLACK, this constant's one definition.)
K_MULTIPLE = 64
TABLE_ENTRY_BYTES = 64
TMAPS_PER_GROUP_BYTES = 512
_STAGE_BYTES = 36864
_A16_BUF_BYTES = TILE * 128  # one decoded-A buffer (128 rows x k64 fp16); the C staging tile (34816) fits in 3
#: wgmma groups each consumer leaves in flight at its per-piece wait (template constant WG_WAIT), as in
#: the wgmma GEMM: 1 (3 a16 buffers, the default) or 3 (4 a16 buffers)
WGMMA_DEPTHS = (1, 3)
_PARTIAL_BYTES = TILE * TILE * 4
MIN_STAGES, MAX_STAGES = 2, 4
_DEFAULT_STAGES = 4
#: the kernel's table-driven search is linear in the groups; more than this is refused
MAX_GROUPS = 4096


def a16_buffers(wgmma_depth: int) -> int:
    """a16 buffers for a wgmma depth: the GEMM's rule WG_WAIT <= 2 * A16_BUFS - 5."""
    return 3 if wgmma_depth == 1 else 4


def shared_bytes(num_stages: int, wgmma_depth: int = 1) -> int:
    """Dynamic shared memory of one CTA (the PTX header's launch contract)."""
    return 1024 + num_stages * _STAGE_BYTES + a16_buffers(wgmma_depth) * _A16_BUF_BYTES + 16 * num_stages + 16


def kernel_constants(normal_operands: bool = False, wgmma_depth: int = 1) -> dict:
    """Template constants of the kernel variant."""
    if isinstance(wgmma_depth, bool) or wgmma_depth not in WGMMA_DEPTHS:
        raise ValueError(f"wgmma_depth must be one of {WGMMA_DEPTHS}, got {wgmma_depth!r}")
    return {"NORMAL_OPERANDS": 1 if normal_operands else 0, "WG_WAIT": int(wgmma_depth),
            "A16_BUFS": a16_buffers(wgmma_depth)}


def operands_normal(alphas, requested: bool) -> bool:
    """The NORMAL_OPERANDS choice for one call: the subnormal-operand kernel (the default) takes every
    alpha * 2^28 as an fp32 table entry, so when one would overflow the call uses normal operands."""
    big = float(np.finfo(np.float32).max)
    return bool(requested) or any(abs(float(a)) * 2.0**28 > big for a in alphas)


@dataclass(frozen=True)
class GroupShape:
    m: int
    n: int
    k: int
    m_tiles: int
    n_tiles: int
    k_stages: int
    unit_start: int
    tile_start: int

    @property
    def tiles(self) -> int:
        return self.m_tiles * self.n_tiles

    @property
    def units(self) -> int:
        return self.tiles * self.k_stages


@dataclass(frozen=True)
class GroupedGeometry:
    """The launch-wide split: groups one after the other, units tile-major (k fastest) within a group."""

    groups: tuple
    units: int
    tiles: int
    units_per_cta: int
    grid: int
    num_stages: int

    @property
    def shared_mem(self) -> int:
        return shared_bytes(self.num_stages)

    @property
    def workspace_bytes(self) -> int:
        return 2 * self.grid * _PARTIAL_BYTES

    def tile_units(self, tile: int) -> tuple:
        """(group index, tile of the group, first unit U0, k_stages) of a launch-wide tile."""
        for gi, g in enumerate(self.groups):
            if g.tile_start <= tile < g.tile_start + g.tiles:
                lt = tile - g.tile_start
                return gi, lt, g.unit_start + lt * g.k_stages, g.k_stages
        raise ValueError(f"tile {tile} out of range 0..{self.tiles - 1}")

    @property
    def split_tiles(self) -> int:
        return sum(1 for t in range(self.tiles) if len(tile_contributors(self, t)) > 1)


def grouped_geometry(shapes, sm_count: int, *, stages: int | None = None,
                     units_per_cta: int | None = None) -> GroupedGeometry:
    """Pure: ``shapes`` is a list of (m, n, k); upc = ceil(units / sm_count) unless given."""
    shapes = list(shapes)
    if not shapes:
        raise ValueError("need at least one group")
    if len(shapes) > MAX_GROUPS:
        raise ValueError(f"at most {MAX_GROUPS} groups per launch, got {len(shapes)}")
    sm_count = positive_int("sm_count", sm_count)
    groups, unit, tile = [], 0, 0
    for i, s in enumerate(shapes):
        if not isinstance(s, (tuple, list)) or len(s) != 3:
            raise ValueError(f"group {i}: expected (m, n, k), got {s!r}")
        m, n, k = (positive_int(f"group {i}: {nm}", v) for nm, v in zip("mnk", s))
        if k % K_MULTIPLE:
            raise ValueError(f"group {i}: k must be a multiple of {K_MULTIPLE}, got {k}")
        g = GroupShape(m, n, k, -(-m // TILE), -(-n // TILE), -(-k // STAGE_K), unit, tile)
        groups.append(g)
        unit += g.units
        tile += g.tiles
    if unit >= 2**31:
        raise ValueError(f"problem too large: {unit} units do not fit the kernel's 32-bit indices")
    if units_per_cta is None:
        upc = -(-unit // sm_count)
        if max(g.k_stages for g in groups) > MAX_CHAIN_STAGES:  # a CTA's run inside one tile is <= upc stages
            upc = min(upc, MAX_CHAIN_STAGES)
        upc = whole_tile_units(groups, tile, sm_count, upc)
    else:
        upc = positive_int("units_per_cta", units_per_cta)
    s = _DEFAULT_STAGES if stages is None else positive_int("stages", stages)
    if not MIN_STAGES <= s <= MAX_STAGES:
        raise ValueError(f"stages must be in {MIN_STAGES}..{MAX_STAGES}, got {s}")
    return GroupedGeometry(tuple(groups), unit, tile, upc, -(-unit // upc), s)


def whole_tile_units(groups, tiles: int, sm_count: int, upc: int) -> int:
    """Units per CTA: ``k_stages`` (one whole tile per CTA, no stream-K exchange) where every group has the same
    ``k_stages``, the tiles fit one wave and the longer runs cost at most WHOLE_TILE_SLACK units; else ``upc``."""
    stages = {g.k_stages for g in groups}
    if len(stages) != 1:
        return upc
    k_stages = stages.pop()
    if tiles <= sm_count and upc < k_stages <= min(upc + WHOLE_TILE_SLACK, MAX_CHAIN_STAGES):
        return k_stages
    return upc


def tile_contributors(geo: GroupedGeometry, tile: int) -> range:
    """CTAs whose unit runs touch a launch-wide ``tile``, in the order the reduction adds them."""
    _, _, u0, kb = geo.tile_units(tile)
    return range(u0 // geo.units_per_cta, (u0 + kb - 1) // geo.units_per_cta + 1)


def workspace_slot(geo: GroupedGeometry, cta: int, tile: int) -> int:
    """The kernel's rule: 2*cta if cta's run starts inside the tile (its first tile), else 2*cta + 1."""
    _, _, u0, _ = geo.tile_units(tile)
    return 2 * cta + (0 if cta * geo.units_per_cta >= u0 else 1)


def pack_table(words, total_units: int, c_ptrs, c_rows, alphas) -> np.ndarray:
    """(G + 1) table entries of 64 bytes: per group its six u32 ``words``, alpha (f32) at u32[6], c and
    c's row stride (u64) at bytes 32, 40; entry G holds unit_start = ``total_units`` (the search's end)."""
    G = len(words)
    t = np.zeros((G + 1, TABLE_ENTRY_BYTES // 4), dtype=np.uint32)
    if G:  # whole columns at once: the cluster plan's dealt schedule packs ~150 entries per call whose c moved
        t[:G, :6] = np.asarray(words, dtype=np.uint32).reshape(G, 6)
        t[:G, 6] = np.asarray(alphas, dtype=np.float32).view(np.uint32)
        t[:G, 8:12] = np.array([c_ptrs, c_rows], dtype=np.uint64).T.copy().view(np.uint32)
    t[G, 0] = total_units
    return t


def build_table(geo: GroupedGeometry, c_ptrs, c_rows, alphas) -> np.ndarray:
    """The device problem table, (G + 1) entries of 64 bytes (layout in the PTX header)."""
    words = [(g.unit_start, g.tile_start, g.k_stages, g.m, g.n, g.n_tiles) for g in geo.groups]
    return pack_table(words, geo.units, c_ptrs, c_rows, alphas)


def find_group(table: np.ndarray, u: int, grp: int) -> int:
    """The kernel's search: advance ``grp`` while ``u >= table[grp + 1].unit_start``."""
    while u >= int(table[grp + 1, 0]):
        grp += 1
    return grp


# ----------------------------------------------------------------------------- plan

@lru_cache(maxsize=None)
def _kernel(ordinal: int, normal_operands: bool, wgmma_depth: int = 1):
    from ..module import load

    return load(ptx_dir() / _KERNEL_FILE, device=driver.Device(ordinal), target="sm_90a",
                constants=kernel_constants(normal_operands, wgmma_depth)).kernel(_ENTRY)


def _check_group_layout(i, m, n, k, lay):
    from .gemm import GemmLayout

    if not isinstance(lay, GemmLayout):
        raise TypeError(f"layouts[{i}] must be a GemmLayout, got {type(lay).__name__}")
    for name in ("a_row", "b_row"):
        v = getattr(lay, name)
        if v < k // 2 or v % 16:
            raise ValueError(f"group {i}: {name} = {v} must be a multiple of 16 bytes and at least k/2 = {k // 2}")
    for name in ("sfa_row", "sfb_row"):
        if getattr(lay, name) < k // 16:
            raise ValueError(f"group {i}: {name} must be at least k/16 = {k // 16} bytes")
    if lay.c_row < n:
        raise ValueError(f"group {i}: c_row must be at least n = {n} elements")


def alphas_fit(alphas) -> bool:
    """Whether every alpha survives the 2^28 operand scaling of the kernels that decode A once (within fp32)."""
    big = float(np.finfo(np.float32).max)
    return all(abs(float(a)) * 2.0**28 <= big for a in alphas)


class GroupedOperands:
    """What both grouped plans do with their groups: validate shapes, layouts and device at construction;
    per call, check the ``(a, b, sfa, sfb, c)`` pointers and alphas, keep one tensor map per group and
    operand (re-pointed when a buffer moves, see :meth:`map_spec`), pad scale rows TMA cannot read in
    place, and copy the problem table and maps to the device when they changed."""

    def _setup_groups(self, shapes, layouts, device, *, geometry_check):
        from .gemm import GemmLayout

        shapes = [tuple(int(v) for v in s) if isinstance(s, (tuple, list)) else s for s in shapes]
        geometry_check(shapes)  # validate the shapes first
        self.shapes = shapes
        if layouts is None:
            layouts = [GemmLayout.contiguous(m, n, k, 1) for m, n, k in shapes]
        layouts = list(layouts)
        if len(layouts) != len(shapes):
            raise ValueError(f"layouts has {len(layouts)} entries for {len(shapes)} groups")
        for i, ((m, n, k), lay) in enumerate(zip(shapes, layouts)):
            _check_group_layout(i, m, n, k, lay)
        self.layouts = layouts
        dev = device if device is not None else driver.device()
        if isinstance(dev, int) and not isinstance(dev, bool):
            dev = driver.device(dev)
        self.device = dev
        if tuple(dev.compute_capability) != (9, 0):
            major, minor = dev.compute_capability
            raise NotImplementedError(f"the one-launch grouped GEMM kernels are sm_90a (Hopper) only; "
                                      f"{dev.properties.name} is {major}.{minor} (grouped_gemm falls back to one "
                                      "gemm per group there)")
        dev.activate()
        G = len(shapes)
        self._maps: list = [dict() for _ in range(G)]
        self._pads: dict = {}
        self._uploaded_key = None
        self.uploads = 0  # how many times the table + maps went to the device (tests, docs)
        self._repeat = None  # _repeat_key of the last call, when a repeat of it may go straight to the launches
        return dev.properties

    @staticmethod
    def _repeat_key(groups, alphas, stream):
        """What decides whether a call repeats the plan's last one: the stream, the alphas as given and every group's
        operand addresses, group by group (None when an operand has no ``ptr`` or a group is not a sequence: that call
        takes the checked path and raises there).  A plan whose last call passed every check, uploaded its table and
        maps and made no per-call scale copy may relaunch as it is when the next call's key is equal."""
        try:
            return (stream, None if alphas is None else tuple(float(a) for a in alphas),
                    tuple(tuple(x.ptr for x in grp) for grp in groups))
        except (AttributeError, TypeError, ValueError):
            return None

    @property
    def flops(self) -> int:
        return sum(2 * m * n * k for m, n, k in self.shapes)

    def _alphas(self, alphas) -> list:
        G = len(self.shapes)
        if alphas is None:
            return [1.0] * G
        alphas = [float(x) for x in alphas]
        if len(alphas) != G or not all(math.isfinite(x) for x in alphas):
            raise ValueError(f"alphas must be {G} finite floats")
        return alphas

    def _group_pointers(self, groups) -> list:
        """``[(a, b, sfa, sfb, c)]`` -> their device pointers, checked (count, non-null, a/b/c alignment)."""
        groups = list(groups)
        G = len(self.shapes)
        if len(groups) != G:
            raise ValueError(f"groups has {len(groups)} entries; the plan was made for {G}")
        ptrs = []
        for i, grp in enumerate(groups):
            if not isinstance(grp, (tuple, list)) or len(grp) != 5:
                raise ValueError(f"groups[{i}] must be (a, b, sfa, sfb, c)")
            p = []
            for name, arr in zip(("a", "b", "sfa", "sfb", "c"), grp):
                ptr = getattr(arr, "ptr", None)
                if isinstance(ptr, bool) or not isinstance(ptr, (int, np.integer)) or ptr == 0:
                    raise TypeError(f"groups[{i}].{name} must be a device array (non-null int .ptr)")
                p.append(int(ptr))
            for name, ptr, al in zip(("a", "b", "c"), (p[0], p[1], p[4]), (16, 16, 2)):
                if ptr % al:
                    raise ValueError(f"groups[{i}].{name} must be {al}-byte aligned (address 0x{ptr:x})")
            ptrs.append(tuple(p))
        return ptrs

    def map_spec(self, i: int, which: str, padded: bool = False):
        """(shape, strides, box, swizzle) of group ``i``'s map of operand ``which``."""
        raise NotImplementedError

    def _map(self, i: int, which: str, ptr: int, padded: bool, dtype: str = "uint8"):
        from ..tma import TensorMap

        key = (which, padded)
        tm = self._maps[i].get(key)
        if tm is None:
            shape, strides, box, swizzle = self.map_spec(i, which, padded)
            tm = self._maps[i][key] = TensorMap(ptr, dtype, shape, box, strides=strides, swizzle=swizzle)
        elif tm.base != ptr:
            tm.repoint(ptr)
        return tm

    def _scale_padded(self, i: int, which: str, ptr: int) -> bool:
        """A scale tensor TMA cannot read in place (row pitch or base not a multiple of 16 bytes)."""
        return getattr(self.layouts[i], which + "_row") % 16 != 0 or ptr % 16 != 0

    def _scale_map(self, i: int, which: str, ptr: int, stream_handle):
        """The map of group ``i``'s ``which`` scales, copying them to a padded buffer when needed."""
        return self._map(i, which, *self._scale_source(i, which, ptr, stream_handle))

    def _scale_source(self, i: int, which: str, ptr: int, stream_handle) -> tuple:
        """(address, padded) TMA reads group ``i``'s ``which`` scales from: ``ptr``, or a padded copy made now."""
        padded = self._scale_padded(i, which, ptr)
        return (self._padded_scales(i, which, ptr, stream_handle) if padded else ptr), padded

    def _padded_scales(self, i: int, which: str, src: int, stream_handle) -> int:
        from ..memory import DeviceAllocation

        m, n, k = self.shapes[i]
        rows = m if which == "sfa" else n
        pitch = -(-k // STAGE_K) * 16
        buf = self._pads.get((i, which))
        if buf is None:
            buf = self._pads[(i, which)] = DeviceAllocation(rows * pitch, self.device)
            driver.call("cuMemsetD8", buf.ptr, 0, rows * pitch)
        cp = driver.raw.CUDA_MEMCPY2D()
        cp.srcMemoryType = driver.raw.CUmemorytype.CU_MEMORYTYPE_DEVICE
        cp.srcDevice = src
        cp.srcPitch = getattr(self.layouts[i], which + "_row")
        cp.dstMemoryType = driver.raw.CUmemorytype.CU_MEMORYTYPE_DEVICE
        cp.dstDevice = buf.ptr
        cp.dstPitch = pitch
        cp.WidthInBytes = k // 16
        cp.Height = rows
        driver.call("cuMemcpy2DAsync", cp, stream_handle)
        return buf.ptr

    # ---- the plans that decode A once per call (the cluster and m-tile kernels)
    def _setup_decoded_a(self, workspace_bytes: int, counters: int, warm_regions: int = 0,
                         wide_decode: bool = False, a16_rows_multiple: int = 1) -> None:
        """The grouped A decode (``wide_decode``: its wide form, which reads no warm-up list), its A16 buffer and
        device table (room for ``warm_regions`` L2 warm-up records: the plan sets ``_l2_warm`` to its GEMM's tables
        once they exist), the stream-K workspace, zeroed counters, and one a16 map per group (A16 never moves, so
        the maps are built once).  ``a16_rows_multiple``: the buffer reaches at least that many rows' multiple past
        each group's start (the next groups' rows, then zeros), for a16 maps whose height is rounded up to it."""
        from ..memory import DeviceAllocation
        from .decode_a16 import GroupedDecodeA16, table_bytes

        dev, G = self.device, len(self.shapes)
        self._decode = GroupedDecodeA16([(m, k) for m, _, k in self.shapes], device=dev, wide=wide_decode)
        out = self._decode.out_bytes
        self._a16_rows_multiple = a16_rows_multiple
        reach = max(off + 2 * k * self.a16_map_rows(m)
                    for off, (m, k) in zip(self._decode.offsets, self._decode.shapes))
        self._a16 = DeviceAllocation(max(out, reach), dev)
        if reach > out:  # rows no decode writes: zeros, once
            driver.call("cuMemsetD8", self._a16.ptr + out, 0, reach - out)
        self._ws = DeviceAllocation(workspace_bytes, dev)
        self._counters = DeviceAllocation(4 * counters, dev)
        driver.call("cuMemsetD32", self._counters.ptr, 0, counters)
        self._decode_table = DeviceAllocation(table_bytes(G, warm_regions), dev)
        self._l2_warm = ()
        self._a16_maps = [self._map(i, "a16", self._a16.ptr + self._decode.offsets[i], False, dtype="float16")
                          for i in range(G)]

    def a16_map_rows(self, m: int) -> int:
        """Rows of a group's a16 map: its ``m`` rounded up to the plan's ``a16_rows_multiple`` (the A16 buffer
        reaches that far past every group's start)."""
        step = self._a16_rows_multiple
        return -(-m // step) * step

    @property
    def a16_bytes(self) -> int:
        """Bytes of the A16 buffer a plan that decodes A once per call owns (every group's A in fp16)."""
        return self._decode.out_bytes

    def _decoded_a_call(self, groups, alphas, stream):
        """One call's checked inputs for a plan that decodes A once: (alphas, pointers, stream handle, upload key,
        whether any group's sfb goes through padded rows: then its scales are copied again every call)."""
        from ..launch import _stream_handle

        alphas = self._alphas(alphas)
        if not alphas_fit(alphas):
            raise ValueError("alphas: |alpha| * 2^28 must fit in fp32 (the kernel's operand scaling)")
        ptrs = self._group_pointers(list(groups))
        handle = _stream_handle(stream, self.device)
        padded = any(self._scale_padded(i, "sfb", p[3]) for i, p in enumerate(ptrs))
        return alphas, ptrs, handle, (tuple(ptrs), tuple(alphas)), padded

    def _relaunch_if_repeat(self, groups, alphas, stream) -> tuple:
        """(this call's repeat key, whether it repeats the last call: then the decode and the GEMM were relaunched as
        they are).  Otherwise the last call's key is forgotten until this call has passed every check."""
        repeat = self._repeat_key(groups, alphas, stream)
        if repeat is not None and repeat == self._repeat:
            self._decode._launch.launch()
            self._launch.launch()
            return repeat, True
        self._repeat = None
        return repeat, False

    def _decode_table_for(self, ptrs) -> np.ndarray:
        """The grouped decode's table for these ``(a, b, sfa, sfb, c)`` pointers, listing the GEMM's tables
        (``_l2_warm``) for the decode to pull into L2 before the GEMM's first fetches."""
        return self._decode.table([p[0] for p in ptrs], [p[2] for p in ptrs], [lay.a_row for lay in self.layouts],
                                  [lay.sfa_row for lay in self.layouts], warm=self._l2_warm)

    def _launch_gemm(self, stream, prepare) -> None:
        """Launch the plan's GEMM on ``stream``: prepared by ``prepare()`` on the first call, re-streamed after."""
        if self._launch is None:
            self._launch = prepare()
        else:
            self._launch.set_stream(stream)
        self._launch.launch()

    def _upload(self, key, uploads, stream_handle) -> None:
        """Copy each (device allocation, host array) of ``uploads`` when ``key`` differs from the last upload's.
        The host arrays are kept alive until the next upload (pageable copies are staged at once)."""
        if key == self._uploaded_key:
            return
        self._inflight = [host for _, host in uploads]
        for dst, host in uploads:
            driver.call("cuMemcpyHtoDAsync", dst.ptr, host.ctypes.data, host.nbytes, stream_handle)
        self._uploaded_key = key
        self.uploads += 1


class GroupedGemmPlan(GroupedOperands):
    """A grouped GEMM of fixed shapes and layouts on one Hopper device.

    ``GroupedGemmPlan(shapes, layouts=None, *, device=None, stages=None, units_per_cta=None)``;
    ``plan(groups, alphas=None, stream=None)`` with ``groups`` a list of ``(a, b, sfa, sfb, c)``
    (objects with an int ``.ptr``; layouts as given, default contiguous) and ``alphas`` one float
    per group (default 1).  The workspace, counters, table and map buffer belong to the plan:
    calls of one plan must not overlap on different streams.

    ``normal_operands=False`` (the default, as in the wgmma GEMM) runs the variant whose decoded
    operands carry an extra 2^-14 (exact fp16 subnormals) with alpha * 2^28 in the table; a call whose
    alphas would overflow fp32 that way runs the normal-operand variant (:func:`operands_normal`,
    loaded on first need).  ``wgmma_depth=3`` keeps three wgmma groups in flight per consumer.
    """

    variant = "wgmma"

    def __init__(self, shapes, layouts=None, *, device=None, stages: int | None = None,
                 units_per_cta: int | None = None, normal_operands: bool = False, wgmma_depth: int = 1):
        if not isinstance(normal_operands, bool):
            raise TypeError(f"normal_operands must be a bool, got {type(normal_operands).__name__}")
        if isinstance(wgmma_depth, bool) or not isinstance(wgmma_depth, (int, np.integer)):
            raise TypeError(f"wgmma_depth must be an int, got {type(wgmma_depth).__name__}")
        kernel_constants(False, int(wgmma_depth))  # validates the depth
        self.wgmma_depth = int(wgmma_depth)
        self.normal_operands = normal_operands
        props = self._setup_groups(shapes, layouts, device, geometry_check=lambda s: grouped_geometry(
            s, 1, stages=stages, units_per_cta=units_per_cta))
        dev, shapes = self.device, self.shapes
        self.geometry = g = grouped_geometry(shapes, props.sm_count, stages=stages, units_per_cta=units_per_cta)
        self.shared_mem = shared_bytes(g.num_stages, self.wgmma_depth)
        if self.shared_mem > props.max_shared_per_block_optin:
            raise ValueError(f"stages={g.num_stages} (wgmma_depth={self.wgmma_depth}) needs {self.shared_mem} "
                             f"bytes of shared memory; the device allows {props.max_shared_per_block_optin}")
        self._launches: dict = {}  # normal_operands -> PreparedLaunch of that variant
        self.kernel = self._variant(normal_operands)
        from ..memory import DeviceAllocation

        G = len(shapes)
        self._ws = DeviceAllocation(g.workspace_bytes, dev)
        self._counters = DeviceAllocation(4 * g.tiles, dev)
        driver.call("cuMemsetD32", self._counters.ptr, 0, g.tiles)
        self._table = DeviceAllocation((G + 1) * TABLE_ENTRY_BYTES, dev)
        self._tmap_buf = DeviceAllocation(G * TMAPS_PER_GROUP_BYTES, dev)
        if self._tmap_buf.ptr % 64 or self._table.ptr % 16:
            raise RuntimeError("device allocation not aligned for tensor maps")  # cuMemAlloc gives 256
        self._host_maps = np.zeros(G * TMAPS_PER_GROUP_BYTES, dtype=np.uint8)

    def _variant(self, normal: bool):
        kernel = _kernel(self.device.ordinal, bool(normal), self.wgmma_depth)
        kernel.set_max_dynamic_shared(self.shared_mem)
        return kernel

    def map_spec(self, i: int, which: str, padded: bool = False):
        m, n, k = self.shapes[i]
        lay = self.layouts[i]
        rows = m if which in ("a", "sfa") else n
        if which in ("a", "b"):
            return (1, rows, k // 2), (rows * getattr(lay, which + "_row"), getattr(lay, which + "_row")), \
                (1, TILE, STAGE_K // 2), "128B"
        pitch = -(-k // STAGE_K) * 16 if padded else getattr(lay, which + "_row")
        inner = pitch if padded else k // 16
        return (1, rows, inner), (rows * pitch, pitch), (1, TILE, STAGE_K // 16), "none"

    def run(self, groups, alphas=None, stream=None):
        """Launch every group at once; returns the list of c."""
        from ..launch import _stream_handle

        groups = list(groups)
        repeat = self._repeat_key(groups, alphas, stream)
        if repeat is not None and repeat == self._repeat:  # the last call's buffers, alphas and stream
            self._launches[self._repeat_normal].launch()
            return [grp[4] for grp in groups]
        self._repeat = None
        alphas = self._alphas(alphas)
        ptrs = self._group_pointers(groups)
        handle = _stream_handle(stream, self.device)
        normal = operands_normal(alphas, self.normal_operands)
        scale = 1.0 if normal else 2.0**28
        key = (tuple(ptrs), tuple(alphas))
        padded_any = any(self._scale_padded(i, w, p[j]) for i, p in enumerate(ptrs) for j, w in ((2, "sfa"), (3, "sfb")))
        if key != self._uploaded_key or padded_any:  # padded scales are copied again every call
            for i, p in enumerate(ptrs):
                maps = [self._map(i, "a", p[0], False), self._map(i, "b", p[1], False),
                        self._scale_map(i, "sfa", p[2], handle), self._scale_map(i, "sfb", p[3], handle)]
                off = i * TMAPS_PER_GROUP_BYTES
                self._host_maps[off:off + TMAPS_PER_GROUP_BYTES] = np.frombuffer(
                    b"".join(tm.bytes for tm in maps), dtype=np.uint8)
            if key != self._uploaded_key:
                table = build_table(self.geometry, [p[4] for p in ptrs], [lay.c_row for lay in self.layouts],
                                    [a * scale for a in alphas])
                self._upload(key, [(self._table, table), (self._tmap_buf, self._host_maps.copy())], handle)
        g = self.geometry
        launch = self._launches.get(normal)
        if launch is None:
            kernel = self.kernel if normal == self.normal_operands else self._variant(normal)
            launch = self._launches[normal] = kernel.prepare(
                Pointer(self._tmap_buf.ptr), Pointer(self._table.ptr), Pointer(self._ws.ptr), Pointer(self._counters.ptr),
                g.units, g.units_per_cta, g.num_stages, grid=g.grid, block=_THREADS, shared_mem=self.shared_mem,
                stream=stream)
        else:
            launch.set_stream(stream)
        launch.launch()
        if not padded_any:  # no per-call scale copy: a repeat of this call only needs the launch
            self._repeat, self._repeat_normal = repeat, normal
        return [grp[4] for grp in groups]

    __call__ = run

    def __repr__(self) -> str:
        g = self.geometry
        return (f"<GroupedGemmPlan groups={len(self.shapes)} units={g.units} grid={g.grid} "
                f"units/cta={g.units_per_cta} split_tiles={g.split_tiles}"
                + (f" wgmma_depth={self.wgmma_depth}" if self.wgmma_depth != 1 else "")
                + ("" if self.normal_operands else " subnormal_operands") + ">")


# ----------------------------------------------------------------------------- public API

#: plan variants: "wgmma" (the first grouped kernel), "wgmma_cluster" (A decoded once, 256-row tiles),
#: "wgmma_mtiles" (groups sharing n and k as m tiles of at most 128 rows on the cluster GEMM kernel)
VARIANTS = ("wgmma", "wgmma_cluster", "wgmma_mtiles")


@lru_cache(maxsize=32)
def _cached_plan(shapes, layouts, ordinal, variant):
    if variant == "wgmma_cluster":
        from .grouped_gemm_cluster import GroupedGemmClusterPlan

        return GroupedGemmClusterPlan(list(shapes), list(layouts), device=driver.Device(ordinal))
    if variant == "wgmma_mtiles":
        from .grouped_gemm_mtiles import GroupedGemmMTilePlan

        return GroupedGemmMTilePlan(list(shapes), list(layouts), device=driver.Device(ordinal))
    return GroupedGemmPlan(list(shapes), list(layouts), device=driver.Device(ordinal))


#: the cluster kernel runs problems of at least this many of its units (k256 stages of 256 x 256 tiles).
#: Measured on the H200 (docs/grouped_gemm.md): competition case 2 (1792 units) runs 94.5 us against the
#: first kernel's 123.7, case 3 (576 units) 50.9 against 49.2; below ~16 units per cluster the stream-K
#: splits, the decode prepass and the epilogue cost more than the 256-row tiles save.
CLUSTER_MIN_UNITS = 1024


def variant_for(shapes, alphas=None, sm_count: int | None = None) -> str:
    """The kernel a call runs on a GPU of ``sm_count`` SMs (default: the current device's): the m-tile kernel for
    groups that share n and k where it takes whole tiles or long ones (:func:`nvfp4rt.ops.grouped_gemm_mtiles
    .preferred`), else the cluster kernel for problems of at least CLUSTER_MIN_UNITS units; either only when the
    alphas fit (|alpha| * 2^28 within fp32).  Otherwise the first grouped kernel (which has a normal-operand
    variant for large alphas)."""
    from .grouped_gemm_cluster import cluster_units
    from . import grouped_gemm_mtiles as mtiles

    if sm_count is None:
        sm_count = driver.device().properties.sm_count
    if mtiles.preferred(shapes, sm_count) and (alphas is None or alphas_fit(alphas)):
        return "wgmma_mtiles"
    units = cluster_units(shapes)
    if units is None or units < CLUSTER_MIN_UNITS or (alphas is not None and not alphas_fit(alphas)):
        return "wgmma"
    return "wgmma_cluster"


def plan_grouped_gemm(shapes, *, layouts=None, device=None, variant: str = "auto"):
    """A cached grouped plan for ``shapes`` (list of (m, n, k)); layouts default contiguous.

    ``variant``: "auto" (:func:`variant_for` without alphas), "wgmma", "wgmma_cluster" or "wgmma_mtiles" (groups
    sharing n and k only).  Every plan takes the same call."""
    from .gemm import GemmLayout

    shapes = tuple(tuple(int(v) for v in s) if isinstance(s, (tuple, list)) else s for s in shapes)
    grouped_geometry(shapes, 1)
    if variant != "auto" and variant not in VARIANTS:
        raise ValueError(f"variant must be 'auto' or one of {VARIANTS}, got {variant!r}")
    dev = device if device is not None else driver.device()
    if variant == "auto":
        variant = variant_for(shapes, sm_count=dev.properties.sm_count)
    if layouts is None:
        layouts = tuple(GemmLayout.contiguous(m, n, k, 1) for m, n, k in shapes)
    return _cached_plan(shapes, tuple(layouts), dev.ordinal, variant)


def _raw_groups(groups):
    """Validate every (a, b, sfa, sfb, c) and return [(m, n, k, GemmLayout)]; names the group."""
    from .gemm import raw_problem

    groups = list(groups)
    if not groups:
        raise ValueError("groups must be a non-empty list of (a, b, sfa, sfb, c)")
    out = []
    for i, grp in enumerate(groups):
        if not isinstance(grp, (tuple, list)) or len(grp) != 5:
            raise ValueError(f"groups[{i}] must be (a, b, sfa, sfb, c), got {type(grp).__name__}")
        try:
            m, n, k, l, lay = raw_problem(*grp)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"groups[{i}]: {exc}") from None
        if l != 1:
            raise ValueError(f"groups[{i}]: each group is one GEMM (l = 1), got l = {l}")
        out.append((m, n, k, lay))
    return out


def grouped_gemm_raw(groups, *, alphas=None, stream=None):
    """Competition form: ``groups`` = list of ``(a, b, sfa, sfb, c)`` (l = 1 each); c written in place.

    One launch on Hopper; elsewhere one :func:`nvfp4rt.gemm_raw` per group.  Returns the list of c.
    """
    from .gemv import device_operands

    dev = driver.device()
    groups = list(groups)
    if not groups:
        raise ValueError("groups must be a non-empty list of (a, b, sfa, sfb, c)")
    arrays, metas = [], []
    for i, grp in enumerate(groups):
        if not isinstance(grp, (tuple, list)) or len(grp) != 5:
            raise ValueError(f"groups[{i}] must be (a, b, sfa, sfb, c), got {type(grp).__name__}")
        arrs, meta = device_operands(_group_names(i), tuple(grp), dev)
        arrays.append(arrs)
        metas.append(meta)
    if alphas is not None:
        alphas = list(alphas)
        if len(alphas) != len(groups):
            raise ValueError(f"alphas must have one value per group ({len(groups)})")
    fit = alphas is None or alphas_fit(alphas)
    plan = _raw_plan(tuple(metas), dev.ordinal, fit)
    if plan is None:  # not Hopper: one GEMM per group
        from .gemm import gemm_raw

        al = alphas if alphas is not None else [1.0] * len(groups)
        return [gemm_raw(*grp, stream=stream, alpha=float(a)) for grp, a in zip(arrays, al)]
    return plan(arrays, alphas=alphas, stream=stream)


_RAW_NAMES = ("a", "b", "sfa", "sfb", "c")


@lru_cache(maxsize=1024)
def _group_names(i: int) -> tuple:
    """The operand names of group i in messages (``groups[3].sfb``), made once per index."""
    return tuple(f"groups[{i}].{nm}" for nm in _RAW_NAMES)


#: alphas that do not survive the 2^28 operand scaling, for :func:`variant_for` where only that fact is known
_UNFIT_ALPHAS = (float(np.finfo(np.float32).max),)


@lru_cache(maxsize=256)
def _raw_plan(metas: tuple, ordinal: int, alphas_fit_: bool):
    """The plan of a raw call (None off Hopper), by the groups' operand metadata (:func:`~nvfp4rt.ops.gemv
    .device_operands`) and whether the alphas fit: the checks and the kernel choice run once per kind of groups
    (exceptions are not cached: bad calls are re-checked)."""
    from .gemv import check_devices

    for i, meta in enumerate(metas):
        check_devices(_group_names(i), meta, ordinal)
    info = _raw_groups(metas)
    dev = driver.Device(ordinal)
    if tuple(dev.compute_capability) != (9, 0):
        return None
    shapes = [(m, n, k) for m, n, k, _ in info]
    return plan_grouped_gemm(shapes, layouts=[lay for *_, lay in info], device=dev,
                             variant=variant_for(shapes, None if alphas_fit_ else _UNFIT_ALPHAS,
                                                 dev.properties.sm_count))


def grouped_gemm(problems, *, stream=None):
    """``[A_g @ B_g^T for each group]`` in fp16 on NVFP4Tensor problems ``(a, b)`` or ``(a, b, c)``.

    a ``[m_g, k_g]``, b ``[n_g, k_g]`` (2-D, linear scales; host tensors are copied over); c an fp16
    ``[m_g, n_g]`` device array with n contiguous (allocated when missing).  Returns the list of c.
    """
    from ..array import empty
    from ..nvfp4 import NVFP4Tensor
    from .gemv import _CView, _strides_bytes

    problems = list(problems)
    if not problems:
        raise ValueError("problems must be a non-empty list of (a, b) or (a, b, c)")
    dev = None
    raw, outs, alphas = [], [], []
    for i, p in enumerate(problems):
        if not isinstance(p, (tuple, list)) or len(p) not in (2, 3):
            raise ValueError(f"problems[{i}] must be (a, b) or (a, b, c)")
        a, b = p[0], p[1]
        for name, t in (("a", a), ("b", b)):
            if not isinstance(t, NVFP4Tensor):
                raise TypeError(f"problems[{i}].{name} must be an nvfp4rt NVFP4Tensor; use grouped_gemm_raw "
                                "for raw tensors")
            if t.scale_layout != "linear":
                raise ValueError(f"problems[{i}].{name} has {t.scale_layout!r} scales; the linear layout is needed")
            if len(t.shape) != 2:
                raise ValueError(f"problems[{i}].{name} must be 2-D [rows, k], got shape {t.shape}")
        if a.k != b.k:
            raise ValueError(f"problems[{i}]: a has k={a.k} but b has k={b.k}")
        if a.k % K_MULTIPLE:
            raise ValueError(f"problems[{i}]: k={a.k} must be a multiple of {K_MULTIPLE}")
        if dev is None:
            dev = driver.device()
        if isinstance(a.data, np.ndarray):
            a = a.to_device(dev)
        if isinstance(b.data, np.ndarray):
            b = b.to_device(dev)
        m, n, hk = int(a.data.shape[0]), int(b.data.shape[0]), a.k // 2
        c = p[2] if len(p) == 3 else empty((m, n), np.float16, device=dev)
        if tuple(c.shape) != (m, n):
            raise ValueError(f"problems[{i}].c must have shape ({m}, {n}), got {tuple(c.shape)}")
        cst = _strides_bytes(c)
        raw.append((_CView(a.data, (m, hk, 1), (hk, 1, m * hk)), _CView(b.data, (n, hk, 1), (hk, 1, n * hk)),
                    _CView(a.scales, (m, hk // 8, 1), (hk // 8, 1, m * hk // 8)),
                    _CView(b.scales, (n, hk // 8, 1), (hk // 8, 1, n * hk // 8)),
                    _CView(c, (m, n, 1), (cst[0], cst[1], cst[0] * m))))
        outs.append(c)
        alphas.append(float(a.tensor_scale) * float(b.tensor_scale))
    grouped_gemm_raw(raw, alphas=alphas, stream=stream)
    return outs
