"""Per-CTA timeline of the stream-K pairs (globaltimer, consumer thread 0 of each CTA): start, tail partial write,
head wait, cluster barrier, reduction, end.  Ad-hoc instrumentation of the rendered KS_STREAM kernel."""
import re
import sys
import numpy as np
import nvfp4rt
from nvfp4rt import data, driver
from nvfp4rt.module import load
from nvfp4rt.ops import gemm_wgmma_cluster as CL
from nvfp4rt.ptxsource import ptx_dir, render

N = 10


def put(slot, val="%dbt"):
    return (f"    mov.u64 %dbt, %globaltimer;\n    mov.u32 %dbc, %ctaid.x;\n    mul.wide.u32 %dbo, %dbc, {8*N};\n"
            f"    mov.u64 %dba, kss_dbg;\n    add.u64 %dba, %dba, %dbo;\n    @%pdbg st.global.u64 [%dba+{8*slot}], {val};\n")


def instrument(text):
    def once(old, new, optional=False):
        nonlocal text
        if optional and old not in text:
            return
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    once(".address_size 64\n", f".address_size 64\n.global .align 8 .u64 kss_dbg[{132*N*4}];\n")
    first = re.search(r"^\s*\.reg \.pred[^\n]*\n", text, flags=re.M)
    text = text[:first.end()] + "    .reg .pred %pdbg;\n    .reg .b64 %dbt, %dbo, %dba, %dbf;\n    .reg .b32 %dbc;\n" + text[first.end():]
    once("    mov.u32 %thread, %tid.x;\n", "    mov.u32 %thread, %tid.x;\n    setp.eq.u32 %pdbg, %thread, 128;\n" + put(8))
    once("SEG_LOOP:\n", "    setp.eq.u32 %pdbg, %ct, 0;\n" + put(0) + "SEG_LOOP:\n" + put(6))
    once("PARTIAL_WRITE:\n", "PARTIAL_WRITE:\n" + put(1), True)
    once("PART_FLAG_DONE:\n    bar.sync 1, 256;\n", "PART_FLAG_DONE:\n    bar.sync 1, 256;\n" + put(2), True)
    once("KSPLIT_REDUCE:\n", "KSPLIT_REDUCE:\n" + put(3))
    once("KSS_POLLED:\n", "KSS_POLLED:\n" + put(4), True)
    once("    barrier.cluster.wait.acquire;\n    mapa.shared::cluster.u32 %pr0", "    barrier.cluster.wait.acquire;\n" + put(5) + "    mapa.shared::cluster.u32 %pr0", True)
    once("    barrier.cluster.wait.acquire;\n    @%p_whole bra KSS_GO;\n", "    barrier.cluster.wait.acquire;\n" + put(5) + "    @%p_whole bra KSS_GO;\n", True)
    once("    ld.shared::cluster.u32 %flag, [%addr+8];",
         "    ld.shared::cluster.u32 %flag, [%addr+8];\n    cvt.u64.u32 %dbf, %flag;\n    add.u64 %dbf, %dbf, 1;\n"
         + put(7, "%dbf"), True)
    ks_end = re.search(r"^    bra\.uni EXIT;( +// its cluster barrier keeps P alive[^\n]*)\n", text, flags=re.M)
    text = text[:ks_end.start()] + put(6) + text[ks_end.start():]
    return text


mods = {}


def kern(ordinal, constants):
    if constants not in mods:
        src = render((ptx_dir() / "gemm_nvfp4_wgmma_cluster.ptx").read_text(), "sm_90a", dict(constants))
        mods[constants] = load(instrument(src), device=driver.Device(ordinal), target="sm_90a")
    return mods[constants].kernel("nvfp4_gemm_wgmma_cluster")


CL._kernel = kern
print(nvfp4rt.device().properties.name, flush=True)
for m, n, k in [(128, 7168, 16384), (64, 7168, 4096), (128, 4096, 7168)]:
    d = data.gemm_data(m, n, k, 1, seed=None)
    dev = {x: nvfp4rt.from_numpy(np.ascontiguousarray(d.physical(x)).view(np.uint8)) for x in ("a", "b", "sfa", "sfb")}
    c = nvfp4rt.from_numpy(np.zeros((1, m, n), np.float16))
    for name, kw in (("ksplit2", dict(ksplit=2)), ("kss", dict(ks_stream=True))):
        p = CL.GemmClusterPlan(m, n, k, 1, **kw)
        g = p.geometry
        mod = None
        for rep in range(3):
            p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
            nvfp4rt.device().synchronize()
            mod = mods[tuple(sorted(p.constants.items()))]
            ptr, size = driver.call("cuModuleGetGlobal", mod.handle, b"kss_dbg")
            driver.call("cuMemsetD8", ptr, 0, size)
            p.run(dev["a"], dev["b"], dev["sfa"], dev["sfb"], c)
            nvfp4rt.device().synchronize()
        buf = np.zeros(size // 8, np.uint64)
        driver.call("cuMemcpyDtoH", buf.ctypes.data, ptr, size)
        t = buf[:g.grid * N].reshape(g.grid, N).astype(np.int64)
        t0 = t[:, 8].min()
        r = lambda s: (t[:, s][t[:, s] > 0] - t0) / 1000.0
        def st(s):
            x = r(s)
            return f"min {x.min():6.2f} med {np.median(x):6.2f} max {x.max():6.2f}" if x.size else "-"
        def dur(a, b):
            ok = (t[:, a] > 0) & (t[:, b] > 0)
            x = (t[ok, b] - t[ok, a]) / 1000.0
            return f"med {np.median(x):5.2f} max {x.max():5.2f} (n {ok.sum()})" if ok.any() else "-"
        print(f"{m}x{n}x{k} {name} grid {g.grid} upc {g.units_per_cluster}: us from the first kernel entry", flush=True)
        print(f"   entry {st(8)} | seg_loop {st(0)} | ksr {st(3)} | end {st(6)}", flush=True)
        print(f"   partial write {dur(1, 2)} | head poll {dur(3, 4)} | ksr->met {dur(3, 5)} | met->end {dur(5, 6)}"
              f" | flags {np.bincount(t[:, 7][t[:, 7] > 0] - 1) if (t[:, 7] > 0).any() else '-'}", flush=True)
