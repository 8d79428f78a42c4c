"""Session 24 timing probes (exact): the producers' first requests get the memory system to themselves.
bfirst: the B producer waits for its first stage to land (full barrier) before it issues the second;
afirst: the A16 producer waits for the first unit's last buffer (afull) before it issues the next unit's;
bsleep: the B producer sleeps `ns` after its first stage instead."""
import re
from probes import PROBES


def _regs(t, decl):
    return re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)", r"\1" + decl, t, count=1)


def _region(t, start, end):
    i = t.index(start)
    j = t.index(end, i)
    return t[:i], t[i:j], t[j:]


def bfirst(t, sleep_ns=None):
    t = _regs(t, "    .reg .b32 %bfc;\n    .reg .pred %p_bf;\n")
    a, b, c = _region(t, "B_PRODUCER:\n", "A_PRODUCER:\n")
    b = b.replace("B_PRODUCER:\n", "B_PRODUCER:\n    mov.u32 %bfc, 0;\n", 1)
    old = "    add.u32 %slot, %slot, 1;\n    setp.eq.u32 %p_wrap, %slot, %S;\n"
    assert b.count(old) == 1
    wait = ("B_FIRST_WAIT:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %phase;\n"
            "    @!%p_ready bra B_FIRST_WAIT;\n") if sleep_ns is None else f"    nanosleep.u32 {sleep_ns};\n"
    b = b.replace(old, "    setp.eq.u32 %p_bf, %bfc, 0;\n    add.u32 %bfc, %bfc, 1;\n    @!%p_bf bra B_FIRST_DONE;\n" + wait +
                  "B_FIRST_DONE:\n" + old, 1)
    return a + b + c


def afirst(t):
    t = _regs(t, "    .reg .b32 %afc;\n    .reg .pred %p_af;\n")
    a, b, c = _region(t, "A_PRODUCER:\n", "\nEXIT:\n")
    b = b.replace("A_PRODUCER:\n", "A_PRODUCER:\n    mov.u32 %afc, 0;\n", 1)
    m = re.search(r"    add\.u32 %ab, %ab, 1;\n    setp\.eq\.u32 %p_wrap, %ab, \d+;\n", b)
    assert m and len(re.findall(r"    add\.u32 %ab, %ab, 1;\n    setp\.eq\.u32 %p_wrap, %ab, \d+;\n", b)) == 1
    ins = ("    setp.eq.u32 %p_af, %afc, 3;\n    add.u32 %afc, %afc, 1;\n    @!%p_af bra A_FIRST_DONE;\n"
           "A_FIRST_WAIT:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %aph;\n"
           "    @!%p_ready bra A_FIRST_WAIT;\nA_FIRST_DONE:\n")
    b = b[:m.start()] + ins + b[m.start():]
    return a + b + c


PROBES.update({"bfirst": bfirst, "afirst": afirst, "abfirst": lambda t: afirst(bfirst(t)),
               "bsleep": lambda t: bfirst(t, 500)})
