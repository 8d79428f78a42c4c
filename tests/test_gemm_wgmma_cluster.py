"""The cluster GEMM (ptx/gemm_nvfp4_wgmma_cluster.ptx, nvfp4rt.ops.gemm_wgmma_cluster).

CPU part:
* its consumer unit loop is the A_DECODER=1 loop of ptx/gemm_nvfp4_wgmma.ptx (which
  tests/test_gemm_wgmma.py replays on numpy: mapping, swizzles, descriptors, hazards) with
  exactly the documented changes (18432-byte slots, a16 release to every CTA of the cluster, and session 19's
  shfl'd descriptor and per-unit scale loads);
* it assembles for every cluster size and a16 depth without spills or wgmma serialisation;
* the cluster-level stream-K split covers every unit once and gives each CTA distinct slots;
* a model of the multicast a16 ring: no buffer is refilled while any CTA may still read it,
  and the ring never deadlocks;
* the K split (KSPLIT > 1): its geometry and choice, the partial tile's shared-memory mapping (every
  accumulator once, conflict-free) and the cluster-wide reduction's structure;
* bad arguments raise before any GPU work.

GPU part (``@pytest.mark.gpu``): against nvfp4rt.reference on fresh data, both distributions,
NaN-poisoned outputs, ragged shapes, every cluster size and K split; repeat runs are bit-identical.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from nvfp4rt.assemble import assemble, find_ptxas
from nvfp4rt.ops import gemm_wgmma as W
from nvfp4rt.ops import gemm_wgmma_cluster as CL
from nvfp4rt.ptxsource import render

from conftest import requires_gpu
from ptx_int import code_lines, replay_stmatrix_trans, run

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "ptx" / "gemm_nvfp4_wgmma_cluster.ptx"
GEMM = ROOT / "ptx" / "gemm_nvfp4_wgmma.ptx"
EPILOGUE = "    // ================================================================== segment epilogue"


def _code(text: str) -> list[str]:
    return [ln.rstrip() for ln in text.split("\n") if ln.strip()]


def _unit_loop(text: str) -> str:
    """The unit loop, without the row-class markers a GROUPED build expands (CL.expand_row_classes)."""
    loop = text[text.index("UNIT_LOOP:"):text.index(EPILOGUE)]
    return "\n".join(ln for ln in loop.split("\n") if not ln.startswith("//@ROWS_LOOP"))


def _cluster_text(cluster=1, a_bufs=6, wgmma_depth=1) -> str:
    return render(KERNEL.read_text(), "sm_90a", CL.kernel_constants(cluster, a_bufs, wgmma_depth))


# ============================================================== the main loop is the replayed one

_SCALE_BYTES = re.compile(r"    ld\.shared\.u8 %sb0, \[%sfslot\+(\d+)\];[^\n]*\n    ld\.shared\.u8 %sb1, \[%sfslot\+\d+\];\n"
                          r"(?:    [^\n]*\n){6}")


def _scales_per_unit(m: re.Match) -> str:
    """Piece pp's scale block, session 19: even pieces turn bytes t/2 and 2 + t/2 of scale word pp/2 into both
    pieces' half2 scales (one prmt and one cvt per row), odd pieces broadcast the high halves."""
    pp = int(m.group(1)) // 2
    if pp % 2:
        return ("    mov.b32 {%hl, %hh}, %sq0;\n    mov.b32 %sw0, {%hh, %hh};\n"
                "    mov.b32 {%hl, %hh}, %sq1;\n    mov.b32 %sw1, {%hh, %hh};\n")
    j = pp // 2
    return (f"    prmt.b32 %tmp, %sc{j}, 0, %ssel;       // this thread's scale bytes of pieces {pp} and {pp + 1}: "
            f"(s{pp}, s{pp + 1})\n    mov.b32 {{%sb0, %sbx}}, %tmp;\n    cvt.rn.f16x2.e4m3x2 %sq0, %sb0;\n"
            f"    prmt.b32 %tmp, %sc{4 + j}, 0, %ssel;\n    mov.b32 {{%sb1, %sbx}}, %tmp;\n"
            "    cvt.rn.f16x2.e4m3x2 %sq1, %sb1;\n"
            "    mov.b32 {%hl, %hh}, %sq0;\n    mov.b32 %sw0, {%hl, %hl};\n"
            "    mov.b32 {%hl, %hh}, %sq1;\n    mov.b32 %sw1, {%hl, %hl};\n")


def _session19_changes(loop: str) -> str:
    """The unit loop's two session-19 changes (docs/device-logs/2026-11-22-session19): the a16 descriptor's low word
    goes through shfl.sync (ptxas keeps the descriptors in uniform registers), and a unit's scale bytes are loaded
    once at its top."""
    loop = loop.replace("    or.b32 %dlo, %dlo, 0x10000;               // LBO field = 1 (unused with 128B swizzle)\n",
                        "    or.b32 %dlo, %dlo, 0x10000;               // LBO field = 1 (unused with 128B swizzle)\n"
                        "    shfl.sync.idx.b32 %dlo, %dlo, 0, 31, -1;  // lane 0's (the same in every lane): descriptors "
                        "in uniform registers\n")
    loop = loop.replace(
        "    add.u32 %sfslot, %slot_addr, %sfB;        // piece 2j+q's scale byte: + 4j + 2q (row g + 8: + 128)\n",
        "    add.u32 %sfslot, %slot_addr, %sfB;        // row g's scale bytes at %sfslot & -16 (row g + 8: + 128)\n"
        "    // ---- the unit's scale bytes: row g's 16 (k blocks 0..15: word j holds sub-step j's) and row g + 8's\n"
        "    and.b32 %addr, %sfslot, -16;\n    ld.shared.v4.b32 {%sc0, %sc1, %sc2, %sc3}, [%addr];\n"
        "    ld.shared.v4.b32 {%sc4, %sc5, %sc6, %sc7}, [%addr+128];\n")
    loop, n = _SCALE_BYTES.subn(_scales_per_unit, loop)
    assert n == 8
    return loop


_B_WORDS = re.compile(r"    xor\.b32 %addr, %bslot, (\d+);[^\n]*\n    ld\.shared\.b32 %w0, \[%addr\];\n"
                      r"    ld\.shared\.b32 %w1, \[%addr\+1024\];\n")
_DECODE = re.compile(r"((?:    (?:shf|lop3|shl|and|mul)\.[^\n]*\n\n*){30})")  # blank lines: the rendered conditionals


def _b_words(pp: int) -> str:
    r0, r1 = ("%w0", "%w1") if pp % 2 == 0 else ("%pw0", "%pw1")
    return (f"    xor.b32 %addr, %bslot, {16 * pp};{' ' * (10 - len(str(16 * pp)))}// piece {pp}: chunk {pp} of row g "
            f"(swizzled), word t; row g + 8 at + 1024\n    ld.shared.b32 {r0}, [%addr];\n    ld.shared.b32 {r1}, [%addr+1024];\n")


def _session26_changes(loop: str) -> str:
    """The unit loop's session-26 changes (docs/device-logs/2026-11-22-session26, every form; A_UNIT builds also test
    each sub-step's afull barrier early, which the a_bufs=6 build compared here does not have):
    * B words a piece earlier: pieces 0 and 1 at the unit's top, piece p + 2 right after piece p's commit, odd pieces
      in their own register pair (%pw0, %pw1);
    * one 64-bit descriptor per sub-step (%dbase), each wgmma's a 64-bit add of its k16 offset;
    * the next unit's full barrier tested (non-blocking) before piece 7's B words are loaded; the unit's top skips its
      wait loop when that test saw the stage full."""
    loads, decs = list(_B_WORDS.finditer(loop)), list(_DECODE.finditer(loop))
    assert [int(m.group(1)) for m in loads] == [16 * i for i in range(8)] and len(decs) == 8
    events = sorted([(m.start(), m.end(), "ld", k) for k, m in enumerate(loads)]
                    + [(m.start(), m.end(), "dec", k) for k, m in enumerate(decs)])
    out, pos = [], 0
    for start, end, kind, k in events:
        out.append(loop[pos:start])
        if kind == "ld":
            out.append(_b_words(0) + _b_words(1) if k == 0 else (_b_words(k + 1) if k < 7 else ""))
        else:
            dec = loop[start:end]
            out.append(dec.replace("%w0", "%pw0").replace("%w1", "%pw1") if k % 2 else dec)
        pos = end
    out.append(loop[pos:])
    loop = "".join(out)
    loop = loop.replace("    // ---- prefetch piece 0: its two B words and scales (before the A work of sub-step 0)\n",
                        "    // ---- prefetch pieces 0 and 1: their B words (odd pieces' in %pw0, %pw1), and piece 0's scales\n")
    for pp in range(1, 8):
        loop = loop.replace(
            f"    // ---- prefetch piece {pp}: its two B words and scales (loaded while the wgmmas of piece {pp - 1} run)\n",
            f"    // ---- prefetch: piece {pp + 1}'s B words (a piece ahead of its decode), piece {pp}'s scales (while the "
            f"wgmmas of piece {pp - 1} run)\n" if pp < 7 else
            "    // ---- prefetch: piece 7's scales (while the wgmmas of piece 6 run; its B words are in)\n")
    loop = re.sub(r"(    // ---- piece [0246]: B fragments)",
                  r"    mov.b64 %dbase, {%dlo, %desc_hi};        // the sub-step's descriptor (+ 2 per k16 step)\n\1", loop)
    loop = re.sub(r"    add\.u32 %x, %dlo, (\d+);[^\n]*\n    mov\.b64 %desc, \{%x, %desc_hi\};\n",
                  r"    add.s64 %desc, %dbase, \1;\n", loop)
    wait = "C_WAIT_FULL:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %phase;\n    @!%p_ready bra C_WAIT_FULL;\n"
    loop = loop.replace(wait, "    @%p_fok bra C_FULL_OK;                    // the previous unit saw this stage full\n"
                        + wait + "C_FULL_OK:\n")
    mark = "    // ---- prefetch: piece 7's B words"
    return loop.replace(mark, (
        "    // ---- the next unit's stage, looked at early (non-blocking): the unit's top skips its wait when it is full\n"
        "    //      (not in DUAL builds: 0.3-0.5 us slower there, docs/device-logs/2026-11-22-session26/36)\n"
        "    add.u32 %nslot, %slot, 1;\n    setp.eq.u32 %p_nw, %nslot, %S;\n    @%p_nw mov.u32 %nslot, 0;\n"
        "    selp.b32 %nphase, 1, 0, %p_nw;\n    xor.b32 %nphase, %nphase, %phase;\n"
        "    shl.b32 %fbar, %nslot, 3;\n    add.u32 %fbar, %fbar, %sm_full;\n"
        "    mbarrier.test_wait.parity.shared::cta.b64 %p_fok, [%fbar], %nphase;\n") + mark)


def test_unit_loop_is_the_decoder_variant_loop_with_the_documented_changes():
    gemm = render(GEMM.read_text(), "sm_90a", W.kernel_constants(normal_operands=False, a_decoder=True, a_bufs=4))
    loop = _unit_loop(gemm)
    loop = loop.replace("mul.lo.u32 %slot_addr, %slot, 36864;",
                        "mul.lo.u32 %slot_addr, %slot, 18432;  // ring slot [B TILE_Nx128 | sfb TILE_Nx16]")
    loop = loop.replace("// every wgmma of the previous sub-step is complete: its a16 buffer goes back to the decoder",
                        "// every wgmma of sub-step s-1 (WG_WAIT=1; s-2 with WG_WAIT=3) is complete: its a16 buffer goes back "
                        "to the producers")
    loop = loop.replace("setp.eq.u32 %p_wrap, %ab, 4;", "setp.eq.u32 %p_wrap, %ab, 6;")
    loop = loop.replace("// ---- A_DECODER=1: the decoder warpgroup fills a16 buffer ab (waited for below, before the first wgmma)",
                        "// ---- the A16 producer fills a16 buffer ab by TMA (waited for below, before the first wgmma)")
    loop = re.sub(r"    add\.u32 %j3, %j3, 1;\n    setp\.eq\.u32 %p_wrap, %j3, 3;\n    @%p_wrap mov\.u32 %j3, 0;\n", "", loop)
    loop = _session26_changes(_session19_changes(loop))
    mine = _unit_loop(_cluster_text(cluster=1, a_bufs=6))
    assert _code(mine) == _code(loop)


def _prmt(a: int, b: int, sel: int) -> int:
    """PTX prmt.b32 (default mode): byte i of the result is byte (sel >> 4i) & 7 of {b, a} (a = bytes 0..3), or that
    byte's sign replicated when bit 3 of the selector nibble is set."""
    src = (b << 32) | a
    out = 0
    for i in range(4):
        nib = (sel >> (4 * i)) & 0xF
        byte = (src >> (8 * (nib & 7))) & 0xFF
        if nib & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * i)
    return out


def test_unit_scale_selection_picks_each_pieces_k_block():
    """The consumers' per-unit scales: thread t (lane % 4) needs, for piece pp, the scale of k block 2*pp + t/2 of
    its row (byte 2*pp + t/2 of the row's 16).  Sub-step j's first piece turns word j of the 16 bytes into a b16
    with prmt(word, 0, ssel) and converts it: the low byte must be piece 2j's block, the high byte piece 2j+1's.
    The selector formula and the word index are read from the kernel text."""
    text = _cluster_text()
    mul, add = (int(v, 0) for v in re.search(r"mad\.lo\.u32 %ssel, %tmp, (\w+), (\w+);", text).groups())
    words = [int(w) for w in re.findall(r"prmt\.b32 %tmp, %sc(\d), 0, %ssel;", _unit_loop(text))]
    assert words == [0, 4, 1, 5, 2, 6, 3, 7]  # sub-step j: row g's word j, then row g + 8's word 4 + j
    row = bytes(range(0x40, 0x50))  # distinct bytes: the 16 k blocks' scales of one row
    for t in range(4):
        ssel = (t >> 1) * mul + add
        for j in range(4):
            word = int.from_bytes(row[4 * j:4 * j + 4], "little")
            b16 = _prmt(word, 0, ssel) & 0xFFFF
            assert b16 & 0xFF == row[2 * (2 * j) + t // 2]
            assert b16 >> 8 == row[2 * (2 * j + 1) + t // 2]


def _b_word_flow(loop: str) -> list[tuple]:
    """The B-word traffic of a unit loop in text order: ('wait',) at the stage's full wait, ('load', pair, piece) for
    each chunk load (pair 'w' or 'pw'), ('decode', pair, piece) for each piece's decode, ('release',) where the stage
    goes back to the B producer."""
    ev, piece = [], None
    for m in re.finditer(r"C_FULL_OK:|C_WAIT_FULL:|// ---- piece (\d):|xor\.b32 %addr, %bslot, (\d+);[^\n]*\n"
                         r"    ld\.shared\.b32 (%p?w)0, \[%addr\];|shf\.l\.wrap\.b32 %xr, (%p?w)0, |"
                         r"release the stage", loop):
        if m.group(0) in ("C_FULL_OK:", "C_WAIT_FULL:"):
            if not ev or ev[-1] != ("wait",):
                ev.append(("wait",))
        elif m.group(1):
            piece = int(m.group(1))
        elif m.group(2):
            ev.append(("load", m.group(3), int(m.group(2)) // 16))
        elif m.group(4):
            ev.append(("decode", m.group(4), piece))
        else:
            ev.append(("release",))
    return ev


def _check_b_word_flow(ev):
    """Every piece decodes the chunk of its own k32 from the register pair that holds it, every chunk is loaded once per
    unit after the stage's full wait and before the stage is released, and no pair is reloaded before its decode."""
    held, loaded, state = {}, [], "before"
    for e in ev:
        if e[0] == "wait":
            state = "in"
        elif e[0] == "release":
            state = "after"
        elif e[0] == "load":
            assert state == "in", f"chunk {e[2]} loaded outside the stage's full wait .. release"
            assert e[1] not in held, f"pair {e[1]} reloaded (chunk {e[2]}) before piece {held.get(e[1])} decoded it"
            held[e[1]] = e[2]
            loaded.append(e[2])
        else:
            assert held.get(e[1]) == e[2], f"piece {e[2]} decodes pair {e[1]} holding chunk {held.get(e[1])}"
            del held[e[1]]
    assert sorted(loaded) == list(range(8)) and state == "after"


@pytest.mark.parametrize("kw", [dict(cluster=1, a_bufs=6), dict(cluster=2, a_bufs=8), dict(cluster=2, a_bufs=6, wgmma_depth=3),
                                dict(cluster=1, a_bufs=8, ksplit=2), dict(cluster=2, a_bufs=4, consumer_wgs=3)])
def test_b_words_reach_their_piece(kw):
    _check_b_word_flow(_b_word_flow(_unit_loop(render(KERNEL.read_text(), "sm_90a", CL.kernel_constants(**kw)))))


@pytest.mark.parametrize("pattern,repl,what", [
    (r"xor\.b32 %addr, %bslot, 48;", "xor.b32 %addr, %bslot, 64;", "decodes pair"),  # piece 3 gets chunk 4
    (r"(xor\.b32 %addr, %bslot, 48;[^\n]*\n    ld\.shared\.b32 )%pw0(, \[%addr\];\n    ld\.shared\.b32 )%pw1",
     r"\1%w0\2%w1", "reloaded")])                                                    # piece 3's chunk into piece 2's pair
def test_b_word_flow_catches_a_wrong_chunk_or_pair(pattern, repl, what):
    loop, n = re.subn(pattern, repl, _unit_loop(_cluster_text(2, 8)), count=1)
    assert n == 1
    with pytest.raises(AssertionError, match=what):
        _check_b_word_flow(_b_word_flow(loop))


_LOOK_AHEAD = re.compile(r"add\.u32 %nslot, %slot, \d+;.*?mbarrier\.test_wait\.parity\.shared::cta\.b64 %p_fok, \[%fbar\], %nphase;",
                         re.S)
_ADVANCE = re.compile(r"add\.u32 %slot, %slot, 1;\s*setp\.eq\.u32 %p_wrap, %slot, %S;.*?@%p_wrap xor\.b32 %phase, %phase, 1;",
                      re.S)


def _check_look_ahead(loop: str, stages: int, units: int = 12):
    """Replay `units` units of the ring's (slot, phase): the look-ahead of unit u must test the barrier and parity that
    unit u + 1 waits on."""
    look = [ln for ln in code_lines(_LOOK_AHEAD.search(loop).group(0)) if not ln.startswith("mbarrier.")]
    advance = code_lines(_ADVANCE.search(loop).group(0))
    slot, phase = 0, 0
    for _ in range(units):
        regs = run(look, {"%slot": slot, "%phase": phase, "%S": stages, "%sm_full": 1 << 20})
        nxt = run(advance, {"%slot": slot, "%phase": phase, "%S": stages})
        slot, phase = nxt["%slot"], nxt["%phase"]
        assert regs["%fbar"] == (1 << 20) + 8 * slot, "the look-ahead tests another stage's barrier"
        assert regs["%nphase"] == phase, "the look-ahead tests the wrong parity"


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("kw", [dict(cluster=1, a_bufs=6), dict(cluster=2, a_bufs=8), dict(cluster=1, a_bufs=8, ksplit=2)])
def test_look_ahead_tests_the_next_units_stage(stages, kw):
    _check_look_ahead(_unit_loop(render(KERNEL.read_text(), "sm_90a", CL.kernel_constants(**kw))), stages)


def test_dual_builds_keep_the_top_of_unit_wait():
    """DUAL builds (the dual GEMM's tiles) do not look at the next stage early: it cost them 0.3-0.5 us."""
    loop = _unit_loop(render(KERNEL.read_text(), "sm_90a", CL.kernel_constants(1, 8, dual=True)))
    assert "%p_fok" not in loop and "C_WAIT_FULL:" in loop


@pytest.mark.parametrize("path,kw", [(KERNEL, dict(cluster=2, a_bufs=8)), (KERNEL, dict(cluster=1, a_bufs=8, ksplit=2)),
                                     (KERNEL, dict(cluster=1, a_bufs=8, ksplit=2, ks_stream=True)),
                                     (ROOT / "ptx" / "dual_gemm_nvfp4_wgmma_cluster.ptx", None),
                                     (ROOT / "ptx" / "grouped_gemm_nvfp4_wgmma_cluster.ptx", None)])
def test_look_ahead_flag_is_cleared_before_each_segments_first_unit(path, kw):
    """A stage seen full by a look-ahead is only trusted within the segment that looked: each kernel that skips a
    unit's full wait on %p_fok clears it after SEG_LOOP and before its first unit loop (a stale or unset flag would
    let a unit read its stage before the TMA lands)."""
    text = path.read_text() if kw is None else render(path.read_text(), "sm_90a", CL.kernel_constants(**kw))
    code = "\n".join(ln.split("//")[0] for ln in text.split("\n"))
    seg = code.index("\nSEG_LOOP:")
    first_use = code.index("@%p_fok bra", seg)
    assert "setp.ne.u32 %p_fok, 0, 0;" in code[seg:first_use]


@pytest.mark.parametrize("old,new,what", [("xor.b32 %nphase, %nphase, %phase;", "mov.b32 %nphase, %phase;", "parity"),
                                          ("add.u32 %nslot, %slot, 1;", "add.u32 %nslot, %slot, 0;", "stage")])
def test_look_ahead_replay_catches_a_wrong_stage_or_parity(old, new, what):
    loop = _unit_loop(_cluster_text(2, 8))
    assert loop.count(old) == 1
    with pytest.raises(AssertionError, match=what):
        _check_look_ahead(loop.replace(old, new), 3)


def test_cluster_release_reaches_every_cta_of_the_cluster():
    for cluster in CL.CLUSTER_SIZES:
        loop = _unit_loop(_cluster_text(cluster))
        ranks = sorted(int(r) for r in re.findall(r"@%p_rel mapa\.shared::cluster\.u32 %rbar, %bar, (\d+);", loop))
        per_release = list(range(cluster)) if cluster > 1 else []
        assert ranks == sorted(per_release * 4), (cluster, ranks)  # 4 sub-steps per unit
        assert ("mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];" in loop.split("@%p_rel")[1]) == (cluster == 1)
        text = "\n".join(ln.split("//")[0] for ln in _cluster_text(cluster).split("\n"))  # code only
        assert f"mbarrier.init.shared::cta.b64 [%bar], 4*2*{cluster};" in text
        assert (".multicast::cluster" in text) == (cluster > 1)
        assert f"mov.u16 %mask, (1 << {cluster}) - 1;" in text
        assert f"mul.lo.u32 %arow, %rank, 128/{cluster};" in text


def _consumer_events(text):
    """One consumer warpgroup's unit, in text order: ('wait', n), ('issue', piece, set), ('release', lag) where
    lag is how many sub-steps back the released buffer was read (1 with the one-deep queue, 2 with two)."""
    body = _unit_loop(text)
    deep = "mov.u32 %pab, %pab1;" in body
    ev, piece = [], None
    for m in re.finditer(r"wgmma\.wait_group\.sync\.aligned (\d+);|// ---- piece (\d):|and\.pred %p_rel, %p_pend, %p_l0;"
                         r"|mov\.pred %p_rel, %p_l0;[^\n]*\n    add\.u32 %bar, %aebar, (\d+);"
                         r"|wgmma\.mma_async[^{]*\{[^}]*\},\s*\{(%\w)", body):
        if m.group(1):
            ev.append(("wait", int(m.group(1))))
        elif m.group(2):
            piece = int(m.group(2))
        elif m.group(0).startswith("and.pred"):
            ev.append(("release", piece, 2 if deep else 1))
        elif m.group(3):  # A_UNIT: buffer ab + offset/8 of this unit, read by sub-step offset/8
            ev.append(("release", piece, piece // 2 - int(m.group(3)) // 8))
        elif ev[-1][0] != "issue" or ev[-1][1] != piece:
            ev.append(("issue", piece, m.group(4)))
    return ev


def _check_warpgroup(events, units):
    """Replay `units` units; a group completes as late as the waits allow.  Fails on a fragment set rewritten
    while its last group may run, or an a16 buffer released while a group reading it may run."""
    groups, done, last_set = [], 0, {}
    for u in range(units):
        for e in events:
            if e[0] == "wait":
                done = max(done, len(groups) - e[1])
            elif e[0] == "issue":
                piece = 8 * u + e[1]
                if e[2] in last_set:
                    assert last_set[e[2]] < done, f"fragment set {e[2]} rewritten at piece {piece} too early"
                last_set[e[2]] = len(groups)
                groups.append(piece)
            else:
                sub = (8 * u + e[1]) // 2 - e[2]  # the sub-step whose buffer goes back
                if sub >= 0:
                    readers = [i for i, p in enumerate(groups) if p // 2 == sub]
                    assert readers and max(readers) < done, f"a16 of sub-step {sub} released while read"


@pytest.mark.parametrize("depth,a_bufs", [(1, 6), (3, 6), (1, 8)])
def test_consumer_pipeline_has_no_fragment_or_a16_release_hazard(depth, a_bufs):
    ev = _consumer_events(_cluster_text(2, a_bufs, depth))
    assert [e for e in ev if e[0] == "wait"] == [("wait", depth)] * 8
    assert [e[2] for e in ev if e[0] == "issue"] == ["%x", "%y", "%z", "%w"] * 2
    assert [(e[1], e[2]) for e in ev if e[0] == "release"] == [(p, 2 if depth == 3 else 1) for p in (1, 3, 5, 7)]
    _check_warpgroup(ev, 4)


def _a_unit_ring(loop):
    """What an A_UNIT unit loop (its rendered text) does with the a16 ring: per sub-step s the full-barrier offset it
    waits on, the descriptor offset (>> 4) it reads and the empty-barrier offset it releases (None at s = 0: the
    previous unit's last buffer, %pab), the bases' buffer size, the advance at the unit's end, and the offsets its
    early (non-blocking) afull looks test."""
    loop = "\n".join(ln.split("//")[0] for ln in loop.split("\n"))  # code only
    waits = [int(v) for v in re.findall(r"add\.u32 %bar, %abar, (\d+);", loop)]
    looks = [int(v) for v in re.findall(r"add\.u32 %eb, %abar, (\d+);\s*mbarrier\.test_wait\.parity\.shared::cta\.b64 "
                                        r"%p_ea\d, \[%eb\], %aph;", loop)]
    descs = [int(v) for v in re.findall(r"add\.u32 %dlo, %dlou, (\d+);", loop)]
    rels = [int(v) for v in re.findall(r"add\.u32 %bar, %aebar, (\d+);", loop)]
    buf = int(re.search(r"mad\.lo\.u32 %a16, %ab, (\d+), %sm_a16;", loop).group(1))
    pend = int(re.search(r"add\.u32 %pab, %ab, (\d+);", loop).group(1))
    step = int(re.search(r"add\.u32 %ab, %ab, (\d+);\s*setp\.eq\.u32 %p_wrap, %ab, (\d+);", loop).group(1))
    return waits, descs, [None] + rels, buf, pend, step, looks


def _replay_a_unit_ring(loop, a_bufs, buf=16384, units=10):
    """Replay the A_UNIT consumers' ring against the A16 producer's (one buffer per sub-step, wrapping at A_BUFS, the
    phase flipping at each wrap): every sub-step must wait on the buffer the producer filled for it with the
    producer's parity, point its descriptor at that buffer, and release the buffer of the sub-step before it (the
    previous unit's last at sub-step 0)."""
    waits, descs, rels, buf_read, pend, step, looks = _a_unit_ring(loop)
    assert buf_read == buf and len(waits) == len(descs) == len(rels) == 4
    prod = [(i % a_bufs, (i // a_bufs) % 2) for i in range(4 * units)]  # (buffer, parity) of the producer's i-th fill
    ab, aph, pab = 0, 0, None
    for u in range(units):
        for s in range(4):
            i = 4 * u + s
            assert (ab + waits[s] // 8, aph) == prod[i], f"unit {u} sub-step {s} waits on the wrong fill"
            assert ab + descs[s] * 16 // buf == prod[i][0], f"unit {u} sub-step {s} reads the wrong buffer"
            released = pab if rels[s] is None else ab + rels[s] // 8
            assert i == 0 or released == prod[i - 1][0], f"unit {u} sub-step {s} releases the wrong buffer"
        pab, ab = ab + pend, ab + step
        if ab == a_bufs:
            ab, aph = 0, aph ^ 1
    # each sub-step's afull barrier is also looked at early (test_wait, the wait loop skipped when complete): the same
    # barrier, with the same parity (%aph does not change within a unit)
    assert looks == waits, "an early look tests another sub-step's afull barrier"


@pytest.mark.parametrize("a_bufs", [4, 8])
def test_unit_aligned_ring_follows_the_producers_ring(a_bufs):
    assert CL.kernel_constants(2, a_bufs)["A_UNIT"] == 1
    _replay_a_unit_ring(_unit_loop(_cluster_text(2, a_bufs)), a_bufs)


@pytest.mark.parametrize("old,new,what", [("add.u32 %dlo, %dlou, 2048;", "add.u32 %dlo, %dlou, 1024;", "reads"),
                                          ("add.u32 %bar, %abar, 16;", "add.u32 %bar, %abar, 8;", "waits"),
                                          ("add.u32 %bar, %aebar, 8;", "add.u32 %bar, %aebar, 16;", "releases"),
                                          ("add.u32 %pab, %ab, 3;", "add.u32 %pab, %ab, 2;", "releases"),
                                          ("add.u32 %eb, %abar, 16;", "add.u32 %eb, %abar, 24;", "early look")])
def test_unit_aligned_ring_replay_catches_a_wrong_offset(old, new, what):
    text = _cluster_text(2, 8)
    assert text.count(old) == 1
    with pytest.raises(AssertionError, match=what):
        _replay_a_unit_ring(_unit_loop(text.replace(old, new)), 8)


def test_hazard_model_catches_a_release_one_sub_step_too_early():
    ev = _consumer_events(_cluster_text(2, 6, 3))
    early = [("release", e[1], 1) if e[0] == "release" else e for e in ev]
    with pytest.raises(AssertionError, match="released while read"):
        _check_warpgroup(early, 3)
    with pytest.raises(AssertionError, match="fragment set"):
        _check_warpgroup([("wait", 5) if e[0] == "wait" else e for e in ev], 3)


# ============================================================== assembly

_HAVE_PTXAS = find_ptxas() is not None


@pytest.mark.skipif(not _HAVE_PTXAS, reason="ptxas not found")
@pytest.mark.parametrize("cluster,a_bufs,depth,wgs", [(1, 6, 1, 2), (2, 6, 1, 2), (4, 6, 1, 2), (2, 4, 1, 2), (2, 8, 1, 2),
                                                     (2, 6, 3, 2), (1, 8, 3, 2), (4, 8, 3, 2), (1, 4, 1, 3), (2, 4, 1, 3),
                                                     (4, 5, 1, 3)])
def test_kernel_assembles_without_spills_or_wgmma_serialisation(cluster, a_bufs, depth, wgs):
    rep = assemble(KERNEL, "sm_90a", CL.kernel_constants(cluster, a_bufs, depth, wgs))
    fn = rep.functions["nvfp4_gemm_wgmma_cluster"]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0
    assert "serializ" not in rep.log.lower()


@pytest.mark.skipif(not _HAVE_PTXAS, reason="ptxas not found")
@pytest.mark.parametrize("ksplit,ks_stream,head_check,head_wait", [(2, False, True, CL.DEFAULT_HEAD_WAIT),
                                                                   (4, False, True, CL.DEFAULT_HEAD_WAIT),
                                                                   (2, True, True, CL.DEFAULT_HEAD_WAIT),
                                                                   (2, True, True, 0), (2, True, False, 0)])
def test_k_split_builds_assemble_without_spills_or_wgmma_serialisation(ksplit, ks_stream, head_check, head_wait):
    """The K split and the stream-K pairs (whose empty-share zeroing once sat inside a wgmma pipeline stage and
    made ptxas serialise every wgmma: 73 instead of 60 us on 128x7168x16384)."""
    rep = assemble(KERNEL, "sm_90a", CL.kernel_constants(1, 10, 1, 2, head_check, head_wait, ksplit, ks_stream))
    fn = rep.functions["nvfp4_gemm_wgmma_cluster"]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0
    assert "serializ" not in rep.log.lower()


def test_kernel_file_is_ascii_with_a_header():
    raw = KERNEL.read_bytes()
    raw.decode("ascii")
    first = raw.split(b"\n", 1)[0].decode()
    assert first.startswith("// nvfp4rt: targets=sm_90a constants=CLUSTER=")
    for section in ("WHAT", "TILES AND WORK SPLIT", "PIPELINE AND WARP ROLES", "STREAM-K REDUCTION", "EPILOGUE",
                    "CLUSTER LIFETIME", "LAUNCH CONTRACT"):
        assert f"// {section}" in raw.decode()


# ============================================================== geometry

@pytest.mark.parametrize("m,n,k,l,cluster,maxc,wgs", [
    (128, 7168, 16384, 1, 2, 66, 2), (128, 4096, 7168, 1, 2, 66, 2), (128, 7168, 2048, 1, 4, 32, 2),
    (300, 1000, 1088, 2, 2, 66, 2), (1, 1, 64, 1, 4, 32, 2), (129, 130, 320, 3, 1, 132, 2), (64, 384, 2304, 1, 2, 7, 2),
    (128, 7168, 16384, 1, 2, 66, 3), (128, 4096, 7168, 1, 1, 132, 3), (300, 1000, 1088, 2, 4, 32, 3),
    (1408, 4096, 7168, 1, 2, 66, 2), (1664, 7168, 2048, 1, 2, 66, 2), (1408, 4096, 16384, 1, 2, 66, 2)])
def test_every_unit_once_per_rank_and_partials_in_distinct_slots(m, n, k, l, cluster, maxc, wgs):
    g = CL.cluster_geometry(m, n, k, l, maxc, cluster=cluster, consumer_wgs=wgs)
    if g.k_stages <= CL.MAX_CHAIN_UNITS:
        assert g.clusters <= maxc  # one wave, however long the runs (1408x4096x7168: 75 units each)
    else:
        assert g.units_per_cluster <= CL.MAX_CHAIN_UNITS and g.clusters <= max(maxc, -(-g.units // CL.MAX_CHAIN_UNITS))
    for q in range(g.clusters):  # no run holds more than MAX_CHAIN_UNITS units of one tile: one fp32 chain each
        lo, hi = q * g.units_per_cluster, min((q + 1) * g.units_per_cluster, g.units)
        for t in range(lo // g.k_stages, (hi - 1) // g.k_stages + 1):
            assert min(hi, (t + 1) * g.k_stages) - max(lo, t * g.k_stages) <= CL.MAX_CHAIN_UNITS
    seen = np.zeros(g.units, dtype=int)
    slots = {}
    for q in range(g.clusters):
        lo, hi = q * g.units_per_cluster, min((q + 1) * g.units_per_cluster, g.units)
        seen[lo:hi] += 1
        tiles = sorted({u // g.k_stages for u in range(lo, hi)})
        assert len(tiles) <= 2 or all(len(g.contributors(t)) == 1 for t in tiles[1:-1])
        for r in range(cluster):
            for t in tiles:
                if len(g.contributors(t)) > 1:
                    sidx = 0 if t == (q * g.units_per_cluster) // g.k_stages else 1
                    slot = 2 * (cluster * q + r) + sidx
                    assert slot < 2 * g.grid and slot not in slots
                    slots[slot] = (cluster * t + r, q)
    assert (seen == 1).all()
    # each rank's tile_n columns of every cluster tile lie inside [0, cluster * n_tiles * tile_n)
    assert g.tile_n == 64 * wgs and g.threads == 128 + 128 * wgs
    assert g.n_tiles * cluster * g.tile_n >= n > (g.n_tiles - 1) * cluster * g.tile_n
    assert g.counters == cluster * g.tiles and g.workspace_bytes == 2 * g.grid * g.tile_n * 128 * 4


def test_default_shared_memory_fits_the_h100_opt_in_limit():
    for wgs in CL.CONSUMER_WGS_CHOICES:
        assert CL.cluster_geometry(128, 7168, 16384, 1, 66, consumer_wgs=wgs).shared_mem <= 232448
    assert CL.shared_bytes(4, 6) <= 232448 and CL.shared_bytes(3, 5, 3) <= 232448
    assert CL.shared_bytes(6, 6) > 232448 and CL.shared_bytes(4, 6, 3) > 232448  # refused against the device limit
    c2, c3 = CL.kernel_constants(2, 6, 1, 2), CL.kernel_constants(2, 4, 1, 3)
    assert (c2["STAGE_BYTES"], c2["SFB_OFF"], c2["THREADS"]) == (18432, 16384, 384)
    assert (c3["STAGE_BYTES"], c3["SFB_OFF"], c3["THREADS"], c3["TILE_N"]) == (27648, 24576, 512, 192)
    assert c3["STAGE_BYTES"] % 1024 == 0  # ring slots keep the 1024-byte swizzle atom alignment


# ============================================================== the multicast a16 ring

def _multicast_ring(cluster, nbufs, substeps, order_seed, *, lag=1, batch=1, release_to=None):
    """Run every CTA's A16 producer and consumers (one reader per CTA) in a random interleaving.

    Producer of rank r: fills sub-step s (its slice, into every CTA) once its own aempty of that buffer has
    completed the earlier laps (8 * cluster arrivals each: every consumer warp of the cluster).
    Consumer of a CTA: starts sub-step s when afull of its buffer is complete (``batch=4``: at a unit's
    first sub-step it waits for all four, as WG_WAIT=3 does); on starting s it releases sub-step s - lag
    (its wgmmas are complete by then: lag 1 for WG_WAIT=1, 2 for WG_WAIT=3) to the CTAs in
    ``release_to(r)`` (all of them, as the kernel does); at the end it releases what is left.
    Returns (violations, finished): a slice landing in a buffer whose old contents a CTA has not
    released, or a consumer starting on an incomplete buffer."""
    release_to = release_to or (lambda r: range(cluster))
    rng = np.random.default_rng(order_seed)
    afull_phase = [[0] * nbufs for _ in range(cluster)]           # completed fills per (cta, buf)
    slices_in = [[0] * nbufs for _ in range(cluster)]             # slices of the current fill landed
    aempty = [[0] * nbufs for _ in range(cluster)]                # arrivals on each CTA's aempty (this lap)
    aempty_phase = [[0] * nbufs for _ in range(cluster)]
    produced = [0] * cluster                                      # next sub-step each producer fills
    started = [0] * cluster                                       # sub-steps each consumer has started
    released = [0] * cluster                                      # sub-steps each consumer has released

    def filled(r, t):
        return afull_phase[r][t % nbufs] > t // nbufs

    def release(r):
        b = released[r] % nbufs
        for dst in release_to(r):
            aempty[dst][b] += 1
            if aempty[dst][b] == cluster:
                aempty[dst][b] = 0
                aempty_phase[dst][b] += 1
        released[r] += 1

    errors = []
    for _ in range(100000):
        moves = []
        for r in range(cluster):
            s = produced[r]
            if s < substeps and aempty_phase[r][s % nbufs] >= s // nbufs:  # parity wait passes
                moves.append(("fill", r))
            s = started[r]
            if s < substeps:
                need = range(s, min(s + batch, substeps)) if s % batch == 0 else [s]
                if all(filled(r, t) for t in need):
                    moves.append(("start", r))
            elif released[r] < substeps:
                moves.append(("end", r))
        if not moves:
            break
        kind, r = moves[rng.integers(len(moves))]
        if kind == "fill":
            b = produced[r] % nbufs
            for dst in range(cluster):  # multicast: the slice lands in every CTA
                live = [t for t in range(released[dst], started[dst]) if t % nbufs == b]
                if live:
                    errors.append(f"rank {r} wrote buffer {b} of cta {dst} while sub-step {live[0]} may read it")
                slices_in[dst][b] += 1
                if slices_in[dst][b] == cluster:
                    slices_in[dst][b] = 0
                    afull_phase[dst][b] += 1
            produced[r] += 1
        elif kind == "start":
            s = started[r]
            if slices_in[r][s % nbufs] or not filled(r, s):
                errors.append(f"cta {r} reads sub-step {s} before its fill is complete")
            started[r] += 1
            if s - lag >= 0:
                release(r)
        else:
            release(r)
    done = all(p == substeps for p in produced) and all(x == substeps for x in released)
    return errors, done


@pytest.mark.parametrize("cluster", CL.CLUSTER_SIZES)
@pytest.mark.parametrize("nbufs,lag,batch", [(4, 1, 1), (6, 1, 1), (6, 2, 4), (8, 2, 4)])
def test_multicast_ring_never_overwrites_a_buffer_in_use_and_never_deadlocks(cluster, nbufs, lag, batch):
    for seed in range(20):
        errors, done = _multicast_ring(cluster, nbufs, 4 * 9, seed, lag=lag, batch=batch)
        assert not errors, errors[:3]
        assert done


def test_ring_model_catches_a_release_to_the_own_cta_only_and_a_too_small_ring():
    """Releasing only to the own producer (counted as if all had arrived) lets a peer overwrite a buffer in use;
    waiting for a unit's four buffers while two are still held deadlocks a ring of five (why A_BUFS >= 6)."""
    caught = 0
    for seed in range(20):
        errors, done = _multicast_ring(2, 4, 4 * 9, seed, release_to=lambda r: [r, r])
        caught += bool(errors) or not done
    assert caught
    errors, done = _multicast_ring(2, 5, 4 * 9, 0, lag=2, batch=4)
    assert not done
    with pytest.raises(ValueError, match="a_bufs >= 6"):
        CL.kernel_constants(2, 5, 3)


# ============================================================== the K split (KSPLIT > 1)

def _ksplit_text(ksplit=2, wgs=2, **kw):
    consts = CL.kernel_constants(1, CL._DEFAULT_A_BUFS if wgs == 2 else 4, 1, wgs, ksplit=ksplit, **kw)  # the defaults
    return render(KERNEL.read_text(), "sm_90a", consts), consts


@pytest.mark.parametrize("m,n,k,l,ks", [(128, 7168, 2048, 1, 2), (128, 4096, 7168, 1, 4), (200, 1000, 2048, 2, 8),
                                        (1, 1, 512, 1, 2), (130, 640, 16384, 1, 2)])
def test_ksplit_geometry_gives_each_cta_one_k_range_of_one_tile(m, n, k, l, ks):
    g = CL.cluster_geometry(m, n, k, l, 132, cluster=1, ksplit=ks)
    assert g.ksplit == ks and g.launch_cluster == ks and g.units_per_cluster * ks == g.k_stages
    assert g.grid == g.tiles * ks and g.grid % ks == 0  # whole clusters
    assert g.workspace_bytes == 16 and g.counters == 1  # nothing goes through global memory
    for cta in range(g.grid):  # the kernel's %cta = ctaid.x, %krank = ctaid.x % ksplit
        lo = cta * g.units_per_cluster
        tile, krank = divmod(cta, ks)
        assert lo // g.k_stages == tile == (lo + g.units_per_cluster - 1) // g.k_stages
        assert lo % g.k_stages == krank * g.units_per_cluster


@pytest.mark.parametrize("kwargs,match", [
    (dict(cluster=2, ksplit=2), "cluster=1"), (dict(cluster=1, ksplit=3), "ksplit must be"),
    (dict(cluster=1, ksplit=True), "ksplit must be"), (dict(cluster=1, ksplit=4, k=1536), "divisible"),
    (dict(cluster=1, ksplit=2, k=256 * 66), "at most 32"), (dict(cluster=1, ksplit=2, units_per_cluster=3), "k_stages / ksplit"),
])
def test_ksplit_geometry_refuses_what_the_kernel_cannot_run(kwargs, match):
    args = dict(m=128, n=256, k=2048, l=1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        CL.cluster_geometry(args.pop("m"), args.pop("n"), args.pop("k"), args.pop("l"), 132, **args)
    with pytest.raises(ValueError, match="cluster=1"):
        CL.kernel_constants(2, ksplit=2)


def test_ksplit_choice_on_the_benchmark_shapes():
    """132 SMs; stream-K costs its units per cluster + 2 per extra contributor of a tile.  128x7168x2048: 56 tiles of
    8 stages, 2 x 4 stages on 112 CTAs against stream-K's 4 + 2: the split.  128x4096x7168: 32 tiles of 28 stages;
    4 x 7 beats stream-K's 7 + 6 when 32 clusters of 4 fit at once, and is refused when the device holds fewer
    (the H100 holds 30: a GPC takes only whole clusters); 2 x 14 then costs more.  128x7168x16384: 32 stages per
    CTA against stream-K's 28 + 2 x 2.3: the split."""
    assert CL.choose_ksplit(128, 7168, 2048, 1, 132) == 2
    assert CL.choose_ksplit(128, 4096, 7168, 1, 132) == 4
    assert CL.choose_ksplit(128, 4096, 7168, 1, 132, max_active={4: 30, 2: 66}) == 1
    assert CL.choose_ksplit(128, 7168, 16384, 1, 132) == 2
    assert CL.choose_ksplit(128, 7168, 16384, 1, 110) == 1  # its 112 CTAs do not fit 110 SMs at once
    assert CL.choose_ksplit(128, 2048, 7168, 1, 132, max_active={4: 30}) == 4  # 7 stages against 4 + 6 contributors
    assert CL.choose_ksplit(1, 1, 64, 1, 132) == 1  # one stage: nothing to split
    assert CL.choose_ksplit(128, 7168, 1536, 1, 132) == 2  # 6 stages: 112 CTAs of 3 against stream-K's 3 + 1
    assert CL.choose_ksplit(128, 7168, 1280, 1, 132) == 1  # 5 stages: no split divides them
    assert CL.choose_ksplit(1024, 7168, 2048, 1, 132) == 1  # 448 tiles: no split fits one wave
    assert CL.ksplit_candidates(28, 32, 132) == [2, 4] and CL.ksplit_candidates(1, 1, 132) == []


def test_ksplit_partial_tile_mapping_is_one_to_one_and_conflict_free():
    """The 64 st.shared.f32 of the K-split epilogue, evaluated for every consumer thread: each (m_l, n_l) of the
    128 x TILE_N tile is written once, at m_l * KS_PITCH + 4 n_l, and the 32 lanes of each store hit 32 banks."""
    for wgs in CL.CONSUMER_WGS_CHOICES:
        text, consts = _ksplit_text(2, wgs)
        pitch, tn = consts["KS_PITCH"], consts["TILE_N"]
        block = text[text.index("KSPLIT_REDUCE:"):text.index("PRODUCERS:")]
        stores = re.findall(r"st\.shared\.f32 \[%addr\+(\d+)\*(\d+)\+(\d+)\], %acc(\d+);", block)
        assert len(stores) == 64 and sorted(int(e) for *_, e in stores) == list(range(64))
        assert all(int(p) == pitch for _, p, _, _ in stores)
        assert "mul.lo.u32 %tmp, %t, 2*" + str(pitch) + ";" in block and "shl.b32 %tmp2, %rowB, 2;" in block
        written = {}
        for ct in range(consts["CONSUMERS"]):
            wg, wi, lane = ct // 128, (ct % 128) // 32, ct % 32
            g, t = lane // 4, lane % 4
            row_b = 64 * wg + 16 * wi + g
            base = 2 * t * pitch + 4 * row_b
            for mrow, _, col, e in stores:
                e = int(e)
                # the wgmma accumulator layout: acc e is (n_l, m_l) = (row_b + 8*((e/2)%2), 8*(e/4) + 2t + e%2)
                n_l, m_l = row_b + 8 * ((e // 2) % 2), 8 * (e // 4) + 2 * t + e % 2
                addr = base + int(mrow) * pitch + int(col)
                assert addr == m_l * pitch + 4 * n_l
                assert addr not in written
                written[addr] = (ct // 32, e)
        assert len(written) == 128 * tn
        banks = {}
        for addr, key in written.items():
            banks.setdefault(key, []).append((addr // 4) % 32)
        assert all(sorted(b) == list(range(32)) for b in banks.values())
        assert 128 * pitch <= 2 * CL.stage_bytes(wgs) + 4 * 16384  # P fits the smallest rings


@pytest.mark.parametrize("ks", CL.KSPLIT_SIZES[1:])
def test_ksplit_exchange_pushes_each_peers_rows_then_adds_every_rank_in_order(ks):
    """The K split's exchange, read from the rendered text in program order: phase 1 of the cluster barrier is
    waited for before any remote access; each CTA frees its drained rings to every peer (FREE), expects the
    peers' bytes (RECV), parks P, makes it visible to the async proxy, waits until every peer is free, bulk-copies
    each peer's rows of P into that peer's slot, waits for its own rows, acknowledges them (DONE), then sums the
    ranks in order from local shared memory and keeps the CTA alive until every peer has its rows."""
    text, consts = _ksplit_text(ks)
    pitch = consts["KS_PITCH"]
    slot_bytes = 128 // ks * pitch
    block = text[text.index("KSPLIT_REDUCE:"):text.index("PRODUCERS:")]
    code = [ln.split("//")[0].strip() for ln in _code(block) if ln.split("//")[0].strip()]

    def first(pred):
        return min(i for i, ln in enumerate(code) if pred(ln))

    def last(pred):
        return max(i for i, ln in enumerate(code) if pred(ln))

    wait1 = code.index("barrier.cluster.wait.acquire;")
    assert "barrier.cluster.arrive.release;" not in code  # no meeting: phase 1 was arrived at INIT_DONE
    free = [ln for ln in code if re.fullmatch(r"@%p_peer mbarrier\.arrive\.shared::cluster\.b64 _, \[%addr\];", ln)]
    assert len(free) == 2 * ks  # FREE and DONE, one each per possible peer (the own rank predicated off)
    assert wait1 < first(lambda ln: ln.startswith("mapa."))
    expect = first(lambda ln: ln.startswith("mbarrier.arrive.expect_tx"))
    assert code[expect] == f"mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%sm_ks+8], ({ks}-1)*128/{ks}*{pitch};"
    park_end = last(lambda ln: ln.startswith("st.shared.f32"))
    assert expect < first(lambda ln: ln.startswith("st.shared.f32"))
    assert code[park_end + 1] == "fence.proxy.async.shared::cta;" and code[park_end + 2] == "bar.sync 1, 256;"
    copies = [i for i, ln in enumerate(code) if ln.startswith("@%p_peer cp.async.bulk.shared::cluster.shared::cta")]
    assert len(copies) == ks and all(f", 128/{ks}*{pitch}, [%rbar];" in code[i] for i in copies)
    assert first(lambda ln: "[%sm_ks], 0;" in ln) < copies[0]  # FREE waited for first
    recv = first(lambda ln: ln.startswith("mbarrier.try_wait") and "[%bar], 0;" in ln)
    assert copies[-1] < recv < first(lambda ln: ln.startswith("ld.shared.v4.f32"))
    assert "ld.shared::cluster" not in block.split("KSP_ACKED:")[1]  # every partial is read locally
    # the slots: sender s writes slot s - (s > r) of receiver r (the sender's sub), and receiver r reads sender s
    # there (its selp): a bijection of the ks - 1 senders onto slots 0 .. ks-2 for every receiver
    for p in range(ks):
        assert f"selp.u32 %tmp, {p}, {max(p - 1, 0)}, %p_hi;" in code and f"selp.b32 %pr{p}, %sm, %pr{p}, %p_peer;" in code
        assert f"add.u32 %tmp2, %sm, {p}*128/{ks}*{pitch};" in code  # the rows of P that peer p stores
    assert code.count("sub.u32 %tmp, %krank, %tmp;") == ks
    for r in range(ks):
        assert sorted(s_ - (s_ > r) for s_ in range(ks) if s_ != r) == list(range(ks - 1))
    assert "add.u32 %sm_recv, %sm, 128*" + str(pitch) + ";" in text  # the slots start after the whole of P
    # the sum, rank by rank (rows i and i + 8): P_0 + P_1 + ..., the bits of the pull it replaced
    ranks = re.findall(r"add\.u32 %addr, %pr(\d), %x;", block)
    assert [int(r) for r in ranks] == list(range(ks))
    assert "0f00000000" not in block  # (the pairs' build starts from 0 + P_0; the K split from P_0)
    assert len(re.findall(r"add\.f32 %r[ab]\d, %r[ab]\d, %q[ab]\d;", block)) == 8 * (ks - 1)
    assert f"mul.lo.u32 %rowbase, %krank, 128/{ks};" in block
    # thread 0 waits for DONE (every peer has read its rows out of this CTA's P) before the CTA may exit
    done = first(lambda ln: "KSP_WAIT_DONE:" in ln)
    assert code[done + 1] == "mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], 0;" and code[done - 1] == "add.u32 %bar, %sm_ks, 16;"
    assert code[-1] == "ret;" and "bra.uni EXIT;" not in code[done:]
    # each CTA reduces 128/ks rows in passes of 16 (two chunks 8 rows apart per thread): 8/ks passes cover them
    assert f"setp.lt.u32 %p_more, %i, 128/{ks}*128/4;" in block and "add.u32 %i, %i, 2*256;" in block
    # EXIT: the producers complete phase 1 only
    exit_code = [ln.split("//")[0].strip() for ln in _code(text[text.index("\nEXIT:") + 1:]) if ln.split("//")[0].strip()]
    assert exit_code[1:3] == ["barrier.cluster.wait.acquire;", "ret;"]


def test_ksplit_barriers_are_initialised_before_phase_one_and_fit_the_shared_memory():
    text, consts = _ksplit_text(2)
    code = [ln.split("//")[0].strip() for ln in _code(text) if ln.split("//")[0].strip()]
    fence = code.index("fence.mbarrier_init.release.cluster;")
    assert code[fence - 3:fence] == ["mbarrier.init.shared::cta.b64 [%sm_ks], 2-1;",
                                     "mbarrier.init.shared::cta.b64 [%sm_ks+8], 1;",
                                     "mbarrier.init.shared::cta.b64 [%sm_ks+16], 2-1;"]
    assert code[fence + 1:fence + 4] == ["INIT_DONE:", "barrier.cluster.arrive.release;", "bar.sync 0;"]
    assert "add.u32 %sm_ks, %sm_flag, 16;" in code  # 24 bytes of barriers after the flag words
    # the stream-K and pair builds keep the meeting at INIT_DONE and EXIT's barrier
    for consts2 in (CL.kernel_constants(2, 6), CL.kernel_constants(1, 10, ksplit=2, ks_stream=True)):
        assert consts2["KS_PUSH"] == 0
        c2 = [ln.split("//")[0].strip() for ln in _code(render(KERNEL.read_text(), "sm_90a", consts2))
              if ln.split("//")[0].strip()]
        i = c2.index("INIT_DONE:")
        assert c2[i + 1:i + 3] == ["barrier.cluster.arrive.release;", "barrier.cluster.wait.acquire;"]
        assert "%sm_ks" not in " ".join(ln for ln in c2 if not ln.startswith(".reg"))
    # P and every receive slot fit the rings of every default K-split build (the plan grows a16 buffers if needed)
    for ks in CL.KSPLIT_SIZES[1:]:
        for wgs in CL.CONSUMER_WGS_CHOICES:
            g = CL.cluster_geometry(128, 2048, 16384, 1, 132, cluster=1, ksplit=ks, consumer_wgs=wgs)
            assert CL.ks_exchange_bytes(wgs, ks) <= CL.ring_bytes(g.num_stages, g.a_bufs, wgs)
            assert g.shared_mem <= 232448
    assert CL.cluster_geometry(128, 2048, 16384, 1, 132, cluster=1, ksplit=8, consumer_wgs=3).a_bufs == 5
    with pytest.raises(ValueError, match="exchanges"):
        CL.cluster_geometry(128, 2048, 16384, 1, 132, cluster=1, ksplit=8, consumer_wgs=3, a_bufs=4)


def test_default_rings_fit_and_take_the_unit_aligned_ring():
    """Two consumer warpgroups default to 3 B stages and 8 a16 buffers in every schedule: 8 is a multiple of 4, so the
    builds take the unit-aligned ring (A_UNIT), and it fits beside a stream-K build's staging tile only with the
    272-byte pitch (a 128-column row + 16 bytes; 400 would not fit).  A K split drops the staging tile (C_PITCH = 0)."""
    sk = CL.cluster_geometry(128, 7168, 16384, 1, 66)
    ks = CL.cluster_geometry(128, 7168, 16384, 1, 66, cluster=1, ksplit=2)
    assert (sk.num_stages, sk.a_bufs, ks.num_stages, ks.a_bufs) == (3, 8, 3, 8)
    assert CL.kernel_constants(2, 8)["C_PITCH"] == 272 and CL.kernel_constants(1, 8, ksplit=2)["C_PITCH"] == 0
    assert CL.kernel_constants(1, 4, consumer_wgs=3)["C_PITCH"] == 400  # 192 columns
    assert sk.shared_mem == CL.shared_bytes(3, 8) <= 232448 < CL.shared_bytes(3, 8) + 128 * (400 - 272)
    assert CL.shared_bytes(3, 8, 2, 2) == CL.shared_bytes(3, 8) - 128 * 272 + 32  # + the exchange barriers
    assert CL.kernel_constants(2, 8)["A_UNIT"] == 1 and CL.kernel_constants(1, 8, ksplit=2)["A_UNIT"] == 1
    assert CL.kernel_constants(2, 6)["A_UNIT"] == 0 and CL.kernel_constants(2, 8, wgmma_depth=3)["A_UNIT"] == 0
    # explicit rings are kept; three consumer warpgroups keep their defaults (27 KB stages)
    g = CL.cluster_geometry(128, 7168, 16384, 1, 66, cluster=1, ksplit=2, stages=4, a_bufs=6)
    assert (g.num_stages, g.a_bufs) == (4, 6)
    g3 = CL.cluster_geometry(192, 7168, 16384, 1, 66, cluster=1, ksplit=2, consumer_wgs=3)
    assert (g3.num_stages, g3.a_bufs) == (4, 4) and g3.shared_mem <= 232448
    # the parked partial P fits the smallest rings of every build
    for wgs in CL.CONSUMER_WGS_CHOICES:
        assert CL.ks_park_bytes(wgs) <= CL.MIN_STAGES * CL.stage_bytes(wgs) + min(CL.A_BUFS_CHOICES) * 16384


@pytest.mark.parametrize("ks", CL.KSPLIT_SIZES[1:])
def test_ksplit_path_never_touches_the_staging_tile(ks):
    """With C_PITCH = 0 the staging tile's address is the barriers': the K split's code from the end of the main
    loop (its branch to KSPLIT_REDUCE) to EXIT must not use %sm_c."""
    text, _ = _ksplit_text(ks)
    epi = text.index("// ================================================================== segment epilogue")
    branch = text.index("bra.uni KSPLIT_REDUCE;", epi)
    assert "%sm_c" not in text[epi:branch]
    assert "%sm_c" not in text[text.index("KSPLIT_REDUCE:"):text.index("PRODUCERS:")]
    assert "%sm_c" in text[branch:text.index("KSPLIT_REDUCE:")]  # the stream-K epilogue (unreachable here) does


@pytest.mark.skipif(not _HAVE_PTXAS, reason="ptxas not found")
@pytest.mark.parametrize("ks,wgs", [(2, 2), (4, 2), (8, 2), (2, 3), (8, 3)])
def test_ksplit_kernel_assembles_without_spills(ks, wgs):
    text, _ = _ksplit_text(ks, wgs)
    res = assemble(text, "sm_90a", {})
    (fn,) = res.functions.values()
    assert not fn.spills and fn.local_bytes == 0


# ============================================================== arguments

@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(m=128, n=256, k=96), ValueError, "multiple of 64"),
    (dict(m=0, n=256, k=256), ValueError, "m"),
    (dict(m=128, n=256, k=256, cluster=3), ValueError, "cluster"),
    (dict(m=128, n=256, k=256, stages=7), ValueError, "stages"),
    (dict(m=128, n=256, k=256, a_bufs=3), ValueError, "a_bufs"),
    (dict(m=128, n=256, k=256, alpha=float("nan")), ValueError, "alpha"),
    (dict(m=128, n=256, k=256, alpha=1e35), ValueError, "alpha"),
    (dict(m=128, n=256, k=256, consumer_wgs=4), ValueError, "consumer_wgs"),
    (dict(m=128, n=256, k=256, consumer_wgs=3, wgmma_depth=3, a_bufs=6), ValueError, "consumer_wgs=2"),
])
def test_bad_plan_arguments_raise_before_any_gpu_work(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        CL.GemmClusterPlan(**kwargs)


def test_supports_follows_the_tma_and_alpha_rules():
    assert CL.supports(128, 7168, 16384, 1)
    assert not CL.supports(128, 7168, 96, 1)
    assert not CL.supports(128, 256, 512, 1, alpha=1e35)


# ============================================================== GPU

def _run_case(m, n, k, l, distribution, **plan_kwargs):
    from test_gemm_wgmma import _run_case as run_gemm_case

    return run_gemm_case(m, n, k, l, distribution, plan_class=CL.GemmClusterPlan, **plan_kwargs)


GPU_SHAPES = [(128, 7168, 2048, 1), (128, 256, 512, 1), (1, 1, 64, 1), (127, 129, 320, 1), (200, 1000, 1088, 2),
              (129, 8, 4096, 1), (64, 300, 256, 3), (256, 7, 960, 1), (130, 640, 16384, 1)]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l", GPU_SHAPES)
@pytest.mark.parametrize("cluster", CL.CLUSTER_SIZES)
@pytest.mark.parametrize("wgs", CL.CONSUMER_WGS_CHOICES)
def test_matches_float64_reference(m, n, k, l, cluster, wgs):
    for distribution in ("competition", "wide"):
        res, *_ = _run_case(m, n, k, l, distribution, cluster=cluster, consumer_wgs=wgs)
        assert res.ok, (distribution, res.report())


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("kw", [dict(), dict(cluster=4), dict(stages=2, a_bufs=4), dict(stages=5, a_bufs=5),
                                dict(wgmma_depth=3), dict(consumer_wgs=3), dict(consumer_wgs=3, cluster=1, stages=3, a_bufs=5)])
@pytest.mark.parametrize("upc", [1, 3, 1000])
def test_split_choice_does_not_change_the_result_and_repeats_are_identical(upc, kw):
    res, plan, dev, c, ref = _run_case(128, 1024, 2048, 1, "wide", units_per_cluster=upc, **kw)
    assert res.ok, res.report()
    first = c.numpy().copy()
    plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)  # counters were reset by the last CTAs
    assert np.array_equal(first.view(np.uint16), c.numpy().view(np.uint16))


KSPLIT_SHAPES = [(128, 7168, 2048, 1), (128, 256, 512, 1), (1, 1, 512, 1), (127, 129, 1024, 1), (200, 1000, 2048, 2),
                 (129, 8, 4096, 1), (64, 300, 1984, 3), (256, 7, 960, 1), (130, 640, 16384, 1)]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l", KSPLIT_SHAPES)
@pytest.mark.parametrize("ks", CL.KSPLIT_SIZES[1:])
@pytest.mark.parametrize("wgs", CL.CONSUMER_WGS_CHOICES)
def test_ksplit_matches_float64_reference_and_repeats_are_identical(m, n, k, l, ks, wgs):
    kb = -(-k // 256)
    if kb % ks or kb // ks > CL.MAX_CHAIN_UNITS:
        pytest.skip(f"k/256 = {kb} does not split {ks} ways (the geometry refuses it; tested on the CPU)")
    for distribution in ("competition", "wide"):
        res, plan, dev, c, _ = _run_case(m, n, k, l, distribution, cluster=1, ksplit=ks, consumer_wgs=wgs)
        assert plan.geometry.ksplit == ks
        assert res.ok, (distribution, res.report())
    first = c.numpy().copy()
    c.numpy()  # (host copy taken)
    plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
    assert np.array_equal(first.view(np.uint16), c.numpy().view(np.uint16))


@pytest.mark.gpu
@requires_gpu
def test_default_plans_take_the_ksplit_where_it_is_chosen():
    """A default plan's K split runs in one wave (its clusters fit the device at once) and 128x7168x2048 takes one."""
    from nvfp4rt import driver

    sms = driver.Device(0).properties.sm_count
    for shape in [(128, 4096, 7168, 1), (128, 7168, 2048, 1), (128, 7168, 16384, 1), (256, 4096, 7168, 1)]:
        plan = CL.GemmClusterPlan(*shape)
        g = plan.geometry
        assert g.ksplit in [1] + CL.ksplit_candidates(g.k_stages, g.tiles, sms)
        assert g.cluster == (1 if g.ksplit > 1 else CL.DEFAULT_CLUSTER)
        assert (f"ksplit={g.ksplit}" in repr(plan)) == (g.ksplit > 1)
        if g.ksplit > 1:
            assert g.tiles <= CL._max_active_clusters(plan.kernel, g.ksplit, g.threads, g.shared_mem, sms)
            assert (g.num_stages, g.a_bufs, plan.constants["C_PITCH"]) == (3, 8, 0)  # default rings, no staging
    if sms >= 112:
        assert CL.GemmClusterPlan(128, 7168, 2048, 1).geometry.ksplit == 2


@pytest.mark.gpu
@requires_gpu
def test_moved_buffers_and_padded_scales():
    """New input buffers re-point the tensor maps; sfb rows not 16-byte strided go through the padded copy."""
    import nvfp4rt
    from nvfp4rt import data, reference

    plan = None
    for _ in range(2):
        m, n, k = 96, 640, 320  # k/16 = 20-byte scale rows: padded
        d = data.gemm_data(m, n, k, 1, seed=None, distribution="wide")
        dev = {name: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(name)).view(np.uint8))
               for name in ("a", "b", "sfa", "sfb")}
        c = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, dtype=np.float16))
        plan = plan or CL.GemmClusterPlan(m, n, k, 1)
        plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
        res = reference.check(c.numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb))
        assert res.ok, res.report()


# ============================================================== stream-K over K-split pairs (ks_stream)

def _pair_units(g):
    """{(pair, rank): [units]} as the kernel walks them: pair q's run, the units with u % 2 == rank."""
    out = {}
    for q in range(g.clusters):
        lo, hi = q * g.units_per_cluster, min((q + 1) * g.units_per_cluster, g.units)
        for r in (0, 1):
            out[(q, r)] = [u for u in range(lo, hi) if u % 2 == r]
    return out


@pytest.mark.parametrize("m,n,k,l,pairs,upc", [(128, 7168, 16384, 1, 66, None), (128, 4096, 7168, 1, 66, None),
                                               (64, 7168, 4096, 1, 66, None), (200, 333, 2048, 2, 66, 3),
                                               (17, 130, 1536, 1, 66, 1), (300, 520, 4096, 1, 5, None)])
def test_pair_geometry_runs_every_unit_once_in_runs_of_at_most_a_tile(m, n, k, l, pairs, upc):
    g = CL.cluster_geometry(m, n, k, l, pairs, cluster=1, ksplit=2, ks_stream=True, units_per_cluster=upc)
    assert g.ks_stream and g.launch_cluster == 2 and g.grid == 2 * g.clusters
    assert g.units_per_cluster <= min(g.k_stages, 2 * CL.MAX_CHAIN_UNITS)
    if upc is None and -(-g.units // pairs) <= min(g.k_stages, 2 * CL.MAX_CHAIN_UNITS):
        assert g.clusters <= pairs  # one wave (an explicit ks_stream past the cap takes more: slower, still right)
    walked = _pair_units(g)
    assert sorted(u for us in walked.values() for u in us) == list(range(g.units))
    for (q, r), us in walked.items():
        lo, hi = q * g.units_per_cluster, min((q + 1) * g.units_per_cluster, g.units)
        tiles = {u // g.k_stages for u in range(lo, hi)}
        assert len(tiles) <= 2  # a run has at most two segments: a tile's tail, then the next tile's head
        # a tile the run holds whole is its only segment (its pair reduces it through DSMEM at the run's end)
        whole = [t for t in tiles if lo <= t * g.k_stages and (t + 1) * g.k_stages <= hi]
        assert not whole or len(tiles) == 1
        assert len(us) <= CL.MAX_CHAIN_UNITS  # each CTA's fp32 chain
    # two partial slots per CTA: one for its run's first tile, one for its last
    assert g.workspace_bytes == 2 * g.grid * g.tile_n * 128 * 4 and g.counters == g.tiles
    for t in range(g.tiles):
        c = g.contributors(t)
        assert c.start * g.units_per_cluster <= t * g.k_stages < (c.start + 1) * g.units_per_cluster  # the head


@pytest.mark.parametrize("kwargs,match", [
    (dict(cluster=1, ksplit=4, ks_stream=True), "ksplit=2"), (dict(cluster=2, ksplit=2, ks_stream=True), "cluster=1"),
    (dict(cluster=1, ksplit=2, ks_stream=True, units_per_cluster=9), "at most"),
    (dict(cluster=1, ksplit=2, ks_stream=1), "True or False"),
])
def test_pair_geometry_refuses_what_the_kernel_cannot_run(kwargs, match):
    with pytest.raises(ValueError, match=match):
        CL.cluster_geometry(128, 256, 2048, 1, 66, **kwargs)
    with pytest.raises(ValueError, match="ks_stream needs ksplit=2"):
        CL.kernel_constants(1, ksplit=4, ks_stream=True)


def test_pairs_replace_stream_k_only_where_one_wave_of_them_fits():
    """128x4096x7168 (stream-K's shape among the benchmark ones): 896 units over 66 pairs, runs of 14 <= 28 / 2
    stages; 192x3072x16384: runs of 47 > 64 / 2 (measured slower); 256x7168x2048: runs of 14 > 8 stages would need
    112 pairs, a second wave."""
    assert CL.prefer_pairs(32 * 28, 28, 66)
    assert not CL.prefer_pairs(48 * 64, 64, 66)
    assert not CL.prefer_pairs(112 * 8, 8, 66)
    assert not CL.prefer_pairs(66 * 65, 256, 66)  # runs past 2 * MAX_CHAIN_UNITS
    assert CL.choose_ksplit(128, 4096, 7168, 1, 132, max_active={4: 30, 2: 66}) == 1  # where the pairs are asked



def _streamk(m, n, k, sms=132):
    g, tiles = CL._ksplit_problem(m, n, k, 1, sms)
    return g, tiles


def test_whole_tiles_replace_stream_k_within_the_slack():
    """Where no K split fits, one whole tile per CTA wins when its k stages are at most WHOLE_TILE_SLACK above
    stream-K's estimate (units per cluster + 2 per extra contributor).  The H100 measurements the rule was set by:
    640x3072x4096 (120 tiles of 16 stages against 15 + 2), 896x2048x3072 (12 against 11 + 2), 384x4096x4096 and
    768x2048x4096 (16 against 12 + 2): whole tiles faster; 320x3072x4096 (16 against 9 + 3.3): stream-K faster."""
    for shape, cost in [((640, 3072, 4096), 17.0), ((896, 2048, 3072), 13.0), ((384, 4096, 4096), 14.0),
                        ((768, 2048, 4096), 14.0), ((256, 7168, 2048), 9.0), ((512, 4096, 1536), 6.0)]:
        g, tiles = _streamk(*shape)
        assert CL.streamk_cost(g) == pytest.approx(cost), shape
        assert CL.choose_ksplit(*shape[:3], 1, 132) == 1, shape  # no K split fits: the rule is asked
        assert CL.prefer_whole_tiles(g, tiles, 132), shape
    g, tiles = _streamk(320, 3072, 4096)
    assert CL.streamk_cost(g) == pytest.approx(9 + 2 * 5 / 3) and not CL.prefer_whole_tiles(g, tiles, 132)
    g, tiles = _streamk(640, 3072, 4096)
    assert not CL.prefer_whole_tiles(g, tiles, 119)  # 120 tiles: not one wave on 119 SMs
    g, tiles = _streamk(4224, 128, 8448)  # 33 tiles of 33 stages: one chain would pass 8192 k
    assert g.k_stages == 33 and not CL.prefer_whole_tiles(g, tiles, 132)
    g, tiles = _streamk(384, 4096, 4096)  # the slack is what takes it: 16 stages against an estimate of 14
    assert g.k_stages > CL.streamk_cost(g) and CL.prefer_whole_tiles(g, tiles, 132)
    from nvfp4rt.ops import grouped_gemm, grouped_gemm_mtiles
    assert grouped_gemm.WHOLE_TILE_SLACK is CL.WHOLE_TILE_SLACK is grouped_gemm_mtiles.WHOLE_TILE_SLACK


@pytest.mark.gpu
@requires_gpu
def test_default_plan_takes_whole_tiles_where_the_rule_holds():
    """640x3072x4096, 256x7168x2048 and 896x2048x3072 run one whole tile per CTA with clusters of 1 (no partial: the counters stay
    unused); 320x3072x4096 keeps stream-K; both distributions match the reference, repeats are bit-identical."""
    import nvfp4rt
    from nvfp4rt import data, driver, reference

    if driver.Device(0).properties.sm_count < 120:
        pytest.skip("the choice is stated for 132 SMs")
    assert CL.GemmClusterPlan(320, 3072, 4096).geometry.units_per_cluster < 16
    for (m, n, k) in [(640, 3072, 4096), (256, 7168, 2048), (896, 2048, 3072)]:
        plan = CL.GemmClusterPlan(m, n, k)
        g = plan.geometry
        assert (g.cluster, g.ksplit, g.units_per_cluster, g.grid) == (1, 1, g.k_stages, g.tiles), repr(plan)
        for distribution in ("competition", "wide"):
            d = data.gemm_data(m, n, k, 1, seed=None, distribution=distribution)
            dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8))
                   for x in ("a", "b", "sfa", "sfb")}
            c = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
            plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
            first = c.numpy().copy()
            res = reference.check(first.transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb))
            assert res.ok, (m, n, k, distribution, res.report())
            plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
            assert np.array_equal(first.view(np.uint16), c.numpy().view(np.uint16))

def test_pair_head_and_hand_off_sum_in_the_same_order():
    """The head pair's DSMEM sum and the hand-off's sum from the workspace both compute 0 + P(c_lo, 0) + P(c_lo, 1)
    + P(c_lo + 1, 0) + P(c_lo + 1, 1) + ..., so the bits do not depend on which path a tile took."""
    text, _ = _ksplit_text(ks_stream=True)
    head = text[text.index("KS_LOOP:"):text.index("KSS_W_DONE:")]
    adds = re.findall(r"add\.f32 %ra0, %ra0, (\S+);", head)
    # 0 + P_0, + P_1, + pair c_lo + 1's rank 0 and rank 1, then the loop over further pairs: rank 0, rank 1
    assert adds == ["0f00000000", "%qa0", "%va0", "%vc0", "%qa0", "%qa0"]
    assert head.index("[%pw];") < head.index("ld.shared::cluster.v4.f32 {%ra0")  # the global loads go out first
    off = text[text.index("KSS_RED_LOOP:"):text.index("bra.uni KSS_STORE;")]
    loads = re.findall(r"ld\.global\.cg\.f32 %v0, \[%pw\+([^\]]+)\];\n    add\.f32 %acc0,", off)
    assert loads == ["0", "0+2*128*128*4"]  # rank 0's slot, then rank 1's (two slots on)
    assert text.index("mov.f32 %acc63, 0f00000000;\n    mov.u32 %cc, %c_lo;\nKSS_RED_LOOP:") > 0  # from 0


def test_pair_empty_share_is_zeroed_after_the_wgmma_wait():
    """A one-unit segment leaves one CTA of the pair without units: it adds a zero partial.  Its accumulators are
    zeroed after the segment's wgmma.wait_group (zeroing them where a wgmma pipeline stage is open made ptxas
    serialise every wgmma)."""
    text, _ = _ksplit_text(ks_stream=True)
    start = text.index("SEG_EPILOGUE:")
    assert text.index("wgmma.wait_group.sync.aligned 0;", start) < text.index("mov.f32 %acc0, 0f00000000;", start)
    loop = text[text.index("SEG_LOOP:"):text.index("SEG_EPILOGUE:")]
    assert "mov.f32 %acc" not in loop


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l,upc", [(128, 7168, 2048, 1, None), (127, 129, 1024, 1, 1), (200, 1000, 2048, 2, 3),
                                         (64, 300, 1984, 3, None), (129, 8, 4096, 1, 5), (1, 1, 512, 1, None),
                                         (256, 7, 960, 1, 2)])
def test_pairs_match_float64_reference_whatever_path_each_tile_takes(m, n, k, l, upc):
    """Both distributions (fresh data), NaN-poisoned c; on the same inputs the default head check, one look
    (head_wait=0: a head hands off when a partial is missing) and no head check (every pair hands off) give the same
    bits, and repeats do too."""
    import nvfp4rt
    from nvfp4rt import data, reference

    for distribution in ("competition", "wide"):
        d = data.gemm_data(m, n, k, l, seed=None, distribution=distribution)
        ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
        dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
        outs = []
        for kw in ({}, {"head_wait": 0}, {"head_check": False}):
            plan = CL.GemmClusterPlan(m, n, k, l, ks_stream=True, units_per_cluster=upc, **kw)
            assert plan.geometry.ks_stream and "ks_stream" in repr(plan)
            for _ in range(2):
                c = nvfp4rt.from_numpy(np.full((l, m, n), np.nan, np.float16))
                plan.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
                outs.append(c.numpy())
                res = reference.check(outs[-1].transpose(1, 2, 0), ref)
                assert res.ok, (kw, distribution, res.report())
        for o in outs[1:]:
            assert np.array_equal(outs[0].view(np.uint16), o.view(np.uint16))


@pytest.mark.gpu
@requires_gpu
def test_default_plan_takes_pairs_where_stream_k_was_kept():
    from nvfp4rt import driver

    if driver.Device(0).properties.sm_count < 128:
        pytest.skip("the choice is stated for 132 SMs")
    plan = CL.GemmClusterPlan(128, 4096, 7168, 1)
    assert plan.geometry.ks_stream and plan.geometry.grid <= driver.Device(0).properties.sm_count
    assert not CL.GemmClusterPlan(256, 7168, 2048, 1).geometry.ks_stream
    assert not CL.GemmClusterPlan(192, 3072, 16384, 1).geometry.ks_stream


# ============================================================== repeat calls (the plans' launch-only path)

def test_repeat_key_is_the_stream_and_the_addresses():
    """A plan relaunches as it is only when the stream and every operand address equal its last call's; an
    operand without ``ptr`` gives no key (the call takes the checked path, which names the argument)."""
    from nvfp4rt.ops.gemm_wgmma import repeat_key

    class Arr:
        def __init__(self, ptr):
            self.ptr = ptr

    s = object()
    assert repeat_key(s, Arr(16), Arr(32)) == repeat_key(s, Arr(16), Arr(32))
    assert repeat_key(s, Arr(16), Arr(32)) != repeat_key(s, Arr(16), Arr(48))
    assert repeat_key(s, Arr(16)) != repeat_key(object(), Arr(16))
    assert repeat_key(None, Arr(16), object()) is None


def _gemm_operands(m, n, k, seed=None):
    import nvfp4rt
    from nvfp4rt import data

    d = data.gemm_data(m, n, k, 1, seed=seed, distribution="wide")
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
    return d, dev


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k", [(128, 256, 512), (96, 640, 320)])  # the second pads sfb rows on every call
def test_repeat_calls_follow_new_contents_and_moved_buffers(m, n, k):
    """Back-to-back calls with the same arrays take the launch-only path: new contents of a, sfa, b and sfb written
    into the same buffers between calls are used (the decode and, where sfb rows are padded, the copy run on every
    call); a new output buffer receives the result and the old one is left alone."""
    import nvfp4rt
    from nvfp4rt import data, reference

    plan = CL.GemmClusterPlan(m, n, k, 1)
    d, dev = _gemm_operands(m, n, k)
    c1 = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
    args = lambda c: (dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)  # noqa: E731
    for _ in range(2):
        plan.run(*args(c1))
        res = reference.check(c1.numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb))
        assert res.ok, res.report()
    assert (plan._repeat is not None) == (not plan._pad_sfb)
    d2 = data.gemm_data(m, n, k, 1, seed=None, distribution="wide")  # new data into the same buffers
    for x in ("a", "b", "sfa", "sfb"):
        dev[x].copy_from_host_async(np.ascontiguousarray(d2.physical(x)).view(np.uint8))
    plan.run(*args(c1))
    res = reference.check(c1.numpy().transpose(1, 2, 0), reference.gemm_ref(d2.a, d2.b, d2.sfa, d2.sfb))
    assert res.ok, res.report()
    before = c1.numpy().copy()
    c2 = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
    plan.run(*args(c2))
    res = reference.check(c2.numpy().transpose(1, 2, 0), reference.gemm_ref(d2.a, d2.b, d2.sfa, d2.sfb))
    assert res.ok, res.report()
    assert np.array_equal(before.view(np.uint16), c1.numpy().view(np.uint16))
    c1.close()
    with pytest.raises(ValueError, match="closed"):
        plan.run(*args(c1))  # a freed output is refused, not written


# ------------------------------------------------------------------ L2 policies of the TMA loads (session 29)
_POLICY_FILES = [KERNEL, ROOT / "ptx" / "dual_gemm_nvfp4_wgmma_cluster.ptx",
                 ROOT / "ptx" / "grouped_gemm_nvfp4_wgmma_cluster.ptx"]
_B_MAPS = ("%tm_b", "%tm_sfb", "%tm_b2", "%tm_sfb2")


def _check_tma_policies(text: str) -> int:
    """Every TMA load of B or its scales carries the evict_first policy %pol_b, every A16 load the evict_last
    %pol_a16, and each producer creates its policy first.  Returns the number of loads checked."""
    code = [ln.split("//")[0].rstrip() for ln in text.split("\n")]
    for label, reg, kind in (("B_PRODUCER:", "%pol_b", "evict_first"), ("A_PRODUCER:", "%pol_a16", "evict_last")):
        i = code.index(label)
        nxt = next(ln.strip() for ln in code[i + 1:] if ln.strip())
        assert nxt == f"createpolicy.fractional.L2::{kind}.b64 {reg}, 1.0;", (label, nxt)
    loads = 0
    for i, ln in enumerate(code):
        if "cp.async.bulk.tensor" not in ln or ".global.shared::" in ln:
            continue  # not a copy, or a store (global <- shared: the grouped kernel's epilogue), which keeps no hint
        assert ln.endswith(".L2::cache_hint"), f"line {i + 1}: no L2 policy: {ln.strip()}"
        ops = code[i + 1].strip()
        tmap = re.search(r"\[(%tm_\w+),", ops).group(1)
        want = "%pol_b" if tmap in _B_MAPS else "%pol_a16" if tmap == "%tm_a16" else None
        assert want is not None, f"line {i + 2}: unexpected map {tmap}"
        assert ops.endswith(f", {want};"), f"line {i + 2}: {tmap} must use {want}: {ops}"
        loads += 1
    return loads


@pytest.mark.parametrize("path", _POLICY_FILES, ids=lambda p: p.name)
def test_every_tma_load_carries_its_l2_policy(path):
    """B and sfb are read once per call (evict_first), A16 by every tile of its m tile (evict_last): every form of
    every producer copy in the template and in the generated cluster kernels keeps the hint."""
    assert _check_tma_policies(path.read_text()) >= 4


@pytest.mark.parametrize("old,new", [
    ("[%tm_sfb, {%y, %n0, %batch}], [%bar], %pol_b;", "[%tm_sfb, {%y, %n0, %batch}], [%bar], %pol_a16;"),
    ("createpolicy.fractional.L2::evict_last.b64 %pol_a16", "createpolicy.fractional.L2::evict_first.b64 %pol_a16")])
def test_tma_policy_check_catches_a_wrong_policy(old, new):
    text = KERNEL.read_text()
    assert text.count(old) == 1
    with pytest.raises(AssertionError):
        _check_tma_policies(text.replace(old, new))


def test_tma_policy_check_catches_a_missing_hint():
    text = KERNEL.read_text()
    old = ("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint\n"
           "        [%slot_addr], [%tm_b, {%x, %n0, %batch}], [%bar], %pol_b;")
    assert text.count(old) == 1
    bare = "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n        [%slot_addr], [%tm_b, {%x, %n0, %batch}], [%bar];"
    with pytest.raises(AssertionError, match="no L2 policy"):
        _check_tma_policies(text.replace(old, bare))


# ------------------------------------------------------------------ the staging tile's stmatrix stores (session 29)
def _staging_block(text: str) -> str:
    i = text.index("    // this thread's accumulator e sits at")
    j = text.rindex("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16")
    return text[i:text.index("\n", j) + 1]


def _replay_staging(block: str, pitch: int, wg: int, wi: int) -> dict:
    """One warp's staging: run the address lines per lane (ptx_int), follow each accumulator through mul / cvt.rn.f16x2
    into the stmatrix registers, and apply stmatrix.m8n8.x4.trans (lane 8k + j holds row j's address of matrix k;
    fragment element (row l/4, column 2(l%4) + h) of lane l goes to memory row column, position row).  Returns
    {byte offset in the staging tile: (lane, accumulator)}; fails on a byte written twice."""
    lines = code_lines(block)
    first_mul = next(i for i, ln in enumerate(lines) if ln.startswith("mul.f32"))
    addr = [run(lines[:first_mul], {"%lane": lane, "%wg": wg, "%wi": wi, "%sm_c": 0})["%addr"] for lane in range(32)]
    return replay_stmatrix_trans(lines[first_mul:], addr, "%addr")


def _pitched(m_l: int, n_l: int, pitch: int) -> int:
    """sC[m_l][n_l] in the pitched staging tile."""
    return m_l * pitch + 2 * n_l


def _boxed(m_l: int, n_l: int, pitch: int) -> int:
    """sC[m_l][n_l] in a GROUPED build's TMA-store boxes: box n_l/64 (16 KB), row m_l of 128 bytes, 16-byte chunk
    (n_l%64)/8 at chunk ^ (m_l % 8) (the 128B swizzle of the c map), 2 bytes per column."""
    assert pitch == 128
    chunk = ((n_l % 64) // 8) ^ (m_l % 8)
    return (n_l // 64) * 16384 + m_l * 128 + 16 * chunk + 2 * (n_l % 8)


def _check_staging(block: str, pitch: int, wg: int, wi: int, where=_pitched) -> None:
    """Every accumulator e of every lane of warp (wg, wi) at sC[m_l][n_l], once."""
    got = _replay_staging(block, pitch, wg, wi)
    assert len(got) == 32 * 64
    for byte, (lane, e) in got.items():
        g, t = lane // 4, lane % 4
        m_l, n_l = 8 * (e // 4) + 2 * t + e % 2, 64 * wg + 16 * wi + g + 8 * ((e // 2) % 2)
        assert byte == where(m_l, n_l, pitch), (wg, wi, lane, e, byte)


def test_staging_stores_put_every_accumulator_at_its_m_and_n():
    """The stmatrix staging, replayed lane by lane for every warp: accumulator e of lane l (fragment row g = l/4,
    t = l%4) lands at sC[m_l][n_l], m_l = 8*(e/4) + 2t + e%2, n_l = 64wg + 16wi + g + 8*((e/2)%2), each once."""
    for consumer_wgs in (2, 3):
        c = CL.kernel_constants(2 if consumer_wgs == 3 else CL.DEFAULT_CLUSTER, consumer_wgs=consumer_wgs)
        pitch = c["C_PITCH"]
        block = _staging_block(render(KERNEL.read_text(), "sm_90a", c)).replace("{{C_PITCH}}", str(pitch))
        for wg in range(consumer_wgs):
            for wi in range(4):
                _check_staging(block, pitch, wg, wi)


def test_grouped_staging_fills_each_warpgroups_swizzled_box():
    """GROUPED builds stage for the TMA store: accumulator e of every lane of every warp lands at its (m_l, n_l) in
    the 128B-swizzled box of its warpgroup's 64 columns, each once (two boxes of 128 rows x 128 bytes)."""
    c = CL.kernel_constants(2, 8, grouped=True)
    assert c["STG_PITCH"] == CL.STAGING_BOX_ROW == 128
    text = CL.kernel_text(c)
    block = _staging_block(render(text, "sm_90a", c))
    assert "%box" in block and "xor.b32 %y, %y, %tmp;" in block
    seen = set()
    for wg in range(2):
        for wi in range(4):
            got = _replay_staging(block, 128, wg, wi)
            _check_staging(block, 128, wg, wi, _boxed)
            seen |= set(got)
    assert seen == {b for b in range(2 * 16384) if b % 2 == 0}  # the two boxes, every fp16 once
    # a swizzle left out is caught
    bad = block.replace("xor.b32 %y, %y, %tmp;", "xor.b32 %y, %y, 0;")
    with pytest.raises(AssertionError):
        _check_staging(bad, 128, 0, 1, _boxed)


def _copy_out_address(text: str, ct: int) -> int:
    """The shared address the GROUPED copy-out's fast path reads first for consumer thread ``ct``."""
    i = text.index("    // ---- copy-out, fast path")
    j = text.index("    cvt.u64.u32 %off64, %batch;", i)
    lines = [re.sub(r"(\d+)/(\d+)", lambda mo: str(int(mo[1]) // int(mo[2])), ln) for ln in code_lines(text[i:j])
             if not ln.startswith(("setp", "@", "and.pred"))]
    return run(lines, {"%ct": ct, "%sm_c": 0, "%n0": 0, "%n": 128, "%m0": 0, "%p_vec": 1})["%addr"]


def test_grouped_copy_out_reads_the_swizzled_boxes():
    """Without a c map the consumers copy the tile out: chunk ct of the fast path (row ct/16, 8-column group ct%16)
    is read where the staging put it, and its 16-row steps keep the swizzle (row % 8 unchanged)."""
    c = CL.kernel_constants(2, 8, grouped=True)
    text = render(CL.kernel_text(c), "sm_90a", c)
    fast = text[text.index("OUT_FAST:"):text.index("OUT_LOOP:")]
    assert "add.u32 %addr, %addr, 16*128;" in fast or "add.u32 %addr, %addr, 2048;" in fast
    for ct in range(256):
        row, col8 = ct // 16, ct % 16
        assert _copy_out_address(text, ct) == _boxed(row, 8 * col8, 128), ct
    unswizzled = text.replace("xor.b32 %tmp, %tmp, %tmp2;", "xor.b32 %tmp, %tmp, 0;")
    assert _copy_out_address(unswizzled, 17) != _boxed(1, 8, 128)


@pytest.mark.parametrize("old,new", [("shr.u32 %tmp2, %lane, 4;", "shr.u32 %tmp2, %lane, 3;"),
                                     ("cvt.rn.f16x2.f32 %x, %v1, %v0;", "cvt.rn.f16x2.f32 %x, %v0, %v1;")])
def test_staging_replay_catches_a_wrong_row_or_half(old, new):
    c = CL.kernel_constants()
    block = _staging_block(render(KERNEL.read_text(), "sm_90a", c))
    assert old in block
    block = block.replace(old, new, 1)
    with pytest.raises(AssertionError):
        _check_staging(block, c["C_PITCH"], 0, 0)
