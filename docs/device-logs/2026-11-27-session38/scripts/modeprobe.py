"""Session 38: what flips the whole call's mode, and does the GEMM's CTA placement follow it?

Session 37 found grouped cases 3 and 4 timing (decode + GEMM, L2 cleared) in one of two modes about 1 us apart; one
more untimed call flips the mode, a lone spin kernel or GEMM or decode launch sometimes does.  Here:
  A. between measurements of the bench's call, the bench's spin kernel with N CTAs (N = 1, 2, 3, 132, 133, ...), and
     a grid standing in for the GEMM (rec_smid.ptx with the GEMM's grid, block and shared memory);
  B. in each mode, the decode launch followed by rec_smid in place of the GEMM (same grid, block, shared memory,
     programmatic launch): which SMs its CTAs land on, which stay idle, and how late they enter.
Usage: modeprobe.py CASE"""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, ".")
import nvfp4rt  # noqa: E402
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, measure  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.launch import Pointer  # noqa: E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ptxsource import ptx_dir  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402

HERE = Path(__file__).resolve().parent


def main():
    case = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), "case", case, flush=True)
    timer = DriverTimer(dev, None)
    h = timer._h
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    state = adapter.make_inputs({"case": case}, np.random.default_rng())
    adapter.check(state)
    ours = lambda: adapter.run(state)  # noqa: E731
    layouts = [GG._raw_groups([v])[0][3] for v in state.views]
    plan = GG.plan_grouped_gemm(state.shapes, layouts=layouts, variant=GG.variant_for(state.shapes))
    g = plan.geometry
    print(f"plan {plan!r}; decode grid {plan._decode.grid}; GEMM grid {g.grid} block {g.threads} smem "
          f"{plan.shared_mem}", flush=True)
    spin_k = load(ptx_dir() / "bench_spin.ptx", device=dev).kernel("bench_spin")
    rec_k = load(HERE / "rec_smid.ptx", device=dev).kernel("rec_smid")
    rec_k.set_max_dynamic_shared(plan.shared_mem)
    out = nvfp4rt.zeros((max(g.grid, 512), 2), np.uint64, dev)
    med = []

    def show(what):
        t = measure(ours, timer)
        med.append(t.median_us)
        print(f"A {what:34s} whole p10 {t.p10_us:6.2f} median {t.median_us:6.2f} p90 {t.p90_us:6.2f}", flush=True)

    def spin(n):
        spin_k(1000, grid=(n, 1, 1), block=(32, 1, 1), shared_mem=0, stream=h)
        timer.synchronize()

    def rec(grid, programmatic, smem):
        rec_k(Pointer(out.ptr), 3000, grid=(grid, 1, 1), block=(g.threads, 1, 1), shared_mem=smem, stream=h,
              programmatic=programmatic)

    # ---- A: the flip rule
    show("start")
    show("again")
    for n in [1, 1, 2, 2, 3, 3, 4, 132, 132, 133, 133, 264, 265]:
        spin(n)
        show(f"spin {n} CTAs")
    for _ in range(2):
        rec(g.grid, False, plan.shared_mem)
        timer.synchronize()
        show(f"rec {g.grid} CTAs, GEMM smem")
    for _ in range(2):
        plan._decode._launch.launch()
        timer.synchronize()
        show("decode launch")
    for _ in range(2):
        ours()
        timer.synchronize()
        show("one call")

    # ---- B: placement, decode then the stand-in, after the bench's L2 clear (as a timed call)
    sm_count = dev.properties.sm_count

    def placement(tag):
        timer.clear_l2()
        plan._decode._launch.launch()
        rec(g.grid, True, plan.shared_mem)
        timer.synchronize()
        a = out.numpy()[:g.grid]
        sm = (a[:, 0] & 0xFFFF).astype(int)
        t = a[:, 1].astype(np.int64)
        t = t - t.min()
        idle = sorted(set(range(sm_count)) - set(sm.tolist()))
        late = int(np.sum(t > 1000))
        order = np.argsort(t, kind="stable")
        print(f"B {tag:22s} first smids {sm[:8].tolist()} idle {idle} entry spread {t.max() / 1000:.2f} us, "
              f">1 us late: {late}; last to enter (cta:sm) {[(int(i), int(sm[i])) for i in order[-4:]]}",
              flush=True)

    for rnd in range(2):
        show(f"round {rnd} before placements")
        for i in range(3):
            placement(f"round {rnd} #{i}")
        show(f"round {rnd} after 3 placements")
        ours()
        timer.synchronize()
        show(f"round {rnd} after one more call")
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
