"""Session 12: is the GEMM's unit loop at a hardware limit?  (1) SM clock and power while the GEMM kernel
(128x7168x16384, K split 2) and cuBLAS 8192^3 run back to back for ~3 s (nvidia-smi sampled every 50 ms);
(2) the kernel with parts of the B decode cut out (wrong results; timing only): no decode at all, no scale mul."""
import re, subprocess, time, os, sys
import numpy as np
import nvfp4rt
from nvfp4rt import data
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

OUT = os.environ.get("OUT", "/tmp")
def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))

def sample(tag, fn, seconds=3.0):
    log = f"{OUT}/smi-{tag}.csv"
    proc = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active",
                             "--format=csv,noheader,nounits", "-lms", "50"], stdout=open(log, "w"))
    time.sleep(0.3)
    t0 = time.time(); n = 0
    while time.time() - t0 < seconds:
        for _ in range(50):
            fn()
        n += 50
    nvfp4rt.device().synchronize() if hasattr(nvfp4rt.device(), "synchronize") else None
    from nvfp4rt import driver
    driver.call("cuCtxSynchronize")
    time.sleep(0.2)
    proc.terminate(); proc.wait()
    raw = open(log).read().strip().splitlines()
    rows = [r.split(",") for r in raw]
    if len(rows) < 14 or len(rows[0]) < 4:
        print(tag, "nvidia-smi gave:", raw[:3], flush=True); return
    clk = [float(r[0]) for r in rows[8:-4]]  # steady part
    pw = [float(r[1]) for r in rows[8:-4]]
    thr = sorted(set(r[3].strip() for r in rows[8:-4]))
    print(f"{tag:28s} calls {n:6d} | SM clock MHz median {np.median(clk):6.0f} min {min(clk):6.0f} max {max(clk):6.0f} | "
          f"power W median {np.median(pw):5.0f} max {max(pw):5.0f} | throttle {thr}", flush=True)

print(nvfp4rt.device().properties.name, flush=True)
m, n, k = 128, 7168, 16384
d = data.gemm_data(m, n, k, 1, seed=None)
devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
        for nm in ("a", "b", "sfa", "sfb", "c")}
args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
p = GemmClusterPlan(m, n, k)
p.run(*args)
print(repr(p), flush=True)
base = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()

DEC = re.compile(r"    shf\.l\.wrap\.b32 %xr, %w0, %w0, 3;\n(?:    .*\n){28}    mul\.rn\.f16x2 %(\w)b3, %\wb3, %sw1;\n")
def nodecode(t):
    def rep(mo):
        s = mo.group(1)
        return "".join(f"    mov.b32 %{s}{h}{i}, %w{i % 2};\n" for h in "ab" for i in range(4))
    out, cnt = DEC.subn(rep, t)
    return out, cnt
def noscale(t):
    out, cnt = re.subn(r"    mul\.rn\.f16x2 %\w[ab]\d, %\w[ab]\d, %sw[01];\n", "", t)
    return out, cnt

variants = {"committed": (base, 1)}
variants["no_decode"] = nodecode(base)
variants["no_scale_mul"] = noscale(base)
for nm, (txt, cnt) in variants.items():
    print(f"variant {nm}: {cnt} replacements", flush=True)

def use(txt):
    kern = load(txt, constants=p.constants, target="sm_90a").kernel(GCm._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel = kern
    p._launch = None
    p.run(*args)

for nm, (txt, cnt) in variants.items():
    use(txt)
    print(f"{nm:14s} whole {best(lambda: p.run(*args)):7.2f} kernel {best(p._launch.launch):7.2f}", flush=True)
    sample(f"gemm-kernel-{nm}", p._launch.launch)
use(base)
import torch
x = torch.randn(8192, 8192, dtype=torch.float16, device="cuda")
y = torch.randn(8192, 8192, dtype=torch.float16, device="cuda")
torch.matmul(x, y); torch.cuda.synchronize()
sample("cublas-8192^3", lambda: torch.matmul(x, y))
xs = torch.randn(7168, 16384, dtype=torch.float16, device="cuda")
ys = torch.randn(16384, 128, dtype=torch.float16, device="cuda")
sample("cublas-7168x128x16384", lambda: torch.matmul(xs, ys))
