"""Session 42 run 11: which JIT path keeps `setmaxnreg`.  Run 10 found the driver's cuLink JIT ignoring it (C7504,
"to maintain compatibility across compilation units") and serialising every wgmma (C7512), while the toolkit's ptxas
honours it, and case 2 ran 64.0-64.2 us against 71.1-71.7.  Variants of the committed grouped cluster kernel:
  link      nvfp4rt's path: cuLinkCreate / cuLinkAddData(PTX) / cuLinkComplete;
  pic0      the same with CU_JIT_POSITION_INDEPENDENT_CODE = 0;
  ptxload   cuModuleLoadData on the PTX text (the driver JIT without the linker; no cubin to read back);
  ptxas     the device's /usr/local/cuda/bin/ptxas, the cubin loaded with cuModuleLoadData.
Each: its info log's C75xx lines, its SASS's HGMMA waits (where a cubin exists), case 2 and 8 x 196 timed (whole calls,
L2 cleared, launch phases spread, medians of 100; bits compared with link's, reference checked)."""
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
from nvfp4rt.assemble import as_ptx_source  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.module import Module, _jit_link  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from test_grouped_gemm import _device_groups  # noqa: E402


def waits(blob):
    try:
        s = CB.sass(blob)
        return f"HGMMA {s.count('HGMMA')}, DEPBAR 0x0 {s.count('DEPBAR.LE gsb0, 0x0')}, 0x1 {s.count('DEPBAR.LE gsb0, 0x1')}"
    except Exception as e:  # noqa: BLE001
        return f"no SASS ({e})"


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    src = as_ptx_source(Path("ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx"), "sm_90a", GC.kernel_constants())
    kernels = {}

    def module(label, blob, handle, log):
        print(f"{label}: log " + " | ".join(ln.strip() for ln in log.splitlines() if re.search(r"C75|spill", ln))
              + (f"; {waits(blob)}" if blob else ""), flush=True)
        kernels[label] = Module(handle, dev, src, blob, key=None, from_cache=False, load_seconds=0.0).kernel(GC._ENTRY)

    for label, opts in (("link", {}), ("pic0", {"CU_JIT_POSITION_INDEPENDENT_CODE": 0})):
        try:
            blob, log = _jit_link(src, dev, opts)
            dev.activate()
            module(label, blob, driver.call("cuModuleLoadData", blob), log)
        except Exception as e:  # noqa: BLE001
            print(f"{label}: failed: {e}", flush=True)
    try:
        dev.activate()
        module("ptxload", b"", driver.call("cuModuleLoadData", src.text.encode() + b"\0"), "")
    except Exception as e:  # noqa: BLE001
        print(f"ptxload: failed: {e}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "k.ptx"
        p.write_text(src.text)
        r = subprocess.run(["/usr/local/cuda/bin/ptxas", "-arch=sm_90a", "-v", str(p), "-o", str(Path(tmp) / "k.cubin")],
                           capture_output=True, text=True)
        if r.returncode == 0:
            blob = (Path(tmp) / "k.cubin").read_bytes()
            dev.activate()
            module("ptxas", blob, driver.call("cuModuleLoadData", blob), r.stderr)
        else:
            print("ptxas failed:", r.stderr[-500:], flush=True)
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    problems = [("case 2", st.shapes, [GG._raw_groups([v])[0][3] for v in st.views], st.views, st.host.groups)]
    d = data.grouped_gemm_data([(196, 7168, 2048)] * 8, seed=None, distribution="wide")
    problems.append(("8 x 196", [(196, 7168, 2048)] * 8, None, [tuple(g) for g in _device_groups(d)], d.groups))
    runs, bits = [], {}
    for label, kern in kernels.items():
        GC._kernel = lambda ordinal, constants, k=kern: k
        for name, shp, layouts, views, host in problems:
            pl = GC.GroupedGemmClusterPlan(shp, layouts)
            outs = pl(views)
            driver.call("cuCtxSynchronize")
            ok = all(reference.check(o.numpy() if layouts else o.numpy().transpose(1, 2, 0), r).ok
                     for o, r in zip(outs, reference.grouped_gemm_ref(host)))
            got = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
            same = name not in bits or all(np.array_equal(a, b) for a, b in zip(got, bits[name]))
            bits.setdefault(name, got)
            print(f"{label:8s} {name}: reference ok {ok}, bits equal {same}", flush=True)
            runs.append((label, name, lambda pl=pl, v=views: pl(v)))
    for rnd in range(3):
        for label, name, fn in runs:
            t = time_op(fn)
            print(f"round {rnd}: {name:8s} {label:8s} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f})", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
