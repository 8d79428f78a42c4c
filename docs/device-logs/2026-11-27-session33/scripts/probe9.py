"""Session 33, device run 9: the cluster kernel's loops of at most 128 rows accumulating in %acc64..127 instead of
%acc0..63 (build `hi`): does ptxas then place their A fragments below the 128-accumulator block, and are they as fast
as without the 256-row loop beside them (session 32, docs/profiling.md)?  Each small loop waits for its last wgmmas
and moves its accumulators down to %acc0.. before the segment epilogue (which reads %acc0..).  Exact: bits compared
with the committed kernel.  Cases 1 and 2 on the cluster plan, kernel alone and whole call, L2 cleared, best of 3
medians of 40, three interleaved rounds.  `--offline` writes both texts and cubins to .scratch/s33/ (their SASS is
dumped on the device)."""
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, "tools")
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ptxsource import ptx_dir, render  # noqa: E402

SMALL = (32, 64, 96, 128)


def hi_text(text: str) -> str:
    for n in SMALL:
        start = text.index(f"UNIT_LOOP_N{n}:\n")
        end = text.index("    bra.uni SEG_DONE;\n", start)
        block = re.sub(r"%acc(\d+)\b", lambda m: f"%acc{int(m.group(1)) + 64}", text[start:end])
        moves = ("    wgmma.wait_group.sync.aligned 0;          // probe: the accumulators move down after the drain\n"
                 + "".join(f"    mov.f32 %acc{i}, %acc{i + 64};\n" for i in range(n // 2)))
        text = text[:start] + block + moves + text[end:]
    return text


def texts() -> dict:
    now = (ptx_dir() / "grouped_gemm_nvfp4_wgmma_cluster.ptx").read_text()
    return {"now": now, "hi": hi_text(now)}


def main():
    from hang_watchdog import Watchdog
    from nvfp4rt import driver, reference
    from nvfp4rt.bench import get_op, time_op
    from nvfp4rt.module import load
    from nvfp4rt.ops import grouped_gemm as GG

    wd = Watchdog(200)
    keep = []
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)

    def best(f):
        wd.arm("timing")
        r = min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))
        wd.disarm()
        return r

    bench = get_op("grouped_gemm")()
    runs = {}
    for case in (1, 2):
        st = bench.make_inputs({"case": case}, np.random.default_rng())
        keep.append(st)
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        outs = {}
        for name, text in texts().items():
            p = GC.GroupedGemmClusterPlan(st.shapes, layouts)
            if name != "now":
                mod = load(render(text, "sm_90a", p.constants), target="sm_90a")
                kern = mod.kernel(GC._ENTRY)
                kern.set_max_dynamic_shared(p.shared_mem)
                p.kernel, p._launch, p._repeat = kern, None, None
                keep.append(mod)
            for arrs in st.dev:
                arrs["c"].fill(np.nan)
            wd.arm(name); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
            outs[name] = [arrs["c"].numpy().copy() for arrs in st.dev]
            runs[f"case {case} {name}"] = (p, st)
        bad = [i for i, (o, g) in enumerate(zip(outs["now"], st.host.groups))
               if not reference.check(o.transpose(1, 2, 0), reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok]
        same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(outs["now"], outs["hi"]))
        print(f"  case {case}: now reference {'OK' if not bad else 'FAIL ' + str(bad)}; hi bits "
              f"{'equal' if same else 'DIFFER'}", flush=True)
    res = {name: [] for name in runs}
    for rnd in range(3):
        for name, (p, st) in runs.items():
            res[name].append((best(lambda p=p, s=st: p(s.views)), best(lambda p=p: p._launch.launch())))
    for name in runs:
        print(f"  {name:10s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
              + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["--offline"]:
        import subprocess
        out = Path(".scratch/s33")
        for n, t in texts().items():
            (out / f"{n}.ptx").write_text(render(t, "sm_90a", GC.kernel_constants()))
            r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", str(out / f"{n}.ptx"), "-o", str(out / f"{n}.cubin")],
                               capture_output=True, text=True)
            print(n, r.returncode, [ln.split(": ", 1)[-1] for ln in r.stderr.split("\n")
                                    if "registers" in ln or "spill" in ln or "C75" in ln])
    else:
        main()
