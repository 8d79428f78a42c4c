"""Bisect W1's 13 us (timing only).  P0 = the FUSED_A=0 kernel text with only FUSED_A's parameters added; W1d = W1
with its A16 decoded properly first (the same data as the prepass plan's)."""
import sys, re
from pathlib import Path
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s22")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.launch import _stream_handle
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
import exp1h as H
wd = Watchdog(90); H.wd = wd
dev = nvfp4rt.device()
src = Path("ptx/gemm_nvfp4_wgmma_cluster.ptx").read_text()
t = Path(".scratch/s22/W1.src.ptx").read_text()
W1 = t.replace("    @%p_faall bra FA_READY;\n    shl.b32 %fa_x, %kb, 2;", "    bra.uni FA_READY;\n    shl.b32 %fa_x, %kb, 2;")
# P0: keep the parameter block's conditional, drop every other FUSED_A block
lines, out, skip, first = src.split("\n"), [], False, True
for ln in lines:
    if ln.strip() == "// {{if FUSED_A}}":
        if first:
            first = False; out.append(ln); continue
        skip = True; continue
    if skip and ln.strip() == "// {{endif}}":
        skip = False; continue
    if not skip:
        out.append(ln)
P0 = "\n".join(out)
assert "FA_BODY" not in P0 and "fa_async" not in P0.split(".reg")[0]
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
    for name, text in (("P0", P0), ("W1", W1), ("W1d", W1)):
        p = GemmClusterPlan(m, n, k, 1, fused_a=True); swap(p, text); plans[name] = p
    for name, p in plans.items():
        wd.arm(name); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    for name in ("P0", "W1d"):
        p = plans[name]
        p._decode.launch_pointers(args[0].ptr if hasattr(args[0], "ptr") else None, args[2].ptr, p._a16.ptr, _stream_handle(None, dev))
    driver.call("cuCtxSynchronize")
    for rnd in range(2):
        row = [f"prepass alone {best(lambda: pre._launch.launch()):.2f}"]
        row += [f"{nm} {best(lambda: p._launch.launch()):.2f}" for nm, p in plans.items() if nm != "prepass"]
        print(f"  {m}x{n}x{k} round {rnd}: " + ";  ".join(row), flush=True)
