"""Session 34, device run 17: run 16's counters put the G4 build's consumers on the 128-row pieces of case 1 at the
other builds' clocks, yet run 15 timed it 25% slower.  Here each of the three builds of run 15 is timed as run 15
timed them, plain and instrumented (tools/profile_cluster_kernel.py's `instrument()`), in the same rounds: kernel
alone and whole call, L2 cleared, best of 3 medians of 40, three rounds.  Outputs of the plain builds compared with
the m-tile plan's."""
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
sys.path.insert(0, "docs/device-logs/2026-11-27-session32/scripts")
sys.path.insert(0, "docs/device-logs/2026-11-27-session34/scripts")
from probe9 import virtual_groups  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as MT  # noqa: E402


def main():
    import gen_variants
    from hang_watchdog import Watchdog
    from profile_cluster_kernel import instrument
    from nvfp4rt import driver
    from nvfp4rt.bench import get_op, time_op
    from nvfp4rt.module import load
    from nvfp4rt.ops import grouped_gemm as GG
    from nvfp4rt.ptxsource import ptx_dir, render

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
    runs, ref = {}, None
    for name in ("mtile", "cluster", "g4-virtual"):
        for inst in (False, True):
            if name == "mtile":
                p, views = MT.GroupedGemmMTilePlan(st.shapes, layouts), st.views
                text = (ptx_dir() / "gemm_nvfp4_wgmma_cluster.ptx").read_text()
            elif name == "cluster":
                p, views = GC.GroupedGemmClusterPlan(st.shapes, layouts), st.views
                text = (ptx_dir() / "grouped_gemm_nvfp4_wgmma_cluster.ptx").read_text()
            else:
                p, views = GC.GroupedGemmClusterPlan(vshapes, vlayouts), vviews
                text = gen_variants.text((32, 64, 96, 128))
            text = render(text, "sm_90a", p.constants)
            mod = load(instrument(text) if inst else text, target="sm_90a")
            keep.append(mod)
            kern = mod.kernel(next(iter(mod.entries)))
            kern.set_max_dynamic_shared(p.shared_mem)
            p.kernel, p._launch, p._repeat = kern, None, None
            for arrs in st.dev:
                arrs["c"].fill(np.nan)
            p(views)
            driver.call("cuCtxSynchronize")
            out = [arrs["c"].numpy().copy() for arrs in st.dev]
            if ref is None:
                ref = out
            same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(ref, out))
            label = f"{name}{' instrumented' if inst else ''}"
            print(f"  case 1 {label}: bits {'equal' if same else 'DIFFER'}", flush=True)
            runs[label] = (p, views)
    res = {name: [] for name in runs}
    for rnd in range(3):
        for name, (p, views) in runs.items():
            res[name].append((best(lambda p=p, v=views: p(v)), best(lambda p=p: p._launch.launch())))
    for name in runs:
        print(f"  case 1 {name:25s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
              + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    main()
