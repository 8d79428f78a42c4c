"""Session 33, device run 4: three cheap cuts of what is left in the TMA-store epilogue's path on case 2.
  tma      the committed kernel;
  early    the segment epilogue's table look-ups (the group's entry, the tile's contributors) issued before the
           wgmma.wait_group 0 that drains the tile's last wgmmas, so their latency overlaps it (exact);
  early2   early, and STORE_TILE's own loads of the entry (n, alpha, the c-map flag, c) issued there too (exact);
  nofence  tma without the storing thread's fence.proxy.tensormap on a group's first tile (timing only);
  old      the kernel before this session (as probe3.py).
Each exact build is compared bit for bit with tma.  Kernel alone and whole call, L2 cleared, best of 3 medians of 40,
three interleaved rounds."""
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


def texts() -> dict:
    old = (Path(".scratch/s33/old_d1fc11b.ptx")).read_text()
    old = old.replace("mul.wide.u32 %off64, %grp, 384;", "mul.wide.u32 %off64, %grp, 512;")
    new = (ptx_dir() / "grouped_gemm_nvfp4_wgmma_cluster.ptx").read_text()
    top = "SEG_DONE:\n    // ================================================================== segment epilogue\n"
    a = "    // ---- the tile just finished: group grp, its cluster tile lt, the launch-wide tile, rows, first unit U0\n"
    b = "    setp.eq.u32 %p_whole, %c_lo, %c_hi;\n"
    assert new.count(top) == 1 and new.count(a) == 1 and new.count(b) == 1
    chain = new[new.index(a):new.index(b)]
    early = new.replace(chain, "").replace(top, top + chain)
    loads = ("    ld.param.u64 %ptab, [p_table];\n    mul.wide.u32 %off64, %grp, 64;\n    add.u64 %pw, %ptab, %off64;\n"
             "    ld.global.nc.u32 %n, [%pw+20];\n")
    st = early.index("STORE_TILE:\n")
    i = early.index(loads, st)
    j = early.index("    ld.global.nc.v2.u64 {%pc, %c_rs}, [%pw+32];\n", i)
    j = early.index("\n", j) + 1
    moved = early[i:j].split("\n", 3)[3]  # the four entry loads (n, alpha, flag, c), without the pointer setup
    early2 = early[:i] + early[j:]
    entry = "    ld.global.nc.u32 %m, [%pw+16];\n"
    k = early2.index(entry, early2.index(top))
    early2 = early2[:k + len(entry)] + moved + early2[k + len(entry):]
    fence = "    fence.proxy.tensormap::generic.acquire.gpu [%tm_c], 128;"
    assert new.count(fence) == 1
    nofence = new.replace(fence, "    // (probe: no fence)")
    return {"tma": new, "early": early, "early2": early2, "nofence": nofence, "old": old}


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
    plans, outs = {}, {}
    for name, text in texts().items():
        p = GC.GroupedGemmClusterPlan(st.shapes, layouts)
        if name != "tma":
            mod = load(render(text, "sm_90a", p.constants), target="sm_90a")
            kern = mod.kernel(GC._ENTRY)
            kern.set_max_dynamic_shared(p.shared_mem)
            p.kernel, p._launch, p._repeat = kern, None, None
            keep.append(mod)
        for arrs in st.dev:
            arrs["c"].fill(np.nan)
        wd.arm(name); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
        outs[name] = [arrs["c"].numpy().copy() for arrs in st.dev]
        plans[name] = p
    bad = [i for i, (o, g) in enumerate(zip(outs["tma"], st.host.groups))
           if not reference.check(o.transpose(1, 2, 0), reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok]
    print(f"  tma: reference {'OK' if not bad else 'FAIL groups ' + str(bad)}", flush=True)
    for name in plans:
        same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16)) for a, b in zip(outs["tma"], outs[name]))
        print(f"  {name}: bits {'equal to tma' if same else 'DIFFER from tma'}", flush=True)
    res = {name: [] for name in plans}
    for rnd in range(3):
        for name, p in plans.items():
            res[name].append((best(lambda p=p: p(st.views)), best(lambda p=p: p._launch.launch())))
    for name in plans:
        print(f"  case 2 {name:8s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
              + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["--offline"]:  # render and assemble every text here (no GPU)
        import subprocess
        for n, t in texts().items():
            Path(f"/tmp/s33/{n}.ptx").write_text(render(t, "sm_90a", GC.kernel_constants()))
            r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", f"/tmp/s33/{n}.ptx", "-o", f"/tmp/s33/{n}.cubin"],
                               capture_output=True, text=True)
            print(n, r.returncode, [ln for ln in r.stderr.split("\n") if "registers" in ln or "spill" in ln][-2:])
    else:
        main()
