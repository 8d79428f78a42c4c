"""Grouped NVFP4 GEMM on the cluster GEMM's machinery: A decoded once per call, 256-row tiles, token-sized wgmmas.

Two launches per call, on one stream:

1. the grouped A decode (:class:`nvfp4rt.ops.decode_a16.GroupedDecodeA16`) writes every group's A into one A16
   buffer the plan owns: ``ptx/nvfp4_decode_a16_wide.ptx`` where the groups share k, else
   ``ptx/nvfp4_decode_a16.ptx`` with GROUPED=1 (``wide_decode``);
2. ``ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx`` (written by tools/gen_grouped_gemm_cluster_ptx.py,
   whose header has the design), launched with programmatic dependent launch: CTA tiles of up to 256
   A rows x 128 B rows, clusters of 2 CTAs along n sharing every A16 load by multicast, the unit loop
   run with m64nNk16 for the smallest N (32, 48, ..., 128, 136, ..., 256: :func:`tokens`) that covers the
   tile's rows, a stream-K schedule whose per-cluster unit ranges the host cuts by cost (groups most rows
   first, cuts on tile boundaries unless splitting a tile pays: :func:`cut_runs`) or, where the model says so (the
   default ``schedule="auto"``), whole tiles dealt to the clusters (:func:`deal_tiles`, each cluster's tiles of one
   m tile of a group a table entry whose coordinates the kernel offsets into the group's maps), the groups' tensor
   maps passed by value as a kernel parameter where they fit (``param_maps``), and an epilogue that stores each
   warpgroup's fp16 box by TMA where c's base and row pitch allow a tensor map (:func:`c_tma_ok`).

:class:`GroupedGemmClusterPlan` has the call signature of
:class:`nvfp4rt.ops.grouped_gemm.GroupedGemmPlan`.  Pure helpers (no GPU): :func:`cluster_geometry`
(the schedule), :func:`launch_order`, :func:`cut_runs`, :func:`deal_tiles`, :func:`geometry_costs`, :func:`build_table`,
:func:`unit_cost`, :func:`c_tma_ok`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from .. import driver
from ..launch import Pointer
from ..ptxsource import ptx_dir
from ._args import positive_int
from .gemm_wgmma_cluster import DEFAULT_HEAD_WAIT, MAX_PARAM_MAPS, a_unit, head_constants, param_map_slots
from .decode_a16 import shares_k
from .grouped_gemm import GroupedOperands, K_MULTIPLE, MAX_GROUPS, STAGE_K, alphas_fit, pack_table  # noqa: F401

__all__ = ["GroupedGemmClusterPlan", "GroupedClusterGeometry", "ClusterGroup", "cluster_geometry", "build_table",
           "c_tma_ok", "unit_cost", "supports", "cluster_units", "shared_bytes", "kernel_constants", "TILE_M", "TILE_N",
           "TOKEN_MIN", "TOKEN_STEP", "FINE_FROM", "FINE_STEP", "CLUSTER_SIZES", "A_BUFS_CHOICES", "DECODE_COST",
           "EPILOGUE_COST", "SPLIT_COST", "schedule_costs", "cut_runs", "launch_order", "WIDE_DECODE_AUTO", "SCHEDULES",
           "DEAL_MARGIN", "DEAL_MAX_CLASSES", "DEFAULT_SCHEDULE", "SWITCH_COST", "deal_tiles", "run_costs",
           "geometry_costs", "param_map_slots", "MAX_PARAM_MAPS", "PARAM_MAPS_AUTO"]

_KERNEL_FILE = "grouped_gemm_nvfp4_wgmma_cluster.ptx"
_ENTRY = "nvfp4_grouped_gemm_wgmma_cluster"
_THREADS = 384
#: A rows (tokens: the wgmma N) of a CTA tile at most, and B rows (output columns) of a CTA tile
TILE_M, TILE_N = 256, 128
#: A16 rows per TMA box over a cluster: a tile of <= 128 rows loads one half of its a16 buffer
HALF_M = 128
#: the unit loop exists for N = TOKEN_MIN, TOKEN_MIN + TOKEN_STEP, ..., FINE_FROM tokens (32, 48, ..., 128) and above
#: FINE_FROM in steps of FINE_STEP (136, 144, ..., 256; tools/gen_grouped_gemm_cluster_ptx.py, token_variants)
TOKEN_MIN, TOKEN_STEP = 32, 16
FINE_FROM, FINE_STEP = 128, 8
CLUSTER_SIZES = (2, 4)
DEFAULT_CLUSTER = 2
A_BUFS_CHOICES = (3, 4)
_DEFAULT_A_BUFS, _DEFAULT_STAGES = 4, 3
MIN_STAGES, MAX_STAGES = 2, 5
_STAGE_BYTES = 18432
_A16_BUF_BYTES = 32768
_X_BYTES = 36864
_PARTIAL_BYTES = TILE_N * TILE_M * 4
TABLE_ENTRY_BYTES = 64
#: a group's maps in the device buffer: a16, b, sfb and (where c_tma_ok) c, 128 bytes each
TMAPS_PER_GROUP_BYTES = 512
C_MAP_OFFSET = 384
#: with param_maps=None, plans whose groups' maps fit a kernel parameter (at most MAX_PARAM_MAPS groups, 512 bytes
#: each) take them so: the kernel then needs no tensormap fence when a role first uses a group's maps
PARAM_MAPS_AUTO = True
#: the epilogue's TMA store box: 64 tile rows x 64 columns (one consumer warpgroup's) of fp16
C_BOX = (64, 64)
#: and its swizzle: the kernel stages each box 128B-swizzled, as the map reads it
C_SWIZZLE = "128B"
#: one fp32 accumulator chain sums at most 32 k256 stages (8192 k), as in the other Hopper GEMMs
MAX_CHAIN_UNITS = 32
#: alphas are passed times 2^28 (operands carry 2^-14 each)
_ALPHA_SCALE = 2.0**28
#: The schedule's cost model, in units of an m64n256 unit's tensor work (host only):
#: - a k256 unit of a tile of N tokens costs DECODE_COST + N/256 (the B decode, the pipeline's latency and the issue
#:   do not shrink with N);
#: - a tile's epilogue (staging and store) costs EPILOGUE_COST * N/256 more, charged to the tile's last unit;
#: - a run that starts or ends inside a tile costs SPLIT_COST more per such end (the partial it writes or the
#:   reduction it waits for and runs).
#: The runs are cut to minimise the costliest one (:func:`cut_runs`), so a cut lands on a tile boundary unless
#: splitting the tile saves more than SPLIT_COST.  Fitted on the H100 in session 34 (docs/grouped_gemm.md, "Session
#: 34"): against session 30's balanced stream-K cut (0.8 per unit, 6 * N/256 on a tile's first unit, cuts anywhere),
#: with the groups launched in :func:`launch_order`, competition case 2 ran 75.5-75.8 against 78.4-79.6 us (whole call),
#: and the six other problems measured ran 4-15% faster (docs/device-logs/2026-11-27-session34/11).
DECODE_COST = 0.6
EPILOGUE_COST = 1.0
SPLIT_COST = 2.5
#: the schedules :func:`cluster_geometry` builds, and how much cheaper (a fraction of the cut's costliest run) the
#: dealt schedule's costliest run must be for "auto" to take it
SCHEDULES = ("auto", "cut", "dealt")
#: (session 46: 0.04, up from 0.02.  The mixed-n problem's deal under SWITCH_COST 0.5 is 2.1% cheaper in the model,
#: and its dealt schedule measured about 1 us slower than the cut, docs/device-logs/2026-11-28-session46/ run 1;
#: case 2 and ragged rows, 7.2% and 8.9% cheaper, measured 2-3 us faster)
DEAL_MARGIN = 0.04
#: the schedule plans take unless told: "auto", the dealt schedule where the model says it balances the runs better.
#: Since session 46 every table entry of a group uses the group's maps (the kernel offsets its coordinates by the
#: entry's first row and column), so a dealt plan re-points only its groups' maps when buffers move, as the cut does,
#: and with the maps as a kernel parameter no entry switch costs a tensormap fence.  H100, whole calls, two rounds
#: (docs/device-logs/2026-11-28-session46/, run 1): competition case 2 dealt 61.28-61.87 us against 63.92-63.98 on the
#: cut (and 63.01-63.18 dealt at dcdf92d, per-entry maps), ragged rows 61.02-61.44 against 62.18-62.30; "auto" keeps
#: the cut for the mixed-n problem (dealt 47.33-47.50 against 46.40-46.51) and case 1's shapes.
DEFAULT_SCHEDULE = "auto"
#: "auto" considers the dealt schedule only for at most this many classes (m tiles over all groups): the deal's
#: polish costs time per class on the host, and problems of many small groups mix groups in every run anyway
DEAL_MAX_CLASSES = 64
#: a run's cost in the model grows by this much for each table entry it enters after its first: the next entry's
#: lookups, fresh descriptors, and (maps in the device buffer only) the maps' first-use tensormap fences.  The dealt
#: schedule's deal (:func:`deal_tiles`) and "auto"'s choice (:func:`geometry_costs`) both charge it.  With per-entry
#: maps and their fences (session 45, H100) 1.0 ran competition case 2 fastest among 0 / 0.65 / 1.0 / 1.5; with each
#: group's maps by value (session 46, H200, run 2, whole calls, three rounds) 0 / 0.25 / 0.5 / 1.0 ran it in
#: 59.49-59.66 / 59.30-59.86 / 59.01-59.26 / 59.39-59.68 us and ragged rows in 58.03-58.29 / 57.89-57.95 /
#: 57.26-57.50 / 57.94-58.02 (the cut: 62.02-62.18 and 61.28-61.47).
SWITCH_COST = 0.5
#: with wide_decode=None, plans whose groups share k decode A with the wide decode (ptx/nvfp4_decode_a16_wide.ptx).
#: Whole call, launch phases spread, bits equal (docs/device-logs/2026-11-27-session40/10 and 15): competition
#: case 2 73.95-74.53 us against 76.16-76.38 with the item decode on an H100, 72.96-73.26 against 74.14-75.04 on an
#: H200; eight groups of n = 4096..4992, k = 2048, 53.70-53.79 against 54.93-55.20 (H100)
WIDE_DECODE_AUTO = True
#: each group's a16 map is as tall as its rows rounded up to a whole box (HALF_M / cluster rows), over the next groups'
#: rows or the buffer's zero padding, so no A16 load is filled by TMA past the group's rows.  What those rows hold
#: reaches only accumulator rows at or past the tile's rows, which no epilogue stores.
A16_MAP_ROUNDED = True


def shared_bytes(num_stages: int, a_bufs: int) -> int:
    """Dynamic shared memory of one CTA (the PTX header's launch contract)."""
    return 2048 + a_bufs * _A16_BUF_BYTES + num_stages * _STAGE_BYTES + _X_BYTES


def kernel_constants(cluster: int = DEFAULT_CLUSTER, a_bufs: int = _DEFAULT_A_BUFS, head_check: bool = True,
                     head_wait: int = DEFAULT_HEAD_WAIT, param_maps: int = 0) -> dict:
    """The kernel's template constants.  ``param_maps`` (0, or a power of two up to MAX_PARAM_MAPS): the map slots
    the kernel takes by value as its parameter ``p_maps`` (PARAM_MAPS) instead of from the device buffer p_tmaps."""
    if isinstance(cluster, bool) or cluster not in CLUSTER_SIZES:
        raise ValueError(f"cluster must be one of {CLUSTER_SIZES}, got {cluster!r}")
    if isinstance(a_bufs, bool) or a_bufs not in A_BUFS_CHOICES:
        raise ValueError(f"a_bufs must be one of {A_BUFS_CHOICES}, got {a_bufs!r}")
    if isinstance(param_maps, bool) or not isinstance(param_maps, (int, np.integer)) \
            or param_maps not in (0, param_map_slots(max(1, param_maps))):
        raise ValueError(f"param_maps must be 0 or a power of two up to {MAX_PARAM_MAPS}, got {param_maps!r}")
    return {"CLUSTER": int(cluster), "A_BUFS": int(a_bufs), "A_UNIT": a_unit(a_bufs),
            **head_constants(head_check, head_wait),
            "PARAM_MAPS": int(param_maps), "PARAM_MAP_BYTES": TMAPS_PER_GROUP_BYTES * int(param_maps)}


def tokens(rows: int) -> int:
    """The wgmma N a tile of ``rows`` A rows runs: TOKEN_MIN at least, else the next multiple of TOKEN_STEP up to
    FINE_FROM rows and of FINE_STEP above."""
    step = TOKEN_STEP if rows <= FINE_FROM else FINE_STEP
    return max(TOKEN_MIN, -(-rows // step) * step)


def unit_cost(rows: int, decode_cost: float = DECODE_COST) -> float:
    """Relative cost of one k256 unit of a tile with ``rows`` A rows (see DECODE_COST)."""
    return decode_cost + tokens(rows) / TILE_M


@dataclass(frozen=True)
class ClusterGroup:
    """One entry of the problem table: a caller's group, or (the dealt schedule) a run of whole tiles of one of its
    m tiles.  ``m`` and ``n`` count from the entry's first row ``row0`` and column ``col0`` of the caller's group
    ``source`` to that group's edges; the entry's maps, c pointer and table words start there."""

    m: int
    n: int
    k: int
    m_tiles: int
    n_tiles: int      # cluster tiles along n
    k_stages: int
    unit_start: int
    tile_start: int   # first cluster tile of the entry
    source: int = 0   # the caller's group
    row0: int = 0     # the entry's first A row (c row) in that group: a multiple of TILE_M
    col0: int = 0     # its first B row (c column): a multiple of the cluster tile's TILE_N * cluster

    @property
    def tiles(self) -> int:
        return self.m_tiles * self.n_tiles

    @property
    def units(self) -> int:
        return self.tiles * self.k_stages

    def rows(self, mt: int) -> int:
        """A rows of m tile ``mt``."""
        return min(TILE_M, self.m - TILE_M * mt)


@dataclass(frozen=True)
class GroupedClusterGeometry:
    """The launch-wide schedule: table entries one after the other (``groups[j]`` computes part or all of the
    caller's group ``order[j]``), units tile-major (k fastest) in an entry, cluster q running units
    ``[starts[q], starts[q+1])``.  ``schedule`` says how: "cut" (each group one entry, in launch order, the runs
    cut by :func:`cut_runs`) or "dealt" (whole tiles dealt to the runs by :func:`deal_tiles`, each run's tiles of one
    m tile of a group one entry)."""

    groups: tuple
    cluster: int
    units: int
    tiles: int
    starts: tuple
    num_stages: int
    a_bufs: int
    order: tuple
    schedule: str = "cut"

    def slot(self, group: int) -> int:
        """The first table entry of the caller's group ``group``."""
        return _first_slots(self.order)[group]

    @property
    def first_entries(self) -> tuple:
        """Per run, the table entry of its first unit: the kernel starts its entry search there."""
        unit_starts = [g.unit_start for g in self.groups]
        return tuple(int(np.searchsorted(unit_starts, u, side="right")) - 1 for u in self.starts[:-1])

    @cached_property
    def entry_arrays(self) -> tuple:
        """Per table entry, as arrays: the table's six u32 words (unit_start, tile_start, k_stages, n_tiles, m, n),
        the caller's group, and the first row and column (u64) -- what :func:`build_table` packs on every upload."""
        words = np.array([(g.unit_start, g.tile_start, g.k_stages, g.n_tiles, g.m, g.n) for g in self.groups],
                         dtype=np.uint32).reshape(-1, 6)
        src = np.array(self.order, dtype=np.intp)
        row0 = np.array([g.row0 for g in self.groups], dtype=np.uint64)
        col0 = np.array([g.col0 for g in self.groups], dtype=np.uint64)
        return words, src, row0, col0

    def starts_words(self) -> np.ndarray:
        """The kernel's p_starts (u32): starts[0..Q], then each run's first table entry."""
        return np.array(self.starts + self.first_entries, dtype=np.uint32)

    @property
    def clusters(self) -> int:
        return len(self.starts) - 1

    @property
    def grid(self) -> int:
        return self.cluster * self.clusters

    @property
    def counters(self) -> int:
        return self.cluster * self.tiles

    @property
    def workspace_bytes(self) -> int:
        return 2 * self.grid * _PARTIAL_BYTES

    @property
    def shared_mem(self) -> int:
        return shared_bytes(self.num_stages, self.a_bufs)

    def tile_units(self, tile: int) -> tuple:
        """(group index, tile of the group, first unit U0, k_stages) of a launch-wide cluster tile."""
        for gi, g in enumerate(self.groups):
            if g.tile_start <= tile < g.tile_start + g.tiles:
                lt = tile - g.tile_start
                return gi, lt, g.unit_start + lt * g.k_stages, g.k_stages
        raise ValueError(f"tile {tile} out of range 0..{self.tiles - 1}")

    def cluster_of(self, unit: int) -> int:
        return int(np.searchsorted(self.starts, unit, side="right")) - 1

    def tile_contributors(self, tile: int) -> range:
        """Clusters whose runs touch ``tile``, in the order the reduction adds them."""
        _, _, u0, kb = self.tile_units(tile)
        return range(self.cluster_of(u0), self.cluster_of(u0 + kb - 1) + 1)

    def workspace_slot(self, q: int, rank: int, tile: int) -> int:
        """The kernel's rule: 2*(cluster*q + rank) + (0 if q's run starts inside the tile else 1)."""
        _, _, u0, _ = self.tile_units(tile)
        return 2 * (self.cluster * q + rank) + (0 if self.starts[q] >= u0 else 1)

    def tile_ctas_table(self) -> np.ndarray:
        """u32 pairs (c_lo, c_hi) per cluster tile: the kernel's p_tile_ctas."""
        out = np.zeros((self.tiles, 2), dtype=np.uint32)
        for t in range(self.tiles):
            r = self.tile_contributors(t)
            out[t] = (r.start, r.stop - 1)
        return out

    @property
    def split_tiles(self) -> int:
        return sum(1 for t in range(self.tiles) if len(self.tile_contributors(t)) > 1)


@lru_cache(maxsize=64)
def _first_slots(order: tuple) -> dict:
    first = {}
    for j, i in enumerate(order):
        first.setdefault(i, j)
    return first


def launch_order(shapes) -> tuple:
    """The order the kernel runs the groups in: most rows first, ties in the caller's order.  Session 34 measured
    this order 1.5-2 us faster than the given one on competition case 2 under either run cut (docs/grouped_gemm.md,
    "Session 34"); the caller's own order does not matter to the results, which land in each group's c."""
    return tuple(sorted(range(len(shapes)), key=lambda i: -int(shapes[i][0])))


def cut_runs(unit_costs: np.ndarray, tile_first: np.ndarray, runs: int, split_cost: float = SPLIT_COST) -> list:
    """Cut units ``0..U-1`` (in launch order; ``tile_first[u]``: unit u starts a tile) into at most ``runs``
    contiguous runs whose costliest one is as cheap as the model allows: a run costs its units plus ``split_cost``
    for each end that falls inside a tile.  A binary search on that cap, each step cutting greedily (every run as
    long as the cap allows, so the fewest runs for the cap); then any run that would sum more than MAX_CHAIN_UNITS
    units of one tile is split further (the kernel's fp32 chain limit; those extra runs lengthen the grid).
    Returns ``starts``: run q covers units ``[starts[q], starts[q+1])``."""
    costs = np.asarray(unit_costs, dtype=np.float64)
    units = len(costs)
    runs = positive_int("runs", runs)
    cum = np.concatenate(([0.0], np.cumsum(costs)))
    aligned = np.ones(units + 1, dtype=bool)  # boundary b lies between tiles
    aligned[1:units] = np.asarray(tile_first, dtype=bool)[1:units]
    al_idx = np.flatnonzero(aligned)
    al_cum = cum[al_idx]

    def cut(cap: float) -> list | None:
        # A run from boundary a may reach a tile boundary b with cum[b] <= reach(a), or any boundary with
        # cum[b] <= reach(a) - split_cost, where reach(a) = cum[a] + cap - (split_cost if a is inside a tile).  So
        # where a run ends matters only through cum[b] - (split_cost if b is inside a tile): each run ends where
        # that is largest, which leaves the next run the most room (and makes the greedy cut optimal for the cap).
        starts, a = [0], 0
        while a < units:
            room = cum[a] + cap - (0.0 if aligned[a] else split_cost)
            j = int(np.searchsorted(al_cum, room, side="right")) - 1
            b_al = int(al_idx[j]) if j >= 0 else a
            b_in = int(np.searchsorted(cum, room - split_cost, side="right")) - 1
            b = b_in if b_in > b_al and cum[b_in] - split_cost > cum[b_al] else b_al
            if b <= a or len(starts) > runs:
                return None  # no run from a fits the cap, or the cap needs more than `runs` runs
            starts.append(b)
            a = b
        return starts

    lo, hi = 0.0, float(cum[-1]) + 2.0 * split_cost  # one run over everything fits hi
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if cut(mid) is not None:
            hi = mid
        else:
            lo = mid
    starts = cut(hi)
    # no accumulation chain longer than MAX_CHAIN_UNITS inside one tile
    out = []
    for a, b in zip(starts[:-1], starts[1:]):
        u = a
        out.append(u)
        while True:
            nxt = int(al_idx[np.searchsorted(al_idx, u, side="right")])  # end of u's tile
            seg_end = min(nxt, b)
            if seg_end - u > MAX_CHAIN_UNITS:
                u += MAX_CHAIN_UNITS
                out.append(u)
                continue
            if seg_end >= b:
                break
            u = seg_end
    out.append(units)
    return out


def run_costs(unit_costs: np.ndarray, tile_first: np.ndarray, starts, split_cost: float = SPLIT_COST) -> np.ndarray:
    """Each run's cost under the schedule's model: its units, plus ``split_cost`` per end inside a tile."""
    cum = np.concatenate(([0.0], np.cumsum(np.asarray(unit_costs, dtype=np.float64))))
    inside = np.concatenate((~np.asarray(tile_first, dtype=bool), [False]))  # boundary u lies inside a tile
    inside[0] = False
    a, b = np.asarray(starts[:-1]), np.asarray(starts[1:])
    return cum[b] - cum[a] + split_cost * (inside[a].astype(float) + inside[b].astype(float))


def deal_tiles(tile_costs, counts, runs: int, polish: int | None = None, switch_cost: float = 0.0) -> np.ndarray:
    """Deal whole tiles to ``runs`` runs so that the costliest run is cheap: class c has ``counts[c]`` tiles of cost
    ``tile_costs[c]``, and a run costs its tiles plus ``switch_cost`` for each class it holds after its first.  Largest
    tile first, each to the run it leaves cheapest (ties: the lower run), then at most ``polish`` (default 8 * runs)
    steps that each move one tile off the costliest run, or swap it for a cheaper tile of another run, where that
    brings both runs below the costliest run's cost.  Returns how many tiles of each class each run takes, int
    [runs, classes].  Pure and deterministic."""
    costs = np.asarray(tile_costs, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    runs = positive_int("runs", runs)
    if costs.shape != counts.shape or costs.ndim != 1 or (counts < 0).any() or (costs < 0).any():
        raise ValueError("tile_costs and counts must be equal-length lists of costs >= 0 and counts >= 0")
    if isinstance(switch_cost, bool) or not 0 <= switch_cost < np.inf:
        raise ValueError(f"switch_cost must be a finite number >= 0, got {switch_cost!r}")
    take = np.zeros((runs, len(costs)), dtype=np.int64)
    loads = np.zeros(runs)  # each run's cost: its tiles, plus switch_cost per class after its first
    held = np.zeros(runs, dtype=np.int64)  # classes each run holds
    for c in sorted(range(len(costs)), key=lambda c: (-costs[c], c)):
        for _ in range(int(counts[c])):
            new_class = (take[:, c] == 0) & (held > 0)
            q = int(np.argmin(loads + costs[c] + switch_cost * new_class))
            loads[q] += costs[c] + switch_cost * new_class[q]
            held[q] += take[q, c] == 0
            take[q, c] += 1
    eps = 1e-9 * max(1.0, float(costs.max(initial=0.0)))
    others = np.arange(runs)
    for _ in range(8 * runs if polish is None else polish):
        h = int(np.argmax(loads))
        best = None  # (the pair's larger cost after, class off h, class back to h or -1, run j)
        for a in np.flatnonzero(take[h]):
            h_left = held[h] - (take[h, a] == 1)  # h's classes once a tile of a leaves
            j_held = held + (take[:, a] == 0)     # each run's classes once it takes one
            for b in [-1] + [int(b) for b in np.flatnonzero(costs < costs[a] - eps)]:
                if b < 0:
                    h_after = loads[h] - costs[a] - switch_cost * (take[h, a] == 1 and held[h] > 1)
                    j_after = loads + costs[a] + switch_cost * ((take[:, a] == 0) & (held > 0))
                    ok = others != h
                else:
                    h_classes = h_left + (take[h, b] == 0)
                    h_after = (loads[h] - costs[a] + costs[b]
                               + switch_cost * (max(h_classes, 1) - max(held[h], 1)))
                    j_classes = j_held - (take[:, b] == 1)
                    j_after = loads + costs[a] - costs[b] + switch_cost * (np.maximum(j_classes, 1)
                                                                           - np.maximum(held, 1))
                    ok = (others != h) & (take[:, b] > 0)
                after = np.where(ok, np.maximum(j_after, h_after), np.inf)
                j = int(np.argmin(after))
                if after[j] < loads[h] - eps and (best is None or after[j] < best[0] - eps):
                    best = (float(after[j]), int(a), b, j)
        if best is None:
            break
        _, a, b, j = best
        for r, cls, d in ((h, a, -1), (j, a, 1)) + (((j, b, -1), (h, b, 1)) if b >= 0 else ()):
            take[r, cls] += d
        for r in (h, j):
            held[r] = np.count_nonzero(take[r])
            loads[r] = float(take[r] @ costs) + switch_cost * max(0, int(held[r]) - 1)
    return take


def schedule_costs(groups, decode_cost: float = DECODE_COST, epilogue_cost: float = EPILOGUE_COST) -> tuple:
    """(cost, starts-a-tile) of every unit in launch order, the schedule's model: DECODE_COST + N/256 per unit,
    plus EPILOGUE_COST * N/256 on each tile's last unit."""
    costs, firsts = [], []
    for g in groups:
        for mt in range(g.m_tiles):
            c = np.full(g.k_stages, unit_cost(g.rows(mt), decode_cost))
            c[-1] += epilogue_cost * tokens(g.rows(mt)) / TILE_M
            first = np.zeros(g.k_stages, dtype=bool)
            first[0] = True
            costs.append(np.tile(c, g.n_tiles))
            firsts.append(np.tile(first, g.n_tiles))
    return np.concatenate(costs), np.concatenate(firsts)


def cluster_geometry(shapes, max_clusters: int, *, cluster: int = DEFAULT_CLUSTER, stages: int | None = None,
                     a_bufs: int | None = None, decode_cost: float = DECODE_COST,
                     epilogue_cost: float = EPILOGUE_COST, split_cost: float = SPLIT_COST,
                     schedule: str = DEFAULT_SCHEDULE) -> GroupedClusterGeometry:
    """The schedule (pure): ``shapes`` a list of (m, n, k) in the caller's order; ``max_clusters`` clusters the GPU
    runs at once.  ``schedule``:

    - "cut": the groups laid out in :func:`launch_order`, one table entry each, and the units cut into runs by
      :func:`cut_runs` under the cost model (DECODE_COST, EPILOGUE_COST, SPLIT_COST);
    - "dealt": whole tiles dealt to the runs by :func:`deal_tiles` (no tile split), each run's tiles of one m tile of
      a group one table entry (offset maps and c), the entries run by run; needs every group's k at most
      MAX_CHAIN_UNITS stages;
    - "auto": the dealt schedule where it is allowed, there are at most DEAL_MAX_CLASSES m tiles over all groups, and
      its costliest run (:func:`geometry_costs`, entry switches included) is cheaper in the model than the cut's by
      more than DEAL_MARGIN; else the cut.

    The default is DEFAULT_SCHEDULE ("auto")."""
    shapes = list(shapes)
    if not shapes:
        raise ValueError("need at least one group")
    if len(shapes) > MAX_GROUPS:
        raise ValueError(f"at most {MAX_GROUPS} groups per launch, got {len(shapes)}")
    max_clusters = positive_int("max_clusters", max_clusters)
    if isinstance(cluster, bool) or cluster not in CLUSTER_SIZES:
        raise ValueError(f"cluster must be one of {CLUSTER_SIZES}, got {cluster!r}")
    s = _DEFAULT_STAGES if stages is None else positive_int("stages", stages)
    if not MIN_STAGES <= s <= MAX_STAGES:
        raise ValueError(f"stages must be in {MIN_STAGES}..{MAX_STAGES}, got {s}")
    ab = _DEFAULT_A_BUFS if a_bufs is None else a_bufs
    if isinstance(ab, bool) or ab not in A_BUFS_CHOICES:
        raise ValueError(f"a_bufs must be one of {A_BUFS_CHOICES}, got {a_bufs!r}")
    for name, v in (("decode_cost", decode_cost), ("epilogue_cost", epilogue_cost), ("split_cost", split_cost)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not 0 <= v < np.inf:
            raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    if not isinstance(schedule, str) or schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    checked = []
    for i, shp in enumerate(shapes):  # in the caller's order, so that a message names the caller's group
        if not isinstance(shp, (tuple, list)) or len(shp) != 3:
            raise ValueError(f"group {i}: expected (m, n, k), got {shp!r}")
        m, n, k = (positive_int(f"group {i}: {nm}", v) for nm, v in zip("mnk", shp))
        if k % K_MULTIPLE:
            raise ValueError(f"group {i}: k must be a multiple of {K_MULTIPLE}, got {k}")
        checked.append((m, n, k))
    order = launch_order(checked)
    groups, unit, tile = [], 0, 0
    for i in order:
        m, n, k = checked[i]
        g = ClusterGroup(m, n, k, -(-m // TILE_M), -(-n // (TILE_N * cluster)), -(-k // STAGE_K), unit, tile, i)
        groups.append(g)
        unit += g.units
        tile += g.tiles
    if unit * cluster >= 2**31 or tile * cluster >= 2**31:
        raise ValueError(f"problem too large: {unit} units do not fit the kernel's 32-bit indices")
    costs, firsts = schedule_costs(groups, decode_cost, epilogue_cost)
    starts = cut_runs(costs, firsts, min(max_clusters, unit), split_cost)
    cut = GroupedClusterGeometry(tuple(groups), int(cluster), unit, tile, tuple(starts), s, int(ab), order, "cut")
    dealable = all(g.k_stages <= MAX_CHAIN_UNITS for g in groups)
    if schedule == "dealt" and not dealable:
        raise ValueError(f"schedule='dealt' needs every group's k at most {MAX_CHAIN_UNITS * STAGE_K}")
    classes = sum(g.m_tiles for g in groups)
    if schedule == "cut" or not dealable or (schedule == "auto" and classes > DEAL_MAX_CLASSES):
        return cut
    dealt = _dealt_geometry(cut, costs, max_clusters)
    if schedule == "auto":
        cut_max = geometry_costs(cut, decode_cost, epilogue_cost, split_cost).max()
        if geometry_costs(dealt, decode_cost, epilogue_cost, split_cost).max() >= cut_max * (1.0 - DEAL_MARGIN):
            return cut
    return dealt


def geometry_costs(geo: GroupedClusterGeometry, decode_cost: float = DECODE_COST,
                   epilogue_cost: float = EPILOGUE_COST, split_cost: float = SPLIT_COST,
                   switch_cost: float | None = None) -> np.ndarray:
    """Each run's cost in the schedule's model (:func:`run_costs`) plus ``switch_cost`` (default SWITCH_COST) for each
    table entry it enters after its first: what "auto" compares between the cut and the dealt schedule."""
    costs, firsts = schedule_costs(geo.groups, decode_cost, epilogue_cost)
    sw = SWITCH_COST if switch_cost is None else switch_cost
    unit_starts = [g.unit_start for g in geo.groups]
    last = np.searchsorted(unit_starts, np.asarray(geo.starts[1:]) - 1, side="right") - 1  # entry of each last unit
    return run_costs(costs, firsts, geo.starts, split_cost) + sw * (last - np.array(geo.first_entries))


def _dealt_geometry(cut: GroupedClusterGeometry, unit_costs: np.ndarray, runs: int) -> GroupedClusterGeometry:
    """The dealt schedule of ``cut``'s groups (see :func:`cluster_geometry`): a class per m tile of each group, in
    launch order, its tiles dealt by :func:`deal_tiles` on their model cost; run q takes, class by class, the next
    consecutive n tiles of that m tile as one table entry.  Runs that get no tile are dropped."""
    classes, tile_cost = [], []  # (launch position, m tile)
    for j, g in enumerate(cut.groups):
        for mt in range(g.m_tiles):
            u0 = g.unit_start + mt * g.n_tiles * g.k_stages
            classes.append((j, mt))
            tile_cost.append(float(unit_costs[u0:u0 + g.k_stages].sum()))
    take = deal_tiles(tile_cost, [cut.groups[j].n_tiles for j, _ in classes], runs, switch_cost=SWITCH_COST)
    next_nt = [0] * len(classes)
    entries, starts, unit, tile = [], [0], 0, 0
    for q in range(take.shape[0]):
        for c, (j, mt) in enumerate(classes):
            cnt = int(take[q, c])
            if not cnt:
                continue
            g = cut.groups[j]
            row0, col0 = TILE_M * mt, TILE_N * cut.cluster * next_nt[c]
            entries.append(ClusterGroup(g.m - row0, g.n - col0, g.k, 1, cnt, g.k_stages, unit, tile,
                                        cut.order[j], row0, col0))
            next_nt[c] += cnt
            unit += cnt * g.k_stages
            tile += cnt
        if unit > starts[-1]:
            starts.append(unit)
    return GroupedClusterGeometry(tuple(entries), cut.cluster, unit, tile, tuple(starts), cut.num_stages, cut.a_bufs,
                                  tuple(e.source for e in entries), "dealt")


def build_table(geo: GroupedClusterGeometry, c_ptrs, c_rows, alphas, c_maps=None) -> np.ndarray:
    """The device problem table, (E + 1) entries of 64 bytes (layout in the PTX header) for the geometry's E entries,
    entry j for ``geo.groups[j]``, part or all of the caller's group ``geo.order[j]``.  ``c_ptrs``, ``c_rows``,
    ``alphas`` and ``c_maps`` are per caller's group; alphas as passed to the kernel (already times 2^28); ``c_maps[i]``
    true where group i's c has a TMA map (u32[7]: the epilogue stores it by TMA; default: none has).  An entry's c
    pointer is its group's c moved to the entry's first row and column (the copy-out's); u32[12] is its map slot
    (the caller's group: every entry of a group uses the group's maps), u32[13] and u32[14] its first row and column
    in the group (the kernel adds them to its TMA coordinates)."""
    words, src, row0, col0 = geo.entry_arrays
    G = int(src.max()) + 1
    for name, v in (("c_ptrs", c_ptrs), ("c_rows", c_rows), ("alphas", alphas)) + ((("c_maps", c_maps),)
                                                                                     if c_maps is not None else ()):
        if len(v) != G:
            raise ValueError(f"{name} has {len(v)} entries for {G} groups")
    rows = np.array(c_rows, dtype=np.uint64)[src]
    c_at = np.array(c_ptrs, dtype=np.uint64)[src] + np.uint64(2) * (row0 * rows + col0)
    t = pack_table(words, geo.units, c_at, rows, np.asarray(alphas, dtype=np.float64)[src])
    if c_maps is not None:
        t[:len(src), 7] = np.asarray([bool(x) for x in c_maps], dtype=np.uint32)[src]
    t[:len(src), 12] = src
    t[:len(src), 13] = row0
    t[:len(src), 14] = col0
    return t


def c_tma_ok(c_ptr: int, c_row: int) -> bool:
    """Whether the epilogue may store a group's c by TMA: its base and row pitch (``c_row`` fp16 elements) are
    multiples of 16 bytes and the pitch is below 2^40 bytes (the tensor-map rules).  Otherwise the consumers copy
    the tile out themselves."""
    return c_ptr % 16 == 0 and (2 * c_row) % 16 == 0 and 0 < 2 * c_row < 2**40


@lru_cache(maxsize=1024)
def _units(shapes: tuple):
    try:
        return cluster_geometry(shapes, 1).units
    except (ValueError, TypeError):
        return None


def cluster_units(shapes):
    """The kernel's unit count for these groups (k256 stages of 256 x 256 cluster tiles), None if it cannot
    run them; cached per shape tuple (the op layer asks per call)."""
    try:
        key = tuple(tuple(int(v) for v in s) for s in shapes)
    except (TypeError, ValueError):
        return None
    return _units(key)


def supports(shapes, alphas=None) -> bool:
    """True when this kernel can run these groups with these alphas (|alpha| * 2^28 must fit fp32)."""
    return cluster_units(shapes) is not None and (alphas is None or alphas_fit(alphas))


@lru_cache(maxsize=None)
def _kernel(ordinal: int, constants: tuple):
    from ..module import load

    return load(ptx_dir() / _KERNEL_FILE, device=driver.Device(ordinal), target="sm_90a",
                constants=dict(constants)).kernel(_ENTRY)


class GroupedGemmClusterPlan(GroupedOperands):
    """A grouped GEMM of fixed shapes and layouts: A decoded once per call, 256-row tiles shared by a cluster.

    ``GroupedGemmClusterPlan(shapes, layouts=None, *, device=None, cluster=2, stages=None, a_bufs=None,
    decode_cost=DECODE_COST, epilogue_cost=EPILOGUE_COST, split_cost=SPLIT_COST, clusters=None, head_check=True,
    head_wait=32768, wide_decode=None, schedule=DEFAULT_SCHEDULE, param_maps=None)``; ``plan(groups, alphas=None,
    stream=None)`` with
    ``groups`` a list of ``(a, b, sfa, sfb, c)`` as for :class:`nvfp4rt.ops.grouped_gemm.GroupedGemmPlan`.
    ``clusters`` sets how many unit runs the schedule cuts (default: the clusters the GPU holds at once; more makes
    more split tiles, fewer makes longer runs: tests use both).  ``wide_decode`` picks A's decode: the wide one
    (``ptx/nvfp4_decode_a16_wide.ptx``, one 1024-thread CTA per SM; groups that share k) or the item decode (True,
    False, or None: the wide one where the groups share k; :data:`WIDE_DECODE_AUTO`).  ``schedule``: "cut", "auto"
    or "dealt" (:func:`cluster_geometry`, :data:`DEFAULT_SCHEDULE`).  Every table entry of a group uses the group's
    four tensor maps (a16, b, sfb, c; the kernel offsets its coordinates by the entry's first row and column), which
    the kernel takes as the parameter ``p_maps`` (``param_maps`` True; None: where they fit, :data:`PARAM_MAPS_AUTO`;
    ``plan.param_slots`` is the build's slot count) or from a device buffer (False).  An alpha whose 2^28 multiple
    overflows fp32 is rejected (the op layer then runs the first grouped kernel).  The plan owns the A16 buffer, the
    workspace, the zeroed counters and the tables, so one plan must not run on two streams at once.
    """

    variant = "wgmma_cluster"

    def __init__(self, shapes, layouts=None, *, device=None, cluster: int = DEFAULT_CLUSTER,
                 stages: int | None = None, a_bufs: int | None = None, decode_cost: float = DECODE_COST,
                 epilogue_cost: float = EPILOGUE_COST, split_cost: float = SPLIT_COST, clusters: int | None = None,
                 head_check: bool = True, head_wait: int = DEFAULT_HEAD_WAIT, wide_decode: bool | None = None,
                 schedule: str = DEFAULT_SCHEDULE, param_maps: bool | None = None):
        if wide_decode is not None and not isinstance(wide_decode, (bool, np.bool_)):
            raise ValueError(f"wide_decode must be True, False or None, got {wide_decode!r}")
        if param_maps is not None and not isinstance(param_maps, (bool, np.bool_)):
            raise ValueError(f"param_maps must be True, False or None, got {param_maps!r}")
        probe = None

        def check(s):
            nonlocal probe
            probe = cluster_geometry(s, 1, cluster=cluster, stages=stages, a_bufs=a_bufs, schedule=schedule)

        props = self._setup_groups(shapes, layouts, device, geometry_check=check)
        dev, shapes = self.device, self.shapes
        if probe.shared_mem > props.max_shared_per_block_optin:
            raise ValueError(f"stages={probe.num_stages}, a_bufs={probe.a_bufs} need {probe.shared_mem} bytes of "
                             f"shared memory; the device allows {props.max_shared_per_block_optin}")
        from .gemm_wgmma_cluster import _max_active_clusters

        slots = param_map_slots(len(shapes))
        if param_maps and not slots:
            raise ValueError(f"param_maps=True: the maps of {len(shapes)} groups exceed the {MAX_PARAM_MAPS} groups' "
                             f"that fit a kernel parameter")
        if param_maps is None:
            param_maps = PARAM_MAPS_AUTO
        self.param_slots = slots if param_maps else 0
        self.constants = kernel_constants(probe.cluster, probe.a_bufs, head_check, head_wait, self.param_slots)
        self.kernel = _kernel(dev.ordinal, tuple(sorted(self.constants.items())))
        self.kernel.set_max_dynamic_shared(probe.shared_mem)
        self.max_clusters = _max_active_clusters(self.kernel, probe.cluster, _THREADS, probe.shared_mem,
                                                 props.sm_count)
        runs = self.max_clusters if clusters is None else positive_int("clusters", clusters)
        self.geometry = g = cluster_geometry(shapes, runs, cluster=cluster, stages=stages, a_bufs=a_bufs,
                                             decode_cost=decode_cost, epilogue_cost=epilogue_cost,
                                             split_cost=split_cost, schedule=schedule)
        self.shared_mem = g.shared_mem

        from ..memory import DeviceAllocation

        G = len(shapes)
        if wide_decode is None:
            wide_decode = WIDE_DECODE_AUTO and shares_k(shapes)
        # no L2 warm-up list: it slowed case 2 (session 37), and the wide decode reads none
        self._setup_decoded_a(g.workspace_bytes, g.counters, wide_decode=bool(wide_decode),
                              a16_rows_multiple=self.a16_box_rows if A16_MAP_ROUNDED else 1)
        E = len(g.groups)  # table entries: the groups, or the dealt schedule's runs of tiles
        self._table = DeviceAllocation((E + 1) * TABLE_ENTRY_BYTES, dev)
        # the groups' maps (slot i: the caller's group i): the p_maps parameter's bytes, or a device buffer
        self._tmap_buf = None if self.param_slots else DeviceAllocation(G * TMAPS_PER_GROUP_BYTES, dev)
        self._param_maps = None
        starts = g.starts_words()
        tile_ctas = g.tile_ctas_table()
        self._starts = DeviceAllocation(starts.nbytes, dev)
        self._tile_ctas = DeviceAllocation(tile_ctas.nbytes, dev)
        driver.call("cuMemcpyHtoD", self._starts.ptr, starts.ctypes.data, starts.nbytes)
        driver.call("cuMemcpyHtoD", self._tile_ctas.ptr, tile_ctas.ctypes.data, tile_ctas.nbytes)
        # the maps' host image, a slot of TMAPS_PER_GROUP_BYTES per caller's group (the A16 maps: _setup_decoded_a)
        self._host_maps = np.zeros(G * TMAPS_PER_GROUP_BYTES, dtype=np.uint8)
        self._map_sources = [None] * G  # per group: what its maps were last written from (_write_maps)
        self._launch = None

    def map_spec(self, i: int, which: str, padded: bool = False):
        m, n, k = self.shapes[i]
        lay = self.layouts[i]
        if which == "a16":
            return (self.a16_map_rows(m), k), (2 * k,), (self.a16_box_rows, 64), "128B"
        if which == "b":
            return (n, k // 2), (lay.b_row,), (TILE_N, STAGE_K // 2), "128B"
        if which == "sfb":
            pitch = -(-k // STAGE_K) * 16 if padded else lay.sfb_row
            inner = pitch if padded else k // 16
            return (n, inner), (pitch,), (TILE_N, STAGE_K // 16), "none"
        if which == "c":
            return (m, n), (2 * lay.c_row,), C_BOX, C_SWIZZLE
        raise ValueError(f"which must be 'a16', 'b', 'sfb' or 'c', got {which!r}")

    def _write_maps(self, i: int, ptrs: tuple, sfb: tuple, c_map: bool) -> None:
        """Write the maps of caller's group ``i`` into its slot of the maps' host image (a16 +0, b +128, sfb +256, c
        +C_MAP_OFFSET or zeros where c has no map), only the operands whose source moved since the last write.
        ``sfb``: (address TMA reads, padded)."""
        src = ((self._a16.ptr + self._decode.offsets[i], False), (ptrs[1], False), sfb,
               (ptrs[4], False) if c_map else None)
        last = self._map_sources[i]
        for k, (which, dtype) in enumerate((("a16", "float16"), ("b", "uint8"), ("sfb", "uint8"), ("c", "float16"))):
            if last is not None and last[k] == src[k]:
                continue
            off = i * TMAPS_PER_GROUP_BYTES + 128 * k
            self._host_maps[off:off + 128] = np.frombuffer(
                self._map(i, which, *src[k], dtype=dtype).bytes if src[k] else bytes(128), dtype=np.uint8)
        self._map_sources[i] = src

    @property
    def geometry_cluster(self) -> int:
        return self.constants["CLUSTER"]

    @property
    def a16_box_rows(self) -> int:
        """A16 rows of one TMA box (a rank's slice of a 128-row half)."""
        return HALF_M // self.geometry_cluster

    def run(self, groups, alphas=None, stream=None):
        """Launch the grouped decode and the grouped GEMM on ``stream``; returns the list of c."""
        groups = list(groups)
        repeat, repeated = self._relaunch_if_repeat(groups, alphas, stream)
        if repeated:  # the last call's buffers, alphas and stream
            return [grp[4] for grp in groups]
        alphas, ptrs, handle, key, padded_any = self._decoded_a_call(groups, alphas, stream)
        if key != self._uploaded_key or padded_any:  # padded scales are copied again every call
            c_maps = [c_tma_ok(p[4], lay.c_row) for p, lay in zip(ptrs, self.layouts)]
            for i, p in enumerate(ptrs):
                self._write_maps(i, p, self._scale_source(i, "sfb", p[3], handle), c_maps[i])
            if self.param_slots:
                param = self._host_maps.tobytes().ljust(self.param_slots * TMAPS_PER_GROUP_BYTES, b"\0")
                if param != self._param_maps:
                    self._param_maps = param
                    if self._launch is not None:
                        self._launch.set("p_maps", param)
            if key != self._uploaded_key:
                table = build_table(self.geometry, [p[4] for p in ptrs], [lay.c_row for lay in self.layouts],
                                    [a * _ALPHA_SCALE for a in alphas], c_maps)
                uploads = [(self._table, table), (self._decode_table, self._decode_table_for(ptrs))]
                if self._tmap_buf is not None:
                    uploads.append((self._tmap_buf, self._host_maps.copy()))
                self._upload(key, uploads, handle)
        self._decode.launch(self._decode_table.ptr, self._a16.ptr, handle)
        g = self.geometry
        self._launch_gemm(stream, lambda: self.kernel.prepare(
            Pointer(self._tmap_buf.ptr if self._tmap_buf is not None else 0), Pointer(self._table.ptr),
            Pointer(self._starts.ptr), Pointer(self._tile_ctas.ptr), Pointer(self._ws.ptr), Pointer(self._counters.ptr),
            g.num_stages, int(g.schedule == "dealt"), *((self._param_maps,) if self.param_slots else ()),
            grid=g.grid, block=_THREADS, cluster=(g.cluster, 1, 1), shared_mem=self.shared_mem, stream=stream,
            programmatic=True))
        if not padded_any:  # no per-call scale copy: a repeat of this call only needs the two launches
            self._repeat = repeat
        return [grp[4] for grp in groups]

    __call__ = run

    def __repr__(self) -> str:
        g = self.geometry
        return (f"<GroupedGemmClusterPlan groups={len(self.shapes)} units={g.units} clusters={g.clusters} "
                f"cluster={g.cluster} split_tiles={g.split_tiles} stages={g.num_stages} a_bufs={g.a_bufs} "
                f"decode={'wide' if self._decode.wide else 'items'} schedule={g.schedule} "
                f"param_slots={self.param_slots}>")
