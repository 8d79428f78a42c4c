"""Session 24 probes: clk2 = session 23's clk plus the first unit's full wait and the loop's %globaltimer span."""
import re
from probes import PROBES, _loop, early, desc64, pf2, noA16, noB, _strip1


def clk2(t):
    a, b, c = _loop(t)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)",
               r"\1    .reg .b64 %k0, %k1, %k2, %k3, %sdep, %spre, %saf, %sfull, %st0, %sunits, %sfirst, %gt0;\n", a, count=1)
    assert a.count("\nSEG_LOOP:\n") == 1
    a = a.replace("\nSEG_LOOP:\n", "\n    mov.u64 %sdep, 0;\n    mov.u64 %spre, 0;\n    mov.u64 %saf, 0;\n    mov.u64 %sfull, 0;\n"
                  "    mov.u64 %sunits, 0;\n    mov.u64 %sfirst, 0;\n    mov.u64 %gt0, %globaltimer;\n    mov.u64 %st0, %clock64;\nSEG_LOOP:\n", 1)
    old = "C_WAIT_FULL:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %phase;\n    @!%p_ready bra C_WAIT_FULL;\n"
    assert b.count(old) == 1
    b = b.replace(old, "    mov.u64 %k3, %clock64;\n" + old + "    mov.u64 %k2, %clock64;\n    sub.s64 %k2, %k2, %k3;\n"
                  "    add.s64 %sfull, %sfull, %k2;\n    setp.eq.u64 %p_ready, %sunits, 0;\n    @%p_ready mov.u64 %sfirst, %k2;\n"
                  "    add.s64 %sunits, %sunits, 1;\n")
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
    c = marker + ("    mov.u64 %k0, %clock64;\n    sub.s64 %st0, %k0, %st0;\n    mov.u64 %k3, %globaltimer;\n    sub.s64 %gt0, %k3, %gt0;\n"
                  "    @!%p_l0 bra CLK_DONE;\n    mov.u32 %tmp, %ctaid.x;\n    shr.u32 %tmp2, %ct, 5;\n    mad.lo.u32 %tmp, %tmp, 8, %tmp2;\n"
                  "    ld.param.u64 %k1, [p_ws];\n    mul.wide.u32 %k2, %tmp, 64;\n    add.s64 %k1, %k1, %k2;\n"
                  "    st.global.v2.u64 [%k1], {%st0, %sdep};\n    st.global.v2.u64 [%k1+16], {%spre, %saf};\n"
                  "    st.global.v2.u64 [%k1+32], {%sfull, %sunits};\n    st.global.v2.u64 [%k1+48], {%sfirst, %gt0};\nCLK_DONE:\n") + c[len(marker):]
    return a + b + c


def comp(t):
    """exact: B words a piece earlier, afull tested early, 64-bit descriptors"""
    return desc64(early(pf2(t)))


PROBES.update({"clk2": clk2, "clk2_noAB": lambda t: clk2(noB(noA16(t))), "comp": comp, "clk2_comp": lambda t: clk2(comp(t)),
               "clk2_strip2": lambda t: clk2(desc64(early(_strip1(t))))})


from probes import ahead_some


def comp_a27(t):
    return desc64(early(pf2(ahead_some(t, set(range(2, 8))))))


PROBES.update({"comp_a27": comp_a27})


def earlyF(t, where=6):
    """the next unit's full barrier tested (mbarrier.test_wait) before piece `where` of this unit; the next unit's
    wait loop is skipped when that test saw the phase complete (exact)"""
    a, b, c = _loop(t)
    a = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)",
               r"\1    .reg .b32 %efs, %efp;\n    .reg .pred %p_ef, %p_efw;\n", a, count=1)
    assert a.count("\nSEG_LOOP:\n") == 1
    a = a.replace("\nSEG_LOOP:\n", "\n    setp.ne.u32 %p_ef, 0, 0;\nSEG_LOOP:\n", 1)
    mark = f"    // ---- prefetch piece {where}:"
    assert b.count(mark) == 1
    b = b.replace(mark, "    add.u32 %efs, %slot, 1;\n    setp.eq.u32 %p_efw, %efs, %S;\n    selp.b32 %efs, 0, %efs, %p_efw;\n"
                  "    xor.b32 %efp, %phase, 1;\n    selp.b32 %efp, %efp, %phase, %p_efw;\n    shl.b32 %efs, %efs, 3;\n"
                  "    add.u32 %efs, %sm_full, %efs;\n    mbarrier.test_wait.parity.shared::cta.b64 %p_ef, [%efs], %efp;\n" + mark, 1)
    old = "C_WAIT_FULL:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %phase;\n    @!%p_ready bra C_WAIT_FULL;\n"
    assert b.count(old) == 1
    b = b.replace(old, "    @%p_ef bra C_FULL_OK;\n" + old + "C_FULL_OK:\n", 1)
    return a + b + c


PROBES.update({"earlyF": earlyF, "early_earlyF": lambda t: earlyF(early(t)), "comp_earlyF": lambda t: earlyF(comp(t)),
               "early_desc64": lambda t: desc64(early(t)), "early_pf2": lambda t: early(pf2(t)),
               "comp_earlyF4": lambda t: earlyF(comp(t), 4)})
