"""Session 28, device run 8: the microbenchmark (wgrate2.py) with its shared memory filled with zeros (fragments from
zero words decode to zero) against its default fill: the clock rises when the operands cost less power; do the
cycles per unit stay 2048, and what is the wall time per unit?  Grid 132 and 112, kind dec (nbuf=8, scl=1) and none."""
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
for fill in ("default", "zero"):
    for spec in ("dec:nbuf=8:scl=1", "none:nbuf=8"):
        kind, *opts = spec.split(":")
        kw = {k2: int(v) for k2, v in (o.split("=") for o in opts)}
        text = W.kernel(kind, pieces=pieces, **kw)
        if fill == "zero":
            old = "  and.b32 %v, %v, 0x37FF37FF;\n"
            assert text.count(old) == 1
            text = text.replace(old, "  and.b32 %v, %v, 0;\n")
        mod = load(text, target="sm_90a")
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
            us, clk = s28h.sustained(f"wgrate2 {fill} {spec} grid {grid}", f, seconds=1.5, sync_every=20)
            buf = np.zeros(132 * 640 * 2, np.uint64)
            driver.call("cuMemcpyDtoH", buf.ctypes.data, out.ptr, buf.nbytes)
            cyc2 = np.median(buf.reshape(132, 640, 2)[:grid, :256, 0].astype(np.int64)) / units
            print(f"    %clock64: {cyc:.0f} cycles per unit (first launch), {cyc2:.0f} (last of the sustained run); back to "
                  f"back {us / units * 1e3:.1f} ns per unit at {clk:.0f} MHz = {us / units * clk:.0f} cycles", flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
