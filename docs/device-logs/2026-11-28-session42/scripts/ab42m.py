"""Session 42 run 4: the unit drain on the m-tile plan (the cluster GEMM template's GROUPED builds, one unit loop per
row class).  Offline (ptxas 13.0), the template's row-class builds spill 12 bytes with four classes and serialise every
wgmma with five (C7512) or seven (C7511); with a `wgmma.wait_group 0` before each class loop's stage release, every
build up to seven classes has neither.  Builds (the plan's own kernel_text, patched or not):
  nodrain  the committed template;
  drain    the same with the drain in every row-class loop (GROUPED builds only).
Problems: competition cases 1, 3 and 4 (the bench's data and plans), case 2 forced onto the m-tile plan (its three
classes, and with drain its four), case 3 with two classes (112, 96) where the plan builds one.  Whole calls, L2
cleared, launch phases spread, medians of 100; every output checked against the float64 reference and bits compared
between builds.
Usage: ab42m.py [ROUNDS]"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.ops import gemm_wgmma_cluster as CL  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as MT  # noqa: E402

REL = "    // ---------------------------------------------------------------- release the stage\n"
COMMITTED = CL.kernel_text


def drained(constants):
    text = COMMITTED(constants)
    if int(constants.get("GROUPED", 0)):
        assert text.count(REL) >= 1
        text = text.replace(REL, "    wgmma.wait_group.sync.aligned 0;\n" + REL)
    return text


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    adapter = get_op("grouped_gemm")(dev, DriverTimer(dev, None).stream)
    rng = np.random.default_rng()
    inputs = {c: adapter.make_inputs({"case": c}, rng) for c in (1, 2, 3, 4)}
    runs, bits = [], {}
    for build in ("nodrain", "drain"):
        CL.kernel_text = COMMITTED if build == "nodrain" else drained
        CL._kernel.cache_clear()
        MT.MAX_ROW_CLASSES = 3 if build == "nodrain" else 7
        probs = [("case 1", 1, {}), ("case 3", 3, {}), ("case 4", 4, {}), ("case 2 mtiles", 2, {}),
                 ("case 3 (112,96)", 3, dict(row_classes=(112, 96)))]
        for name, c, kw in probs:
            st = inputs[c]
            layouts = [GG._raw_groups([v])[0][3] for v in st.views]
            p = MT.GroupedGemmMTilePlan(st.shapes, layouts, **kw)
            outs = p(st.views)
            driver.call("cuCtxSynchronize")
            refs = reference.grouped_gemm_ref(st.host.groups)
            ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
            got = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
            same = name not in bits or all(np.array_equal(a, b) for a, b in zip(got, bits[name]))
            bits.setdefault(name, got)
            print(f"{build:7s} {name}: {p!r} classes {p.constants.get('ROW_CLASSES') if hasattr(p, 'constants') else '?'}"
                  f" reference ok {ok}, bits equal {same}", flush=True)
            runs.append((build, name, lambda p=p, v=st.views: p(v)))
    for rnd in range(rounds):
        for build, name, fn in runs:
            t = time_op(fn)
            print(f"round {rnd}: {name:16s} {build:7s} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f})", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
