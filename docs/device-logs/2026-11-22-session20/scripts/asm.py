import subprocess, sys
sys.path.insert(0, ".")
from nvfp4rt.ptxsource import render
from nvfp4rt.ops.gemm_wgmma_cluster import kernel_constants
T = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
for name, kw in [("ks10", dict(cluster=1, a_bufs=10, ksplit=2)), ("ks8", dict(cluster=1, a_bufs=8, ksplit=2)),
                 ("ks8old", dict(cluster=1, a_bufs=8, ksplit=2)), ("dual8", dict(cluster=1, a_bufs=8, dual=True)),
                 ("sk8c2", dict(cluster=2, a_bufs=8)), ("sk4c4", dict(cluster=4, a_bufs=4)), ("pairs8", dict(cluster=1, a_bufs=8, ksplit=2, ks_stream=True)),
                 ("help8", dict(cluster=1, a_bufs=8, ksplit=2, ks_help=True)), ("grp8", dict(cluster=2, a_bufs=8, grouped=True))]:
    c = kernel_constants(**kw)
    if name.endswith("old"): c["A_UNIT"] = 0
    txt = render(T, "sm_90a", c)
    p = f"/tmp/s20_{name}"
    open(p + ".ptx", "w").write(txt)
    r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", p + ".ptx", "-o", p + ".cubin"], capture_output=True, text=True)
    print(name, c["A_UNIT"], r.returncode, [l.strip()[:100] for l in r.stderr.split("\n") if "registers" in l or "C75" in l or "rror" in l or "spill" in l])
