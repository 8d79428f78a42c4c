"""Session 21, device run 3: what holds the A_FP4 decoders back.  Variants of the rendered PTX (swapped into a plan):
v2 = lane 0 fences after bar.warp.sync (instead of every thread before it), v3 = no proxy fence (timing only),
v4 = v3 and the next unit's loads issued after the unit's last sub-step (no overlap).  Whole call, best of 3
medians of 40 (us), two rounds; every variant's result is checked once."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s21")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver, reference
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ptxsource import render
import exp1h as H

wd = Watchdog(90)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
keep = []
FENCE = "    fence.proxy.async.shared::cta;            // this thread's stores, before the wgmmas' async-proxy reads\n    bar.warp.sync -1;\n"


def variant(text, v):
    if v == "v2":
        return text.replace(FENCE, "    bar.warp.sync -1;\n    @%p_l0 fence.proxy.async.shared::cta;\n")
    if v in ("v3", "v4"):
        text = text.replace(FENCE, "    bar.warp.sync -1;\n")
    if v == "v4":  # the NEXT block moves from the unit's top to after its last sub-step
        a = text.index("    setp.lt.u32 %p_next, %u, %u_end;\n    @!%p_next bra DEC_NEXT_LOADED;")
        b = text.index("DEC_NEXT_LOADED:\n") + len("DEC_NEXT_LOADED:\n")
        block = text[a:b]
        text = text[:a] + text[b:]
        c = text.index("    @%p_next bra DEC_UNIT;")
        text = text[:c] + block + text[c:]
    return text


def swap(p, v):
    if v == "v1":
        return p
    base = render(open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read(), "sm_90a", dict(p.constants))
    text = variant(base, v)
    assert text != base, v
    mod = load(text, target="sm_90a")
    kern = mod.kernel(GCm._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat, p._launched_maps = kern, None, None, {}
    keep.append(mod)
    return p


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


for kind, (m, n, k) in [("gemm", (128, 7168, 16384)), ("dual", (256, 4096, 7168))]:
    P = DualGemmTilesPlan if kind == "dual" else GemmClusterPlan
    plans = {"prepass": P(m, n, k, 1, a_fp4=False)}
    for v in ("v1", "v2", "v3", "v4"):
        plans[v] = swap(P(m, n, k, 1, a_fp4=True), v)
    for name, p in plans.items():
        (H.check_dual if kind == "dual" else H.check_gemm)(p, m, n, k, 1, f"{kind} {name}")
    d, args, c = (H.dual_args if kind == "dual" else H.gemm_args)(m, n, k, 1, "competition")
    for rnd in range(2):
        print(f"  {kind} {m}x{n}x{k} round {rnd}: " + ";  ".join(f"{nm} {best(lambda: p(*args)):.2f}"
                                                               for nm, p in plans.items()), flush=True)
print("FAILS", H.FAILS, flush=True)
