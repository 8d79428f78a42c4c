"""Session 39 run 13: the committed epilogue at 07bae13 ('new': the storing thread acquires each m tile's c map at
the segment's start, an even run's whole tile skips the table's (c_lo, c_hi)) against 'late' (run 6's code at
63d5a21, rebuilt by undoing those edits in the text).  Same inputs; bits compared, the float64 reference checked;
whole calls, phases spread, medians of 100, ROUNDS interleaved rounds, with the bench's per-group peer in each round
for cases 3 and 4.  Usage: ab6.py [ROUNDS] [CASES...]"""

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
    ("""    and.b32 %tmp, %ct, 127;                   // a warpgroup's storing thread acquires the c map of each new m tile
    setp.ne.u32 %p_tma, %tmp, 0;              // here, where the first segment waits for its B stage anyway: at
    @%p_tma bra CMAP_ACQUIRED;                // STORE_TILE the fence held the whole-tile cases' tails 0.15-0.3 us
    div.u32 %mt, %tile, %ntiles;              // (session 39).  The fence only orders this thread's later reads of the
    setp.eq.u32 %p_tma, %mt, %cmt;            // 128 bytes through the tensormap proxy after the host's copy, so it
    @%p_tma bra CMAP_ACQUIRED;                // is harmless where the entry has no map
    mov.u32 %cmt, %mt;
    ld.param.u64 %pent, [p_mtiles];
    mad.wide.u32 %pent, %mt, 576, %pent;
    add.u64 %tm_c, %pent, 448;
    fence.proxy.tensormap::generic.acquire.gpu [%tm_c], 128;
CMAP_ACQUIRED:
""", ""),
    ("""    setp.ne.u32 %p_tma, %ctma, 0;             // the storing thread fetches the tile's c map (acquired at SEG_LOOP)
    and.pred %p_tma, %p_tma, %p_iss;          // while the warpgroup stages
    @%p_tma prefetch.tensormap [%tm_c];
""", """    // the storing thread's first store through this m tile's map: acquire it (the host copied the table) and fetch
    // it while the warpgroup stages
    setp.ne.u32 %p_tma, %ctma, 0;
    setp.ne.and.u32 %p_tma, %mt, %cmt, %p_tma;
    and.pred %p_tma, %p_tma, %p_iss;
    @%p_tma fence.proxy.tensormap::generic.acquire.gpu [%tm_c], 128;
    @%p_tma prefetch.tensormap [%tm_c];
    @%p_tma mov.u32 %cmt, %mt;
"""),
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
_orig = CL.kernel_text
LATE = [None]


def patched(cons):
    text = _orig(cons)
    if LATE[0] == "late":
        for new, old in UNDO:
            assert text.count(new) == 1, new
            text = text.replace(new, old)
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
        for variant in ("new", "late"):
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
                    f"{v.strip()} {got[(case, 'peer   ')] / got[(case, v)]:.3f}" for v in ("new    ", "late   ")),
                    flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
