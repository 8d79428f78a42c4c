"""Session 25: %globaltimer stamps through the K split's push exchange (consumer thread 0 of every CTA): after the
first bar.sync of KSPLIT_REDUCE (every consumer past its last wgmma), after parking P (fence + bar.sync), after the
FREE wait and the copies (KSP_SENT), after the RECV wait, and at the exit (after the stores and the DONE wait).
Written at addr + 64 * ctaid.x: u64 t0, t1, t2, t3, t5."""
import re

STAMPS = [
    (re.compile(r"(KSPLIT_REDUCE:\n    bar\.sync 1, \d+;[^\n]*\n)"), "%tk0"),
    (re.compile(r"(    fence\.proxy\.async\.shared::cta;            // the parked P[^\n]*\n    bar\.sync 1, \d+;\n)"), "%tk1"),
    (re.compile(r"(KSP_SENT:\n)"), "%tk2"),
    (re.compile(r"(    @!%p_ready bra KSP_WAIT_RECV;\n)"), "%tk3"),
]


def tl_ks(t, addr):
    decl = "    .reg .b32   %w0, %w1, %sw0, %sw1;\n"
    assert t.count(decl) == 1
    t = t.replace(decl, decl + "    .reg .b64   %tk0, %tk1, %tk2, %tk3, %tk5, %tka, %tkb;\n    .reg .b32   %tki;\n    .reg .pred  %p_tk;\n", 1)
    for rx, reg in STAMPS:
        t, n = rx.subn(lambda m: m.group(1) + f"    mov.u64 {reg}, %globaltimer;\n", t, count=1)
        assert n == 1, reg
    old = "KSP_EXIT:\n    ret;\n"
    assert t.count(old) == 1
    t = t.replace(old, "KSP_EXIT:\n    mov.u64 %tk5, %globaltimer;\n    setp.ne.u32 %p_tk, %thread, 128;\n    @%p_tk bra TK_OUT;\n"
                  f"    mov.u64 %tka, {addr};\n    mov.u32 %tki, %ctaid.x;\n    mul.wide.u32 %tkb, %tki, 64;\n    add.u64 %tka, %tka, %tkb;\n"
                  "    st.global.v2.u64 [%tka], {%tk0, %tk1};\n    st.global.v2.u64 [%tka+16], {%tk2, %tk3};\n    st.global.u64 [%tka+32], %tk5;\n"
                  "TK_OUT:\n    ret;\n", 1)
    return t
