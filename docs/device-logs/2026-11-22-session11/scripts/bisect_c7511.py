import sys, subprocess, tempfile, os
sys.path.insert(0, "tools")
import gen_grouped_gemm_cluster_ptx as g
setup, loop, post = g.split_main_loop()
def build(variants):
    txt = (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + setup + g.seg_loop(variants)
           + g.unit_loops(loop, variants) + post + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
    p = tempfile.mktemp(suffix=".ptx"); open(p, "w").write(txt)
    r = subprocess.run([sys.executable, "tools/ptxas_report.py", p, "-D", "CLUSTER=2", "-D", "A_BUFS=4", "-D", "HEAD_CHECK=1", "-D", "HEAD_WAIT=32768"], capture_output=True, text=True)
    os.unlink(p)
    out = r.stdout + r.stderr
    return "C7511" in out, "C7515" in out, [l for l in out.splitlines() if l.startswith("nvfp4")]
for v in [] and [(256,), (32,), (64,), (128,), (192,), (224,), (32, 256), (128, 256), (224, 256), tuple(range(32,257,32))]:
    print(v, build(v))
print("---")
import itertools
allv = tuple(range(32,257,32))
for k in range(3, 8):
    print(allv[:k-1] + (256,), build(allv[:k-1] + (256,))[:2])
for v in [(64,96,128,256),(160,192,224,256),(32,64,96,128),(96,128,160,256)]:
    print(v, build(v)[:2])
