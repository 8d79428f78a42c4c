"""The cluster dual GEMM (ptx/dual_gemm_nvfp4_wgmma_cluster.ptx, nvfp4rt.ops.dual_gemm_cluster).

CPU part:
* the committed kernel is what tools/gen_dual_gemm_cluster_ptx.py writes, and its consumer main loop is
  the cluster GEMM's (whose models live in tests/test_gemm_wgmma_cluster.py): the generator's partial
  template resolution agrees with nvfp4rt.ptxsource, and the substituted text appears in the kernel;
* the producer's four B loads land where the GEMM's consumer addressing reads rows 0..63 (B1) and
  64..127 (B2) and their scales; the A16 slices of the ranks tile the 256-row box;
* the epilogue, read out of the PTX: the h1 exchange pairs every accumulator of warpgroup 0 with the same
  accumulator of warpgroup 1, the silu sequence replayed in float32 matches the reference formula, and
  the fp16 staging stores put accumulator e of every thread at its fragment's (m, n), once, without
  bank conflicts;
* the stream-K geometry, the shared-memory budget, argument checks, the variant choice, assembly.

GPU part (``@pytest.mark.gpu``): the competition shapes and ragged ones, both distributions, every
cluster size / buffer count / stage count, NaN-poisoned outputs, bit-identical results across splits.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nvfp4rt.ops import dual_gemm as D
from nvfp4rt.ops import dual_gemm_cluster as DC
from nvfp4rt.ptxsource import render

from conftest import requires_gpu, tool_module

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "ptx" / "dual_gemm_nvfp4_wgmma_cluster.ptx"
GEMM_KERNEL = ROOT / "ptx" / "gemm_nvfp4_wgmma_cluster.ptx"
PTX = KERNEL.read_text()


def _generator():
    return tool_module("gen_dual_gemm_cluster_ptx")


def _rendered(cluster=2, a_bufs=4) -> str:
    return render(PTX, "sm_90a", DC.kernel_constants(cluster, a_bufs))


# ============================================================================ the kernel file

def test_committed_ptx_matches_its_generator():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_dual_gemm_cluster_ptx.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_kernel_file_is_ascii_with_a_header():
    assert PTX.isascii()
    head = PTX.split(".version")[0]
    for word in ("WHAT", "WHERE THE CODE COMES FROM", "TILES AND WORK SPLIT", "PIPELINE AND WARP ROLES",
                 "STREAM-K", "EPILOGUE", "LAUNCH CONTRACT"):
        assert word in head


@pytest.mark.parametrize("cluster", [1, 2, 4])
def test_partial_resolution_agrees_with_the_renderer(cluster):
    """Resolving only WG_WAIT (or KS_STREAM, KS_HELP, DUAL, GROUPED) and rendering the rest gives the lines the full
    renderer gives with WG_WAIT=1 (KS_STREAM=0, KS_HELP=0, DUAL=0, GROUPED=0)."""
    gen = _generator()
    text = GEMM_KERNEL.read_text()
    region = text[text.index(gen._REGION_START):text.index(gen._REGION_END)]
    consts = {"CLUSTER": cluster, "A_BUFS": 6, "WG_WAIT": 1, "A_UNIT": 0, "STAGE_BYTES": 1, "SFB_OFF": 2,
              "KS_STREAM": 0, "KS_HELP": 0, "DUAL": 0, "GROUPED": 0, "PARAM_MAPS": 0}

    def lines(t):
        return [ln for ln in render(t, "sm_90a", consts).split("\n") if ln.strip()]

    assert lines(gen.resolve_conditionals(region, "WG_WAIT", 1)) == lines(region)
    assert lines(gen.resolve_conditionals(region, "WG_WAIT", 3)) != lines(region)  # the resolver does choose
    assert lines(gen.resolve_conditionals(region, "KS_STREAM", 0)) == lines(region)
    assert lines(gen.resolve_conditionals(region, "KS_STREAM", 1)) != lines(region)
    assert lines(gen.resolve_conditionals(region, "KS_HELP", 0)) == lines(region)
    assert lines(gen.resolve_conditionals(region, "KS_HELP", 1)) != lines(region)
    assert lines(gen.resolve_conditionals(region, "DUAL", 0)) == lines(region)
    assert lines(gen.resolve_conditionals(region, "DUAL", 1)) != lines(region)  # DUAL builds skip the look-ahead
    assert lines(gen.resolve_conditionals(region, "GROUPED", 0)) == lines(region)
    assert lines(gen.resolve_conditionals(region, "GROUPED", 1)) != lines(region)  # the m-tile table's row class


def test_unit_aligned_ring_follows_the_producers_ring_with_32_kb_buffers():
    """With four 32 KB a16 buffers (the default) the copied unit loop runs its A_UNIT form; replayed against the
    producer's ring (tests/test_gemm_wgmma_cluster.py) its waits, descriptors and releases hit the right buffers."""
    from test_gemm_wgmma_cluster import _replay_a_unit_ring

    assert DC.kernel_constants(2, 4)["A_UNIT"] == 1 and DC.kernel_constants(2, 3)["A_UNIT"] == 0
    text = _rendered(2, 4)
    _replay_a_unit_ring(text[text.index("UNIT_LOOP:"):text.index("@%p_more bra UNIT_LOOP;")], 4, buf=DC.TILE_M * 128)


def test_main_loop_is_the_cluster_gemms_with_the_listed_substitutions():
    gen = _generator()
    loop = gen.gemm_main_loop()
    assert loop in PTX
    assert loop.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16") == 16
    assert "m64n128k16" not in loop and "%acc127}" in loop
    # the substitutions are checked against the GEMM text: a GEMM edit that moves them fails loudly
    broken = GEMM_KERNEL.read_text().replace("mul.lo.u32 %a16, %ab, 16384;", "mul.lo.u32 %a16, %ab, 16384 ;", 1)
    with pytest.raises(ValueError, match="16384"):
        gen.gemm_main_loop(broken)


def test_host_constants_match_the_generator():
    gen = _generator()
    assert (DC.TILE_M, DC.TILE_N) == (gen.TILE_M, gen.TILE_N)
    assert DC._STAGE_BYTES == gen.STAGE_BYTES == 2 * 64 * 128 + 2 * 64 * 16
    assert DC._A16_BUF_BYTES == gen.A16_BUF == gen.TILE_M * 128
    assert DC._X_BYTES == gen.X_BYTES
    assert DC._PARTIAL_BYTES == gen.SLOT_V4 * 16
    # the header's shared-memory formula and its example
    assert "2048 + 32768*A_BUFS + 18432*S + 36864" in PTX
    assert DC.shared_bytes(3, 4) == 225280 and "225280 bytes at A_BUFS = 4, S = 3" in PTX


def test_kernel_parameters_match_the_plan():
    from nvfp4rt.ptxsource import parse_entries

    sig = next(iter(parse_entries(_rendered()).values()))
    assert [p.name for p in sig.params] == [
        "tmap_a16", "tmap_b1", "tmap_b2", "tmap_sfb1", "tmap_sfb2", "p_c", "p_ws", "p_counters", "c_row_stride",
        "c_batch_stride", "m", "n", "k_stages", "m_tiles", "n_tiles", "total_units", "units_per_cta",
        "num_stages", "alpha1", "alpha2"]


# ============================================================================ producers

def _b_producer_loads(text):
    body = text[text.index("B_PRODUCER:"):text.index("A_PRODUCER:")]
    loads, offset = [], 0
    for line in body.split("\n"):
        m = re.search(r"add\.u32 %addr, %slot_addr, (\d+);", line)
        if m:
            offset = int(m.group(1))
        m = re.search(r"\[(%slot_addr|%addr)\], \[(%tm_\w+), \{(%[xy]), %n0, %batch\}\]", line)
        if m:
            loads.append((m.group(2), 0 if m.group(1) == "%slot_addr" else offset, m.group(3)))
    return loads, int(re.search(r"expect_tx\.shared::cta\.b64 %mbstate, \[%bar\], (\d+);", body).group(1))


def test_b_loads_fill_the_gemm_consumers_slot_rows():
    """B1 rows 0..63 then B2 rows 0..63 (128B-swizzled 64-row boxes) and their scale rows land exactly where
    the GEMM's consumers read slot rows 0..127: warpgroup 0 multiplies B1, warpgroup 1 B2."""
    loads, expect = _b_producer_loads(_rendered())
    assert loads == [("%tm_b", 0, "%x"), ("%tm_b2", 8192, "%x"), ("%tm_sfb", 16384, "%y"), ("%tm_sfb2", 17408, "%y")]
    assert expect == DC._STAGE_BYTES
    assert "mov.u64 %tm_b, tmap_b1;" in PTX and "mov.u64 %tm_sfb, tmap_sfb1;" in PTX
    for row_b in range(128):
        which, r = divmod(row_b, 64)
        # data: slot row row_b (128 bytes, swizzle phase row_b % 8) = row r of box `which`
        box_base = (0, 8192)[which]
        assert box_base + r * 128 == row_b * 128 and (box_base // 128 + r) % 8 == row_b % 8
        # scales: the consumer reads SFB_OFF + 16 * row_b (the GEMM's sfB), the box put row r at base + 16 r
        assert 16384 + 16 * row_b == (16384, 17408)[which] + 16 * r


@pytest.mark.parametrize("cluster", DC.CLUSTER_SIZES)
def test_a16_slices_tile_the_256_row_box(cluster):
    text = _rendered(cluster)
    assert f"mul.lo.u32 %arow, %rank, 256/{cluster};" in text
    assert "mad.lo.u32 %addr, %arow, 128, %a16;" in text
    rows = sorted(r for rank in range(cluster) for r in range(rank * 256 // cluster, (rank + 1) * 256 // cluster))
    assert rows == list(range(256))
    assert all((rank * 256 // cluster * 128) % 1024 == 0 for rank in range(cluster))  # swizzle atoms hold
    assert "expect_tx.shared::cta.b64 %mbstate, [%bar], 32768;" in text


# ============================================================================ epilogue

def _epilogue():
    return PTX[PTX.index("STORE_TILE:"):PTX.index("EPI_STAGED:")]


def test_h1_exchange_pairs_each_accumulator_with_the_same_one_of_the_other_warpgroup():
    text = _epilogue()
    for half in range(2):
        wg0 = text[text.index(f"@%p_h2 bra EPI_WAIT_{half};"):text.index(f"EPI_WAIT_{half}:")]
        wg1 = text[text.index(f"@!%p_h2 bra EPI_DONE_{half};"):text.index(f"EPI_DONE_{half}:")]
        stores = {int(o): [int(a) for a in re.findall(r"%acc(\d+)", regs)] for o, regs in
                  re.findall(r"st\.shared\.v4\.f32 \[%xch\+(\d+)\], \{([^}]*)\}", wg0)}
        loads, current = {}, None
        for line in wg1.split("\n"):
            m = re.search(r"ld\.shared\.v4\.f32 \{%v0, %v1, %v2, %v3\}, \[%xch\+(\d+)\]", line)
            if m:
                current = loads.setdefault(int(m.group(1)), [None] * 4)
            m = re.search(r"mul\.f32 %acc(\d+), %acc\1, %v(\d);", line)
            if m:
                current[int(m.group(2))] = int(m.group(1))
        assert stores == loads
        assert sorted(a for accs in stores.values() for a in accs) == list(range(64 * half, 64 * half + 64))
        assert max(stores) + 16 * 128 <= DC._X_BYTES  # v4 columns of 128 threads per offset
    assert "and.b32 %tmp, %ct, 127;\n    shl.b32 %tmp, %tmp, 4;\n    add.u32 %xch, %sm_c, %tmp;" in text


def _interpret_f32(lines, env):
    f = np.float32
    for line in lines:
        op, dst, *src = [x.strip(" ;,") for x in re.split(r"[ ,]+", line.strip()) if x]
        vals = [env[s] if s in env else np.array(int(s[2:], 16), dtype=np.uint32).view(np.float32)
                if s.startswith("0f") else f(s) for s in src]
        with np.errstate(over="ignore"):
            if op == "mul.f32":
                env[dst] = (vals[0] * vals[1]).astype(f)
            elif op == "add.f32":
                env[dst] = (vals[0] + vals[1]).astype(f)
            elif op == "ex2.approx.ftz.f32":
                env[dst] = np.exp2(vals[0]).astype(f)
            elif op == "rcp.approx.ftz.f32":
                env[dst] = (f(1.0) / vals[0]).astype(f)
            else:
                raise AssertionError(f"unexpected instruction {line!r}")
    return env


def test_silu_times_h2_replayed_from_the_ptx_matches_the_reference():
    from nvfp4rt.reference import check

    text = _epilogue()
    code = [ln.split("//")[0] for ln in text.split("\n")]
    start = [i for i, ln in enumerate(code) if ln.strip() == "mul.f32 %acc5, %acc5, %alpha;"]
    assert len(start) == 1
    wg0 = code[start[0]:start[0] + 6]
    wg1 = [ln for ln in code if re.search(r"mul\.f32 %acc5, %acc5, %(alpha2|v1);", ln)]
    assert len(wg0) == 6 and len(wg1) == 2
    rng = np.random.default_rng()
    h1 = (rng.standard_normal(4096) * 30).astype(np.float32)
    h2 = (rng.standard_normal(4096) * 30).astype(np.float32)
    for alpha1, alpha2 in ((1.0, 1.0), (0.37, 2.5)):
        env = _interpret_f32(wg0, {"%acc5": h1, "%alpha": np.float32(alpha1)})
        s = env["%acc5"]
        env = _interpret_f32(wg1, {"%acc5": h2, "%alpha2": np.float32(alpha2), "%v1": s})
        x, y = h1.astype(np.float64) * alpha1, h2.astype(np.float64) * alpha2
        ref = (x / (1 + np.exp(-x)) * y).astype(np.float16)
        res = check(env["%acc5"].astype(np.float16), ref)
        assert res.ok, res.report()


def test_staging_stores_place_every_fragment_element_once_without_bank_conflicts():
    text = PTX[PTX.index("@!%p_h2 bra EPI_STAGED;"):PTX.index("EPI_STAGED:")]
    pitch = _generator().X_PITCH
    assert f"mul.lo.u32 %tmp, %t, {2 * pitch};" in text and "and.b32 %tmp, %rowB, 63;" in text
    offsets = {}
    for acc, off in re.findall(r"cvt\.rn\.f16\.f32 %c16, %acc(\d+);\n\s+st\.shared\.b16 \[%addr\+(\d+)\], %c16;", text):
        offsets[int(acc)] = int(off)
    assert sorted(offsets) == list(range(128))
    seen = set()
    for wi in range(4):
        banks_per_e = {e: {} for e in range(128)}
        for lane in range(32):
            g, t = divmod(lane, 4)
            base = 2 * t * pitch + 2 * (16 * wi + g)
            for e, off in offsets.items():
                m_l, n_l = 8 * (e // 4) + 2 * t + e % 2, 16 * wi + g + 8 * ((e // 2) % 2)
                addr = base + off
                assert addr == m_l * pitch + 2 * n_l
                seen.add((m_l, n_l))
                word = addr // 4
                banks_per_e[e].setdefault(word % 32, set()).add(word)
        assert all(len(words) == 1 for b in banks_per_e.values() for words in b.values())
    assert seen == {(r, c) for r in range(256) for c in range(64)}
    assert 255 * pitch + 128 <= DC._X_BYTES


# ============================================================================ geometry and host checks

def _units_of(geo, q):
    return range(q * geo.units_per_cluster, min((q + 1) * geo.units_per_cluster, geo.units))


@pytest.mark.parametrize("m,n,k,l,clusters", [(256, 4096, 7168, 1, 66), (512, 3072, 7168, 1, 66),
                                              (257, 65, 1088, 2, 66), (1000, 100, 16384, 3, 33), (129, 1, 64, 1, 7)])
def test_every_unit_once_and_chains_within_8192_k(m, n, k, l, clusters):
    geo = DC.dual_cluster_geometry(m, n, k, l, clusters)
    assert geo.clusters <= clusters or geo.units_per_cluster == DC.MAX_CHAIN_UNITS
    units = [u for q in range(geo.clusters) for u in _units_of(geo, q)]
    assert units == list(range(geo.units))
    for tile in range(geo.tiles):
        owners = {u // geo.units_per_cluster for u in range(tile * geo.k_stages, (tile + 1) * geo.k_stages)}
        assert owners == set(geo.contributors(tile))
    assert min(geo.units_per_cluster, geo.k_stages) * 256 <= 8192
    covered = {(b, m0 + i, n0 + j) for tile in range(geo.tiles) for r in range(geo.cluster)
               for b, m0, n0 in [geo.tile_coords(tile, r)] for i in (0, 255) for j in (0, 63)}
    assert {(b, 0, 0) for b in range(l)} <= covered
    assert max(x[1] for x in covered) >= m - 1 and max(x[2] for x in covered) >= n - 1


def test_competition_shapes_fill_an_h100_without_splitting_m512():
    for m, n in ((256, 4096), (512, 4096), (256, 3072), (512, 3072)):
        geo = DC.dual_cluster_geometry(m, n, 7168, 1, 66)
        assert geo.grid <= 132
    assert DC.dual_cluster_geometry(512, 4096, 7168, 1, 66).units_per_cluster == 28  # one whole tile each
    assert DC.shared_bytes(3, 4) <= 232448 and DC.shared_bytes(5, 3) <= 232448


# ============================================================================ the K split (KSPLIT = 2)

def test_ksplit_geometry_and_choice():
    g = DC.dual_cluster_geometry(256, 4096, 7168, 1, 66, cluster=1, ksplit=2)
    assert (g.ksplit, g.launch_cluster, g.units_per_cluster, g.grid) == (2, 2, 14, 128)
    assert g.workspace_bytes == 16 and g.counters == 1
    for cta in range(g.grid):  # CTA q = 2 * tile + krank runs stages [krank * 14, krank * 14 + 14) of tile q // 2
        lo = cta * g.units_per_cluster
        assert divmod(lo, g.k_stages) == (cta // 2, (cta % 2) * 14)
    # 132 SMs, the competition shapes: the split where its 2 x (k/512) stages cost no more than stream-K's units
    # per cluster + 2 per extra contributor (m = 512 has 96-128 tiles: two CTAs each do not fit one wave)
    assert [DC.choose_ksplit(m, n, k, 1, 132) for m, n, k in
            ((256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168))] == [2, 1, 2, 1]
    assert DC.choose_ksplit(256, 4096, 7168, 1, 132, max_active={2: 60}) == 1  # 64 clusters must fit at once


@pytest.mark.parametrize("kwargs,match", [
    (dict(cluster=2, ksplit=2), "cluster=1"), (dict(cluster=1, ksplit=4), "ksplit must be one of"),
    (dict(cluster=1, ksplit=2, k=1088), "divisible"), (dict(cluster=1, ksplit=2, units_per_cluster=1), "k_stages / ksplit")])
def test_ksplit_arguments_are_checked(kwargs, match):
    args = dict(m=256, n=256, k=1024, l=1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        DC.dual_cluster_geometry(args.pop("m"), args.pop("n"), args.pop("k"), args.pop("l"), 66, **args)
    with pytest.raises(ValueError, match="cluster=1"):
        DC.kernel_constants(2, 4, ksplit=2)


def test_ksplit_epilogue_parks_meets_then_rank0_adds_every_unit_of_every_rank():
    text = render(PTX, "sm_90a", DC.kernel_constants(1, 4, ksplit=2))
    block = text[text.index("KSPLIT_REDUCE:"):text.index("PRODUCERS:")]
    code = [ln.split("//")[0].strip() for ln in block.split("\n") if ln.split("//")[0].strip()]
    arrive = code.index("barrier.cluster.arrive.release;")
    assert code[arrive + 1] == "barrier.cluster.wait.acquire;"
    parked = re.findall(r"st\.shared\.v4\.f32 \[%x\+(\d+)\], \{%acc(\d+), ", block)
    stores, accs = [int(off) for off, _ in parked], [int(a) for _, a in parked]
    loads = [int(x) for x in re.findall(r"ld\.shared::cluster\.v4\.f32 \{%v0, %v1, %v2, %v3\}, \[%addr\+(\d+)\];", block)]
    assert stores == loads == [v * 16 * 256 for v in range(32)] and accs == [4 * v for v in range(32)]
    assert all(code.index(ln) < arrive for ln in code if ln.startswith("st.shared"))
    assert "@%p_head bra KS_PARKED;" in code and code.index("@%p_head bra KS_PARKED;") < arrive  # rank 0 keeps its own
    assert code[arrive + 2] == "@!%p_head bra EXIT;"  # ranks 1..: EXIT's cluster barrier outlives rank 0's reads
    assert "mov.u32 %cc, 1;" in code and "setp.lt.u32 %p_more, %cc, 2;" in code  # ranks 1 .. KSPLIT-1, in order
    assert len(re.findall(r"add\.f32 %acc(\d+), %acc\1, %v\d;", block)) == 128
    assert code[-1] == "bra.uni STORE_TILE;"
    assert "mul.lo.u32 %u, %cta, %upc;" in text and "mov.u32 %cta, %ctaid.x;" in text


@pytest.mark.skipif(not __import__("nvfp4rt.assemble", fromlist=["find_ptxas"]).find_ptxas(), reason="ptxas not found")
@pytest.mark.parametrize("a_bufs", DC.A_BUFS_CHOICES)
def test_ksplit_kernel_assembles_without_spills(a_bufs):
    from nvfp4rt.assemble import assemble

    rep = assemble(KERNEL, "sm_90a", DC.kernel_constants(1, a_bufs, ksplit=2))
    fn = rep.functions[DC._ENTRY]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0


@pytest.mark.parametrize("kwargs,match", [
    (dict(cluster=1), "cluster must be one of"), (dict(cluster=3), "cluster must be one of"),
    (dict(a_bufs=5), "a_bufs must be one of"), (dict(stages=6), "stages must be in"),
    (dict(stages=1), "stages must be in"), (dict(units_per_cluster=0), "units_per_cluster"),
    (dict(alpha1=2.0**110), "alpha"), (dict(alpha2=float("nan")), "alpha2")])
def test_bad_plan_arguments_raise_before_any_gpu_work(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DC.DualGemmClusterPlan(256, 256, 256, **kwargs)


def test_bad_sizes_name_the_argument():
    with pytest.raises(ValueError, match="k must be a multiple of 64"):
        DC.dual_cluster_geometry(256, 64, 100, 1, 66)
    with pytest.raises(ValueError, match="m"):
        DC.dual_cluster_geometry(0, 64, 64, 1, 66)


def test_variant_choice():
    assert D.variant_for(256, 4096, 7168, 1, sm_count=100) == "wgmma_cluster"  # (132 SMs: 128-row whole tiles)
    assert D.variant_for(512, 3328, 1024, 1) == "wgmma_cluster"  # whole 256-row tiles per run; the tiles would split
    assert D.variant_for(512, 3072, 7168, 1) == "wgmma_tiles"  # the cluster kernel would split its tiles
    assert D.variant_for(256, 2048, 8192, 1) == "wgmma_cluster"
    assert D.variant_for(256, 3072, 4096, 1, sm_count=64) == "wgmma"  # one m tile, short k: the split costs more
    assert D.variant_for(257, 3072, 4096, 1) == "wgmma_tiles"  # a mostly empty second 256-row tile
    assert D.variant_for(D.CLUSTER_MIN_M, 4096, 7168, 1) == "wgmma"
    assert D.variant_for(512, 64, 64, 1, alpha1=2.0**110) == "wgmma"  # the 2^28 operand scaling would overflow
    bad = D.DualGemmLayout.contiguous(256, 64, 256)
    bad = type(bad)(**{**bad.__dict__, "b1_row": 100})
    assert not DC.supports(256, 64, 256, 1, bad)


try:
    from nvfp4rt.assemble import assemble, find_ptxas

    _HAVE_PTXAS = find_ptxas() is not None
except ImportError:  # pragma: no cover
    _HAVE_PTXAS = False


@pytest.mark.skipif(not _HAVE_PTXAS, reason="ptxas not found")
@pytest.mark.parametrize("cluster", DC.CLUSTER_SIZES)
@pytest.mark.parametrize("a_bufs", DC.A_BUFS_CHOICES)
def test_kernel_assembles_without_spills(cluster, a_bufs):
    rep = assemble(KERNEL, "sm_90a", DC.kernel_constants(cluster, a_bufs))
    fn = rep.functions[DC._ENTRY]
    assert not fn.spills and fn.stack_frame == 0 and fn.local_bytes == 0
    assert "serializ" not in rep.log.lower()


# ============================================================================ GPU

@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("ksplit", DC.KSPLIT_SIZES)
def test_the_runtime_builds_the_kernel_as_a_whole_program(ksplit, monkeypatch):
    """The default compiler keeps the kernel's setmaxnreg: built by ptxas or the driver's whole-program JIT, its log
    has no C7504 (setmaxnreg ignored) and no C7512 / C7511 (wgmmas serialised), as the JIT linker's had (session 42)."""
    from nvfp4rt.module import load
    from nvfp4rt.ptxsource import ptx_dir

    monkeypatch.delenv("NVFP4RT_COMPILER", raising=False)
    mod = load(ptx_dir() / DC._KERNEL_FILE, target="sm_90a", constants=DC.kernel_constants(cluster=2 if ksplit == 1 else 1, ksplit=ksplit))
    assert mod.compiler in ("ptxas", "driver")
    assert not re.search(r"C75(04|11|12)", mod.jit_log), mod.jit_log


def _case(m, n, k, l, distribution, **kwargs):
    from test_dual_gemm import _run_case

    return _run_case(m, n, k, l, distribution, plan_class=DC.DualGemmClusterPlan, **kwargs)


GPU_SHAPES = [(256, 4096, 7168, 1), (512, 4096, 7168, 1), (256, 3072, 4096, 1), (512, 3072, 7168, 1),
              (129, 1, 64, 1), (257, 65, 1088, 2), (300, 130, 320, 1), (513, 200, 256, 1), (1000, 999, 2048, 1),
              (384, 128, 16384, 1), (200, 72, 960, 3)]


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l", GPU_SHAPES)
@pytest.mark.parametrize("distribution", ["competition", "wide"])
def test_matches_float64_reference(m, n, k, l, distribution):
    res, plan, *_ = _case(m, n, k, l, distribution)
    assert res.ok, f"{plan!r}: {res.report()}"


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l", [(512, 3072, 7168, 1), (257, 65, 1088, 2), (300, 130, 320, 1)])
@pytest.mark.parametrize("kwargs", [dict(cluster=4), dict(a_bufs=3, stages=5), dict(stages=2),
                                    dict(cluster=4, a_bufs=3, units_per_cluster=3)])
def test_variants_match_float64_reference(m, n, k, l, kwargs):
    for distribution in ("competition", "wide"):
        res, plan, *_ = _case(m, n, k, l, distribution, **kwargs)
        assert res.ok, f"{plan!r} {distribution}: {res.report()}"


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("upc", [1, 5, 1000])
def test_split_choice_does_not_change_the_result(upc):
    from test_dual_gemm import assert_correct_and_repeatable

    assert_correct_and_repeatable(*_case(300, 640, 2048, 1, "wide", units_per_cluster=upc))


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k,l", [(256, 4096, 7168, 1), (256, 3072, 4096, 1), (300, 130, 512, 1),
                                     (200, 72, 1024, 3), (513, 200, 512, 1), (129, 1, 512, 1)])
def test_ksplit_matches_float64_reference_and_repeats(m, n, k, l):
    from test_dual_gemm import assert_correct_and_repeatable

    res, plan, *_ = _case(m, n, k, l, "competition", ksplit=2)
    assert plan.geometry.ksplit == 2 and res.ok, f"{plan!r}: {res.report()}"
    assert_correct_and_repeatable(*_case(m, n, k, l, "wide", ksplit=2))


@pytest.mark.gpu
@requires_gpu
def test_the_op_layer_picks_the_kernel_variant_for():
    from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan

    assert type(D.plan_dual_gemm_silu(512, 3328, 1024)) is DC.DualGemmClusterPlan  # whole 256-row tiles per run
    assert type(D.plan_dual_gemm_silu(512, 4096, 7168)) is DC.DualGemmClusterPlan  # one whole 256-row tile per run
    assert type(D.plan_dual_gemm_silu(257, 3072, 4096)) is DualGemmTilesPlan  # stream-K over the 128-row tiles
    assert type(D.plan_dual_gemm_silu(256, 512, 8192)) is DC.DualGemmClusterPlan
    assert type(D.plan_dual_gemm_silu(300, 512, 1024)) is DualGemmTilesPlan
    assert type(D.plan_dual_gemm_silu(128, 512, 8192)) is D.DualGemmPlan
    assert type(D.plan_dual_gemm_silu(300, 512, 1024, alpha1=2.0**110)) is D.DualGemmPlan


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,n,k", [(128, 256, 512), (96, 320, 320)])  # the second pads the sfb rows on every call
@pytest.mark.parametrize("tiles", [False, True], ids=["cluster", "tiles128"])
def test_repeat_calls_follow_new_contents_and_moved_buffers(m, n, k, tiles):
    """Back-to-back calls with the same arrays take the launch-only path: new contents written into the same
    buffers are used (the decode and any scale-row copy run on every call); a new output buffer receives the
    result and the old one is left alone."""
    import nvfp4rt
    from nvfp4rt import data, reference

    names = ("a", "b1", "b2", "sfa", "sfb1", "sfb2")
    if tiles:  # the dual on the cluster GEMM's 128-row tiles shares this plan's run
        from nvfp4rt.ops.dual_gemm_tiles import DualGemmTilesPlan

        plan = DualGemmTilesPlan(m, n, k, 1)
    else:
        plan = DC.DualGemmClusterPlan(m, n, k, 1)

    def upload(d, dev=None):
        arrs = {x: np.ascontiguousarray(d.physical(x)).view(np.uint8) for x in names}
        if dev is None:
            return {x: nvfp4rt.from_numpy(v) for x, v in arrs.items()}
        for x, v in arrs.items():
            dev[x].copy_from_host_async(v)
        return dev

    def ref(d):
        return reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)

    d = data.dual_gemm_data(m, n, k, 1, seed=None, distribution="wide")
    dev = upload(d)
    c1 = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
    for _ in range(2):
        plan.run(*(dev[x] for x in names), c1)
        res = reference.check(c1.numpy().transpose(1, 2, 0), ref(d))
        assert res.ok, res.report()
    d2 = data.dual_gemm_data(m, n, k, 1, seed=None, distribution="wide")
    upload(d2, dev)
    plan.run(*(dev[x] for x in names), c1)
    res = reference.check(c1.numpy().transpose(1, 2, 0), ref(d2))
    assert res.ok, res.report()
    before = c1.numpy().copy()
    c2 = nvfp4rt.from_numpy(np.full((1, m, n), np.nan, np.float16))
    plan.run(*(dev[x] for x in names), c2)
    res = reference.check(c2.numpy().transpose(1, 2, 0), ref(d2))
    assert res.ok, res.report()
    assert np.array_equal(before.view(np.uint16), c1.numpy().view(np.uint16))
