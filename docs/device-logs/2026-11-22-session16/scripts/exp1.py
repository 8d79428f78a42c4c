"""Session 16, device run 1:
A. GEMV with an L2 evict-first policy on A (and sfa) against the committed kernel, memset clear (the bench's).
B. bw_read with and without evict-first at the GEMV sizes (the same-size read floor under each policy).
C. The cluster GEMM in whole tiles (cluster 1, one tile per CTA) against the plan's own pick."""
import sys, time, dataclasses, re
from pathlib import Path
import numpy as np
import nvfp4rt
from nvfp4rt import data, reference, driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ptxsource import ptx_dir
from nvfp4rt.ops import gemv as G
sys.path.insert(0, str(Path(__file__).parent))
from ef_variants import variant

dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
def best(f, n=3, iters=100):
    return min(time_op(f, iters=iters).median_us for _ in range(n))

# ---------------------------------------------------------------- A. GEMV
kern = {nm: load(variant(nm), device=dev, target="sm_90a").kernel("nvfp4_gemv") for nm in ("base", "ef_a", "ef_a_sfa")}
SHAPES = [(7168, 16384, 1), (4096, 7168, 8), (7168, 2048, 4)]
plans = {}
for (m, k, l) in SHAPES:
    d = data.gemv_data(m, k, l, seed=None)
    ref = reference.gemv_ref(d.a, d.b, d.sfa, d.sfb)
    arr = {n: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(n)).view(np.uint8)) for n in ("a", "b", "sfa", "sfb")}
    lay = dataclasses.replace(G.GemvLayout.contiguous(m, k, l, b_rows=128), c_row=1, c_batch=m)
    for nm, kk in kern.items():
        c = nvfp4rt.from_numpy(np.full((l, m), np.nan, np.float16))
        p = G.GemvPlan(m, k, l, lay, kernel=kk)
        p(arr["a"], arr["b"], arr["sfa"], arr["sfb"], c); driver.call("cuCtxSynchronize")
        out = c.numpy().T.reshape(m, 1, l)
        res = reference.check(out, ref)
        print(f"gemv {m},{k},{l} {nm:9s}: {'OK' if res.ok else res}", flush=True)
        plans[(m, k, l, nm)] = (p, arr, c)
for rnd in range(2):
    for (m, k, l) in SHAPES:
        row = []
        for nm in kern:
            p, arr, c = plans[(m, k, l, nm)]
            row.append(f"{nm} {best(lambda: p(arr['a'], arr['b'], arr['sfa'], arr['sfb'], c)):6.2f}")
        print(f"round {rnd} gemv {m},{k},{l}: " + "  ".join(row), flush=True)

# ---------------------------------------------------------------- B. bw_read
src = (ptx_dir() / "bw_read.ptx").read_text()
ef = src.replace("    .reg .b64   %rd<16>;", "    .reg .b64   %rd<16>;\n    .reg .b64   %pol_ef;", 1)
ef = ef.replace("    cvta.to.global.u64  %rd3, %rd3;", "    cvta.to.global.u64  %rd3, %rd3;\n    createpolicy.fractional.L2::evict_first.b64 %pol_ef, 1.0;", 1)
ef, n = re.subn(r"ld\.global\.nc\.v4\.u32 (\{[^}]*\}), \[(%rd\d+)\];", r"ld.global.nc.L2::cache_hint.v4.u32 \1, [\2], %pol_ef;", ef)
print("bw_read ef loads:", n, flush=True)
bw = {"base": load(src, device=dev).kernel("bw_read"), "ef": load(ef, device=dev).kernel("bw_read")}
out = nvfp4rt.from_numpy(np.zeros(4, np.uint32))
grid = dev.properties.sm_count * 8
for rnd in range(2):
    for mb in (33.1, 66.1, 132.2):
        nb = int(mb * 1e6) // 16 * 16
        buf = nvfp4rt.from_numpy(np.full(nb // 4, 0x3F8003A5, np.uint32))
        row = []
        for nm, kk in bw.items():
            f = lambda: kk(buf.ptr, nb // 16, out.ptr, grid=(grid, 1, 1), block=(256, 1, 1), shared_mem=0)
            row.append(f"{nm} {best(f):6.2f}")
        print(f"round {rnd} bw_read {mb} MB: " + "  ".join(row), flush=True)
        del buf

# ---------------------------------------------------------------- C. GEMM whole tiles
from nvfp4rt.array import asarray
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
GS = [(640, 3072, 4096), (512, 4096, 1536), (256, 7168, 2048), (384, 4096, 4096), (1024, 2048, 2048),
      (192, 3072, 4096), (320, 3072, 4096), (128, 7168, 2048), (256, 4096, 7168), (768, 2048, 4096), (896, 2048, 3072)]
gp = {}
for (m, n, k) in GS:
    d = data.gemm_data(m, n, k, 1, seed=None)
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
            for nm in ("a", "b", "sfa", "sfb", "c")}
    args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
    for tag in ("auto", "whole"):
        try:
            p = GemmClusterPlan(m, n, k) if tag == "auto" else GemmClusterPlan(m, n, k, cluster=1, units_per_cluster=-(-k // 256))
        except Exception as e:
            print(f"gemm {m}x{n}x{k} {tag}: refused {e}", flush=True); continue
        devs["c"].fill(np.nan) if hasattr(devs["c"], "fill") else None
        p.run(*args); driver.call("cuCtxSynchronize")
        res = reference.check(devs["c"].numpy().transpose(1, 2, 0), ref)
        print(f"gemm {m}x{n}x{k} {tag}: {'OK' if res.ok else res}  {p!r}", flush=True)
        gp[(m, n, k, tag)] = (p, args)
for rnd in range(2):
    for (m, n, k) in GS:
        row = []
        for tag in ("auto", "whole"):
            if (m, n, k, tag) in gp:
                p, args = gp[(m, n, k, tag)]
                row.append(f"{tag} {best(lambda: p.run(*args), iters=60):6.2f}")
        print(f"round {rnd} gemm {m}x{n}x{k}: " + "  ".join(row), flush=True)
