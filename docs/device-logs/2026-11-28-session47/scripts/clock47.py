"""Session 47: the SM clock and board power while the dual's 256 x 3072 x 4096 runs back to back for 3 s per plan:
the op's 96 whole tiles, the checked stream-K runs of 12 units on 128 CTAs, the same runs with the exchange cut out
(dual47.py's timing-only build), and torch's fp16 8192^3 matmul (the ceiling's kernel) for comparison.  nvidia-smi
samples every 20 ms in the background (dev3.sh); this script prints each phase's wall-clock span so the samples can be
assigned.  Usage (from the repository root): clock47.py"""
import sys
import time

sys.path.insert(0, ".")
sys.path.insert(0, "docs/device-logs/2026-11-28-session47/scripts")
sys.path.insert(0, "docs/device-logs/2026-11-22-session27/scripts")
import dual47  # noqa: E402
import exp1h as H  # noqa: E402
import nvfp4rt  # noqa: E402
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.ops import dual_gemm  # noqa: E402
from nvfp4rt.ops import dual_gemm_tiles as DT  # noqa: E402


def spin(name, call, seconds=3.0):
    call()
    driver.call("cuCtxSynchronize")
    t0, n = time.time(), 0
    while time.time() - t0 < seconds:
        for _ in range(200):
            call()
        driver.call("cuCtxSynchronize")
        n += 200
    t1 = time.time()
    print(f"{name:12s} from {t0:.3f} to {t1:.3f}: {n} calls, {(t1 - t0) / n * 1e6:.2f} us per call back to back",
          flush=True)
    time.sleep(1.0)


def main():
    dev = nvfp4rt.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    m, n, k = 256, 3072, 4096
    plans = {"whole": dual_gemm.plan_dual_gemm_silu(m, n, k),
             "c1u12": DT.DualGemmTilesPlan(m, n, k, 1, cluster=1, units_per_cluster=12)}
    DT._kernel = dual47.loader(True, False)
    plans["c1u12 free"] = DT.DualGemmTilesPlan(m, n, k, 1, cluster=1, units_per_cluster=12)
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    time.sleep(1.0)
    for nm, p in plans.items():
        spin(nm, lambda p=p: p(*args))
    import torch
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    out = torch.empty_like(a)
    torch.cuda.synchronize()
    t0 = time.time()
    while time.time() - t0 < 3.0:
        for _ in range(20):
            torch.matmul(a, b, out=out)
        torch.cuda.synchronize()
    print(f"{'torch 8192^3':12s} from {t0:.3f} to {time.time():.3f}", flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    main()
