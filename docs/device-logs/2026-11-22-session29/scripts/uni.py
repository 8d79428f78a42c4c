"""Session 29 probe: uniform branches in the consumer unit loop (bra -> bra.uni on the barrier spin loops and the
early-look skips).  Exact when every lane of a warp sees the same barrier state, which one SYNCS instruction gives."""
import re
CONS_START = "UNIT_LOOP:"
CONS_END = "    // ================================================================== segment epilogue"


def uni(t):
    i, j = t.index(CONS_START), t.index(CONS_END)
    b = t[i:j]
    b, n1 = re.subn(r"(    @!%p_ready) bra (C_WAIT_\w+);", r"\1 bra.uni \2;", b)
    b, n2 = re.subn(r"(    @%p_(?:ea\d|fok)) bra (C_\w+);", r"\1 bra.uni \2;", b)
    assert n1 >= 5 and n2 >= 5, (n1, n2)
    return t[:i] + b + t[j:]
