"""Session 12: what the memory traffic of the GEMM's unit loop costs under the H100's power cap.
Variants of the cluster kernel (timing only; outputs are wrong): the A16 producer (or the B producer) loads only its
first lap of buffers and afterwards arrives without a transfer, so the consumers reuse real data that stays in shared
memory, with no L2 (A16) or HBM + L2 (B) traffic."""
import re, os, sys, subprocess, time
import numpy as np
import nvfp4rt
from nvfp4rt import data, driver
from nvfp4rt.array import asarray
from nvfp4rt.bench import time_op
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as GCm
from nvfp4rt.ops.gemm_wgmma_cluster import GemmClusterPlan

OUT = os.environ.get("OUT", "/tmp")
A_TMA = ("    mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], 16384;  // all ranks' slices land here\n")
A_CP = ("// {{if CLUSTER == 1}}\n    cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n"
        "        [%addr], [%tm_a16, {%kel, %m0, %batch}], [%bar];\n")
B_TMA = "    mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], {{STAGE_BYTES}};\n"
B_CP1 = "    cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n        [%slot_addr], [%tm_b, {%x, %n0, %batch}], [%bar];\n"
B_CP2 = "    cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes\n        [%addr], [%tm_sfb, {%y, %n0, %batch}], [%bar];\n"


def decl(t):
    i = t.index("    .reg ")
    return t[:i] + "    .reg .b32 %nld_a, %nld_b;\n    .reg .pred %p_lda, %p_ldb;\n" + t[i:]


def no_a16(t):
    assert t.count(A_TMA) == 1 and t.count(A_CP) == 1
    t = t.replace("A_PRODUCER:\n", "A_PRODUCER:\n    mov.u32 %nld_a, 0;\n", 1)
    t = t.replace(A_TMA, "    setp.lt.u32 %p_lda, %nld_a, {{A_BUFS}};\n    add.u32 %nld_a, %nld_a, 1;\n"
                  "    @%p_lda mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], 16384;\n"
                  "    @!%p_lda mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];\n")
    t = t.replace(A_CP, A_CP.replace("    cp.async", "    @%p_lda cp.async"))
    return t


def no_b(t):
    assert t.count(B_TMA) == 1 and t.count(B_CP1) == 1 and t.count(B_CP2) == 1
    t = t.replace("B_PRODUCER:\n", "B_PRODUCER:\n    mov.u32 %nld_b, 0;\n", 1)
    t = t.replace(B_TMA, "    setp.lt.u32 %p_ldb, %nld_b, %S;\n    add.u32 %nld_b, %nld_b, 1;\n"
                  "    @%p_ldb mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], {{STAGE_BYTES}};\n"
                  "    @!%p_ldb mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];\n")
    t = t.replace(B_CP1, B_CP1.replace("    cp.async", "    @%p_ldb cp.async"))
    t = t.replace(B_CP2, B_CP2.replace("    cp.async", "    @%p_ldb cp.async"))
    return t


def sample(tag, fn, seconds=2.5):
    log = f"{OUT}/smi-{tag}.csv"
    proc = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
                             "-lms", "50"], stdout=open(log, "w"))
    time.sleep(0.3)
    t0 = time.time()
    while time.time() - t0 < seconds:
        for _ in range(50):
            fn()
    driver.call("cuCtxSynchronize")
    time.sleep(0.2)
    proc.terminate(); proc.wait()
    rows = [r.split(",") for r in open(log).read().strip().splitlines()][8:-4]
    clk = [float(r[0]) for r in rows]; pw = [float(r[1]) for r in rows]
    return f"clock {np.median(clk):5.0f} MHz power {np.median(pw):4.0f} W"


def best(f):
    return min(time_op(f, iters=60).median_us for _ in range(3))


if __name__ == "__main__":
    print(nvfp4rt.device().properties.name, flush=True)
    base = decl(open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read())
    texts = {"committed": base, "no_a16_traffic": no_a16(base), "no_b_traffic": no_b(base),
             "no_a16_no_b": no_b(no_a16(base))}
    for (m, n, k) in ((128, 7168, 16384), (128, 7168, 2048)):
        d = data.gemm_data(m, n, k, 1, seed=None)
        devs = {nm: asarray(d.physical(nm).view(np.uint8) if nm.startswith("sf") else d.physical(nm))
                for nm in ("a", "b", "sfa", "sfb", "c")}
        args = tuple(devs[nm].transpose(1, 2, 0) for nm in ("a", "b", "sfa", "sfb", "c"))
        p = GemmClusterPlan(m, n, k)
        p.run(*args)
        print(f"{m}x{n}x{k} {p!r}", flush=True)
        for nm, txt in texts.items():
            kern = load(txt, constants=p.constants, target="sm_90a").kernel(GCm._ENTRY)
            kern.set_max_dynamic_shared(p.shared_mem)
            p.kernel, p._launch = kern, None
            p.run(*args)
            kt = best(p._launch.launch)
            extra = sample(f"{nm}-{k}", p._launch.launch) if k == 16384 else ""
            print(f"   {nm:16s} kernel {kt:7.2f}  {extra}", flush=True)
