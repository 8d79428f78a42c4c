"""Session 32: loop sets of the grouped cluster kernel where each loop of N < 256 accumulates into the top N/2
accumulators (acc128-N/2 .. acc127, inside the N = 256 loop's contiguous block) and, after a wait_group 0, moves them
down to acc0.. N/2-1 where the post-loop code expects them, then zeroes the rest (so that the low accumulators are dead
inside the loop and its A fragments may take their registers)."""
import sys
sys.path.insert(0, 'tools')  # from the repository root
import gen_grouped_gemm_cluster_ptx as g

SETUP, LOOP, POST = g.split_main_loop()


def shifted_loop(n):
    text = g.unit_loop_variant(LOOP, n)
    if n == 2 * g.ACC:
        return text
    lo = g.ACC - n // 2
    low = g.acc_list(n // 2)
    high = "{" + ", ".join(f"%acc{i}" for i in range(lo, g.ACC)) + "}"
    assert text.count(low) == 16, text.count(low)
    text = text.replace(low, high)
    moves = "".join(f"    mov.f32 %acc{i}, %acc{lo + i};\n" for i in range(n // 2))
    zero = "".join(f"    mov.f32 %acc{i}, 0f00000000;\n" for i in range(max(n // 2, lo), g.ACC))
    return text + "    wgmma.wait_group.sync.aligned 0;\n" + moves + zero


def text(variants):
    body = "".join(shifted_loop(n) + "    bra.uni SEG_DONE;\n" for n in variants) + "SEG_DONE:\n"
    return (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + SETUP + g.seg_loop(variants)
            + body + POST + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
