"""Session 34, device run 15: competition case 1 on the cluster kernel built with only its loops of at most 128 rows
(session 32's G4: N = 32, 64, 96, 128, whose 128-row unit ran as fast as the loop alone), every group cut into
"virtual" groups of at most 128 rows (row views of a, sfa and c; b and sfb shared), under the committed schedule.
Against the m-tile plan (case 1's default) and the committed cluster plan.  Outputs compared with the m-tile plan's
(checked against the reference); whole call and kernel alone, L2 cleared, best of 3 medians of 40, three rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
sys.path.insert(0, "docs/device-logs/2026-11-27-session32/scripts")
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as MT  # noqa: E402


def rows_view(arr, r0, r1):
    """Rows r0..r1 of a contiguous (1, rows, cols) device array, as a view."""
    _, _, cols = arr.shape
    return arr._derive(arr.ptr + r0 * arr.strides[1], (1, r1 - r0, cols), arr.dtype, arr.strides, arr.dtype_hint)


def virtual_groups(st, rows=128):
    """(shapes, views, keep): every group cut into pieces of at most `rows` rows."""
    shapes, views, keep = [], [], []
    for (m, n, k), arrs in zip(st.shapes, st.dev):
        for r0 in range(0, m, rows):
            r1 = min(m, r0 + rows)
            sub = {x: rows_view(arrs[x], r0, r1) for x in ("a", "sfa", "c")}
            sub.update(b=arrs["b"], sfb=arrs["sfb"])
            keep.append(sub)
            shapes.append((r1 - r0, n, k))
            views.append(tuple(sub[x].transpose(1, 2, 0) for x in ("a", "b", "sfa", "sfb", "c")))
    return shapes, views, keep


def main():
    import gen_variants
    from hang_watchdog import Watchdog
    from nvfp4rt import driver, reference
    from nvfp4rt.bench import get_op, time_op
    from nvfp4rt.module import load
    from nvfp4rt.ops import grouped_gemm as GG
    from nvfp4rt.ptxsource import render

    wd = Watchdog(400)
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)

    def best(f):
        wd.arm("timing")
        r = min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))
        wd.disarm()
        return r

    bench = get_op("grouped_gemm")()
    st = bench.make_inputs({"case": 1}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    vshapes, vviews, keep = virtual_groups(st)
    vlayouts = [GG._raw_groups([v])[0][3] for v in vviews]
    print(f"  virtual groups: rows {[s[0] for s in vshapes]}", flush=True)
    g4 = gen_variants.text((32, 64, 96, 128))
    runs, ref_out = {}, None
    for name in ("mtile", "cluster", "g4-virtual"):
        if name == "mtile":
            p, views = MT.GroupedGemmMTilePlan(st.shapes, layouts), st.views
        elif name == "cluster":
            p, views = GC.GroupedGemmClusterPlan(st.shapes, layouts), st.views
        else:
            p, views = GC.GroupedGemmClusterPlan(vshapes, vlayouts), vviews
            mod = load(render(g4, "sm_90a", p.constants), target="sm_90a")
            kern = mod.kernel(GC._ENTRY)
            kern.set_max_dynamic_shared(p.shared_mem)
            p.kernel, p._launch, p._repeat = kern, None, None
            keep.append(mod)
        for arrs in st.dev:
            arrs["c"].fill(np.nan)
        wd.arm(name); p(views); driver.call("cuCtxSynchronize"); wd.disarm()
        out = [arrs["c"].numpy().copy() for arrs in st.dev]
        if ref_out is None:
            ref_out = out
            bad = [i for i, (o, g) in enumerate(zip(out, st.host.groups))
                   if not reference.check(o.transpose(1, 2, 0), reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok]
            verdict = "reference OK" if not bad else f"reference FAIL {bad}"
        else:
            same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(ref_out, out))
            bad = [i for i, (o, g) in enumerate(zip(out, st.host.groups))
                   if not reference.check(o.transpose(1, 2, 0), reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok]
            verdict = ("bits equal to the m-tile plan's" if same else "bits differ from the m-tile plan's") + (
                ", reference OK" if not bad else f", reference FAIL {bad}")
        print(f"  case 1 {name}: {p!r}, {verdict}", flush=True)
        runs[name] = (p, views)
    res = {name: [] for name in runs}
    for rnd in range(3):
        for name, (p, views) in runs.items():
            res[name].append((best(lambda p=p, v=views: p(v)), best(lambda p=p: p._launch.launch())))
    for name in runs:
        print(f"  case 1 {name:12s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
              + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    main()
