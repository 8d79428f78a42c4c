"""Session 32: the grouped cluster kernel's text with a chosen set of unit loops, optionally with the accumulators past
N/2 defined (zeroed, after a wait_group 0) at each small loop's exit, so that they are dead inside it."""
import sys
sys.path.insert(0, 'tools')  # from the repository root
import gen_grouped_gemm_cluster_ptx as g

SETUP, LOOP, POST = g.split_main_loop()


def loops(variants, dead=False):
    parts = []
    for n in variants:
        parts.append(g.unit_loop_variant(LOOP, n))
        if dead and n < 2 * g.ACC:
            parts.append("    wgmma.wait_group.sync.aligned 0;\n")
            parts.append("".join(f"    mov.f32 %acc{i}, 0f00000000;\n" for i in range(n // 2, g.ACC)))
        parts.append("    bra.uni SEG_DONE;\n")
    return "".join(parts) + "SEG_DONE:\n"


def text(variants, dead=False):
    return (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + SETUP + g.seg_loop(variants)
            + (loops(variants, True) if dead else g.unit_loops(LOOP, variants)) + POST + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
