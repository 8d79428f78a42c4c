"""Render the K-split build of the GEMM cluster kernel (128x7168x16384's constants) as committed and with
fma.rn.f16x2 x, s, -0 in place of mul.rn.f16x2 x, s, for sass.sh (run offline, before the device call)."""
import re, sys
sys.path.insert(0, ".scratch/s12")
from nvfp4rt.ptxsource import render
from nvfp4rt.ops.gemm_wgmma_cluster import kernel_constants
import ab2

c = kernel_constants(1, 10, 1, 2, True, 32768, 2)
t = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
open(".scratch/s12/sass/committed.ptx", "w").write(render(t, "sm_90a", c))
open(".scratch/s12/sass/fma.ptx", "w").write(render(ab2.fma_negz(t), "sm_90a", c))
