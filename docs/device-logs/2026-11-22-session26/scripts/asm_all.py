import sys, subprocess, itertools
sys.path.insert(0,'.')
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ptxsource import render
T = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
combos = [dict(), dict(cluster=1, ksplit=2), dict(cluster=1, ksplit=2, ks_stream=True), dict(cluster=1, ksplit=2, ks_help=True),
          dict(cluster=1, ksplit=4), dict(grouped=True), dict(grouped=True, cluster=1), dict(dual=True), dict(dual=True, cluster=1),
          dict(fused_a=True), dict(cluster=1, ksplit=2, fused_a=True), dict(consumer_wgs=3, a_bufs=4), dict(wgmma_depth=3, a_bufs=8), dict(cluster=4)]
for kw in combos:
    c = G.kernel_constants(**kw)
    open("/tmp/v.ptx","w").write(render(T, "sm_90a", c))
    r = subprocess.run(["ptxas","-arch=sm_90a","-v","/tmp/v.ptx","-o","/dev/null"],capture_output=True,text=True)
    info = [l.split(":")[-1].strip() for l in r.stderr.splitlines() if "registers" in l or "error" in l or "spill" in l.lower() and "0 bytes spill" not in l]
    print(r.returncode, kw, info[:3])
