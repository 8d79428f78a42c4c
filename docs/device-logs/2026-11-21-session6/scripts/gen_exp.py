"""Experimental builds of the grouped cluster kernel: variant subsets and split accumulators."""
import sys, subprocess
sys.path.insert(0, "tools")
import gen_grouped_gemm_cluster_ptx as G
from nvfp4rt.ptxsource import render
BUILDS = {
    "A": ((32, 64, 96, 128, 160, 192, 224, 256), 0),
    "B": ((32, 64, 96, 128), 0),
    "C": ((32, 64, 96, 128), 128),
    "D": ((256,), 0),
    "F": ((32, 64, 96, 128, 160, 192, 224), 0),
}
def gen(variants, split):
    G.SPLIT_ACC_MAX_N = split
    setup, loop, post = G.split_main_loop()
    return (G.HEADER + G.SIGNATURE + G.PARAMETERS + G.dual.CARVE_UP + G.CONSUMER_INTRO + setup + G.seg_loop(variants)
            + G.unit_loops(loop, variants) + post + G.segment_epilogue() + "\n" + G.store_tile() + "\n" + G.PRODUCERS)
for name, (variants, split) in BUILDS.items():
    text = gen(variants, split)
    open(f".scratch/gx_{name}.ptx", "w").write(text)
    r = render(text, "sm_90a", {"CLUSTER": 2, "A_BUFS": 4})
    open(f"/tmp/gx_{name}.ptx", "w").write(r)
    p = subprocess.run(["/usr/local/cuda/bin/ptxas", "-arch=sm_90a", "-v", f"/tmp/gx_{name}.ptx", "-o", f".scratch/gx_{name}.cubin"], capture_output=True, text=True)
    print(name, variants, split, "SERIALIZED" if "C7511" in p.stderr else "ok", [l.split(":")[-1] for l in p.stderr.splitlines() if "Used" in l])
