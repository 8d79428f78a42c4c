"""Session 19, device run 2: where the decoder warpgroup's kernel loses its time.
(a) %clock64 wait accounting: per thread, cycles spent in each spin-wait class (decoders: full = B TMA, dempty =
consumers; consumers: dfull = decoders, afull = A16 TMA) and the total, stored at EXIT;
(b) ring sweep (dec_bufs, stages, a_bufs); (c) LIGHT: decoders store raw words (no decode; output wrong)."""
import re, sys, time
import numpy as np
sys.path.insert(0, "tools"); sys.path.insert(0, "docs/device-logs/2026-11-22-session19/scripts")
from hang_watchdog import Watchdog
import nvfp4rt
from nvfp4rt import data, reference, driver
from nvfp4rt.bench import time_op
from nvfp4rt.array import asarray
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan
from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan
from nvfp4rt.ptxsource import render
import exp1h as H

wd = Watchdog(60)
dev = nvfp4rt.device()
print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
BASE = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
CLASSES = [("D_WAIT_FULL", 0), ("D_WAIT_EMPTY", 1), ("C_DEC_WAIT_D", 0), ("C_DEC_WAIT_A", 1)]


def instrument(t):
    t = t.replace(".address_size 64\n", ".address_size 64\n.global .align 16 .u64 s19_dbg[270336];\n", 1)
    i = t.index("    .reg ")
    t = t[:i] + "    .reg .b64 %q0, %q1, %qw0, %qw1, %qs, %qn, %qa;\n    .reg .b32 %qc;\n" + t[i:]
    t = t.replace("    mov.u32 %thread, %tid.x;\n",
                  "    mov.u64 %qw0, 0;\n    mov.u64 %qw1, 0;\n    mov.u64 %qn, 0;\n    mov.u32 %thread, %tid.x;\n", 1)
    # start the clock once every role has been entered (after the init barrier)
    t = t.replace("    setp.lt.u32 %p_lead, %thread, 128;\n    @%p_lead bra PRODUCERS;\n",
                  "    mov.u64 %qs, %clock64;\n    setp.lt.u32 %p_lead, %thread, 128;\n    @%p_lead bra PRODUCERS;\n", 1)
    for name, acc in CLASSES:
        pat = re.compile(rf"^({name}\d*):\n(    mbarrier\.try_wait[^\n]*\n    @!%p_ready bra \1;\n)", re.M)
        t, n = pat.subn(lambda m: f"    mov.u64 %q0, %clock64;\n{m.group(1)}:\n{m.group(2)}"
                        f"    mov.u64 %q1, %clock64;\n    sub.u64 %q1, %q1, %q0;\n    add.u64 %qw{acc}, %qw{acc}, %q1;\n"
                        f"    add.u64 %qn, %qn, 1;\n", t)
        assert n > 0, name
    t = t.replace("\nEXIT:\n", "\nEXIT:\n    mov.u64 %q1, %clock64;\n    sub.u64 %q1, %q1, %qs;\n"
                  "    mov.u32 %qc, %ctaid.x;\n    mad.lo.u32 %qc, %qc, 512, %thread;\n    mul.wide.u32 %qa, %qc, 32;\n"
                  "    mov.u64 %q0, s19_dbg;\n    add.u64 %qa, %qa, %q0;\n"
                  "    st.global.v2.u64 [%qa], {%qw0, %qw1};\n    st.global.v2.u64 [%qa+16], {%q1, %qn};\n", 1)
    return t


def swap(p, text):
    mod = load(render(text, "sm_90a", dict(p.constants)), target="sm_90a")
    kern = mod.kernel(GCm._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch = kern, None
    p._repeat, p._launched_maps = None, {}
    return mod


def best(f, n=3, iters=40):
    wd.arm("timing")
    r = min(time_op(f, iters=iters).median_us for _ in range(n))
    wd.disarm()
    return r


keep = []
print("== (a) wait accounting (cycles per CTA, medians over CTAs; fraction of the role's time)", flush=True)
for kind, (m, n, k) in [("dual", (256, 4096, 7168)), ("gemm", (128, 7168, 16384))]:
    d, args, c = (H.dual_args if kind == "dual" else H.gemm_args)(m, n, k, 1, "competition")
    P = DualGemmTilesPlan if kind == "dual" else GemmClusterPlan
    for dec in (0, 4):
        p = P(m, n, k, 1, dec_bufs=dec)
        keep.append((p, args))
        if dec == 0:
            print(f"{kind} {m}x{n}x{k} dec=0 kernel {best(lambda: p._launch.launch() if p._launch else p(*args)):.2f}")
            continue
        mod = swap(p, instrument(BASE))
        wd.arm("instr"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
        ptr = mod.global_ptr("s19_dbg") if hasattr(mod, "global_ptr") else None
        t = best(lambda: p._launch.launch())
        buf = np.zeros(270336, np.uint64)
        gp, size = driver.call("cuModuleGetGlobal", mod.handle, b"s19_dbg")
        driver.call("cuMemcpyDtoH", buf.ctypes.data, gp, buf.nbytes)
        a = buf.reshape(-1, 512, 4)[:p.geometry.grid]
        for role, tid in (("consumer wg0", 128), ("consumer wg1", 256), ("decoder", 384)):
            w0, w1, tot, nw = (np.median(a[:, tid, j].astype(np.float64)) for j in range(4))
            print(f"{kind} {m}x{n}x{k} dec=4 kernel {t:.2f}: {role}: total {tot:.0f}  wait0 {w0:.0f} ({w0 / tot:.0%})  "
                  f"wait1 {w1:.0f} ({w1 / tot:.0%})  waits {nw:.0f}", flush=True)

print("== (b) rings and (c) LIGHT decoders, kernel alone", flush=True)
light = BASE
# LIGHT: the decoders' decode + scale (between the scale broadcast and the stores) is dropped: they store the raw words
blk = re.compile(r"(    mov\.b32 %sw1, \{%hl, %hl\};\n)(    shf\.l\.wrap\.b32 %xr, %w0.*?    mul\.rn\.f16x2 %xb3, %xb3, %sw1;\n)(    st\.shared\.v4)", re.S)
di = light.index("DECODERS:")
head, tail = light[:di], light[di:]
tail, nsub = blk.subn(lambda m: m.group(1) + "    mov.b32 %xa0, %w0;\n    mov.b32 %xa1, %w1;\n    mov.b32 %xa2, %sw0;\n"
                      "    mov.b32 %xa3, %sw1;\n    mov.b32 %xb0, %w1;\n    mov.b32 %xb1, %w0;\n    mov.b32 %xb2, %sw1;\n"
                      "    mov.b32 %xb3, %sw0;\n" + m.group(3), tail)
assert nsub == 16, nsub
light = head + tail
for kind, (m, n, k) in [("dual", (256, 4096, 7168)), ("gemm", (128, 7168, 16384))]:
    d, args, c = (H.dual_args if kind == "dual" else H.gemm_args)(m, n, k, 1, "competition")
    P = DualGemmTilesPlan if kind == "dual" else GemmClusterPlan
    cfgs = [(0, None, None), (4, None, None), (2, 2, 6), (2, 3, 5), (3, 2, 5)] if kind == "dual" else \
           [(0, None, None), (4, None, None), (2, 3, 8), (2, 2, 10), (3, 3, 7), (4, 2, 8)]
    plans = {}
    for cfg in cfgs:
        try:
            plans[cfg] = P(m, n, k, 1, dec_bufs=cfg[0], stages=cfg[1], a_bufs=cfg[2])
        except ValueError as e:
            print(kind, cfg, "skipped:", e); continue
    pl = P(m, n, k, 1, dec_bufs=4)
    swap(pl, light)
    plans["light4"] = pl
    keep.append((plans, args))
    for p in plans.values():
        wd.arm("first"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    res = {cfg: [] for cfg in plans}
    for rnd in range(2):
        for cfg, p in plans.items():
            res[cfg].append(best(lambda p=p: p._launch.launch()))
    for cfg, p in plans.items():
        print(f"{kind} {m}x{n}x{k} {cfg}: " + " ".join(f"{x:.2f}" for x in res[cfg]) + f"  {p!r}", flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
