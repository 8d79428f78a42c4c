"""Session 32: loop sets where every loop of N <= 128 uses one set of A-fragment registers (%pf0..31) that is live
through the whole consumer path (defined before the segment loop, read at the consumers' exit under a predicate that is
never true at run time), so that ptxas must place it apart from the N > 128 loops' 128-accumulator block."""
import re
import sys
sys.path.insert(0, 'tools')  # from the repository root
import gen_grouped_gemm_cluster_ptx as g

SETUP, LOOP, POST = g.split_main_loop()
FRAGS = [f"%{s}{h}{i}" for s in "xyzw" for h in "ab" for i in range(4)]
PIN = [f"%pf{j}" for j in range(len(FRAGS))]


def small_loop(n):
    text = g.unit_loop_variant(LOOP, n)
    for r, p in zip(FRAGS, PIN):
        text = re.sub(re.escape(r) + r"\b", p, text)
    return text


def text(variants):
    body = ""
    for n in variants:
        body += (small_loop(n) if n <= 128 else g.unit_loop_variant(LOOP, n)) + "    bra.uni SEG_DONE;\n"
    pin_exit = ("C_PIN_EXIT:\n    mov.b32 %pfx, 0;\n" + "".join(f"    xor.b32 %pfx, %pfx, {p};\n" for p in PIN)
                + "    ld.param.u64 %pfp, [p_table];\n    setp.eq.u64 %pfq, %pfp, 0;   // never: the table is on the device\n"
                + "    @%pfq st.global.b32 [%pfp], %pfx;\n    bra.uni EXIT;\n")
    body += pin_exit + "SEG_DONE:\n"
    seg = g.seg_loop(variants)
    old = "    @%p_more bra EXIT;\n"
    assert seg.count(old) == 1, seg.count(old)
    seg = seg.replace(old, "    @%p_more bra C_PIN_EXIT;\n")
    seg = "".join(f"    mov.b32 {p}, 0;\n" for p in PIN) + seg
    full = (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + SETUP
            + seg + body + POST + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
    anchor = "    .reg .f32   %acc<128>;\n"
    assert full.count(anchor) == 1
    return full.replace(anchor, anchor + "    .reg .b32 " + ", ".join(PIN) + ", %pfx;\n    .reg .b64 %pfp;\n    .reg .pred %pfq;\n")
