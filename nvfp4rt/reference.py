"""Numpy references for the four NVFP4 problems, and the competition's output check.

Decoding is exact (every e2m1 x e4m3 product is a float64 -- even a float32 --
without rounding), products and sums are float64, and only the final result
is rounded, once, to fp16.  Big operands are decoded a chunk of rows at a time
so the float64 temporaries stay near :data:`CHUNK_BYTES`, which keeps each
benchmark shape to a few seconds on a small CPU (docs/format.md has the times).

The check (:func:`check`, :func:`assert_close`) is the competition's: an element
fails if ``|out - ref| > atol + rtol * |ref|`` or if its NaN / inf status differs
from the reference's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .nvfp4 import BLOCK, E4M3, NVFP4Tensor, _as_bytes, e4m3_values, fp4_values

__all__ = [
    "CHUNK_BYTES",
    "decode",
    "gemv_ref",
    "gemm_ref",
    "dual_gemm_silu_ref",
    "grouped_gemm_ref",
    "matmul_ref",
    "gemv_ref_tensors",
    "gemm_ref_tensors",
    "dual_gemm_silu_ref_tensors",
    "check",
    "CheckResult",
    "assert_close",
]

#: Target size of one float64 temporary (decoded rows of an operand).
CHUNK_BYTES = 128 << 20

# byte -> (value of low nibble, value of high nibble), stored as one complex128 so a
# single 1-D gather decodes a byte into two adjacent float64 values.
_F4 = fp4_values(np.float64)
_PAIRS = np.empty((256, 2), dtype=np.float64)
_PAIRS[:, 0] = _F4[np.arange(256) & 0x0F]
_PAIRS[:, 1] = _F4[np.arange(256) >> 4]
_PAIRS_C = _PAIRS.view(np.complex128).reshape(256)
_E4M3_F64 = e4m3_values(np.float64)


def _bytes(x, name):
    """Packed fp4 bytes as uint8 (int8 is reinterpreted); the check lives in nvfp4._as_bytes."""
    return _as_bytes(x, name)


def _scale_bytes(x, name):
    s = np.asarray(x)
    if s.dtype not in (E4M3, np.dtype(np.uint8)):
        raise TypeError(f"{name} must be float8_e4m3fn scales (or their uint8 bytes), got dtype {s.dtype}")
    return s.view(np.uint8)


def decode(packed, scales) -> np.ndarray:
    """Packed fp4 ``[rows, k/2]`` with linear scales ``[rows, k/16]`` -> float64 values ``[rows, k]``."""
    p = _bytes(packed, "packed")
    s = _scale_bytes(scales, "scales")
    rows, half_k = p.shape
    if s.shape != (rows, 2 * half_k // BLOCK):
        raise ValueError(f"scales shape {s.shape} does not match packed {p.shape} (expected {(rows, 2 * half_k // BLOCK)})")
    vals = _PAIRS_C[p].view(np.float64).reshape(rows, -1, BLOCK)
    vals *= _E4M3_F64[s][..., None]
    return vals.reshape(rows, 2 * half_k)


def _rows_per_chunk(k: int) -> int:
    return max(1, CHUNK_BYTES // (8 * k))


def _check_operands(a, b, sfa, sfb, what):
    a, b = _bytes(a, "a"), _bytes(b, "b")
    sfa, sfb = _scale_bytes(sfa, "sfa"), _scale_bytes(sfb, "sfb")
    for name, x in (("a", a), ("b", b), ("sfa", sfa), ("sfb", sfb)):
        if x.ndim != 3:
            raise ValueError(f"{what}: {name} must be 3-D [rows, cols, l], got shape {x.shape}")
    m, half_k, l = a.shape
    if b.shape[1:] != (half_k, l):
        raise ValueError(f"{what}: b {b.shape} must be [n, {half_k}, {l}] to match a {a.shape}")
    if sfa.shape != (m, 2 * half_k // BLOCK, l) or 2 * half_k % BLOCK:
        raise ValueError(f"{what}: sfa must be {(m, 2 * half_k // BLOCK, l)} for a {a.shape}, got {sfa.shape}")
    if sfb.shape != (b.shape[0], 2 * half_k // BLOCK, l):
        raise ValueError(f"{what}: sfb must be {(b.shape[0], 2 * half_k // BLOCK, l)} for b {b.shape}, got {sfb.shape}")
    return a, b, sfa, sfb


def _matmul_f64(a2, sa2, b2, sb2) -> np.ndarray:
    """float64 ``A @ B^T`` of one batch, decoding B (and A if large) in row chunks."""
    m, k = a2.shape[0], 2 * a2.shape[1]
    n = b2.shape[0]
    out = np.empty((m, n), dtype=np.float64)
    step = _rows_per_chunk(k)
    if m <= step:
        da = decode(a2, sa2)
        for j in range(0, n, step):
            out[:, j:j + step] = da @ decode(b2[j:j + step], sb2[j:j + step]).T
        return out
    for i in range(0, m, step):  # both big: decode A in chunks, B in chunks
        da = decode(a2[i:i + step], sa2[i:i + step])
        for j in range(0, n, step):
            out[i:i + step, j:j + step] = da @ decode(b2[j:j + step], sb2[j:j + step]).T
    return out


def matmul_ref(a, b, sfa, sfb) -> np.ndarray:
    """float64 ``C[:, :, l] = A[:, :, l] @ B[:, :, l]^T`` (no fp16 rounding); the building block of the references."""
    a, b, sfa, sfb = _check_operands(a, b, sfa, sfb, "matmul_ref")
    m, _, l = a.shape
    out = np.empty((l, m, b.shape[0]), dtype=np.float64)
    for i in range(l):
        out[i] = _matmul_f64(a[:, :, i], sfa[:, :, i], b[:, :, i], sfb[:, :, i])
    return out.transpose(1, 2, 0)


def gemv_ref(a, b, sfa, sfb) -> np.ndarray:
    """GEMV: a [m, k/2, l], b [n>=1, k/2, l] (row 0 used), sfa [m, k/16, l], sfb [n, k/16, l] -> fp16 [m, 1, l]."""
    a, b, sfa, sfb = _check_operands(a, b, sfa, sfb, "gemv_ref")
    m, half_k, l = a.shape
    out = np.empty((l, m), dtype=np.float64)
    step = _rows_per_chunk(2 * half_k)
    for i in range(l):
        vec = decode(b[:1, :, i], sfb[:1, :, i])[0]
        for r in range(0, m, step):
            out[i, r:r + step] = decode(a[r:r + step, :, i], sfa[r:r + step, :, i]) @ vec
    return out.astype(np.float16)[:, :, None].transpose(1, 2, 0)


def gemm_ref(a, b, sfa, sfb) -> np.ndarray:
    """GEMM: a [m, k/2, l], b [n, k/2, l], sfa [m, k/16, l], sfb [n, k/16, l] -> fp16 c [m, n, l] = A·Bᵀ per batch."""
    return matmul_ref(a, b, sfa, sfb).astype(np.float16)


def _silu(x):
    return x / (1.0 + np.exp(-x))


def dual_gemm_silu_ref(a, b1, b2, sfa, sfb1, sfb2) -> np.ndarray:
    """Dual GEMM: fp16(silu(fp32(A·B1ᵀ)) * fp32(A·B2ᵀ)), silu and the product in fp32 as the competition does."""
    with np.errstate(over="ignore"):
        h1 = matmul_ref(a, b1, sfa, sfb1).astype(np.float32)
        h2 = matmul_ref(a, b2, sfa, sfb2).astype(np.float32)
        return (_silu(h1) * h2).astype(np.float16)


def grouped_gemm_ref(groups) -> list:
    """Grouped GEMM: ``groups`` is a list of (a, b, sfa, sfb) tuples (or objects with those attributes); one fp16 c each."""
    outs = []
    for i, g in enumerate(groups):
        if isinstance(g, (tuple, list)):
            if len(g) < 4:
                raise ValueError(f"group {i} must be (a, b, sfa, sfb), got {len(g)} items")
            a, b, sfa, sfb = g[:4]
        else:
            a, b, sfa, sfb = g.a, g.b, g.sfa, g.sfb
        outs.append(gemm_ref(a, b, sfa, sfb))
    return outs


# --------------------------------------------------------------------------- NVFP4Tensor forms


def _as_problem(t: NVFP4Tensor, name: str):
    """NVFP4Tensor [l, rows, k] or [rows, k] -> (bytes [rows, k/2, l], scales [rows, k/16, l], tensor scale)."""
    if not isinstance(t, NVFP4Tensor):
        raise TypeError(f"{name} must be an NVFP4Tensor, got {type(t).__name__}")
    t = t.to_host().with_scale_layout("linear")
    data, scales = np.asarray(t.data), np.asarray(t.scales)
    if data.ndim == 2:
        data, scales = data[None], scales[None]
    if data.ndim != 3:
        raise ValueError(f"{name} must be [l, rows, k] or [rows, k], got logical shape {t.shape}")
    return data.transpose(1, 2, 0), scales.transpose(1, 2, 0), t.tensor_scale


def gemm_ref_tensors(a: NVFP4Tensor, b: NVFP4Tensor) -> np.ndarray:
    """fp16 ``A @ B^T`` for NVFP4 tensors a [l, m, k] (or [m, k]) and b [l, n, k]; tensor scales applied; -> [m, n, l]."""
    da, sa, ta = _as_problem(a, "a")
    db, sb, tb = _as_problem(b, "b")
    return (matmul_ref(da, db, sa, sb) * (ta * tb)).astype(np.float16)


def gemv_ref_tensors(a: NVFP4Tensor, x: NVFP4Tensor) -> np.ndarray:
    """fp16 ``A @ x`` for a [l, m, k] (or [m, k]) and x [l, k] (or [k]) -> [m, l]."""
    if not isinstance(x, NVFP4Tensor):
        raise TypeError(f"x must be an NVFP4Tensor, got {type(x).__name__}")
    xh = x.to_host().with_scale_layout("linear")
    xd, xs = np.asarray(xh.data), np.asarray(xh.scales)
    xt = NVFP4Tensor(xd[..., None, :], xs[..., None, :], tensor_scale=xh.tensor_scale, k=xh.k)
    return gemm_ref_tensors(a, xt)[:, 0, :]


def dual_gemm_silu_ref_tensors(a: NVFP4Tensor, b1: NVFP4Tensor, b2: NVFP4Tensor) -> np.ndarray:
    """fp16 ``silu(A @ B1^T) * (A @ B2^T)`` for NVFP4 tensors (tensor scales applied) -> [m, n, l]."""
    da, sa, ta = _as_problem(a, "a")
    d1, s1, t1 = _as_problem(b1, "b1")
    d2, s2, t2 = _as_problem(b2, "b2")
    with np.errstate(over="ignore"):
        h1 = (matmul_ref(da, d1, sa, s1) * (ta * t1)).astype(np.float32)
        h2 = (matmul_ref(da, d2, sa, s2) * (ta * t2)).astype(np.float32)
        return (_silu(h1) * h2).astype(np.float16)


# --------------------------------------------------------------------------- the check


@dataclass
class CheckResult:
    """Outcome of :func:`check`: ``ok``, how many elements failed, the worst one and the largest errors."""

    ok: bool
    mismatches: int
    total: int
    worst: tuple | None  # (index, out, ref, abs err) of the worst failing element, else of the largest error
    max_abs: float
    max_rel: float
    atol: float
    rtol: float

    def __bool__(self):
        return self.ok

    def report(self) -> str:
        head = "match" if self.ok else f"{self.mismatches} of {self.total} elements differ"
        msg = f"{head} (atol={self.atol:g}, rtol={self.rtol:g}); max abs err {self.max_abs:.6g}, max rel err {self.max_rel:.6g}"
        if self.worst is not None:
            idx, o, r, e = self.worst
            msg += f"; worst at {idx}: out={o!r} ref={r!r} |err|={e:.6g}"
        return msg

    __str__ = report


def check(out, ref, atol: float = 1e-3, rtol: float = 1e-3) -> CheckResult:
    """Compare ``out`` with ``ref`` elementwise: fail if ``|out-ref| > atol + rtol*|ref|`` or NaN/inf status differs."""
    o = np.asarray(out)
    r = np.asarray(ref)
    if o.shape != r.shape:
        raise ValueError(f"out has shape {o.shape} but ref has shape {r.shape}")
    o64, r64 = o.astype(np.float64), r.astype(np.float64)
    o_nan, r_nan = np.isnan(o64), np.isnan(r64)
    o_inf, r_inf = np.isinf(o64), np.isinf(r64)
    finite = np.isfinite(o64) & np.isfinite(r64)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.where(finite, np.abs(o64 - r64), 0.0)
        # both infinite with the same sign match; any other nan/inf difference fails
        special_bad = (o_nan != r_nan) | (o_inf != r_inf) | (o_inf & r_inf & (np.sign(o64) != np.sign(r64)))
        bad = special_bad | (finite & (err > atol + rtol * np.abs(r64)))
        rel = np.where(finite & (r64 != 0), err / np.abs(np.where(r64 != 0, r64, 1.0)), 0.0)
    mismatches = int(np.count_nonzero(bad))
    max_abs = float(err.max()) if err.size else 0.0
    max_rel = float(rel.max()) if rel.size else 0.0
    worst = None
    if o.size:
        if mismatches:
            score = np.where(bad, np.where(special_bad, np.inf, err), -1.0)
        else:
            score = err
        flat = int(np.argmax(score))
        idx = tuple(int(v) for v in np.unravel_index(flat, o.shape))
        worst = (idx, o64.reshape(-1)[flat].item(), r64.reshape(-1)[flat].item(), float(err.reshape(-1)[flat]) if not special_bad.reshape(-1)[flat] else float("inf"))
    return CheckResult(mismatches == 0, mismatches, int(o.size), worst, max_abs, max_rel, atol, rtol)


def assert_close(out, ref, atol: float = 1e-3, rtol: float = 1e-3) -> CheckResult:
    """Raise AssertionError with :meth:`CheckResult.report` when :func:`check` fails; return the result otherwise."""
    res = check(out, ref, atol=atol, rtol=rtol)
    if not res.ok:
        raise AssertionError(res.report())
    return res
