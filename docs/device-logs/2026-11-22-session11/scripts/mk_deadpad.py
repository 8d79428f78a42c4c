"""Experiment: after the unit loop of N < 256, define accumulators N/2..127 (mov 0) before the shared epilogue,
so that they are dead inside that loop (the epilogue's guarded reads otherwise keep all 128 live in every loop)."""
import sys
sys.path.insert(0, "tools"); sys.path.insert(0, ".")
import gen_grouped_gemm_cluster_ptx as g
setup, loop, post = g.split_main_loop()
def unit_loops_pad(loop, variants=g.TOKEN_VARIANTS):
    parts = []
    for n in variants:
        parts.append(f"    // ===== unit loop, N = {n}\n")
        parts.append(g.unit_loop_variant(loop, n))
        if n < g.TILE_M:
            parts.append("    wgmma.wait_group.sync.aligned 0;          // the loop's wgmmas are done: its unused accumulators may be written\n")
        for i in range(n // 2, g.ACC):
            parts.append(f"    mov.f32 %acc{i}, 0f00000000;\n")
        parts.append("    bra.uni SEG_DONE;\n")
    return "".join(parts) + "SEG_DONE:\n"
for name, v in [("deadpad", g.TOKEN_VARIANTS), ("deadpad6", (64, 96, 128, 160, 192, 256)), ("deadtwo", (128, 256)), ("deadfour", (64, 128, 192, 256))]:
    txt = (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + setup + g.seg_loop(v)
           + unit_loops_pad(loop, v) + post + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
    open(f".scratch/loops/{name}.ptx", "w").write(txt)
