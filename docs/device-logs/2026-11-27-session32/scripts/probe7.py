"""Session 32, device run 10: how much of the GEMM template's epilogue a store overlapped with the next tile could
hide (timing only; outputs wrong by design).  Text probes of the rendered template:
  nocopy  the copy-out of the staging tile skipped (no fp16 stores to c);
  noepi   the staging and the copy-out skipped (STORE_TILE goes straight to OUT_DONE).
On grouped case 1 (m-tile plan, stream-K, about 2.7 tiles per CTA), grouped case 3 (one whole tile per CTA), the dual
512x4096x7168 (two whole tiles per CTA) and 256x3072x4096 (one).  Whole call and kernel alone, best of 3 medians of 40,
L2 cleared, two interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
sys.path.insert(0, "docs/device-logs/2026-11-22-session27/scripts")
from hang_watchdog import Watchdog  # noqa: E402
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import get_op, time_op  # noqa: E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import dual_gemm  # noqa: E402
from nvfp4rt.ops import gemm_wgmma_cluster as GCL  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ptxsource import ptx_dir, render  # noqa: E402
import exp1h as H  # noqa: E402

wd = Watchdog(200)
keep = []
print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = (ptx_dir() / "gemm_nvfp4_wgmma_cluster.ptx").read_text()
A, B = "    @!%p_col bra OUT_LOOP;\n", "STORE_TILE:\n"
assert TEXT.count(A) == 1 and TEXT.count(B) == 1
VARS = {"nocopy": TEXT.replace(A, "    bra.uni OUT_DONE;                       // probe: no copy-out\n"),
        "noepi": TEXT.replace(B, B + "    bra.uni OUT_DONE;                       // probe: no staging, no copy-out\n")}


def swap(p, text):
    mod = load(render(text, "sm_90a", p.constants), target="sm_90a")
    kern = mod.kernel(GCL._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}
    keep.append(mod)


def best(f):
    wd.arm("timing")
    r = min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))
    wd.disarm()
    return r


cases = []
bench = get_op("grouped_gemm")()
for case in (1, 3):
    st = bench.make_inputs({"case": case}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    for name in ("committed",) + tuple(VARS):
        p = GG.plan_grouped_gemm(st.shapes, layouts=layouts) if name == "committed" else None
        if p is None:
            from nvfp4rt.ops.grouped_gemm_mtiles import GroupedGemmMTilePlan
            p = GroupedGemmMTilePlan(st.shapes, layouts)
            swap(p, VARS[name])
        wd.arm(name); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
        cases.append((f"case {case} {name}", st, (lambda p=p, s=st: p(s.views)), p))
for m, n, k in [(512, 4096, 7168), (256, 3072, 4096)]:
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    for name in ("committed",) + tuple(VARS):
        if name == "committed":
            p = dual_gemm.plan_dual_gemm_silu(m, n, k)
        else:
            from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
            p = DualGemmTilesPlan(m, n, k, 1)
            swap(p, VARS[name])
        wd.arm(name); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        cases.append((f"dual {m}x{n}x{k} {name}", (d, args, c), (lambda p=p, a=args: p(*a)), p))
res = {name: [] for name, *_ in cases}
for rnd in range(2):
    for name, _keep, whole, p in cases:
        res[name].append((best(whole), best(lambda p=p: p._launch.launch())))
for name, *_ in cases:
    print(f"{name:34s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
          + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
