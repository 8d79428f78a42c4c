import subprocess, sys
sys.path.insert(0, "."); sys.path.insert(0, ".scratch/s20")
from nvfp4rt.ptxsource import render
from nvfp4rt.ops.gemm_wgmma_cluster import kernel_constants
from probes import PROBES
T = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
for name, f in [("ks8", lambda t: t)] + list(PROBES.items()):
    c = kernel_constants(cluster=1, a_bufs=8, ksplit=2)
    txt = render(f(T), "sm_90a", c)
    p = f".scratch/s20/cubins/s20_{name}"
    open(p + ".ptx", "w").write(txt)
    r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", p + ".ptx", "-o", p + ".cubin"], capture_output=True, text=True)
    print(name, r.returncode, [l.strip()[:90] for l in r.stderr.split("\n") if "registers" in l or "C75" in l or "rror" in l or "spill" in l])
