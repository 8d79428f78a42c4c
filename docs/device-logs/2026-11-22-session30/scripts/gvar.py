"""Grouped cluster kernel text with a chosen set of unit loops (token counts)."""
import sys, subprocess, re, tempfile
from pathlib import Path
sys.path.insert(0, "tools"); sys.path.insert(0, ".")
import gen_grouped_gemm_cluster_ptx as G
from nvfp4rt.ptxsource import render

def text(variants):
    setup, loop, post = G.split_main_loop()
    return (G.HEADER + G.SIGNATURE + G.PARAMETERS + G.dual.CARVE_UP + G.CONSUMER_INTRO + setup + G.seg_loop(variants)
            + G.unit_loops(loop, variants) + post + G.segment_epilogue() + "\n" + G.store_tile() + "\n" + G.PRODUCERS)

def rendered(variants, consts=None):
    from nvfp4rt.ops.grouped_gemm_cluster import kernel_constants
    return render(text(variants), "sm_90a", consts or kernel_constants())

def ptxas(variants):
    t = rendered(variants)
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "k.ptx"; p.write_text(t)
        r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", str(p), "-o", str(Path(d) / "k.cubin")], capture_output=True, text=True)
        out = r.stdout + r.stderr
    warn = sorted(set(re.findall(r"C75\d\d", out)))
    regs = re.findall(r"Used (\d+) registers", out)
    spill = re.findall(r"(\d+) bytes spill stores", out)
    return warn, regs, spill

if __name__ == "__main__":
    for v in eval(sys.argv[1]):
        print(v, ptxas(tuple(v)))
