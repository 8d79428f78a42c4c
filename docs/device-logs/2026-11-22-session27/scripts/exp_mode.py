"""Session 27: the whole call's two modes, seen from inside.  The decode prepass and the GEMM both write %globaltimer
per CTA (decode: thread 0 at entry and at its end; GEMM: consumer 0's points of tl_pro); whole-call time_ops alternate
with GEMM-alone ones (session 25: the whole call's mode then alternates), and after each whole time_op the last
call's timeline is read: decode first entry / last end, GEMM first / median entry, first B stage, loop end, exit."""
import os, sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, ".scratch/s27")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import driver
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as G
from nvfp4rt.ops import decode_a16 as D
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ptxsource import render, ptx_dir
import exp1h as H
import tl_pro

wd = Watchdog(120)
H.wd = wd
tl_pro.POINTS = [p for p in tl_pro.POINTS if p[1] == 128 and p[0] != "c.synced"]
TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
DTEXT = (ptx_dir() / D._KERNEL_FILE).read_text()


def instrument_decode(t):
    t = t.replace(".address_size 64\n", ".address_size 64\n.global .align 16 .u64 s27_dec[4096];\n", 1)
    t = t.replace("    .reg .pred  %p_done;\n", "    .reg .pred  %p_done, %pdd;\n    .reg .b64 %ddt, %dda, %ddo;\n"
                  "    .reg .b32 %ddc;\n", 1)
    st = ("    mov.u32 %ddc, %tid.x;\n    setp.eq.u32 %pdd, %ddc, 0;\n    mov.u64 %ddt, %globaltimer;\n"
          "    mov.u32 %ddc, %ctaid.x;\n    mul.wide.u32 %ddo, %ddc, 16;\n    mov.u64 %dda, s27_dec;\n"
          "    add.u64 %dda, %dda, %ddo;\n    @%pdd st.global.u64 [%dda+{off}], %ddt;\n")
    a = "    griddepcontrol.launch_dependents;\n"
    assert t.count(a) == 1 and t.count("DONE:\n    ret;\n}") == 1
    t = t.replace(a, a + st.format(off=0), 1)
    return t.replace("DONE:\n    ret;\n}", "DONE:\n" + st.format(off=8) + "    ret;\n}", 1)


print(nvfp4rt.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
keep = []
for (m, n, k) in [(128, 7168, 2048), (128, 7168, 16384)]:
    d, args, c = H.gemm_args(m, n, k, 1, "competition")
    p = GemmClusterPlan(m, n, k, 1)
    g = p.geometry
    gmod = load(tl_pro.instrument(render(TEXT, "sm_90a", p.constants)), target="sm_90a")
    kern = gmod.kernel(G._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat, p._launched_maps = kern, None, None, {}
    dmod = load(instrument_decode(render(DTEXT, "sm_90a", {"NORMAL_OPERANDS": 0, "GROUPED": 0})), target="sm_90a")
    p._decode.kernel, p._decode._launch = dmod.kernel(D._ENTRY), None
    keep.append((gmod, dmod, p, args, d, c))
    H.check_gemm(p, m, n, k, 1, f"{m}x{n}x{k}", dists=("competition",))
    wd.arm("run"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    gptr, gsize = driver.call("cuModuleGetGlobal", gmod.handle, b"s27_dbg")
    dptr, dsize = driver.call("cuModuleGetGlobal", dmod.handle, b"s27_dec")
    dgrid = p._decode.grid if hasattr(p._decode, "grid") else None
    print(f"{m}x{n}x{k} {p!r} decode grid {dgrid}", flush=True)
    for rnd in range(6):
        wd.arm("t")
        tw = time_op(lambda: p(*args), iters=40).median_us
        wd.disarm()
        gb = np.zeros(gsize // 8, np.uint64); driver.call("cuMemcpyDtoH", gb.ctypes.data, gptr, gsize)
        db = np.zeros(dsize // 8, np.uint64); driver.call("cuMemcpyDtoH", db.ctypes.data, dptr, dsize)
        wd.arm("t")
        tk = time_op(lambda: p._launch.launch(), iters=40).median_us
        wd.disarm()
        dt = db.reshape(-1, 2).astype(np.int64)
        dt = dt[dt[:, 0] > 0]
        tt = gb[:g.grid * 16].reshape(g.grid, 16)[:, :len(tl_pro.POINTS)].astype(np.int64)
        t0 = dt[:, 0].min()
        rel = (tt - t0) / 1000.0
        pts = " ".join(f"{nm}={np.median(rel[:, j]):.2f}/{rel[:, j].min():.2f}/{rel[:, j].max():.2f}"
                       for j, (nm, _, _, _) in enumerate(tl_pro.POINTS))
        print(f"  round {rnd}: whole {tw:6.2f}  GEMM alone {tk:6.2f} | decode CTAs {len(dt)} entry last "
              f"{(dt[:, 0].max() - t0) / 1000:.2f}, end med/max {(np.median(dt[:, 1]) - t0) / 1000:.2f}/"
              f"{(dt[:, 1].max() - t0) / 1000:.2f} | GEMM med/min/max: {pts}", flush=True)
print("FAILS", H.FAILS)
