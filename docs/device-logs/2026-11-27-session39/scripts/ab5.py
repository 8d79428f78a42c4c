"""Session 39 run 12: the epilogue's table reads off its critical path, second form ('new', the working tree: the
tile's alpha and c-map flag loaded at the segment epilogue's start, while the last wgmmas drain, instead of at
SEG_LOOP as in run 11, which cost case 1 1.5 us; an even run's whole tile known by division) against 'late' (run 6's
code, rebuilt by undoing those edits in the text) and 'nofence' (new without the storing thread's
fence.proxy.tensormap before its first store through a map: timing only, to see what the fence costs).  Same inputs;
bits compared, the float64 reference checked; whole calls, phases spread, medians of 100, ROUNDS interleaved rounds,
with the bench's per-group peer in each round for cases 3 and 4.  Usage: ab5.py [ROUNDS] [CASES...]"""

import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.ops import gemm_wgmma_cluster as CL  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_mtiles as GM  # noqa: E402

UNDO = [  # (new text, late text)
    ("""// {{if GROUPED}}
    div.u32 %mt, %tile, %ntiles;              // the tile's alpha and c-map flag for its store, loaded while the last
    ld.param.u64 %pent, [p_mtiles];           // wgmmas drain: at STORE_TILE their round trip held case 4's tail
    mad.wide.u32 %pent, %mt, 576, %pent;      // 0.45 us (session 39)
    ld.global.nc.f32 %alpha, [%pent+408];
    ld.global.nc.u32 %ctma, [%pent+416];      // 1: the tile's c map at +448 (TMA store); 0: the copy-out
// {{endif}}
    wgmma.wait_group.sync.aligned 0;
""", """    wgmma.wait_group.sync.aligned 0;
"""),
    ("""    and.b32 %tmp, %ct, 127;                   // (%alpha and %ctma were loaded at the segment epilogue's start)""",
     """    ld.global.nc.f32 %alpha, [%pent+408];
    ld.global.nc.u32 %ctma, [%pent+416];      // 1: the tile's c map at +448 (TMA store); 0: the copy-out
    and.b32 %tmp, %ct, 127;"""),
    ("""    setp.eq.u32 %p_x, %upc, 0;                // even runs: a whole tile is known by division, without the table's
    @%p_x bra CONTRIB_TABLE;                  // round trip in front of its store (0.2 us of case 4's tail)
    mul.lo.u32 %tmp, %tile, %KB;
    div.u32 %c_lo, %tmp, %upc;
    add.u32 %tmp, %tmp, %KB;
    sub.u32 %tmp, %tmp, 1;
    div.u32 %c_hi, %tmp, %upc;
    setp.eq.u32 %p_whole, %c_lo, %c_hi;
    @%p_whole bra STORE_TILE;
CONTRIB_TABLE:
""", ""),
]
FENCE = "    @%p_tma fence.proxy.tensormap::generic.acquire.gpu [%tm_c], 128;\n"
_orig = CL.kernel_text
LATE = [None]


def patched(cons):
    text = _orig(cons)
    if LATE[0] == "late":
        for new, old in UNDO:
            assert text.count(new) == 1, new
            text = text.replace(new, old)
    elif LATE[0] == "nofence":
        assert text.count(FENCE) == 1
        text = text.replace(FENCE, "")
    return text


CL.kernel_text = patched


def plan(st, layouts, variant):
    LATE[0] = variant
    CL._kernel.cache_clear()
    p = GM.GroupedGemmMTilePlan(st.shapes, layouts)
    outs = p(st.views)
    driver.call("cuCtxSynchronize")
    LATE[0] = None
    CL._kernel.cache_clear()
    return p, outs


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    cases = [int(c) for c in sys.argv[2:]] or [4, 3, 1, 2]
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    timer = DriverTimer(dev, None)
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    runs = []
    for case in cases:
        st = adapter.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        refs = reference.grouped_gemm_ref(st.host.groups)
        bits = []
        for variant in ("new", "late", "nofence"):
            p, outs = plan(st, layouts, variant)
            ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
            bits.append([o.numpy().view(np.uint16).copy() for o in outs])
            print(f"case {case} {variant}: {p!r} reference ok {ok}", flush=True)
            runs.append((case, f"{variant:7s}", lambda p=p, s=st: p(s.views)))
        same = all(np.array_equal(a, b) for bb in bits[1:] for a, b in zip(bits[0], bb))
        print(f"case {case}: bits equal {same}", flush=True)
        if case in (3, 4):
            runs.append((case, "peer   ", adapter.peers(st)["nvfp4rt_gemm_per_group"].fn))
    for rnd in range(rounds):
        got = {}
        for case, label, fn in runs:
            t = time_op(fn)
            got[(case, label)] = t.median_us
            print(f"round {rnd}: case {case} {label} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f}, p90 {t.p90_us:7.2f})",
                  flush=True)
        for case in (3, 4):
            if (case, "peer   ") in got:
                print(f"round {rnd}: case {case} ratio " + "  ".join(
                    f"{v.strip()} {got[(case, 'peer   ')] / got[(case, v)]:.3f}" for v in ("new    ", "late   ", "nofence")),
                    flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
