"""Session 28 helpers: kernel swaps, L2-cleared timing, and sustained runs with nvidia-smi clock sampling."""
import subprocess, time
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G
wd = None
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




def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r
