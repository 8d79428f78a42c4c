"""Competition data generators: value distributions, determinism, layouts."""
import numpy as np
import pytest

from nvfp4rt import data, reference
from nvfp4rt.nvfp4 import E4M3, unpack_fp4

SUBNORMALS = {float(v) for v in np.arange(1, 8) * 2.0**-9}


def _values(scales):
    return set(np.unique(np.asarray(scales).astype(np.float32)).tolist())


def _assert_batch_major(x, rows, cols, l):
    """Logical [rows, cols, l] whose batches are contiguous row-major blocks of one allocation."""
    assert x.shape == (rows, cols, l)
    item = x.dtype.itemsize
    assert x.strides == (cols * item, item, rows * cols * item)
    assert x.transpose(2, 0, 1).flags.c_contiguous


def test_presets_match_facts():
    assert data.PRESETS["gemv"] == [(7168, 16384, 1), (4096, 7168, 8), (7168, 2048, 4)]
    assert data.PRESETS["gemm"] == [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)]
    assert data.PRESETS["dual_gemm"] == [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)]
    g = data.PRESETS["grouped_gemm"]
    assert [m for m, _, _ in g[0]] == [80, 176, 128, 72, 64, 248, 96, 160] and {(n, k) for _, n, k in g[0]} == {(4096, 7168)}
    assert [m for m, _, _ in g[1]] == [40, 76, 168, 72, 164, 148, 196, 160] and {(n, k) for _, n, k in g[1]} == {(7168, 2048)}
    assert g[2] == [(192, 3072, 4096), (320, 3072, 4096)]
    assert g[3] == [(128, 4096, 1536), (384, 4096, 1536)]


def test_gemv_competition_distribution_and_layout():
    d = data.gemv_data(256, 512, 3, seed=7)
    _assert_batch_major(d.a, 256, 256, 3)
    _assert_batch_major(d.b, 128, 256, 3)
    _assert_batch_major(d.sfa, 256, 32, 3)
    _assert_batch_major(d.sfb, 128, 32, 3)
    _assert_batch_major(d.c, 256, 1, 3)
    assert d.a.dtype == np.uint8 and d.sfa.dtype == E4M3 and d.c.dtype == np.float16
    assert set(np.unique(d.a).tolist()) == {0, 1, 2, 3}  # randint(0, 4): high nibble zero
    assert set(np.unique(d.b).tolist()) == {0, 1, 2, 3}
    assert _values(d.sfa) == {0.0, 1.0, 2.0} and _values(d.sfb) == {0.0, 1.0, 2.0}
    assert set(np.unique(unpack_fp4(d.a).astype(np.float32)).tolist()) == {0.0, 0.5, 1.0, 1.5}
    assert np.isfinite(d.c.astype(np.float32)).all() and np.std(d.c.astype(np.float32)) > 0.5
    phys = d.physical("a")
    assert phys.shape == (3, 256, 256) and np.shares_memory(phys, d.a)


def test_gemm_competition_distribution():
    d = data.gemm_data(128, 64, 256, seed=1)
    _assert_batch_major(d.a, 128, 128, 1)
    _assert_batch_major(d.b, 64, 128, 1)
    _assert_batch_major(d.c, 128, 64, 1)
    assert set(np.unique(d.a).tolist()) == set(range(256))  # every byte pattern
    assert _values(d.sfa) == {0.0, 1.0, 2.0, 3.0} and _values(d.sfb) == {0.0, 1.0, 2.0, 3.0}


def test_dual_gemm_competition_distribution():
    d = data.dual_gemm_data(128, 128, 512, seed=2)
    for name in ("a", "b1", "b2"):
        x = getattr(d, name)
        assert np.all(x & 0x44 == 0)  # bytes & 0xBB
        assert set(np.unique(x).tolist()) == {v for v in range(256) if v & 0x44 == 0}
        assert set(np.unique(unpack_fp4(x).astype(np.float32)).tolist()) == {0.0, 0.5, 1.0, 1.5, -0.5, -1.0, -1.5}
    for name in ("sfa", "sfb1", "sfb2"):
        v = np.asarray(getattr(d, name)).astype(np.float32)
        assert v.min() >= 0 and v.max() <= 1.0
        assert SUBNORMALS <= _values(v)  # uniform [0, 1) cast to e4m3 reaches the subnormals
        assert abs(np.mean(v) - 0.5) < 0.02  # uniform
    assert not np.shares_memory(d.b1, d.b2)
    assert not np.array_equal(d.b1, d.b2)


def test_grouped_gemm_groups():
    shapes = [(40, 64, 256), (76, 64, 256), (8, 32, 512)]
    g = data.grouped_gemm_data(shapes, seed=3)
    assert g.shapes == shapes
    for grp, (m, n, k) in zip(g.groups, shapes):
        _assert_batch_major(grp.a, m, k // 2, 1)
        _assert_batch_major(grp.sfb, n, k // 16, 1)
        assert _values(grp.sfa) <= {0.0, 1.0, 2.0, 3.0}
    assert not np.array_equal(g.groups[0].a, g.groups[1].a)  # groups draw independently


@pytest.mark.parametrize("problem,shape", [
    ("gemv", (64, 256, 2)), ("gemm", (32, 48, 256, 2)), ("dual_gemm", (32, 16, 128, 1)), ("grouped_gemm", [(16, 32, 64), (8, 16, 128)]),
])
@pytest.mark.parametrize("dist", data.DISTRIBUTIONS)
def test_determinism_per_seed(problem, shape, dist):
    def flat(d):
        if problem == "grouped_gemm":
            return [x for g in d.groups for x in g.arrays().values()]
        return list(d.arrays().values())

    x = flat(data.generate(problem, shape, seed=11, distribution=dist))
    y = flat(data.generate(problem, shape, seed=11, distribution=dist))
    z = flat(data.generate(problem, shape, seed=12, distribution=dist))
    def same(u, v):
        return np.array_equal(np.ascontiguousarray(u).view(np.uint8), np.ascontiguousarray(v).view(np.uint8))

    assert all(same(u, v) for u, v in zip(x, y))
    assert not all(same(u, v) for u, v in zip(x, z))


def test_seed_stream_is_pcg64():
    """The first bytes drawn are PCG64(seed)'s, so other tools can regenerate them."""
    d = data.gemm_data(4, 4, 32, seed=5)
    expect = np.random.Generator(np.random.PCG64(5)).integers(0, 256, size=(1, 4, 16), dtype=np.uint8)
    assert np.array_equal(d.physical("a"), expect)


def test_wide_distribution_covers_codes_and_scale_range():
    k = 2048
    d = data.gemm_data(256, 256, k, seed=4, distribution="wide")
    assert set(np.unique(d.a).tolist()) == set(range(256))
    vals = _values(d.sfa) | _values(d.sfb)
    smax = data.wide_scale_max(k)
    assert SUBNORMALS <= vals  # 2^-9 .. 7 * 2^-9
    assert min(vals) == 2.0**-9 and max(vals) == smax
    assert 0.0 not in vals
    # every positive e4m3 value up to the bound appears (8 per binade)
    every = np.arange(1, 0x7F, dtype=np.uint8).view(E4M3).astype(np.float32)
    assert vals == {float(v) for v in every if v <= smax}


@pytest.mark.parametrize("problem,shape", [("gemm", (64, 64, 16384, 1)), ("gemv", (256, 16384, 1)), ("dual_gemm", (64, 64, 7168, 1))])
def test_wide_outputs_stay_finite_in_fp16(problem, shape):
    d = data.generate(problem, shape, seed=9, distribution="wide")
    if problem == "dual_gemm":
        ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    elif problem == "gemv":
        ref = reference.gemv_ref(d.a, d.b, d.sfa, d.sfb)
    else:
        ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    r = ref.astype(np.float32)
    assert np.isfinite(r).all()
    assert np.abs(r).max() < 2.0**14
    assert np.abs(r).max() > 1.0  # outputs are not all swamped by the 1e-3 tolerance


def test_blocked_helper_and_errors():
    d = data.gemv_data(130, 80, 2, seed=0)
    assert d.blocked("sfa").shape == (2, 2, 2, 32, 4, 4)
    with pytest.raises(ValueError):
        d.blocked("a")
    with pytest.raises(ValueError, match="multiple of 16"):
        data.gemm_data(8, 8, 24)
    with pytest.raises(ValueError, match="distribution"):
        data.gemv_data(8, 32, distribution="normal")
    with pytest.raises(ValueError):
        data.generate("conv", (1, 2, 3))
    with pytest.raises(ValueError):
        data.gemv_data(0, 32)
