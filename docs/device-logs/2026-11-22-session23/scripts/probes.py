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
