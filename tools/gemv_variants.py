"""Compare the GEMV kernel variants (16-byte vector loads vs TMA) on the benchmark shapes.

    PYTHONPATH=. python3 tools/gemv_variants.py

Raw driver allocations, fresh competition data, NaN-poisoned output, a correctness
check against the float64 reference, then the median of 100 L2-cleared launches
timed with CUDA events.  docs/gemv.md quotes its output.
"""
import sys, time, dataclasses, numpy as np, nvfp4rt
from nvfp4rt import driver, data, reference
from nvfp4rt.ops import gemv as G, gemv_tma as T

dev = nvfp4rt.device(); S0 = driver.raw.CUstream(0)
def alloc(arr):
    arr = np.ascontiguousarray(arr); p = int(driver.call("cuMemAlloc", arr.nbytes)); driver.call("cuMemcpyHtoD", p, arr.ctypes.data, arr.nbytes); return p
class P:
    def __init__(s, p): s.ptr = p
SMALL = "--small" in sys.argv  # for compute-sanitizer: small shapes, few launches
SHAPES = [(129, 1024, 3), (1, 512, 1), (77, 2048, 2), (8, 16384, 1)] if SMALL else [(7168,16384,1),(4096,7168,8),(7168,2048,4)]
ITERS = 3 if SMALL else 110
bad = 0
for (m,k,l) in SHAPES:
    d = data.gemv_data(m,k,l,seed=None)
    ref = reference.gemv_ref(d.a,d.b,d.sfa,d.sfb)
    ptr = {n: alloc(d.physical(n).view(np.uint8) if n.startswith("sf") else d.physical(n)) for n in ("a","b","sfa","sfb")}
    c = alloc(np.full((l,m,1), np.nan, np.float16))
    lay = dataclasses.replace(G.GemvLayout.contiguous(m,k,l,b_rows=128), c_row=1, c_batch=m)
    for name, plan in (("vector", G.GemvPlan(m,k,l,lay)), ("tma", T.GemvTmaPlan(m,k,l,lay))):
        call = lambda: plan(P(ptr["a"]),P(ptr["b"]),P(ptr["sfa"]),P(ptr["sfb"]),P(c))
        call(); driver.call("cuCtxSynchronize")
        out = np.empty((l,m,1),np.float16); driver.call("cuMemcpyDtoH", out.ctypes.data, c, out.nbytes)
        res = reference.check(out.transpose(1,2,0), ref)
        flush = int(driver.call("cuMemAlloc", 200<<20)); e0=driver.call("cuEventCreate",0); e1=driver.call("cuEventCreate",0); ts=[]
        for i in range(ITERS):
            driver.call("cuMemsetD8Async", flush, i&255, 200<<20, S0); driver.call("cuEventRecord", e0, S0); call(); driver.call("cuEventRecord", e1, S0); driver.call("cuEventSynchronize", e1); ts.append(driver.call("cuEventElapsedTime", e0, e1)*1000)
        med = float(np.median(ts[min(10, ITERS - 1):])); nb = l*(m*k//2+m*k//16+k//2+k//16+2*m)
        bad += not res.ok
        print(f"{name:6s} {m},{k},{l}: {'OK' if res.ok else res} median {med:.1f} us {nb/med/1e3:.0f} GB/s", flush=True)
        driver.call("cuMemFree", flush)

sys.exit(1 if bad else 0)
