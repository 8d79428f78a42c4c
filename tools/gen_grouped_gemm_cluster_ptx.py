"""Write ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx, the grouped GEMM on the cluster GEMM's machinery.

    python3 tools/gen_grouped_gemm_cluster_ptx.py            # rewrite the .ptx
    python3 tools/gen_grouped_gemm_cluster_ptx.py --check    # exit 1 if the committed .ptx is stale

Like the cluster dual GEMM (tools/gen_dual_gemm_cluster_ptx.py, whose pieces this imports), the
consumers' setup and k256 unit loop are the cluster GEMM's, cut out of ptx/gemm_nvfp4_wgmma_cluster.ptx
and grown to m64n256k16.  What is new here:

* the unit loop is emitted once per token count N in ``TOKEN_VARIANTS`` (m64nNk16, N/2 accumulators),
  and each tile runs the smallest N that covers its rows of A, so a group of 72 tokens costs
  m64n96 wgmmas rather than m64n256 ones;
* the schedule is table-driven: a device problem table, three tensor maps per group in device memory,
  per-cluster unit ranges (``starts``) balanced by the host by each unit's cost, and per-tile
  contributor ranges for the stream-K reduction;
* the epilogue scales by the group's alpha and stores fp16 by TMA from boxes staged with stmatrix (or, where c has no
  tensor map, through two staging rounds and the consumers' copy-out), skipping the 32-row blocks past the tile's rows.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_dual_gemm_cluster_ptx as dual  # noqa: E402  (the shared pieces)

ROOT = dual.ROOT
OUT = ROOT / "ptx" / "grouped_gemm_nvfp4_wgmma_cluster.ptx"
ENTRY = "nvfp4_grouped_gemm_wgmma_cluster"

# Geometry (nvfp4rt/ops/grouped_gemm_cluster.py mirrors these; a test compares them)
TILE_M = 256            # A rows (tokens, the wgmma N) of a CTA tile at most
TILE_N = 128            # B rows (output columns) of a CTA tile: 64 per consumer warpgroup
HALF_M = 128            # A16 rows per TMA box (over the cluster's ranks): a tile of <= 128 rows loads one half
TOKEN_MIN = 32          # the smallest unit loop's N (a tile of fewer rows runs it too)
TOKEN_STEP = 16         # the unit loop exists for N = 32, 48, ..., 128 tokens ...
FINE_FROM = 128         # ... and above FINE_FROM in steps of FINE_STEP: 136, 144, ..., 256 (session 44)
FINE_STEP = 8
BLOCK_ROWS = 32         # the epilogue's row block: partials, reductions and staging skip whole blocks past the rows


def token_variants(step: int = TOKEN_STEP, fine_step: int | None = FINE_STEP) -> tuple:
    """The unit loops' N: TOKEN_MIN, TOKEN_MIN + step, ..., FINE_FROM, then FINE_FROM + fine_step, ..., TILE_M
    (``fine_step`` None: ``step`` all the way).  Up to N = 128 a k256 unit costs about the same at every N (the
    consumers' own path sets it), so coarse steps there cost nothing; above it the tensor work does, and each 8 tokens
    of padding cost about 3% of a unit."""
    for name, v in (("step", step), ("fine_step", fine_step)):
        if v is not None and v not in (8, 16, 32):
            raise ValueError(f"{name} must be 8, 16 or 32 tokens, got {v}")
    if fine_step is None or fine_step == step:
        return tuple(range(TOKEN_MIN, TILE_M + 1, step))
    return tuple(range(TOKEN_MIN, FINE_FROM + 1, step)) + tuple(range(FINE_FROM + fine_step, TILE_M + 1, fine_step))


TOKEN_VARIANTS = token_variants()
ACC = dual.ACC          # 128 fp32 accumulators per consumer thread at N = 256
CONSUMERS = dual.CONSUMERS
STAGE_BYTES = dual.STAGE_BYTES  # ring slot: B 128x128 | sfb 128x16 (the dual's B1|B2|sfb1|sfb2 bytes)
SFB_OFF = dual.SFB1_OFF
A16_BUF = dual.A16_BUF
X_PITCH = dual.X_PITCH  # staging: 256 rows x 64 columns of fp16, one warpgroup's half at a time
X_BYTES = dual.X_BYTES
SLOT_V4 = dual.SLOT_V4  # 16-byte units of one stream-K partial slot (128 KB)
TABLE_ENTRY = 64        # bytes per problem-table entry
TMAPS_PER_GROUP = 512   # a16, b, sfb, c tensor maps of a group (128 bytes each)
C_MAP_OFF = 384         # the c map's offset (the TMA-store epilogue's)
BOX_ROWS = 64           # tile rows of one TMA-store box (a quarter of a 256-row tile)
BOX_BYTES = BOX_ROWS * 128  # one box: 64 rows x 64 fp16 columns (128-byte rows), 128B-swizzled
WG_BOXES = 2            # boxes per consumer warpgroup in region X, used in turn
ACC_PER_BLOCK = BLOCK_ROWS // 2  # accumulators of one 32-token block

_UNIT_LOOP_START = "UNIT_LOOP:\n"
_UNIT_LOOP_END = "    @%p_more bra UNIT_LOOP;\n"
_SEG_LOOP = "SEG_LOOP:\n"
_DUAL_POST_DROP = (
    "    mad.lo.u32 %vcta, %cta, {{CLUSTER}}, %rank;        // this CTA's partial slots are 2*vcta + sidx\n",
    "    mad.lo.u32 %vtile, %tile, {{CLUSTER}}, %rank;      // this rank's 128-row tile of the cluster tile: its counter\n",
)


def acc_list(n: int) -> str:
    return "{" + ", ".join(f"%acc{i}" for i in range(n)) + "}"


def split_main_loop(gemm_text: str | None = None) -> tuple:
    """The dual generator's main loop (m64n256k16) as (setup, unit loop, post-loop part)."""
    region = dual.gemm_main_loop(gemm_text)
    setup, rest = region.split(_SEG_LOOP, 1)
    i = rest.index(_UNIT_LOOP_START)
    j = rest.index(_UNIT_LOOP_END) + len(_UNIT_LOOP_END)
    loop, post = rest[i:j], rest[j:]
    for line in _DUAL_POST_DROP:
        if post.count(line) != 1:
            raise ValueError(f"expected the line {line.strip()!r} once after the GEMM's unit loop")
        post = post.replace(line, "")
    return setup, loop, post


_STAGE_RELEASE = "    // ---------------------------------------------------------------- release the stage\n"
#: the unit's last wgmmas drained before its stage release, so that no wgmma group is pending across a unit loop's
#: back edge (see the header's UNIT DRAIN: without it ptxas serialises every wgmma of the kernel, C7511)
UNIT_DRAIN = ("    wgmma.wait_group.sync.aligned 0;          "
              "// UNIT DRAIN: nothing pending across the back edge (header)\n")


#: HALF RING (session 44): with A_UNIT (four 32 KB a16 buffers, a unit = the four k64 sub-steps) the ring is two half
#: sets: set h holds rows 128h..128h+127 of each buffer and has its own full and empty barriers (index 4h + s).  A unit
#: of a tile of at most HALF_LOOP_MAX rows reads rows 0..N-1 only, so it takes one set, and such units take the sets in
#: turn: the producer fills the other set for the next unit while the consumers read this one (two units of look-ahead
#: instead of one).  A unit of more rows takes both sets, as before.
HALF_LOOP_MAX = 128

_A_UNIT_TOP = """\
    shl.b32 %tmp, %ab, 3;
    add.u32 %abar, %sm_afull, %tmp;           // sub-step s's full barrier: %abar + 8s
    add.u32 %aebar, %sm_aempty, %tmp;         // its empty barrier: %aebar + 8s
    mad.lo.u32 %a16, %ab, 32768, %sm_a16;
"""
_HALF_TOP = """\
    shl.b32 %ab, %ah, 2;                      // HALF RING: this unit reads half set ah (barriers 4ah + s) ...
    shr.b32 %aph, %aphs, %ah;
    and.b32 %aph, %aph, 1;                    // ... at its phase
""" + _A_UNIT_TOP.replace("    mad.lo.u32 %a16, %ab, 32768, %sm_a16;\n",
                          "    mad.lo.u32 %a16, %ah, 16384, %sm_a16;     // rows 0..127 of each buffer (set 0) or rows "
                          "128..255 (set 1)\n")
_FULL_TOP = """\
    mov.u32 %ab, 0;                           // HALF RING: a unit of more than 128 rows reads both sets; set 0's
    and.b32 %aph, %aphs, 1;                   // full barriers count every byte (set 1's are not used)
""" + _A_UNIT_TOP
_A_UNIT_END = """\
    add.u32 %pab, %ab, 3;                     // the unit's last buffer awaits release
    setp.eq.u32 %p_pend, 0, 0;
    add.u32 %ab, %ab, 4;
    setp.eq.u32 %p_wrap, %ab, {{A_BUFS}};
    @%p_wrap mov.u32 %ab, 0;
    @%p_wrap xor.b32 %aph, %aph, 1;
"""
_HALF_END = """\
    add.u32 %pab, %ab, 3;                     // the unit's last buffer awaits release
    setp.eq.u32 %p_pend, 0, 0;
    add.u32 %tmp, %ah, 1;                     // HALF RING: 1 << ah: set ah changes phase, the next half unit takes
    xor.b32 %aphs, %aphs, %tmp;               // the other set
    xor.b32 %ah, %ah, 1;
"""
_FULL_END = """\
    add.u32 %pab, %ab, 3;                     // the unit's last buffer awaits release
    setp.eq.u32 %p_pend, 0, 0;
    xor.b32 %aphs, %aphs, 1;                  // HALF RING: set 0's full barriers change phase (set 1's were not used)
"""
_RELEASE_HEAD = "// {{if CLUSTER == 1}}\n    @%p_rel mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];\n"
_RELEASE_TAIL = "// {{endif}}\n// {{endif}}\n"
_SET1 = "    add.u32 %bar, %bar, 32;                   // HALF RING: and set 1's half of the buffer\n"


def _release_blocks(text: str) -> list:
    """(start, end) of every release of an a16 buffer to the cluster's producers in ``text``."""
    out, i = [], 0
    while True:
        i = text.find(_RELEASE_HEAD, i)
        if i < 0:
            return out
        j = text.index(_RELEASE_TAIL, i) + len(_RELEASE_TAIL)
        out.append((i, j))
        i = j


def double_releases(text: str, pred: str = "") -> str:
    """Every a16 release in ``text`` followed (A_UNIT builds only) by the same release of set 1's barrier, 4 barriers
    on; ``pred``: a line that narrows %p_rel first (SEG_DONE: only after a tile of both sets)."""
    for i, j in reversed(_release_blocks(text)):
        block = text[i:j]
        text = text[:j] + "// {{if A_UNIT}}\n" + pred + _SET1 + block + "// {{endif}}\n" + text[j:]
    return text


def half_ring_loop(text: str, n: int) -> str:
    """A unit loop (unit_loop_variant's) on the HALF RING: one set per unit at N <= HALF_LOOP_MAX, both above."""
    for old in (_A_UNIT_TOP, _A_UNIT_END):
        if text.count(old) != 1:
            raise ValueError(f"expected the A_UNIT ring step once in the N = {n} loop: {old.splitlines()[0].strip()!r}")
    if len(_release_blocks(text)) != 4:
        raise ValueError(f"expected four a16 releases in the N = {n} loop")
    if n <= HALF_LOOP_MAX:
        return text.replace(_A_UNIT_TOP, _HALF_TOP).replace(_A_UNIT_END, _HALF_END)
    return double_releases(text.replace(_A_UNIT_TOP, _FULL_TOP).replace(_A_UNIT_END, _FULL_END))


def unit_loop_variant(loop: str, n: int, drain: bool = True) -> str:
    """The unit loop with m64n{n}k16 wgmmas on accumulators 0..n/2-1 and its labels suffixed _N{n}; ``drain``: its
    wgmmas waited for at the end of every unit (UNIT_DRAIN)."""
    full = acc_list(ACC)
    found = loop.count(full)
    if found != 16 or loop.count("m64n256k16") != 16:
        raise ValueError(f"expected 16 m64n256k16 wgmmas on 128 accumulators in the unit loop, found {found}")
    if loop.count(_STAGE_RELEASE) != 1:
        raise ValueError("expected the unit loop's stage release once")
    text = loop.replace("m64n256k16", f"m64n{n}k16").replace(full, acc_list(n // 2))
    if drain:
        text = text.replace(_STAGE_RELEASE, UNIT_DRAIN + _STAGE_RELEASE)
    for label in re.findall(r"^(\w+):", loop, flags=re.M):
        text = re.sub(rf"\b{label}\b", f"{label}_N{n}", text)
    return text


def header(step: int = TOKEN_STEP, early_ctas: bool = True) -> str:
    variants = token_variants(step)
    return f"""\
// nvfp4rt: targets=sm_90a constants=CLUSTER=2,A_BUFS=4,A_UNIT=1,HEAD_CHECK=1,HEAD_WAIT=32768,PARAM_MAPS=0,PARAM_MAP_BYTES=0
//
// {ENTRY} - grouped NVFP4 GEMM on Hopper, every group in ONE launch, A decoded once per
// call and shared across a thread-block cluster by TMA multicast:
//     for each group g: c_g[i, j] = alpha_g * sum_k A_g[i, k] * B_g[j, k]       (fp16 out)
//
// GENERATED by tools/gen_grouped_gemm_cluster_ptx.py: edit the generator (or the GEMM it copies), not this file.
//
// WHAT
//   G independent GEMMs with their own m_g, n_g, k_g (k_g a multiple of 64).  B_g [n_g][k_g/2] e2m1 (low
//   nibble = lower k, K-major, 16-byte row stride) with sfb_g [n_g][k_g/16] e4m3 (16-byte row stride: the
//   host pads otherwise); A16_g [m_g][k_g] fp16, A_g decoded by ptx/nvfp4_decode_a16.ptx (GROUPED=1: one
//   launch for every group, value * 2^-14 in the fragment k order) or, where the groups share k, by its wide form
//   ptx/nvfp4_decode_a16_wide.ptx (the same bytes), which the host launches first; this
//   kernel follows with programmatic dependent launch.  c_g fp16 [m_g][n_g], row stride c_row_g elements.
//
// WHY THIS SHAPE
//   The competition's groups have 40 to 248 rows of A and thousands of B rows.  ptx/grouped_gemm_nvfp4_wgmma.ptx
//   (the first grouped kernel) decodes A in every CTA and tiles A by 128 rows, so a group of 248 rows
//   decodes each B element twice and a group of 72 rows wastes 44% of its m64n128 wgmmas.  Here a CTA tile
//   holds up to {TILE_M} A rows (every competition group in one tile: each B element decoded once per call)
//   and the unit loop exists once per token count N = {", ".join(str(v) for v in variants[:3])}, ..., {FINE_FROM}, {FINE_FROM + FINE_STEP}, ..., {TILE_M} ({len(variants)} loops): a
//   tile runs m64nNk16 with the smallest N >= its rows, so the tensor work follows the real rows in steps of {step} up
//   to N = {FINE_FROM} and of {FINE_STEP} above.  Steps of 16 against 32, same epilogue (H100, docs/device-logs/2026-11-27-
//   session41/06, whole calls): competition case 2 72.32-72.53 against 74.43-74.66 us, eight groups of 196 rows
//   95.97-96.10 against 97.68-97.92, of 40 rows 54.37-54.69 against 56.16-56.35.  Steps of 8 above N = 128, where the
//   tensor work sets a unit's cost (below it a unit costs about the same at every N), against 16 everywhere (H200,
//   docs/device-logs/2026-11-28-session44/12, whole calls, three rounds, the host's schedule unchanged, bits equal):
//   case 2 61.78-62.05 against 62.22-62.64 us, eight groups of 196 rows 79.92-80.14 against 81.76-82.30, case 1's
//   shapes on this plan 118.59-119.04 against 120.90-121.84.  Steps of 8 everywhere (29 loops) ran case 2 1.1-1.5 us
//   slower than 16 (session 43).
//
// WHERE THE CODE COMES FROM
//   The consumers' setup and unit loop are the cluster dual GEMM's (ptx/dual_gemm_nvfp4_wgmma_cluster.ptx),
//   which are ptx/gemm_nvfp4_wgmma_cluster.ptx's (WG_WAIT=1) grown to m64n256k16; the generator copies
//   that loop once per N with m64n256k16 -> m64nNk16 and the accumulator list cut to its first N/2
//   registers (labels suffixed _N<N>).  Those headers are the reference for the swap-AB numerics, the
//   decode-to-fragment mapping, the a16 ring, its cluster-wide release and the hazards.  The ring slot
//   is the dual's 18432 bytes with one B box of {TILE_N} rows: rows 0..63 (consumer warpgroup 0) then rows
//   64..127 (warpgroup 1), then their scales at +{SFB_OFF}: the layout the copied loop addresses.
//
// TILES AND THE SCHEDULE
//   Group g: m_tiles = ceil(m_g/{TILE_M}), cluster tiles along n: n_tiles = ceil(n_g/({TILE_N}*CLUSTER)), rank r
//   of a cluster taking B rows (CLUSTER*nt + r)*{TILE_N}..; k_stages = ceil(k_g/256).  A unit is one k256
//   stage of one cluster tile; within a group tiles are m-tile major (n fastest) and units tile-major (k
//   fastest); groups follow each other in the host's launch order (most rows first), so the units form
//   one flat list.  Cluster q takes units [starts[q], starts[q+1]) (p_starts): the host cuts the list so
//   that the costliest run is as cheap as its cost model allows (a unit about DECODE + N/256, a tile's
//   epilogue, a run end inside a tile; nvfp4rt.ops.grouped_gemm_cluster.cut_runs), so clusters holding
//   N = 256 tiles get fewer units than clusters holding N = 64 ones, a cut falls inside a tile only where
//   that pays, and no run sums more than 8192 k inside one tile.  Per unit and warpgroup: 4 k64
//   sub-steps x 2 pieces of k32 x 2 wgmma m64nNk16.
//   THE DEALT SCHEDULE (session 45; the host's schedule="dealt", or "auto", the default, where its model says so).  Runs
//   of whole tiles can only mix groups at their edges, so on competition case 2 the clusters holding three tiles of
//   the 196-row group finished last.  The host deals whole tiles to the runs instead (largest first, then moves and
//   swaps off the costliest run; nvfp4rt.ops.grouped_gemm_cluster.deal_tiles), and each run's tiles of one m tile of
//   a group become one table entry whose c pointer, m and n start at the entry's first row and column, and whose
//   TMA coordinates the roles move by that row and column into the group's maps (MAP SLOTS): the kernel sees only
//   more entries, the runs laid out one after the other.  In session 45 each entry had maps of its own, and an
//   entry switch cost their first-use tensormap fences (about 1 us per run on case 2); with the groups' maps by
//   value (PARAM_MAPS) a switch costs no fence, and the deal charges each entry a run enters SWITCH_COST = 0.5.
//   Case 2, whole calls (session 46 run 1, H100): 61.28-61.87 us against 63.92-63.98 on the cut.
//   THE ENTRY HINT (parameter first_hint, set with the dealt schedule): each role's entry search starts at the run's
//   first entry, word Q + 1 + q of p_starts, instead of entry 0 (with ~150 entries, a search from 0 would be a long
//   chain of dependent loads).  Without the hint no load stands in front of the first search (the cut: a few groups).
//
// THE PROBLEM TABLE (device memory, written by the host, E + 1 entries of {TABLE_ENTRY} bytes: a group each, or the
//   dealt schedule's runs of tiles; "group" below means a table entry)
//   u32[0] unit_start   first unit of the group in the launch-wide order
//   u32[1] tile_start   first cluster tile of the group (its counters: CLUSTER per cluster tile)
//   u32[2] k_stages     u32[3] n_tiles (cluster tiles along n)
//   u32[4] m            u32[5] n            u32[6] alpha * 2^28 (f32 bits)
//   u32[7] 1 when the host encoded a TMA map of c (the epilogue's TMA stores), 0 when c's base or row pitch is
//          not a multiple of 16 bytes (the consumers' copy-out)
//   u64 at byte 32: c (fp16 pointer)        u64 at byte 40: c row stride (fp16 elements)
//   u32[12] map slot (the caller's group: its maps at p_tmaps / p_maps + 512 * slot)
//   u32[13] row0, u32[14] col0: the entry's first A row and B row in its group (0 unless the dealt schedule split the
//          group): the TMA coordinates into the group's maps are the entry's plus these (MAP SLOTS)
//   Entry E holds only unit_start = total units (the sentinel that ends the group search).  Every
//   role finds a unit's group by advancing its group index while u >= table[grp + 1].unit_start
//   (u only grows), from entry 0 or, with first_hint, from the run's first entry.
//
// THE TENSOR MAPS ({TMAPS_PER_GROUP} bytes per map slot: a16 +0, b +128, sfb +256, c +{C_MAP_OFF})
//   Encoded by cuTensorMapEncodeTiled on the host once per group and buffer (re-pointed when the buffer moves).
//   PARAM_MAPS = P > 0 (P >= G, a power of two up to 32: the host's default where the groups fit): the slots are the
//   kernel parameter p_maps (PARAM_MAP_BYTES = 512 P) and every role takes slot 0's generic address (cvta.param):
//   kernel parameters need no tensormap fence.  PARAM_MAPS = 0: the slots are in device memory (p_tmaps), copied
//   before the launch.
//   MAP SLOTS (session 46): every table entry of a group uses the group's maps (slot u32[12]); the B producer adds
//   col0 (u32[14]) to its B rows, the A16 producer row0 (u32[13]) to its A16 rows, and the storing threads both to
//   c's column and row.  A role looks a map slot up with the entry (one 16-byte load beside the entry's others) and
//   fences (PARAM_MAPS = 0) or prefetches it when the slot differs from the last one it used, not at every entry.
//   a16: fp16 2-D (k, m) box (64, {HALF_M}/CLUSTER), 128B swizzle; b: uint8 (k/2, n) box (128, {TILE_N}), 128B
//   swizzle; sfb: uint8 (k/16 or the padded pitch, n) box (16, {TILE_N}); c: fp16 (n, m) box (64, {BOX_ROWS}), 128B
//   swizzle (only where u32[7] is 1; else the slot is zero).  A producer issues (PARAM_MAPS = 0)
//   fence.proxy.tensormap::generic.acquire.gpu and prefetch.tensormap on the maps it uses on its
//   first unit of each group, and each warpgroup's storing thread the fence on its first tile of a group.
//
// PIPELINE AND WARP ROLES (block = 384 threads, one CTA per SM)
//   thread 0: B producer.  Per unit: wait empty[slot] (8 arrives), expect {STAGE_BYTES} bytes on full[slot],
//     TMA the group's B box to slot + 0 and its sfb box to slot + {SFB_OFF}.
//   thread 32: A16 producer.  Looks its first tile up (the group search, the table's rows, the a16 map's fence
//     and prefetch: host data, read while the decode may still run), then griddepcontrol.wait (the decode is
//     complete; session 43: the lookup used to follow the wait, on the critical path), then per unit and k64 sub-step
//     the dual's protocol: wait aempty[ab] (8 * CLUSTER arrives), expect the buffer's bytes on afull[ab], TMA
//     this rank's slices of the group's A16 to every CTA of the cluster.  SLICES: a buffer's 256 rows are two
//     {HALF_M}-row halves, and rank q owns the {HALF_M}/CLUSTER-row slice at {HALF_M}h + q*{HALF_M}/CLUSTER of half h.  A tile's
//     wgmmas read rows 0 .. N-1 only (N, its unit loop's), so only the slices that start below N are
//     loaded, and afull expects their bytes: 128 * {HALF_M}/CLUSTER per slice (rows past m_g inside one are
//     zero-filled and still counted).  Rows from N up may hold stale data; nothing reads them.  A slice that
//     starts at or past N would lie wholly past the group's rows, and such all-fill boxes were slow: before
//     session 40 every tile loaded the whole first half, and a group of 64 rows (rank 1's slice all fill) ran
//     1947 ns per unit against 1448 for 96 rows (docs/device-logs/2026-11-27-session40/21; also loading the whole
//     256-row box for small tiles cost ~3.3 us per unit, session 5).
//   warpgroups 1, 2: consumers.  Per segment (the part of one tile in the cluster's run) they find the
//     group, the tile's rows = min({TILE_M}, m_g - {TILE_M}*mt) and jump to the unit loop of the smallest N >= rows.
//     setmaxnreg 40 / 232 as in the dual (ptxas allocates the consumers' code up to 232 registers); ptxas -v must
//     report no spills and no C7511.  Built as a whole program, as nvfp4rt's default compiler builds PTX that uses
//     setmaxnreg: the driver's JIT linker ignores it (C7504), serialises every wgmma (C7512) and spills 44 bytes,
//     and ran case 2 in 70.6-71.1 us against 63.7 (session 43).
//     UNIT DRAIN: every unit loop waits for its wgmmas (wait_group 0) before the stage release at the end of each
//     unit, so no wgmma group is pending across a loop's back edge.  Without it, ptxas's register demand grew with
//     the number of unit loops, whatever their N (offline ptxas 13.0: N = 32 loops beside one N = 64 loop spilled
//     84 bytes as five loops, 344 as six), and with all fifteen loops it serialised every wgmma of the kernel
//     (C7511: a wait after each HGMMA).  A pending group inside a unit is unaffected (WG_WAIT = 1); the drain costs
//     a unit its last piece's overlap with the next unit.  Measured on the H100 (docs/device-logs/
//     2026-11-28-session42/02, whole calls): competition case 2 70.82-71.09 against 71.89-72.35 us, eight groups
//     of 40 / 196 rows 53.74-53.87 / 92.93-93.01 against 53.86-54.43 / 93.28-93.87, the k256 unit at N = 80 / 176 /
//     208 1350 / 2211 / 2544 ns against 1394 / 2255 / 2595.  The N <= 128 loops still run slower than the GEMM's
//     identical loop (session 32: with a loop of more than 64 accumulators in the function, the small loops' wgmmas
//     issue slowly; the cause is open).
//
// HALF RING (A_UNIT builds, the default four 32 KB a16 buffers; session 44)
//   The ring is two half sets: set h is rows 128h..128h+127 of every buffer, with its own full and empty barriers
//   (index 4h + s for buffer s: 2 * A_BUFS of each in the barrier block).  A unit of a tile of at most 128 rows (the
//   N <= 128 loops) reads one set, and such units take the sets in turn (%ah, the same sequence on both sides), so
//   the producer fills the other set for the next unit while the consumers read this one: two units of look-ahead
//   instead of one.  A unit of more rows takes both sets: the producer waits for both sets' empty barriers and puts
//   every byte on set 0's full barrier, and the consumers wait on set 0's and release both sets; SEG_DONE releases set
//   1's last buffer only after such a tile (%p_fullm).  %aphs holds phases by set (bit h): the consumers' of the full
//   barriers (a full unit flips set 0's only: set 1's are not used), the producer's of the empty ones (a full unit
//   flips both).  An arrive on set 1's full barrier in full units, to keep its phase in step, worked but left phases
//   that no thread waits for: compute-sanitizer synccheck reports that ("Missing wait", session 44 run 10).  Why the
//   half ring: Nsight Compute's stall sampling of eight groups of 40 rows (N = 48) put 22% of the consumers' samples in
//   the unit loop on the a16 full barriers (docs/device-logs/2026-11-28-session44/03).  Measured on the H100
//   (05, whole calls, two rounds, bits equal): eight groups of 40 rows 49.65 against 51.58-51.65 us, competition
//   case 2 63.86-63.95 against 64.48-64.93, ragged rows 63.55-63.97 against 64.38-64.58, eight groups of 196 rows
//   84.59-84.69 against 85.09-85.46, case 1's shapes on this plan 124.37-124.91 against 125.06-125.34.
//
// STREAM-K REDUCTION (deterministic)
//   A tile whose units lie in one cluster's run goes straight to the epilogue.  Otherwise every
//   contributor CTA writes the fp32 accumulators of the tile's 32-row blocks (fragment order,
//   16-byte coalesced) to its workspace slot 2*(CLUSTER*q + r) + sidx ({SLOT_V4 * 16 // 1024} KB each; sidx = 0
//   when the cluster's run starts inside the tile, starts[q] >= the tile's first unit, else 1),
//   named barrier, thread 0 bumps counters[CLUSTER*tile + r] (atom.acq_rel.gpu; only thread 0 synchronises
//   at gpu scope, as in the GEMM's header, STREAM-K REDUCTION: without the other threads' own fences case 2 ran
//   1.5 us faster, docs/device-logs/2026-11-22-session30/10),
//   and the contributor that completes the count resets it, sums the slots of clusters c_lo..c_hi
//   (p_tile_ctas[tile]) in order (0 + P_lo + ...) and runs the epilogue.  Head check (HEAD_CHECK=1, as
//   in the GEMM and the dual): the head c_lo reads the counter before writing and polls it for at most
//   HEAD_WAIT clocks; once every other contributor is in it adds +0 to its own accumulators and reduces
//   from c_lo + 1.  Measured on the H200 (session-7 log 05, us): cases 1-4 no check 147.1 / 92.5 /
//   50.2 / 44.8, HEAD_WAIT = 32768 144.4 / 88.5 / 44.8 / 34.2.
//
// EPILOGUE (region X of {X_BYTES} bytes)
//   Accumulator e of a consumer thread is output column n_l = 16*warp + g + 8*((e/2)%2) of its
//   warpgroup's 64 and row m_l = 8*(e/4) + 2t + e%2 of the tile, and only the 32-row blocks below the tile's rows are
//   staged.  The epilogue works the tile out again from seg_end (group entry, two divisions, alpha): values kept in
//   registers through the unit loop slowed it: carrying all of them made whole calls 1-1.7 us slower
//   (docs/device-logs/2026-11-27-session41/03, measured before the UNIT DRAIN, while every wgmma was serialised).
//   {"Only the tile's contributors c_lo..c_hi (an L2 round trip) are loaded at SEG_LOOP." if early_ctas else "The tile's contributors c_lo..c_hi are loaded here too."}
//   TMA stores (u32[7] = 1).  Warpgroup w owns {WG_BOXES} boxes of {BOX_BYTES // 1024} KB at X + {WG_BOXES * BOX_BYTES}w: {BOX_ROWS} rows of 64 columns,
//   128-byte rows, 128B-swizzled as the c map's box (chunk c of row r at chunk c ^ (r % 8); conflict-free for
//   these stores).  Per {BOX_ROWS}-row quarter q of the tile (only those below its rows), in the warpgroup alone
//   (named barrier 2 + w): its first thread waits until every store but its newest has read its box
//   (cp.async.bulk.wait_group.read 1: the stores take the two boxes in turn, across quarters and tiles, so the
//   box about to be staged is free), barrier, every thread stages accumulators {ACC * BOX_ROWS // TILE_M}q..{ACC * BOX_ROWS // TILE_M}q+{ACC * BOX_ROWS // TILE_M - 1} (cvt.rn.f16x2
//   packs each pair, two rows of one column, and 4 stmatrix.m8n8.x4.trans write them as 16-byte rows of 8 columns;
//   each 8-row matrix lands in 8 distinct chunks of the swizzle, so no bank conflicts) and issues
//   fence.proxy.async.shared::cta, barrier, the first thread stores the box to c[m0 + {BOX_ROWS}q.., n0 + 64w..]
//   (cp.async.bulk.tensor ... bulk_group with an L2 evict_first policy; the map clips rows past m and columns past n)
//   and commits it.  The
//   store runs on while the warpgroup stages the next quarter in the other box or starts its next tile, and
//   nothing waits for the other warpgroup.  Before the consumers exit (C_EXIT) the storing threads wait for
//   their stores to complete.  (The barrier's id is a register, so ptxas reserves all 16 named barriers: with one
//   CTA per SM that costs nothing.)
//   L2 POLICY: the c stores carry evict_first (c is written once, so its lines leave L2 before the B and A16 lines
//   still being read): eight groups of (196, 7168, 2048) ran 93.74-93.86 us against 95.62-95.97, case 2 72.78-73.12
//   against 73.06-73.22, and evict_last 97.10-97.41 / 72.91-73.14 (H100, docs/device-logs/2026-11-27-session41/29).
//   Copy-out (u32[7] = 0).  Round w (w = 0, 1): warpgroup w writes its values (2-byte stores) to the staging tile X[m_l][n_l]
//   (pitch {X_PITCH} bytes: conflict-free 2-byte stores), then all 256 consumers copy 16-byte rows of 8 columns to
//   c (predicated 2-byte stores at the ragged n edge or when c rows are not 16-byte aligned).  This path first
//   waits for any TMA store still reading X, and ends with a barrier of both warpgroups, so a TMA-stored tile
//   after it never restages X under a copy-out.
//   Measured (H100, docs/grouped_gemm.md, "Session 33"): on case 2 the old epilogue (both rounds and the copy-out on
//   every tile) cost 7 us of the kernel's 76.5, the copy-out alone 5.  TMA stores of 128-row boxes, one per
//   warpgroup, ran the kernel 0.6-2.4 us faster than it (three machines; bits equal), and about 2 us of what they
//   kept was the second half's wait for the first half's store to read the box; hence two 64-row boxes in turn,
//   which ran 0.3 us faster than one 128-row box and 0.4-2.6 us faster than the old epilogue (two more machines).
//
// CLUSTER LIFETIME: as in the GEMM, cluster barriers after the barrier inits and before exit.
//
// LAUNCH CONTRACT
//   grid = (CLUSTER * Q, 1, 1) for Q clusters, block = (384, 1, 1), cluster = (CLUSTER, 1, 1); programmatic
//   stream serialization (PDL) after the decode kernel.
//   dynamic shared memory = 2048 + {A16_BUF}*A_BUFS + {STAGE_BYTES}*S + {X_BYTES} bytes (A_BUFS 3 or 4, S = num_stages
//   2..5 within the opt-in limit), carved up as in the dual: barrier block, a16 buffers, ring, region X.
//   parameters: p_tmaps ({TMAPS_PER_GROUP} * G bytes, 64-byte aligned); p_table ((E + 1) * {TABLE_ENTRY} bytes);
//   p_starts (2Q + 1 u32: starts[0..Q], then each run's first entry); p_tile_ctas (u32 pair c_lo, c_hi per
//   cluster tile); p_ws (fp32, 2 * grid * {SLOT_V4 * 16} bytes); p_counters (u32, CLUSTER per cluster tile, zero
//   before the first launch, left zero); num_stages; first_hint (1: start the entry search at p_starts[Q + 1 + q]);
//   with PARAM_MAPS, p_maps (PARAM_MAP_BYTES, .align 64: the map slots by value, zero past G; p_tmaps is not read).
//
// MEASURED (H200, docs/grouped_gemm.md and docs/device-logs/2026-11-21-session5/; us, L2 cleared): the
//   competition cases 1-4 run 151.4 / 93.2 / 50.6 / 44.9 (decode + GEMM; the first grouped kernel 183.7 /
//   124.3 / 49.2 / 22.2, so the op layer runs this one on problems of >= 1024 units: cases 1, 2).  A k256
//   unit costs 1.97 / 2.15 / 2.86 us per cluster at N = 32 / 128 / 256 (3.35 / 3.20 / 2.81 when every
//   sub-step loaded the whole 256-row box): small tiles are bound by the A16 ring's round trip and the B
//   decode, not by the tensor cores.  Clusters of 4 are faster for small N and slower for N = 256.
"""

SIGNATURE = f"""
.version {{{{PTX_VERSION}}}}
.target {{{{TARGET}}}}
.address_size 64

.extern .shared .align 1024 .b8 smem[];

.visible .entry {ENTRY}(
    .param .u64 .ptr .global .align 64 p_tmaps,
    .param .u64 .ptr .global .align 16 p_table,
    .param .u64 .ptr .global .align 4  p_starts,
    .param .u64 .ptr .global .align 8  p_tile_ctas,
    .param .u64 .ptr .global .align 16 p_ws,
    .param .u64 .ptr .global .align 4  p_counters,
    .param .u32 num_stages,
// {{{{if PARAM_MAPS}}}}
    .param .u32 first_hint,
    .param .align 64 .b8 p_maps[{{{{PARAM_MAP_BYTES}}}}]
// {{{{else}}}}
    .param .u32 first_hint
// {{{{endif}}}}
)
.maxntid 384, 1, 1
.minnctapersm 1
{{
    .reg .pred  %p_lead, %p_more, %p_ready, %p_wrap, %p_acc, %p_whole, %p_last, %p_first, %p_row, %p_vec, %p_col;
    .reg .pred  %p_pend, %p_pend1, %p_l0, %p_rel, %p_new, %p_skip, %p_wg, %p_two, %p_head, %p_same;
    .reg .pred  %p_tma, %p_iss, %p_cmap;      // the TMA-store epilogue's
    .reg .pred  %p_one, %p_dep;               // the A16 producer: this rank's first-half slice is read; decode awaited
    .reg .pred  %p_half, %p_fullm;            // HALF RING: a unit of one half set (producer), a tile of both (consumers)
    .reg .b32   %aphs, %ah;                   // HALF RING: the two half sets' phases (bits 0, 1), the next half unit's set
    .reg .b32   %thread, %cta, %rank, %ct, %wg, %wi, %lane, %g, %t, %x, %y, %z, %tmp, %tmp2;
    .reg .b32   %m, %n, %KB, %ntiles, %S, %rows, %nblk, %lim, %stg, %otma, %box, %wbar, %cgrp, %qb, %tb;
    .reg .b32   %u, %u_end, %seg_end, %tile, %kb, %mt, %nt, %m0, %n0, %j;
    .reg .b32   %grp, %grp0, %pgrp, %gu0, %gt0, %lt, %U0, %tbase, %tend;
    .reg .b32   %mslot, %row0, %col0;         // a table entry's map slot (its group's), first row and column
    .reg .b32   %slot, %phase, %par, %bar, %rbar, %slot_addr, %addr, %a16;
    .reg .b32   %base, %sm, %sm_a16, %sm_c, %sm_full, %sm_empty, %sm_afull, %sm_aempty, %sm_flag;
    .reg .b32   %rowB, %offB0, %bslot, %sfslot, %sfB;
    .reg .b32   %ab, %aph, %pab, %pab1, %wab, %wph, %kel, %arow;
    .reg .b16   %sb0, %sb1, %mask;
    .reg .b32   %c_lo, %c_hi, %cc, %sidx, %old, %flag, %row, %col8, %gm, %gn, %i, %vcta, %vtile;
    .reg .b32   %desc_hi, %dlo, %dlou, %abar, %aebar;
    .reg .b32   %pw0, %pw1, %eb, %nslot, %nphase, %fbar;   // the GEMM loop's (session 26)
    .reg .b64   %dbase;
    .reg .pred  %p_ea<4>, %p_fok, %p_nw;
    .reg .b64   %desc, %ptm, %ptab, %tm_a16, %tm_b, %tm_sfb, %tm_c, %mbstate;
    .reg .b64   %pol_b, %pol_a16, %pol_c;     // L2 policies of the TMA loads and of the c stores
    .reg .b64   %pc, %pws, %pcnt, %pw, %pcrow, %off64, %cidx, %c_rs, %cst;
    .reg .f32   %alpha, %v0, %v1, %v2, %v3;
    .reg .b16   %hl, %hh, %c16, %sbx;
    .reg .b32   %sc<8>, %sq0, %sq1, %ssel;          // a unit's scale words, a sub-step's half2 scales
    .reg .b32   %w0, %w1, %sw0, %sw1;
    .reg .b32   %xr, %we, %wo;
    // B fragments: sets X, Y, Z, W (piece pp % 4 = 0..3); a = even k16 step, b = odd step
    .reg .b32   %xa0, %xa1, %xa2, %xa3, %xb0, %xb1, %xb2, %xb3;
    .reg .b32   %ya0, %ya1, %ya2, %ya3, %yb0, %yb1, %yb2, %yb3;
    .reg .b32   %za0, %za1, %za2, %za3, %zb0, %zb1, %zb2, %zb3;
    .reg .b32   %wa0, %wa1, %wa2, %wa3, %wb0, %wb1, %wb2, %wb3;
    .reg .f32   %acc<{ACC}>;
"""

PARAMETERS = """
    // ------------------------------------------------------------------ parameters
    ld.param.u32 %S, [num_stages];
    mov.u32 %thread, %tid.x;
    mov.u32 %cta, %clusterid.x;               // the cluster: its units and its partial slots
    mov.u32 %rank, %cluster_ctarank;          // this CTA's 128 B rows of the cluster tile, its A16 slice
    ld.param.u64 %pw, [p_starts];
    mul.wide.u32 %off64, %cta, 4;
    add.u64 %pw, %pw, %off64;
    ld.global.nc.u32 %u, [%pw];               // the cluster's units: [starts[q], starts[q + 1])
    ld.global.nc.u32 %u_end, [%pw+4];
    // the table entry the roles' entry search starts from: with first_hint, the host's (the runs' first entries
    // follow starts[0..Q]: starts[Q + 1 + q]), else entry 0, with no load in front of the first search
    ld.param.u32 %tmp, [first_hint];
    mov.u32 %grp0, 0;
    setp.ne.u32 %p_more, %tmp, 0;
    @!%p_more bra HINT_READY;
    mov.u32 %tmp, %nclusterid.x;
    add.u32 %tmp, %tmp, %cta;
    mul.wide.u32 %off64, %tmp, 4;
    ld.param.u64 %pw, [p_starts];
    add.u64 %pw, %pw, %off64;
    ld.global.nc.u32 %grp0, [%pw+4];
HINT_READY:

"""

CONSUMER_INTRO = """
    // ================================================================== consumers (warpgroups 1, 2)
    // ---- setup: the cluster GEMM's (see the header); warpgroup w decodes B rows 64w.. of the CTA tile
"""


#: SEG_LOOP's load of the tile's contributors (p_tile_ctas), for the segment's epilogue: two registers live through the
#: unit loop, and the L2 round trip off the way from the last wgmma to the stores
EARLY_CTAS = """\
    // ---- the tile's contributors c_lo..c_hi (p_tile_ctas), loaded now for the segment's epilogue: they land while the
    //      unit loop runs (c_lo and c_hi are the only values the loop carries for the epilogue: registers are scarce)
    add.u32 %tmp, %gt0, %lt;
    ld.param.u64 %pcnt, [p_tile_ctas];
    mul.wide.u32 %off64, %tmp, 8;
    add.u64 %pcnt, %pcnt, %off64;
    ld.global.nc.v2.u32 {%c_lo, %c_hi}, [%pcnt];
"""


def seg_loop(variants=TOKEN_VARIANTS, early_ctas: bool = True) -> str:
    L = [f"""\
    mov.u32 %grp, %grp0;                      // the table entry of unit u (u only grows: so does grp)
    mov.u32 %cgrp, -1;                        // the group whose c map this thread last fenced (none yet)
    mov.u32 %qb, 0;                           // the TMA-store box this warpgroup stages into next
SEG_LOOP:
    setp.ge.u32 %p_more, %u, %u_end;
    @%p_more bra C_EXIT;
    ld.param.u64 %ptab, [p_table];
C_FIND_GROUP:
    add.u32 %tmp, %grp, 1;
    mul.wide.u32 %off64, %tmp, {TABLE_ENTRY};
    add.u64 %pw, %ptab, %off64;
    ld.global.nc.u32 %tmp, [%pw];             // first unit of the next group (entry G: total units)
    setp.ge.u32 %p_more, %u, %tmp;
    @%p_more add.u32 %grp, %grp, 1;
    @%p_more bra C_FIND_GROUP;
    mul.wide.u32 %off64, %grp, {TABLE_ENTRY};
    add.u64 %pw, %ptab, %off64;
    ld.global.nc.v4.u32 {{%gu0, %gt0, %KB, %ntiles}}, [%pw];
    ld.global.nc.u32 %m, [%pw+16];
    sub.u32 %tmp, %u, %gu0;
    div.u32 %lt, %tmp, %KB;                   // cluster tile of the group
    mad.lo.u32 %seg_end, %lt, %KB, %KB;
    add.u32 %seg_end, %seg_end, %gu0;         // the tile's last unit + 1
    min.u32 %seg_end, %seg_end, %u_end;
    setp.ne.u32 %p_acc, 0, 0;                 // first wgmma of the segment ignores the accumulators
    setp.ne.u32 %p_fok, 0, 0;                 // no stage seen full ahead of its unit yet (the GEMM loop's look-ahead)
{EARLY_CTAS if early_ctas else ""}\
    // ---- the tile's rows of A: min({TILE_M}, m - {TILE_M}*mt) -> the unit loop of the smallest N >= rows
    //      (N = {", ".join(str(n) for n in variants)})
    div.u32 %mt, %lt, %ntiles;
    shl.b32 %tmp, %mt, 8;
    sub.u32 %tmp, %m, %tmp;
    min.u32 %tmp, %tmp, {TILE_M};
    setp.gt.u32 %p_fullm, %tmp, {HALF_LOOP_MAX};         // HALF RING: the tile's units read both sets"""]
    for n in variants[:-1]:
        L.append(f"    setp.le.u32 %p_skip, %tmp, {n};")
        L.append(f"    @%p_skip bra UNIT_LOOP_N{n};")
    L.append(f"    bra.uni UNIT_LOOP_N{variants[-1]};")
    return "\n".join(L) + "\n"


def unit_loops(loop: str, variants=TOKEN_VARIANTS, half_ring: bool = True) -> str:
    parts = []
    for n in variants:
        parts.append(f"    // ================================================================ unit loop, N = {n} rows of A "
                     f"(m64n{n}k16, accumulators 0..{n // 2 - 1})\n")
        text = unit_loop_variant(loop, n)
        parts.append(half_ring_loop(text, n) if half_ring else text)
        parts.append("    bra.uni SEG_DONE;\n")
    return "".join(parts) + "SEG_DONE:\n"


def _v4(i: int) -> str:
    return dual._v4(i)


def _block_guard(block: int, label: str) -> str:
    """Skip to ``label`` when the tile has at most ``block`` 32-row blocks (uniform branch)."""
    return f"    setp.le.u32 %p_skip, %nblk, {block};\n    @%p_skip bra {label};"


CTAS_LOAD = """\
    // contributors of this tile: clusters c_lo..c_hi (the host's table)
    ld.param.u64 %pw, [p_tile_ctas];
    mul.wide.u32 %off64, %tile, 8;
    add.u64 %pw, %pw, %off64;
    ld.global.nc.v2.u32 {%c_lo, %c_hi}, [%pw];
"""
CTAS_LOADED = "    // contributors of this tile: clusters c_lo..c_hi, loaded at SEG_LOOP\n"


def segment_epilogue(early_ctas: bool = True) -> str:
    v4_per_block = ACC_PER_BLOCK // 4
    L = []
    e = L.append
    e(f"""\
    // ---- the tile just finished: group grp, its cluster tile lt, the launch-wide tile, rows, first unit U0
    ld.param.u64 %ptab, [p_table];
    mul.wide.u32 %off64, %grp, {TABLE_ENTRY};
    add.u64 %pw, %ptab, %off64;
    ld.global.nc.v4.u32 {{%gu0, %gt0, %KB, %ntiles}}, [%pw];
    ld.global.nc.u32 %m, [%pw+16];
    sub.u32 %tmp, %seg_end, 1;
    sub.u32 %tmp, %tmp, %gu0;
    div.u32 %lt, %tmp, %KB;
    add.u32 %tile, %gt0, %lt;
    mad.lo.u32 %U0, %lt, %KB, %gu0;
    div.u32 %mt, %lt, %ntiles;
    shl.b32 %m0, %mt, 8;
    sub.u32 %rows, %m, %m0;
    min.u32 %rows, %rows, {TILE_M};
    add.u32 %nblk, %rows, {BLOCK_ROWS - 1};
    shr.u32 %nblk, %nblk, {BLOCK_ROWS.bit_length() - 1};                 // {BLOCK_ROWS}-row blocks
    mad.lo.u32 %vcta, %cta, {{{{CLUSTER}}}}, %rank;        // this CTA's partial slots are 2*vcta + sidx
    mad.lo.u32 %vtile, %tile, {{{{CLUSTER}}}}, %rank;      // this rank's CTA tile: its counter
{CTAS_LOADED if early_ctas else CTAS_LOAD}    setp.eq.u32 %p_whole, %c_lo, %c_hi;
    @%p_whole bra STORE_TILE;                 // this cluster did the whole tile
    ld.param.u64 %pws, [p_ws];
{dual.head_check(ACC)}
    // ---- partial: the accumulators of the tile's row blocks in fragment order to ws[2*vcta + sidx], sidx = 0
    //      if the cluster's run starts inside the tile; 16-byte unit (v, ct) at ((slot*{ACC // 4} + v)*{CONSUMERS} + ct)*16
    ld.param.u64 %pw, [p_starts];
    mul.wide.u32 %off64, %cta, 4;
    add.u64 %pw, %pw, %off64;
    ld.global.nc.u32 %tmp, [%pw];
    setp.ge.u32 %p_first, %tmp, %U0;
    selp.u32 %sidx, 0, 1, %p_first;
    shl.b32 %tmp, %vcta, 1;
    add.u32 %tmp, %tmp, %sidx;
    mul.lo.u32 %tmp, %tmp, {SLOT_V4};         // 16-byte units per slot
    add.u32 %tmp, %tmp, %ct;
    mul.wide.u32 %off64, %tmp, 16;
    add.u64 %pw, %pws, %off64;""")
    for v in range(ACC // 4):
        if v and v % v4_per_block == 0:
            e(_block_guard(v // v4_per_block, "PART_STORED"))
        e(f"    st.global.v4.f32 [%pw+{v * 16 * CONSUMERS}], {_v4(v)};")
    e("PART_STORED:")
    e(dual.STREAMK_COUNTER)
    for i in range(ACC):
        e(f"    mov.f32 %acc{i}, 0f00000000;")
    e(f"""\
    mov.u32 %cc, %c_lo;
RED_LOOP:
    ld.param.u64 %pw, [p_starts];
    mul.wide.u32 %off64, %cc, 4;
    add.u64 %pw, %pw, %off64;
    ld.global.nc.u32 %tmp, [%pw];
    setp.ge.u32 %p_first, %tmp, %U0;          // contributor cc's run starts inside the tile: its slot 0
    selp.u32 %sidx, 0, 1, %p_first;
    mad.lo.u32 %tmp, %cc, {{{{CLUSTER}}}}, %rank;          // contributor cc's CTA of the same rank
    shl.b32 %tmp, %tmp, 1;
    add.u32 %tmp, %tmp, %sidx;
    mul.lo.u32 %tmp, %tmp, {SLOT_V4};
    add.u32 %tmp, %tmp, %ct;
    mul.wide.u32 %off64, %tmp, 16;
    add.u64 %pw, %pws, %off64;""")
    for v in range(ACC // 4):
        if v and v % v4_per_block == 0:
            e(_block_guard(v // v4_per_block, "RED_NEXT"))
        e(f"    ld.global.cg.v4.f32 {{%v0, %v1, %v2, %v3}}, [%pw+{v * 16 * CONSUMERS}];")
        for j in range(4):
            e(f"    add.f32 %acc{4 * v + j}, %acc{4 * v + j}, %v{j};")
    e("""\
RED_NEXT:
    add.u32 %cc, %cc, 1;
    setp.le.u32 %p_more, %cc, %c_hi;
    @%p_more bra RED_LOOP;""")
    return "\n".join(L)


STMATRIX = "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"


def _staging_stmatrix(first: int, last: int, label: str) -> list:
    """fp16(alpha * acc) of accumulators first..last-1 (a quarter of the tile: 64 rows) into the box at %stg, 8 per
    stmatrix.trans: instruction s takes e = first + 8s.., blocks (rows 16s.., n +0), (16s.., +8), (16s+8.., +0),
    (16s+8.., +8) of the warp's 16 columns; cvt.rn.f16x2 packs each pair (e, e+1), two rows of one column, lower e
    in the low half.  Skips to ``label`` from the first 32-row block past the tile's rows."""
    L = []
    regs = ("%x", "%y", "%z", "%tmp2")
    for a in range(first, last, 8):
        if a != first and a % ACC_PER_BLOCK == 0:
            L.append(_block_guard(a // ACC_PER_BLOCK, label))
        for i, reg in enumerate(regs):
            L.append(f"    mul.f32 %v0, %acc{a + 2 * i}, %alpha;")
            L.append(f"    mul.f32 %v1, %acc{a + 2 * i + 1}, %alpha;")
            L.append(f"    cvt.rn.f16x2.f32 {reg}, %v1, %v0;")
        L.append(f"    {STMATRIX} [%stg+{16 * 128 * ((a - first) // 8)}], {{{', '.join(regs)}}};")
    return L


def _staging(first: int, last: int, label: str, offset) -> list:
    """fp16(alpha * acc) of accumulators first..last-1 to [%stg + offset(a)], skipping to ``label`` from the first
    32-row block past the tile's rows (uniform branches at 16-accumulator boundaries)."""
    L = []
    for a in range(first, last):
        if a != first and a % ACC_PER_BLOCK == 0:
            L.append(_block_guard(a // ACC_PER_BLOCK, label))
        L.append(f"    mul.f32 %v0, %acc{a}, %alpha;")
        L.append("    cvt.rn.f16.f32 %c16, %v0;")
        L.append(f"    st.shared.b16 [%stg+{offset(a)}], %c16;")
    return L


def _older_stores_read() -> str:
    if WG_BOXES == 2:
        return "every store but the newest (the other box's) has read its box"
    return f"every store but the newest {WG_BOXES - 1} (the other boxes') has read its box"


def _next_box() -> str:
    """%qb steps to the warpgroup's next box (the boxes are taken in turn)."""
    if WG_BOXES == 2:
        return "    xor.b32 %qb, %qb, 1;                      // the next quarter stages into the other box"
    return (f"    add.u32 %qb, %qb, 1;                      // the next quarter stages into the next box\n"
            f"    and.b32 %qb, %qb, {WG_BOXES - 1};")


def store_tile() -> str:
    L = []
    e = L.append
    e(f"""\
STORE_TILE:
    // ---- alpha * acc in fp16 (the header's EPILOGUE): TMA stores where the group's c allows them (u32[7] of its
    //      table entry), else two staging rounds through region X and the consumers' copy-out
    ld.param.u64 %ptab, [p_table];
    mul.wide.u32 %off64, %grp, {TABLE_ENTRY};
    add.u64 %pw, %ptab, %off64;
    ld.global.nc.f32 %alpha, [%pw+24];        // alpha * 2^28 (the operands carry 2^-14 each)
    ld.global.nc.u32 %otma, [%pw+28];         // 1: c has a TMA map at +{C_MAP_OFF} of the group's maps
    ld.global.nc.v4.u32 {{%mslot, %row0, %col0, %tmp}}, [%pw+48];  // map slot, first row and column (MAP SLOTS)
    div.u32 %tmp, %lt, %ntiles;
    mul.lo.u32 %tmp, %tmp, %ntiles;
    sub.u32 %nt, %lt, %tmp;
    mad.lo.u32 %n0, %nt, {{{{CLUSTER}}}}, %rank;           // this rank's {TILE_N} columns of the cluster tile
    shl.b32 %n0, %n0, 7;
    and.b32 %tmp, %ct, 127;
    setp.eq.u32 %p_iss, %tmp, 0;              // each warpgroup's first thread issues (and waits for) its stores
    setp.eq.u32 %p_tma, %otma, 0;
    @%p_tma bra STORE_COPY;
    // ---- TMA stores.  Warpgroup w stages its 64 columns, {BOX_ROWS} tile rows at a time, in one of its {WG_BOXES} boxes
    //      of X ({BOX_BYTES // 1024} KB each at X + {WG_BOXES * BOX_BYTES}w + {BOX_BYTES}b, 128B-swizzled as the map's box, b = %qb
    //      taking turns across quarters and tiles), and its first thread stores the box to c[m0 + {BOX_ROWS}q.., n0 + 64w..]
    //      (the map clips rows past m and columns past n).  Only the warpgroup's own barrier (2 + w) orders
    //      staging and store, so the two warpgroups never wait for each other, and the stores run on while the
    //      warpgroup stages the next quarter or goes on to the next tile.  Before a box is restaged its last store
    //      must have read it: the stores alternate boxes, so cp.async.bulk.wait_group.read 1 (all but the newest
    //      store, which used the other box) is enough.  C_EXIT waits for them all.
    add.u32 %wbar, %wg, 2;
    // this thread's row address in a box for stmatrix.trans: lane 8k + r gives row 8*(k/2) + r (+ 16s for a quarter's
    // instruction s) of matrix k, whose 8 columns are chunk 2*wi + k%2 of the warpgroup's 64, at chunk
    // (2*wi + k%2) ^ r of the row (the 128B swizzle: every such row has row % 8 = r)
    and.b32 %tmp, %lane, 7;                   // r
    shr.u32 %tmp2, %lane, 4;
    shl.b32 %tmp2, %tmp2, 3;
    add.u32 %tb, %tmp, %tmp2;                 // 8*(k/2) + r
    shl.b32 %tb, %tb, 7;
    shr.u32 %tmp2, %lane, 3;
    and.b32 %tmp2, %tmp2, 1;                  // k%2
    shl.b32 %x, %wi, 1;
    add.u32 %x, %x, %tmp2;
    xor.b32 %x, %x, %tmp;                     // swizzled chunk
    shl.b32 %x, %x, 4;
    add.u32 %tb, %tb, %x;
    add.u32 %n0, %n0, %col0;                  // c from the entry's first row and column of its group (MAP SLOTS)
    add.u32 %m0, %m0, %row0;
    @!%p_iss bra EPI_CMAP_READY;
{_maps_base()}
    mul.wide.u32 %off64, %mslot, {TMAPS_PER_GROUP};
    add.u64 %tm_c, %ptm, %off64;
    add.u64 %tm_c, %tm_c, {C_MAP_OFF};
// {{{{if PARAM_MAPS == 0}}}}
    setp.eq.u32 %p_cmap, %mslot, %cgrp;
    @%p_cmap bra EPI_CMAP_READY;
    fence.proxy.tensormap::generic.acquire.gpu [%tm_c], 128;   // first use of this group's c map: after the host's copy
    mov.u32 %cgrp, %mslot;
// {{{{endif}}}}
EPI_CMAP_READY:""")
    quarters = TILE_M // BOX_ROWS
    acc_per_quarter = ACC // quarters
    for q in range(quarters):
        if q:
            e(_block_guard(q * BOX_ROWS // BLOCK_ROWS, "EPI_TMA_DONE"))
        e(f"""\
    // quarter {q}: tile rows {BOX_ROWS * q}..{BOX_ROWS * q + BOX_ROWS - 1} (accumulators {acc_per_quarter * q}..{acc_per_quarter * q + acc_per_quarter - 1}) into box %qb
    shl.b32 %tmp, %wg, {(WG_BOXES * BOX_BYTES).bit_length() - 1};
    add.u32 %box, %sm_c, %tmp;
    shl.b32 %tmp, %qb, {BOX_BYTES.bit_length() - 1};
    add.u32 %box, %box, %tmp;
    add.u32 %stg, %box, %tb;
    @%p_iss cp.async.bulk.wait_group.read {WG_BOXES - 1};  // {_older_stores_read()}
    bar.sync %wbar, 128;""")
        L.extend(_staging_stmatrix(acc_per_quarter * q, acc_per_quarter * (q + 1), f"EPI_TMA_STAGED_{q}"))
        e(f"""\
EPI_TMA_STAGED_{q}:
    fence.proxy.async.shared::cta;            // this thread's stmatrix stores before the TMA engine's reads
    bar.sync %wbar, 128;
{_next_box()}
    @!%p_iss bra EPI_TMA_ISSUED_{q};
    shl.b32 %tmp, %wg, 6;
    add.u32 %x, %n0, %tmp;
    add.u32 %y, %m0, {BOX_ROWS * q};
    createpolicy.fractional.L2::evict_first.b64 %pol_c, 1.0;  // c is written once (EPILOGUE, L2 POLICY)
    cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [%tm_c, {{%x, %y}}], [%box], %pol_c;
    cp.async.bulk.commit_group;
EPI_TMA_ISSUED_{q}:""")
    e(f"""\
EPI_TMA_DONE:
    bra.uni NEXT_SEG;
STORE_COPY:
    // ---- c without a TMA map: one warpgroup's 64 columns per round through region X, then every consumer copies
    @%p_iss cp.async.bulk.wait_group.read 0;  // an earlier tile's TMA stores may still read X
    ld.global.nc.u32 %n, [%pw+20];            // (%pw: still the group's table entry)
    ld.global.nc.v2.u64 {{%pc, %c_rs}}, [%pw+32];
    // 16-byte stores only when c and its row stride keep rows 16-byte aligned
    shl.b64 %cst, %c_rs, 1;
    or.b64 %cst, %cst, %pc;
    cvt.u32.u64 %tmp, %cst;
    and.b32 %tmp, %tmp, 15;
    setp.eq.u32 %p_vec, %tmp, 0;
    shl.b32 %lim, %rows, 3;                   // 8-column chunks of the tile's rows in one round
    // this thread's staging base: row 2t, column 16*wi + g (accumulator e adds the offset of staging_offset)
    mul.lo.u32 %tmp, %t, {2 * X_PITCH};
    add.u32 %addr, %sm_c, %tmp;
    and.b32 %tmp, %rowB, 63;
    shl.b32 %tmp, %tmp, 1;
    add.u32 %stg, %addr, %tmp;""")
    for rnd in range(2):
        e(f"""\
    bar.sync 1, {CONSUMERS};                          // X is free (the previous round's or tile's copy-out is over)
    setp.ne.u32 %p_wg, %wg, {rnd};
    @%p_wg bra EPI_STAGED_{rnd};
    // warpgroup {rnd}: fp16(alpha * acc) of the tile's row blocks into X[m_l][n_l]""")
        L.extend(_staging(0, ACC, f"EPI_STAGED_{rnd}", dual.staging_offset))
        e(f"""\
EPI_STAGED_{rnd}:
    bar.sync 1, {CONSUMERS};
    // ---- copy out: rows x 8 chunks of 8 columns (columns n0 + {64 * rnd}..), chunk i = 8*row + col8
    mov.u32 %i, %ct;
    setp.ge.u32 %p_more, %i, %lim;
    @%p_more bra OUT_DONE_{rnd};
OUT_LOOP_{rnd}:
    shr.u32 %row, %i, 3;
    and.b32 %col8, %i, 7;
    add.u32 %gm, %m0, %row;
    shl.b32 %gn, %col8, 3;
    add.u32 %gn, %gn, %n0;
    add.u32 %gn, %gn, {64 * rnd};
    mul.lo.u32 %tmp, %row, {X_PITCH};
    shl.b32 %tmp2, %col8, 4;
    add.u32 %tmp, %tmp, %tmp2;
    add.u32 %addr, %sm_c, %tmp;
    cvt.u64.u32 %off64, %gm;
    mul.lo.u64 %cidx, %off64, %c_rs;
    cvt.u64.u32 %off64, %gn;
    add.u64 %cidx, %cidx, %off64;
    shl.b64 %cidx, %cidx, 1;
    add.u64 %pcrow, %pc, %cidx;
    add.u32 %tmp, %gn, 8;
    setp.le.u32 %p_col, %tmp, %n;
    and.pred %p_col, %p_col, %p_vec;
    @!%p_col bra OUT_SCALAR_{rnd};
    ld.shared.v4.b32 {{%x, %y, %z, %tmp2}}, [%addr];
    st.global.v4.b32 [%pcrow], {{%x, %y, %z, %tmp2}};
    bra.uni OUT_NEXT_{rnd};
OUT_SCALAR_{rnd}:""")
        for j in range(8):
            e(f"""\
    add.u32 %tmp, %gn, {j};
    setp.lt.u32 %p_col, %tmp, %n;
    ld.shared.b16 %c16, [%addr+{2 * j}];
    @%p_col st.global.b16 [%pcrow+{2 * j}], %c16;""")
        e(f"""\
OUT_NEXT_{rnd}:
    add.u32 %i, %i, {CONSUMERS};
    setp.lt.u32 %p_more, %i, %lim;
    @%p_more bra OUT_LOOP_{rnd};
OUT_DONE_{rnd}:""")
    e(f"""\
    bar.sync 1, {CONSUMERS};                          // every copy-out read of X is over: the next tile may stage by TMA
NEXT_SEG:
    mov.u32 %u, %seg_end;
    bra.uni SEG_LOOP;
C_EXIT:
    cp.async.bulk.wait_group 0;               // this thread's TMA stores are complete before its CTA's memory goes
    bra.uni EXIT;""")
    return "\n".join(L)


def _maps_base() -> str:
    """%ptm = map slot 0: the device buffer p_tmaps, or (PARAM_MAPS) the generic address of the parameter p_maps."""
    return """\
// {{if PARAM_MAPS}}
    mov.u64 %ptm, p_maps;                     // PARAM_MAPS: the maps are a kernel parameter (no proxy fence)
    cvta.param.u64 %ptm, %ptm;
// {{else}}
    ld.param.u64 %ptm, [p_tmaps];
// {{endif}}"""


def _find_group(prefix: str) -> str:
    return f"""\
{prefix}_FIND_GROUP:
    add.u32 %tmp, %grp, 1;
    mul.wide.u32 %off64, %tmp, {TABLE_ENTRY};
    add.u64 %pw, %ptab, %off64;
    ld.global.nc.u32 %tmp, [%pw];
    setp.ge.u32 %p_more, %u, %tmp;
    @%p_more add.u32 %grp, %grp, 1;
    @%p_more bra {prefix}_FIND_GROUP;
    mul.wide.u32 %off64, %grp, {TABLE_ENTRY};
    add.u64 %pw, %ptab, %off64;
    ld.global.nc.v4.u32 {{%mslot, %row0, %col0, %tmp}}, [%pw+48];  // map slot, first row and column (MAP SLOTS)
    mul.wide.u32 %off64, %mslot, {TMAPS_PER_GROUP};
    add.u64 %tm_a16, %ptm, %off64;            // the group's maps: a16 +0, b +128, sfb +256
    setp.ne.u32 %p_new, %mslot, %pgrp;"""


def _unit_coords(prefix: str) -> str:
    return f"""\
    mul.wide.u32 %off64, %grp, {TABLE_ENTRY};
    add.u64 %pw, %ptab, %off64;
    ld.global.nc.v4.u32 {{%gu0, %gt0, %KB, %ntiles}}, [%pw];
    sub.u32 %tmp2, %u, %gu0;
    div.u32 %lt, %tmp2, %KB;                  // cluster tile of the group
    div.u32 %mt, %lt, %ntiles;"""


def _tile_bounds() -> str:
    """The producers' tile bounds: %tbase, the tile's first unit (the group's first unit + lt * KB), and %tend,
    the next tile's; a unit u < %tend keeps the tile's group, maps and coordinates."""
    return """\
    mad.lo.u32 %tbase, %lt, %KB, %gu0;
    add.u32 %tend, %tbase, %KB;"""


def _token_min(step: int) -> str:
    """The A16 producer's N: rows rounded up to the step, and at least the smallest loop's N."""
    if step >= TOKEN_MIN:
        return ""
    return f"    max.u32 %rows, %rows, {TOKEN_MIN};               // N: the smallest unit loop's at least\n"


def a16_buffer_acquire_half_ring(expect_bytes) -> str:
    """The A16 producer's sub-step head: A_UNIT builds wait for the HALF RING's set (a half unit) or both sets (a
    full unit), expect ``expect_bytes`` on the sub-step's full barrier (set 0's for a full unit: set 1's are not used)
    and point %a16 at the buffer's rows; other builds run the dual's head."""
    old = dual.a16_buffer_acquire(expect_bytes)
    tail = "    mad.lo.u32 %addr, %arow, 128, %a16;       // the slice's rows (1024-byte aligned: the swizzle atom holds)\n"
    if not old.endswith(tail):
        raise ValueError("the dual's a16 acquire no longer ends with the slice's address")
    return f"""\
// {{{{if A_UNIT}}}}
    @%p_half shl.b32 %ab, %ah, 2;             // HALF RING: a half unit fills set ah (barriers 4ah + j) ...
    @!%p_half mov.u32 %ab, 0;                 // ... a full unit both sets (set 0's full barriers count the bytes)
A_SUBSTEP:
    // wait until every consumer warp of the cluster released buffer j of the set (parity ^ 1: the first lap does not wait)
    add.u32 %tmp, %ab, %j;
    shl.b32 %tmp, %tmp, 3;
    add.u32 %bar, %sm_aempty, %tmp;
    @%p_half shr.b32 %par, %aphs, %ah;
    @!%p_half mov.u32 %par, %aphs;
    and.b32 %par, %par, 1;
    xor.b32 %par, %par, 1;
A_WAIT_EMPTY:
    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %par;
    @!%p_ready bra A_WAIT_EMPTY;
    @%p_half bra A_SETS_FREE;
    add.u32 %bar, %bar, 32;                   // a full unit: set 1's buffer j too
    shr.b32 %par, %aphs, 1;
    and.b32 %par, %par, 1;
    xor.b32 %par, %par, 1;
A_WAIT_EMPTY1:
    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %par;
    @!%p_ready bra A_WAIT_EMPTY1;
A_SETS_FREE:
    add.u32 %bar, %sm_afull, %tmp;
    mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], {expect_bytes};  // all ranks' slices land here
    mul.lo.u32 %a16, %j, {A16_BUF};
    add.u32 %a16, %a16, %sm_a16;
    @%p_half mad.lo.u32 %a16, %ah, {HALF_M * 128}, %a16;  // set 1: rows 128.. of the buffer
// {{{{else}}}}
{old[:-len(tail)]}// {{{{endif}}}}
{tail}"""


#: the A16 producer's advance per sub-step and unit: A_UNIT builds step the HALF RING's phases (a half unit: its set's,
#: and the next half unit takes the other set; a full unit: both), other builds run the dual's ring advance
A_RING_ADVANCE_HALF_RING = """\
// {{if A_UNIT}}
    add.u32 %kel, %kel, 64;
    add.u32 %j, %j, 1;
    setp.lt.u32 %p_more, %j, 4;
    @%p_more bra A_SUBSTEP;
    @%p_half add.u32 %tmp, %ah, 1;            // 1 << ah
    @%p_half xor.b32 %aphs, %aphs, %tmp;
    @%p_half xor.b32 %ah, %ah, 1;
    @!%p_half xor.b32 %aphs, %aphs, 3;        // (the producer's %aphs: the sets' empty-barrier phases)
    add.u32 %u, %u, 1;
    bra.uni A_LOOP;
// {{else}}
""" + dual.A_RING_ADVANCE_AND_EXIT[:dual.A_RING_ADVANCE_AND_EXIT.index("\nEXIT:")] + """
// {{endif}}"""


def producers(step: int = TOKEN_STEP) -> str:
    return f"""
    // ================================================================== producers (warpgroup 0)
PRODUCERS:
    setmaxnreg.dec.sync.aligned.u32 40;       // all of warpgroup 0: the consumers take the registers
{_maps_base()}
    ld.param.u64 %ptab, [p_table];
    mov.u32 %grp, %grp0;                      // the run's first table entry (the host's)
    mov.u32 %pgrp, -1;
    setp.eq.u32 %p_lead, %thread, 0;
    @%p_lead bra B_PRODUCER;
    setp.eq.u32 %p_lead, %thread, 32;
    @%p_lead bra A_PRODUCER;
    bra.uni EXIT;                             // the other 126 threads of warpgroup 0 only meet the exit barrier

    // ---------------------------------------------------------------- B producer (thread 0): B and sfb per unit
B_PRODUCER:
    createpolicy.fractional.L2::evict_first.b64 %pol_b, 1.0;   // B and sfb are read once (the GEMM's L2 POLICIES)
    mov.u32 %slot, 0;
    mov.u32 %phase, 0;
    mov.u32 %tend, 0;                         // no tile yet
B_LOOP:
    setp.ge.u32 %p_more, %u, %u_end;
    @%p_more bra EXIT;
    // the group, its maps and the tile's coordinates only when u enters a new tile (a group starts one too):
    // the GEMM's producers dividing per unit cost its consumers 2.3-2.9 us (docs/device-logs/2026-11-22-session26)
    setp.lt.u32 %p_same, %u, %tend;
    @%p_same bra B_TILE_READY;
{_find_group("B")}
    add.u64 %tm_b, %tm_a16, 128;
    add.u64 %tm_sfb, %tm_a16, 256;
    @!%p_new bra B_MAPS_READY;
    // first use of these maps by this thread: order the tensormap proxy after the host's copy (maps in device
    // memory; kernel parameters need no fence), warm the cache
// {{{{if PARAM_MAPS == 0}}}}
    fence.proxy.tensormap::generic.acquire.gpu [%tm_b], 128;
    fence.proxy.tensormap::generic.acquire.gpu [%tm_sfb], 128;
// {{{{endif}}}}
    prefetch.tensormap [%tm_b];
    prefetch.tensormap [%tm_sfb];
    mov.u32 %pgrp, %mslot;
B_MAPS_READY:
{_unit_coords("B")}
    mul.lo.u32 %tmp, %mt, %ntiles;
    sub.u32 %nt, %lt, %tmp;
    mad.lo.u32 %n0, %nt, {{{{CLUSTER}}}}, %rank;  // this rank's {TILE_N} B rows of cluster tile nt
    shl.b32 %n0, %n0, 7;
    add.u32 %n0, %n0, %col0;                  // B rows from the entry's first column of its group (MAP SLOTS)
{_tile_bounds()}
B_TILE_READY:
    sub.u32 %kb, %u, %tbase;                  // k256 stage of the tile
    shl.b32 %x, %kb, 7;                       // k byte coordinate of b: 128 bytes per stage
    shl.b32 %y, %kb, 4;                       // of sfb: 16 bytes per stage
{dual.B_SLOT_ACQUIRE}    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint
        [%slot_addr], [%tm_b, {{%x, %n0}}], [%bar], %pol_b;
    add.u32 %addr, %slot_addr, {SFB_OFF};
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint
        [%addr], [%tm_sfb, {{%y, %n0}}], [%bar], %pol_b;
{dual.B_SLOT_ADVANCE}
    // ---------------------------------------------------------------- A16 producer (thread 32): this rank's slice, to every CTA
A_PRODUCER:
    createpolicy.fractional.L2::evict_last.b64 %pol_a16, 1.0;  // every tile of the m tile reads A16 (the GEMM's L2 POLICIES)
    mov.u32 %ab, 0;
    mov.u32 %aph, 0;
    mov.u32 %aphs, 0;                         // HALF RING: both sets at phase 0, the first half unit takes set 0
    mov.u32 %ah, 0;
    mov.u16 %mask, (1 << {{{{CLUSTER}}}}) - 1;    // every CTA of the cluster
    mul.lo.u32 %arow, %rank, {HALF_M}/{{{{CLUSTER}}}}; // first row of this rank's slice of each {HALF_M}-row half
    setp.eq.u32 %p_dep, 0, 0;                 // the decode not yet awaited: its wait follows the first lookup
    mov.u32 %tend, 0;                         // no tile yet
A_LOOP:
    setp.ge.u32 %p_more, %u, %u_end;
    @%p_more bra EXIT;
    setp.lt.u32 %p_same, %u, %tend;           // as B_LOOP: only a new tile is looked up
    @%p_same bra A_TILE_READY;
{_find_group("A")}
    @!%p_new bra A_MAPS_READY;
// {{{{if PARAM_MAPS == 0}}}}
    fence.proxy.tensormap::generic.acquire.gpu [%tm_a16], 128;
// {{{{endif}}}}
    prefetch.tensormap [%tm_a16];
    mov.u32 %pgrp, %mslot;
A_MAPS_READY:
{_unit_coords("A")}
    // the slices the tile's wgmmas read: those starting below its unit loop's N (SLICES, header)
    ld.global.nc.u32 %m, [%pw+16];
    shl.b32 %m0, %mt, 8;
    sub.u32 %rows, %m, %m0;
    min.u32 %rows, %rows, {TILE_M};
    add.u32 %rows, %rows, {step - 1};
    and.b32 %rows, %rows, {-step};             // rows rounded up to the step: N's slices (they start at multiples of
                                              // 64 or 32, so the loops' finer steps above 128 pick the same ones)
{_token_min(step)}    setp.lt.u32 %p_one, %arow, %rows;         // this rank's slice of the first half holds rows below N
    add.u32 %x, %arow, {HALF_M};
    setp.lt.u32 %p_two, %x, %rows;            // ... of the second half
    add.u32 %x, %rows, {HALF_M}/{{{{CLUSTER}}}} - 1;
    div.u32 %x, %x, {HALF_M}/{{{{CLUSTER}}}};        // slices below N, over all ranks and both halves
    mul.lo.u32 %x, %x, {HALF_M * 128}/{{{{CLUSTER}}}}; // bytes every sub-step's buffer receives from all ranks
    add.u32 %m0, %m0, %arow;                  // A16 row of this rank's slice of the first half
    add.u32 %m0, %m0, %row0;                  // from the entry's first row of its group (MAP SLOTS)
    setp.le.u32 %p_half, %rows, {HALF_LOOP_MAX};         // HALF RING: the tile's units take one set each
{_tile_bounds()}
    @!%p_dep bra A_TILE_READY;
    // EARLY LOOKUP: the first tile's table reads and its a16 map's fence and prefetch (host data) ran while the
    // decode may still be running; only its first A16 load needs the decode complete (PDL)
    griddepcontrol.wait;                      // the decode kernel is complete and A16 is visible
    setp.ne.u32 %p_dep, 0, 0;
A_TILE_READY:
    sub.u32 %kb, %u, %tbase;                  // k256 stage of the tile
    shl.b32 %kel, %kb, 8;                     // k element of sub-step 0: 256 per stage
    mov.u32 %j, 0;
{a16_buffer_acquire_half_ring("%x")}    @!%p_one bra A_FIRST_DONE;
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint
        [%addr], [%tm_a16, {{%kel, %m0}}], [%bar], %mask, %pol_a16;
A_FIRST_DONE:
    @!%p_two bra A_HALF_DONE;
    add.u32 %addr, %addr, {HALF_M * 128};              // rows {HALF_M}.. of the buffer
    add.u32 %y, %m0, {HALF_M};
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint
        [%addr], [%tm_a16, {{%kel, %y}}], [%bar], %mask, %pol_a16;
A_HALF_DONE:
""" + A_RING_ADVANCE_HALF_RING + dual.A_RING_ADVANCE_AND_EXIT[dual.A_RING_ADVANCE_AND_EXIT.index("\nEXIT:"):]


_INIT_A_COUNT = "    setp.lt.u32 %p_more, %i, {{A_BUFS}};\n    @%p_more bra INIT_A_LOOP;\n"
_CONSUMER_APH = "    mov.u32 %aph, 0;\n"
_SEG_DONE_RELEASE = "    and.pred %p_rel, %p_pend, %p_l0;          // the last sub-step's a16 buffer is free now\n"


def half_ring_carve_up(text: str) -> str:
    """The dual's carve-up with twice the a16 barriers in A_UNIT builds: a full and an empty barrier per buffer and
    half set (the block's 64 bytes each hold eight)."""
    if text.count(_INIT_A_COUNT) != 1:
        raise ValueError("expected the a16 barrier loop's bound once in the carve-up")
    return text.replace(_INIT_A_COUNT, _INIT_A_COUNT.replace("{{A_BUFS}}", "{{A_BUFS}}*(1+{{A_UNIT}})"))


def half_ring_setup(setup: str) -> str:
    """The consumers' setup with the HALF RING's state: both sets at phase 0, the first half unit on set 0."""
    if setup.count(_CONSUMER_APH) != 1:
        raise ValueError("expected the consumers' a16 phase set once in the setup")
    return setup.replace(_CONSUMER_APH, _CONSUMER_APH + "    mov.u32 %aphs, 0;                         // HALF RING: "
                         "the sets' phases (bits 0, 1) and the next half unit's set\n    mov.u32 %ah, 0;\n")


def half_ring_seg_done(post: str) -> str:
    """SEG_DONE's release of the tile's last a16 buffer, also of set 1's after a tile of both sets (%p_fullm)."""
    i = post.find(_SEG_DONE_RELEASE)
    if i < 0 or len(_release_blocks(post[i:])) < 1:
        raise ValueError("expected the segment's last a16 release after the unit loops")
    j = i + _release_blocks(post[i:])[0][1]
    pred = "    and.pred %p_rel, %p_rel, %p_fullm;        // HALF RING: set 1's only after a tile of both sets\n"
    return post[:i] + double_releases(post[i:j], pred) + post[j:]


def generate(gemm_text: str | None = None, step: int = TOKEN_STEP, early_ctas: bool = True) -> str:
    """The kernel's text: unit loops for N = TOKEN_MIN, TOKEN_MIN + step, ..., TILE_M; ``early_ctas``: the tile's
    contributors loaded at the segment's start (EARLY_CTAS) rather than in its epilogue."""
    setup, loop, post = split_main_loop(gemm_text)
    variants = token_variants(step)
    return (header(step, early_ctas) + SIGNATURE + PARAMETERS + half_ring_carve_up(dual.CARVE_UP) + CONSUMER_INTRO
            + half_ring_setup(setup) + seg_loop(variants, early_ctas) + unit_loops(loop, variants)
            + half_ring_seg_done(post) + segment_epilogue(early_ctas) + "\n" + store_tile() + "\n"
            + producers(step))


def main(argv):
    return dual.write_or_check(argv, OUT, generate(), "gen_grouped_gemm_cluster_ptx.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
