"""Session 33, device run 6: what the TMA-store epilogue's 1.3 us is (case 2, timing-only cuts of the committed kernel):
  tma      the committed kernel;
  nowait1  the second half's wait for the first half's store to read the box removed (racy: timing only);
  nowait   every cp.async.bulk.wait_group.read removed (racy: timing only);
  nostore  the TMA store instructions removed (as probe3.py).
Kernel alone and whole call, L2 cleared, best of 3 medians of 40, three interleaved rounds."""
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
from hang_watchdog import Watchdog  # noqa: E402
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import get_op, time_op  # noqa: E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ptxsource import ptx_dir, render  # noqa: E402


def texts() -> dict:
    new = (ptx_dir() / "grouped_gemm_nvfp4_wgmma_cluster.ptx").read_text()
    w1 = "    // half 1: tile rows 128..255 (accumulators 64..127)\n    @%p_iss cp.async.bulk.wait_group.read 0;"
    assert new.count(w1) == 1
    st = "    cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%tm_c, {%x, %y}], [%box];\n"
    assert new.count(st) == 2
    return {"tma": new, "nowait1": new.replace(w1, w1.split("\n")[0]),
            "nowait": new.replace("    @%p_iss cp.async.bulk.wait_group.read 0;", "    // (probe: no wait)"),
            "nostore": new.replace(st, "")}


def main():
    wd = Watchdog(200)
    keep = []
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)

    def best(f):
        wd.arm("timing")
        r = min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))
        wd.disarm()
        return r

    bench = get_op("grouped_gemm")()
    st = bench.make_inputs({"case": 2}, np.random.default_rng())
    layouts = [GG._raw_groups([v])[0][3] for v in st.views]
    plans = {}
    for name, text in texts().items():
        p = GC.GroupedGemmClusterPlan(st.shapes, layouts)
        if name != "tma":
            mod = load(render(text, "sm_90a", p.constants), target="sm_90a")
            kern = mod.kernel(GC._ENTRY)
            kern.set_max_dynamic_shared(p.shared_mem)
            p.kernel, p._launch, p._repeat = kern, None, None
            keep.append(mod)
        wd.arm(name); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
        plans[name] = p
    res = {name: [] for name in plans}
    for rnd in range(3):
        for name, p in plans.items():
            res[name].append((best(lambda p=p: p(st.views)), best(lambda p=p: p._launch.launch())))
    for name in plans:
        print(f"  case 2 {name:8s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
              + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["--offline"]:
        import subprocess
        from pathlib import Path
        for n, t in texts().items():
            Path(f"/tmp/s33/{n}.ptx").write_text(render(t, "sm_90a", GC.kernel_constants()))
            r = subprocess.run(["ptxas", "-arch=sm_90a", f"/tmp/s33/{n}.ptx", "-o", f"/tmp/s33/{n}.cubin"],
                               capture_output=True, text=True)
            print(n, r.returncode)
    else:
        main()
