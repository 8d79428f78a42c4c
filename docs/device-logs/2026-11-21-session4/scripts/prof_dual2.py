import sys, re
sys.path.insert(0, "tools")
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import dual_gemm_cluster as DC
from dual_gemm_check import device_arrays, NAMES

base = open("ptx/dual_gemm_nvfp4_wgmma_cluster.ptx").read()
V = {"base": base,
     "no_red_read": base.replace("    mov.u32 %cc, %c_lo;\nRED_LOOP:", "    mov.u32 %cc, %c_lo;\n    bra.uni STORE_TILE;\nRED_LOOP:"),
     "no_part_store": re.sub(r"\n    st\.global\.v4\.f32 \[%pw\+\d+\], \{[^}]*\};", "", base),
     "no_fence": base.replace("    fence.acq_rel.gpu;                        // each writer", "    // x"),
     "no_mufu": base.replace("ex2.approx.ftz.f32 %ex, %ex;", "mov.f32 %ex, %ex;").replace("rcp.approx.ftz.f32 %ex, %ex;", "mov.f32 %ex, %ex;"),
     "no_epilogue": base.replace("STORE_TILE:\n", "STORE_TILE:\n    bra.uni NEXT_SEG;\n"),
     }
for k, v in V.items():
    assert k == "base" or v != base, k
dev = nvfp4rt.device()
print(dev.properties.name, flush=True)
for shape, upc in [((256, 4096, 7168, 1), None), ((256, 4096, 7168, 1), 28), ((256, 3072, 4096, 1), None), ((256, 3072, 4096, 1), 8)]:
    m, n, k, l = shape
    d = data.dual_gemm_data(m, n, k, l, seed=1)
    arr = device_arrays(d)
    args = [arr[x] for x in NAMES] + [arr["c"]]
    plan = DC.DualGemmClusterPlan(m, n, k, l, units_per_cluster=upc)
    for name, text in V.items():
        plan.kernel = load(text, constants=plan.constants, device=dev, target="sm_90a").kernel(DC._ENTRY)
        plan.kernel.set_max_dynamic_shared(plan.shared_mem)
        plan._launch = None
        plan._launched_maps = {}
        plan(*args)
        ker = time_op(lambda: plan._launch.launch()).median_us
        print(f"{m}x{n}x{k} upc={plan.geometry.units_per_cluster:3d} {name:14s} kernel {ker:6.1f} us", flush=True)
