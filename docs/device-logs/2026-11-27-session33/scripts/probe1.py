"""Session 33, device run 1: what the grouped cluster kernel's fp16 epilogue costs on case 2 (timing only: the
probe builds' outputs are wrong by design).  Text probes of the rendered kernel:
  noepi   the staging and the copy-out skipped, both rounds (STORE_TILE goes straight to OUT_DONE_1);
  round0  round 1 (warpgroup 1's 64 columns) skipped: half the store;
  nocopy  both copy-outs skipped (the staging stays).
Beside them the m-tile plan (the GEMM template, 13 m tiles) on case 2, committed and without its staging/copy-out.
Whole call and kernel alone, L2 cleared, best of 3 medians of 40, two interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
from hang_watchdog import Watchdog  # noqa: E402
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import get_op, time_op  # noqa: E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import gemm_wgmma_cluster as GCL  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan  # noqa: E402
from nvfp4rt.ptxsource import ptx_dir, render  # noqa: E402

wd = Watchdog(200)
keep = []
print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)

CL = (ptx_dir() / "grouped_gemm_nvfp4_wgmma_cluster.ptx").read_text()
S, D0, D1 = "STORE_TILE:\n", "OUT_DONE_0:\n", "OUT_DONE_1:\n"
C0, C1 = "    @%p_more bra OUT_DONE_0;\n", "    @%p_more bra OUT_DONE_1;\n"
for x in (S, D0, D1, C0, C1):
    assert CL.count(x) == 1, x
CL_VARS = {"noepi": CL.replace(S, S + "    bra.uni OUT_DONE_1;                     // probe: no staging, no copy-out\n"),
           "round0": CL.replace(D0, D0 + "    bra.uni OUT_DONE_1;                     // probe: round 1 skipped\n"),
           "nocopy": CL.replace(C0, "    bra.uni OUT_DONE_0;                     // probe: no copy-out\n")
                       .replace(C1, "    bra.uni OUT_DONE_1;                     // probe: no copy-out\n")}
T = (ptx_dir() / "gemm_nvfp4_wgmma_cluster.ptx").read_text()
assert T.count(S) == 1
T_NOEPI = T.replace(S, S + "    bra.uni OUT_DONE;                       // probe: no staging, no copy-out\n")


def swap(p, text, entry):
    mod = load(render(text, "sm_90a", p.constants), target="sm_90a")
    kern = mod.kernel(entry)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    keep.append(mod)


def best(f):
    wd.arm("timing")
    r = min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))
    wd.disarm()
    return r


bench = get_op("grouped_gemm")()
st = bench.make_inputs({"case": 2}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in st.views]
bench.check(st)
print("  case 2: the auto plan passes the reference check", flush=True)
plans = {"cluster committed": GG.plan_grouped_gemm(st.shapes, layouts=layouts)}
assert isinstance(plans["cluster committed"], GC.GroupedGemmClusterPlan), plans["cluster committed"]
for name, text in CL_VARS.items():
    p = GC.GroupedGemmClusterPlan(st.shapes, layouts)
    swap(p, text, GC._ENTRY)
    plans[f"cluster {name}"] = p
plans["mtiles committed"] = GroupedGemmMTilePlan(st.shapes, layouts)
p = GroupedGemmMTilePlan(st.shapes, layouts)
swap(p, T_NOEPI, GCL._ENTRY)
plans["mtiles noepi"] = p
for name, p in plans.items():
    wd.arm(name); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
    print(f"  {name:20s} ran   {p!r}", flush=True)
res = {name: [] for name in plans}
for rnd in range(2):
    for name, p in plans.items():
        res[name].append((best(lambda p=p: p(st.views)), best(lambda p=p: p._launch.launch())))
for name in plans:
    print(f"  case 2 {name:20s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
          + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
