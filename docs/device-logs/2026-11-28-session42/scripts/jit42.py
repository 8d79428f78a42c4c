"""Session 42 run 10: the driver's JIT against the toolkit's ptxas on the committed grouped cluster kernel.  Run 9's
SASS (the driver JIT through `nvfp4rt cache sass`) waits after every HGMMA (WARPGROUP.DEPBAR.LE gsb0, 0x0), although
offline ptxas 13.0 reports no serialisation for the same text.  Here: the JIT's info log and SASS at its default
optimisation level and at level 3, the device's ptxas -v and SASS, and case 2 / 8 x 40 / 8 x 196 timed with each
cubin (whole calls, L2 cleared, launch phases spread, medians of 100, bits compared, reference checked)."""
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, ".")
sys.path.insert(0, "tests")
from nvfp4rt import cubin as CB, data, driver, reference  # noqa: E402
from nvfp4rt.assemble import as_ptx_source, find_ptxas  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.module import Module, load  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402


def summary(name, blob):
    try:
        s = CB.sass(blob)
    except Exception as e:  # noqa: BLE001
        print(f"{name}: no SASS ({e})", flush=True)
        return
    print(f"{name}: {len(blob)} bytes, HGMMA {s.count('HGMMA')}, DEPBAR.LE gsb0 0x0 {s.count('DEPBAR.LE gsb0, 0x0')}, "
          f"0x1 {s.count('DEPBAR.LE gsb0, 0x1')}, ARRIVE {s.count('WARPGROUP.ARRIVE')}", flush=True)


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    cons = GC.kernel_constants()
    src = as_ptx_source(Path("ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx"), "sm_90a", cons)
    kernels = {}
    for label, opts in (("jit", None), ("jit_O3", {"CU_JIT_OPTIMIZATION_LEVEL": 3})):
        try:
            m = load(src, device=dev, options=opts, cache=None)
            print(f"{label} log: " + " | ".join(ln for ln in m.jit_log.splitlines() if re.search(r"C75|Used|spill", ln)),
                  flush=True)
            summary(label, m.cubin)
            kernels[label] = m.kernel(GC._ENTRY)
        except Exception as e:  # noqa: BLE001
            print(f"{label}: failed: {e}", flush=True)
    ptxas = find_ptxas() or "/usr/local/cuda/bin/ptxas"
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "k.ptx"
        p.write_text(src.text)
        r = subprocess.run([ptxas, "-arch=sm_90a", "-v", str(p), "-o", str(Path(tmp) / "k.cubin")],
                           capture_output=True, text=True)
        print(f"ptxas ({ptxas}, rc {r.returncode}): " + " | ".join(
            ln for ln in r.stderr.splitlines() if re.search(r"C75|Used|spill|error", ln)), flush=True)
        v = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1:]
        print(f"ptxas version: {v}", flush=True)
        if r.returncode == 0:
            blob = (Path(tmp) / "k.cubin").read_bytes()
            summary("ptxas", blob)
            dev.activate()
            handle = driver.call("cuModuleLoadData", blob)
            mod = Module(handle, dev, src, blob, key=None, from_cache=False, load_seconds=0.0)
            kernels["ptxas"] = mod.kernel(GC._ENTRY)
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    problems = [("case 2", st.shapes, [GG._raw_groups([v])[0][3] for v in st.views], st.views, st.host.groups)]
    for name, shapes in (("8 x 40", [(40, 7168, 2048)] * 8), ("8 x 196", [(196, 7168, 2048)] * 8)):
        d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
        problems.append((name, shapes, None, [tuple(g) for g in _device_groups(d)], d.groups))
    runs, bits = [], {}
    for label, kern in kernels.items():
        GC._kernel = lambda ordinal, constants, k=kern: k
        for name, shp, layouts, views, host in problems:
            p = GC.GroupedGemmClusterPlan(shp, layouts)
            outs = p(views)
            driver.call("cuCtxSynchronize")
            ok = all(reference.check(o.numpy() if layouts else o.numpy().transpose(1, 2, 0), r).ok
                     for o, r in zip(outs, reference.grouped_gemm_ref(host)))
            got = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
            same = name not in bits or all(np.array_equal(a, b) for a, b in zip(got, bits[name]))
            bits.setdefault(name, got)
            print(f"{label:7s} {name}: reference ok {ok}, bits equal {same}", flush=True)
            runs.append((label, name, lambda p=p, v=views: p(v)))
    for rnd in range(3):
        for label, name, fn in runs:
            t = time_op(fn)
            print(f"round {rnd}: {name:8s} {label:7s} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f})", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
