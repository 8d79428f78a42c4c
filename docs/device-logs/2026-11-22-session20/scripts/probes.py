"""Session 20 timing-only probes of the A_UNIT unit loop (wrong results allowed; never committed):
P1 no a16 waits for sub-steps 1-3 (the bound of one wait per unit); P2 a unit's B words in four 16-byte loads at its
top (the bound of a k order that lets each thread read whole 16-byte chunks); P3 one descriptor per sub-step (what
the per-wgmma descriptor updates cost)."""
import re

def p1(t):
    i = t.index("// {{if A_UNIT}}\n    add.u32 %bar, %abar, 0;\n")
    t = t[:i] + t[i:].replace("add.u32 %bar, %abar, 0;", "add.u32 %bar, %abar, 24;", 1)  # sub-step 0 waits for the unit's last buffer
    for s in (1, 2, 3):
        old = f"C_WAIT_A{s}:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %aph;\n    @!%p_ready bra C_WAIT_A{s};\n"
        # the WG_WAIT == 1 copy is the one after the A_UNIT address block
        i = t.index("// {{if A_UNIT}}\n    add.u32 %bar, %abar, " + str(8 * s) + ";\n")
        j = t.index(old, i)
        t = t[:j] + t[j + len(old):]
    return t

def p2(t):
    t = t.replace("    .reg .b32   %w0, %w1, %sw0, %sw1;\n", "    .reg .b32   %w0, %w1, %sw0, %sw1, %q<16>;\n", 1)
    anchor = "    // ---- prefetch piece 0: its two B words and scales (before the A work of sub-step 0)\n"
    assert t.count(anchor) == 1
    t = t.replace(anchor, "    and.b32 %addr, %bslot, -16;\n    ld.shared.v4.b32 {%q0, %q1, %q2, %q3}, [%addr];\n"
                  "    ld.shared.v4.b32 {%q4, %q5, %q6, %q7}, [%addr+1024];\n"
                  "    ld.shared.v4.b32 {%q8, %q9, %q10, %q11}, [%addr+64];\n"
                  "    ld.shared.v4.b32 {%q12, %q13, %q14, %q15}, [%addr+1088];\n" + anchor)
    for pp in range(8):
        old = re.compile(rf"    xor\.b32 %addr, %bslot, {16 * pp};[^\n]*\n    ld\.shared\.b32 %w0, \[%addr\];\n    ld\.shared\.b32 %w1, \[%addr\+1024\];\n")
        a, b = (pp % 4) + 8 * (pp // 4), (pp % 4) + 4 + 8 * (pp // 4)
        t, n = old.subn(f"    mov.b32 %w0, %q{a};\n    mov.b32 %w1, %q{b};\n", t)
        assert n == 1, (pp, n)
    return t

def p3(t):
    for j in (1, 2, 3):
        t, n = re.subn(rf"    add\.u32 %x, %dlo, {2 * j};", "    add.u32 %x, %dlo, 0;", t)
        assert n == 4, n
    return t

PROBES = {"p2": p2, "p3": p3, "p23": lambda t: p3(p2(t)), "p1": p1, "p123": lambda t: p3(p2(p1(t)))}
