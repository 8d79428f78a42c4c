"""Session 32: loop sets where each loop of N <= 128 keeps its A fragments in accumulator registers that no wgmma of
that loop uses (%acc64 .. %acc95), so that ptxas places them where the N > 128 loops keep accumulators 64.. (below the
128-register block's end) instead of above the block; the accumulators past N/2 are zeroed after each small loop
(wait_group 0 first), so that they are dead inside it."""
import re
import sys
sys.path.insert(0, 'tools')  # from the repository root
import gen_grouped_gemm_cluster_ptx as g

SETUP, LOOP, POST = g.split_main_loop()
FRAGS = [f"%{s}{h}{i}" for s in "xyzw" for h in "ab" for i in range(4)]


def small_loop(n, base=64):
    text = g.unit_loop_variant(LOOP, n)
    for j, r in enumerate(FRAGS):
        text = re.sub(re.escape(r) + r"\b", f"%acc{base + j}", text)
    text += "    wgmma.wait_group.sync.aligned 0;\n"
    text += "".join(f"    mov.f32 %acc{i}, 0f00000000;\n" for i in range(n // 2, g.ACC))
    return text


def text(variants):
    body = ""
    for n in variants:
        body += (small_loop(n) if n <= 128 else g.unit_loop_variant(LOOP, n)) + "    bra.uni SEG_DONE;\n"
    body += "SEG_DONE:\n"
    return (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + SETUP
            + g.seg_loop(variants) + body + POST + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
