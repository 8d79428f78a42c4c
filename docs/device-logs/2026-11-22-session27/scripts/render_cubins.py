"""Session 27: the default K-split build (ks) and the tail-helper build (kh) of the cluster GEMM, rendered and
assembled offline into sass/ks.cubin and sass/kh.cubin (then `cuobjdump -sass` on the device; sass_cmp.py compares)."""
import os, subprocess
from nvfp4rt.ops import gemm_wgmma_cluster as CL
from nvfp4rt.ptxsource import render

TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
BUILDS = {"ks": CL.kernel_constants(1, 8, 1, 2, True, CL.DEFAULT_HEAD_WAIT, 2),
          "kh": CL.kernel_constants(1, 8, 1, 2, True, CL.DEFAULT_HEAD_WAIT, 2, False, True)}
os.makedirs(".scratch/s27/sass", exist_ok=True)
for name, constants in BUILDS.items():
    path = f".scratch/s27/sass/{name}.ptx"
    with open(path, "w") as f:
        f.write(render(TEXT, "sm_90a", constants))
    subprocess.run(["ptxas", "-arch=sm_90a", path, "-o", f".scratch/s27/sass/{name}.cubin"], check=True)
    print(name, constants)
