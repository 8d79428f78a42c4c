"""NVFP4 GEMM: the op layer's checks, the mma kernel's geometry and assembly (CPU), and GPU correctness.

The decode-to-fragment mapping of the mma kernel is replayed on the CPU in tests/test_gemm_model.py.
GPU tests use fresh random data every run (seed=None), both the competition and the "wide"
distributions, NaN-poisoned outputs, and nvfp4rt.reference's float64 GEMM with the competition check.
"""
import subprocess
import sys
import types
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from conftest import requires_gpu, tool_module
from nvfp4rt import data, reference
from nvfp4rt.assemble import assemble, find_ptxas
from nvfp4rt.nvfp4 import NVFP4Tensor, quantize
from nvfp4rt.ops import gemm as G
from nvfp4rt.ptxsource import ptx_dir

ROOT = Path(__file__).resolve().parent.parent
BENCH_SHAPES = [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]


def _generator():
    return tool_module("gen_gemm_mma_ptx")


# ============================================================================ CPU: the kernel file

def test_committed_ptx_matches_its_generator():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_gemm_mma_ptx.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_op_layer_geometry_matches_the_kernel():
    gen = _generator()
    assert (G._MMA_THREADS, G._MMA_TILE_M, G._MMA_TILE_N, G._MMA_STAGES, G._MMA_STAGE_BYTES) == \
        (gen.THREADS, gen.BM, gen.BN, gen.STAGES, gen.STAGE_BYTES)
    assert G._MMA_PARTIAL_BYTES == gen.WS_FLOATS_PER_CTA * 4
    assert G._MMA_SHARED <= 48 * 1024  # no opt-in needed, 2 CTAs per SM fit anywhere
    text = (ptx_dir() / "gemm_nvfp4_mma.ptx").read_text()
    assert text.startswith("// nvfp4rt: targets=sm_80,sm_90a\n")
    assert text.isascii()
    assert f"cp.async.wait_group {G._MMA_STAGES - 2};" in text


@pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")
@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
def test_mma_kernel_assembles_without_spills(target):
    rep = assemble(ptx_dir() / "gemm_nvfp4_mma.ptx", target=target)
    f = rep.functions["nvfp4_gemm_mma"]
    assert not f.spills and f.stack_frame == 0, rep.table()
    assert f.registers <= 256  # .minnctapersm 2 with 128 threads
    assert not rep.warnings, rep.warnings


# ============================================================================ CPU: geometry

GEOMETRY_SHAPES = [s + (1,) for s in BENCH_SHAPES] + [(1, 1, 64, 1), (300, 5, 1024, 3), (129, 257, 448, 2),
                                                    (4096, 4096, 4096, 1), (7, 9000, 64 * 300, 4)]


@pytest.mark.parametrize("m,n,k,l", GEOMETRY_SHAPES)
@pytest.mark.parametrize("slots", [1, 132, 264])
def test_every_output_tile_and_chunk_is_covered_exactly_once(m, n, k, l, slots):
    g = G.mma_geometry(m, n, k, l, slots)
    assert g.n_tiles * 128 >= n > (g.n_tiles - 1) * 128
    assert g.m_tiles * 128 >= m > (g.m_tiles - 1) * 128
    assert 1 <= g.splits <= G.MAX_SPLITS and g.grid == (g.n_tiles, g.m_tiles, l * g.splits)
    seen = []
    for z in range(g.grid[2]):  # the kernel: batch = z / splits, split = z % splits
        split = z % g.splits
        begin = split * g.chunks_per_split
        end = min(g.chunks, begin + g.chunks_per_split)
        assert end > begin, "an empty split would never arrive at the counter with data"
        seen.extend(range(begin, end))
    assert sorted(seen) == sorted(list(range(g.chunks)) * l)
    assert g.workspace_bytes == (g.splits * g.tiles * 128 * 128 * 4 if g.splits > 1 else 0)


def test_split_k_fills_the_gpu_for_the_benchmark_shapes():
    for m, n, k in BENCH_SHAPES:
        g = G.mma_geometry(m, n, k, 1, 2 * 132)
        ctas = g.tiles * g.splits
        assert 132 <= ctas <= 2 * 132, (m, n, k, g)


# ============================================================================ CPU: argument checks

def comp(m=130, n=70, k=128, l=2, **kw):
    d = data.gemm_data(m, n, k, l, seed=0, **kw)
    return d.a, d.b, d.sfa, d.sfb, d.c


def test_raw_problem_reads_the_competition_layout():
    a, b, sfa, sfb, c = comp()
    m, n, k, l, lay = G.raw_problem(a, b, sfa, sfb, c)
    assert (m, n, k, l) == (130, 70, 128, 2)
    assert lay == G.GemmLayout.contiguous(130, 70, 128, 2)


def test_raw_problem_accepts_uint8_scales_and_int8_data():
    a, b, sfa, sfb, c = comp()
    G.raw_problem(a.view(np.int8), b, sfa.view(np.uint8), sfb.view(np.uint8), c)


@pytest.mark.parametrize("case,exc,match", [
    ("a2d", ValueError, "a must be 3-D"),
    ("a_dtype", TypeError, "a must hold packed e2m1"),
    ("sfa_dtype", TypeError, "sfa must hold e4m3"),
    ("c_dtype", TypeError, "c must be float16"),
    ("k48", ValueError, "multiple of 64"),
    ("b_k", ValueError, "b must have shape"),
    ("b_l", ValueError, "b must have shape"),
    ("sfa_shape", ValueError, "sfa must have shape"),
    ("sfb_shape", ValueError, "sfb must have shape"),
    ("c_shape", ValueError, "c must have shape"),
    ("a_k_strided", ValueError, "a must be contiguous along K"),
    ("c_n_strided", ValueError, "c must be contiguous along n"),
    ("a_row_stride", ValueError, "a's row stride"),
    ("sfb_batch_stride", ValueError, "sfb's batch stride"),
])
def test_raw_problem_rejects_bad_arguments_naming_them(case, exc, match):
    a, b, sfa, sfb, c = comp()
    st = np.lib.stride_tricks.as_strided
    if case == "a2d":
        a = a[:, :, 0]
    elif case == "a_dtype":
        a = a.astype(np.float32)
    elif case == "sfa_dtype":
        sfa = sfa.astype(np.float16)
    elif case == "c_dtype":
        c = c.astype(np.float32)
    elif case == "k48":
        a, b, sfa, sfb, c = comp(k=48 * 2)  # k = 96
        a, b = a[:, :24], b[:, :24]
        sfa, sfb = sfa[:, :3], sfb[:, :3]
    elif case == "b_k":
        b = b[:, :32]
    elif case == "b_l":
        b = b[:, :, :1]
    elif case == "sfa_shape":
        sfa = sfa[:-1]
    elif case == "sfb_shape":
        sfb = sfb[:, :-1]
    elif case == "c_shape":
        c = c[:, :-1]
    elif case == "a_k_strided":
        a = st(a, strides=(a.strides[0], 2, a.strides[2]))
    elif case == "c_n_strided":
        c = st(c, strides=(c.strides[0], 4, c.strides[2]))
    elif case == "a_row_stride":
        big = np.zeros((2, 130, 72), np.uint8)
        a = big[:, :, :64].transpose(1, 2, 0)  # row stride 72: not a multiple of 16
    elif case == "sfb_batch_stride":
        big = np.zeros((2 * 70 * 8 + 2,), np.uint8).view(ml_dtypes.float8_e4m3fn)
        sfb = st(big, shape=(70, 8, 2), strides=(8, 1, 70 * 8 + 2))
    with pytest.raises(exc, match=match):
        G.raw_problem(a, b, sfa, sfb, c)


@pytest.mark.parametrize("args,match", [
    ((0, 8, 64), "m must be a positive int"),
    ((8, 0, 64), "n must be a positive int"),
    ((8, 8, 96), "multiple of 64"),
    ((8, 8, 64, 0), "l must be a positive int"),
    ((8, 8.0, 64), "n must be a positive int"),
])
def test_plan_gemm_rejects_sizes_before_touching_a_device(args, match):
    with pytest.raises(ValueError, match=match):
        G.plan_gemm(*args)


def test_plan_gemm_rejects_unknown_variants_and_bad_layouts():
    with pytest.raises(ValueError, match="variant must be one of"):
        G.plan_gemm(8, 8, 64, variant="tcgen05")
    with pytest.raises(ValueError, match="a_row stride"):
        G._check_layout(G.GemmLayout(40, 0, 4, 0, 32, 0, 4, 0, 8, 0))
    with pytest.raises(ValueError, match="sfb_batch stride"):
        G._check_layout(G.GemmLayout(32, 0, 4, 0, 32, 0, 4, 6, 8, 0))
    with pytest.raises(TypeError, match="GemmLayout"):
        G._check_layout((32, 0))


def test_gemm_rejects_non_tensors_and_mismatches_before_touching_a_device():
    x = quantize(np.ones((4, 128), np.float32))
    with pytest.raises(TypeError, match="a must be an nvfp4rt NVFP4Tensor"):
        G.gemm(np.ones((4, 128)), x)
    with pytest.raises(ValueError, match="k=128 but b has k=64"):
        G.gemm(x, quantize(np.ones((4, 64), np.float32)))
    with pytest.raises(ValueError, match="multiple of 64"):
        G.gemm(quantize(np.ones((4, 96), np.float32)), quantize(np.ones((4, 96), np.float32)))
    with pytest.raises(ValueError, match="1 batch"):
        G.gemm(quantize(np.ones((1, 4, 64), np.float32)), quantize(np.ones((3, 4, 64), np.float32)))
    blocked = quantize(np.ones((4, 128), np.float32)).with_scale_layout("blocked")
    with pytest.raises(ValueError, match="linear"):
        G.gemm(blocked, x)


class FakeDevice:
    def __init__(self, cc):
        self.compute_capability = cc
        self.properties = types.SimpleNamespace(name=f"fake sm_{cc[0]}{cc[1]}")


def test_variant_choice_by_compute_capability(monkeypatch):
    from nvfp4rt.ops import gemm_wgmma_cluster as CL

    assert G.variant_for(FakeDevice((9, 0))) == "wgmma_cluster"  # the measured-fastest Hopper kernel
    assert G.variant_for(FakeDevice((9, 0)), 128, 7168, 16384, 1, None) == "wgmma_cluster"
    assert G.variant_for(FakeDevice((9, 0)), 128, 256, 512, 1, None, alpha=1e35) == "wgmma"  # alpha * 2^28 overflows
    assert G._plan_class("wgmma_cluster") is CL.GemmClusterPlan
    monkeypatch.setattr(CL, "supports", lambda *a, **kw: False)
    monkeypatch.setattr(G, "_wgmma_module", lambda: None)
    assert G.variant_for(FakeDevice((9, 0)), 64, 8, 64, 1, None) == "mma"
    assert G.variant_for(FakeDevice((8, 0))) == "mma"
    with pytest.raises(RuntimeError, match="8.0 or newer"):
        G.variant_for(FakeDevice((7, 5)))
    mod = types.SimpleNamespace(GemmWgmmaPlan=object)
    monkeypatch.setattr(G, "_wgmma_module", lambda: mod)
    assert G.variant_for(FakeDevice((9, 0)), 64, 8, 64, 1, None) == "wgmma"
    assert G.variant_for(FakeDevice((8, 9))) == "mma"
    assert G.variant_for(FakeDevice((10, 0))) == "mma"
    mod.supports = lambda m, n, k, l, layout: m >= 64
    assert G.variant_for(FakeDevice((9, 0)), 8, 8, 64, 1, None) == "mma"
    assert G.variant_for(FakeDevice((9, 0)), 64, 8, 64, 1, None) == "wgmma"
    assert G._plan_class("mma") is G.GemmMmaPlan
    monkeypatch.setattr(G, "_wgmma_module", lambda: None)
    with pytest.raises(ValueError, match="gemm_wgmma"):
        G._plan_class("wgmma")


def test_package_exports():
    import nvfp4rt

    assert nvfp4rt.gemm is G.gemm and nvfp4rt.gemm_raw is G.gemm_raw and nvfp4rt.plan_gemm is G.plan_gemm


# ============================================================================ GPU

def random_shapes(n=34, seed=None):
    """Ragged m and n (not multiples of 128, m = 1, n = 1), k = 64, a few batches."""
    rng = np.random.default_rng(seed)
    fixed = [(1, 1, 64, 1), (1, 7168, 2048, 1), (128, 1, 1024, 1), (129, 129, 64, 1), (127, 255, 192, 2),
             (200, 300, 4096, 3), (33, 4097, 512, 1), (256, 256, 16384, 1), (3, 5, 7 * 64, 5)]
    out = list(fixed)
    while len(out) < n:
        m = int(rng.choice([1, 2, 17, 64, 100, 128, 129, 250, 384, 513]))
        nn = int(rng.choice([1, 3, 8, 100, 127, 128, 200, 1000, 2049, 4096]))
        k = 64 * int(rng.choice([1, 2, 3, 5, 16, 32, 57, 112, 256]))
        l = int(rng.choice([1, 1, 2, 4]))
        out.append((m, nn, k, l))
    return out


def _device_views(d):
    import nvfp4rt

    dv = {}
    for name in ("a", "b", "sfa", "sfb"):
        phys = d.physical(name)
        if name.startswith("sf"):
            phys = phys.view(np.uint8)
        dv[name] = nvfp4rt.asarray(phys).transpose(1, 2, 0)  # the competition's [rows, cols, l] view
    return dv


def run_and_check(m, n, k, l, distribution, variant=None, repeats=1):
    import nvfp4rt

    results = []
    for _ in range(repeats):  # split-K counters must be back at zero for the next launch
        d = data.gemm_data(m, n, k, l, seed=None, distribution=distribution)
        ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
        dv = _device_views(d)
        poison = nvfp4rt.asarray(np.full((l, m, n), np.nan, np.float16))
        c = poison.transpose(1, 2, 0)
        G.gemm_raw(dv["a"], dv["b"], dv["sfa"], dv["sfb"], c, variant=variant)
        out = poison.numpy().transpose(1, 2, 0)
        results.append(reference.check(out, ref))
    return results


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("distribution", ["competition", "wide"])
@pytest.mark.parametrize("variant", ["mma", None])
@pytest.mark.parametrize("m,n,k", BENCH_SHAPES)
def test_benchmark_shapes(m, n, k, distribution, variant):
    for res in run_and_check(m, n, k, 1, distribution, variant, repeats=2):
        assert res.ok, res


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("distribution", ["competition", "wide"])
@pytest.mark.parametrize("variant", ["mma", None])
def test_random_shapes(distribution, variant):
    failures = []
    for m, n, k, l in random_shapes():
        for res in run_and_check(m, n, k, l, distribution, variant):
            if not res.ok:
                failures.append(((m, n, k, l), str(res)))
    assert not failures, failures


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("batched", [False, True])
def test_gemm_on_nvfp4_tensors_applies_tensor_scales(batched):
    rng = np.random.default_rng()
    shape_a, shape_b = ((3, 130, 256), (3, 70, 256)) if batched else ((130, 256), (70, 256))
    a = quantize(rng.standard_normal(shape_a).astype(np.float32) * 100, tensor_scale="auto")
    b = quantize(rng.standard_normal(shape_b).astype(np.float32) * 0.01, tensor_scale="auto")
    out = G.gemm(a, b)
    ref = reference.gemm_ref_tensors(a, b)
    got = out.numpy()
    if not batched:
        ref = ref[:, :, 0]
    assert got.shape == ref.shape
    res = reference.check(got, ref)
    assert res.ok, res


@pytest.mark.gpu
@requires_gpu
def test_plan_on_two_streams_keeps_separate_split_k_scratch():
    import nvfp4rt

    m, n, k = 128, 1024, 8192
    plan = G.plan_gemm(m, n, k, variant="mma")
    assert plan.geometry.splits > 1
    outs = []
    for stream in (None, nvfp4rt.Stream()):
        d = data.gemm_data(m, n, k, 1, seed=None)
        dv = _device_views(d)
        poison = nvfp4rt.asarray(np.full((1, m, n), np.nan, np.float16))
        plan(dv["a"], dv["b"], dv["sfa"], dv["sfb"], poison, stream=stream)
        if stream is not None:
            stream.synchronize()
        outs.append(reference.check(poison.numpy().transpose(1, 2, 0), reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)))
    assert all(r.ok for r in outs), outs
    assert len(plan._scratch) == 2


# ============================================================================ CPU: the bench adapter

def test_gemm_bench_adapter_is_registered_with_the_competition_presets():
    from nvfp4rt import bench

    assert "gemm" in bench.op_names()
    op = bench.get_op("gemm")(None, None)
    assert op.compute_bound
    assert [tuple(s[k] for k in ("m", "n", "k")) for s in op.parse_shapes(None)] == data.PRESETS["gemm"]
    s = {"m": 128, "n": 7168, "k": 16384}
    assert op.flops(s) == 2 * 128 * 7168 * 16384
    assert op.bytes(s) == 128 * 8192 + 128 * 1024 + 7168 * 8192 + 7168 * 1024 + 2 * 128 * 7168
    with pytest.raises(ValueError, match="divisible by 64"):
        op.parse_shapes(["128,128,96"])


def test_gemm_bench_variant_override(monkeypatch):
    from nvfp4rt.bench_gemm import GemmBench

    monkeypatch.setenv("NVFP4RT_GEMM_VARIANT", "mma")
    assert GemmBench(None, None).variant == "mma"
    monkeypatch.setenv("NVFP4RT_GEMM_VARIANT", "sm80")
    with pytest.raises(ValueError, match="NVFP4RT_GEMM_VARIANT"):
        GemmBench(None, None).variant


@pytest.mark.parametrize("m,n,k,l", [(513, 4096, 16384, 2), (1, 1, 65536, 1), (128, 7168, 16384, 1)])
def test_no_mma_accumulator_sums_more_than_4096_k(m, n, k, l):
    """One fp32 tensor-core accumulator summing all of k = 16384 (or 8192) missed the tolerance on "wide"
    data on the H200 (docs/gemm.md): the split keeps every mma chain at 4096 k or less."""
    geo = G.mma_geometry(m, n, k, l, 264)
    assert geo.chunks_per_split * G.K_MULTIPLE <= 4096
    assert (geo.splits - 1) * geo.chunks_per_split < geo.chunks  # no empty split
