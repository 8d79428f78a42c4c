"""Write ptx/nvfp4_decode_a16_wide.ptx, the grouped A decode with one 1024-thread CTA per SM.

    python3 tools/gen_decode_a16_wide_ptx.py            # rewrite the .ptx
    python3 tools/gen_decode_a16_wide_ptx.py --check    # exit 1 if the committed .ptx is stale

The kernel writes the same A16 bytes as ptx/nvfp4_decode_a16.ptx with GROUPED=1, from the same table, for groups
that share k.  Its round runs TASKS (row, k256 chunk) tasks per warp with every task's loads issued before any
decode; the generator writes the task blocks once per task slot (registers suffixed by the slot), which is all it
does beyond the fixed text.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_dual_gemm_cluster_ptx as dual  # noqa: E402  (write_or_check)

ROOT = dual.ROOT
OUT = ROOT / "ptx" / "nvfp4_decode_a16_wide.ptx"
ENTRY = "nvfp4_decode_a16_wide"
#: tasks per warp and round (nvfp4rt.ops.decode_a16 mirrors it; a test compares them)
TASKS = 4
#: threads per CTA: one CTA per SM
THREADS = 1024
#: k32 pieces per task (one k256 chunk of a row)
CHUNK_PIECES = 8

HEADER = f"""\
// nvfp4rt: targets=sm_90a
//
// {ENTRY} - the grouped A decode (ptx/nvfp4_decode_a16.ptx with GROUPED=1: the same A16 bytes from the same
// table) for groups that share k, as one {THREADS}-thread CTA per SM whose warps each decode {TASKS} (row, k256
// chunk) tasks per round with all their loads in flight at once.  Written by tools/gen_decode_a16_wide_ptx.py.
//
// WHY
//   The grouped cluster GEMM (ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx) starts behind this decode with
//   programmatic dependent launch: its CTAs, which take a whole SM's register file, enter an SM only when the
//   decode's last CTA there has left, and its A16 producer waits for the whole decode grid.  The item-per-thread
//   decode runs about 8 CTAs of 256 threads per SM; this one runs a single wave of one CTA per SM.  On the H100, with
//   the launch phases spread (docs/device-logs/2026-11-27-session40/06, four rounds, bits equal), the cluster plan's
//   whole call ran competition case 2 in 74.3-74.6 us against 75.5-75.9 with the item decode, and eight groups of
//   n = 4096..4992, k = 2048 in 54.2-54.5 against 54.9-55.1.  (Session 36 first measured it, phases not yet spread:
//   the m-tile plans of cases 1 and 3 ran 0.2-1.2 us slower with it, so they keep the item decode, whose table
//   also carries their L2 warm-up list; docs/grouped_gemm.md, "Session 36".)
//
// WORK ORDER
//   A task is one row R of the groups' rows taken back to back (global row R: group g's rows start at its
//   row_start, as its A16 starts at 64 * item_start) and one k256 chunk j of it: pieces 8j .. 8j + 7 (those
//   below k/32), 128 packed bytes and 16 scale bytes in, 512 A16 bytes out.  Tasks are numbered chunk-major,
//   t = j * rows + R, so the first tasks of the grid cover chunk 0 of every row, which the GEMM's first units
//   read.  Warp w of the grid's W warps runs tasks w + W s (s = 0 .. {TASKS - 1}) in its first round, then moves on
//   by {TASKS} W.  In a task, lane L takes piece 8j + L/4 and 16-byte part L%4 of its 64 output bytes (the
//   item decode's four threads per piece), so a task's loads are one 128-byte line of A and its stores 512
//   contiguous bytes of A16.  A round issues the {TASKS} tasks' loads first and then decodes and stores them, so
//   a round costs about one load latency.
//
// FINDING A ROW'S GROUP
//   The row's group is the number of entries 1 .. G-1 whose item_start is at or below the row's first item
//   (R * pieces): the warp loads 32 entries' item_start at a time, one per lane, and adds the ballot's count,
//   until a block of 32 is not all below.  Then the group's row_start (u32[2]), a, sfa, a_row and sfa_row.
//
// NUMERICS
//   Those of ptx/nvfp4_decode_a16.ptx (its NUMERICS and K ORDER): part q of a piece holds pair H[q] of each word,
//   H = (0, 2, 1, 3): one merge with mask 0x07070707 (q < 2) or 0x70707070 (q >= 2), a left rotation by 9, 1, 5
//   or 29, and 0x8E008E00; times the piece's half2 scale from cvt.rn.f16x2.e4m3x2 of its two scale bytes.  Values
//   e2m1 * scale * 2^-14, exact, so nvfp4rt.ops.decode_a16.a16_reference predicts every byte.
//
// TABLE (nvfp4rt.ops.decode_a16.GroupedDecodeA16.table)
//   (G + 1) entries of 64 bytes: u32[0] item_start (row_start * pieces), u32[1] pieces, u32[2] row_start, u64 at
//   byte 16 a, 24 sfa, 32 a_row, 40 sfa_row (bytes).  The item decode's L2 warm-up list is not read here.
//
// PROGRAMMATIC DEPENDENT LAUNCH
//   As the item decode: every thread executes griddepcontrol.launch_dependents first (the GEMM behind may start
//   its prologue) and griddepcontrol.wait before its first global access (so this kernel may itself be launched
//   programmatically behind a kernel still reading the last A16; launched normally the wait returns at once).
//
// LAUNCH CONTRACT
//   grid = (SMs, 1, 1) (any grid >= 1 is correct), block = ({THREADS}, 1, 1), no cluster, no shared memory.
//   Parameters: p_table, p_out (16-byte aligned fp16, every byte of rows * k written), groups (G), rows (all
//   groups' rows), pieces (k/32, even: k is a multiple of 64), chunks (ceil(k/256)); chunks * rows < 2^31 - {TASKS} W.
"""

SIGNATURE = f"""
.version {{{{PTX_VERSION}}}}
.target {{{{TARGET}}}}
.address_size 64

.visible .entry {ENTRY}(
    .param .u64 .ptr .global .align 16 p_table,
    .param .u64 .ptr .global .align 16 p_out,
    .param .u32 groups,
    .param .u32 rows,
    .param .u32 pieces,
    .param .u32 chunks
)
.maxntid {THREADS}, 1, 1
{{
    .reg .pred  %p, %p_more;
    .reg .pred  %v<{TASKS}>;                   // task slot s is in range
    .reg .pred  %a<{TASKS}>;                   // ... and this lane's piece lies inside k
    .reg .b32   %lane, %warp, %nwarps, %rows, %pieces, %groups, %total, %t, %tmp, %cnt, %blk, %e, %ist, %bal;
    .reg .b32   %j<{TASKS}>, %r<{TASKS}>, %pc<{TASKS}>, %task<{TASKS}>, %first<{TASKS}>;
    .reg .b32   %part, %pi, %half_mask, %pair_rot, %xr;
    .reg .b64   %ptab, %pout, %pe, %off, %w64, %ga, %gsf, %garow, %gsfrow, %dst;
    .reg .b64   %src<{TASKS}>, %sfp<{TASKS}>;
    .reg .b32   %w<{4 * TASKS}>;                  // slot s's four A words: %w(4s) .. %w(4s+3)
    .reg .b16   %sb<{2 * TASKS}>, %sbytes, %hl, %hh;
    .reg .b32   %as, %s0, %s1, %d0, %d1, %d2, %d3, %gr;

    griddepcontrol.launch_dependents;         // the GEMM behind may start its prologue
    griddepcontrol.wait;                      // a kernel before us (programmatic launch) is done with A16

    ld.param.u64 %ptab, [p_table];
    ld.param.u64 %pout, [p_out];
    cvta.to.global.u64 %ptab, %ptab;
    cvta.to.global.u64 %pout, %pout;
    ld.param.u32 %groups, [groups];
    ld.param.u32 %rows, [rows];
    ld.param.u32 %pieces, [pieces];
    ld.param.u32 %tmp, [chunks];
    mul.lo.u32 %total, %tmp, %rows;           // tasks: chunks x rows

    mov.u32 %lane, %laneid;
    mov.u32 %tmp, %tid.x;
    shr.u32 %warp, %tmp, 5;
    mov.u32 %tmp, %ctaid.x;
    mad.lo.u32 %warp, %tmp, {THREADS // 32}, %warp;       // this warp's index in the grid
    mov.u32 %tmp, %nctaid.x;
    mul.lo.u32 %nwarps, %tmp, {THREADS // 32};
    shr.u32 %pi, %lane, 2;                    // the piece of the chunk (0..7) ...
    and.b32 %part, %lane, 3;                  // ... and its 16-byte part: pair H[part] of each word
    setp.lt.u32 %p, %part, 2;
    selp.b32 %half_mask, 0x07070707, 0x70707070, %p;
    shl.b32 %tmp, %part, 3;
    mov.b32 %pair_rot, 0x1D050109;            // rotations 9, 1, 5, 29 by part
    shr.u32 %pair_rot, %pair_rot, %tmp;
    and.b32 %pair_rot, %pair_rot, 0xFF;

    mov.u32 %t, %warp;
ROUND:
    setp.ge.u32 %p_more, %t, %total;
    @%p_more bra DONE;
    // ---- the round's tasks t + s W; every slot's loads are issued before any slot decodes
    mov.u32 %task0, %t;
"""


def _task_index(s: int) -> str:
    return f"    add.u32 %task{s}, %task{s - 1}, %nwarps;\n"


def _load(s: int) -> str:
    return f"""\
    setp.lt.u32 %v{s}, %task{s}, %total;
    @!%v{s} bra LOAD_{s}_DONE;
    div.u32 %j{s}, %task{s}, %rows;            // chunk ...
    mul.lo.u32 %tmp, %j{s}, %rows;
    sub.u32 %r{s}, %task{s}, %tmp;             // ... and global row R
    mad.lo.u32 %pc{s}, %j{s}, {CHUNK_PIECES}, %pi;         // this lane's piece
    setp.lt.u32 %a{s}, %pc{s}, %pieces;
    mul.lo.u32 %first{s}, %r{s}, %pieces;      // the row's first item: its A16 at out + 64 item
    mov.u32 %cnt, 0;
    mov.u32 %blk, 0;
FIND_{s}:                                     // entries 1 .. G-1 at or below the row's first item, 32 a time
    add.u32 %e, %blk, %lane;
    add.u32 %e, %e, 1;
    setp.lt.u32 %p, %e, %groups;
    mov.u32 %ist, -1;
    mul.wide.u32 %off, %e, 64;
    add.u64 %pe, %ptab, %off;
    @%p ld.global.nc.u32 %ist, [%pe];
    setp.le.u32 %p, %ist, %first{s};
    vote.sync.ballot.b32 %bal, %p, 0xffffffff;
    popc.b32 %tmp, %bal;
    add.u32 %cnt, %cnt, %tmp;
    add.u32 %blk, %blk, 32;
    setp.eq.u32 %p, %tmp, 32;
    @%p bra FIND_{s};
    mul.wide.u32 %off, %cnt, 64;
    add.u64 %pe, %ptab, %off;
    ld.global.nc.u32 %gr, [%pe+8];            // the group's row_start
    ld.global.nc.v2.u64 {{%ga, %gsf}}, [%pe+16];
    ld.global.nc.v2.u64 {{%garow, %gsfrow}}, [%pe+32];
    sub.u32 %tmp, %r{s}, %gr;                  // the row within its group
    cvt.u64.u32 %w64, %tmp;
    mad.lo.u64 %src{s}, %w64, %garow, %ga;
    mad.lo.u64 %sfp{s}, %w64, %gsfrow, %gsf;
    mul.wide.u32 %off, %pc{s}, 16;
    add.u64 %src{s}, %src{s}, %off;
    mul.wide.u32 %off, %pc{s}, 2;
    add.u64 %sfp{s}, %sfp{s}, %off;
    @%a{s} ld.global.nc.v4.b32 {{%w{4 * s}, %w{4 * s + 1}, %w{4 * s + 2}, %w{4 * s + 3}}}, [%src{s}];
    @%a{s} ld.global.nc.u8 %sb{2 * s}, [%sfp{s}];
    @%a{s} ld.global.nc.u8 %sb{2 * s + 1}, [%sfp{s}+1];
LOAD_{s}_DONE:
"""


def _decode_word(w: int, d: int, scale: str) -> str:
    return f"""\
    shf.l.wrap.b32 %xr, %w{w}, %w{w}, 3;
    lop3.b32 %xr, %w{w}, %xr, %half_mask, 0xE4;
    shf.l.wrap.b32 %xr, %xr, %xr, %pair_rot;
    and.b32 %d{d}, %xr, 0x8E008E00;
    mul.rn.f16x2 %d{d}, %d{d}, {scale};
"""


def _store(s: int) -> str:
    words = "".join(_decode_word(4 * s + i, i, "%s0" if i < 2 else "%s1") for i in range(4))
    return f"""\
    @!%v{s} bra STORE_{s}_DONE;
    @!%a{s} bra STORE_{s}_DONE;
    shl.b16 %sbytes, %sb{2 * s + 1}, 8;
    or.b16 %sbytes, %sbytes, %sb{2 * s};
    cvt.rn.f16x2.e4m3x2 %as, %sbytes;
    mov.b32 {{%hl, %hh}}, %as;
    mov.b32 %s0, {{%hl, %hl}};                  // scale of words 0, 1 (k 0..15 of the piece)
    mov.b32 %s1, {{%hh, %hh}};                  // scale of words 2, 3 (k 16..31)
{words}    add.u32 %tmp, %first{s}, %pc{s};           // the piece's item: its 64 bytes at out + 64 item, ours at + 16 part
    mul.wide.u32 %dst, %tmp, 64;
    mul.wide.u32 %off, %part, 16;
    add.u64 %dst, %dst, %off;
    add.u64 %dst, %dst, %pout;
    st.global.v4.b32 [%dst], {{%d0, %d1, %d2, %d3}};
STORE_{s}_DONE:
"""


FOOTER = f"""\
    bar.warp.sync 0xffffffff;                 // the next round's ballots need the whole warp
    mad.lo.u32 %t, %nwarps, {TASKS}, %t;
    bra.uni ROUND;
DONE:
    ret;
}}
"""


def generate() -> str:
    body = "".join(_task_index(s) for s in range(1, TASKS))
    body += "".join(_load(s) for s in range(TASKS))
    body += "    // ---- decode and store: 16 bytes per lane, a task's 512 contiguous bytes per warp\n"
    body += "".join(_store(s) for s in range(TASKS))
    return HEADER + SIGNATURE + body + FOOTER


def main(argv):
    return dual.write_or_check(argv, OUT, generate(), "gen_decode_a16_wide_ptx.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
