"""Session 34, device run 16: where the time goes in run 15's builds on case 1 (tools/profile_cluster_kernel.py's
counters, `instrument()`, added to each build's rendered text): the m-tile plan (the GEMM template's GROUPED build),
the committed cluster plan, and the G4 build on the 128-row pieces.  20 launches each, L2 cleared before each."""
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
    from profile_cluster_kernel import GLOBAL, NSLOTS, instrument, report
    from nvfp4rt import driver
    from nvfp4rt.bench import DriverTimer, get_op
    from nvfp4rt.module import load
    from nvfp4rt.ops import grouped_gemm as GG
    from nvfp4rt.ptxsource import ptx_dir, render

    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    bench = get_op("grouped_gemm")()
    st = bench.make_inputs({"case": 1}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    vshapes, vviews, keep = virtual_groups(st)
    vlayouts = [GG._raw_groups([v])[0][3] for v in vviews]
    timer = DriverTimer()
    for name in ("mtile", "cluster", "g4-virtual"):
        if name == "mtile":
            p, views = MT.GroupedGemmMTilePlan(st.shapes, layouts), st.views
            text = (ptx_dir() / "gemm_nvfp4_wgmma_cluster.ptx").read_text()
        elif name == "cluster":
            p, views = GC.GroupedGemmClusterPlan(st.shapes, layouts), st.views
            text = (ptx_dir() / "grouped_gemm_nvfp4_wgmma_cluster.ptx").read_text()
        else:
            p, views = GC.GroupedGemmClusterPlan(vshapes, vlayouts), vviews
            text = gen_variants.text((32, 64, 96, 128))
        mod = load(instrument(render(text, "sm_90a", p.constants)), target="sm_90a")
        keep.append(mod)
        kern = mod.kernel(next(iter(mod.entries)))
        kern.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch, p._repeat = kern, None, None
        ptr, size = driver.call("cuModuleGetGlobal", mod.handle, GLOBAL.encode())
        total = np.zeros(NSLOTS, np.uint64)
        for _ in range(20):
            timer.clear_l2()
            driver.call("cuMemsetD8", ptr, 0, size)
            p(views)
            driver.call("cuCtxSynchronize")
            buf = np.zeros(NSLOTS, np.uint64)
            driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
            total += buf
        print(report(total, f"case 1 {name} {p!r}"), flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    main()
