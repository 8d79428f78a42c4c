"""Session 26: the grouped cluster kernel (competition case 2's default) with its producers' per-unit group search and
div.u32 removed, against the kernel at HEAD (old).  Checked bit for bit; whole calls and kernel alone in interleaved
rounds (best of 3 medians of 40, L2 cleared)."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s26")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.module import load
from nvfp4rt.ptxsource import render
from nvfp4rt.ops import grouped_gemm_cluster as GC
from nvfp4rt.ops import grouped_gemm as GG
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench
sys.argv = [sys.argv[0], "none"]
import ab_new as A

OLD = open(".scratch/s26/old_grouped_cluster.ptx").read()


def to_old(p):
    mod = load(render(OLD, "sm_90a", p.constants), target="sm_90a")
    kern = mod.kernel(GC._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    A.keep.append(mod)
    p.kernel, p._launch, p._repeat = kern, None, None
    return p


gb = GroupedGemmBench()
for case in (2,):
    st = gb.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    new = GC.GroupedGemmClusterPlan(list(st.shapes), list(layouts))
    old = to_old(GC.GroupedGemmClusterPlan(list(st.shapes), list(layouts)))
    outs = [arrs["c"] for arrs in st.dev]
    eq = A.same_bits([lambda: new(st.views), lambda: old(st.views)], outs)
    print(f"grouped case {case} {new!r} bits equal {eq}", flush=True)
    A.rounds({"new whole": lambda: new(st.views), "old whole": lambda: old(st.views),
              "new kernel": lambda: new._launch.launch(), "old kernel": lambda: old._launch.launch()})
print("done", time.strftime("%H:%M:%S"), flush=True)
