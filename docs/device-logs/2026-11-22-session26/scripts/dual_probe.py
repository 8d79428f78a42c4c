"""Session 26: which of the loop changes slows the dual tiles build?  Probes (exact) on the HEAD template's rendered
dual text; whole calls (alternated with whole calls) and kernel alone, best of 3 medians of 40, two rounds."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s26")
sys.argv = [sys.argv[0], "none"]
import ab_new as A
from nvfp4rt import driver
from nvfp4rt.module import load
from nvfp4rt.ptxsource import render
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
import probes
import exp1h as H

OLD = open(".scratch/s26/old_cluster.ptx").read()
for (m, n, k) in [(256, 4096, 7168), (512, 3072, 7168)]:
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    plans = {}
    for nm in ["base", "early", "desc64", "pf2", "fp6", "comp", "comp_fp"]:
        p = DualGemmTilesPlan(m, n, k, 1)
        t = render(OLD, "sm_90a", p.constants)
        if nm != "base":
            t = probes.PROBES[nm](t)
        mod = load(t, target="sm_90a")
        kern = mod.kernel(G._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        A.keep.append(mod)
        p.kernel, p._launch, p._repeat = kern, None, None
        A.wd.arm(nm); p(*args); driver.call("cuCtxSynchronize"); A.wd.disarm()
        plans[nm] = p
    A.keep.append((args, c, d))
    print(f"dual {m}x{n}x{k}", flush=True)
    A.rounds({f"{nm} whole": (lambda q: (lambda: q(*args)))(p) for nm, p in plans.items()}, n=2)
    A.rounds({f"{nm} kernel": (lambda q: (lambda: q._launch.launch()))(p) for nm, p in plans.items()}, n=2)
print("done", time.strftime("%H:%M:%S"), flush=True)
