"""Session 28, device run 6: session 23's microbenchmark (wgrate2.py: the GEMM's piece, two register-A m64n128k16
wgmmas after the decode) timed in microseconds beside its own %clock64 count, with nvidia-smi sampling the clock:
does its 2048 cycles per unit hold in wall time?  Grid 132 and 112; kinds none / dec, nbuf=8, scl=1."""
import sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s28")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.module import load
from nvfp4rt.launch import Pointer
from nvfp4rt.memory import DeviceAllocation
from nvfp4rt.bench import time_op
import wgrate2 as W
import s28h

wd = Watchdog(120)
s28h.wd = wd
print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
pieces = 4096
units = pieces / 8
out = DeviceAllocation(132 * 640 * 16)
for spec in ("dec:nbuf=8:scl=1", "none:nbuf=8", "dec:nbuf=8:scl=1:arr=1:bw=1"):
    kind, *opts = spec.split(":")
    kw = {k2: int(v) for k2, v in (o.split("=") for o in opts)}
    mod = load(W.kernel(kind, pieces=pieces, **kw), target="sm_90a")
    s28h.keep.append(mod)
    kern = mod.kernel("wgrate")
    shm = 1024 + 33792 + 16384 * kw.get("nbuf", 0)
    kern.set_max_dynamic_shared(shm)
    for grid in (132, 112):
        f = lambda: kern(Pointer(out.ptr), grid=grid, block=384, shared_mem=shm)
        f(); driver.call("cuCtxSynchronize")
        buf = np.zeros(132 * 640 * 2, np.uint64)
        driver.call("cuMemcpyDtoH", buf.ctypes.data, out.ptr, buf.nbytes)
        cyc = np.median(buf.reshape(132, 640, 2)[:grid, :256, 0].astype(np.int64)) / units
        t = time_op(f, iters=20, clear_l2=False).median_us
        us, clk = s28h.sustained(f"wgrate2 {spec} grid {grid}", f, seconds=1.5, sync_every=20)
        print(f"    {cyc:.0f} cycles per unit by %clock64; {t:.1f} us per launch (events) = {t / units * 1e3:.2f} ns per "
              f"unit; back to back {us / units * 1e3:.2f} ns per unit at {clk:.0f} MHz = {us / units * clk:.0f} cycles",
              flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
