"""Write ptx/dual_gemm_nvfp4_wgmma_cluster.ptx, the SiLU-gated dual GEMM on the cluster GEMM's machinery.

    python3 tools/gen_dual_gemm_cluster_ptx.py            # rewrite the .ptx
    python3 tools/gen_dual_gemm_cluster_ptx.py --check    # exit 1 if the committed .ptx is stale

The consumers' setup and k256 unit loop are not typed again: they are cut out of
ptx/gemm_nvfp4_wgmma_cluster.ptx (its WG_WAIT=1, KS_STREAM=0 form) and changed by the
substitutions listed in ``MAIN_LOOP_SUBSTITUTIONS`` -- the wgmma grows from
m64n128k16 to m64n256k16 (256 A rows per CTA tile, 128 accumulators), and an
a16 buffer from 16 to 32 KB.  Everything else (producers, stream-K partials,
the silu * mul epilogue) is emitted below, with its 128-accumulator lists
written by loops.  The committed .ptx is what the runtime loads and ptxas
assembles; tests/test_dual_gemm_cluster.py checks that it matches this
generator and models the parts written here.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GEMM = ROOT / "ptx" / "gemm_nvfp4_wgmma_cluster.ptx"
OUT = ROOT / "ptx" / "dual_gemm_nvfp4_wgmma_cluster.ptx"
ENTRY = "nvfp4_dual_gemm_silu_wgmma_cluster"

# Geometry (nvfp4rt/ops/dual_gemm_cluster.py mirrors these; a test compares them)
TILE_M = 256            # output rows (A rows, wgmma N) of a CTA tile
TILE_N = 64             # output columns of a CTA tile: B1 rows for warpgroup 0, B2 rows for warpgroup 1
ACC = 128               # fp32 accumulators per consumer thread (m64n256)
CONSUMERS = 256
STAGE_BYTES = 18432     # ring slot: B1 64x128 | B2 64x128 | sfb1 64x16 | sfb2 64x16
B2_OFF, SFB1_OFF, SFB2_OFF = 8192, 16384, 17408
A16_BUF = 32768         # one k64 sub-step of A16: 256 rows x 128 bytes
X_PITCH = 144           # bytes per row of the fp16 staging tile (256 m x 64 n): conflict-free 2-byte writes
X_BYTES = TILE_M * X_PITCH  # 36864: also holds one 32 KB half of the h1 exchange
SLOT_V4 = ACC // 4 * CONSUMERS  # 16-byte units of one stream-K partial slot (128 KB)
LOG2E_NEG = "0fBFB8AA3B"  # -log2(e) in fp32

#: (old, new, occurrences) applied to the GEMM's consumer setup + unit loop, in this order
ACC64 = ", ".join(f"%acc{i}" for i in range(64))
ACC128 = ", ".join(f"%acc{i}" for i in range(ACC))
MAIN_LOOP_SUBSTITUTIONS = (
    ("{{WG_WAIT}}", "1", 8),
    ("{{STAGE_BYTES}}", str(STAGE_BYTES), 1),
    ("{{SFB_OFF}}", str(SFB1_OFF), 1),
    ("m64n128k16", "m64n256k16", 16),
    ("{" + ACC64 + "}", "{" + ACC128 + "}", 16),
    ("mul.lo.u32 %a16, %ab, 16384;", f"mul.lo.u32 %a16, %ab, {A16_BUF};", 4),
    ("mad.lo.u32 %a16, %ab, 16384, %sm_a16;", f"mad.lo.u32 %a16, %ab, {A16_BUF}, %sm_a16;", 1),  # A_UNIT's bases
    ("add.u32 %dlo, %dlou, 3072;", f"add.u32 %dlo, %dlou, {3 * A16_BUF // 16};", 1),  # A_UNIT: buffer ab + s
    ("add.u32 %dlo, %dlou, 2048;", f"add.u32 %dlo, %dlou, {2 * A16_BUF // 16};", 1),  # (from the largest offset
    ("add.u32 %dlo, %dlou, 1024;", f"add.u32 %dlo, %dlou, {A16_BUF // 16};", 1),  # down: no offset is hit twice)
    ("%KBL", "%KB", 3),  # the GEMM's tail helpers count their own units per tile; the dual has none
)
_REGION_START = "    sub.u32 %ct, %thread, 128;"
_REGION_END = "    // contributors of this tile: clusters"
_COND = re.compile(r"^\s*//\s*\{\{\s*(if\s+(\w+)(?:\s*==\s*(-?\d+))?\s*|if\s+\w+.*|else|endif)\s*\}\}\s*$")


def resolve_conditionals(text: str, name: str, value: int) -> str:
    """Keep the branches of ``// {{if NAME == v}}`` (and ``// {{if NAME}}``: NAME != 0) blocks that hold for
    ``value``; other blocks stay."""
    out, stack = [], []  # one [ours, taken] per open block; only our blocks hide lines

    def live() -> bool:
        return all(taken for ours, taken in stack if ours)

    for line in text.split("\n"):
        m = _COND.match(line)
        if not m:
            if live():
                out.append(line)
            continue
        word = m.group(1).split()[0]
        if word == "if":
            ours = m.group(2) == name
            holds = (value != 0 if m.group(3) is None else int(m.group(3)) == value) if ours else True
            stack.append([ours, holds])
            if not ours and live():
                out.append(line)
        elif word == "else":
            if stack[-1][0]:
                stack[-1][1] = not stack[-1][1]
            elif live():
                out.append(line)
        else:
            ours, _ = stack.pop()
            if not ours and live():
                out.append(line)
    if stack:
        raise ValueError("unbalanced template conditionals in the GEMM's main loop")
    return "\n".join(out)


def gemm_main_loop(gemm_text: str | None = None) -> str:
    """The cluster GEMM's consumer setup + unit loop (up to its segment epilogue), made the dual's."""
    text = GEMM.read_text() if gemm_text is None else gemm_text
    region = text[text.index(_REGION_START):text.index(_REGION_END)]
    region = resolve_conditionals(region, "WG_WAIT", 1)
    region = resolve_conditionals(region, "KS_STREAM", 0)  # the dual has no stream-K over K-split pairs
    region = resolve_conditionals(region, "KS_HELP", 0)  # nor tail helpers
    region = resolve_conditionals(region, "DUAL", 0)  # the GEMM's own loop (its DUAL build is the tiles')
    region = resolve_conditionals(region, "GROUPED", 0)  # one group: no m-tile table, no row classes
    region = "\n".join(ln for ln in region.split("\n") if not ln.startswith("//@ROWS_LOOP"))  # their markers
    for old, new, count in MAIN_LOOP_SUBSTITUTIONS:
        found = region.count(old)
        if found != count:
            raise ValueError(f"expected {count} x {old[:40]!r} in the GEMM's main loop, found {found}")
        region = region.replace(old, new)
    left = sorted(set(re.findall(r"\{\{(\w+)\}\}", region)) - {"CLUSTER", "A_BUFS", "else", "endif"})
    if left:
        raise ValueError(f"placeholders {left} left in the main loop")
    return region


HEADER = f"""\
// nvfp4rt: targets=sm_90a constants=CLUSTER=2,A_BUFS=4,A_UNIT=1,HEAD_CHECK=1,HEAD_WAIT=32768,KSPLIT=1
//
// {ENTRY} - SiLU-gated NVFP4 dual GEMM on Hopper, with A decoded once per call
// and shared across a thread-block cluster by TMA multicast:
//     h1 = alpha1 * A B1^T,  h2 = alpha2 * A B2^T,  c = fp16(silu(h1) * h2)    (silu and product in fp32)
//
// GENERATED by tools/gen_dual_gemm_cluster_ptx.py: edit the generator (or the GEMM it copies), not this file.
//
// WHAT
//   B1, B2 [l][n][k/2] (e2m1, two per byte, lower k in the low nibble, K-major, 16-byte row/batch strides)
//   with sfb1, sfb2 [l][n][k/16] (e4m3), and A16 [l][m][k]: A decoded to fp16 by ptx/nvfp4_decode_a16.ptx
//   (value * 2^-14, in the fragment k order), the prepass the host launches first; this kernel is then
//   launched with programmatic dependent launch.  c is fp16 [l][m][n], element strides
//   (c_batch_stride, c_row_stride, 1).
//
// WHY THIS SHAPE
//   ptx/dual_gemm_nvfp4_wgmma.ptx (the first dual kernel) decodes a 128-row A tile in every CTA, so with
//   m = 512 its time doubles from m = 256 (69 -> 142 us on the H100) and it loses to cuBLAS.  Here A is
//   decoded once (the prepass), every CTA tile covers 256 A rows -- one m64n256k16 wgmma per k16 step and
//   warpgroup, twice the tensor work per decoded B element of the GEMM's m64n128k16 -- and the CTAs of a
//   cluster (CLUSTER = 1, 2 or 4 along n) share every A16 box by multicast.
//
// WHERE THE CODE COMES FROM
//   The consumers' setup and unit loop are ptx/gemm_nvfp4_wgmma_cluster.ptx's (WG_WAIT=1), copied by the
//   generator with these substitutions: m64n128k16 -> m64n256k16, the 64-accumulator lists -> 128, a16
//   buffers of 16384 -> {A16_BUF} bytes, and its template constants STAGE_BYTES = {STAGE_BYTES}, SFB_OFF = {SFB1_OFF}.
//   That header is the reference for the swap-AB numerics, the decode-to-fragment mapping, the a16 ring
//   and its cluster-wide release, and the hazards; tests/test_gemm_wgmma_cluster.py models them.  The
//   ring slot keeps the GEMM's 128-row layout: its rows 0..63 are B1 rows n0.. (consumer warpgroup 0) and
//   rows 64..127 are B2 rows n0.. of the same 64 columns (warpgroup 1), so each warpgroup's accumulator
//   holds one product for the same output elements.
//
// TILES AND WORK SPLIT
//   CTA tile: {TILE_M} output rows (m) x {TILE_N} output columns (n); cluster tile: CLUSTER CTA tiles along n,
//   rank r taking columns (CLUSTER*nt + r)*{TILE_N}.., all ranks the same m rows and k range.  A "unit" is
//   one k256 stage of one cluster tile: units = l * m_tiles * n_tiles * k_stages (m_tiles = ceil(m/{TILE_M}),
//   n_tiles = ceil(n/({TILE_N}*CLUSTER))), tile-major (k fastest).  Cluster q takes units [q*upc,
//   min((q+1)*upc, units)); the host picks upc so the clusters fill the GPU once and no chain sums more
//   than 8192 k.  Per unit and warpgroup: 4 k64 sub-steps x 2 pieces of k32 x 2 wgmma m64n256k16.
//
// PIPELINE AND WARP ROLES (block = 384 threads, one CTA per SM)
//   thread 0: B producer.  Per unit: wait empty[slot] (8 arrives: every consumer warp), expect {STAGE_BYTES}
//     bytes on full[slot], TMA B1 (1, 64, 128) to slot + 0, B2 to + {B2_OFF}, sfb1 (1, 64, 16) to + {SFB1_OFF},
//     sfb2 to + {SFB2_OFF} (128B swizzle for B: {B2_OFF} is a multiple of 1024, so B2 row r keeps swizzle phase r % 8).
//   thread 32: A16 producer.  griddepcontrol.wait, then per unit and k64 sub-step: wait aempty[ab] (8 *
//     CLUSTER arrives: every consumer warp of the cluster), expect {A16_BUF} bytes on its own afull[ab], and
//     TMA its {TILE_M}/CLUSTER-row slice of the (1, {TILE_M}, 64) A16 box into buffer ab of every CTA of the
//     cluster (.multicast::cluster).  A_BUFS buffers of {A16_BUF // 1024} KB.
//   warpgroups 1, 2: consumers, the GEMM's unit loop.  Registers: ptxas -v reports 168 (.maxntid 384,
//     .minnctapersm 1); setmaxnreg gives the producer warpgroup 40 and the consumers 232 (128 x 40 + 256 x
//     232 <= 65536) for 128 accumulators, the B fragment sets, prefetched words and scales, addressing.
//     ptxas reports no spills with both setmaxnreg and the carve-up below (every shared-memory base a
//     constant offset from one register); without either it spills 4 to 32 bytes.  setmaxnreg holds only in a
//     whole-program build (ptxas, or the driver's JIT on this text), which nvfp4rt's default compiler picks for
//     it; the driver's JIT linker ignores it (C7504) and serialises every wgmma (C7512): 5-10% slower (session 43).
//
// STREAM-K REDUCTION (deterministic, never silu of a partial)
//   A tile done by one cluster goes straight to the epilogue.  Otherwise every contributor CTA writes
//   both warpgroups' fp32 accumulators (h1 and h2 partials, fragment order, 16-byte coalesced) to its
//   workspace slot 2*(CLUSTER*q + r) + sidx ({SLOT_V4 * 16 // 1024} KB each), named barrier, thread 0 bumps
//   counters[CLUSTER*tile + r] (atom.acq_rel.gpu), and the contributor that completes the count resets it,
//   sums all slots in cluster order (0 + P_lo + ...) and runs the epilogue.  Only thread 0 synchronises at gpu
//   scope; the named barriers order every other thread's partial stores and workspace loads (the GEMM's header,
//   STREAM-K REDUCTION).
//   Head check (HEAD_CHECK=1, the GEMM's; see its header): the head, cluster c_lo, whose run ends with the
//   tile's first units, reads the counter before writing and polls it for at most HEAD_WAIT clocks; once
//   every other contributor is in it adds +0 to its own accumulators and reduces from c_lo + 1, so its
//   {SLOT_V4 * 16 // 1024} KB partial never goes through the workspace.  Measured on the H200 (session-7 log 05, us):
//   no check 64.4 / 98.9 / 47.9 / 91.7, HEAD_WAIT = 32768 61.4 / 97.9 / 42.3 / 85.1 on the four shapes.
//
// K SPLIT (KSPLIT = 2, CLUSTER = 1; the plan's choice where it beats stream-K,
//   nvfp4rt.ops.dual_gemm_cluster.choose_ksplit)
//   Every tile is one cluster of KSPLIT CTAs (%cta = ctaid.x, krank = its rank), CTA krank running k stages
//   [krank*k_stages/KSPLIT, ...) with the whole A16 box its own (no multicast).  After the last wgmma, rank
//   1 parks both products' fp32 accumulators in its own shared memory over the drained a16 buffers and
//   ring (fragment order, 16-byte unit v of consumer thread ct at (v*{CONSUMERS} + ct)*16: {SLOT_V4 * 16 // 1024} KB), the cluster
//   meets (barrier.cluster arrive.release / wait.acquire; the producers arrive at EXIT), and rank 0 adds
//   each peer's units to its own accumulators in rank order (ld.shared::cluster.v4 through mapa: P_0 + P_1,
//   the same bits on every run), then runs the epilogue below.  Rank 1 goes to EXIT, whose cluster barrier
//   keeps its shared memory alive until rank 0 has read it.  No workspace, counters or fences; a cluster's
//   CTAs are co-scheduled, so the wait is safe.  KSPLIT = 4 or 8 would need the rank loop's two registers
//   next to the 128 accumulators: ptxas spills 4 bytes, so the host offers 2 only.  Measured on the H100
//   (docs/device-logs/2026-11-22-session8/12-dual-ks-ab.log, whole calls): 256x4096x7168 stream-K 64.5 us,
//   ksplit 2 60.7 us.
//
// EPILOGUE (silu * mul through shared memory, region X of {X_BYTES} bytes)
//   Both warpgroups' accumulators hold the same output elements (row n_l = 16*warp + g + 8*((e/2)%2) of
//   the 64 columns, column m_l = 8*(e/4) + 2t + e%2 of the 256 rows, for accumulator e), so the exchange
//   is thread-to-thread in fragment order: in two halves of 64 accumulators, warpgroup 0 turns its h1
//   into silu(alpha1 h1) = x * rcp(1 + 2^(-x log2 e)) (ex2.approx, rcp.approx: ~1e-6 relative; a large
//   negative x gives -0) and stores it to X[v][thread] (v4, 16 x 2 KB, conflict-free), warpgroup 1 reads
//   its own thread's entries and forms silu(alpha1 h1) * (alpha2 h2) in its registers.  Named barriers
//   separate the halves.  Then warpgroup 1 writes fp16 to the staging tile X[m_l][n_l] (pitch {X_PITCH}
//   bytes: the 32 lanes of a 2-byte store hit 32 different banks), and all 256 consumers copy 16-byte
//   rows of 8 columns to c (predicated 2-byte stores at the ragged n edge or when c rows are not 16-byte
//   aligned); rows past m and columns past n are skipped.  Ragged m, n and k are zero-filled by TMA.
//
// CLUSTER LIFETIME: as in the GEMM, cluster barriers after the barrier inits and before exit.
//
// LAUNCH CONTRACT
//   grid = (CLUSTER * ceil(units / upc), 1, 1), block = (384, 1, 1), cluster = (CLUSTER, 1, 1) when
//   CLUSTER > 1; programmatic stream serialization (PDL) after the decode kernel.
//   dynamic shared memory = 2048 + {A16_BUF}*A_BUFS + {STAGE_BYTES}*S + {X_BYTES} bytes (A_BUFS 3 or 4, S = num_stages
//   2..5 within the opt-in limit: 225280 bytes at A_BUFS = 4, S = 3), from the first 1024-byte boundary: a
//   1 KB barrier block (full[S] +0, empty[S] +64, afull +128, aempty +192, flag +256), the a16 buffers,
//   the ring, region X.
//   parameters: tmap_a16 (fp16 (l, m, k), box (1, {TILE_M}/CLUSTER, 64), 128B swizzle); tmap_b1, tmap_b2
//   (uint8 (l, n, k/2), box (1, 64, 128), 128B swizzle); tmap_sfb1, tmap_sfb2 (uint8 (l, n, k_stages*16),
//   box (1, 64, 16), 16-byte rows: the host pads them when needed); p_c (fp16, 2-byte aligned);
//   c_row_stride, c_batch_stride (elements); p_ws (fp32, 2 * grid * {SLOT_V4 * 16} bytes); p_counters (u32 per CTA
//   tile, zero before the first launch, left zero); m, n; k_stages = ceil(k/256); m_tiles; n_tiles
//   (cluster tiles); total_units; units_per_cta (per cluster); num_stages; alpha1, alpha2 (times 2^28:
//   the operands carry 2^-14 each).
//
// MEASURED (H200, docs/dual_gemm.md and docs/device-logs/2026-11-21-session4/; us, L2 cleared, for
//   256x4096x7168 / 512x4096x7168 / 256x3072x4096 / 512x3072x7168): CLUSTER=2 65.5 / 102.7 / 47.9 / 95.4
//   (first dual kernel 68.3 / 140.3 / 40.6 / 107.7; cuBLAS fp16 best path 70.5 / 114.3 / 47.1 / 91.2);
//   CLUSTER=4 75.9 / 124.6 / 50.5 / 103.6 (30 clusters of 4 fit).  A k256 unit costs 3.4-3.6 us per CTA;
//   the unsplit 512x4096 shape runs at 78% of the fp16 ceiling.  Each extra stream-K contributor costs
//   about 5 us at the end (reduction reads), the epilogue 4-6 us per tile; an epilogue that splits the
//   silu work over both warpgroups measured the same and spilled, so it is not used.
"""

SIGNATURE = f"""
.version {{{{PTX_VERSION}}}}
.target {{{{TARGET}}}}
.address_size 64

.extern .shared .align 1024 .b8 smem[];

.visible .entry {ENTRY}(
    .param .align 64 .b8 tmap_a16[128],
    .param .align 64 .b8 tmap_b1[128],
    .param .align 64 .b8 tmap_b2[128],
    .param .align 64 .b8 tmap_sfb1[128],
    .param .align 64 .b8 tmap_sfb2[128],
    .param .u64 .ptr .global .align 2  p_c,
    .param .u64 .ptr .global .align 16 p_ws,
    .param .u64 .ptr .global .align 4  p_counters,
    .param .u64 c_row_stride,
    .param .u64 c_batch_stride,
    .param .u32 m,
    .param .u32 n,
    .param .u32 k_stages,
    .param .u32 m_tiles,
    .param .u32 n_tiles,
    .param .u32 total_units,
    .param .u32 units_per_cta,
    .param .u32 num_stages,
    .param .f32 alpha1,
    .param .f32 alpha2
)
.maxntid 384, 1, 1
.minnctapersm 1
{{
    .reg .pred  %p_lead, %p_more, %p_ready, %p_wrap, %p_acc, %p_whole, %p_last, %p_first, %p_row, %p_vec, %p_col;
    .reg .pred  %p_pend, %p_pend1, %p_l0, %p_rel, %p_h2, %p_head;
    .reg .b32   %thread, %cta, %rank, %ct, %wg, %wi, %lane, %g, %t, %x, %y, %z, %tmp, %tmp2;
    .reg .b32   %m, %n, %KB, %mtiles, %ntiles, %tpb, %units, %upc, %S;
    .reg .b32   %u, %u_end, %seg_end, %tile, %kb, %batch, %rem, %mt, %nt, %m0, %n0, %j;
    .reg .b32   %tbase, %tend;                // producers: the current tile's first unit and the next tile's
    .reg .pred  %p_same;
    .reg .b32   %slot, %phase, %par, %bar, %rbar, %slot_addr, %addr, %a16, %xch;
    .reg .b32   %base, %sm, %sm_a16, %sm_c, %sm_full, %sm_empty, %sm_afull, %sm_aempty, %sm_flag;
    .reg .b32   %rowB, %offB0, %bslot, %sfslot, %sfB;
    .reg .b32   %ab, %aph, %pab, %pab1, %wab, %wph, %kel, %arow;
    .reg .b16   %sb0, %sb1, %mask;
    .reg .b32   %c_lo, %c_hi, %cc, %first, %sidx, %old, %flag, %row, %col8, %gm, %gn, %i, %vcta, %vtile;
    .reg .b32   %desc_hi, %dlo, %krank, %dlou, %abar, %aebar;
    .reg .b32   %pw0, %pw1, %eb, %nslot, %nphase, %fbar;   // the GEMM loop's (session 26)
    .reg .b64   %dbase;
    .reg .pred  %p_ea<4>, %p_fok, %p_nw;
    .reg .b64   %desc, %tm_a16, %tm_b, %tm_b2, %tm_sfb, %tm_sfb2, %mbstate;
    .reg .b64   %pol_b, %pol_a16;             // L2 policies of the TMA loads
    .reg .b64   %pc, %pws, %pcnt, %pw, %pcrow, %off64, %cidx, %c_rs, %c_bs, %cst;
    .reg .f32   %alpha, %alpha2, %v0, %v1, %v2, %v3, %ex;
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

PARAMETERS = f"""
    // ------------------------------------------------------------------ parameters
    ld.param.u32 %m, [m];
    ld.param.u32 %n, [n];
    ld.param.u32 %KB, [k_stages];
    ld.param.u32 %mtiles, [m_tiles];
    ld.param.u32 %ntiles, [n_tiles];
    ld.param.u32 %units, [total_units];
    ld.param.u32 %upc, [units_per_cta];
    ld.param.u32 %S, [num_stages];
    mul.lo.u32 %tpb, %mtiles, %ntiles;        // cluster tiles per batch

    mov.u32 %thread, %tid.x;
// {{{{if KSPLIT > 1}}}}
    mov.u32 %cta, %ctaid.x;                   // K split: each CTA runs its own units (k range krank of its tile)
    mov.u32 %rank, 0;                         // CLUSTER == 1: no multicast, the whole A16 box is this CTA's
    mov.u32 %krank, %cluster_ctarank;         // = ctaid.x % KSPLIT: which k range
// {{{{else}}}}
    mov.u32 %cta, %clusterid.x;               // the cluster: its units and its partial slots
    mov.u32 %rank, %cluster_ctarank;          // this CTA's 64 columns of the cluster tile, its A16 slice
// {{{{endif}}}}
    mul.lo.u32 %u, %cta, %upc;                // the cluster's units: [u, u_end)
    add.u32 %u_end, %u, %upc;
    min.u32 %u_end, %u_end, %units;

"""

#: the shared-memory carve-up, barrier init and role split (the grouped generator uses it too)
CARVE_UP = f"""\
    // ------------------------------------------------------------------ shared-memory carve-up
    // every base the main loop uses is a constant offset from %sm (ptxas rematerialises them instead of
    // holding five more registers next to 128 accumulators: the GEMM's layout spilled 4 bytes here)
    mov.u32 %base, smem;
    add.u32 %base, %base, 1023;
    and.b32 %base, %base, -1024;              // 1024-byte aligned: 128B-swizzle atoms (TMA and wgmma)
    add.u32 %sm_full, %base, 0;               // barrier block: full[S], empty[S], afull[A_BUFS], aempty[A_BUFS]
    add.u32 %sm_empty, %base, 64;             // (8 bytes each, S and A_BUFS <= 8), then the flag word
    add.u32 %sm_afull, %base, 128;
    add.u32 %sm_aempty, %base, 192;
    add.u32 %sm_flag, %base, 256;
    add.u32 %sm_a16, %base, 1024;             // A_BUFS a16 buffers of {A16_BUF // 1024} KB
    add.u32 %sm, %sm_a16, {{{{A_BUFS}}}}*{A16_BUF};  // the ring: S slots of {STAGE_BYTES} bytes (18 x 1024)
    mul.lo.u32 %tmp, %S, {STAGE_BYTES};
    add.u32 %sm_c, %sm, %tmp;                 // region X: the epilogue's (see EPILOGUE in the header)

    // ------------------------------------------------------------------ barriers: thread 0 inits them
    setp.ne.u32 %p_lead, %thread, 0;
    @%p_lead bra INIT_DONE;
    mov.u32 %i, 0;
INIT_LOOP:
    shl.b32 %tmp, %i, 3;
    add.u32 %bar, %sm_full, %tmp;
    mbarrier.init.shared::cta.b64 [%bar], 1;  // the B producer's arrive (+ tx bytes)
    add.u32 %bar, %sm_empty, %tmp;
    mbarrier.init.shared::cta.b64 [%bar], 8;  // one arrive per consumer warp
    add.u32 %i, %i, 1;
    setp.lt.u32 %p_more, %i, %S;
    @%p_more bra INIT_LOOP;
    mov.u32 %i, 0;
INIT_A_LOOP:
    shl.b32 %tmp, %i, 3;
    add.u32 %bar, %sm_afull, %tmp;
    mbarrier.init.shared::cta.b64 [%bar], 1;  // the local A16 producer's arrive (+ tx bytes from every rank)
    add.u32 %bar, %sm_aempty, %tmp;
    mbarrier.init.shared::cta.b64 [%bar], 8*{{{{CLUSTER}}}};  // every consumer warp of the cluster
    add.u32 %i, %i, 1;
    setp.lt.u32 %p_more, %i, {{{{A_BUFS}}}};
    @%p_more bra INIT_A_LOOP;
    fence.mbarrier_init.release.cluster;      // the inits are visible to the copy engine and to the peers
INIT_DONE:
    barrier.cluster.arrive.release;           // every CTA of the cluster: barriers ready
    barrier.cluster.wait.acquire;
    setp.lt.u32 %p_lead, %thread, 128;
    @%p_lead bra PRODUCERS;
    setmaxnreg.inc.sync.aligned.u32 232;      // 128 x 40 (producers) + 256 x 232 <= 65536 registers

"""

PROLOGUE = PARAMETERS + CARVE_UP + """\
    // ================================================================== consumers (warpgroups 1, 2)
    // ---- setup and unit loop: the cluster GEMM's (see the header), warpgroup 0 = B1, warpgroup 1 = B2
"""


def _v4(i: int) -> str:
    return "{" + ", ".join(f"%acc{4 * i + j}" for j in range(4)) + "}"


#: the stream-K hand-off after a contributor wrote its partial: the tile counter, and only its last
#: contributor goes on (to the reduction); the grouped generator uses it too
STREAMK_COUNTER = f"""\
    {'bar.sync 1, ' + str(CONSUMERS) + ';':<42s}// every writer's partial is in program order before thread 0's release
    setp.ne.u32 %p_lead, %ct, 0;
    @%p_lead bra PART_FLAG_DONE;
    ld.param.u64 %pcnt, [p_counters];
    mul.wide.u32 %off64, %vtile, 4;
    add.u64 %pcnt, %pcnt, %off64;
    atom.acq_rel.gpu.global.add.u32 %old, [%pcnt], 1;
    sub.u32 %tmp, %c_hi, %c_lo;
    setp.eq.u32 %p_last, %old, %tmp;
    selp.u32 %flag, 1, 0, %p_last;
    @%p_last st.relaxed.gpu.global.u32 [%pcnt], 0;   // reset for the next launch (all others are in)
    st.shared.u32 [%sm_flag], %flag;
PART_FLAG_DONE:
    bar.sync 1, {CONSUMERS};
    ld.shared.u32 %flag, [%sm_flag];
    setp.eq.u32 %p_last, %flag, 0;
    @%p_last bra NEXT_SEG;                    // not the last contributor: done with this tile
    // (thread 0's atom.acq_rel, then the named barrier: every thread's workspace loads below see the partials)
    // ---- last contributor: sum every contributor's partial in cluster order (deterministic)"""



def add_partial(load: str, base: str) -> str:
    """Add a partial in fragment order (16-byte unit v of consumer thread ct at base + v*16*CONSUMERS, the
    thread's own offset already in ``base``) to the accumulators: the stream-K and K-split reductions."""
    lines = []
    for v in range(ACC // 4):
        lines.append(f"    {load} {{%v0, %v1, %v2, %v3}}, [{base}+{v * 16 * CONSUMERS}];")
        lines += [f"    add.f32 %acc{4 * v + j}, %acc{4 * v + j}, %v{j};" for j in range(4)]
    return "\n".join(lines)


def head_check(acc: int = ACC) -> str:
    """The head's look at the tile counter before it writes a partial (the GEMM's, ptx/gemm_nvfp4_wgmma_cluster.ptx).

    Cluster c_lo holds the tile's first units, at the end of its run; when every other contributor is in,
    it keeps its own sum in registers (+ 0: the full reduction's 0 + P_lo, bit for bit) and enters the
    reduction loop at c_lo + 1.  Otherwise it falls through to PARTIAL_WRITE.  Expects %pws loaded."""
    zero = "\n".join(f"    add.f32 %acc{i}, %acc{i}, 0f00000000;" for i in range(acc))
    return f"""\
    // ---- the head (cluster c_lo: the tile's first units, at the end of its run) looks at the counter
    //      first: if every other contributor is in, its own sum never goes through the workspace
// {{{{if HEAD_CHECK == 0}}}}
    bra.uni PARTIAL_WRITE;                    // (HEAD_CHECK=0: every contributor writes, as before; tests)
// {{{{endif}}}}
    setp.ne.u32 %p_head, %cta, %c_lo;
    @%p_head bra PARTIAL_WRITE;
    setp.ne.u32 %p_lead, %ct, 0;
    @%p_lead bra HEAD_FLAG_DONE;
    ld.param.u64 %pcnt, [p_counters];
    mul.wide.u32 %off64, %vtile, 4;
    add.u64 %pcnt, %pcnt, %off64;
    ld.acquire.gpu.global.u32 %old, [%pcnt];
    sub.u32 %tmp, %c_hi, %c_lo;
    setp.eq.u32 %p_last, %old, %tmp;
// {{{{if HEAD_WAIT > 0}}}}
    @%p_last bra HEAD_DECIDED;                // not yet: poll for at most HEAD_WAIT clocks (co-finishing
    mov.u32 %cc, %clock;                      // contributors arrive within a few us; bounded, so no CTA
HEAD_POLL:                                    // ever depends on another one being resident)
    nanosleep.u32 64;
    ld.acquire.gpu.global.u32 %old, [%pcnt];
    setp.eq.u32 %p_last, %old, %tmp;
    @%p_last bra HEAD_DECIDED;
    mov.u32 %sidx, %clock;                    // (%cc, %sidx: free here, both set again before use)
    sub.u32 %sidx, %sidx, %cc;
    setp.lt.u32 %p_more, %sidx, {{{{HEAD_WAIT}}}};
    @%p_more bra HEAD_POLL;
HEAD_DECIDED:
// {{{{endif}}}}
    selp.u32 %flag, 1, 0, %p_last;
    @%p_last st.relaxed.gpu.global.u32 [%pcnt], 0;   // reset for the next launch (all others are in)
    st.shared.u32 [%sm_flag+4], %flag;       // a word of its own: read once per CTA, no reuse hazard
HEAD_FLAG_DONE:
    bar.sync 1, {CONSUMERS};
    ld.shared.u32 %flag, [%sm_flag+4];
    setp.eq.u32 %p_last, %flag, 0;
    @%p_last bra PARTIAL_WRITE;               // someone is still working on the tile: the usual hand-off
    // (thread 0's ld.acquire, then the named barrier: every thread's workspace loads below see the others' partials)
    // own partial + 0 (the full reduction's 0 + P_lo, bit for bit), then P_lo+1 .. P_hi from the workspace
{zero}
    add.u32 %cc, %c_lo, 1;
    bra.uni RED_LOOP;
PARTIAL_WRITE:"""

def segment_epilogue() -> str:
    L = []
    e = L.append
    e(f"""\
    // contributors of this tile: clusters c_lo..c_hi (units [tile*KB, (tile+1)*KB) over upc per cluster)
// {{{{if KSPLIT > 1}}}}
    bra.uni KSPLIT_REDUCE;                    // the cluster's CTAs split this tile's k: reduce through DSMEM
// {{{{endif}}}}
    mul.lo.u32 %tmp, %tile, %KB;
    div.u32 %c_lo, %tmp, %upc;
    add.u32 %tmp, %tmp, %KB;
    sub.u32 %tmp, %tmp, 1;
    div.u32 %c_hi, %tmp, %upc;
    setp.eq.u32 %p_whole, %c_lo, %c_hi;
    @%p_whole bra STORE_TILE;                 // this cluster did the whole tile
    ld.param.u64 %pws, [p_ws];
{head_check()}
    // ---- partial: both products' fp32 accumulators in fragment order to ws[vcta*2 + sidx], sidx = 0 for the
    //      cluster's first tile, 1 for its last; 16-byte unit (v, ct) at ((slot*{ACC // 4} + v)*{CONSUMERS} + ct)*16
    mul.lo.u32 %tmp, %cta, %upc;
    div.u32 %first, %tmp, %KB;
    setp.eq.u32 %p_first, %tile, %first;
    selp.u32 %sidx, 0, 1, %p_first;
    shl.b32 %tmp, %vcta, 1;
    add.u32 %tmp, %tmp, %sidx;
    mul.lo.u32 %tmp, %tmp, {SLOT_V4};         // 16-byte units per slot
    add.u32 %tmp, %tmp, %ct;
    mul.wide.u32 %off64, %tmp, 16;
    add.u64 %pw, %pws, %off64;""")
    for v in range(ACC // 4):
        e(f"    st.global.v4.f32 [%pw+{v * 16 * CONSUMERS}], {_v4(v)};")
    e(STREAMK_COUNTER)
    for i in range(ACC):
        e(f"    mov.f32 %acc{i}, 0f00000000;")
    e(f"""\
    mov.u32 %cc, %c_lo;
RED_LOOP:
    mul.lo.u32 %tmp, %cc, %upc;
    div.u32 %first, %tmp, %KB;
    setp.eq.u32 %p_first, %tile, %first;
    selp.u32 %sidx, 0, 1, %p_first;
    mad.lo.u32 %tmp, %cc, {{{{CLUSTER}}}}, %rank;          // contributor cc's CTA of the same rank
    shl.b32 %tmp, %tmp, 1;
    add.u32 %tmp, %tmp, %sidx;
    mul.lo.u32 %tmp, %tmp, {SLOT_V4};
    add.u32 %tmp, %tmp, %ct;
    mul.wide.u32 %off64, %tmp, 16;
    add.u64 %pw, %pws, %off64;""")
    e(add_partial("ld.global.cg.v4.f32", "%pw"))
    e("""\
    add.u32 %cc, %cc, 1;
    setp.le.u32 %p_more, %cc, %c_hi;
    @%p_more bra RED_LOOP;""")
    return "\n".join(L)


def ksplit_reduce() -> str:
    """The K-split epilogue (KSPLIT > 1, the header's K SPLIT): ranks 1.. park their accumulators in their own
    shared memory, the cluster meets, rank 0 adds them to its own in rank order and runs STORE_TILE."""
    L = []
    e = L.append
    e(f"""\
// {{{{if KSPLIT > 1}}}}
    // ================================================================== K-split epilogue (KSPLIT > 1)
KSPLIT_REDUCE:
    bar.sync 1, {CONSUMERS};                          // every consumer is past its last wgmma and B read: the a16 ring is free
    setp.eq.u32 %p_head, %krank, 0;
    shl.b32 %tmp, %ct, 4;
    add.u32 %x, %sm_a16, %tmp;                // this thread's 16-byte unit v of P at %x + v*{16 * CONSUMERS} (fragment order)
    @%p_head bra KS_PARKED;
    // ranks 1..KSPLIT-1: both products' fp32 accumulators to P over the a16 buffers and the ring ({SLOT_V4 * 16 // 1024} KB)""")
    for v in range(ACC // 4):
        e(f"    st.shared.v4.f32 [%x+{v * 16 * CONSUMERS}], {_v4(v)};")
    e("""\
KS_PARKED:
    barrier.cluster.arrive.release;           // every rank's P is in place (the producers arrive at EXIT)
    barrier.cluster.wait.acquire;
    @!%p_head bra EXIT;                       // EXIT's cluster barrier keeps P alive until rank 0 has read it
    // rank 0: its own sum + P_1 + ... + P_{KSPLIT-1} (rank order: the same bits on every run), then the epilogue""")
    e("""\
    mov.u32 %cc, 1;
KS_RED_LOOP:
    mapa.shared::cluster.u32 %addr, %x, %cc;  // rank cc's P, this thread's units""")
    e(add_partial("ld.shared::cluster.v4.f32", "%addr"))
    e("""\
    add.u32 %cc, %cc, 1;
    setp.lt.u32 %p_more, %cc, {{KSPLIT}};
    @%p_more bra KS_RED_LOOP;""")
    e("""\
    bra.uni STORE_TILE;
// {{endif}}""")
    return "\n".join(L)


def staging_offset(e: int) -> int:
    """Byte offset of accumulator e's fp16 in the staging tile, from the thread's base
    (2t rows down, column 16*warp + g): row 8*(e/4) + e%2, column + 8*((e/2)%2)."""
    return (8 * (e // 4) + e % 2) * X_PITCH + 16 * ((e // 2) % 2)


def store_tile() -> str:
    L = []
    e = L.append
    e(f"""\
STORE_TILE:
    // ---- silu(h1) * h2 through region X (the header's EPILOGUE), then fp16 staging and the copy-out
    bar.sync 1, {CONSUMERS};                          // the previous tile's copy-out is over: X is free
    ld.param.f32 %alpha, [alpha1];
    ld.param.f32 %alpha2, [alpha2];
    and.b32 %tmp, %ct, 127;
    shl.b32 %tmp, %tmp, 4;
    add.u32 %xch, %sm_c, %tmp;                // this thread's 16-byte column of the exchange: X[v][ct % 128]
    setp.ne.u32 %p_h2, %wg, 0;                // warpgroup 1 holds h2, warpgroup 0 h1""")
    for half in range(2):
        lo = 64 * half
        e(f"""\
    @%p_h2 bra EPI_WAIT_{half};
    // warpgroup 0: accumulators {lo}..{lo + 63} -> silu(alpha1 h1) -> X""")
        for a in range(lo, lo + 64):
            e(f"""\
    mul.f32 %acc{a}, %acc{a}, %alpha;          // h1
    mul.f32 %ex, %acc{a}, {LOG2E_NEG};           // -h1 log2(e)
    ex2.approx.ftz.f32 %ex, %ex;              // (large negative h1: inf, then rcp 0 and silu -0)
    add.f32 %ex, %ex, 0f3F800000;
    rcp.approx.ftz.f32 %ex, %ex;              // sigmoid(h1)
    mul.f32 %acc{a}, %acc{a}, %ex;            // silu(h1)""")
        for v in range(16):
            e(f"    st.shared.v4.f32 [%xch+{v * 16 * 128}], {_v4(lo // 4 + v)};")
        e(f"""\
EPI_WAIT_{half}:
    bar.sync 1, {CONSUMERS};                          // X holds silu(h1) of this half
    @!%p_h2 bra EPI_DONE_{half};
    // warpgroup 1: accumulators {lo}..{lo + 63} = silu(alpha1 h1) * (alpha2 h2)""")
        for v in range(16):
            e(f"    ld.shared.v4.f32 {{%v0, %v1, %v2, %v3}}, [%xch+{v * 16 * 128}];")
            for j in range(4):
                a = lo + 4 * v + j
                e(f"    mul.f32 %acc{a}, %acc{a}, %alpha2;")
                e(f"    mul.f32 %acc{a}, %acc{a}, %v{j};")
        e(f"""\
EPI_DONE_{half}:
    bar.sync 1, {CONSUMERS};                          // X is read: the next half (or the staging) may overwrite it""")
    e(f"""\
    @!%p_h2 bra EPI_STAGED;
    // warpgroup 1: fp16 into the staging tile X[m_l][n_l] (pitch {X_PITCH}): accumulator e sits at
    // m_l = 8*(e/4) + 2t + e%2, n_l = 16*wi + g + 8*((e/2)%2) (rowB - 64 = 16*wi + g)
    mul.lo.u32 %tmp, %t, {2 * X_PITCH};
    add.u32 %addr, %sm_c, %tmp;
    and.b32 %tmp, %rowB, 63;
    shl.b32 %tmp, %tmp, 1;
    add.u32 %addr, %addr, %tmp;""")
    for a in range(ACC):
        e(f"    cvt.rn.f16.f32 %c16, %acc{a};")
        e(f"    st.shared.b16 [%addr+{staging_offset(a)}], %c16;")
    e(f"""\
EPI_STAGED:
    bar.sync 1, {CONSUMERS};
    // ---- copy out: {TILE_M} rows x 8 chunks of 8 columns, 8 chunks per thread
    div.u32 %batch, %tile, %tpb;
    mul.lo.u32 %tmp, %batch, %tpb;
    sub.u32 %rem, %tile, %tmp;
    div.u32 %mt, %rem, %ntiles;
    mul.lo.u32 %tmp, %mt, %ntiles;
    sub.u32 %nt, %rem, %tmp;
    shl.b32 %m0, %mt, 8;                      // {TILE_M} rows per m tile
    mad.lo.u32 %n0, %nt, {{{{CLUSTER}}}}, %rank;           // this rank's {TILE_N} columns of the cluster tile
    shl.b32 %n0, %n0, 6;
    ld.param.u64 %pc, [p_c];
    ld.param.u64 %c_rs, [c_row_stride];
    ld.param.u64 %c_bs, [c_batch_stride];
    // 16-byte stores only when c, its row stride and its batch stride keep rows 16-byte aligned
    shl.b64 %cst, %c_rs, 1;
    or.b64 %cst, %cst, %pc;
    shl.b64 %cidx, %c_bs, 1;
    or.b64 %cst, %cst, %cidx;
    cvt.u32.u64 %tmp, %cst;
    and.b32 %tmp, %tmp, 15;
    setp.eq.u32 %p_vec, %tmp, 0;
    mov.u32 %i, %ct;
OUT_LOOP:
    shr.u32 %row, %i, 3;                      // 8-column chunk i of the {TILE_M} x {TILE_N} tile
    and.b32 %col8, %i, 7;
    add.u32 %gm, %m0, %row;
    setp.ge.u32 %p_row, %gm, %m;
    @%p_row bra OUT_NEXT;
    shl.b32 %gn, %col8, 3;
    add.u32 %gn, %gn, %n0;
    mul.lo.u32 %tmp, %row, {X_PITCH};
    shl.b32 %tmp2, %col8, 4;
    add.u32 %tmp, %tmp, %tmp2;
    add.u32 %addr, %sm_c, %tmp;
    // element index batch*c_batch + gm*c_row + gn, 64-bit
    cvt.u64.u32 %off64, %batch;
    mul.lo.u64 %cidx, %off64, %c_bs;
    cvt.u64.u32 %off64, %gm;
    mad.lo.u64 %cidx, %off64, %c_rs, %cidx;
    cvt.u64.u32 %off64, %gn;
    add.u64 %cidx, %cidx, %off64;
    shl.b64 %cidx, %cidx, 1;
    add.u64 %pcrow, %pc, %cidx;
    add.u32 %tmp, %gn, 8;
    setp.le.u32 %p_col, %tmp, %n;
    and.pred %p_col, %p_col, %p_vec;
    @!%p_col bra OUT_SCALAR;
    ld.shared.v4.b32 {{%x, %y, %z, %tmp2}}, [%addr];
    st.global.v4.b32 [%pcrow], {{%x, %y, %z, %tmp2}};
    bra.uni OUT_NEXT;
OUT_SCALAR:""")
    for j in range(8):
        e(f"""\
    add.u32 %tmp, %gn, {j};
    setp.lt.u32 %p_col, %tmp, %n;
    ld.shared.b16 %c16, [%addr+{2 * j}];
    @%p_col st.global.b16 [%pcrow+{2 * j}], %c16;""")
    e(f"""\
OUT_NEXT:
    add.u32 %i, %i, {CONSUMERS};
    setp.lt.u32 %p_more, %i, {TILE_M * TILE_N // 8};
    @%p_more bra OUT_LOOP;
NEXT_SEG:
    mov.u32 %u, %seg_end;
    bra.uni SEG_LOOP;""")
    return "\n".join(L)


#: The B producer's ring step, shared with the grouped generator: wait for the slot's release, expect its bytes on
#: full[slot], its address (then the caller's TMA loads), and the advance to the next slot and unit.
B_SLOT_ACQUIRE = f"""\
    // wait until the consumers released this slot (parity ^ 1: the first lap does not wait)
    shl.b32 %tmp, %slot, 3;
    add.u32 %bar, %sm_empty, %tmp;
    xor.b32 %par, %phase, 1;
B_WAIT_EMPTY:
    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %par;
    @!%p_ready bra B_WAIT_EMPTY;
    add.u32 %bar, %sm_full, %tmp;
    mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], {STAGE_BYTES};
    mul.lo.u32 %slot_addr, %slot, {STAGE_BYTES};
    add.u32 %slot_addr, %slot_addr, %sm;
"""
B_SLOT_ADVANCE = """\
    add.u32 %slot, %slot, 1;
    setp.eq.u32 %p_wrap, %slot, %S;
    @%p_wrap mov.u32 %slot, 0;
    @%p_wrap xor.b32 %phase, %phase, 1;
    add.u32 %u, %u, 1;
    bra.uni B_LOOP;
"""


def a16_buffer_acquire(expect_bytes) -> str:
    """The A16 producer's sub-step head (label A_SUBSTEP): wait for buffer ab's cluster-wide release, expect
    ``expect_bytes`` (a number or a register) on afull[ab] and point %addr at this rank's slice of it."""
    return f"""\
A_SUBSTEP:
    // wait until every consumer warp of the cluster released buffer ab (parity ^ 1: the first lap does not wait)
    shl.b32 %tmp, %ab, 3;
    add.u32 %bar, %sm_aempty, %tmp;
    xor.b32 %par, %aph, 1;
A_WAIT_EMPTY:
    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %par;
    @!%p_ready bra A_WAIT_EMPTY;
    add.u32 %bar, %sm_afull, %tmp;
    mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], {expect_bytes};  // all ranks' slices land here
    mul.lo.u32 %a16, %ab, {A16_BUF};
    add.u32 %a16, %a16, %sm_a16;
    mad.lo.u32 %addr, %arow, 128, %a16;       // the slice's rows (1024-byte aligned: the swizzle atom holds)
"""


#: the A16 producer's ring advance per k64 sub-step and unit, and the kernel's exit (the grouped
#: generator ends its producers with it too)
A_RING_ADVANCE_AND_EXIT = f"""\
    add.u32 %ab, %ab, 1;
    setp.eq.u32 %p_wrap, %ab, {{{{A_BUFS}}}};
    @%p_wrap mov.u32 %ab, 0;
    @%p_wrap xor.b32 %aph, %aph, 1;
    add.u32 %kel, %kel, 64;
    add.u32 %j, %j, 1;
    setp.lt.u32 %p_more, %j, 4;
    @%p_more bra A_SUBSTEP;
    add.u32 %u, %u, 1;
    bra.uni A_LOOP;

EXIT:
    // every thread of every CTA of the cluster: no peer still multicasts into, or arrives on, this CTA's memory
    barrier.cluster.arrive.release;
    barrier.cluster.wait.acquire;
    ret;
}}
"""


PRODUCERS = f"""
    // ================================================================== producers (warpgroup 0)
PRODUCERS:
    setmaxnreg.dec.sync.aligned.u32 40;       // all of warpgroup 0: the consumers take the registers
    setp.eq.u32 %p_lead, %thread, 0;
    @%p_lead bra B_PRODUCER;
    setp.eq.u32 %p_lead, %thread, 32;
    @%p_lead bra A_PRODUCER;
    bra.uni EXIT;                             // the other 126 threads of warpgroup 0 only meet the exit barrier

    // ---------------------------------------------------------------- B producer (thread 0): B1, B2, sfb1, sfb2 per unit
B_PRODUCER:
    createpolicy.fractional.L2::evict_first.b64 %pol_b, 1.0;   // B and sfb are read once (the GEMM's L2 POLICIES)
    mov.u64 %tm_b, tmap_b1;
    cvta.param.u64 %tm_b, %tm_b;
    mov.u64 %tm_b2, tmap_b2;
    cvta.param.u64 %tm_b2, %tm_b2;
    mov.u64 %tm_sfb, tmap_sfb1;
    cvta.param.u64 %tm_sfb, %tm_sfb;
    mov.u64 %tm_sfb2, tmap_sfb2;
    cvta.param.u64 %tm_sfb2, %tm_sfb2;
    prefetch.tensormap [%tm_b];
    prefetch.tensormap [%tm_b2];
    prefetch.tensormap [%tm_sfb];
    prefetch.tensormap [%tm_sfb2];
    mov.u32 %slot, 0;
    mov.u32 %phase, 0;
    mov.u32 %tend, 0;                         // no tile yet
B_LOOP:
    setp.ge.u32 %p_more, %u, %u_end;
    @%p_more bra EXIT;
    // the tile's coordinates only when u enters a new tile: the GEMM's producers dividing per unit cost its
    // consumers 2.3-2.9 us (docs/device-logs/2026-11-22-session26)
    setp.lt.u32 %p_same, %u, %tend;
    @%p_same bra B_TILE_READY;
    div.u32 %tile, %u, %KB;
    mul.lo.u32 %tbase, %tile, %KB;
    add.u32 %tend, %tbase, %KB;
    div.u32 %batch, %tile, %tpb;
    mul.lo.u32 %tmp, %batch, %tpb;
    sub.u32 %rem, %tile, %tmp;
    div.u32 %mt, %rem, %ntiles;
    mul.lo.u32 %tmp, %mt, %ntiles;
    sub.u32 %nt, %rem, %tmp;
    mad.lo.u32 %n0, %nt, {{{{CLUSTER}}}}, %rank;  // this rank's {TILE_N} B1 and B2 rows of cluster tile nt
    shl.b32 %n0, %n0, 6;
B_TILE_READY:
    sub.u32 %kb, %u, %tbase;
    shl.b32 %x, %kb, 7;                       // k byte coordinate of b1, b2: 128 bytes per stage
    shl.b32 %y, %kb, 4;                       // of sfb1, sfb2: 16 bytes per stage
{B_SLOT_ACQUIRE}    cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint
        [%slot_addr], [%tm_b, {{%x, %n0, %batch}}], [%bar], %pol_b;
    add.u32 %addr, %slot_addr, {B2_OFF};
    cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint
        [%addr], [%tm_b2, {{%x, %n0, %batch}}], [%bar], %pol_b;
    add.u32 %addr, %slot_addr, {SFB1_OFF};
    cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint
        [%addr], [%tm_sfb, {{%y, %n0, %batch}}], [%bar], %pol_b;
    add.u32 %addr, %slot_addr, {SFB2_OFF};
    cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint
        [%addr], [%tm_sfb2, {{%y, %n0, %batch}}], [%bar], %pol_b;
{B_SLOT_ADVANCE}
    // ---------------------------------------------------------------- A16 producer (thread 32): this rank's slice, to every CTA
A_PRODUCER:
    createpolicy.fractional.L2::evict_last.b64 %pol_a16, 1.0;  // every tile of the m tile reads A16 (the GEMM's L2 POLICIES)
    mov.u64 %tm_a16, tmap_a16;
    cvta.param.u64 %tm_a16, %tm_a16;
    prefetch.tensormap [%tm_a16];
    mov.u32 %ab, 0;
    mov.u32 %aph, 0;
    mov.u16 %mask, (1 << {{{{CLUSTER}}}}) - 1;    // every CTA of the cluster
    mul.lo.u32 %arow, %rank, {TILE_M}/{{{{CLUSTER}}}}; // first row of this rank's slice of the {TILE_M}-row box
    griddepcontrol.wait;                      // the decode kernel is complete and A16 is visible (PDL)
    mov.u32 %tend, 0;                         // no tile yet
A_LOOP:
    setp.ge.u32 %p_more, %u, %u_end;
    @%p_more bra EXIT;
    setp.lt.u32 %p_same, %u, %tend;
    @%p_same bra A_TILE_READY;
    div.u32 %tile, %u, %KB;
    mul.lo.u32 %tbase, %tile, %KB;
    add.u32 %tend, %tbase, %KB;
    div.u32 %batch, %tile, %tpb;
    mul.lo.u32 %tmp, %batch, %tpb;
    sub.u32 %rem, %tile, %tmp;
    div.u32 %mt, %rem, %ntiles;
    shl.b32 %m0, %mt, 8;
    add.u32 %m0, %m0, %arow;                  // A16 row of the slice
A_TILE_READY:
    sub.u32 %kb, %u, %tbase;
    shl.b32 %kel, %kb, 8;                     // k element of sub-step 0: 256 per stage
    mov.u32 %j, 0;
{a16_buffer_acquire(A16_BUF)}// {{{{if CLUSTER == 1}}}}
    cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint
        [%addr], [%tm_a16, {{%kel, %m0, %batch}}], [%bar], %pol_a16;
// {{{{else}}}}
    cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint
        [%addr], [%tm_a16, {{%kel, %m0, %batch}}], [%bar], %mask, %pol_a16;
// {{{{endif}}}}
""" + A_RING_ADVANCE_AND_EXIT


def generate(gemm_text: str | None = None) -> str:
    return (HEADER + SIGNATURE + PROLOGUE + gemm_main_loop(gemm_text) + segment_epilogue() + "\n" + store_tile()
            + "\n" + ksplit_reduce() + "\n" + PRODUCERS)


def write_or_check(argv, out: Path, text: str, script: str) -> int:
    """The generators' command line: write ``text`` to ``out``, or with --check exit 1 if it differs."""
    if "--check" in argv:
        if not out.is_file() or out.read_text() != text:
            print(f"{out} is stale: run python3 tools/{script}", file=sys.stderr)
            return 1
        print(f"{out} is up to date")
        return 0
    out.write_text(text)
    print(f"wrote {out} ({len(text.splitlines())} lines)")
    return 0


def main(argv):
    return write_or_check(argv, OUT, generate(), "gen_dual_gemm_cluster_ptx.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
