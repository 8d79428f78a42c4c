"""Session 33, device run 3: why the TMA-store epilogue (a688d69) does not make case 2 faster.  Same machine, same
inputs, kernel alone and whole call (L2 cleared, best of 3 medians of 40, three interleaved rounds):
  old      the kernel before this session (`git show d1fc11b:ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx` in .scratch/s33/old_d1fc11b.ptx, its map stride 384 -> 512 so that it reads the new
           host's map buffer; it ignores u32[7]): two staging rounds and the copy-out;
  tma      the committed kernel: per-warpgroup staging and TMA stores;
  nostore  tma without the TMA store instructions (staging, fences and barriers kept; timing only);
  nostage  tma without the staging stores (the TMA stores write whatever the box holds; timing only);
  noepi    old without staging and copy-out (session 33 run 1's bound; timing only).
old and tma are checked bit for bit against each other and against the reference."""
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
from nvfp4rt.ptxsource import ptx_dir, render  # noqa: E402

wd = Watchdog(200)
keep = []
print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
OLD = (Path(".scratch/s33/old_d1fc11b.ptx")).read_text()
assert OLD.count("mul.wide.u32 %off64, %grp, 384;") == 2
OLD = OLD.replace("mul.wide.u32 %off64, %grp, 384;", "mul.wide.u32 %off64, %grp, 512;")
NEW = (ptx_dir() / "grouped_gemm_nvfp4_wgmma_cluster.ptx").read_text()
ST = "    cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%tm_c, {%x, %y}], [%box];\n"
assert NEW.count(ST) == 2
STAGE = [ln for ln in NEW.split("STORE_COPY:")[0].split("EPI_CMAP_READY:")[1].split("\n") if ln.startswith("    st.shared.b16")]
assert len(STAGE) == 128
nostage = NEW.split("STORE_COPY:")
head = nostage[0].split("EPI_CMAP_READY:")
head[1] = "\n".join(ln for ln in head[1].split("\n") if not ln.startswith("    st.shared.b16"))
TEXTS = {"old": OLD, "tma": NEW, "nostore": NEW.replace(ST, ""),
         "nostage": "EPI_CMAP_READY:".join(head) + "STORE_COPY:" + nostage[1],
         "noepi": OLD.replace("STORE_TILE:\n", "STORE_TILE:\n    bra.uni OUT_DONE_1;\n")}


def swap(p, text):
    mod = load(render(text, "sm_90a", p.constants), target="sm_90a")
    kern = mod.kernel(GC._ENTRY)
    kern.set_max_dynamic_shared(p.shared_mem)
    p.kernel, p._launch, p._repeat = kern, None, None
    keep.append(mod)


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
    if name != "tma":
        swap(p, text)
    for arrs in st.dev:
        arrs["c"].fill(np.nan)
    wd.arm(name); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
    outs[name] = [arrs["c"].numpy().copy() for arrs in st.dev]
    plans[name] = p
for name in ("old", "tma"):
    bad = [i for i, (o, g) in enumerate(zip(outs[name], st.host.groups))
           if not reference.check(o.transpose(1, 2, 0), reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok]
    print(f"  {name}: reference {'OK' if not bad else 'FAIL groups ' + str(bad)}", flush=True)
same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(outs["old"], outs["tma"]))
print(f"  old and tma bits {'equal' if same else 'DIFFER'}", flush=True)
res = {name: [] for name in plans}
for rnd in range(3):
    for name, p in plans.items():
        res[name].append((best(lambda p=p: p(st.views)), best(lambda p=p: p._launch.launch())))
for name in plans:
    print(f"  case 2 {name:8s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
          + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
