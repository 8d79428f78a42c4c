"""Session 32: loop sets with the accumulators past N/2 dead inside each smaller loop (zeroed after a wait_group 0 at
its exit) and each loop's A-fragment registers (%xa0.., %wb3) renamed per loop, so that ptxas may place a small
loop's fragments apart from the N = 256 loop's."""
import re
import sys
sys.path.insert(0, 'tools')  # from the repository root
import gen_grouped_gemm_cluster_ptx as g

SETUP, LOOP, POST = g.split_main_loop()
FRAGS = [f"%{s}{h}{i}" for s in "xyzw" for h in "ab" for i in range(4)]


def loop(n, dead=True, rename=True):
    text = g.unit_loop_variant(LOOP, n)
    decl = ""
    if rename and n < 2 * g.ACC:
        for r in FRAGS:
            text = re.sub(re.escape(r) + r"\b", f"{r}_n{n}", text)
        decl = "    .reg .b32 " + ", ".join(f"{r}_n{n}" for r in FRAGS) + ";\n"
    if dead and n < 2 * g.ACC:
        text += "    wgmma.wait_group.sync.aligned 0;\n"
        text += "".join(f"    mov.f32 %acc{i}, 0f00000000;\n" for i in range(n // 2, g.ACC))
    return decl, text


def text(variants, dead=True, rename=True):
    decls, body = "", ""
    for n in variants:
        d, t = loop(n, dead, rename)
        decls += d
        body += t + "    bra.uni SEG_DONE;\n"
    body += "SEG_DONE:\n"
    full = (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + SETUP
            + g.seg_loop(variants) + body + POST + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
    anchor = "    .reg .f32   %acc<128>;\n"
    assert full.count(anchor) == 1
    return full.replace(anchor, anchor + decls)
