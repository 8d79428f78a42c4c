"""Session 23 timing-only probes of the GEMM's consumer loop (wrong results allowed; never committed).
Applied to the rendered text (WG_WAIT = 1, A_UNIT = 1).
  nowaitA: no afull waits in the consumers (the A16 producer still waits for aempty, so nothing is overwritten);
  nowaitF: no full[slot] wait at a unit's top;
  constsc: the scales are a constant half2 (no prmt/cvt chain before the multiplies);
  nomul:   no scale multiplies (session 12's probe);
  norel:   the aempty release arrives are issued every sub-step unconditionally by every lane 0 (no and.pred) - control."""
import re

CONS_START = "UNIT_LOOP:"
CONS_END = "    // ================================================================== segment epilogue"


def _loop(t):
    i, j = t.index(CONS_START), t.index(CONS_END)
    return t[:i], t[i:j], t[j:]


def nowaitA(t):
    a, b, c = _loop(t)
    pat = re.compile(r"(C_WAIT_A\d):\n    mbarrier\.try_wait\.parity\.shared::cta\.b64 %p_ready, \[%bar\], %aph;\n    @!%p_ready bra C_WAIT_A\d;\n")
    b, n = pat.subn(r"\1:\n", b)
    assert n == 4, n
    return a + b + c


def nowaitF(t):
    a, b, c = _loop(t)
    old = "C_WAIT_FULL:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %phase;\n    @!%p_ready bra C_WAIT_FULL;\n"
    assert b.count(old) == 1
    b = b.replace(old, "C_WAIT_FULL:\n")
    return a + b + c


def constsc(t):
    a, b, c = _loop(t)
    b, n = re.subn(r"cvt\.rn\.f16x2\.e4m3x2 (%sq\d), %sb\d;", r"mov.b32 \1, 0x3C003C00;", b)
    assert n >= 8, n
    return a + b + c


def nomul(t):
    a, b, c = _loop(t)
    b, n = re.subn(r"    mul\.rn\.f16x2 (%[xyzw][ab]\d), \1, %sw\d;\n", "", b)
    assert n == 64, n
    return a + b + c


PROBES = {"nowaitA": nowaitA, "nowaitF": nowaitF, "constsc": constsc, "nomul": nomul,
          "nowaitAF": lambda t: nowaitF(nowaitA(t)), "constsc_nowaitAF": lambda t: constsc(nowaitF(nowaitA(t)))}


def nodec(t):
    """the integer decode replaced by one xor per fragment register (the multiplies stay)"""
    a, b, c = _loop(t)
    b, n = re.subn(r"    and\.b32 (%[xyzw][ab]\d), %xr, 0x8E008E00;\n", r"    xor.b32 \1, %w0, %w1;\n", b)
    assert n == 64, n
    return a + b + c


PROBES.update({"nodec": nodec, "nodec_nomul": lambda t: nomul(nodec(t))})


_AHEAD = re.compile(r"(    wgmma\.wait_group\.sync\.aligned 1;[^\n]*\n(?:(?!    shf\.l\.wrap\.b32 %xr, %w0, %w0, 3;)[^\n]*\n)*?)"
                    r"((?:    (?:shf|lop3|shl|and|mul)\.[^\n]*\n){30})")


def ahead(t):
    """each piece's decode (integer part and multiplies) before its wgmma.wait_group instead of after it (exact)"""
    a, b, c = _loop(t)
    b, n = _AHEAD.subn(r"\2\1", b)
    assert n == 8, n
    return a + b + c


PROBES.update({"ahead": ahead})


_DEC = re.compile(r"((?:    (?:shf|lop3|shl|and|mul)\.[^\n]*\n){30})")
_WAIT_THEN = re.compile(r"(    wgmma\.wait_group\.sync\.aligned 1;[^\n]*\n(?:(?!    shf\.l\.wrap\.b32 %xr, %w0, %w0, 3;)[^\n]*\n)*?)"
                        r"((?:    (?:shf|lop3|shl|and|mul)\.[^\n]*\n){30})")


def _temps(t, with_mul=True, branch=False):
    """each piece's decode into temporaries %tq0..7 before the wait (integer part only unless with_mul), moved (or
    multiplied, without with_mul) into the fragment set after it; branch: a never-taken uniform branch after the
    hoisted block, so the scheduler keeps it above the wait"""
    a, b, c = _loop(t)
    a = a.replace("    .reg .b32   %w0, %w1, %sw0, %sw1;\n",
                  "    .reg .b32   %w0, %w1, %sw0, %sw1, %tq<8>;\n    .reg .pred %p_never;\n", 1)
    a = a.replace("    ld.param.u32 %m, [m];\n", "    ld.param.u32 %m, [m];\n    setp.eq.u32 %p_never, %m, 0xFFFFFFFF;\n", 1)
    count = [0]

    def rep(mt):
        wait, dec = mt.group(1), mt.group(2)
        lines = dec.splitlines(keepends=True)
        regs = []
        for ln in lines:
            mm = re.match(r"    and\.b32 (%[xyzw][ab]\d), %xr, 0x8E008E00;", ln)
            if mm:
                regs.append(mm.group(1))
        assert len(regs) == 8
        tmap = {r: f"%tq{i}" for i, r in enumerate(regs)}
        hoist, after = [], []
        for ln in lines:
            if ln.startswith("    mul.rn.f16x2"):
                mm = re.match(r"    mul\.rn\.f16x2 (%\w+), \1, (%sw\d);", ln)
                r, s = mm.group(1), mm.group(2)
                if with_mul:
                    hoist.append(f"    mul.rn.f16x2 {tmap[r]}, {tmap[r]}, {s};\n")
                else:
                    after.append(f"    mul.rn.f16x2 {r}, {tmap[r]}, {s};\n")
            else:
                for r, q in tmap.items():
                    ln = ln.replace(r + ",", q + ",")
                hoist.append(ln)
        if with_mul:
            after = [f"    mov.b32 {r}, {q};\n" for r, q in tmap.items()]
        count[0] += 1
        br = f"    @%p_never bra.uni EXIT;\n" if branch else ""
        return "".join(hoist) + br + wait + "".join(after)
    b = _WAIT_THEN.sub(rep, b)
    assert count[0] == 8, count
    return a + b + c


PROBES.update({"tmul": lambda t: _temps(t, True, False), "tmul_br": lambda t: _temps(t, True, True),
               "tint_br": lambda t: _temps(t, False, True)})


def ahead2(t, depth=2):
    """ahead(), plus a wgmma.wait_group 2 (no stall: at most two groups are pending there) before each hoisted decode,
    so that a wait separates the previous wgmma from the fragment writes, as ptxas wants"""
    a, b, c = _loop(t)
    b, n = _AHEAD.subn(r"    wgmma.wait_group.sync.aligned %d;\n\2\1" % depth, b)
    assert n == 8, n
    return a + b + c


PROBES.update({"ahead2": ahead2})


def ahead_some(t, pieces):
    a, b, c = _loop(t)
    k = [0]

    def rep(mt):
        i = k[0]; k[0] += 1
        return mt.group(2) + mt.group(1) if i in pieces else mt.group(0)
    b = _AHEAD.sub(rep, b)
    assert k[0] == 8
    return a + b + c


PROBES.update({"ahead17": lambda t: ahead_some(t, set(range(1, 8)))})


PROBES.update({"a06": lambda t: ahead_some(t, set(range(0, 7))), "a27": lambda t: ahead_some(t, set(range(2, 8))),
               "a16": lambda t: ahead_some(t, set(range(1, 7)))})


def clk(t):
    """cycle accounting inside the consumer loop (timing probe): per consumer warp, lane 0 writes to p_ws + 64 *
    (8 * ctaid.x + consumer warp): {loop cycles, DEPBAR waits}, {DEPBAR return -> wgmma.fence (decode, afull waits),
    afull waits}, {full waits, units}.  For K-split builds (one segment per CTA)."""
    a, b, c = _loop(t)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)",
               r"\1    .reg .b64 %k0, %k1, %k2, %k3, %sdep, %spre, %saf, %sfull, %st0, %sunits;\n", a, count=1)
    assert a.count("\nSEG_LOOP:\n") == 1
    a = a.replace("\nSEG_LOOP:\n", "\n    mov.u64 %sdep, 0;\n    mov.u64 %spre, 0;\n    mov.u64 %saf, 0;\n    mov.u64 %sfull, 0;\n"
                  "    mov.u64 %sunits, 0;\n    mov.u64 %st0, %clock64;\nSEG_LOOP:\n", 1)
    old = "C_WAIT_FULL:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %phase;\n    @!%p_ready bra C_WAIT_FULL;\n"
    assert b.count(old) == 1
    b = b.replace(old, "    mov.u64 %k3, %clock64;\n" + old + "    mov.u64 %k2, %clock64;\n    sub.s64 %k2, %k2, %k3;\n"
                  "    add.s64 %sfull, %sfull, %k2;\n    add.s64 %sunits, %sunits, 1;\n")
    n0 = b.count("    wgmma.wait_group.sync.aligned 1;")
    b = re.sub(r"    wgmma\.wait_group\.sync\.aligned 1;[^\n]*\n",
               "    mov.u64 %k0, %clock64;\n    wgmma.wait_group.sync.aligned 1;\n    mov.u64 %k1, %clock64;\n"
               "    sub.s64 %k0, %k1, %k0;\n    add.s64 %sdep, %sdep, %k0;\n", b)
    b, n1 = re.subn(r"    wgmma\.fence\.sync\.aligned;\n",
                    "    mov.u64 %k2, %clock64;\n    sub.s64 %k2, %k2, %k1;\n    add.s64 %spre, %spre, %k2;\n"
                    "    wgmma.fence.sync.aligned;\n", b)
    b, n2 = re.subn(r"(C_WAIT_A\d:\n    mbarrier\.try_wait[^\n]*\n    @!%p_ready bra C_WAIT_A\d;\n)",
                    r"    mov.u64 %k3, %clock64;\n\1    mov.u64 %k2, %clock64;\n    sub.s64 %k2, %k2, %k3;\n    add.s64 %saf, %saf, %k2;\n", b)
    assert n0 == 8 and n1 == 8 and n2 == 4, (n0, n1, n2)
    marker = "    // ================================================================== segment epilogue\n"
    assert c.startswith(marker)
    c = marker + ("    mov.u64 %k0, %clock64;\n    sub.s64 %st0, %k0, %st0;\n"
                  "    @!%p_l0 bra CLK_DONE;\n    mov.u32 %tmp, %ctaid.x;\n    shr.u32 %tmp2, %ct, 5;\n    mad.lo.u32 %tmp, %tmp, 8, %tmp2;\n"
                  "    ld.param.u64 %k1, [p_ws];\n    mul.wide.u32 %k2, %tmp, 64;\n    add.s64 %k1, %k1, %k2;\n"
                  "    st.global.v2.u64 [%k1], {%st0, %sdep};\n    st.global.v2.u64 [%k1+16], {%spre, %saf};\n"
                  "    st.global.v2.u64 [%k1+32], {%sfull, %sunits};\nCLK_DONE:\n") + c[len(marker):]
    return a + b + c


PROBES.update({"clk": clk, "clk_nodec": lambda t: clk(nodec(t)), "clk_a27": lambda t: clk(ahead_some(t, set(range(2, 8)))),
               "clk_constsc": lambda t: clk(constsc(t))})


def early(t, subs=(0, 1, 2, 3), kind="test_wait"):
    """each sub-step's afull barrier tested (mbarrier.test_wait, non-blocking) about two pieces before its wait; the
    wait's loop is skipped when that test already saw the phase complete (exact)"""
    a, b, c = _loop(t)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)", r"\1    .reg .b32 %eb;\n    .reg .pred %p_ea<4>;\n", a, count=1)
    for s in subs:
        where = f"    // ---- prefetch piece {max(2 * s - 1, 0)}:"
        assert b.count(where) == 1, where
        b = b.replace(where, f"    add.u32 %eb, %abar, {8 * s};\n"
                      f"    mbarrier.{kind}.parity.shared::cta.b64 %p_ea{s}, [%eb], %aph;\n" + where, 1)
        old = (f"C_WAIT_A{s}:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %aph;\n"
               f"    @!%p_ready bra C_WAIT_A{s};\n")
        assert b.count(old) == 1
        b = b.replace(old, f"    @%p_ea{s} bra C_AOK{s};\n" + old + f"C_AOK{s}:\n")
    return a + b + c


PROBES.update({"early": early, "early_try": lambda t: early(t, kind="try_wait"), "early123": lambda t: early(t, (1, 2, 3))})

PROBES.update({"clk_early": lambda t: clk(early(t))})


def noA16(t):
    """timing probe: after the first lap of the a16 ring, the A16 producer arrives on afull without loading"""
    t = t.replace("    .reg .b32   %w0, %w1, %sw0, %sw1;\n",
                  "    .reg .b32   %w0, %w1, %sw0, %sw1, %nacnt, %nbcnt;\n    .reg .pred %p_lap1, %p_blap1;\n", 1)
    old = "    mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], 16384;  // all ranks' slices land here\n"
    assert t.count(old) == 1
    t = t.replace(old, "    setp.lt.u32 %p_lap1, %nacnt, 8;\n    add.u32 %nacnt, %nacnt, 1;\n"
                  "    @!%p_lap1 mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];\n"
                  "    @%p_lap1 mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], 16384;\n")
    t, n = re.subn(r"\n    cp\.async\.bulk\.tensor\.3d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes\n        \[%addr\], \[%tm_a16,",
                   "\n    @%p_lap1 cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n        [%addr], [%tm_a16,", t)
    assert n == 1, n
    i = t.index("A_PRODUCER:\n")
    t = t[:i] + "A_PRODUCER:\n    mov.u32 %nacnt, 0;\n" + t[i + len("A_PRODUCER:\n"):]
    return t


def noB(t):
    """timing probe: after the first lap of the B ring, the B producer arrives on full without loading"""
    if "%nbcnt" not in t:
        t = t.replace("    .reg .b32   %w0, %w1, %sw0, %sw1;\n",
                      "    .reg .b32   %w0, %w1, %sw0, %sw1, %nacnt, %nbcnt;\n    .reg .pred %p_lap1, %p_blap1;\n", 1)
    old = "    mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], 18432;\n"
    assert t.count(old) == 1, t.count(old)
    t = t.replace(old, "    setp.lt.u32 %p_blap1, %nbcnt, %S;\n    add.u32 %nbcnt, %nbcnt, 1;\n"
                  "    @!%p_blap1 mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];\n"
                  "    @%p_blap1 mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], 18432;\n")
    t, n = re.subn(r"\n    cp\.async\.bulk\.tensor\.3d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes\n        \[(%slot_addr|%addr)\], \[(%tm_b|%tm_sfb),",
                   r"\n    @%p_blap1 cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n        [\1], [\2,", t)
    assert n == 2, n
    i = t.index("B_PRODUCER:\n")
    t = t[:i] + "B_PRODUCER:\n    mov.u32 %nbcnt, 0;\n" + t[i + len("B_PRODUCER:\n"):]
    return t


PROBES.update({"noA16": noA16, "noB": noB, "noAB": lambda t: noB(noA16(t)), "clk_noA16": lambda t: clk(noA16(t)),
               "clk_noAB": lambda t: clk(noB(noA16(t))), "clk_noB": lambda t: clk(noB(t)),
               "nodec_noAB": lambda t: nodec(noB(noA16(t)))})


def wait0(t):
    """every wgmma.wait_group 1 of the unit loop becomes wait_group 0 (exact): each warpgroup decodes with none of its
    own wgmmas in flight"""
    a, b, c = _loop(t)
    b, n = re.subn(r"    wgmma\.wait_group\.sync\.aligned 1;", "    wgmma.wait_group.sync.aligned 0;", b)
    assert n == 8, n
    return a + b + c


PROBES.update({"wait0": wait0, "clk_wait0": lambda t: clk(wait0(t)) if False else None})


def desc64(t):
    """each sub-step's 64-bit descriptor formed once (mov.b64 from dlo and desc_hi); each wgmma's is a 64-bit add of
    its k16 offset (exact: the start-address field cannot carry)"""
    a, b, c = _loop(t)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)", r"\1    .reg .b64 %dbase;\n", a, count=1)
    b, n1 = re.subn(r"(    add\.u32 %dlo, %dlou, \d+;[^\n]*\n)", r"\1    mov.b64 %dbase, {%dlo, %desc_hi};\n", b)
    b, n2 = re.subn(r"    add\.u32 %x, %dlo, (\d+);[^\n]*\n    mov\.b64 %desc, \{%x, %desc_hi\};\n",
                    r"    add.s64 %desc, %dbase, \1;\n", b)
    assert n1 == 4 and n2 == 16, (n1, n2)
    return a + b + c


PROBES.update({"desc64": desc64})


def _strip1(t):
    return constsc(nodec(noB(noA16(t))))


PROBES.update({"strip1": _strip1, "strip2": lambda t: desc64(early(_strip1(t))),
               "clk_strip2": lambda t: clk(desc64(early(_strip1(t))))})


_LD = re.compile(r"    xor\.b32 %addr, %bslot, (\d+);[^\n]*\n    ld\.shared\.b32 %w0, \[%addr\];\n    ld\.shared\.b32 %w1, \[%addr\+1024\];\n")


def pf2(t):
    """each piece's two B words loaded one piece earlier than now (two pieces ahead of their decode), odd pieces into a
    second register pair %v0, %v1 (exact)"""
    a, b, c = _loop(t)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)", r"\1    .reg .b32 %pw0, %pw1;\n", a, count=1)
    loads = list(_LD.finditer(b))
    assert len(loads) == 8, len(loads)
    offs = [int(m.group(1)) for m in loads]
    assert offs == [16 * i for i in range(8)], offs

    def ld(pp):
        r0, r1 = ("%w0", "%w1") if pp % 2 == 0 else ("%pw0", "%pw1")
        return (f"    xor.b32 %addr, %bslot, {16 * pp};\n    ld.shared.b32 {r0}, [%addr];\n"
                f"    ld.shared.b32 {r1}, [%addr+1024];\n")
    # decode blocks: rename the words of odd pieces
    decs = list(_DEC.finditer(b))
    assert len(decs) == 8, len(decs)
    out, pos = [], 0
    events = sorted([(m.start(), m.end(), "ld", i) for i, m in enumerate(loads)] +
                    [(m.start(), m.end(), "dec", i) for i, m in enumerate(decs)])
    for s0, e0, kind, i in events:
        out.append(b[pos:s0])
        if kind == "ld":
            out.append(ld(0) + ld(1) if i == 0 else (ld(i + 1) if i + 1 < 8 else ""))
        else:
            blk = b[s0:e0]
            if i % 2 == 1:
                blk = blk.replace("%w0", "%pw0").replace("%w1", "%pw1")
            out.append(blk)
        pos = e0
    out.append(b[pos:])
    return a + "".join(out) + c


PROBES.update({"pf2": pf2, "clk_pf2": lambda t: clk(pf2(t)), "strip2_pf2": lambda t: desc64(early(_strip1(pf2(t))))})


# ---------------------------------------------------------------- session 26
def fullearly(t, where=4):
    """the next unit's B-stage full barrier waited for in the middle of this unit (before piece `where`'s prefetch)
    instead of at the next unit's top (exact: the producer fills unit u+1 once unit u+1-S is released)"""
    a, b, c = _loop(t)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)",
               r"\1    .reg .b32 %nslot, %nphase, %fbar, %u1;\n    .reg .pred %p_fok, %p_nw;\n", a, count=1)
    assert a.endswith("\n")
    a = a + "    setp.ne.u32 %p_fok, 0, 0;\n"
    old = "C_WAIT_FULL:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %phase;\n    @!%p_ready bra C_WAIT_FULL;\n"
    assert b.count(old) == 1
    b = b.replace(old, "    @%p_fok bra C_FULL_OK;\n" + old + "C_FULL_OK:\n", 1)
    mark = f"    // ---- prefetch piece {where}:"
    assert b.count(mark) == 1, mark
    b = b.replace(mark, (
        "    add.u32 %nslot, %slot, 1;\n    setp.eq.u32 %p_nw, %nslot, %S;\n    @%p_nw mov.u32 %nslot, 0;\n"
        "    selp.b32 %nphase, 1, 0, %p_nw;\n    xor.b32 %nphase, %nphase, %phase;\n"
        "    add.u32 %u1, %u, 1;\n    setp.lt.u32 %p_fok, %u1, %seg_end;\n"
        "    shl.b32 %fbar, %nslot, 3;\n    add.u32 %fbar, %fbar, %sm_full;\n"
        "    @!%p_fok bra C_FULL_EARLY_DONE;\nC_FULL_EARLY:\n"
        "    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%fbar], %nphase;\n    @!%p_ready bra C_FULL_EARLY;\n"
        "C_FULL_EARLY_DONE:\n") + mark, 1)
    return a + b + c


PROBES.update({"fullearly": fullearly, "fullearly6": lambda t: fullearly(t, 6), "fullearly2": lambda t: fullearly(t, 2),
               "clk_fullearly": lambda t: clk(fullearly(t)),
               "strip2_fe": lambda t: fullearly(desc64(early(_strip1(t)))),
               "clk_strip2_fe": lambda t: clk(fullearly(desc64(early(_strip1(t)))))})


def topearly(t, where=4):
    """fullearly, and the next unit's scale bytes loaded right after that early wait into a second register set
    (moved into %sc0..7 at the unit top), so the unit top has no shared-memory load before piece 0's multiplies (exact)"""
    t = fullearly(t, where)
    a, b, c = _loop(t)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)",
               r"\1    .reg .b32 %nsc<8>, %naddr;\n", a, count=1)
    old = ("    and.b32 %addr, %sfslot, -16;\n    ld.shared.v4.b32 {%sc0, %sc1, %sc2, %sc3}, [%addr];\n"
           "    ld.shared.v4.b32 {%sc4, %sc5, %sc6, %sc7}, [%addr+128];\n")
    assert b.count(old) == 1
    new = ("    and.b32 %addr, %sfslot, -16;\n    @!%p_fok ld.shared.v4.b32 {%sc0, %sc1, %sc2, %sc3}, [%addr];\n"
           "    @!%p_fok ld.shared.v4.b32 {%sc4, %sc5, %sc6, %sc7}, [%addr+128];\n"
           + "".join(f"    @%p_fok mov.b32 %sc{i}, %nsc{i};\n" for i in range(8)))
    b = b.replace(old, new, 1)
    old = "C_FULL_EARLY_DONE:\n"
    assert b.count(old) == 1
    b = b.replace(old, (
        "    mad.lo.u32 %naddr, %nslot, 18432, %sm;\n    add.u32 %naddr, %naddr, %sfB;\n    and.b32 %naddr, %naddr, -16;\n"
        "    ld.shared.v4.b32 {%nsc0, %nsc1, %nsc2, %nsc3}, [%naddr];\n"
        "    ld.shared.v4.b32 {%nsc4, %nsc5, %nsc6, %nsc7}, [%naddr+128];\n") + old, 1)
    return t if False else a + b + c


PROBES.update({"topearly": topearly, "clk_topearly": lambda t: clk(topearly(t)),
               "strip2_te": lambda t: topearly(desc64(early(_strip1(t)))),
               "clk_strip2_te": lambda t: clk(topearly(desc64(early(_strip1(t)))))})


def nowait_after_lap(t):
    """timing probe (on top of noA16/noB): after the first lap the producers exit and the consumers skip their full
    and afull waits (the releases stay)"""
    a, b, c = _loop(t)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)",
               r"\1    .reg .b32 %nbu;\n    .reg .pred %p_lapB, %p_lapA, %p_px;\n", a, count=1)
    assert a.count("\nSEG_LOOP:\n") == 1
    a = a.replace("\nSEG_LOOP:\n", "\n    mov.u32 %nbu, 0;\nSEG_LOOP:\n", 1)
    assert b.startswith("UNIT_LOOP:\n")
    b = ("UNIT_LOOP:\n    setp.lt.u32 %p_lapB, %nbu, %S;\n    setp.lt.u32 %p_lapA, %nbu, 2;\n    add.u32 %nbu, %nbu, 1;\n"
         + b[len("UNIT_LOOP:\n"):])
    old = "C_WAIT_FULL:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %phase;\n    @!%p_ready bra C_WAIT_FULL;\n"
    assert b.count(old) == 1
    b = b.replace(old, "    @!%p_lapB bra C_FULL_SKIP;\n" + old + "C_FULL_SKIP:\n", 1)
    for s in range(4):
        old = f"C_WAIT_A{s}:\n"
        assert b.count(old) == 1
        b = b.replace(old, f"    @!%p_lapA bra C_ASKIP{s};\n" + old, 1)
        old = f"    @!%p_ready bra C_WAIT_A{s};\n"
        assert b.count(old) == 1
        b = b.replace(old, old + f"C_ASKIP{s}:\n", 1)
    t = a + b + c
    assert t.count("B_LOOP:\n") == 1 and t.count("A_SUBSTEP:\n") == 1
    t = t.replace("B_LOOP:\n", "B_LOOP:\n    setp.ge.u32 %p_px, %nbcnt, %S;\n    @%p_px bra EXIT;\n", 1)
    t = t.replace("A_SUBSTEP:\n", "A_SUBSTEP:\n    setp.ge.u32 %p_px, %nacnt, 8;\n    @%p_px bra EXIT;\n", 1)
    return t


def norel(t):
    """timing probe: no aempty or empty release arrives in the unit loop"""
    a, b, c = _loop(t)
    b, n1 = re.subn(r"    @%p_rel mbarrier\.arrive\.shared::cta\.b64 %mbstate, \[%bar\];\n", "", b)
    b, n2 = re.subn(r"    @%p_lead mbarrier\.arrive\.shared::cta\.b64 %mbstate, \[%bar\];\n", "", b)
    assert n1 == 4 and n2 == 1, (n1, n2)
    return a + b + c


def noldB(t):
    """timing probe: the B words come from a register add instead of ld.shared"""
    a, b, c = _loop(t)
    b, n = re.subn(r"    ld\.shared\.b32 %w0, \[%addr\];\n    ld\.shared\.b32 %w1, \[%addr\+1024\];\n",
                   "    add.u32 %w0, %w0, %addr;\n    add.u32 %w1, %w1, %addr;\n", b)
    assert n == 8, n
    return a + b + c


def _strip2(t):
    return desc64(early(_strip1(t)))


PROBES.update({"strip3": lambda t: nowait_after_lap(_strip2(t)),
               "strip4": lambda t: norel(nowait_after_lap(_strip2(t))),
               "strip5": lambda t: noldB(norel(nowait_after_lap(_strip2(t)))),
               "clk_strip3": lambda t: clk(nowait_after_lap(_strip2(t))),
               "clk_strip4": lambda t: clk(norel(nowait_after_lap(_strip2(t)))),
               "clk_strip5": lambda t: clk(noldB(norel(nowait_after_lap(_strip2(t)))))})


PROBES.update({"nobar": lambda t: nowait_after_lap(noB(noA16(t))),
               "nobar_norel": lambda t: norel(nowait_after_lap(noB(noA16(t)))),
               "clk_nobar": lambda t: clk(nowait_after_lap(noB(noA16(t)))),
               "clk_nobar_norel": lambda t: clk(norel(nowait_after_lap(noB(noA16(t)))))})


_LDPAIR = "    ld.shared.b32 %w0, [%addr];\n    ld.shared.b32 %w1, [%addr+1024];\n"


def early_post(t, d=1, kind="test_wait"):
    """each sub-step's afull barrier tested (non-blocking) right after the B-word loads of piece max(2s-d, 0), so those
    loads do not queue behind the barrier check; the wait loop is skipped when the test saw the phase complete (exact)"""
    a, b, c = _loop(t)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)", r"\1    .reg .b32 %eb;\n    .reg .pred %p_ea<4>;\n", a, count=1)
    for s in range(4):
        pp = max(2 * s - d, 0)
        i = b.index(f"    // ---- prefetch piece {pp}:")
        j = b.index(_LDPAIR, i) + len(_LDPAIR)
        b = b[:j] + f"    add.u32 %eb, %abar, {8 * s};\n    mbarrier.{kind}.parity.shared::cta.b64 %p_ea{s}, [%eb], %aph;\n" + b[j:]
        old = (f"C_WAIT_A{s}:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %aph;\n"
               f"    @!%p_ready bra C_WAIT_A{s};\n")
        assert b.count(old) == 1
        b = b.replace(old, f"    @%p_ea{s} bra C_AOK{s};\n" + old + f"C_AOK{s}:\n")
    return a + b + c


def full_post(t, piece=7, after_loads=True):
    """the next unit's full barrier tested (non-blocking) right after piece `piece`'s B-word loads; the unit top skips
    its wait loop when that test saw the stage full (exact)"""
    a, b, c = _loop(t)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)",
               r"\1    .reg .b32 %nslot, %nphase, %fbar;\n    .reg .pred %p_fok, %p_nw;\n", a, count=1)
    a = a + "    setp.ne.u32 %p_fok, 0, 0;\n"
    old = "C_WAIT_FULL:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %phase;\n    @!%p_ready bra C_WAIT_FULL;\n"
    assert b.count(old) == 1
    b = b.replace(old, "    @%p_fok bra C_FULL_OK;\n" + old + "C_FULL_OK:\n", 1)
    i = b.index(f"    // ---- prefetch piece {piece}:")
    j = b.index(_LDPAIR, i) + len(_LDPAIR) if after_loads else i
    b = b[:j] + ("    add.u32 %nslot, %slot, 1;\n    setp.eq.u32 %p_nw, %nslot, %S;\n    @%p_nw mov.u32 %nslot, 0;\n"
                 "    selp.b32 %nphase, 1, 0, %p_nw;\n    xor.b32 %nphase, %nphase, %phase;\n"
                 "    shl.b32 %fbar, %nslot, 3;\n    add.u32 %fbar, %fbar, %sm_full;\n"
                 "    mbarrier.test_wait.parity.shared::cta.b64 %p_fok, [%fbar], %nphase;\n") + b[j:]
    return a + b + c


def w1(t):
    """timing probe (exact in practice): only warp 0 of each consumer warpgroup waits on the afull barriers"""
    a, b, c = _loop(t)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)", r"\1    .reg .pred %p_nw0;\n", a, count=1)
    a = a + "    setp.ne.u32 %p_nw0, %wi, 0;\n"
    for s in range(4):
        old = f"C_WAIT_A{s}:\n"
        assert b.count(old) == 1
        b = b.replace(old, f"    @%p_nw0 bra C_W1_{s};\n" + old, 1)
        old = f"    @!%p_ready bra C_WAIT_A{s};\n"
        b = b.replace(old, old + f"C_W1_{s}:\n", 1)
    return a + b + c


PROBES.update({"early": early, "early_post": early_post, "early_post2": lambda t: early_post(t, 2),
               "full_post": full_post, "ep_fp": lambda t: full_post(early_post(t)), "w1": w1,
               "clk_early_post": lambda t: clk(early_post(t)), "clk_ep_fp": lambda t: clk(full_post(early_post(t))),
               "clk_w1": lambda t: clk(w1(t)),
               "clk_nobarC0": lambda t: clk(nowait_after_lap(noB(noA16(t))).replace("    @%p_px bra EXIT;\n", "", 0))})


def prod_wait(t, form):
    """the producers' empty/aempty waits: 'hint' = try_wait with a 1 ms suspend-time hint (the thread sleeps until
    the phase completes; exact); 'spin' = test_wait polled in a tight loop (exact; more polling)"""
    n = 0
    for lab in ("B_WAIT_EMPTY", "A_WAIT_EMPTY"):
        old = (f"{lab}:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %par;\n"
               f"    @!%p_ready bra {lab};\n")
        assert t.count(old) == 1, lab
        if form == "hint":
            new = (f"{lab}:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %par, 1000000;\n"
                   f"    @!%p_ready bra {lab};\n")
        else:
            new = (f"{lab}:\n    mbarrier.test_wait.parity.shared::cta.b64 %p_ready, [%bar], %par;\n"
                   f"    @!%p_ready bra {lab};\n")
        t = t.replace(old, new, 1)
    return t


def cons_hint(t):
    """the consumers' full and afull waits with a 1 ms suspend-time hint (exact)"""
    a, b, c = _loop(t)
    b, n = re.subn(r"(    mbarrier\.try_wait\.parity\.shared::cta\.b64 %p_ready, \[%bar\], (?:%phase|%aph));\n",
                   r"\1, 1000000;\n", b)
    assert n == 5, n
    return a + b + c


PROBES.update({"nobarC": lambda t: nowait_after_lap(noB(noA16(t))).replace("    @%p_px bra EXIT;\n", ""),
               "noAB": lambda t: noB(noA16(t)),
               "phint": lambda t: prod_wait(t, "hint"), "pspin": lambda t: prod_wait(t, "spin"),
               "chint": cons_hint, "pchint": lambda t: cons_hint(prod_wait(t, "hint")),
               "noAB_phint": lambda t: prod_wait(noB(noA16(t)), "hint"),
               "noAB_pspin": lambda t: prod_wait(noB(noA16(t)), "spin")})


def dummy_tests(t, afull=True, full=True):
    """timing probe (on nobar): consumers issue a test_wait at each former wait (afull per sub-step, full per unit)
    whose result only ORs a bit into a B word, so it must execute but never blocks"""
    a, b, c = _loop(t)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)", r"\1    .reg .b32 %tw, %twacc;\n    .reg .pred %p_tw;\n", a, count=1)
    a = a.replace("\nSEG_LOOP:\n", "\n    mov.u32 %twacc, 0;\nSEG_LOOP:\n", 1)
    if afull:
        for s in range(4):
            old = f"    @!%p_lapA bra C_ASKIP{s};\n"
            assert b.count(old) == 1
            b = b.replace(old, f"    mbarrier.test_wait.parity.shared::cta.b64 %p_tw, [%bar], %aph;\n"
                               f"    selp.b32 %tw, 1, 0, %p_tw;\n    add.u32 %twacc, %twacc, %tw;\n" + old, 1)
    if full:
        old = "    @!%p_lapB bra C_FULL_SKIP;\n"
        assert b.count(old) == 1
        b = b.replace(old, "    mbarrier.test_wait.parity.shared::cta.b64 %p_tw, [%bar], %phase;\n"
                           "    selp.b32 %tw, 1, 0, %p_tw;\n    add.u32 %twacc, %twacc, %tw;\n" + old, 1)
    marker = "    // ================================================================== segment epilogue\n"
    assert c.startswith(marker)
    c = marker + "    setp.eq.u32 %p_tw, %twacc, 0x7FFFFFFF;\n    @%p_tw trap;\n" + c[len(marker):]
    return a + b + c


_nobar = lambda t: nowait_after_lap(noB(noA16(t)))
PROBES.update({"nobar_tw": lambda t: dummy_tests(_nobar(t)), "nobar_tw4": lambda t: dummy_tests(_nobar(t), full=False),
               "nobar_tw1": lambda t: dummy_tests(_nobar(t), afull=False)})


def dummy_tests_dep(t, afull=True, full=True):
    """dummy_tests, but each result feeds a predicated add right away, so the warp waits for the test's round trip at
    the former wait's position (a wait on a ready barrier, without producers)"""
    t = dummy_tests(t, afull, full)
    n = t.count("    selp.b32 %tw, 1, 0, %p_tw;\n    add.u32 %twacc, %twacc, %tw;\n")
    t = t.replace("    selp.b32 %tw, 1, 0, %p_tw;\n    add.u32 %twacc, %twacc, %tw;\n",
                  "    @%p_tw add.u32 %twacc, %twacc, 1;\n    @!%p_tw add.u32 %twacc, %twacc, 3;\n")
    return t


PROBES.update({"nobar_twl": lambda t: dummy_tests_dep(_nobar(t)), "nobar_twl4": lambda t: dummy_tests_dep(_nobar(t), full=False)})


def aunit(t):
    """the A16 producer waits once per unit, for the unit's last buffer (ab + 3) to be released, then refills all four
    (exact: every consumer warp releases its buffers in order)"""
    t = re.sub(r"A_SUBSTEP:\n\n+", "A_SUBSTEP:\n", t, count=1)
    old = ("A_SUBSTEP:\n"
           "    // wait until every consumer warp of the cluster released buffer ab (parity ^ 1: the first lap does not wait)\n"
           "    shl.b32 %tmp, %ab, 3;\n    add.u32 %bar, %sm_aempty, %tmp;\n    xor.b32 %par, %aph, 1;\n"
           "A_WAIT_EMPTY:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %par;\n    @!%p_ready bra A_WAIT_EMPTY;\n")
    assert t.count(old) == 1
    new = ("A_SUBSTEP:\n    shl.b32 %tmp, %ab, 3;\n    setp.ne.u32 %p_wrap, %j, 0;\n    @%p_wrap bra A_WAITED;\n"
           "    add.u32 %bar, %sm_aempty, %tmp;\n    add.u32 %bar, %bar, 24;\n    xor.b32 %par, %aph, 1;\n"
           "A_WAIT_EMPTY:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %par;\n    @!%p_ready bra A_WAIT_EMPTY;\n"
           "A_WAITED:\n")
    return t.replace(old, new, 1)


PROBES.update({"aunit": aunit, "noAB_aunit": lambda t: aunit(noB(noA16(t))), "clk_aunit": lambda t: clk(aunit(t))})


def ready_waits(t):
    """timing probe (on noA16/noB): the producers exit after the first lap and the consumers keep every full and afull
    wait, with parity 0: after the first lap those phases stay complete, so each wait is a try_wait on a ready barrier"""
    a, b, c = _loop(t)
    b, n1 = re.subn(r"(    mbarrier\.try_wait\.parity\.shared::cta\.b64 %p_ready, \[%bar\]), %aph;\n", r"\1, 0;\n", b)
    b, n2 = re.subn(r"(    mbarrier\.try_wait\.parity\.shared::cta\.b64 %p_ready, \[%bar\]), %phase;\n", r"\1, 0;\n", b)
    assert n1 == 4 and n2 == 1, (n1, n2)
    t = a + b + c
    t = t.replace("B_LOOP:\n", "B_LOOP:\n    setp.ge.u32 %p_blap1, %nbcnt, %S;\n    @%p_blap1 bra EXIT;\n", 1)
    t = t.replace("A_SUBSTEP:\n", "A_SUBSTEP:\n    setp.ge.u32 %p_lap1, %nacnt, 8;\n    @%p_lap1 bra EXIT;\n", 1)
    return t


PROBES.update({"nobar_ready": lambda t: ready_waits(noB(noA16(t)))})


def lockstep(t, every=2):
    """both consumer warpgroups meet at named barrier 3 every `every` pieces (exact)"""
    a, b, c = _loop(t)
    for pp in range(0, 8, every):
        mark = f"    // ---- piece {pp}: B fragments"
        assert b.count(mark) == 1, mark
        b = b.replace(mark, "    bar.sync 3, 256;\n" + mark, 1)
    return a + b + c


PROBES.update({"lock2": lockstep, "lock8": lambda t: lockstep(t, 8), "lock4": lambda t: lockstep(t, 4),
               "clk_lock2": lambda t: clk(lockstep(t)), "clk_noAB": lambda t: clk(noB(noA16(t)))})


def apair(t):
    """timing probe (exact in practice, not by contract): the consumers wait on afull only at sub-steps 0 and 2, each
    time on the barrier of the pair's second buffer (ab + 1, ab + 3), which the producer fills after the first"""
    a, b, c = _loop(t)
    b = re.sub(r"\n\n+", "\n", b)
    for s, tgt in ((0, 8), (2, 24)):
        old = f"    add.u32 %bar, %abar, {8 * s};\nC_WAIT_A{s}:\n"
        assert b.count(old) == 1, s
        b = b.replace(old, f"    add.u32 %bar, %abar, {tgt};\nC_WAIT_A{s}:\n", 1)
    for s in (1, 3):
        old = (f"C_WAIT_A{s}:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %aph;\n"
               f"    @!%p_ready bra C_WAIT_A{s};\n")
        assert b.count(old) == 1
        b = b.replace(old, "", 1)
    return a + b + c


def apair_prod(t):
    """the A16 producer waits on aempty only at sub-steps 0 and 2 of a unit, for the pair's second buffer (exact)"""
    t = re.sub(r"A_SUBSTEP:\n\n+", "A_SUBSTEP:\n", t, count=1)
    old = ("A_SUBSTEP:\n"
           "    // wait until every consumer warp of the cluster released buffer ab (parity ^ 1: the first lap does not wait)\n"
           "    shl.b32 %tmp, %ab, 3;\n    add.u32 %bar, %sm_aempty, %tmp;\n    xor.b32 %par, %aph, 1;\n"
           "A_WAIT_EMPTY:\n")
    assert t.count(old) == 1
    new = ("A_SUBSTEP:\n    shl.b32 %tmp, %ab, 3;\n    and.b32 %par, %j, 1;\n    setp.ne.u32 %p_wrap, %par, 0;\n"
           "    @%p_wrap bra A_WAITED;\n"
           "    add.u32 %bar, %sm_aempty, %tmp;\n    add.u32 %bar, %bar, 8;\n    xor.b32 %par, %aph, 1;\n"
           "A_WAIT_EMPTY:\n")
    t = t.replace(old, new, 1)
    old = "    @!%p_ready bra A_WAIT_EMPTY;\n"
    assert t.count(old) == 1
    return t.replace(old, old + "A_WAITED:\n", 1)


PROBES.update({"apair": apair, "apair2": lambda t: apair_prod(apair(t)), "apairP": apair_prod,
               "clk_apair": lambda t: clk(apair(t)) if False else None})
PROBES.update({"noAB_apair2": lambda t: apair_prod(apair(noB(noA16(t))))})


def selfarrive(t, do_a=True, do_b=True):
    """timing probe (on noA16/noB): the producers exit after their first lap; consumer thread 0 (WG0 warp 0 lane 0)
    arrives on a buffer's afull (a stage's full) right after releasing it, so each phase advances as the producers'
    would (gated by one warp instead of eight, without a producer in the loop)"""
    a, b, c = _loop(t)
    b = re.sub(r"\n\n+", "\n", b)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)",
               r"\1    .reg .b32 %sbar;\n    .reg .pred %p_cz0, %p_sa;\n", a, count=1)
    a = a + "    setp.eq.u32 %p_cz0, %ct, 0;\n"
    old = "    @%p_rel mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];\n"
    n = b.count(old)
    assert n == 4, n
    if do_a:
        b = b.replace(old, old + "    and.pred %p_sa, %p_rel, %p_cz0;\n    sub.u32 %sbar, %bar, %sm_aempty;\n"
                  "    add.u32 %sbar, %sbar, %sm_afull;\n    @%p_sa mbarrier.arrive.shared::cta.b64 %mbstate, [%sbar];\n")
    old = "    @%p_lead mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];\n"
    assert b.count(old) == 1
    if do_b:
        b = b.replace(old, old + "    and.pred %p_sa, %p_lead, %p_cz0;\n    sub.u32 %sbar, %bar, %sm_empty;\n"
                  "    add.u32 %sbar, %sbar, %sm_full;\n    @%p_sa mbarrier.arrive.shared::cta.b64 %mbstate, [%sbar];\n")
    t = a + b + c
    if do_b:
        t = t.replace("B_LOOP:\n", "B_LOOP:\n    setp.ge.u32 %p_blap1, %nbcnt, %S;\n    @%p_blap1 bra EXIT;\n", 1)
    if do_a:
        t = t.replace("A_SUBSTEP:\n", "A_SUBSTEP:\n    setp.ge.u32 %p_lap1, %nacnt, 8;\n    @%p_lap1 bra EXIT;\n", 1)
    return t


PROBES.update({"selfarrive": lambda t: selfarrive(noB(noA16(t))), "selfA": lambda t: selfarrive(noB(noA16(t)), True, False),
               "selfB": lambda t: selfarrive(noB(noA16(t)), False, True)})


# ------------------------------------------------ consumer-issued refills (session 26)
_CREF_REGS = ("    .reg .b32 %rb, %rcnt, %rold, %rtu, %rkel, %rkb, %raddr, %crbar, %rbatch, %rm0, %rn0, %rrem, %rx, %ry, %pacnt, %pbcnt;\n"
              "    .reg .b64 %tmc, %tmcb, %tmcs;\n    .reg .pred %p_crlast;\n")


def _cref_setup(a):
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)", lambda m: m.group(1) + _CREF_REGS, a, count=1)
    # counters (8 a16 buffers + up to 8 B stages) zeroed by thread 0 with the barrier inits
    old = "    fence.mbarrier_init.release.cluster;"
    assert a.count(old) == 1
    a = a.replace(old, "".join(f"    st.shared.u32 [%sm_ks+{64 + 4 * i}], 0;\n" for i in range(16)) + old, 1)
    # consumer: tensor maps and the tile's m0 / batch / n0, per segment
    assert a.count("\nSEG_LOOP:\n") == 1
    a = a.replace("\nSEG_LOOP:\n", "\n    mov.u64 %tmc, tmap_a16;\n    cvta.param.u64 %tmc, %tmc;\n    mov.u64 %tmcb, tmap_b;\n"
                  "    cvta.param.u64 %tmcb, %tmcb;\n    mov.u64 %tmcs, tmap_sfb;\n    cvta.param.u64 %tmcs, %tmcs;\nSEG_LOOP:\n", 1)
    a = a + ("    div.u32 %rbatch, %tile, %tpb;\n    mul.lo.u32 %rrem, %rbatch, %tpb;\n    sub.u32 %rrem, %tile, %rrem;\n"
             "    div.u32 %rm0, %rrem, %ntiles;\n    mul.lo.u32 %rn0, %rm0, %ntiles;\n    sub.u32 %rn0, %rrem, %rn0;\n"
             "    shl.b32 %rm0, %rm0, 7;\n    shl.b32 %rn0, %rn0, 7;\n")
    return a


def crefA(t, do_b=False):
    """timing probe, meant exact: after its first lap the A16 producer exits; the last consumer warp to release an a16
    buffer (an atom.inc counter per buffer) issues its refill itself (expect_tx + TMA of the sub-step 8 later)"""
    a, b, c = _loop(t)
    b = re.sub(r"\n\n+", "\n", b)
    a = _cref_setup(a)
    # releases: piece 1 releases (u-1, 3) -> refill (u+1, 3); piece 2s+1 releases (u, s-1) -> refill (u+2, s-1)
    pat = re.compile(r"(    @%p_rel mbarrier\.arrive\.shared::cta\.b64 %mbstate, \[%bar\];\n)")
    parts = pat.split(b)
    assert len(parts) == 9, len(parts)
    out = [parts[0]]
    for i in range(4):
        tu, jj = (1, 3) if i == 0 else (2, i - 1)
        out.append(parts[1 + 2 * i])
        out.append(
            "    sub.u32 %rb, %bar, %sm_aempty;\n    shr.u32 %rcnt, %rb, 1;\n    add.u32 %rcnt, %rcnt, %sm_ks;\n"
            f"    @%p_rel atom.acq_rel.cta.shared::cta.inc.u32 %rold, [%rcnt+64], 7;\n"
            f"    add.u32 %rtu, %u, {tu};\n    setp.lt.and.u32 %p_crlast, %rtu, %seg_end, %p_rel;\n"
            "    @!%p_rel mov.u32 %rold, 0;\n    setp.eq.and.u32 %p_crlast, %rold, 7, %p_crlast;\n"
            "    mul.lo.u32 %rkb, %tile, %KBL;\n    sub.u32 %rkb, %rtu, %rkb;\n    add.u32 %rkb, %rkb, %KOFF;\n"
            f"    shl.b32 %rkel, %rkb, 8;\n    add.u32 %rkel, %rkel, {64 * jj};\n"
            "    add.u32 %crbar, %sm_afull, %rb;\n    shl.b32 %raddr, %rb, 11;\n    add.u32 %raddr, %raddr, %sm_a16;\n"
            "    @%p_crlast mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%crbar], 16384;\n"
            "    @%p_crlast cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n"
            "        [%raddr], [%tmc, {%rkel, %rm0, %rbatch}], [%crbar];\n"
            "")
        out.append(parts[2 + 2 * i])
    b = "".join(out)
    if do_b:
        old = "    @%p_lead mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];\n"
        assert b.count(old) == 1
        b = b.replace(old, old + (
            "    sub.u32 %rb, %bar, %sm_empty;\n    shr.u32 %rcnt, %rb, 1;\n    add.u32 %rcnt, %rcnt, %sm_ks;\n"
            "    @%p_lead atom.acq_rel.cta.shared::cta.inc.u32 %rold, [%rcnt+96], 7;\n"
            "    add.u32 %rtu, %u, %S;\n    setp.lt.and.u32 %p_crlast, %rtu, %seg_end, %p_lead;\n"
            "    @!%p_lead mov.u32 %rold, 0;\n    setp.eq.and.u32 %p_crlast, %rold, 7, %p_crlast;\n"
            "    mul.lo.u32 %rkb, %tile, %KBL;\n    sub.u32 %rkb, %rtu, %rkb;\n    add.u32 %rkb, %rkb, %KOFF;\n"
            "    shl.b32 %rx, %rkb, 7;\n    shl.b32 %ry, %rkb, 4;\n"
            "    add.u32 %crbar, %sm_full, %rb;\n    shr.u32 %raddr, %rb, 3;\n    mad.lo.u32 %raddr, %raddr, 18432, %sm;\n"
            "    @%p_crlast mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%crbar], 18432;\n"
            "    @%p_crlast cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n"
            "        [%raddr], [%tmcb, {%rx, %rn0, %rbatch}], [%crbar];\n    add.u32 %raddr, %raddr, 16384;\n"
            "    @%p_crlast cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n"
            "        [%raddr], [%tmcs, {%ry, %rn0, %rbatch}], [%crbar];\n"
            ""), 1)
    t = a + b + c
    # producers: the first lap only
    t = re.sub(r"A_SUBSTEP:\n\n+", "A_SUBSTEP:\n", t, count=1)
    assert t.count("A_SUBSTEP:\n") == 1 and t.count("    griddepcontrol.wait;") == 1
    t = t.replace("A_SUBSTEP:\n", "A_SUBSTEP:\n    setp.ge.u32 %p_wrap, %pacnt, 8;\n    @%p_wrap bra EXIT;\n    add.u32 %pacnt, %pacnt, 1;\n", 1)
    t = re.sub(r"(    griddepcontrol\.wait;[^\n]*\n)", r"\1    mov.u32 %pacnt, 0;\n", t, count=1)
    if do_b:
        t = t.replace("B_LOOP:\n", "B_LOOP:\n    setp.ge.u32 %p_wrap, %pbcnt, %S;\n    @%p_wrap bra EXIT;\n    add.u32 %pbcnt, %pbcnt, 1;\n", 1)
        t = t.replace("B_PRODUCER:\n", "B_PRODUCER:\n    mov.u32 %pbcnt, 0;\n", 1)
    return t


PROBES.update({"crefA": crefA, "crefAB": lambda t: crefA(t, True), "clk_crefA": lambda t: clk(crefA(t)),
               "clk_crefAB": lambda t: clk(crefA(t, True))})


def crefW(t, d=2, bpiece=3):
    """meant exact (K-split builds: one segment per CTA): the producers run only their first lap; then warp 0 of WG0
    refills a16 buffers and warp 0 of WG1 refills B stages.  At the end of pieces 1, 3, 5, 7 (after the wgmma commit),
    WG0 warp 0 waits on the aempty barrier of the sub-step released `d` releases ago (normally complete) and issues its
    refill (expect_tx + TMA, the sub-step 8 later); at the end of piece `bpiece` WG1 warp 0 waits on the previous unit's
    stage's empty barrier and issues its refill (unit + S)."""
    a, b, c = _loop(t)
    b = re.sub(r"\n\n+", "\n", b)
    a = _cref_setup(a)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)",
               lambda m: m.group(1) + "    .reg .b32 %useg, %rrel, %rq, %nsub, %rt, %rb8, %rpar, %rbarE, %rv, %rj, %rs, %rsp;\n"
               "    .reg .pred %p_aw, %p_bw, %p_ln0, %p_cx, %p_relk;\n", a, count=1)
    a = a + ("    mov.u32 %useg, %u;\n    mov.u32 %rrel, 0;\n    mov.u32 %rq, 0;\n    sub.u32 %nsub, %seg_end, %u;\n"
             "    shl.b32 %nsub, %nsub, 2;\n    setp.lt.u32 %p_aw, %ct, 32;\n    setp.ge.u32 %p_bw, %ct, 128;\n"
             "    setp.lt.and.u32 %p_bw, %ct, 160, %p_bw;\n    setp.eq.u32 %p_ln0, %lane, 0;\n")
    # piece 1 releases only when %p_pend: remember that before piece 1's release code clears nothing (p_pend is read there)
    old = "    // ---- piece 1: B fragments"
    assert b.count(old) == 1
    b = b.replace(old, "    mov.pred %p_relk, %p_pend;\n" + old, 1)
    marks = ["    // ---- prefetch piece 2:", "    // ---- prefetch piece 4:", "    // ---- prefetch piece 6:",
             "    // ---------------------------------------------------------------- release the stage"]
    for k, mk in enumerate(marks):
        assert b.count(mk) == 1, mk
        inc = "    @%p_relk add.u32 %rrel, %rrel, 1;\n" if k == 0 else "    add.u32 %rrel, %rrel, 1;\n"
        blk = (inc + f"    @!%p_aw bra CRW_A_DONE{k};\n"
               f"    add.u32 %rt, %rq, {d};\n    setp.gt.u32 %p_cx, %rt, %rrel;\n    @%p_cx bra CRW_A_DONE{k};\n"
               f"    add.u32 %rt, %rq, 8;\n    setp.ge.u32 %p_cx, %rt, %nsub;\n    @%p_cx bra CRW_A_DONE{k};\n"
               "    and.b32 %rb, %rq, 7;\n    shl.b32 %rb8, %rb, 3;\n    shr.u32 %rpar, %rq, 3;\n    and.b32 %rpar, %rpar, 1;\n"
               "    add.u32 %rbarE, %sm_aempty, %rb8;\n"
               f"CRW_AW{k}:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_cx, [%rbarE], %rpar;\n    @!%p_cx bra CRW_AW{k};\n"
               "    shr.u32 %rv, %rt, 2;\n    add.u32 %rv, %rv, %useg;\n"
               "    mul.lo.u32 %rkb, %tile, %KBL;\n    sub.u32 %rkb, %rv, %rkb;\n    add.u32 %rkb, %rkb, %KOFF;\n"
               "    shl.b32 %rkel, %rkb, 8;\n    and.b32 %rj, %rt, 3;\n    shl.b32 %rj, %rj, 6;\n    add.u32 %rkel, %rkel, %rj;\n"
               "    add.u32 %crbar, %sm_afull, %rb8;\n    mad.lo.u32 %raddr, %rb, 16384, %sm_a16;\n"
               "    @%p_ln0 mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%crbar], 16384;\n"
               "    @%p_ln0 cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n"
               "        [%raddr], [%tmc, {%rkel, %rm0, %rbatch}], [%crbar];\n"
               "    add.u32 %rq, %rq, 1;\n"
               f"CRW_A_DONE{k}:\n")
        if k == bpiece // 2:
            blk += ("    @!%p_bw bra CRW_B_DONE;\n    setp.le.u32 %p_cx, %u, %useg;\n    @%p_cx bra CRW_B_DONE;\n"
                    "    add.u32 %rv, %u, %S;\n    sub.u32 %rv, %rv, 1;\n    setp.ge.u32 %p_cx, %rv, %seg_end;\n    @%p_cx bra CRW_B_DONE;\n"
                    "    setp.eq.u32 %p_cx, %slot, 0;\n    sub.u32 %rs, %slot, 1;\n    @%p_cx sub.u32 %rs, %S, 1;\n"
                    "    xor.b32 %rsp, %phase, 1;\n    selp.b32 %rsp, %rsp, %phase, %p_cx;\n"
                    "    shl.b32 %rb8, %rs, 3;\n    add.u32 %rbarE, %sm_empty, %rb8;\n"
                    "CRW_BW:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_cx, [%rbarE], %rsp;\n    @!%p_cx bra CRW_BW;\n"
                    "    mul.lo.u32 %rkb, %tile, %KBL;\n    sub.u32 %rkb, %rv, %rkb;\n    add.u32 %rkb, %rkb, %KOFF;\n"
                    "    shl.b32 %rx, %rkb, 7;\n    shl.b32 %ry, %rkb, 4;\n"
                    "    add.u32 %crbar, %sm_full, %rb8;\n    mad.lo.u32 %raddr, %rs, 18432, %sm;\n"
                    "    @%p_ln0 mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%crbar], 18432;\n"
                    "    @%p_ln0 cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n"
                    "        [%raddr], [%tmcb, {%rx, %rn0, %rbatch}], [%crbar];\n    add.u32 %raddr, %raddr, 16384;\n"
                    "    @%p_ln0 cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n"
                    "        [%raddr], [%tmcs, {%ry, %rn0, %rbatch}], [%crbar];\n"
                    "CRW_B_DONE:\n")
        b = b.replace(mk, blk + mk, 1)
    t = a + b + c
    t = re.sub(r"A_SUBSTEP:\n\n+", "A_SUBSTEP:\n", t, count=1)
    t = t.replace("A_SUBSTEP:\n", "A_SUBSTEP:\n    setp.ge.u32 %p_wrap, %pacnt, 8;\n    @%p_wrap bra EXIT;\n    add.u32 %pacnt, %pacnt, 1;\n", 1)
    t = re.sub(r"(    griddepcontrol\.wait;[^\n]*\n)", r"\1    mov.u32 %pacnt, 0;\n", t, count=1)
    t = t.replace("B_LOOP:\n", "B_LOOP:\n    setp.ge.u32 %p_wrap, %pbcnt, %S;\n    @%p_wrap bra EXIT;\n    add.u32 %pbcnt, %pbcnt, 1;\n", 1)
    t = t.replace("B_PRODUCER:\n", "B_PRODUCER:\n    mov.u32 %pbcnt, 0;\n", 1)
    return t


PROBES.update({"crefW": crefW, "crefW1": lambda t: crefW(t, 1), "crefW3": lambda t: crefW(t, 3),
               "clk_crefW": lambda t: clk(crefW(t))})


def nodiv(t):
    """the producers compute their tile coordinates (three div.u32 each) only for their first unit and then step kb by
    one (exact for K-split builds, whose CTAs run units of one tile)"""
    for lab, first, nxt in (("B_LOOP", "    div.u32 %tile, %u, %KBL;\n", "    shl.b32 %x, %kb, 7;"),
                            ("A_LOOP", "    div.u32 %tile, %u, %KBL;\n", "    shl.b32 %kel, %kb, 8;")):
        i = t.index("\n" + lab + ":\n")
        j = t.index(first, i)
        k = t.index(nxt, j)
        blk = t[j:k]
        pn = "%p_nfb" if lab == "B_LOOP" else "%p_nfa"
        new = (f"    @{pn} bra {lab}_KINC;\n" + blk + f"    setp.eq.u32 {pn}, 0, 0;\n    bra.uni {lab}_KDONE;\n"
               f"{lab}_KINC:\n    add.u32 %kb, %kb, 1;\n{lab}_KDONE:\n")
        t = t[:j] + new + t[k:]
    t = t.replace("B_PRODUCER:\n", "B_PRODUCER:\n    setp.ne.u32 %p_nfb, 0, 0;\n", 1)
    t = t.replace("A_PRODUCER:\n", "A_PRODUCER:\n    setp.ne.u32 %p_nfa, 0, 0;\n", 1)
    t = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)", r"\1    .reg .pred %p_nfa, %p_nfb;\n", t, count=1)
    return t


PROBES.update({"nodiv": nodiv, "noAB_nodiv": lambda t: nodiv(noB(noA16(t)))})


PROBES.update({"comp": lambda t: desc64(early(pf2(t))), "comp_fp": lambda t: full_post(desc64(early(pf2(t))), 6, False),
               "early_desc64": lambda t: desc64(early(t))})


PROBES.update({"fp6": lambda t: full_post(t, 6, False), "d64_fp6": lambda t: full_post(desc64(t), 6, False),
               "e_d64_fp6": lambda t: full_post(desc64(early(t)), 6, False),
               "pf2_fp6": lambda t: full_post(pf2(t), 6, False)})


def producer_threads(t, b_thread, a_thread):
    """which threads run the producers (exact): the B producer on b_thread, the A16 producer on a_thread"""
    old = ("PRODUCERS:\n    setp.eq.u32 %p_lead, %thread, 0;\n    @%p_lead bra B_PRODUCER;\n"
           "    setp.eq.u32 %p_lead, %thread, 32;\n    @%p_lead bra A_PRODUCER;\n")
    t2 = re.sub(r"PRODUCERS:\n\n*", "PRODUCERS:\n", t, count=1)
    assert t2.count(old) == 1
    return t2.replace(old, f"PRODUCERS:\n    setp.eq.u32 %p_lead, %thread, {b_thread};\n    @%p_lead bra B_PRODUCER;\n"
                      f"    setp.eq.u32 %p_lead, %thread, {a_thread};\n    @%p_lead bra A_PRODUCER;\n", 1)


PROBES.update({"aw0": lambda t: producer_threads(t, 0, 1), "pw23": lambda t: producer_threads(t, 64, 96),
               "pw02": lambda t: producer_threads(t, 0, 64)})


def prod_sleep(t, ns):
    """the producers poll their empty/aempty barrier with test_wait and sleep `ns` between looks (exact)"""
    for lab in ("B_WAIT_EMPTY", "A_WAIT_EMPTY"):
        old = (f"{lab}:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %par;\n"
               f"    @!%p_ready bra {lab};\n")
        assert t.count(old) == 1, lab
        t = t.replace(old, f"{lab}:\n    mbarrier.test_wait.parity.shared::cta.b64 %p_ready, [%bar], %par;\n"
                           f"    @%p_ready bra {lab}_OK;\n    nanosleep.u32 {ns};\n    bra.uni {lab};\n{lab}_OK:\n", 1)
    return t


PROBES.update({"psleep64": lambda t: prod_sleep(t, 64), "psleep256": lambda t: prod_sleep(t, 256),
               "psleep1000": lambda t: prod_sleep(t, 1000)})
