"""SiLU-gated NVFP4 dual GEMM on the cluster GEMM's own 128-row tiles (its DUAL = 1 build).

Two launches per call, on one stream, as for the cluster GEMM:

1. ``ptx/nvfp4_decode_a16.ptx`` decodes A into ``A16`` (fp16 ``[l][m][k]``, owned by the plan);
2. ``ptx/gemm_nvfp4_wgmma_cluster.ptx`` built with ``DUAL = 1`` (the PTX header's "DUAL GEMM ON 128-ROW TILES"),
   with programmatic dependent launch: CTA tiles of 128 output rows x 64 columns, warpgroup 0 on B1 and
   warpgroup 1 on B2 of the same columns, the GEMM's m64n128k16 unit loop, schedules and reductions, and
   ``silu(alpha1 h1) * (alpha2 h2)`` at the store.

The schedule is the GEMM's on the problem (m, 2n, k), which has the same tiles: one whole tile per CTA where
:func:`~nvfp4rt.ops.gemm_wgmma_cluster.prefer_whole_tiles` takes it, else stream-K over clusters of 1.  K splits
are not built (their epilogue stores from the exchange, not the staging tile).  ``nvfp4rt.ops.dual_gemm.variant_for``
chooses this plan where the tiles fit one wave as whole tiles, and for m > 256 wherever the 256-row cluster kernel
would split tiles or pad them (``nvfp4rt.ops.dual_gemm.cluster_tiles_win``).  Their stream-K runs end on a
quarter tile where that costs at most two units (:func:`streamk_run`).
"""
from __future__ import annotations

from ..launch import Pointer
from ._args import finite_float
from .dual_gemm import STAGE_K
from .dual_gemm_cluster import DualGemmClusterPlan, _alphas_fit
from .gemm_wgmma_cluster import (DEFAULT_HEAD_WAIT, MAX_CHAIN_UNITS, TILE, _ALPHA_SCALE, _kernel,
                                  _ksplit_problem, cluster_geometry, kernel_constants, prefer_whole_tiles)

__all__ = ["DualGemmTilesPlan", "whole_tiles", "aligned_run", "streamk_run", "TILE_M", "TILE_N", "STREAMK_CLUSTER",
           "RUN_SLACK"]

#: output rows (A rows) and columns of one CTA tile
TILE_M = TILE
TILE_N = 64


#: clusters of the tiles' stream-K schedule when the caller gives none: 1 (no A16 multicast) was 0.7-3.5 us faster
#: than 2 on all six m = 384..1024 shapes measured with the unit-aligned ring (H100, docs/dual_gemm.md, "Session 20")
STREAMK_CLUSTER = 1


#: how many units the stream-K run may grow to end on a quarter tile (H100, docs/dual_gemm.md, "Session 21")
RUN_SLACK = 2


def aligned_run(units: int, k_stages: int, ctas: int) -> int:
    """The tiles' stream-K run length over ``ctas`` CTAs (pure): the even share ``ceil(units / ctas)``, or the
    smallest multiple of a quarter tile (``k_stages / 4``; half or whole tiles where 4 or 2 do not divide it) at or
    above it when that is at most :data:`RUN_SLACK` units longer.  Runs that end on a quarter tile split tiles at a few
    fixed points, and that measured 3-9 us faster on five of six m = 384..768 shapes for a run 1-2 units longer
    (kernel alone, H100): 512 x 3072 x 7168 41 -> 42 units, 80.4 -> 71.2 us; 768 x 2048 x 7168 41 -> 42, 81.2-81.6
    -> 73.7; 384 x 4096 x 7168 41 -> 42, 80.2-80.7 -> 75.5-76.2; 640 x 3072 x 4096 30 -> 32, 60.9-61.1 -> 53.9-54.1;
    768 x 3072 x 4096 35 -> 36, 70.5-70.8 -> 67.4-67.6.  The sixth, 384 x 3072 x 7168, would need 31 -> 35: 64.8-65.1
    against 64.1-64.5, so the slack keeps its even share."""
    even = -(-units // ctas)
    step = next(k_stages // d for d in (4, 2, 1) if k_stages % d == 0)
    run = -(-even // step) * step
    return run if run - even <= RUN_SLACK else even


def streamk_run(m: int, n: int, k: int, l: int, sm_count: int) -> int | None:
    """The units of a CTA's run when the plan runs this dual problem stream-K by default (pure): :func:`aligned_run`
    over the ``sm_count / STREAMK_CLUSTER`` clusters, or None where a tile has more than ``MAX_CHAIN_UNITS`` k stages.
    There the geometry's even share, capped at that many units, stays, so that no fp32 chain sums more than 8192 k
    (a lengthened run could hold a whole tile)."""
    streamk, _ = _ksplit_problem(m, 2 * n, k, l, sm_count, streamk_cluster=STREAMK_CLUSTER)
    if streamk.k_stages > MAX_CHAIN_UNITS:
        return None
    return aligned_run(streamk.units, streamk.k_stages, max(1, sm_count // STREAMK_CLUSTER))


def whole_tiles(m: int, n: int, k: int, l: int, sm_count: int) -> bool:
    """Whether the GEMM's rule takes one whole tile per CTA for this dual problem (pure): its tiles are those of
    the GEMM on (m, 2n, k)."""
    streamk, tiles = _ksplit_problem(m, 2 * n, k, l, sm_count)
    return prefer_whole_tiles(streamk, tiles, sm_count)


class DualGemmTilesPlan(DualGemmClusterPlan):
    """A Hopper dual GEMM of fixed size on the cluster GEMM's 128-row tiles.

    ``DualGemmTilesPlan(m, n, k, l=1, layout=None, *, alpha1=1.0, alpha2=1.0, device=None, cluster=None,
    stages=None, a_bufs=None, units_per_cluster=None, head_check=True, head_wait=32768)``; ``plan(a, b1, b2, sfa,
    sfb1, sfb2, c, stream=None)`` as :class:`~nvfp4rt.ops.dual_gemm_cluster.DualGemmClusterPlan`.  With neither
    ``cluster`` nor ``units_per_cluster`` the plan takes whole tiles (cluster 1, one tile per CTA) where
    :func:`whole_tiles` says so, else stream-K over clusters of :data:`STREAMK_CLUSTER` (1) in runs of
    :func:`streamk_run` units.  An alpha whose 2^28 multiple overflows fp32 is rejected.  The plan owns the A16
    buffer, the workspace and the zeroed counters: one stream at a time.
    """

    variant = "wgmma_tiles"
    a16_tile_rows = TILE_M

    def __init__(self, m: int, n: int, k: int, l: int = 1, layout=None, *, alpha1: float = 1.0,
                 alpha2: float = 1.0, device=None, cluster: int | None = None, stages: int | None = None,
                 a_bufs: int | None = None, units_per_cluster: int | None = None, head_check: bool = True,
                 head_wait: int = DEFAULT_HEAD_WAIT):
        self.alpha1, self.alpha2 = finite_float("alpha1", alpha1), finite_float("alpha2", alpha2)
        if not _alphas_fit(self.alpha1, self.alpha2):
            raise ValueError(f"alpha1, alpha2: |alpha| * 2^28 must fit in fp32 (the kernel's operand scaling), "
                             f"got {alpha1!r}, {alpha2!r}")
        # the sizes first (pure), then the device
        cluster_geometry(m, 2 * n, k, l, 1, cluster=cluster or 1, stages=stages, a_bufs=a_bufs,
                         units_per_cluster=units_per_cluster)
        props = self._setup_problem(m, n, k, l, layout, device)
        if cluster is None and units_per_cluster is None:
            if whole_tiles(m, n, k, l, props.sm_count):
                cluster, units_per_cluster = 1, -(-k // STAGE_K)
            else:  # stream-K over CTAs (clusters of 1), runs ending on a quarter tile where that costs little
                cluster, units_per_cluster = STREAMK_CLUSTER, streamk_run(m, n, k, l, props.sm_count)
        elif cluster is None:
            cluster = STREAMK_CLUSTER
        probe = cluster_geometry(m, 2 * n, k, l, 1, cluster=cluster, stages=stages, a_bufs=a_bufs,
                                 units_per_cluster=units_per_cluster)
        self.constants = kernel_constants(cluster, probe.a_bufs, 1, 2, head_check, head_wait, dual=True)
        self._load_kernel(_kernel, probe, props)
        self.geometry = g = cluster_geometry(m, 2 * n, k, l, self.max_clusters, cluster=cluster, stages=stages,
                                             a_bufs=a_bufs, units_per_cluster=units_per_cluster)
        self.m, self.n, self.k, self.l = g.m, int(n), g.k, g.l
        self.shared_mem = g.shared_mem
        self._setup_buffers()

    def _kernel_maps(self, maps: dict) -> dict:
        """B1's maps are the GEMM's ``tmap_b`` / ``tmap_sfb``; B2's are the DUAL build's ``tmap_b2`` / ``tmap_sfb2``."""
        return {"a16": maps["a16"], "b": maps["b1"], "sfb": maps["sfb1"], "b2": maps["b2"], "sfb2": maps["sfb2"]}

    def _prepare(self, maps: dict, ptrs: dict, stream):
        g = self.geometry
        return self.kernel.prepare(
            maps["a16"], maps["b"], maps["sfb"], Pointer(ptrs["c"]), Pointer(self._ws.ptr),
            Pointer(self._counters.ptr), self.layout.c_row, self.layout.c_batch, g.m, self.n, g.k_stages,
            g.m_tiles, g.n_tiles, g.units, g.units_per_cluster, g.num_stages, self.alpha1 * _ALPHA_SCALE,
            g.main_units, g.help_upc, g.help_slots, Pointer(0), maps["b2"], maps["sfb2"],
            self.alpha2 * _ALPHA_SCALE,
            grid=g.grid, block=g.threads, cluster=(g.launch_cluster, 1, 1) if g.launch_cluster > 1 else None,
            shared_mem=self.shared_mem, stream=stream, programmatic=True)

    def __repr__(self) -> str:
        g = self.geometry
        return (f"<DualGemmTilesPlan m={g.m} n={self.n} k={g.k} l={g.l} cluster={g.cluster} grid={g.grid} "
                f"units/cluster={g.units_per_cluster} stages={g.num_stages} a_bufs={g.a_bufs}>")
