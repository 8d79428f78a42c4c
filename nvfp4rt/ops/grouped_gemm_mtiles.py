"""Grouped NVFP4 GEMM on the cluster GEMM kernel itself, for groups that share n and k.

Each group's rows of A are cut into 128-row m tiles and the tiles of every group are stacked, so the groups
together are one GEMM of ``128 * tiles`` "virtual" rows: the cluster GEMM's unit loop, stream-K schedule,
reduction and epilogue run unchanged (``ptx/gemm_nvfp4_wgmma_cluster.ptx`` built with GROUPED = 1, its header's
"GROUPS BY M TILE").  What the kernel reads per m tile instead of per call is an entry of the m-tile table: the
group's b, sfb and a16 tensor maps, where the tile's output rows go, how many of them are the group's, and the
group's alpha.

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

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..launch import Pointer
from . import gemm_wgmma_cluster as CL
from ._args import positive_int
from .grouped_gemm import WHOLE_TILE_SLACK, GroupedOperands, K_MULTIPLE, STAGE_K, alphas_fit

__all__ = ["GroupedGemmMTilePlan", "MTile", "mtiles", "schedule", "build_mtile_table", "supports", "preferred",
           "MTILE_ENTRY_BYTES", "STREAMK_MIN_STAGES", "WHOLE_TILE_RINGS"]

#: bytes per m-tile table entry (the PTX header's "GROUPS BY M TILE" has the layout)
MTILE_ENTRY_BYTES = 448
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


@dataclass(frozen=True)
class MTile:
    """One 128-row m tile: rows ``[row0, row0 + rows)`` of group ``group``."""

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
    """The m tiles of these groups, group by group (pure; raises unless every group shares n and k)."""
    _shared_nk(shapes)
    return tuple(MTile(g, r, min(_ROWS, int(m) - r)) for g, (m, _, _) in enumerate(shapes) for r in range(0, int(m), _ROWS))


def schedule(tiles: int, n: int, k: int, max_ctas: int, max_pairs: int) -> tuple[int, int | None]:
    """``(cluster, units_per_cluster)`` for ``tiles`` m tiles of ``n`` x ``k`` (pure).

    Whole tiles, one per CTA (cluster 1), where they fit the ``max_ctas`` the GPU holds and are at most
    WHOLE_TILE_SLACK units longer than an even share; otherwise stream-K in one wave of ``max_pairs`` clusters of 2
    (``units_per_cluster`` an even share, capped at MAX_CHAIN_UNITS only where a tile has more k stages than that).
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


def build_mtile_table(tiles, maps, c_ptrs, c_rows, alphas) -> np.ndarray:
    """The m-tile table (pure): entry t of MTILE_ENTRY_BYTES holds group g = tiles[t].group's b, sfb and a16 map
    bytes (``maps[g]``: three 128-byte strings), c at the tile's first row (``c_ptrs[g]`` + 2 * row0 * c_rows[g]),
    the group's c row stride (elements), the tile's rows, row0 (its first row in the group's a16 map) and
    ``alphas[g]`` (as the kernel takes it: times 2^28)."""
    out = np.zeros((len(tiles), MTILE_ENTRY_BYTES), dtype=np.uint8)
    for t, tile in enumerate(tiles):
        g = tile.group
        blob = b"".join(maps[g])
        if len(blob) != 384:
            raise ValueError(f"group {g}: expected three 128-byte tensor maps, got {len(blob)} bytes")
        out[t, :384] = np.frombuffer(blob, dtype=np.uint8)
        out[t, 384:400] = np.array([c_ptrs[g] + 2 * tile.row0 * c_rows[g], c_rows[g]], dtype=np.uint64).view(np.uint8)
        out[t, 400:408] = np.array([tile.rows, tile.row0], dtype=np.uint32).view(np.uint8)
        out[t, 408:412] = np.array([alphas[g]], dtype=np.float32).view(np.uint8)
    return out


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
    a_bufs=None, head_check=True, head_wait=32768)``; ``plan(groups, alphas=None, stream=None)`` with ``groups`` a
    list of ``(a, b, sfa, sfb, c)`` as for :class:`nvfp4rt.ops.grouped_gemm.GroupedGemmPlan`.  ``cluster`` and
    ``units_per_cluster`` override :func:`schedule` (tests use both).  The plan owns the A16 buffer, the workspace,
    the zeroed counters and the tables, so one plan must not run on two streams at once.
    """

    variant = "wgmma_mtiles"

    def __init__(self, shapes, layouts=None, *, device=None, cluster: int | None = None,
                 units_per_cluster: int | None = None, stages: int | None = None, a_bufs: int | None = None,
                 head_check: bool = True, head_wait: int = CL.DEFAULT_HEAD_WAIT):
        tiles = ()

        def check(s):
            nonlocal tiles
            tiles = mtiles(s)
            n, k = _shared_nk(s)
            CL.cluster_geometry(_ROWS * len(tiles), n, k, 1, 1, cluster=1 if cluster is None else cluster,
                                stages=stages, a_bufs=a_bufs, units_per_cluster=units_per_cluster)

        props = self._setup_groups(shapes, layouts, device, geometry_check=check)
        dev, shapes = self.device, self.shapes
        self.tiles = tiles
        n, k = shapes[0][1], shapes[0][2]
        mv = _ROWS * len(tiles)

        k_stages = -(-k // STAGE_K)

        def kernel_for(cl, st, ab):
            geo = CL.cluster_geometry(mv, n, k, 1, 1, cluster=cl, stages=st, a_bufs=ab)
            if geo.shared_mem > props.max_shared_per_block_optin:
                raise ValueError(f"stages={geo.num_stages}, a_bufs={geo.a_bufs} need {geo.shared_mem} bytes of shared "
                                 f"memory; the device allows {props.max_shared_per_block_optin}")
            cons = CL.kernel_constants(cl, geo.a_bufs, 1, 2, head_check, head_wait, grouped=True)
            kern = CL._kernel(dev.ordinal, tuple(sorted(cons.items())))
            kern.set_max_dynamic_shared(geo.shared_mem)
            return cons, kern, CL._max_active_clusters(kern, cl, geo.threads, geo.shared_mem, props.sm_count)

        if cluster is None:
            _, _, max_ctas = kernel_for(1, stages, a_bufs)
            _, _, max_pairs = kernel_for(2, stages, a_bufs)
            cl, upc = schedule(len(tiles), n, k, max_ctas, max_pairs)
        else:
            cl, upc = cluster, None
        if units_per_cluster is not None:
            upc = units_per_cluster
        st, ab = stages, a_bufs
        if cl == 1 and upc == k_stages and stages is None and a_bufs is None:  # whole tiles: a deeper a16 ring
            st, ab = WHOLE_TILE_RINGS
        self.constants, self.kernel, self.max_clusters = kernel_for(cl, st, ab)
        self.geometry = g = CL.cluster_geometry(mv, n, k, 1, self.max_clusters, cluster=cl, stages=st,
                                                a_bufs=ab, units_per_cluster=upc)
        self.shared_mem = g.shared_mem

        from ..memory import DeviceAllocation

        self._setup_decoded_a(g.workspace_bytes, g.counters)
        self._mtab = DeviceAllocation(len(tiles) * MTILE_ENTRY_BYTES, dev)
        self._launch = None

    def map_spec(self, i: int, which: str, padded: bool = False):
        """3-D maps (l = 1) with the cluster GEMM's boxes."""
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
            maps = [(self._map(i, "b", p[1], False).bytes, self._scale_map(i, "sfb", p[3], handle).bytes,
                     self._a16_maps[i].bytes) for i, p in enumerate(ptrs)]
            if key != self._uploaded_key:
                table = build_mtile_table(self.tiles, maps, [p[4] for p in ptrs], [lay.c_row for lay in self.layouts],
                                          [a * _ALPHA_SCALE for a in alphas])
                self._upload(key, [(self._mtab, table), (self._decode_table, self._decode_table_for(ptrs))], handle)
        self._decode.launch(self._decode_table.ptr, self._a16.ptr, handle)
        g = self.geometry
        dummy = self._a16_maps[0]  # the by-value maps are unused in this build
        self._launch_gemm(stream, lambda: self.kernel.prepare(
            dummy, dummy, dummy, Pointer(0), Pointer(self._ws.ptr), Pointer(self._counters.ptr), 0, 0, g.m, g.n,
            g.k_stages, g.m_tiles, g.n_tiles, g.units, g.units_per_cluster, g.num_stages, _ALPHA_SCALE,
            g.k_stages, 0, 0, Pointer(self._mtab.ptr),
            grid=g.grid, block=g.threads, cluster=(g.cluster, 1, 1) if g.cluster > 1 else None,
            shared_mem=self.shared_mem, stream=stream, programmatic=True))
        if not padded_any:  # no per-call scale copy: a repeat of this call only needs the two launches
            self._repeat = repeat
        return [grp[4] for grp in groups]

    __call__ = run

    def __repr__(self) -> str:
        g = self.geometry
        return (f"<GroupedGemmMTilePlan groups={len(self.shapes)} m_tiles={len(self.tiles)} cluster={g.cluster} "
                f"grid={g.grid} units/cluster={g.units_per_cluster} stages={g.num_stages} a_bufs={g.a_bufs}>")
