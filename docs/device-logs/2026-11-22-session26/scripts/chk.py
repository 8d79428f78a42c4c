import sys, subprocess
sys.path.insert(0,'.'); sys.path.insert(0,'.scratch/s26')
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ptxsource import render
import probes
c = G.kernel_constants(1, 8, 1, 2, True, G.DEFAULT_HEAD_WAIT, 2, False)
t = render(open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read(), "sm_90a", c)
for nm in sys.argv[1:]:
    open(f"/tmp/p_{nm}.ptx","w").write(probes.PROBES[nm](t))
    r = subprocess.run(["ptxas","-arch=sm_90a","-v",f"/tmp/p_{nm}.ptx","-o",f"/tmp/p_{nm}.cubin"],capture_output=True,text=True)
    print(nm, r.returncode, [l for l in r.stderr.splitlines() if 'registers' in l or 'error' in l or 'arn' in l][:4])
