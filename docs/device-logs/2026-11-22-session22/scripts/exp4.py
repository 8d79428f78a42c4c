"""Does the launch attribute decide it?  Kernel-alone times of the prepass GEMM and of W1 (FUSED_A without the
consumers' decode, producer not waiting; timing only) with programmatic True / False."""
import sys
from pathlib import Path
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s22")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.launch import _build_config
from nvfp4rt.module import load
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H
wd = Watchdog(90); H.wd = wd
dev = nvfp4rt.device()
t = Path(".scratch/s22/W1.src.ptx").read_text()
old = "    @%p_faall bra FA_READY;\n    shl.b32 %fa_x, %kb, 2;"
W1 = t.replace(old, "    bra.uni FA_READY;\n    shl.b32 %fa_x, %kb, 2;")
def best(f, n=3, iters=40):
    wd.arm("t"); r = min(time_op(f, iters=iters).median_us for _ in range(n)); wd.disarm(); return r
def setpdl(p, on):
    L = p._launch
    L._config = _build_config(L.kernel, L.geometry, L.shared_mem, L._stream_handle, on)
for (m, n, k) in [(128, 7168, 16384), (128, 7168, 2048)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    pre = GemmClusterPlan(m, n, k, 1, fused_a=False)
    w1 = GemmClusterPlan(m, n, k, 1, fused_a=True)
    kk = load(W1, constants=w1.constants, device=dev, target="sm_90a").kernel("nvfp4_gemm_wgmma_cluster")
    kk.set_max_dynamic_shared(w1.shared_mem)
    w1.kernel, w1._launch, w1._repeat, w1._launched_maps = kk, None, None, {}
    fu = GemmClusterPlan(m, n, k, 1, fused_a=True)
    for p in (pre, w1, fu):
        wd.arm("x"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    for rnd in range(2):
        row = []
        for name, p in (("prepass", pre), ("W1", w1), ("fused", fu)):
            for on in (True, False):
                setpdl(p, on)
                row.append(f"{name} pdl={int(on)} {best(lambda: p._launch.launch()):.2f}")
        print(f"  {m}x{n}x{k} round {rnd}: " + ";  ".join(row), flush=True)
