"""Session 28, device run 3: the SM clock and board power while each build runs back to back (no L2 clear), sampled
by nvidia-smi every 20 ms, with the per-launch time of the same batch (CUDA events): cycles per k256 unit follow.
Builds: the committed K-split GEMM on 128x7168x16384 (32 units per CTA, 112 CTAs), its n64 and dbl probes, the
grouped case 1 m-tile plan and its dbl probe, and cuBLAS fp16 8192^3 (torch) for the ceiling."""
import os, sys, time, subprocess
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s28")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render
import exp1h as H
import probes28 as P

wd = Watchdog(120)
H.wd = wd
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
keep = []
Q = "timestamp,clocks.sm,power.draw,clocks_event_reasons.active"
if subprocess.run(["nvidia-smi", f"--query-gpu={Q}", "--format=csv,noheader"], capture_output=True).returncode:
    Q = "timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active"


def swap(p, text):
    mod = load(text, target="sm_90a")
    kern = mod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    if hasattr(p, "_launched_maps"):
        p._launched_maps = {}
    keep.append(mod)
    return p


def sustained(tag, f, seconds=2.0, sync_every=200):
    for _ in range(50):
        f()
    driver.call("cuCtxSynchronize")
    t0 = time.time(); n = 0
    while time.time() - t0 < 0.3:  # rough rate
        for _ in range(sync_every):
            f()
        driver.call("cuCtxSynchronize"); n += sync_every
    per = (time.time() - t0) / n
    N = int(seconds / per) // sync_every * sync_every
    smi = subprocess.Popen(["nvidia-smi", f"--query-gpu={Q}", "--format=csv,noheader,nounits", "-lms", "20"],
                           stdout=subprocess.PIPE, text=True)
    wd.arm(tag)
    t0 = time.time()
    for i in range(N // sync_every):
        for _ in range(sync_every):
            f()
        driver.call("cuCtxSynchronize")
    t1 = time.time()
    wd.disarm()
    smi.terminate()
    out = smi.communicate()[0]
    rows = []
    for line in out.strip().splitlines():
        parts = [x.strip() for x in line.split(",")]
        try:
            clk, pw = float(parts[1]), float(parts[2])
        except (ValueError, IndexError):
            continue
        rows.append((clk, pw, parts[3] if len(parts) > 3 else ""))
    busy = [r for r in rows if r[0] > 1000]
    us = (t1 - t0) / N * 1e6
    clks = sorted(r[0] for r in busy); pws = sorted(r[1] for r in busy)
    reasons = sorted(set(r[2] for r in busy))
    med = lambda v: v[len(v) // 2] if v else float("nan")
    print(f"{tag:34s} {us:8.2f} us/launch (host, back to back, {N} launches)  SM clock median {med(clks):.0f} MHz "
          f"(p10 {clks[len(clks)//10] if clks else 0:.0f}, p90 {clks[9*len(clks)//10] if clks else 0:.0f}, "
          f"{len(busy)} samples)  power median {med(pws):.0f} W  reasons {reasons}", flush=True)
    return us, med(clks)


m, n, k = 128, 7168, 16384
d, args, c = H.gemm_args(m, n, k, 1, "competition")
base = GemmClusterPlan(m, n, k, 1)
bt = render(TEXT, "sm_90a", base.constants)
plans = {"base": base, "n64": swap(GemmClusterPlan(m, n, k, 1), P.n64(bt)),
         "dbl": swap(GemmClusterPlan(m, n, k, 1), P.dbl(bt))}
for nm, p in plans.items():
    p(*args); driver.call("cuCtxSynchronize")
for rnd in range(2):
    for nm, p in plans.items():
        us, clk = sustained(f"gemm {m}x{n}x{k} {nm}", p._launch.launch)
        units = 32 * (2 if nm == "dbl" else 1)
        print(f"    ~{(us - 8) / units:.3f} us per unit if ~8 us are fixed: {(us - 8) / units * clk:.0f} cycles "
              f"(tensor work per unit x{0.5 if nm == 'n64' else 2 if nm == 'dbl' else 1})", flush=True)

try:
    import torch
    a = torch.randn(8192, 8192, dtype=torch.float16, device="cuda")
    b = torch.randn(8192, 8192, dtype=torch.float16, device="cuda")
    cc = torch.empty(8192, 8192, dtype=torch.float16, device="cuda")
    f = lambda: torch.matmul(a, b, out=cc)
    f(); torch.cuda.synchronize()
    us, clk = sustained("cublas fp16 8192^3", lambda: torch.matmul(a, b, out=cc), sync_every=5)
    print(f"    {2 * 8192**3 / us / 1e6:.0f} TFLOP/s; per SM per 128x128xk256 unit {2*128*128*256 / (2 * 8192**3 / us / 132) :.3f} us"
          f" = {2*128*128*256 / (2 * 8192**3 / us / 132) * clk:.0f} cycles", flush=True)
except Exception as e:
    print("torch:", e)
print("done", time.strftime("%H:%M:%S"), flush=True)
