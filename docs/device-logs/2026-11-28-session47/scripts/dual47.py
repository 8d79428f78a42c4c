"""Session 47: how fast could the dual's 256 x 3072 x 4096 run if its 1536 k256 units were spread evenly over the
SMs and the split tiles' exchange cost nothing?  (issue 6's one dual shape below 75% of the fp16 ceiling)

Plans (whole calls, L2 cleared, launch phases spread, best of 3 medians of 40, interleaved rounds):
  whole       the op's plan: 96 whole 128-row tiles of 16 units on 96 CTAs (36 SMs idle)
  c1u12       stream-K, clusters of 1, runs of 12 units (128 CTAs; every tile split between two CTAs), checked
  c1u12 free  the same runs on a timing-only cut of the kernel: every segment of a run goes straight to its fp16
              epilogue, as if its tile were whole (no partial write, counter, head wait or reduction; each split tile
              is stored twice, and the results are wrong and not checked): what any schedule of these runs pays
              without an exchange
  c2u12 free  the same over clusters of 2 (A16 multicast), runs of 12 cluster units
  whole free  the op's whole tiles on the cut kernel (no tile is split, so this is the build's control)
With "noa16" (argv[2]): also whole and c1u12 free on builds whose A16 producer copies only its first A_BUFS
sub-steps and then arrives on the full barriers without copying (the consumers reuse stale A16; timing only): how
much of the time is the A16 copies' traffic from L2 (a 128-row dual unit copies 64 KB of A16 beside 18 KB of B).
and the ceilings the bench holds the op to, measured in the same process: the fp16 ceiling (torch 8192^3) and the
shape's same-size tensor floor.  Usage (from the repository root): dual47.py ROUNDS [noa16]"""
import sys
import time

sys.path.insert(0, ".")
sys.path.insert(0, "docs/device-logs/2026-11-22-session27/scripts")
import exp1h as H  # noqa: E402
import nvfp4rt  # noqa: E402
from nvfp4rt import ceilings, driver, reference  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.ops import dual_gemm  # noqa: E402
from nvfp4rt.ops import dual_gemm_tiles as DT  # noqa: E402
from nvfp4rt.ops import gemm_wgmma_cluster as GWC  # noqa: E402

WHOLE = "    @%p_whole bra STORE_TILE;                 // this CTA did the whole tile\n"


EXPECT = ("    mbarrier.arrive.expect_tx.shared::cta.b64 %mbstate, [%bar], 16384;  // all ranks' slices land here\n")
TMA1 = "    cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint\n"
AROW = "    mul.lo.u32 %arow, %rank, 128/{{CLUSTER}}; // first row of this rank's slice of the 128-row box\n"
DECL = "    .reg .f32   %acc<64>;\n"


def no_a16(text):
    """The A16 producer (CLUSTER = 1 builds) copies its first A_BUFS sub-steps only, then arrives without bytes."""
    for t in (EXPECT, AROW, DECL):
        assert text.count(t) == 1, t
    i = text.index(EXPECT)
    j = text.index(TMA1, i)
    assert j - i < 400
    text = (text[:i] + "    setp.lt.u32 %p_probe, %probe_n, {{A_BUFS}};\n    add.u32 %probe_n, %probe_n, 1;\n"
            + "    @%p_probe " + EXPECT.lstrip() + "    @!%p_probe mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];\n"
            + text[i + len(EXPECT):j] + "    @%p_probe " + TMA1.lstrip() + text[j + len(TMA1):])
    text = text.replace(AROW, AROW + "    mov.u32 %probe_n, 0;\n")
    return text.replace(DECL, DECL + "    .reg .pred  %p_probe;\n    .reg .b32   %probe_n;\n")


def loader(free: bool, noa16: bool):
    def load_kernel(ordinal, constants):
        from nvfp4rt.module import load
        cons = dict(constants)
        text = GWC.kernel_text(cons)
        if free:
            assert text.count(WHOLE) == 1
            text = text.replace(WHOLE, "    bra.uni STORE_TILE;                       // session 47 probe\n")
        if noa16:
            text = no_a16(text)
        return load(text, device=driver.Device(ordinal), target="sm_90a", constants=cons).kernel(GWC._ENTRY)
    return load_kernel


def main():
    rounds = int(sys.argv[1])
    dev = nvfp4rt.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    m, n, k = 256, 3072, 4096
    plans = {"whole": dual_gemm.plan_dual_gemm_silu(m, n, k),
             "c1u12": DT.DualGemmTilesPlan(m, n, k, 1, cluster=1, units_per_cluster=12)}
    DT._kernel = loader(True, False)
    for nm, cl, upc in (("c1u12 free", 1, 12), ("c2u12 free", 2, 12), ("whole free", None, None)):
        plans[nm] = DT.DualGemmTilesPlan(m, n, k, 1, cluster=cl, units_per_cluster=upc)
    if sys.argv[2:] == ["noa16"]:
        DT._kernel = loader(False, True)
        plans["whole noa16"] = DT.DualGemmTilesPlan(m, n, k, 1)
        DT._kernel = loader(True, True)
        plans["c1u12 free noa16"] = DT.DualGemmTilesPlan(m, n, k, 1, cluster=1, units_per_cluster=12)
    for nm in ("whole", "c1u12"):
        for dist in ("competition", "wide"):
            d, args, c = H.dual_args(m, n, k, 1, dist)
            plans[nm](*args)
            driver.call("cuCtxSynchronize")
            res = reference.check(c.numpy().transpose(1, 2, 0),
                                  reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2))
            print(f"{nm} {dist}: {'OK' if res.ok else 'FAIL ' + str(res)}", flush=True)
    for nm, p in plans.items():
        print(f"{nm:16s} {p!r}", flush=True)
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    res = {nm: [] for nm in plans}
    for _ in range(rounds):
        for nm, p in plans.items():
            res[nm].append(min(time_op(lambda p=p: p(*args), iters=40).median_us for _ in range(3)))
    for nm in plans:
        print(f"{nm:16s} " + " ".join(f"{t:6.2f}" for t in res[nm]), flush=True)
    flops = 4 * m * n * k
    tf, src = ceilings.measure_tensor_ceiling(dev.properties.l2_bytes)
    floor = ceilings.measure_tensor_floor_time(flops, 2 * m * n, dev)
    print(f"fp16 ceiling {tf:.1f} TFLOP/s ({src}): 75% of it is {flops / (0.75 * tf * 1e12) * 1e6:.2f} us; "
          f"tensor floor median {floor.median_us:.2f} us (p10 {floor.p10_us:.2f})", flush=True)
    print("done", time.strftime("%H:%M:%S"), flush=True)


if __name__ == "__main__":
    main()
