"""Session 34, device run 4: grouped case 2 on the cluster kernel, the schedules that run 3 and the offline model
(hybrid.py) point at, side by side: the default stream-K runs in the given and in the rows-descending group order
(the order alone); whole-tile runs in both orders; hybrid cuts (tile-aligned, or mid-tile at a penalty P per split
end) with P = 1.0 and 2.5.  Every output bit for bit the default plan's (checked against the reference); whole call
and kernel alone, L2 cleared, best of 3 medians of 40, four interleaved rounds."""
import dataclasses
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
sys.path.insert(0, "docs/device-logs/2026-11-27-session34/scripts")
import hybrid  # noqa: E402
import probe2  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402


def install(p, starts):
    from nvfp4rt import driver
    from nvfp4rt.memory import DeviceAllocation

    g2 = dataclasses.replace(p.geometry, starts=tuple(starts))
    p.geometry = g2
    s = np.array(starts, dtype=np.uint32)
    tc = g2.tile_ctas_table()
    p._starts, p._tile_ctas = DeviceAllocation(s.nbytes, p.device), DeviceAllocation(tc.nbytes, p.device)
    driver.call("cuMemcpyHtoD", p._starts.ptr, s.ctypes.data, s.nbytes)
    driver.call("cuMemcpyHtoD", p._tile_ctas.ptr, tc.ctypes.data, tc.nbytes)
    p._launch, p._repeat = None, None


def main():
    from hang_watchdog import Watchdog
    from nvfp4rt import driver, reference
    from nvfp4rt.bench import get_op, time_op
    from nvfp4rt.ops import grouped_gemm as GG

    wd = Watchdog(300)
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)

    def best(f):
        wd.arm("timing")
        r = min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))
        wd.disarm()
        return r

    bench = get_op("grouped_gemm")()
    st = bench.make_inputs({"case": 2}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    G = len(st.shapes)
    orders = {"given": list(range(G)), "desc": sorted(range(G), key=lambda i: -st.shapes[i][0])}
    runs, ref_out = {}, None
    for oname, order in orders.items():
        shapes, lays, views = ([x[i] for i in order] for x in (st.shapes, layouts, st.views))
        for cname in ("default", "whole", "hyb1.0", "hyb2.5"):
            p = GC.GroupedGemmClusterPlan(shapes, lays)
            if cname == "whole":
                install(p, probe2.model_starts(p.geometry, 0.6, 1.0, p.max_clusters))
            elif cname.startswith("hyb"):
                install(p, hybrid.hybrid_starts(p.geometry, p.max_clusters, float(cname[3:]))[0])
            for arrs in st.dev:
                arrs["c"].fill(np.nan)
            wd.arm(cname); p(views); driver.call("cuCtxSynchronize"); wd.disarm()
            out = [arrs["c"].numpy().copy() for arrs in st.dev]
            if ref_out is None:
                ref_out = out
                bad = [i for i, (o, g) in enumerate(zip(out, st.host.groups))
                       if not reference.check(o.transpose(1, 2, 0), reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok]
                verdict = "reference OK" if not bad else f"reference FAIL {bad}"
            else:
                same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(ref_out, out))
                verdict = "bits equal" if same else "bits DIFFER"
            name = f"case 2 {oname:5s} {cname}"
            print(f"  {name}: {p.geometry.clusters} runs, split {p.geometry.split_tiles}, {verdict}", flush=True)
            runs[name] = (p, views)
    res = {name: [] for name in runs}
    for rnd in range(4):
        for name, (p, views) in runs.items():
            res[name].append((best(lambda p=p, v=views: p(v)), best(lambda p=p: p._launch.launch())))
    for name in runs:
        print(f"  {name:22s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
              + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    main()
