"""NVFP4 GEMM on Hopper with A decoded once per call and shared across a cluster by TMA multicast.

Two launches per call, on one stream:

1. ``ptx/nvfp4_decode_a16.ptx`` (:mod:`nvfp4rt.ops.decode_a16`) decodes A and its
   scales into ``A16``, an fp16 ``[l][m][k]`` buffer the plan owns, in the k order
   of the wgmma kernels' fragment mapping;
2. ``ptx/gemm_nvfp4_wgmma_cluster.ptx`` (its header has the design), launched with
   programmatic dependent launch so its B loads and barrier setup overlap the decode;
   clusters of ``cluster`` CTAs along n share each A16 load by multicast.

This module holds what the host decides: :func:`cluster_geometry` (pure: the
stream-K split at cluster granularity), the shared-memory budget, and
:class:`GemmClusterPlan`, which follows the op layer's plan contract
(``nvfp4rt.ops.gemm``, docs/gemm.md)::

    plan = GemmClusterPlan(m, n, k, l, layout=None, *, alpha=1.0, device=None)
    plan(a, b, sfa, sfb, c, stream=None) -> c
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import driver
from ..launch import Pointer
from ..ptxsource import ptx_dir
from ._args import finite_float, flag, positive_int
from .gemm_wgmma import (GemmFacts, K_MULTIPLE, MAX_CHAIN_UNITS, STAGE_K, TILE, _layout, _layout_problem, hopper_problem,
                         launch_with_maps, operand_pointers, padded_scale_rows, repeat_key)

__all__ = ["GemmClusterPlan", "GemmClusterGeometry", "cluster_geometry", "choose_ksplit", "supports", "shared_bytes",
           "a_unit", "c_pitch", "kernel_constants", "ks_exchange_bytes", "ks_park_bytes", "ks_pitch",
           "ksplit_candidates", "param_map_slots",
           "ksplit_stages", "pick_ksplit", "prefer_ksplit", "prefer_pairs", "prefer_whole_tiles", "streamk_cost",
           "STREAMK_UNITS_PER_EXTRA", "WHOLE_TILE_SLACK", "ring_bytes", "CLUSTER_SIZES", "KSPLIT_SIZES",
           "WGMMA_DEPTHS", "help_fits", "help_schedule", "MAX_HELP_SEGMENTS", "MAX_HELP_SLOTS", "A_WAIT_CLOCKS",
           "a_chunks", "async_bytes"]

_KERNEL_FILE = "gemm_nvfp4_wgmma_cluster.ptx"
_ENTRY = "nvfp4_gemm_wgmma_cluster"
#: consumer warpgroups per CTA (template constant CONSUMER_WGS): each owns 64 B rows, so a CTA tile is
#: 64 * CONSUMER_WGS B rows; 3 puts three consumer warps on every scheduler (setmaxnreg: 152 registers each)
CONSUMER_WGS_CHOICES = (2, 3)
DEFAULT_CONSUMER_WGS = 2
#: CTAs per cluster along n (template constant CLUSTER): each loads 128/CLUSTER rows of every A16 box
CLUSTER_SIZES = (1, 2, 4)
DEFAULT_CLUSTER = 2
_A16_BUF_BYTES = TILE * 128  # 128 rows x k64 fp16
_ALIGN_SLACK = 1024
MIN_STAGES, MAX_STAGES = 2, 6
A_BUFS_CHOICES = (4, 5, 6, 7, 8, 9, 10)
#: Default rings (B stages, a16 buffers) with two consumer warpgroups, every schedule: eight a16 buffers, a multiple
#: of four, so that the unit loop takes its unit-aligned form (A_UNIT: barriers and descriptors at constant offsets
#: from per-unit bases, 36 fewer instructions per unit), and three B stages, which the 272-byte staging pitch leaves
#: room for beside a stream-K build's staging tile.  On the H100 they beat the rings before (4 and 6; a K split's 3 and
#: 10) by 0.2-2.6 us kernel alone on every benchmark shape (docs/gemm.md, "The unit-aligned a16 ring")
_DEFAULT_STAGES, _DEFAULT_A_BUFS = 3, 8
#: Three consumer warpgroups: 27 KB stages; four of them and four a16 buffers fit the 227 KB opt-in limit
_STAGES_3WG, _A_BUFS_3WG = 4, 4
#: wgmma groups each consumer warpgroup leaves in flight at its per-piece wait (template constant WG_WAIT)
WGMMA_DEPTHS = (1, 3)
#: alpha is passed times 2^28 (subnormal operands, see the PTX header); larger alphas overflow fp32
_ALPHA_SCALE = 2.0**28


#: SM clocks a stream-K head polls its tile counter before it writes its partial (template HEAD_WAIT)
DEFAULT_HEAD_WAIT = 32768
#: FUSED_A: SM clocks the A16 producer waits for a chunk's flag before it decodes the chunk itself (the decoding CTA
#: is then not resident: another grid holds the SMs).  The decode of every chunk normally ends within a few us.
A_WAIT_CLOCKS = 1 << 17
#: CTAs of a cluster that split one tile's k and reduce through distributed shared memory (template KSPLIT);
#: 1 is the stream-K schedule.  Each CTA reduces 128/KSPLIT of the tile's rows, 16 rows per pass.
KSPLIT_SIZES = (1, 2, 4, 8)


def tile_n(consumer_wgs: int) -> int:
    """B rows (n) of one CTA tile."""
    return 64 * consumer_wgs


def stage_bytes(consumer_wgs: int) -> int:
    """One ring slot: [B tile_n x 128 bytes | sfb tile_n x 16]."""
    return tile_n(consumer_wgs) * (STAGE_K // 2 + STAGE_K // 16)


def c_pitch(ksplit: int = 1, consumer_wgs: int = DEFAULT_CONSUMER_WGS) -> int:
    """Row pitch of the fp16 C staging tile (template constant C_PITCH): a row of the tile's ``tile_n`` fp16
    columns plus 16 bytes (272 or 400: the row pitch is 16 mod 128 bytes, so the staging stores are conflict-free),
    or 0 for a K split, whose epilogue stores straight from the reduction and parks its partials over the drained
    rings, so the staging tile's 34 or 50 KB go to deeper rings instead."""
    return 0 if ksplit > 1 else 2 * tile_n(consumer_wgs) + 16


#: bytes of one m tile's maps among a GROUPED build's parameters (b, sfb, a16, c: 128 each)
PARAM_MAP_BYTES = 512
#: the most m tiles whose maps go as a parameter: 32 x 512 bytes, well inside the 32764 bytes a launch may pass
MAX_PARAM_MAPS = 32


def param_map_slots(count: int) -> int:
    """The p_maps slots a grouped build for ``count`` map sets (the m-tile plan's m tiles, the grouped cluster
    kernel's groups) takes (pure): the next power of two, so that few builds serve every count, or 0 where that
    exceeds MAX_PARAM_MAPS and the maps stay in device memory."""
    slots = 1 << max(0, int(count) - 1).bit_length()
    return slots if slots <= MAX_PARAM_MAPS else 0

#: GROUPED builds stage each warpgroup's 64 output columns as one TMA-store box: 128-byte rows, 128B-swizzled
#: (template constant STG_PITCH; the other builds stage at C_PITCH)
STAGING_BOX_ROW = 128


def ks_pitch(consumer_wgs: int = DEFAULT_CONSUMER_WGS) -> int:
    """Row pitch of the K split's parked fp32 partial (template constant KS_PITCH): 4 * (tile_n + 4) bytes, so the
    32 lanes of every store hit 32 banks."""
    return 4 * (tile_n(consumer_wgs) + 4)


def ks_park_bytes(consumer_wgs: int = DEFAULT_CONSUMER_WGS) -> int:
    """The K split's fp32 partial tile P (128 rows of KS_PITCH bytes), parked from the ring base over the ring
    slots and the a16 buffers."""
    return TILE * ks_pitch(consumer_wgs)


def ks_exchange_bytes(consumer_wgs: int = DEFAULT_CONSUMER_WGS, ksplit: int = 2) -> int:
    """What the K split's exchange puts over the drained rings: the parked partial P, then a receive slot of
    ``128 / ksplit`` rows of P for each of the other ``ksplit - 1`` CTAs (their partials of this CTA's output rows)."""
    return ks_park_bytes(consumer_wgs) + (ksplit - 1) * (TILE // ksplit) * ks_pitch(consumer_wgs)


def ring_bytes(num_stages: int, a_bufs: int, consumer_wgs: int = DEFAULT_CONSUMER_WGS) -> int:
    """The B ring and the a16 buffers: the space a K split reuses once its main loop is over."""
    return num_stages * stage_bytes(consumer_wgs) + a_bufs * _A16_BUF_BYTES


def shared_bytes(num_stages: int, a_bufs: int, consumer_wgs: int = DEFAULT_CONSUMER_WGS, ksplit: int = 1,
                 help: bool = False) -> int:
    """Dynamic shared memory of one CTA (the PTX header's launch contract): every ``ksplit > 1`` build reserves 32
    bytes after the flag words for the push exchange's FREE, RECV and DONE barriers and the tail helpers' WREADY (the
    pairs' build leaves them unused); the tail helpers' build 16 more for PUB and PDONE."""
    return (_ALIGN_SLACK + ring_bytes(num_stages, a_bufs, consumer_wgs) + TILE * c_pitch(ksplit, consumer_wgs)
            + 16 * num_stages + 16 * a_bufs + 16 + (32 if ksplit > 1 else 0) + (16 if help else 0))


@dataclass(frozen=True)
class GemmClusterGeometry:
    """How the cluster kernel splits an ``(m, n, k, l)`` GEMM: units are k256 stages of cluster tiles."""

    m: int
    n: int
    k: int
    l: int
    cluster: int
    m_tiles: int
    n_tiles: int  # cluster tiles along n (tile_n * cluster B rows each)
    k_stages: int
    units: int
    units_per_cluster: int
    clusters: int
    num_stages: int
    a_bufs: int
    consumer_wgs: int = DEFAULT_CONSUMER_WGS
    ksplit: int = 1  # > 1: clusters of ksplit CTAs split each tile's k (cluster is then 1), no stream-K
    #: stream-K over K-split pairs (ksplit 2): pair q runs units [q * upc, (q + 1) * upc) (upc <= k_stages), its
    #: CTA r the odd or even ones (u % 2 == r); ``clusters`` counts pairs
    ks_stream: bool = False
    #: K split with tail helpers (ksplit 2): every tile's pair runs k stages [0, k_stages - help_tail) and
    #: ``helpers`` more CTAs split the tiles' last ``help_tail`` stages between them, ``help_upc`` tail stages each
    #: (:func:`help_schedule`); ``help_slots``: the most helpers that touch one tile (its W slots)
    help_tail: int = 0
    helpers: int = 0
    help_upc: int = 0
    help_slots: int = 0

    @property
    def tile_n(self) -> int:
        return tile_n(self.consumer_wgs)

    @property
    def launch_cluster(self) -> int:
        """CTAs per launched cluster: the multicast cluster, or the K-split cluster."""
        return self.ksplit if self.ksplit > 1 else self.cluster

    @property
    def threads(self) -> int:
        return 128 * (1 + self.consumer_wgs)

    @property
    def grid(self) -> int:
        if self.help_tail:
            return 2 * self.tiles + self.helpers
        return self.clusters * (2 if self.ks_stream else self.cluster)

    @property
    def main_units(self) -> int:
        """k stages of each tile that its K-split pair runs (all of them without tail helpers)."""
        return self.k_stages - self.help_tail

    @property
    def tiles(self) -> int:
        """Cluster tiles (each is ``cluster`` CTA tiles of 128 x 128)."""
        return self.l * self.m_tiles * self.n_tiles

    @property
    def counters(self) -> int:
        if self.help_tail:
            return 2 * self.tiles  # one per tile and half (a pair CTA's output rows)
        if self.ks_stream:
            return self.tiles
        return 1 if self.ksplit > 1 else self.tiles * self.cluster  # the K split keeps no counters

    @property
    def workspace_bytes(self) -> int:
        if self.help_tail:  # the helpers' fp32 partials (help_slots per tile), then S of each half
            return (self.help_slots + 1) * self.tiles * TILE * self.tile_n * 4
        if self.ksplit > 1 and not self.ks_stream:
            return 16  # partials stay in shared memory
        return 2 * self.grid * self.tile_n * TILE * 4  # fp32 partial tiles: two slots per CTA

    @property
    def shared_mem(self) -> int:
        return shared_bytes(self.num_stages, self.a_bufs, self.consumer_wgs, self.ksplit, self.help_tail > 0)

    def contributors(self, tile: int) -> range:
        """The clusters (pairs with ``ks_stream``) whose unit runs touch cluster tile ``tile``, in the reduction's
        order."""
        first = tile * self.k_stages
        return range(first // self.units_per_cluster, (first + self.k_stages - 1) // self.units_per_cluster + 1)


def help_schedule(tiles: int, k_stages: int, help_tail: int, helpers: int) -> tuple[int, int, int]:
    """(tail stages per helper, the most helpers touching one tile, the most tiles one helper touches) of the K split
    with tail helpers (pure): helper h runs tail units ``[h * upc, (h + 1) * upc)`` of the ``tiles * help_tail``
    (tile-major), so a tile's tail is split among at most ``help_slots`` consecutive helpers."""
    total = tiles * help_tail
    upc = -(-total // helpers)
    slots = max((t * help_tail + help_tail - 1) // upc - (t * help_tail) // upc + 1 for t in range(tiles))
    segs = max((min(h * upc + upc, total) - 1) // help_tail - (h * upc) // help_tail + 1
               for h in range(-(-total // upc)))
    return upc, slots, segs


#: the most tiles one helper may touch: its publisher keeps 2 bits per tile in one 32-bit mask
MAX_HELP_SEGMENTS = 16


#: the most helpers one tile's pair takes partials from: their copies land in shared memory after the exchange
MAX_HELP_SLOTS = 3


def check_help_tail(k_stages: int, help_tail: int) -> None:
    """Refuse a tail that leaves a pair fewer than 2 or more than 2 * MAX_CHAIN_UNITS stages, or is itself longer than
    MAX_CHAIN_UNITS (the helpers' and the pair CTAs' chains stay within the accuracy limit)."""
    if not 2 <= k_stages - help_tail <= 2 * MAX_CHAIN_UNITS or help_tail > MAX_CHAIN_UNITS:
        raise ValueError(f"help_tail={help_tail} must leave the pairs 2..{2 * MAX_CHAIN_UNITS} of the {k_stages} k "
                         f"stages and be at most {MAX_CHAIN_UNITS}")


def help_fits(help_slots: int, num_stages: int, a_bufs: int) -> bool:
    """Whether a pair CTA's rings hold P, its receive slot and ``help_slots`` 32 KB helper partials."""
    return 192 * ks_pitch(2) + help_slots * (TILE // 2) * tile_n(2) * 4 <= ring_bytes(num_stages, a_bufs, 2)


def cluster_geometry(m: int, n: int, k: int, l: int, max_clusters: int, *, cluster: int = DEFAULT_CLUSTER,
                     stages: int | None = None, a_bufs: int | None = None,
                     units_per_cluster: int | None = None,
                     consumer_wgs: int = DEFAULT_CONSUMER_WGS, ksplit: int = 1,
                     ks_stream: bool = False, help_tail: int = 0, helpers: int = 0) -> GemmClusterGeometry:
    """The work split (pure).  ``max_clusters``: clusters the GPU runs at once (one wave).

    ``ksplit > 1``: every tile is one cluster of ``ksplit`` CTAs, CTA r running k stages
    ``[r * k_stages / ksplit, (r + 1) * k_stages / ksplit)`` (the grid may then take several waves); it
    needs ``cluster=1`` and ``k_stages`` divisible by ``ksplit``, and ``units_per_cluster`` follows.

    ``ks_stream=True`` (with ``ksplit=2``): stream-K over K-split pairs.  ``max_clusters`` pairs (one wave) take
    runs of ``units_per_cluster`` units (default: an even share, at most ``k_stages`` so that a run touches at
    most two tiles and never holds a whole tile with more after it, and at most ``2 * MAX_CHAIN_UNITS`` so that
    each CTA's chain stays within MAX_CHAIN_UNITS); CTA r of a pair runs the run's units with ``u % 2 == r``.

    ``help_tail > 0`` (with ``ksplit=2``, two consumer warpgroups): the K split with tail helpers.  Tile t's pair runs
    stages ``[0, k_stages - help_tail)`` (rank 0 the first ceil half), and ``helpers`` more CTAs (an even number: they
    launch in clusters of 2 too) share the tiles' last ``help_tail`` stages (:func:`help_schedule`); the grid is
    ``2 * tiles + helpers``, all of which must run at once for the balance to pay (nothing waits across clusters)."""
    m, n, k, l, max_clusters = (positive_int(nm, v) for nm, v in
                                (("m", m), ("n", n), ("k", k), ("l", l), ("max_clusters", max_clusters)))
    if k % K_MULTIPLE:
        raise ValueError(f"k must be a multiple of {K_MULTIPLE}, got {k}")
    if isinstance(cluster, bool) or cluster not in CLUSTER_SIZES:
        raise ValueError(f"cluster must be one of {CLUSTER_SIZES}, got {cluster!r}")
    if isinstance(consumer_wgs, bool) or consumer_wgs not in CONSUMER_WGS_CHOICES:
        raise ValueError(f"consumer_wgs must be one of {CONSUMER_WGS_CHOICES}, got {consumer_wgs!r}")
    two = consumer_wgs == 2
    s = (_DEFAULT_STAGES if two else _STAGES_3WG) if stages is None else positive_int("stages", stages)
    if not MIN_STAGES <= s <= MAX_STAGES:
        raise ValueError(f"stages must be in {MIN_STAGES}..{MAX_STAGES}, got {s}")
    ab = (_DEFAULT_A_BUFS if two else _A_BUFS_3WG) if a_bufs is None else a_bufs
    if isinstance(ab, bool) or ab not in A_BUFS_CHOICES:
        raise ValueError(f"a_bufs must be one of {A_BUFS_CHOICES}, got {a_bufs!r}")
    if isinstance(ksplit, bool) or ksplit not in KSPLIT_SIZES:
        raise ValueError(f"ksplit must be one of {KSPLIT_SIZES}, got {ksplit!r}")
    m_tiles, n_tiles, k_stages = -(-m // TILE), -(-n // (tile_n(consumer_wgs) * cluster)), -(-k // STAGE_K)
    units = l * m_tiles * n_tiles * k_stages
    if units * cluster >= 2**31:
        raise ValueError(f"problem too large: {units} units do not fit the kernel's 32-bit indices")
    if flag("ks_stream", ks_stream):
        if ksplit != 2 or cluster != 1:
            raise ValueError(f"ks_stream needs ksplit=2 and cluster=1, got ksplit={ksplit}, cluster={cluster}")
        cap = min(k_stages, 2 * MAX_CHAIN_UNITS)
        if units_per_cluster is None:
            upc = min(-(-units // max_clusters), cap)
        else:
            upc = positive_int("units_per_cluster", units_per_cluster)
            if upc > cap:
                raise ValueError(f"units_per_cluster must be at most min(k_stages, {2 * MAX_CHAIN_UNITS}) = {cap} "
                                 f"with ks_stream, got {upc}")
        return GemmClusterGeometry(m, n, k, l, cluster, m_tiles, n_tiles, k_stages, units, upc, -(-units // upc), s,
                                   int(ab), int(consumer_wgs), 2, True)
    if help_tail:
        help_tail, helpers = positive_int("help_tail", help_tail), positive_int("helpers", helpers)
        if ksplit != 2 or cluster != 1 or consumer_wgs != 2:
            raise ValueError(f"help_tail needs ksplit=2, cluster=1 and consumer_wgs=2, got ksplit={ksplit}, "
                             f"cluster={cluster}, consumer_wgs={consumer_wgs}")
        if helpers % 2:
            raise ValueError(f"helpers must be even (they launch in clusters of 2), got {helpers}")
        check_help_tail(k_stages, help_tail)
        tiles = l * m_tiles * n_tiles
        hupc, slots, segs = help_schedule(tiles, k_stages, help_tail, helpers)
        if slots > MAX_HELP_SLOTS or not help_fits(slots, s, ab) or segs > MAX_HELP_SEGMENTS:
            raise ValueError(f"help_tail={help_tail} with {helpers} helpers gives a tile {slots} helpers and a helper "
                             f"{segs} tiles; at most {MAX_HELP_SLOTS} whose partials fit stages={s}, a_bufs={ab}, and "
                             f"{MAX_HELP_SEGMENTS} tiles")
        return GemmClusterGeometry(m, n, k, l, 1, m_tiles, n_tiles, k_stages, units, k_stages, tiles, s, int(ab), 2, 2,
                                   False, int(help_tail), int(helpers), hupc, slots)
    if ksplit > 1:
        if cluster != 1:
            raise ValueError(f"ksplit={ksplit} needs cluster=1 (the K-split CTAs load different k), got {cluster}")
        upc = ksplit_stages(k_stages, ksplit, units_per_cluster)
        need = ks_exchange_bytes(consumer_wgs, ksplit)
        if a_bufs is None:  # default rings: as many a16 buffers as the exchange needs (ksplit 8, three warpgroups: 5)
            ab = next((b for b in A_BUFS_CHOICES if b >= ab and need <= ring_bytes(s, b, consumer_wgs)), ab)
        if need > ring_bytes(s, ab, consumer_wgs):
            raise ValueError(f"ksplit={ksplit} with consumer_wgs={consumer_wgs} exchanges {need} bytes, more than the "
                             f"{ring_bytes(s, ab, consumer_wgs)} of stages={s}, a_bufs={ab}")
        return GemmClusterGeometry(m, n, k, l, cluster, m_tiles, n_tiles, k_stages, units, upc, units // upc, s,
                                   int(ab), int(consumer_wgs), int(ksplit))
    if units_per_cluster is None:
        upc = -(-units // max_clusters)  # one wave
        if k_stages > MAX_CHAIN_UNITS:  # no chain past 8192 k (otherwise a run holds at most k_stages of one tile)
            upc = min(upc, MAX_CHAIN_UNITS)
    else:
        upc = positive_int("units_per_cluster", units_per_cluster)
    return GemmClusterGeometry(m, n, k, l, cluster, m_tiles, n_tiles, k_stages, units, upc, -(-units // upc), s,
                               int(ab), int(consumer_wgs))


#: what one extra contributor of a split tile costs the stream-K schedule, in k256 units of main-loop time
#: (fitted on the H100, docs/device-logs/2026-11-22-session8/04-occupancy-ab.log: 1 picks stream-K for
#: 128x7168x16384, 1.3 us slower than the K split; 3 picks the split for 128x4096x7168, 3.4 us slower)
STREAMK_UNITS_PER_EXTRA = 2
#: How many k256 units longer than the stream-K estimate (:func:`streamk_cost`) a CTA's whole tile may run and still
#: be taken instead (:func:`prefer_whole_tiles`); the grouped plans use the same slack against an even share
WHOLE_TILE_SLACK = 3


def choose_ksplit(m: int, n: int, k: int, l: int, sm_count: int, *, consumer_wgs: int = DEFAULT_CONSUMER_WGS,
                  max_active: dict | None = None, streamk_cluster: int = DEFAULT_CLUSTER) -> int:
    """The K split for a problem (pure): 1 (stream-K) or a ``ksplit`` of :data:`KSPLIT_SIZES`
    (:func:`prefer_ksplit` with this kernel's tiles; the stream-K schedule estimated with
    ``sm_count // streamk_cluster`` clusters)."""
    streamk, tiles = _ksplit_problem(m, n, k, l, sm_count, consumer_wgs, streamk_cluster)
    return prefer_ksplit(streamk, tiles, sm_count, KSPLIT_SIZES, max_active)


def _ksplit_problem(m, n, k, l, sm_count, consumer_wgs=DEFAULT_CONSUMER_WGS, streamk_cluster=DEFAULT_CLUSTER):
    """(the stream-K schedule with ``sm_count // streamk_cluster`` clusters, the CTA tiles) of a problem."""
    g = cluster_geometry(m, n, k, l, max(1, sm_count // streamk_cluster), cluster=streamk_cluster,
                         consumer_wgs=consumer_wgs)
    return g, l * g.m_tiles * -(-n // tile_n(consumer_wgs))


def prefer_ksplit(streamk: GemmClusterGeometry, tiles: int, sm_count: int, sizes=KSPLIT_SIZES,
                  max_active: dict | None = None) -> int:
    """K split or stream-K (pure), for the cluster GEMM and the dual: ``streamk`` is the stream-K schedule,
    ``tiles`` the CTA tiles.

    A split is a candidate when it divides the k stages (at most MAX_CHAIN_UNITS per CTA) and all ``tiles``
    clusters of ``ksplit`` CTAs run at once: ``tiles <= max_active[ksplit]`` (clusters of that size the device
    holds, cuOccupancyMaxActiveClusters: a GPC holds only whole clusters, so on an H100 30 clusters of 4 fit,
    not 33; default ``sm_count // ksplit``).  Its cost is its stages per CTA; stream-K's is its units per
    cluster plus ``STREAMK_UNITS_PER_EXTRA`` units per extra contributor of an average tile (each one's partial
    goes through the workspace and is read back by the tile's head).  The cheapest candidate wins if it
    costs no more than stream-K (docs/gemm.md has the measurements the constant was fitted to)."""
    kb = streamk.k_stages
    active = dict(max_active or {})
    fits = [ks for ks in ksplit_candidates(kb, tiles, sm_count, sizes) if tiles <= active.get(ks, sm_count // ks)]
    if not fits:
        return 1
    best = max(fits)  # fewest stages per CTA
    return best if kb // best <= streamk_cost(streamk) else 1


def streamk_cost(streamk: GemmClusterGeometry) -> float:
    """The stream-K schedule's estimated cost in k256 units of main-loop time (pure): its units per cluster plus
    ``STREAMK_UNITS_PER_EXTRA`` per extra contributor of an average tile."""
    extra = sum(len(streamk.contributors(t)) - 1 for t in range(streamk.tiles)) / streamk.tiles
    return streamk.units_per_cluster + STREAMK_UNITS_PER_EXTRA * extra


def prefer_whole_tiles(streamk: GemmClusterGeometry, tiles: int, max_ctas: int) -> bool:
    """Whether one whole tile per CTA (clusters of 1, ``units_per_cluster = k_stages``: no partial, no exchange)
    replaces the stream-K schedule (pure; asked where no K split fits).  It must take every tile in one wave of
    ``max_ctas`` CTAs, hold at most MAX_CHAIN_UNITS stages, and cost at most WHOLE_TILE_SLACK units more than
    :func:`streamk_cost`: the exchange of a split tile costs more than that model's constant where the tiles'
    runs are short.  Measured on the H100 (docs/gemm.md, "Whole tiles"; whole calls, us, stream-K against whole
    tiles): 640x3072x4096 40.9 / 34.7, 256x7168x2048 26.1 / 21.9, 896x2048x3072 34.0 / 28.6, 384x4096x4096 35.6 /
    33.5 (2 units over the model), 768x2048x4096 35.9 / 34.3 (2 over); 320x3072x4096 31.0 / 32.5 (3.7 over)."""
    kb = streamk.k_stages
    return tiles <= max_ctas and kb <= MAX_CHAIN_UNITS and kb <= streamk_cost(streamk) + WHOLE_TILE_SLACK


def prefer_pairs(units: int, k_stages: int, max_pairs: int) -> bool:
    """Whether stream-K over K-split pairs replaces the stream-K schedule (pure; asked only where
    :func:`prefer_ksplit` kept stream-K): when ``max_pairs`` pairs (cuOccupancyMaxActiveClusters for clusters of 2)
    take all ``units`` in one wave with runs of at most half a tile's ``k_stages`` (and at most 2 * MAX_CHAIN_UNITS).
    Measured on the H100 (docs/gemm.md, "Stream-K over K-split pairs"): runs of half a tile beat stream-K on all five
    shapes tried (28.3 against 30.1 us on 128x4096x7168); runs of 47 of 64 stages lose (60.7 against 54.1 us on
    192x3072x16384: the heads wait for tails that end with them), and runs longer than a tile need a second wave."""
    return -(-units // max(1, max_pairs)) <= min(k_stages // 2, 2 * MAX_CHAIN_UNITS)


def ksplit_candidates(k_stages: int, tiles: int, sm_count: int, sizes=KSPLIT_SIZES) -> list[int]:
    """The splits of ``sizes`` that divide ``k_stages`` (at most MAX_CHAIN_UNITS per CTA) and whose ``tiles *
    ksplit`` CTAs fit ``sm_count`` SMs: what :func:`prefer_ksplit` may take before occupancy is known."""
    return [ks for ks in sizes if ks > 1 and k_stages % ks == 0 and k_stages // ks <= MAX_CHAIN_UNITS
            and tiles * ks <= sm_count]


def pick_ksplit(streamk: GemmClusterGeometry, tiles: int, sm_count: int, sizes, kernel_for, threads: int) -> int:
    """The K split a plan runs: the occupancy of each candidate's kernel (``kernel_for(ksplit)`` gives its kernel
    and dynamic shared memory; only the candidates are loaded), then :func:`prefer_ksplit`.  The GEMM and dual
    plans share it."""
    active = {}
    for ks in ksplit_candidates(streamk.k_stages, tiles, sm_count, sizes):
        kern, shared_mem = kernel_for(ks)
        kern.set_max_dynamic_shared(shared_mem)
        active[ks] = _max_active_clusters(kern, ks, threads, shared_mem, sm_count)
    return prefer_ksplit(streamk, tiles, sm_count, sizes, active)


def ksplit_stages(k_stages: int, ksplit: int, units_per_cluster: int | None = None) -> int:
    """k stages per CTA of a K split (checked: ``ksplit`` divides ``k_stages``, at most MAX_CHAIN_UNITS each, and
    an explicit ``units_per_cluster`` agrees); the GEMM's and the dual's geometries share it."""
    if k_stages % ksplit or k_stages // ksplit > MAX_CHAIN_UNITS:
        raise ValueError(f"ksplit={ksplit} needs k/256 = {k_stages} divisible by it, with at most "
                         f"{MAX_CHAIN_UNITS} stages per CTA")
    upc = k_stages // ksplit
    if units_per_cluster is not None and units_per_cluster != upc:
        raise ValueError(f"units_per_cluster must be k_stages / ksplit = {upc} with ksplit={ksplit}, "
                         f"got {units_per_cluster!r}")
    return upc


@lru_cache(maxsize=1024)
def supports(m, n, k, l, layout=None, alpha: float = 1.0) -> bool:
    """True when this kernel can run the problem (the op layer asks before choosing it, on every call: the
    answer is cached per argument tuple, 22 us -> well under 1 us of host time)."""
    try:
        cluster_geometry(m, n, k, l, 1)
        if abs(float(alpha)) * _ALPHA_SCALE > float(np.finfo(np.float32).max):
            return False
        return _layout_problem(m, n, k, l, _layout(m, n, k, l, layout)) is None
    except (ValueError, TypeError):
        return False


def kernel_constants(cluster: int = DEFAULT_CLUSTER, a_bufs: int = _DEFAULT_A_BUFS, wgmma_depth: int = 1,
                     consumer_wgs: int = DEFAULT_CONSUMER_WGS, head_check: bool = True,
                     head_wait: int = DEFAULT_HEAD_WAIT, ksplit: int = 1, ks_stream: bool = False,
                     ks_help: bool = False, grouped: bool = False, dual: bool = False, fused_a: bool = False,
                     a_wait: int = A_WAIT_CLOCKS, row_classes=None, param_maps: int = 0) -> dict:
    """The template constants of one kernel variant (see the PTX header).

    ``head_check=False`` builds the stream-K hand-off without the head's early look at the tile counter
    (every contributor writes its partial): the tests compare the two bit for bit.  ``head_wait``: how many
    SM clocks the head polls the counter for before it falls back to writing its partial (0: one look).
    ``ksplit > 1`` builds the K-split epilogue instead (cluster must be 1); with ``ks_stream`` (ksplit 2) the pairs run
    stream-K runs and the head pair also adds the other pairs' partials (``head_check``/``head_wait`` as above).
    ``grouped`` builds the m-tile table form (GROUPED: operands and output of each m tile of at most 128 rows from
    the table the grouped GEMM passes as ``p_mtiles``; the stream-K schedule only, so ``ksplit`` must be 1).  ``dual`` builds the
    dual GEMM on these tiles (DUAL: B1 rows for warpgroup 0, B2 rows for warpgroup 1, silu * mul at the store;
    :mod:`nvfp4rt.ops.dual_gemm_tiles`), which needs ``ksplit`` 1, two consumer warpgroups and no ``grouped``.
    ``fused_a`` builds the kernel that decodes A itself (FUSED_A: each CTA's consumers decode a share of A16 before
    their first unit and count it in on a flag its A16 producer waits for; no decode launch), which needs two
    consumer warpgroups, no ``grouped`` and no ``ks_help``; ``a_wait``: the SM clocks its A16 producer waits for a
    chunk before decoding the chunk itself (0: at once, so every chunk not yet decoded is decoded twice; for tests).
    ``row_classes`` (``grouped`` only; default ``(TILE,)``): the A row counts the build has unit loops for, largest
    first (ROW_CLASSES, e.g. ``"128_96_80"``; PTX header, "ROW CLASSES"), each a multiple of
    :func:`row_class_step`.  ``param_maps`` (``grouped`` only; 0 to MAX_PARAM_MAPS): the m tiles whose tensor maps the
    kernel takes as a parameter (PARAM_MAPS; 512 bytes each, ``p_maps``) instead of from the m-tile table, so its
    producers and storing threads need no tensor-map proxy fence (PTX header, "MAPS AS PARAMETERS")."""
    if isinstance(wgmma_depth, bool) or wgmma_depth not in WGMMA_DEPTHS:
        raise ValueError(f"wgmma_depth must be one of {WGMMA_DEPTHS}, got {wgmma_depth!r}")
    if wgmma_depth == 3 and a_bufs < 6:
        # the consumers wait for a unit's four buffers at its top while two earlier ones await release
        raise ValueError(f"wgmma_depth=3 needs a_bufs >= 6, got {a_bufs}")
    if isinstance(consumer_wgs, bool) or consumer_wgs not in CONSUMER_WGS_CHOICES:
        raise ValueError(f"consumer_wgs must be one of {CONSUMER_WGS_CHOICES}, got {consumer_wgs!r}")
    if wgmma_depth == 3 and consumer_wgs != 2:
        raise ValueError("wgmma_depth=3 needs consumer_wgs=2 (with 152 registers ptxas serialises the wgmmas)")
    if isinstance(ksplit, bool) or ksplit not in KSPLIT_SIZES:
        raise ValueError(f"ksplit must be one of {KSPLIT_SIZES}, got {ksplit!r}")
    if ksplit > 1 and cluster != 1:
        raise ValueError(f"ksplit={ksplit} needs cluster=1, got {cluster}")
    if flag("ks_stream", ks_stream) and ksplit != 2:
        raise ValueError(f"ks_stream needs ksplit=2, got {ksplit}")
    if flag("ks_help", ks_help) and (ksplit != 2 or ks_stream or consumer_wgs != 2):
        raise ValueError("ks_help (tail helpers) needs ksplit=2, consumer_wgs=2 and no ks_stream")
    if flag("grouped", grouped) and ksplit != 1:
        raise ValueError(f"grouped needs ksplit=1 (the stream-K schedule), got {ksplit}")
    if grouped and consumer_wgs != 2:
        raise ValueError(f"grouped needs consumer_wgs=2 (one 64-column TMA-store box per warpgroup), got "
                         f"{consumer_wgs}")
    if flag("dual", dual) and (ksplit != 1 or grouped or consumer_wgs != 2):
        raise ValueError(f"dual needs ksplit=1, consumer_wgs=2 and grouped=False, got ksplit={ksplit}, "
                         f"consumer_wgs={consumer_wgs}, grouped={grouped}")
    if flag("fused_a", fused_a) and (consumer_wgs != 2 or grouped or ks_help):
        raise ValueError(f"fused_a needs consumer_wgs=2, grouped=False and ks_help=False, got consumer_wgs="
                         f"{consumer_wgs}, grouped={grouped}, ks_help={ks_help}")
    if isinstance(a_wait, bool) or not isinstance(a_wait, (int, np.integer)) or not 0 <= a_wait < 2**40:
        raise ValueError(f"a_wait must be an int of clocks in [0, 2^40), got {a_wait!r}")
    if row_classes is None:
        row_classes = (TILE,)
    elif not grouped:
        raise ValueError("row_classes needs grouped=True")
    if isinstance(param_maps, bool) or not isinstance(param_maps, (int, np.integer)) \
            or not 0 <= param_maps <= MAX_PARAM_MAPS:
        raise ValueError(f"param_maps must be an int in 0..{MAX_PARAM_MAPS}, got {param_maps!r}")
    if param_maps and not grouped:
        raise ValueError("param_maps needs grouped=True")
    classes = check_row_classes(row_classes, cluster)
    tn = tile_n(consumer_wgs)
    return {"CLUSTER": int(cluster), "CLUSTER_LOG2": int(cluster).bit_length() - 1, "A_BUFS": int(a_bufs),
            "WG_WAIT": int(wgmma_depth),
            "A_UNIT": a_unit(a_bufs, wgmma_depth),
            "CONSUMER_WGS": int(consumer_wgs), "TILE_N": tn, "THREADS": 128 * (1 + consumer_wgs),
            "CONSUMERS": 128 * consumer_wgs, "STAGE_BYTES": stage_bytes(consumer_wgs), "SFB_OFF": tn * (STAGE_K // 2),
            "C_PITCH": c_pitch(ksplit, consumer_wgs),
            "STG_PITCH": STAGING_BOX_ROW if grouped else c_pitch(ksplit, consumer_wgs),
            **head_constants(head_check, head_wait),
            "KSPLIT": int(ksplit), "KS_PITCH": ks_pitch(consumer_wgs), "KS_STREAM": int(bool(ks_stream)),
            "KS_PUSH": int(ksplit > 1 and not ks_stream), "KS_HELP": int(bool(ks_help)),
            "KS_ROWMAJOR": int(bool(ks_stream) or bool(ks_help)), "GROUPED": int(bool(grouped)),
            "PARAM_MAPS": int(param_maps), "PARAM_MAP_BYTES": PARAM_MAP_BYTES * int(param_maps),
            "DUAL": int(bool(dual)), "FUSED_A": int(bool(fused_a)), "A_WAIT": int(a_wait),
            "ROW_CLASSES": "_".join(str(r) for r in classes)}


def a_chunks(m: int, k: int, l: int) -> tuple[int, int]:
    """FUSED_A's decode chunks: (k64 columns per row, chunks in all); a chunk is 128 rows (one m tile) x k64 of one
    batch, numbered (batch * m_tiles + m tile) * columns + column."""
    cols = -(-k // 64)
    return cols, l * -(-m // TILE) * cols


def async_bytes(m: int, k: int, l: int) -> int:
    """FUSED_A's flag area: a u64 count of the CTAs that ran (launches * grid), a u32 count of the chunks decoded
    (launches * chunks), a spare u32 and a u32 flag per chunk (launches * consumer warps)."""
    return 16 + 4 * a_chunks(m, k, l)[1]


def a_unit(a_bufs: int, wgmma_depth: int = 1) -> int:
    """Template constant A_UNIT of the three cluster kernels: 1 where the unit loop takes its unit-aligned a16 ring
    (one wgmma group in flight and A_BUFS a multiple of 4, so a unit's four buffers never wrap; PTX header)."""
    return int(wgmma_depth == 1 and a_bufs % 4 == 0)


def head_constants(head_check, head_wait) -> dict:
    """HEAD_CHECK and HEAD_WAIT of the three cluster kernels (GEMM, dual, grouped), checked."""
    if isinstance(head_wait, bool) or not isinstance(head_wait, (int, np.integer)) or not 0 <= head_wait < 2**30:
        raise ValueError(f"head_wait must be an int of clocks in [0, 2^30), got {head_wait!r}")
    return {"HEAD_CHECK": int(flag("head_check", head_check)), "HEAD_WAIT": int(head_wait)}


def row_class_step(cluster: int) -> int:
    """The row classes of a GROUPED build are the multiples of this up to TILE: each rank's A16 slice of a tile of R
    rows is R / cluster rows, which must be whole 8-row swizzle atoms; 16 at least, to keep the unit loops few."""
    if isinstance(cluster, bool) or cluster not in CLUSTER_SIZES:
        raise ValueError(f"cluster must be one of {CLUSTER_SIZES}, got {cluster!r}")
    return max(16, 8 * cluster)


def check_row_classes(row_classes, cluster: int) -> tuple[int, ...]:
    """``row_classes`` as a tuple of ints, checked: distinct multiples of :func:`row_class_step` in step..TILE,
    largest first (the order :func:`expand_row_classes` writes the unit loops in)."""
    try:
        classes = tuple(int(r) for r in row_classes)
    except (TypeError, ValueError):
        raise ValueError(f"row_classes must be a sequence of ints, got {row_classes!r}") from None
    step = row_class_step(cluster)
    if not classes or list(classes) != sorted(set(classes), reverse=True) or any(
            r <= 0 or r > TILE or r % step for r in classes):
        raise ValueError(f"row_classes must be distinct multiples of {step} in {step}..{TILE}, largest first "
                         f"(cluster {cluster}), got {row_classes!r}")
    return classes


def row_class(rows: int, cluster: int) -> int:
    """The row class of an m tile of ``rows`` A rows (1..TILE): its wgmmas' N and its A16 box, ``rows`` rounded up
    to a multiple of :func:`row_class_step`."""
    rows = positive_int("rows", rows)
    if rows > TILE:
        raise ValueError(f"rows must be at most {TILE}, got {rows}")
    step = row_class_step(cluster)
    return -(-rows // step) * step


_ROWS_BEGIN, _ROWS_END = "//@ROWS_LOOP_BEGIN", "//@ROWS_LOOP_END"
_ACC_ALL = "{" + ", ".join(f"%acc{i}" for i in range(TILE // 2)) + "}"


def expand_row_classes(text: str, classes) -> str:
    """The template with its unit loop (the lines between the ROWS_LOOP markers) written once per row class R: labels
    suffixed ``_R<R>``, every wgmma m64n128k16 made m64n<R>k16 on the first R/2 accumulators, and a dispatch on the
    segment's class (``%rcls``) in front (PTX header, "ROW CLASSES").  The first class is the one an unknown class
    falls through to; every copy but the last jumps past the others when its segment ends."""
    lines = text.split("\n")
    try:
        b = next(i for i, ln in enumerate(lines) if ln.startswith(_ROWS_BEGIN))
        e = next(i for i, ln in enumerate(lines) if ln.startswith(_ROWS_END))
    except StopIteration:
        raise ValueError("the template has no ROWS_LOOP_BEGIN / ROWS_LOOP_END markers") from None
    classes = [int(r) for r in classes]
    if not classes or any(r <= 0 or r > TILE or r % 8 for r in classes) or len(set(classes)) != len(classes):
        raise ValueError(f"classes must be distinct multiples of 8 in 8..{TILE}, got {classes}")
    region = "\n".join(lines[b + 1:e])
    labels = sorted(set(re.findall(r"^([A-Z][A-Z0-9_]*):", region, re.M)))
    if region.count("aligned.m64n128k16") != region.count(_ACC_ALL) or not labels:
        raise ValueError("the ROWS_LOOP region's wgmmas must all be m64n128k16 on the whole accumulator set")
    out = [f"    setp.eq.u32 %p_rc, %rcls, {r};\n    @%p_rc bra UNIT_LOOP_R{r};" for r in classes[1:]]
    for i, r in enumerate(classes):
        body = re.sub(r"\b(" + "|".join(labels) + r")\b", rf"\1_R{r}", region)
        acc = "{" + ", ".join(f"%acc{j}" for j in range(r // 2)) + "}"
        body = body.replace("aligned.m64n128k16", f"aligned.m64n{r}k16").replace(_ACC_ALL, acc)
        out.append(f"    // ---- the unit loop of row class {r}\n{body}")
        if i < len(classes) - 1:
            out.append("    bra.uni ROWS_LOOP_DONE;")
    out.append("ROWS_LOOP_DONE:")
    return "\n".join(lines[:b] + out + lines[e + 1:])


def kernel_text(constants: dict) -> str:
    """The template's text for these constants before rendering: a GROUPED build's unit loop per row class."""
    text = (ptx_dir() / _KERNEL_FILE).read_text()
    if int(constants.get("GROUPED", 0)):
        text = expand_row_classes(text, [int(r) for r in str(constants.get("ROW_CLASSES", TILE)).split("_")])
    return text


@lru_cache(maxsize=None)
def _kernel(ordinal: int, constants: tuple):
    from ..module import load

    cons = dict(constants)
    return load(kernel_text(cons), device=driver.Device(ordinal), target="sm_90a", constants=cons).kernel(_ENTRY)


def _max_active_clusters(kernel, cluster: int, threads: int, shared_mem: int, sm_count: int) -> int:
    """Clusters of this kernel the device holds at once (cuOccupancyMaxActiveClusters), at most SMs / cluster."""
    from ..launch import _build_config, launch_geometry

    if cluster == 1:
        return sm_count
    geo = launch_geometry(cluster, threads, (cluster, 1, 1))
    cfg = _build_config(kernel, geo, shared_mem, driver.raw.CUstream(0))
    return max(1, min(int(driver.call("cuOccupancyMaxActiveClusters", kernel.function, cfg)), sm_count // cluster))


class GemmClusterPlan(GemmFacts):
    """A Hopper NVFP4 GEMM of fixed size: A decoded once per call, multicast across clusters of CTAs.

    ``GemmClusterPlan(m, n, k, l=1, layout=None, *, device=None, alpha=1.0, cluster=None, stages=None,
    a_bufs=None, units_per_cluster=None, wgmma_depth=1, consumer_wgs=2, head_check=True,
    head_wait=32768, ksplit=None)``; ``plan.run(a, b, sfa, sfb, c,
    stream=None)`` (also ``plan(...)``) launches the decode and the GEMM on ``stream`` and returns ``c``.
    Arrays and layouts are those of :class:`nvfp4rt.ops.gemm_wgmma.GemmWgmmaPlan`; ``sfa`` may have any
    stride (the decode kernel reads it directly).  ``wgmma_depth=3`` keeps three wgmma groups per
    warpgroup queued while it decodes the next piece (a16 buffers are then released two sub-steps after
    their reads).  ``consumer_wgs=3`` makes the CTA tile 192 B rows with three consumer warpgroups (512
    threads).  ``ksplit``: 1 runs the stream-K schedule over clusters of ``cluster`` (default 2) CTAs that share
    A16 by multicast; 2, 4 or 8 makes each tile one cluster of that many CTAs splitting its k and reducing
    through distributed shared memory (``cluster`` must then be 1 or None); None picks with
    :func:`choose_ksplit` when neither ``cluster`` nor ``units_per_cluster`` is given.  ``ks_stream=True`` runs
    stream-K over K-split pairs (ksplit 2, one wave of pairs; see :func:`cluster_geometry`).  ``help_tail=X``
    (opt-in: slower than the default plan on the H100, 53.3-55.2 against 52.3-52.6 us on 128x7168x16384 in
    session 27) runs the K split with tail helpers: each tile's pair runs its first k_stages - X stages and
    ``helpers`` extra CTAs (default: as many as fit beside the pairs) share the tiles' last X stages, their partials
    counted in at gpu scope (docs/gemm.md, "Tail helpers").  ``fused_a=True`` (opt-in: 0.1-2.9 us slower than the
    decode launch on the H100, small problems included; two consumer warpgroups, no tail helpers) has the GEMM
    decode A itself, with no decode launch: each CTA's consumers decode a share of A16 first, and each
    A16 load waits for its chunk's flag (docs/gemm.md, "Session 22"); ``a_wait`` is how many SM clocks a load waits
    before decoding the chunk itself (no CTA depends on another being resident).  The plan owns the A16 buffer
    (``2 * l * m * k`` bytes), the workspace, the zeroed counters and flags, so one plan must not run on two
    streams at once.
    """

    variant = "wgmma_cluster"

    def __init__(self, m: int, n: int, k: int, l: int = 1, layout=None, *, device=None, alpha: float = 1.0,
                 cluster: int | None = None, stages: int | None = None, a_bufs: int | None = None,
                 units_per_cluster: int | None = None, wgmma_depth: int = 1,
                 consumer_wgs: int = DEFAULT_CONSUMER_WGS, head_check: bool = True,
                 head_wait: int = DEFAULT_HEAD_WAIT, ksplit: int | None = None, ks_stream: bool | None = None,
                 help_tail: int | None = None, helpers: int | None = None, fused_a: bool = False,
                 a_wait: int = A_WAIT_CLOCKS):
        self.alpha = finite_float("alpha", alpha)
        fused_a = flag("fused_a", fused_a)
        if fused_a and (consumer_wgs != 2 or help_tail):
            raise ValueError("fused_a=True needs consumer_wgs=2 and no help_tail")
        a_wait = kernel_constants(a_wait=a_wait)["A_WAIT"]  # checked before any GPU work
        if abs(self.alpha) * _ALPHA_SCALE > float(np.finfo(np.float32).max):
            raise ValueError(f"alpha: |alpha| * 2^28 must fit in fp32 (the kernel's operand scaling), got {alpha!r}")
        # validate the sizes and the variant before touching the GPU
        auto_ksplit = (ksplit is None and cluster is None and units_per_cluster is None and ks_stream is None
                       and not help_tail)
        if help_tail is not None:  # an explicit K split with tail helpers (0: none)
            help_tail = int(positive_int("help_tail", help_tail)) if help_tail != 0 else 0
            if help_tail and ksplit not in (None, 2):
                raise ValueError(f"help_tail needs ksplit=2, got {ksplit!r}")
            if help_tail:
                ksplit = 2
        if helpers is not None and not help_tail:
            raise ValueError("helpers is given only with help_tail > 0")
        if help_tail:
            if cluster not in (None, 1) or ks_stream or units_per_cluster is not None or consumer_wgs != 2:
                raise ValueError("help_tail needs cluster=1 (or None), consumer_wgs=2 and neither ks_stream nor "
                                 "units_per_cluster")
            check_help_tail(-(-positive_int("k", k) // STAGE_K), help_tail)
        pairs = False if ks_stream is None else flag("ks_stream", ks_stream)
        ks = (2 if pairs else 1) if ksplit is None else ksplit
        if help_tail:  # probe the sizes with the stream-K geometry: the K split below needs no even stage count
            ks, cluster = 1, 1
        if cluster is None:
            cluster = 1 if (not isinstance(ks, bool) and ks in KSPLIT_SIZES[1:]) else DEFAULT_CLUSTER
        probe = cluster_geometry(m, n, k, l, 1, cluster=cluster, stages=stages, a_bufs=a_bufs,
                                 units_per_cluster=units_per_cluster, consumer_wgs=consumer_wgs, ksplit=ks,
                                 ks_stream=pairs)
        self.constants = kernel_constants(cluster, probe.a_bufs, wgmma_depth, consumer_wgs, head_check, head_wait,
                                          ks, pairs)
        self.layout, self.device = hopper_problem(m, n, k, l, layout, device, "cluster GEMM")
        props = self.device.properties
        if auto_ksplit:
            def variant(cand, on_pairs=False):
                """(geometry probe, constants, kernel) of the K split ``cand`` (or of the pairs)."""
                geo = cluster_geometry(m, n, k, l, 1, cluster=1, stages=stages, a_bufs=a_bufs,
                                       consumer_wgs=consumer_wgs, ksplit=cand, ks_stream=on_pairs)
                cons = kernel_constants(1, geo.a_bufs, wgmma_depth, consumer_wgs, head_check, head_wait, cand,
                                        on_pairs)
                return geo, cons, _kernel(self.device.ordinal, tuple(sorted(cons.items())))

            def kernel_for(cand):
                geo, _, kern = variant(cand)
                return kern, geo.shared_mem

            streamk, tiles = _ksplit_problem(m, n, k, l, props.sm_count, consumer_wgs)
            ks = pick_ksplit(streamk, tiles, props.sm_count, KSPLIT_SIZES, kernel_for, probe.threads)
            if ks == 1 and consumer_wgs == 2 and prefer_whole_tiles(streamk, tiles, props.sm_count):
                cluster, units_per_cluster = 1, streamk.k_stages  # one whole tile per CTA
                probe = cluster_geometry(m, n, k, l, 1, cluster=1, stages=stages, a_bufs=a_bufs,
                                         units_per_cluster=units_per_cluster, consumer_wgs=consumer_wgs)
                self.constants = kernel_constants(1, probe.a_bufs, wgmma_depth, consumer_wgs, head_check, head_wait)
            elif ks == 1 and consumer_wgs == 2:  # stream-K: pairs instead, where one wave of them takes every unit
                geo, cons, kern = variant(2, True)
                kern.set_max_dynamic_shared(geo.shared_mem)
                pairs = prefer_pairs(geo.units, geo.k_stages,
                                     _max_active_clusters(kern, 2, geo.threads, geo.shared_mem, props.sm_count))
                if pairs:
                    ks, cluster, probe, self.constants = 2, 1, geo, cons
            if ks > 1 and not pairs:
                cluster = 1
                probe = cluster_geometry(m, n, k, l, 1, cluster=1, stages=stages, a_bufs=a_bufs,
                                         consumer_wgs=consumer_wgs, ksplit=ks)
                self.constants = kernel_constants(1, probe.a_bufs, wgmma_depth, consumer_wgs, head_check, head_wait,
                                                  ks)
        if help_tail:
            helpers = self._tail_helpers(n, l, probe, help_tail, helpers, stages, a_bufs, wgmma_depth, head_check,
                                         head_wait)
            ks, cluster, pairs = 2, 1, False
            probe = cluster_geometry(m, n, k, l, 1, cluster=1, stages=stages, a_bufs=a_bufs, ksplit=2,
                                     help_tail=help_tail, helpers=helpers)
            self.constants = kernel_constants(1, probe.a_bufs, wgmma_depth, 2, head_check, head_wait, 2, False, True)
        if probe.shared_mem > props.max_shared_per_block_optin:
            raise ValueError(f"stages={probe.num_stages}, a_bufs={probe.a_bufs} need {probe.shared_mem} bytes of "
                             f"shared memory; the device allows {props.max_shared_per_block_optin}")
        self.fused_a = bool(fused_a)  # opt-in: measured slower than the decode launch (docs/gemm.md, session 22)
        # A_WAIT only reaches the FUSED_A code: other builds keep the default, so a_wait makes no second copy of them
        self.constants = {**self.constants, "FUSED_A": int(self.fused_a),
                          "A_WAIT": a_wait if self.fused_a else A_WAIT_CLOCKS}
        self.kernel = _kernel(self.device.ordinal, tuple(sorted(self.constants.items())))
        self.kernel.set_max_dynamic_shared(probe.shared_mem)
        self.max_clusters = _max_active_clusters(self.kernel, probe.launch_cluster, probe.threads, probe.shared_mem,
                                                 props.sm_count)
        self.geometry = g = cluster_geometry(m, n, k, l, self.max_clusters, cluster=cluster, stages=stages,
                                             a_bufs=a_bufs, units_per_cluster=units_per_cluster,
                                             consumer_wgs=consumer_wgs, ksplit=ks, ks_stream=pairs,
                                             help_tail=help_tail, helpers=helpers)
        if self.fused_a and g.grid >= 1 << 16:  # the launch index divides by nctaid.x in 16-bit digits
            raise ValueError(f"fused_a needs fewer than 65536 CTAs; this plan launches {g.grid}")
        self.m, self.n, self.k, self.l = g.m, g.n, g.k, g.l
        self.shared_mem = g.shared_mem

        from ..memory import DeviceAllocation
        from .decode_a16 import DecodeA16Plan

        lay = self.layout
        self._decode = DecodeA16Plan(g.m, g.k, g.l, lay.a_row, lay.a_batch, lay.sfa_row, lay.sfa_batch,
                                     device=self.device)
        self._a16 = DeviceAllocation(2 * g.l * g.m * g.k, self.device)
        if self.fused_a:  # the launch count and chunk flags only grow: zero once, never reset
            self._async = DeviceAllocation(async_bytes(g.m, g.k, g.l), self.device)
            driver.call("cuMemsetD8", self._async.ptr, 0, self._async.nbytes)
        self._ws = DeviceAllocation(g.workspace_bytes, self.device)
        self._counters = DeviceAllocation(4 * g.counters, self.device)
        driver.call("cuMemsetD32", self._counters.ptr, 0, g.counters)
        self._pad_sfb = lay.sfb_row % 16 != 0 or (l > 1 and (lay.sfb_batch % 16 or lay.sfb_batch == 0))
        self._sfb_rows = None  # padded sfb copy (DeviceAllocation), made on first need
        self._tmaps: dict[str, object] = {}
        self._launch = None
        self._fused_ptrs = None  # fused_a: the A and sfa addresses in the prepared launch
        self._repeat = None  # repeat_key of the last call, when a repeat of it may skip straight to the launches

    def _tail_helpers(self, n, l, probe, help_tail, helpers, stages, a_bufs, wgmma_depth, head_check,
                      head_wait) -> int:
        """The helpers of an explicit K split with tail helpers: ``helpers``, or the most (an even number, at most two
        per pair the device holds beyond the tiles' pairs) whose schedule fits MAX_HELP_SLOTS and MAX_HELP_SEGMENTS."""
        if helpers is not None:
            return positive_int("helpers", helpers)
        st = _DEFAULT_STAGES if stages is None else stages
        ab = _DEFAULT_A_BUFS if a_bufs is None else a_bufs
        smem = shared_bytes(st, ab, 2, 2, True)
        cons = kernel_constants(1, ab, wgmma_depth, 2, head_check, head_wait, 2, False, True)
        kern = _kernel(self.device.ordinal, tuple(sorted(cons.items())))
        kern.set_max_dynamic_shared(smem)
        max_pairs = _max_active_clusters(kern, 2, 384, smem, self.device.properties.sm_count)
        tiles = l * probe.m_tiles * -(-n // TILE)
        for nhelp in range(2 * (max_pairs - tiles), 1, -2):
            _, slots, segs = help_schedule(tiles, probe.k_stages, help_tail, nhelp)
            if slots <= MAX_HELP_SLOTS and segs <= MAX_HELP_SEGMENTS:
                return nhelp
        raise ValueError(f"help_tail={help_tail}: no even helper count fits the {max_pairs} pairs the device holds "
                         f"beside {tiles} tiles (give helpers=)")

    # ------------------------------------------------------------------ tensor maps
    def _tensor_map(self, which: str, ptr: int):
        from ..tma import TensorMap

        tm = self._tmaps.get(which)
        if tm is not None:
            if tm.base != ptr:
                tm.repoint(ptr)
            return tm
        g, lay = self.geometry, self.layout
        if which == "a16":
            shape, strides = (g.l, g.m, g.k), (2 * g.m * g.k, 2 * g.k)
            tm = TensorMap(ptr, "float16", shape, (1, TILE // g.cluster, 64), strides=strides, swizzle="128B")
        elif which == "b":
            batch = lay.b_batch if g.l > 1 else g.n * lay.b_row
            tm = TensorMap(ptr, "uint8", (g.l, g.n, g.k // 2), (1, g.tile_n, STAGE_K // 2), strides=(batch, lay.b_row),
                           swizzle="128B")
        else:  # sfb: padded rows of k_stages * 16 bytes, or the caller's when they are 16-byte strided
            if self._sfb_rows is not None:
                inner = row = g.k_stages * 16
                batch = g.n * row
            else:
                inner, row = g.k // 16, lay.sfb_row
                batch = lay.sfb_batch if g.l > 1 else g.n * row
            tm = TensorMap(ptr, "uint8", (g.l, g.n, inner), (1, g.tile_n, STAGE_K // 16), strides=(batch, row),
                           swizzle="none")
        self._tmaps[which] = tm
        return tm

    # ------------------------------------------------------------------ launch
    def run(self, a, b, sfa, sfb, c, stream=None):
        """Launch the A decode and the GEMM on ``stream`` (default: the device's default stream); returns ``c``."""
        from ..launch import _stream_handle

        repeat = repeat_key(stream, a, b, sfa, sfb, c)
        if repeat is not None and repeat == self._repeat:  # the last call's buffers and stream: launch as they are
            if not self.fused_a:
                self._decode._launch.launch()
            self._launch.launch()
            return c
        self._repeat = None
        ptrs = operand_pointers(a, b, sfa, sfb, c)
        handle = _stream_handle(stream, self.device)
        copied = bool(self._pad_sfb or ptrs["sfb"] % 16)  # sfb rows TMA cannot read in place: copied every call
        if copied:
            if self._sfb_rows is None:
                self._tmaps.pop("sfb", None)  # its map must describe the padded rows
            self._sfb_rows = padded_scale_rows(self._sfb_rows, ptrs["sfb"], self.layout.sfb_row,
                                               self.layout.sfb_batch, self.n, self.k, self.l, self.device, handle)
            ptrs["sfb"] = self._sfb_rows.ptr
        if not self.fused_a:
            self._decode.launch_pointers(ptrs["a"], ptrs["sfa"], self._a16.ptr, handle)  # a checked above, A16 ours
        maps = {"a16": self._tensor_map("a16", self._a16.ptr), "b": self._tensor_map("b", ptrs["b"]),
                "sfb": self._tensor_map("sfb", ptrs["sfb"])}
        g = self.geometry
        if self._launch is None:
            self._launch = self.kernel.prepare(
                maps["a16"], maps["b"], maps["sfb"], Pointer(ptrs["c"]), Pointer(self._ws.ptr),
                Pointer(self._counters.ptr), self.layout.c_row, self.layout.c_batch, g.m, g.n, g.k_stages,
                g.m_tiles, g.n_tiles, g.units, g.units_per_cluster, g.num_stages, self.alpha * _ALPHA_SCALE,
                *self._fused_args(ptrs), g.main_units, g.help_upc, g.help_slots, Pointer(0),
                grid=g.grid, block=g.threads, cluster=(g.launch_cluster, 1, 1) if g.launch_cluster > 1 else None,
                shared_mem=self.shared_mem, stream=stream, programmatic=not self.fused_a)
            self._launched_maps = {}
        elif self.fused_a and self._fused_ptrs != (ptrs["a"], ptrs["sfa"]):
            self._launch.update(p_a=Pointer(ptrs["a"]), p_sfa=Pointer(ptrs["sfa"]))
        if self.fused_a:
            self._fused_ptrs = (ptrs["a"], ptrs["sfa"])  # what the prepared launch holds
        self._launched_maps = launch_with_maps(self._launch, self._launched_maps, maps, ptrs["c"], stream)
        if not copied:  # no per-call scale copy: a repeat of this call only needs the two launches
            self._repeat = repeat
        return c

    __call__ = run

    def _fused_args(self, ptrs: dict) -> tuple:
        """FUSED_A's parameters (p_a .. a_chunks), or none: A and its scales, their strides, A16, the flag area."""
        if not self.fused_a:
            return ()
        g, lay = self.geometry, self.layout
        cols, chunks = a_chunks(g.m, g.k, g.l)
        return (Pointer(ptrs["a"]), Pointer(ptrs["sfa"]), lay.a_row, lay.a_batch, lay.sfa_row, lay.sfa_batch,
                Pointer(self._a16.ptr), Pointer(self._async.ptr), g.k, cols, chunks)

    def __repr__(self) -> str:
        g = self.geometry
        return (f"<GemmClusterPlan m={g.m} n={g.n} k={g.k} l={g.l} cluster={g.cluster} grid={g.grid} "
                f"units/cluster={g.units_per_cluster} stages={g.num_stages} a_bufs={g.a_bufs}"
                + (f" wgmma_depth={self.constants['WG_WAIT']}" if self.constants["WG_WAIT"] != 1 else "")
                + (f" consumer_wgs={g.consumer_wgs}" if g.consumer_wgs != DEFAULT_CONSUMER_WGS else "")
                + (f" ksplit={g.ksplit}" if g.ksplit > 1 else "") + (" ks_stream" if g.ks_stream else "")
                + (f" help_tail={g.help_tail} helpers={g.helpers}" if g.help_tail else "")
                + (" fused_a" if self.fused_a else "") + ">")
