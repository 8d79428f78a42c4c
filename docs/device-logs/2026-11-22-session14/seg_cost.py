"""Session 14: where a helper's segment end goes (timing only: variants of the KS_HELP text)."""
import time
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

base = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
def v(txt, old, new):
    assert txt.count(old) == 1, old
    return txt.replace(old, new)
v1 = v(base, "    fence.proxy.async.global;                 // W is read by the pair's bulk copies (async proxy)\n", "")
v2 = v(v1, "    ld.param.u64 %pws, [p_ws];\n    bra.uni PW_ROWMAJOR;", "    ld.param.u64 %pws, [p_ws];\n    bra.uni HELP_ARRIVE;")
v3 = v(v2, "    fence.acq_rel.gpu;                        // each writer: W before the counters\n", "")
v4 = v(v3, "    setp.ne.u32 %p_lead, %ct, 0;\n    @%p_lead bra HELP_ARRIVED;\n    ld.param.u64 %pcnt, [p_counters];\n    mul.wide.u32 %off64, %tile, 8;",
       "    st.shared.u32 [%sm_flag], 0;\n    bra.uni HELP_ARRIVED;\n    ld.param.u64 %pcnt, [p_counters];\n    mul.wide.u32 %off64, %tile, 8;")
variants = {"committed": base, "no proxy fence": v1, "+ no W stores": v2, "+ no gpu fence": v3, "+ no atomics": v4}

def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))

print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
for (m, n, k), kw in [((128, 7168, 2048), {"help_tail": 1}), ((128, 7168, 16384), {"help_tail": 8}),
                      ((128, 4096, 7168), {"help_tail": 12})]:
    d = data.gemm_data(m, n, k, 1, seed=None)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    p = GemmClusterPlan(m, n, k, **kw)
    for nm, txt in variants.items():
        kern = load(txt, constants=p.constants, target="sm_90a").kernel(GCm._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch = kern, None
        p.run(*args)
        print(f"{m}x{n}x{k} {kw} {nm:16s} kernel {best(p._launch.launch):7.2f}", flush=True)
