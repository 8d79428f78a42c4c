"""Session 34, device run 2: grouped case 2 on the cluster kernel with whole tiles instead of stream-K runs.

The kernel stores a tile directly when one cluster runs all of its units, so a schedule whose run boundaries are
tile boundaries needs no partials, counters or reductions.  The host cuts the tiles (in launch order) into at most
as many contiguous runs as clusters fit, minimising the longest run's cost (binary search on the cap, greedy fill).
Two cost tables: `uc`, per-unit times measured in session 32 (N = 64..256: 1.55 .. 2.49 us) plus 0.7 us per tile
for its store; `model`, the schedule's own DECODE_COST + N/256 per unit plus 0.5 per tile.  Checked against the
reference and bit for bit against the default plan; whole call and kernel alone, L2 cleared, best of 3 medians of
40, three interleaved rounds."""
import dataclasses
import sys
import time

import numpy as np

sys.path.insert(0, "tools")
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402

UC = {32: 1.55, 64: 1.55, 96: 1.62, 128: 1.68, 160: 1.85, 192: 2.05, 224: 2.27, 256: 2.49}


def tile_costs(geo, kind):
    out = []
    for g in geo.groups:
        for mt in range(g.m_tiles):
            n_tok = GC.tokens(g.rows(mt))
            if kind == "uc":
                c = UC[n_tok] * g.k_stages + 0.7
            else:
                c = GC.unit_cost(g.rows(mt)) * g.k_stages + 0.5 * n_tok / GC.TILE_M
            out += [(c, g.k_stages)] * g.n_tiles
    return out


def whole_starts(geo, kind, runs):
    tiles = tile_costs(geo, kind)
    costs = [c for c, _ in tiles]

    def cut(cap):
        starts, s, u = [0], 0.0, 0
        for c, k in tiles:
            if s > 0 and s + c > cap:
                starts.append(u)
                s = 0.0
            s += c
            u += k
        starts.append(u)
        return starts

    lo, hi = max(costs), sum(costs)
    for _ in range(60):
        mid = (lo + hi) / 2
        if len(cut(mid)) - 1 <= runs:
            hi = mid
        else:
            lo = mid
    return tuple(cut(hi)), hi


def main():
    from hang_watchdog import Watchdog
    from nvfp4rt import driver, reference
    from nvfp4rt.bench import get_op, time_op
    from nvfp4rt.memory import DeviceAllocation
    from nvfp4rt.ops import grouped_gemm as GG

    wd = Watchdog(240)
    keep = []
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)

    def best(f):
        wd.arm("timing")
        r = min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))
        wd.disarm()
        return r

    bench = get_op("grouped_gemm")()
    runs = {}
    for case in (2,):
        st = bench.make_inputs({"case": case}, np.random.default_rng())
        keep.append(st)
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        outs = {}
        for name in ("default", "uc", "model"):
            p = GC.GroupedGemmClusterPlan(st.shapes, layouts)
            if name != "default":
                g = p.geometry
                starts, cap = whole_starts(g, name, p.max_clusters)
                g2 = dataclasses.replace(g, starts=starts)
                p.geometry = g2
                s = np.array(starts, dtype=np.uint32)
                tc = g2.tile_ctas_table()
                p._starts, p._tile_ctas = DeviceAllocation(s.nbytes, p.device), DeviceAllocation(tc.nbytes, p.device)
                driver.call("cuMemcpyHtoD", p._starts.ptr, s.ctypes.data, s.nbytes)
                driver.call("cuMemcpyHtoD", p._tile_ctas.ptr, tc.ctypes.data, tc.nbytes)
                p._launch, p._repeat = None, None
                print(f"  case {case} {name}: {g2.clusters} runs, split tiles {g2.split_tiles}, cap {cap:.1f}",
                      flush=True)
            else:
                print(f"  case {case} default: {p!r}", flush=True)
            for arrs in st.dev:
                arrs["c"].fill(np.nan)
            wd.arm(name); p(st.views); driver.call("cuCtxSynchronize"); wd.disarm()
            outs[name] = [arrs["c"].numpy().copy() for arrs in st.dev]
            runs[f"case {case} {name}"] = (p, st)
        bad = [i for i, (o, g) in enumerate(zip(outs["default"], st.host.groups))
               if not reference.check(o.transpose(1, 2, 0), reference.gemm_ref(g.a, g.b, g.sfa, g.sfb)).ok]
        print(f"  case {case}: default reference {'OK' if not bad else 'FAIL ' + str(bad)}", flush=True)
        for name in ("uc", "model"):
            same = all(np.array_equal(a.view(np.uint16), b.view(np.uint16))
                       for a, b in zip(outs["default"], outs[name]))
            print(f"  case {case}: {name} bits {'equal' if same else 'DIFFER'}", flush=True)
    res = {name: [] for name in runs}
    for rnd in range(3):
        for name, (p, st) in runs.items():
            res[name].append((best(lambda p=p, s=st: p(s.views)), best(lambda p=p: p._launch.launch())))
    for name in runs:
        print(f"  {name:16s} whole " + " ".join(f"{w:7.2f}" for w, _ in res[name]) + "   kernel alone "
              + " ".join(f"{g:7.2f}" for _, g in res[name]), flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    main()
