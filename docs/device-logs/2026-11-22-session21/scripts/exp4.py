"""Session 21, device run 5: the staged decode, thread-per-piece form (one unit per CTA pass), beside the A16_WAIT
GEMM.  (a) correctness + counts; (b) whole call / kernel alone against the default plan, with producer variants
(timing only): nofence = no fence.proxy.async.global after the wait; nopoll = no wait at all (kernel alone only
means anything).  Two interleaved rounds, best of 3 medians of 40 (us), L2 cleared."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s21")
import numpy as np
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H

wd = Watchdog(90)
H.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
keep = []


def swap(p, v):
    base = render(open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read(), "sm_90a", dict(p.constants))
    if v == "nofence":
        text = base.replace("    @%p_x bra A_WAIT_DECODED;\n    fence.proxy.async.global;\n", "    @%p_x bra A_WAIT_DECODED;\n")
    else:
        a = base.index("A_WAIT_DECODED:\n")
        b = base.index("    fence.proxy.async.global;\n", a) + len("    fence.proxy.async.global;\n")
        text = base[:a] + base[b:]
    assert text != base
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


if __name__ == "__main__":
    print("== (a) correctness, staged_decode=True", flush=True)
    for (m, n, k, l), kw in [((128, 7168, 16384, 1), {}), ((128, 7168, 2048, 1), {}), ((64, 7168, 4096, 1), {}),
                             ((130, 2048, 7168, 1), dict(ksplit=4)), ((200, 1000, 1536, 2), dict(ksplit=2)),
                             ((300, 640, 4096, 3), dict(ksplit=8)), ((77, 513, 1088, 1), dict(ksplit=1 + 4))]:
        try:
            p = GemmClusterPlan(m, n, k, l, staged_decode=True, **kw)
        except ValueError as e:
            print(f"  {m}x{n}x{k}x{l} {kw}: {e}", flush=True)
            continue
        print(f"  {p!r}", flush=True)
        H.check_gemm(p, m, n, k, l, f"gemm {m}x{n}x{k}x{l} {kw}")
        cnt = np.zeros(p._decode.units, np.uint32)
        driver.call("cuMemcpyDtoH", cnt.ctypes.data, p._a16_counts.ptr, cnt.nbytes)
        print(f"    counts: {sorted(set(cnt.tolist()))} after {p._epoch} calls", flush=True)
    print("FAILS:", H.FAILS, flush=True)

    print("== (b) whole call / kernel alone (us), two rounds, best of 3 medians", flush=True)
    for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048), (64, 7168, 4096)]:
        d, args, c = H.gemm_args(m, n, k, 1, "competition")
        plans = {"default": GemmClusterPlan(m, n, k, 1), "staged": GemmClusterPlan(m, n, k, 1, staged_decode=True),
                 "nofence": swap(GemmClusterPlan(m, n, k, 1, staged_decode=True), "nofence"),
                 "nopoll": swap(GemmClusterPlan(m, n, k, 1, staged_decode=True), "nopoll")}
        for nm, p in plans.items():
            wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        print(f"  {m}x{n}x{k}: {plans['staged']!r}", flush=True)
        for rnd in range(2):
            row = []
            for nm, p in plans.items():
                row.append(f"{nm} {best(lambda: p(*args)):.2f} / {best(lambda: p._launch.launch()):.2f}")
            print(f"    round {rnd}: " + ";  ".join(row), flush=True)
    print("done", flush=True)
