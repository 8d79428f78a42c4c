"""Write grouped-kernel variants with a subset of unit loops (the dispatch rounds a tile up to the next built N)."""
import sys
sys.path.insert(0, "tools"); sys.path.insert(0, ".")
import gen_grouped_gemm_cluster_ptx as g
from nvfp4rt.ptxsource import render
setup, loop, post = g.split_main_loop()
SETS = {"all8": (32, 64, 96, 128, 160, 192, 224, 256),
        "c1": (64, 96, 128, 160, 192, 256), "c2": (64, 96, 160, 192, 224, 256),
        "c34": (128, 192, 256), "six": (64, 96, 128, 160, 192, 256), "four": (64, 128, 192, 256), "two": (128, 256), "one": (256,)}
for name, v in SETS.items():
    txt = (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + setup + g.seg_loop(v)
           + g.unit_loops(loop, v) + post + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
    open(f".scratch/loops/{name}.ptx", "w").write(txt)
    open(f".scratch/loops/{name}.rendered.ptx", "w").write(
        render(txt, "sm_90a", {"CLUSTER": 2, "A_BUFS": 4, "HEAD_CHECK": 1, "HEAD_WAIT": 32768}))
