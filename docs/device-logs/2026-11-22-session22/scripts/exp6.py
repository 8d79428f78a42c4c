"""Bisect the producer side of W1 (timing only; consumers do not decode, nothing waits)."""
import sys
from pathlib import Path
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s22")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H
wd = Watchdog(90); H.wd = wd
dev = nvfp4rt.device()
W1 = Path(".scratch/s22/W1.src.ptx").read_text()
def cut(t, start, end_marker, keep_end=True):
    s = t.index(start); e = t.index(end_marker, s)
    return t[:s] + (t[e:] if keep_end else t[e + len(end_marker):])
# X3: no A_SUBSTEP block at all
X3 = cut(W1, "// {{if FUSED_A}}\n    // chunk (batch, mt, 4 kb + j)", "    // wait until every consumer warp of the cluster released buffer ab")
# X2: X3 without the end-of-run count
X2 = X3.replace("// {{if FUSED_A}}\n    @%p_more red.relaxed.gpu.global.add.u64 [%fa_async], 1;    // this CTA is counted (its read above came first)\n// {{endif}}\n", "")
# X1: X2 without the producer's start block
X1 = cut(X2, "// {{if FUSED_A}}\n    // launches before this one", "    mov.u32 %ab, 0;")
VARS = {"X3 (no substep block)": X3, "X2 (+ no red)": X2, "X1 (+ no start block)": X1}
for n, t in VARS.items():
    assert t != W1, n
assert X2 != X3 and X1 != X2
def best(f, n=3, iters=40):
    wd.arm("t"); r = min(time_op(f, iters=iters).median_us for _ in range(n)); wd.disarm(); return r
def swap(p, text):
    kk = load(text, constants=p.constants, device=dev, target="sm_90a").kernel("nvfp4_gemm_wgmma_cluster")
    kk.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat, p._launched_maps = kk, None, None, {}
for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    pre = GemmClusterPlan(m, n, k, 1, fused_a=False)
    plans = {"prepass": pre}
    for name, text in VARS.items():
        p = GemmClusterPlan(m, n, k, 1, fused_a=True); swap(p, text); plans[name] = p
    for name, p in plans.items():
        wd.arm(name); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    for rnd in range(2):
        row = [f"{nm} {best(lambda: p._launch.launch()):.2f}" for nm, p in plans.items()]
        print(f"  {m}x{n}x{k} round {rnd}: " + ";  ".join(row), flush=True)
