"""Session 29, device run 7: where the L2 policies act.  Per-unit and fixed time from two unit counts (128x7168xK, K =
16384 and 8192: 32 and 16 units per CTA on 112 CTAs; kernel alone, L2 cleared, best of 3 medians of 40, two rounds)
for the text before the policies (old), the committed text (new), new with 4 B stages (stages=4), and old with no
transfers or waits after the first lap (old+nobar, session 26's timing probe)."""
import sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s29")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H
import s28h
import probes26 as P26

wd = Watchdog(150)
H.wd = s28h.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
OLD = open(".scratch/s29/gemm_old.ptx").read()
H.check_gemm(GemmClusterPlan(128, 7168, 2048, 1, stages=4), 128, 7168, 2048, 1, "check stages=4")
plans = {}
for k in (16384, 8192):
    d, args, c = H.gemm_args(128, 7168, k, 1, "competition")
    s28h.keep.append((d, args, c))
    base = GemmClusterPlan(128, 7168, k, 1)
    ot = render(OLD, "sm_90a", base.constants)
    cand = {"old": s28h.swap(GemmClusterPlan(128, 7168, k, 1), ot), "new": GemmClusterPlan(128, 7168, k, 1),
            "new stages=4": GemmClusterPlan(128, 7168, k, 1, stages=4),
            "old+nobar": s28h.swap(GemmClusterPlan(128, 7168, k, 1), P26.PROBES["nobar"](ot))}
    for nm, p in cand.items():
        wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        plans[(nm, k)] = p
    print(f"K={k}: {cand['new']!r} / {cand['new stages=4']!r}", flush=True)
for rnd in range(2):
    t = {key: s28h.best(lambda p=p: p._launch.launch()) for key, p in plans.items()}
    for nm in ("old", "new", "new stages=4", "old+nobar"):
        per = (t[(nm, 16384)] - t[(nm, 8192)]) / 16
        print(f"{nm:13s}: {t[(nm, 16384)]:.2f} / {t[(nm, 8192)]:.2f} us at 32 / 16 units per CTA -> "
              f"{per * 1e3:.0f} ns per unit (fixed {t[(nm, 8192)] - 16 * per:.1f} us)", flush=True)
print("FAILS:", H.FAILS, "done", time.strftime("%H:%M:%S"), flush=True)
