"""Session 33, device run 7: the TMA-store epilogue with one 128-row box per warpgroup against two 64-row boxes in turn (case 2):
  old      the kernel before this session (.scratch/s33/old_d1fc11b.ptx from git show d1fc11b:ptx/..., map stride
           384 -> 512 so that it reads the new host's map buffer; it ignores u32[7]);
  tma      a688d69: one 128-row box per warpgroup (.scratch/s33/tma_a688d69.ptx; its plan's c maps get that box);
  now      the committed kernel (874cc8a927c4: two 64-row boxes per warpgroup in turn).
Bits compared with now, now against the reference.  Kernel alone and whole call, L2 cleared, best of 3 medians of 40,
four interleaved rounds."""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, "tools")
from hang_watchdog import Watchdog  # noqa: E402
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import get_op, time_op  # noqa: E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402

wd = Watchdog(200)
keep = []
print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
old = Path(".scratch/s33/old_d1fc11b.ptx").read_text()
assert old.count("mul.wide.u32 %off64, %grp, 384;") == 2
TEXTS = {"old": old.replace("mul.wide.u32 %off64, %grp, 384;", "mul.wide.u32 %off64, %grp, 512;"),
         "tma": Path(".scratch/s33/tma_a688d69.ptx").read_text(), "now": None}


def best(f):
    wd.arm("timing")
    r = min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))
    wd.disarm()
    return r


bench = get_op("grouped_gemm")()
st = bench.make_inputs({"case": 2}, np.random.default_rng())
layouts = [GG._raw_groups([v])[0][3] for v in st.views]
plans, outs = {}, {}
for name, text in TEXTS.items():
    p = GC.GroupedGemmClusterPlan(st.shapes, layouts)
    if text is not None:
        from nvfp4rt.ptxsource import render
        mod = load(render(text, "sm_90a", p.constants), target="sm_90a")
        kern = mod.kernel(GC._ENTRY)
        kern.set_max_dynamic_shared(p.shared_mem)
        p.kernel, p._launch, p._repeat = kern, None, None
        keep.append(mod)
    for arrs in st.dev:
        arrs["c"].fill(np.nan)
    # a688d69 stores 128-row boxes: its plan's c maps (built on its first call, then kept) need that box
    box, GC.C_BOX = GC.C_BOX, ((128, 64) if name == "tma" else GC.C_BOX)
    wd.arm(name); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
    GC.C_BOX = box
    outs[name] = [arrs["c"].numpy().copy() for arrs in st.dev]
    plans[name] = p
bad = [i for i, (o, g) in enumerate(zip(outs["now"], st.host.groups))
       if not reference.check(o.transpose(1, 2, 0), reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok]
print(f"  now: reference {'OK' if not bad else 'FAIL groups ' + str(bad)}", flush=True)
for name in ("old", "tma"):
    same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(outs["now"], outs[name]))
    print(f"  {name}: bits {'equal to now' if same else 'DIFFER from now'}", flush=True)
res = {name: [] for name in plans}
for rnd in range(4):
    for name, p in plans.items():
        res[name].append((best(lambda p=p: p(st.views)), best(lambda p=p: p._launch.launch())))
for name in plans:
    print(f"  case 2 {name:4s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
          + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
