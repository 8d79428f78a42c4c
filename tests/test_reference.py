"""Numpy references against a slow element-by-element implementation, and the output check."""
import math

import ml_dtypes
import numpy as np
import pytest

from nvfp4rt import data, reference
from nvfp4rt.nvfp4 import dequantize, quantize
from nvfp4rt.reference import assert_close, check


def _slow_value(packed, scales, row, kk, b):
    """One element decoded the long way: pick the nibble, let ml_dtypes read it, times its scale."""
    byte = int(packed[row, kk // 2, b])
    nib = byte & 0x0F if kk % 2 == 0 else byte >> 4
    v = float(np.array([nib], np.uint8).view(ml_dtypes.float4_e2m1fn)[0])
    s = float(np.asarray(scales)[row, kk // 16, b])
    return v * s


def _slow_matmul(a, b, sfa, sfb):
    m, half_k, l = a.shape
    n = b.shape[0]
    out = np.zeros((m, n, l))
    for bb in range(l):
        for i in range(m):
            for j in range(n):
                out[i, j, bb] = math.fsum(_slow_value(a, sfa, i, kk, bb) * _slow_value(b, sfb, j, kk, bb) for kk in range(2 * half_k))
    return out


@pytest.mark.parametrize("dist", data.DISTRIBUTIONS)
def test_gemm_ref_matches_slow_loops(dist):
    d = data.gemm_data(5, 6, 64, 2, seed=1, distribution=dist)
    ref = reference.gemm_ref(d.a, d.b, d.sfa, d.sfb)
    assert ref.shape == (5, 6, 2) and ref.dtype == np.float16
    slow = _slow_matmul(d.a, d.b, d.sfa, d.sfb).astype(np.float16)
    assert np.array_equal(ref, slow)
    assert np.count_nonzero(slow) > 10


@pytest.mark.parametrize("dist", data.DISTRIBUTIONS)
def test_gemv_ref_matches_slow_loops_using_row_zero_of_b(dist):
    d = data.gemv_data(7, 96, 3, seed=2, distribution=dist)
    ref = reference.gemv_ref(d.a, d.b, d.sfa, d.sfb)
    assert ref.shape == (7, 1, 3) and ref.dtype == np.float16
    slow = _slow_matmul(d.a, d.b[:1], d.sfa, d.sfb[:1]).astype(np.float16)
    assert np.array_equal(ref, slow)
    # rows 1..127 of b do not matter
    b2 = d.b.copy()
    b2[1:] ^= 0x77
    assert np.array_equal(reference.gemv_ref(d.a, b2, d.sfa, d.sfb), ref)


def test_dual_gemm_ref_matches_slow_loops_with_fp32_silu():
    d = data.dual_gemm_data(4, 5, 64, 2, seed=3, distribution="wide")
    ref = reference.dual_gemm_silu_ref(d.a, d.b1, d.b2, d.sfa, d.sfb1, d.sfb2)
    h1 = _slow_matmul(d.a, d.b1, d.sfa, d.sfb1).astype(np.float32)
    h2 = _slow_matmul(d.a, d.b2, d.sfa, d.sfb2).astype(np.float32)
    slow = np.empty_like(h1)
    for idx in np.ndindex(h1.shape):
        x = np.float32(h1[idx])
        slow[idx] = np.float32(x / (np.float32(1) + np.float32(math.exp(-float(x))))) * h2[idx]
    assert ref.shape == (4, 5, 2) and ref.dtype == np.float16
    assert_close(ref, slow.astype(np.float16), atol=1e-6, rtol=2e-3)  # fp16 rounding of the same fp32 value, or one ulp
    assert np.mean(ref == slow.astype(np.float16)) > 0.9
    # silu applies to the first product only: swapping b1 and b2 changes the answer
    swapped = reference.dual_gemm_silu_ref(d.a, d.b2, d.b1, d.sfa, d.sfb2, d.sfb1)
    assert not np.array_equal(swapped, ref)


def test_grouped_ref_is_one_gemm_per_group():
    g = data.grouped_gemm_data([(3, 4, 32), (2, 5, 48)], seed=4, distribution="wide")
    outs = reference.grouped_gemm_ref(g.groups)
    assert [o.shape for o in outs] == [(3, 4, 1), (2, 5, 1)]
    for o, grp in zip(outs, g.groups):
        assert np.array_equal(o, _slow_matmul(grp.a, grp.b, grp.sfa, grp.sfb).astype(np.float16))
    tuples = [(x.a, x.b, x.sfa, x.sfb) for x in g.groups]
    assert all(np.array_equal(u, v) for u, v in zip(reference.grouped_gemm_ref(tuples), outs))


def test_chunked_decode_gives_the_same_result(monkeypatch):
    d = data.gemm_data(40, 50, 256, 2, seed=5, distribution="wide")
    whole = reference.matmul_ref(d.a, d.b, d.sfa, d.sfb)
    monkeypatch.setattr(reference, "CHUNK_BYTES", 8 * 256 * 7)  # 7 rows per chunk: both operands chunked
    chunked = reference.matmul_ref(d.a, d.b, d.sfa, d.sfb)
    assert np.array_equal(whole, chunked)
    gv = data.gemv_data(50, 256, 2, seed=6)
    monkeypatch.setattr(reference, "CHUNK_BYTES", 8 * 256 * 3)
    small = reference.gemv_ref(gv.a, gv.b, gv.sfa, gv.sfb)
    monkeypatch.undo()
    assert np.array_equal(small, reference.gemv_ref(gv.a, gv.b, gv.sfa, gv.sfb))


def test_tensor_forms_match_dequantized_product():
    rng = np.random.default_rng(7)
    A = rng.standard_normal((2, 6, 64)).astype(np.float32)
    B = rng.standard_normal((2, 5, 64)).astype(np.float32)
    qa, qb = quantize(A, tensor_scale="auto"), quantize(B, tensor_scale="auto")
    expect = np.einsum("lmk,lnk->mnl", dequantize(qa).astype(np.float64), dequantize(qb).astype(np.float64))
    got = reference.gemm_ref_tensors(qa, qb)
    assert got.shape == (6, 5, 2)
    assert_close(got, expect.astype(np.float16), atol=1e-3, rtol=1e-3)
    x = quantize(B[:, 0, :])
    gv = reference.gemv_ref_tensors(qa, x)
    assert gv.shape == (6, 2)
    assert_close(gv, np.einsum("lmk,lk->ml", dequantize(qa), dequantize(x)).astype(np.float16))
    # blocked-scale tensors give the same answer
    assert np.array_equal(reference.gemm_ref_tensors(qa.with_scale_layout("blocked"), qb), got)


def test_reference_rejects_mismatched_operands():
    d = data.gemm_data(4, 4, 64, seed=0)
    with pytest.raises(ValueError, match="sfa"):
        reference.gemm_ref(d.a, d.b, d.sfb[:, :2], d.sfb)
    with pytest.raises(TypeError):
        reference.gemm_ref(d.a.astype(np.float32), d.b, d.sfa, d.sfb)
    with pytest.raises(ValueError):
        reference.gemm_ref(d.a[:, :, 0], d.b, d.sfa, d.sfb)


# --------------------------------------------------------------------------- the check


def test_check_passes_within_tolerance_and_catches_a_single_wrong_element():
    ref = np.linspace(-100, 100, 64, dtype=np.float32).astype(np.float16).reshape(8, 8, 1)
    ok = check(ref, ref)
    assert ok.ok and ok.mismatches == 0 and ok.max_abs == 0
    near = ref.astype(np.float64) + 0.9e-3 + 0.9e-3 * np.abs(ref.astype(np.float64))
    assert check(near, ref).ok
    bad = ref.copy()
    bad[3, 5, 0] = np.float16(float(bad[3, 5, 0]) + 1.0)
    res = check(bad, ref)
    assert not res.ok and res.mismatches == 1
    assert res.worst[0] == (3, 5, 0)
    assert res.worst[3] == pytest.approx(1.0, abs=0.1)
    assert res.max_abs == pytest.approx(1.0, abs=0.1)
    with pytest.raises(AssertionError, match=r"1 of 64 elements differ.*\(3, 5, 0\)"):
        assert_close(bad, ref)


def test_check_boundary_is_atol_plus_rtol_times_ref():
    ref = np.array([0.0, 1000.0])
    assert check(np.array([1e-3, 1001.0]), ref).ok  # exactly at the bound: 1e-3 and 1e-3 + 1
    assert not check(np.array([1.01e-3, 1000.0]), ref).ok
    assert not check(np.array([0.0, 1001.01]), ref).ok
    assert check(np.array([0.0, 1001.0]), ref, atol=0, rtol=1e-3).ok


def test_check_nan_and_inf_parity():
    ref = np.array([1.0, np.nan, np.inf, -np.inf, 2.0], dtype=np.float16)
    assert check(ref.copy(), ref).ok  # nan matches nan, inf matches inf of the same sign
    for i, val in [(0, np.nan), (1, 1.0), (2, 65504.0), (2, -np.inf), (3, np.inf), (4, np.inf), (4, np.nan)]:
        out = ref.copy()
        out[i] = val
        res = check(out, ref)
        assert not res.ok and res.mismatches == 1 and res.worst[0] == (i,), (i, val)
    with pytest.raises(ValueError, match="shape"):
        check(np.zeros(3), np.zeros(4))
