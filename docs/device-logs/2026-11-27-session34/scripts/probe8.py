"""Session 34, device run 13: SPLIT_COST around the committed 2.5 (1.5, 2.5, 4, 6) with the committed order and
cut, on case 2, the mixed problem and k = 8192 of run 5 (the cluster plan).  Every output bit for bit the committed
plan's (checked against the reference); whole call and kernel alone, L2 cleared, best of 3 medians of 40, three
interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
sys.path.insert(0, "docs/device-logs/2026-11-27-session34/scripts")
from probe4 import PROBLEMS  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402

SPLITS = (2.5, 1.5, 4.0, 6.0)


def main():
    from hang_watchdog import Watchdog
    from nvfp4rt import driver, reference
    from nvfp4rt.bench import get_op, time_op
    from nvfp4rt.ops import grouped_gemm as GG

    wd = Watchdog(400)
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)

    def best(f):
        wd.arm("timing")
        r = min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))
        wd.disarm()
        return r

    runs, keep = {}, []
    for pname in ("case 2", "mixed", "k8192"):
        prob = PROBLEMS[pname]
        bench = get_op("grouped_gemm")()
        if isinstance(prob, int):
            st = bench.make_inputs({"case": prob}, np.random.default_rng())
        else:
            bench._shapes = lambda shape, sh=prob: [tuple(s) for s in sh]
            st = bench.make_inputs({"case": 0}, np.random.default_rng())
        keep.append(st)
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        ref_out, seen = None, set()
        for sc in SPLITS:
            p = GC.GroupedGemmClusterPlan(st.shapes, layouts, split_cost=sc)
            if p.geometry.starts in seen:
                print(f"  {pname} split {sc}: the same runs as a cheaper split cost, not timed", flush=True)
                continue
            seen.add(p.geometry.starts)
            for arrs in st.dev:
                arrs["c"].fill(np.nan)
            wd.arm(str(sc)); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
            out = [arrs["c"].numpy().copy() for arrs in st.dev]
            if ref_out is None:
                ref_out = out
                bad = [i for i, (o, g) in enumerate(zip(out, st.host.groups))
                       if not reference.check(o.transpose(1, 2, 0), reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok]
                verdict = "reference OK" if not bad else f"reference FAIL {bad}"
            else:
                same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(ref_out, out))
                verdict = "bits equal" if same else "bits DIFFER"
            name = f"{pname} split {sc}"
            print(f"  {name}: {p!r}, {verdict}", flush=True)
            runs[name] = (p, st.views)
    res = {name: [] for name in runs}
    for rnd in range(3):
        for name, (p, views) in runs.items():
            res[name].append((best(lambda p=p, v=views: p(v)), best(lambda p=p: p._launch.launch())))
    for name in runs:
        print(f"  {name:16s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
              + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    main()
