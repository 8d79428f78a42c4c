"""Grouped NVFP4 GEMM on the cluster GEMM kernel itself, for groups that share n and k.

Each group's rows of A are cut into m tiles of at most 128 rows (ceil(m / 128) tiles, as even as can be) and the
tiles of every group are stacked, so the groups together are one GEMM of ``128 * tiles`` "virtual" rows: the
cluster GEMM's unit loop, reduction and epilogue run on them (``ptx/gemm_nvfp4_wgmma_cluster.ptx`` built with
GROUPED = 1, its header's "GROUPS BY M TILE" and "ROW CLASSES").  What the kernel reads per m tile instead of per
call is an entry of the m-tile table: the tile's b, sfb and a16 tensor maps, where the tile's output rows go, how
many of them are the group's, the group's alpha, the tile's row class and, where c allows one, a tensor map of the
tile's rows of c, through which each consumer warpgroup stores its 64 output columns by TMA (session 39).

Row classes (session 35): a tile of R rows runs m64nRk16 wgmmas on an R-row A16 box, which costs about
0.58 + 0.42 R/128 of a 128-row unit.  :func:`choose_row_classes` picks at most MAX_ROW_CLASSES classes per build
(one unit loop each), and the stream-K runs are cut on those costs (:func:`unit_starts`), so the clusters that run
the small tiles take more units.

Two launches per call, on one stream, as for the other cluster GEMMs:

1. ``ptx/nvfp4_decode_a16.ptx`` with GROUPED=1 (:class:`nvfp4rt.ops.decode_a16.GroupedDecodeA16`) decodes every
   group's A into one A16 buffer (groups back to back; a tile's rows past its group are zero-filled by TMA);
2. the GEMM, with programmatic dependent launch.

Why a third grouped kernel: on the competition's cases the cluster GEMM's loop runs a k256 unit of a 128 x 128
tile at the tensor peak (1.46 us on the H100), while the grouped cluster kernel's loops, compiled beside its
256-token loop, take 1.8-1.9 us (docs/grouped_gemm.md).  Padding groups to 128 rows costs less than that.

:class:`GroupedGemmMTilePlan` has the call signature of the other grouped plans.  Pure helpers (no GPU):
:func:`mtiles`, :func:`schedule`, :func:`build_mtile_table`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from ..launch import Pointer
from . import gemm_wgmma_cluster as CL
from ._args import positive_int
from .grouped_gemm import WHOLE_TILE_SLACK, GroupedOperands, K_MULTIPLE, STAGE_K, alphas_fit

__all__ = ["GroupedGemmMTilePlan", "MTile", "mtiles", "schedule", "build_mtile_table", "supports", "preferred",
           "choose_row_classes", "tile_row_classes", "unit_starts", "tile_contributors", "schedule_words",
           "MTILE_ENTRY_BYTES", "C_MAP_OFFSET", "c_map_spec", "param_map_slots", "param_map_bytes", "PARAM_MAPS_AUTO",
           "STREAMK_MIN_STAGES", "WHOLE_TILE_RINGS", "MAX_ROW_CLASSES"]

#: bytes per m-tile table entry (the PTX header's "GROUPS BY M TILE" has the layout)
MTILE_ENTRY_BYTES = 576
#: where an entry's c map starts (64-byte aligned, as tensor maps must be)
C_MAP_OFFSET = 448
_ROWS = CL.TILE  # A rows per m tile
_ALPHA_SCALE = CL._ALPHA_SCALE
#: where the schedule is stream-K, the m-tile kernel is chosen only for tiles of at least this many k256 stages: each
#: 128 x 128 tile ends with its own epilogue, which the grouped cluster kernel's 256-row tiles pay half as often.
#: Measured on the H100 (docs/grouped_gemm.md): competition case 1 (28 stages) 146.6 against 151.7 us, case 2
#: (8 stages) 97.9 against 91.1.
STREAMK_MIN_STAGES = 16
#: (B stages, a16 buffers) of a whole-tile schedule when the caller gives neither: two B stages and eight a16 buffers
#: measured 35.3-35.4 us on competition case 3 against 35.8 for the GEMM's default (4, 6) and 38.3-39.3 with four
#: a16 buffers (H100, docs/device-logs/2026-11-22-session15/11-case3-rings.log)
WHOLE_TILE_RINGS = (2, 8)
#: the most row classes (unit loops) one build holds: with four, ptxas spills 8-12 bytes, and with five it serialises
#: every wgmma (C7512), on the H100's 168 registers per thread (offline ptxas 13.0, session 35)
MAX_ROW_CLASSES = 3
#: a k256 unit of a tile of row class R costs about UNIT_FIXED + (1 - UNIT_FIXED) * R / 128 of a 128-row one: the B
#: decode and the loop's own work stay, the tensor work and the A16 traffic scale with R.  Fitted on the H100
#: (docs/device-logs/2026-11-27-session35/01: the m-tile plan with every wgmma cut to 112, 96 and 64 rows and the
#: A16 boxes with them ran cases 1 and 3 in 0.95, 0.90 and 0.79 of the time)
UNIT_FIXED = 0.58
#: a tile's epilogue (the fp16 store, or the reduction), in units of a 128-row k256 unit, charged on its last unit
EPILOGUE_COST = 0.3
#: what a run end inside a tile costs (a partial written and read back), in the same units.  On the H100
#: (docs/device-logs/2026-11-27-session35/10, 14) case 1 ran 118.3-120.3 us whole with 2, against 121.3-122.2 with 1
#: and 120.0-120.9 with 3, 4 or 6; case 2 on this plan preferred 2-3 and still trails the grouped cluster kernel
SPLIT_COST = 2.0
#: with param_maps=None, a plan of at most this many m tiles takes its maps as a kernel parameter: all that fit.  On
#: the H100 (docs/device-logs/2026-11-27-session39/41) the parameter ran all four competition cases faster than the
#: table's maps with their proxy fences: 18.7 against 19.7 us (case 4), 30.5 / 31.5, 119.6 / 120.1, 76.0 / 76.9
PARAM_MAPS_AUTO = CL.MAX_PARAM_MAPS


@dataclass(frozen=True)
class MTile:
    """One m tile of at most 128 rows: rows ``[row0, row0 + rows)`` of group ``group``."""

    group: int
    row0: int
    rows: int


def _shared_nk(shapes) -> tuple[int, int]:
    """Validate ``shapes`` [(m, n, k)] and return their common (n, k)."""
    shapes = list(shapes)
    if not shapes:
        raise ValueError("shapes must hold at least one (m, n, k)")
    for i, s in enumerate(shapes):
        if not isinstance(s, (tuple, list)) or len(s) != 3:
            raise ValueError(f"group {i}: expected (m, n, k), got {s!r}")
        for nm, v in zip("mnk", s):
            positive_int(f"group {i}: {nm}", v)
        if s[2] % K_MULTIPLE:
            raise ValueError(f"group {i}: k must be a multiple of {K_MULTIPLE}, got {s[2]}")
    n, k = int(shapes[0][1]), int(shapes[0][2])
    for i, (_, gn, gk) in enumerate(shapes):
        if (gn, gk) != (n, k):
            raise ValueError(f"group {i}: (n, k) = ({gn}, {gk}) differs from group 0's ({n}, {k}); the m-tile "
                             "kernel needs every group to share n and k")
    return n, k


def mtiles(shapes) -> tuple[MTile, ...]:
    """The m tiles of these groups, group by group (pure; raises unless every group shares n and k): group g's m rows
    cut into ceil(m / 128) tiles as even as can be (the first m % tiles of them one row longer), so that each tile's
    row class, and with it its unit's cost, is as small as the tile count allows (176 rows: 88 + 88, not 128 + 48)."""
    _shared_nk(shapes)
    out = []
    for g, (m, _, _) in enumerate(shapes):
        m = int(m)
        count = -(-m // _ROWS)
        base, extra = divmod(m, count)
        row0 = 0
        for j in range(count):
            rows = base + (j < extra)
            out.append(MTile(g, row0, rows))
            row0 += rows
    return tuple(out)


def unit_cost(row_class: int) -> float:
    """The model's cost of one k256 unit of a tile of this row class, in 128-row units (UNIT_FIXED)."""
    return UNIT_FIXED + (1.0 - UNIT_FIXED) * row_class / _ROWS


def choose_row_classes(tiles, cluster: int, one_wave: bool = False) -> tuple[int, ...]:
    """The row classes (largest first) one build gets for these m tiles (pure): each tile needs its rows rounded up
    to :func:`nvfp4rt.ops.gemm_wgmma_cluster.row_class`; where more than MAX_ROW_CLASSES differ, the subset that
    keeps the largest and costs the tiles least in :func:`unit_cost` (each tile taking the smallest class that
    holds it; ties: the larger classes).

    ``one_wave``: every cluster runs one whole tile and all of them run at once.  Then the largest class alone sets
    the call's pace (a smaller one only lets its CTAs finish early), so the build gets that class alone: a second
    unit loop in the build slows the largest one's (competition case 3 on the H100, kernel alone: 29.0-29.1 us with
    (112,) against 29.2-29.5 with (112, 96); docs/device-logs/2026-11-27-session36/01-probe1.log)."""
    need = sorted({CL.row_class(t.rows, cluster) for t in tiles}, reverse=True)
    if one_wave:
        return (need[0],)
    if len(need) <= MAX_ROW_CLASSES:
        return tuple(need)
    from itertools import combinations

    def cost(classes):
        return sum(unit_cost(min(c for c in classes if c >= CL.row_class(t.rows, cluster))) for t in tiles)

    return min(((need[0],) + rest for rest in combinations(need[1:], MAX_ROW_CLASSES - 1)), key=cost)


def tile_row_classes(tiles, classes, cluster: int) -> tuple[int, ...]:
    """Each tile's row class: the smallest of ``classes`` that holds its rows (pure)."""
    out = []
    for t in tiles:
        need = CL.row_class(t.rows, cluster)
        fits = [c for c in classes if c >= need]
        if not fits:
            raise ValueError(f"no row class of {tuple(classes)} holds a tile of {t.rows} rows")
        out.append(min(fits))
    return tuple(out)


def unit_starts(tile_classes, n_tiles: int, k_stages: int, runs: int, units_per_cluster: int | None = None,
                split_cost: float = SPLIT_COST) -> list[int]:
    """Where each cluster's run of units starts (pure; ``starts[q]``..``starts[q + 1]``, the last entry the unit
    count).  Units are k256 stages of cluster tiles, tile-major (m tile, then n tile), k fastest.
    ``units_per_cluster``: runs of that many units (whole tiles when it equals ``k_stages``); otherwise at most
    ``runs`` runs cut by :func:`nvfp4rt.ops.grouped_gemm_cluster.cut_runs` on the unit costs of each tile's row
    class (:func:`unit_cost`, EPILOGUE_COST on a tile's last unit), so that the costliest run is as cheap as the
    model allows, no chain longer than MAX_CHAIN_UNITS."""
    units = len(tile_classes) * n_tiles * k_stages
    if units_per_cluster is not None:
        upc = positive_int("units_per_cluster", units_per_cluster)
        return list(range(0, units, upc)) + [units]
    from .grouped_gemm_cluster import cut_runs

    per_tile = np.repeat([unit_cost(c) for c in tile_classes], n_tiles)
    costs = np.repeat(per_tile, k_stages)
    costs[k_stages - 1::k_stages] += EPILOGUE_COST * per_tile
    tile_first = np.zeros(units, dtype=bool)
    tile_first[::k_stages] = True
    return [int(v) for v in cut_runs(costs, tile_first, runs, split_cost)]


def tile_contributors(starts, tiles: int, k_stages: int) -> np.ndarray:
    """``[tiles, 2]`` u32: the first and last run that touches each cluster tile (pure)."""
    st = np.asarray(starts, dtype=np.int64)
    first = np.arange(tiles, dtype=np.int64) * k_stages
    lo = np.searchsorted(st, first, side="right") - 1
    hi = np.searchsorted(st, first + k_stages - 1, side="right") - 1
    return np.stack([lo, hi], axis=1).astype(np.uint32)


def schedule_words(starts, tiles: int, k_stages: int) -> np.ndarray:
    """The u32 words after the m-tile entries (pure): each cluster tile's (first, last) run, then the runs'
    starts and the unit count (PTX header, "GROUPS BY M TILE")."""
    return np.concatenate([tile_contributors(starts, tiles, k_stages).ravel(),
                           np.asarray(starts, dtype=np.uint32)]).astype(np.uint32)


def schedule(tiles: int, n: int, k: int, max_ctas: int, max_pairs: int) -> tuple[int, int | None]:
    """``(cluster, units_per_cluster)`` for ``tiles`` m tiles of ``n`` x ``k`` (pure).

    Whole tiles, one per CTA (cluster 1), where they fit the ``max_ctas`` the GPU holds and are at most
    WHOLE_TILE_SLACK units longer than an even share; otherwise stream-K in one wave of ``max_pairs`` clusters of 2
    (``units_per_cluster`` an even share, capped at MAX_CHAIN_UNITS only where a tile has more k stages than that;
    the plan cuts its stream-K runs on the row classes' costs instead, :func:`unit_starts`).
    Measured on the H100 (docs/grouped_gemm.md): competition case 3 (120 tiles of 16 units) 35.8 us in whole tiles
    against 41.7 in stream-K; case 1 (176 cluster tiles of 28) 141.8 us in one stream-K wave against 181.8 in
    three waves of 32-unit runs."""
    k_stages = -(-k // STAGE_K)
    cta_tiles = tiles * -(-n // _ROWS)
    even = -(-cta_tiles * k_stages // max_ctas)
    if cta_tiles <= max_ctas and k_stages <= CL.MAX_CHAIN_UNITS and k_stages - even <= WHOLE_TILE_SLACK:
        return 1, k_stages
    units = tiles * -(-n // (2 * _ROWS)) * k_stages
    upc = -(-units // max_pairs)
    if k_stages > CL.MAX_CHAIN_UNITS:
        upc = min(upc, CL.MAX_CHAIN_UNITS)
    return 2, upc


def c_map_spec(tile: MTile, row_class: int, n: int, c_ptr: int, c_row: int):
    """The TMA-store map of one m tile's rows of c (pure), as ``(base, shape, box, strides)`` for
    :class:`nvfp4rt.tma.TensorMap` (fp16, 128B swizzle), or None where TMA cannot write c: its base at the tile's
    first row or its row pitch is not a multiple of 16 bytes.  The map covers the tile's rows only (rows x n), so a
    box of ``row_class`` rows x 64 columns never writes the next tile's rows, and columns past n are clipped."""
    from .grouped_gemm_cluster import c_tma_ok

    base = c_ptr + 2 * tile.row0 * c_row
    if not c_tma_ok(base, c_row):
        return None
    return base, (tile.rows, n), (row_class, 64), (2 * c_row,)


def build_mtile_table(tiles, maps, c_ptrs, c_rows, alphas, classes=None, c_maps=None) -> np.ndarray:
    """The m-tile entries (pure): entry t of MTILE_ENTRY_BYTES holds tile t's b, sfb and a16 map bytes (``maps[t]``:
    three 128-byte strings; the a16 map's box is the tile's row class / cluster rows), c at the tile's first row
    (``c_ptrs[g]`` + 2 * row0 * c_rows[g], g = tiles[t].group), the group's c row stride (elements), the tile's
    rows, row0 (its first row in the group's a16 map), ``alphas[g]`` (as the kernel takes it: times 2^28), the
    tile's row class (``classes[t]``, default 128) and, where ``c_maps[t]`` is a 128-byte map (None: the consumers
    copy the tile out), a 1 at +416 and the map at C_MAP_OFFSET."""
    out = np.zeros((len(tiles), MTILE_ENTRY_BYTES), dtype=np.uint8)
    classes = [_ROWS] * len(tiles) if classes is None else list(classes)
    if len(classes) != len(tiles):
        raise ValueError(f"classes must hold one row class per tile ({len(tiles)}), got {len(classes)}")
    c_maps = [None] * len(tiles) if c_maps is None else list(c_maps)
    if len(c_maps) != len(tiles):
        raise ValueError(f"c_maps must hold one map (or None) per tile ({len(tiles)}), got {len(c_maps)}")
    for t, tile in enumerate(tiles):
        g = tile.group
        if not tile.rows <= classes[t] <= _ROWS:
            raise ValueError(f"tile {t}: row class {classes[t]} must hold its {tile.rows} rows and be at most {_ROWS}")
        blob = b"".join(maps[t])
        if len(blob) != 384:
            raise ValueError(f"tile {t}: expected three 128-byte tensor maps, got {len(blob)} bytes")
        out[t, :384] = np.frombuffer(blob, dtype=np.uint8)
        out[t, 384:400] = np.array([c_ptrs[g] + 2 * tile.row0 * c_rows[g], c_rows[g]], dtype=np.uint64).view(np.uint8)
        out[t, 400:408] = np.array([tile.rows, tile.row0], dtype=np.uint32).view(np.uint8)
        out[t, 408:412] = np.array([alphas[g]], dtype=np.float32).view(np.uint8)
        out[t, 412:416] = np.array([classes[t]], dtype=np.uint32).view(np.uint8)
        if c_maps[t] is not None:
            if len(c_maps[t]) != 128:
                raise ValueError(f"tile {t}: a c map is 128 bytes, got {len(c_maps[t])}")
            out[t, 416:420] = np.array([1], dtype=np.uint32).view(np.uint8)
            out[t, C_MAP_OFFSET:C_MAP_OFFSET + 128] = np.frombuffer(bytes(c_maps[t]), dtype=np.uint8)
    return out


#: the p_maps slots a build for so many m tiles takes (0: the maps stay in the table only)
param_map_slots = CL.param_map_slots


def param_map_bytes(tile_maps, c_maps, slots: int) -> bytes:
    """The p_maps parameter (pure): per tile its b, sfb and a16 maps (``tile_maps[t]``, three 128-byte strings) and
    its c map (``c_maps[t]``, or 128 zero bytes where it has none), 512 bytes a tile, zero-padded to ``slots``."""
    if len(tile_maps) != len(c_maps) or len(tile_maps) > slots:
        raise ValueError(f"{len(tile_maps)} tiles' maps and {len(c_maps)} c maps for {slots} slots")
    out = bytearray(slots * CL.PARAM_MAP_BYTES)
    for t, (maps, c) in enumerate(zip(tile_maps, c_maps)):
        blob = b"".join(maps) + (bytes(c) if c is not None else bytes(128))
        if len(blob) != CL.PARAM_MAP_BYTES:
            raise ValueError(f"tile {t}: expected three 128-byte maps and a c map, got {len(blob)} bytes")
        out[t * CL.PARAM_MAP_BYTES:(t + 1) * CL.PARAM_MAP_BYTES] = blob
    return bytes(out)


def supports(shapes, alphas=None) -> bool:
    """True when the m-tile kernel can run these groups: they share n and k, and every alpha fits (|alpha| * 2^28
    within fp32)."""
    try:
        n, k = _shared_nk(shapes)
        tiles = len(mtiles(shapes))
    except (ValueError, TypeError):
        return False
    if tiles * -(-n // _ROWS) * -(-k // STAGE_K) * 2 >= 2**31:
        return False
    return alphas is None or alphas_fit(alphas)


def preferred(shapes, sm_count: int) -> bool:
    """Whether the public API runs these groups on the m-tile kernel (pure): they share n and k, and its schedule
    on a GPU of ``sm_count`` SMs (one CTA per SM) takes whole tiles, or its tiles have at least
    STREAMK_MIN_STAGES k stages."""
    try:  # the op layer asks on every call: cached per shape tuple
        key = tuple(tuple(int(v) for v in sh) for sh in shapes)
    except (TypeError, ValueError):
        return False
    return _preferred(key, int(sm_count))


@lru_cache(maxsize=1024)
def _preferred(shapes: tuple, sm_count: int) -> bool:
    if not supports(shapes):
        return False
    n, k = _shared_nk(shapes)
    cluster, _ = schedule(len(mtiles(shapes)), n, k, sm_count, sm_count // 2)
    return cluster == 1 or -(-k // STAGE_K) >= STREAMK_MIN_STAGES


class GroupedGemmMTilePlan(GroupedOperands):
    """A grouped GEMM of fixed shapes and layouts whose groups share n and k, on the cluster GEMM kernel.

    ``GroupedGemmMTilePlan(shapes, layouts=None, *, device=None, cluster=None, units_per_cluster=None, stages=None,
    a_bufs=None, head_check=True, head_wait=32768, row_classes=None, split_cost=SPLIT_COST, tma_store=True,
    param_maps=None)``;
    ``plan(groups, alphas=None, stream=None)`` with ``groups`` a list of ``(a, b, sfa, sfb, c)`` as for
    :class:`nvfp4rt.ops.grouped_gemm.GroupedGemmPlan`.  ``cluster`` and ``units_per_cluster`` override
    :func:`schedule` (tests use both); ``row_classes`` overrides :func:`choose_row_classes` (``(128,)``: every tile
    on 128-row wgmmas, as before session 35); ``split_cost`` is :func:`unit_starts`'; ``tma_store=False`` has the
    consumers copy every tile out instead of storing it by TMA (as before session 39; the tests compare the two);
    ``param_maps`` passes the m tiles' tensor maps as a kernel parameter, which needs no proxy fence in the kernel
    (True, False, or None: where :func:`param_map_slots` finds room and the tiles are at most PARAM_MAPS_AUTO).
    The plan owns the A16 buffer, the workspace, the zeroed counters and the tables, so one plan must not run on two
    streams at once.
    """

    variant = "wgmma_mtiles"

    def __init__(self, shapes, layouts=None, *, device=None, cluster: int | None = None,
                 units_per_cluster: int | None = None, stages: int | None = None, a_bufs: int | None = None,
                 head_check: bool = True, head_wait: int = CL.DEFAULT_HEAD_WAIT, row_classes=None,
                 split_cost: float = SPLIT_COST, tma_store: bool = True, param_maps: bool | None = None):
        tiles = ()
        if param_maps is not None and not isinstance(param_maps, (bool, np.bool_)):
            raise ValueError(f"param_maps must be True, False or None, got {param_maps!r}")
        if not isinstance(tma_store, (bool, np.bool_)):
            raise ValueError(f"tma_store must be a bool, got {tma_store!r}")
        self.tma_store = bool(tma_store)
        if isinstance(split_cost, bool) or not isinstance(split_cost, (int, float, np.integer, np.floating)) \
                or not 0 <= split_cost < np.inf:
            raise ValueError(f"split_cost must be a finite number >= 0, got {split_cost!r}")

        def check(s):
            nonlocal tiles
            tiles = mtiles(s)
            n, k = _shared_nk(s)
            cl = 1 if cluster is None else cluster
            CL.cluster_geometry(_ROWS * len(tiles), n, k, 1, 1, cluster=cl, stages=stages, a_bufs=a_bufs,
                                units_per_cluster=units_per_cluster)
            if row_classes is not None:
                tile_row_classes(tiles, self._checked_classes(row_classes, cl), cl)

        props = self._setup_groups(shapes, layouts, device, geometry_check=check)
        dev, shapes = self.device, self.shapes
        self.tiles = tiles
        n, k = shapes[0][1], shapes[0][2]
        mv = _ROWS * len(tiles)

        k_stages = -(-k // STAGE_K)

        slots = param_map_slots(len(tiles))
        if param_maps and not slots:
            raise ValueError(f"param_maps=True: {len(tiles)} m tiles exceed the {CL.MAX_PARAM_MAPS} whose maps fit "
                             "the kernel's parameters")
        if param_maps is None:
            param_maps = len(tiles) <= PARAM_MAPS_AUTO
        self.param_slots = slots if param_maps else 0

        def kernel_for(cl, st, ab, classes):
            geo = CL.cluster_geometry(mv, n, k, 1, 1, cluster=cl, stages=st, a_bufs=ab)
            if geo.shared_mem > props.max_shared_per_block_optin:
                raise ValueError(f"stages={geo.num_stages}, a_bufs={geo.a_bufs} need {geo.shared_mem} bytes of shared "
                                 f"memory; the device allows {props.max_shared_per_block_optin}")
            cons = CL.kernel_constants(cl, geo.a_bufs, 1, 2, head_check, head_wait, grouped=True, row_classes=classes,
                                       param_maps=self.param_slots)
            kern = CL._kernel(dev.ordinal, tuple(sorted(cons.items())))
            kern.set_max_dynamic_shared(geo.shared_mem)
            return cons, kern, CL._max_active_clusters(kern, cl, geo.threads, geo.shared_mem, props.sm_count)

        def classes_for(cl, one_wave=False):
            if row_classes is not None:
                return self._checked_classes(row_classes, cl)
            return choose_row_classes(tiles, cl, one_wave)

        if cluster is None:
            _, _, max_ctas = kernel_for(1, stages, a_bufs, classes_for(1))
            _, _, max_pairs = kernel_for(2, stages, a_bufs, classes_for(2))
            cl, upc = schedule(len(tiles), n, k, max_ctas, max_pairs)
            if cl == 2:
                upc = None  # stream-K: runs cut on the row classes' costs
        else:
            cl, upc = cluster, None
        if units_per_cluster is not None:
            upc = units_per_cluster
        st, ab = stages, a_bufs
        if cl == 1 and upc == k_stages and stages is None and a_bufs is None:  # whole tiles: a deeper a16 ring
            st, ab = WHOLE_TILE_RINGS
        # one whole tile per cluster: if they all fit one wave, the largest row class alone sets the pace
        whole = upc == k_stages
        self.row_classes = classes_for(cl, one_wave=whole)
        self.constants, self.kernel, self.max_clusters = kernel_for(cl, st, ab, self.row_classes)
        if whole and len(tiles) * -(-n // (_ROWS * cl)) > self.max_clusters:  # several waves: every class counts
            self.row_classes = classes_for(cl)
            self.constants, self.kernel, self.max_clusters = kernel_for(cl, st, ab, self.row_classes)
        self.tile_classes = tile_row_classes(tiles, self.row_classes, cl)
        g = CL.cluster_geometry(mv, n, k, 1, self.max_clusters, cluster=cl, stages=st, a_bufs=ab,
                                units_per_cluster=upc)
        self.starts = unit_starts(self.tile_classes, g.n_tiles, k_stages, self.max_clusters, upc, split_cost)
        self._even_runs = 0 if upc is None else positive_int("units_per_cluster", upc)  # the kernel's units_per_cta
        self.geometry = g = replace(g, clusters=len(self.starts) - 1,
                                    units_per_cluster=max(b - a for a, b in zip(self.starts, self.starts[1:])))
        self.shared_mem = g.shared_mem

        from ..memory import DeviceAllocation
        from ..tma import TensorMap

        self._setup_decoded_a(g.workspace_bytes, g.counters, warm_regions=1)
        # one a16 map per (group, row class): its box is one rank's slice of the class's rows
        self._a16_class_maps = {}
        for t, r in zip(tiles, self.tile_classes):
            if (t.group, r) not in self._a16_class_maps:
                shape, strides, box, swizzle = self.map_spec(t.group, "a16")
                self._a16_class_maps[(t.group, r)] = TensorMap(
                    self._a16.ptr + self._decode.offsets[t.group], "float16", shape, (1, r // cl, 64),
                    strides=strides, swizzle=swizzle)
        self._c_maps = [None] * len(tiles)  # per tile: its TMA-store map of c, repointed as c moves
        self._param_maps = None  # the p_maps parameter's bytes (param_slots > 0), rebuilt with the table
        self._words = schedule_words(self.starts, g.tiles, k_stages)
        # whole 16 bytes, so the decode's L2 warm-up (one bulk prefetch) covers all of it for the producers
        self._mtab = DeviceAllocation(-(-(len(tiles) * MTILE_ENTRY_BYTES + self._words.nbytes) // 16) * 16, dev)
        self._l2_warm = ((self._mtab.ptr, self._mtab.nbytes),)
        self._launch = None

    @staticmethod
    def _checked_classes(classes, cluster: int) -> tuple[int, ...]:
        """The caller's classes in any order, checked as the kernel's (CL.check_row_classes), at most
        MAX_ROW_CLASSES of them."""
        try:
            out = tuple(sorted({int(c) for c in classes}, reverse=True))
        except (TypeError, ValueError):
            raise ValueError(f"row_classes must be a sequence of ints, got {classes!r}") from None
        if len(out) > MAX_ROW_CLASSES:
            raise ValueError(f"row_classes must hold 1..{MAX_ROW_CLASSES} multiples of {CL.row_class_step(cluster)} "
                             f"(cluster {cluster}), got {classes!r}")
        return CL.check_row_classes(out, cluster)

    def map_spec(self, i: int, which: str, padded: bool = False):
        """3-D maps (l = 1) with the cluster GEMM's boxes (the a16 box here is a 128-row tile's; each row class has
        its own, built once at planning)."""
        m, n, k = self.shapes[i]
        lay = self.layouts[i]
        if which == "a16":
            return (1, m, k), (2 * m * k, 2 * k), (1, _ROWS // self.geometry.cluster, 64), "128B"
        if which == "b":
            return (1, n, k // 2), (n * lay.b_row, lay.b_row), (1, self.geometry.tile_n, STAGE_K // 2), "128B"
        if which == "sfb":
            pitch = -(-k // STAGE_K) * 16 if padded else lay.sfb_row
            inner = pitch if padded else k // 16
            return (1, n, inner), (n * pitch, pitch), (1, self.geometry.tile_n, STAGE_K // 16), "none"
        raise ValueError(f"which must be 'a16', 'b' or 'sfb', got {which!r}")

    def run(self, groups, alphas=None, stream=None):
        """Launch the grouped decode and the GEMM on ``stream``; returns the list of c."""
        groups = list(groups)
        repeat, repeated = self._relaunch_if_repeat(groups, alphas, stream)
        if repeated:  # the last call's buffers, alphas and stream
            return [grp[4] for grp in groups]
        alphas, ptrs, handle, key, padded_any = self._decoded_a_call(groups, alphas, stream)
        if key != self._uploaded_key or padded_any:  # padded scales are copied again every call
            maps = [(self._map(i, "b", p[1], False).bytes, self._scale_map(i, "sfb", p[3], handle).bytes)
                    for i, p in enumerate(ptrs)]
            if key != self._uploaded_key:
                tile_maps = [maps[t.group] + (self._a16_class_maps[(t.group, r)].bytes,)
                             for t, r in zip(self.tiles, self.tile_classes)]
                c_maps = self._tile_c_maps(ptrs)
                table = build_mtile_table(self.tiles, tile_maps, [p[4] for p in ptrs],
                                          [lay.c_row for lay in self.layouts], [a * _ALPHA_SCALE for a in alphas],
                                          self.tile_classes, c_maps)
                if self.param_slots:
                    self._param_maps = param_map_bytes(tile_maps, c_maps, self.param_slots)
                    if self._launch is not None:
                        self._launch.set("p_maps", self._param_maps)
                table = np.concatenate([table.ravel(), self._words.view(np.uint8)])
                self._upload(key, [(self._mtab, table), (self._decode_table, self._decode_table_for(ptrs))], handle)
        self._decode.launch(self._decode_table.ptr, self._a16.ptr, handle)
        g = self.geometry
        dummy = self._a16_maps[0]  # the by-value maps are unused in this build
        self._launch_gemm(stream, lambda: self.kernel.prepare(
            dummy, dummy, dummy, Pointer(0), Pointer(self._ws.ptr), Pointer(self._counters.ptr), 0, 0, g.m, g.n,
            g.k_stages, g.m_tiles, g.n_tiles, g.units, self._even_runs, g.num_stages, _ALPHA_SCALE,
            g.k_stages, 0, 0, Pointer(self._mtab.ptr), *((self._param_maps,) if self.param_slots else ()),
            grid=g.grid, block=g.threads, cluster=(g.cluster, 1, 1) if g.cluster > 1 else None,
            shared_mem=self.shared_mem, stream=stream, programmatic=True))
        if not padded_any:  # no per-call scale copy: a repeat of this call only needs the two launches
            self._repeat = repeat
        return [grp[4] for grp in groups]

    __call__ = run

    def _tile_c_maps(self, ptrs) -> list:
        """Each tile's c map bytes (None where TMA cannot write its c, or with ``tma_store=False``)."""
        from ..tma import TensorMap

        out = []
        for t, (tile, r) in enumerate(zip(self.tiles, self.tile_classes)):
            spec = c_map_spec(tile, r, self.shapes[0][1], ptrs[tile.group][4], self.layouts[tile.group].c_row) \
                if self.tma_store else None
            if spec is None:
                out.append(None)
                continue
            base, shape, box, strides = spec
            tm = self._c_maps[t]
            if tm is None:
                tm = self._c_maps[t] = TensorMap(base, "float16", shape, box, strides=strides, swizzle="128B")
            elif tm.base != base:
                tm.repoint(base)
            out.append(tm.bytes)
        return out

    def __repr__(self) -> str:
        g = self.geometry
        return (f"<GroupedGemmMTilePlan groups={len(self.shapes)} m_tiles={len(self.tiles)} cluster={g.cluster} "
                f"grid={g.grid} units/cluster={g.units_per_cluster} stages={g.num_stages} a_bufs={g.a_bufs}>")
