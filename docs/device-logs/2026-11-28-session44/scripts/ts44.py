"""Session 44: when each cluster of the grouped cluster kernel finishes.  The committed kernel, with two %globaltimer
stamps added per CTA (thread 0 at entry, consumer thread 0 after its last TMA store has completed), stored to a module
global; 20 launches per problem (L2 cleared before each), the median of each CTA's stamps.  Per cluster: its units,
the schedule model's cost of its run (the plan's own cut), and its finish time after the earliest entry.
Usage: ts44.py"""
import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tests")
from nvfp4rt import data, driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ptxsource import render  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402

mods = {}


def stamped(text: str) -> str:
    def once(t, old, new):
        assert t.count(old) == 1, old
        return t.replace(old, new)
    t = once(text, ".visible .entry", ".global .align 8 .u64 nvfp4_ts[1024];\n\n.visible .entry")
    t = once(t, "    .reg .pred  %p_lead,", "    .reg .b64 %ts_t, %ts_a, %ts_b;\n    .reg .b32 %ts_i;\n    .reg .pred %ts_p;\n"
             "    .reg .pred  %p_lead,")
    stamp = ("    mov.u64 %ts_t, %globaltimer;\n    mov.u32 %ts_i, %ctaid.x;\n    mul.wide.u32 %ts_a, %ts_i, 16;\n"
             "    mov.u64 %ts_b, nvfp4_ts;\n    add.u64 %ts_a, %ts_a, %ts_b;\n")
    t = once(t, "    mov.u32 %thread, %tid.x;\n", "    mov.u32 %thread, %tid.x;\n" + stamp +
             "    setp.eq.u32 %ts_p, %thread, 0;\n    @%ts_p st.global.u64 [%ts_a], %ts_t;\n")
    t = once(t, "C_EXIT:\n    cp.async.bulk.wait_group 0;", "C_EXIT:\n    cp.async.bulk.wait_group 0;\n" + stamp +
             "    setp.eq.u32 %ts_p, %thread, 128;\n    @%ts_p st.global.u64 [%ts_a+8], %ts_t;")
    return t


@lru_cache(maxsize=None)
def kernel(ordinal, constants):
    text = stamped(render(Path("ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx").read_text(), "sm_90a", dict(constants)))
    mods["m"] = load(text, device=driver.Device(ordinal), target="sm_90a")
    return mods["m"].kernel(GC._ENTRY)


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    GC._kernel = kernel
    timer = DriverTimer(dev, None)
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    problems = [("case 2", st.shapes, [GG._raw_groups([v])[0][3] for v in st.views], st.views)]
    for name, shapes in (("8 x 40", [(40, 7168, 2048)] * 8), ("8 x 196", [(196, 7168, 2048)] * 8),
                         ("case 1 shapes", [(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)])):
        d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
        problems.append((name, shapes, None, [tuple(g) for g in _device_groups(d)]))
    for name, shp, layouts, views in problems:
        p = GC.GroupedGemmClusterPlan(shp, layouts)
        p(views)
        driver.call("cuCtxSynchronize")
        ptr, size = driver.call("cuModuleGetGlobal", mods["m"].handle, b"nvfp4_ts")
        g = p.geometry
        stamps = []
        for _ in range(20):
            timer.clear_l2()
            p(views)
            driver.call("cuCtxSynchronize")
            buf = np.zeros(1024, np.uint64)
            driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
            ts = buf[:2 * g.grid].reshape(g.grid, 2).astype(np.int64)
            stamps.append(ts - ts[:, 0].min())
        s = np.median(np.stack(stamps), axis=0) / 1000.0  # us
        costs, firsts = GC.schedule_costs(g.groups)
        q = g.clusters
        ends = s[:, 1].reshape(q, g.cluster).max(axis=1)
        starts = s[:, 0].reshape(q, g.cluster).max(axis=1)
        model = np.array([costs[g.starts[i]:g.starts[i + 1]].sum() for i in range(q)])
        print(f"{name}: {p!r}; entry spread {s[:, 0].max():.2f} us; finish min / median / max "
              f"{ends.min():.2f} / {np.median(ends):.2f} / {ends.max():.2f} us", flush=True)
        for i in np.argsort(ends):
            print(f"   cluster {i:3d} units {g.starts[i + 1] - g.starts[i]:3d} model {model[i]:6.2f} "
                  f"entry {starts[i]:5.2f} finish {ends[i]:6.2f}", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
