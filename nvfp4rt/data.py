"""Seeded input generators for the four competition problems (FACTS §2).

Each generator draws from ``np.random.Generator(PCG64(seed))`` in a fixed order,
so one (shape, seed, distribution) always gives the same bytes.  Arrays come in
the competition's logical layouts -- ``a [m, k/2, l]``, ``sfa [m, k/16, l]``,
``c [m, n, l]`` -- as ``np.transpose`` views of batch-major ``(l, m, k/2)``
allocations, so each batch is one contiguous K-major block, as on the GPU.
:func:`batch_major` gives that contiguous ``(l, rows, cols)`` array back.

Distributions (``distribution=``):

``"competition"`` -- the published ones:
    * gemv: fp4 bytes ``randint(0, 4)`` (high nibble zero, low nibble 0, 0.5, 1, 1.5),
      scales in {0, 1, 2};
    * gemm (and our grouped GEMM): every byte pattern, scales in {0, 1, 2, 3};
    * dual_gemm: bytes ``& 0xBB`` (values 0, ±0.5, ±1, ±1.5), scales uniform
      [0, 1) cast to e4m3 (many small and subnormal ones).
``"wide"`` -- wider than any of them: all 256 byte patterns (every e2m1 code,
    both signs, ±0) and scales drawn uniformly from every positive e4m3 code up to
    ``wide_scale_max(k, ...)`` -- the seven subnormals (2^-9 .. 7*2^-9) and
    each normal binade up to the bound.  The bound keeps fp16 outputs finite:
    even if *every* scale were the maximum ``s``, a dot product of length ``k``
    has standard deviation ``sqrt(k) * E[q^2] * s^2`` (``E[q^2]`` = 8.5625 over the
    16 codes), and ``s`` is the largest e4m3 power of two with eight such
    deviations under 2^14 (2^7 for each half of the dual GEMM, whose product is
    the output), far under fp16's 65504.

``c`` is filled with standard-normal fp16 values (as the competition does), so
a kernel that forgets to write its output fails the check.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .nvfp4 import E4M3, e4m3_values, fp4_values
from .scales import to_blocked

__all__ = [
    "DISTRIBUTIONS",
    "PRESETS",
    "GemvData",
    "GemmData",
    "DualGemmData",
    "GroupedGemmData",
    "gemv_data",
    "gemm_data",
    "dual_gemm_data",
    "grouped_gemm_data",
    "generate",
    "batch_major",
    "wide_scale_max",
]

DISTRIBUTIONS = ("competition", "wide")

#: Benchmark shapes: gemv (m, k, l); gemm and dual_gemm (m, n, k) with l = 1;
#: grouped_gemm a list of problems, each a list of (m, n, k) groups.
PRESETS = {
    "gemv": [(7168, 16384, 1), (4096, 7168, 8), (7168, 2048, 4)],
    "gemm": [(128, 7168, 16384), (128, 4096, 7168), (128, 7168, 2048)],
    "dual_gemm": [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)],
    "grouped_gemm": [
        [(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)],
        [(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)],
        [(m, 3072, 4096) for m in (192, 320)],
        [(m, 4096, 1536) for m in (128, 384)],
    ],
}

#: GEMV's b is padded to 128 rows (row 0 is the vector), as in the competition.
GEMV_B_ROWS = 128

_MEAN_Q2 = float(np.mean(fp4_values(np.float64) ** 2))  # 8.5625
_SIGMAS = 8.0


def wide_scale_max(k: int, limit: float = 2.0**14) -> float:
    """Largest e4m3 power of two ``s`` with ``8 * sqrt(k) * E[q^2] * s^2 <= limit`` (see the module doc)."""
    s2 = limit / (_SIGMAS * np.sqrt(k) * _MEAN_Q2)
    e = int(np.floor(np.log2(s2) / 2))
    return float(min(max(2.0**e, 2.0**-9), 448.0))


def batch_major(x) -> np.ndarray:
    """Logical ``[rows, cols, l]`` -> the batch-major ``(l, rows, cols)`` array (no copy for generator output)."""
    a = np.asarray(x)
    if a.ndim != 3:
        raise ValueError(f"expected a [rows, cols, l] array, got shape {a.shape}")
    return np.ascontiguousarray(a.transpose(2, 0, 1))


class _ProblemData:
    def physical(self, name: str) -> np.ndarray:
        """The batch-major contiguous ``(l, rows, cols)`` array behind field ``name``."""
        return batch_major(getattr(self, name))

    def blocked(self, name: str) -> np.ndarray:
        """Scales field ``name`` in the 128x4 blocked layout, shape ``(l, rest_mn, rest_k, 32, 4, 4)``."""
        if not name.startswith("sf"):
            raise ValueError(f"{name!r} is not a scale field")
        return to_blocked(getattr(self, name))

    def arrays(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if isinstance(getattr(self, f.name), np.ndarray)}


@dataclass
class GemvData(_ProblemData):
    """a [m, k/2, l] uint8, b [128, k/2, l] uint8 (row 0 used), sfa [m, k/16, l], sfb [128, k/16, l] e4m3, c [m, 1, l] fp16."""

    a: np.ndarray
    b: np.ndarray
    sfa: np.ndarray
    sfb: np.ndarray
    c: np.ndarray
    m: int
    k: int
    l: int


@dataclass
class GemmData(_ProblemData):
    """a [m, k/2, l], b [n, k/2, l] uint8; sfa [m, k/16, l], sfb [n, k/16, l] e4m3; c [m, n, l] fp16."""

    a: np.ndarray
    b: np.ndarray
    sfa: np.ndarray
    sfb: np.ndarray
    c: np.ndarray
    m: int
    n: int
    k: int
    l: int


@dataclass
class DualGemmData(_ProblemData):
    """a [m, k/2, l], b1/b2 [n, k/2, l] uint8; sfa, sfb1, sfb2 e4m3; c [m, n, l] fp16."""

    a: np.ndarray
    b1: np.ndarray
    b2: np.ndarray
    sfa: np.ndarray
    sfb1: np.ndarray
    sfb2: np.ndarray
    c: np.ndarray
    m: int
    n: int
    k: int
    l: int


@dataclass
class GroupedGemmData:
    """One grouped GEMM problem: a list of independent single-batch GEMMs."""

    groups: list

    @property
    def shapes(self) -> list:
        return [(g.m, g.n, g.k) for g in self.groups]


# --------------------------------------------------------------------------- drawing


def _check(distribution: str, **dims):
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"distribution must be one of {DISTRIBUTIONS}, got {distribution!r}")
    for name, v in dims.items():
        if not isinstance(v, (int, np.integer)) or v <= 0:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    k = dims.get("k")
    if k is not None and k % 16:
        raise ValueError(f"k={k} must be a multiple of 16 (one e4m3 scale per 16 values)")


def _bytes(rng, shape, kind: str) -> np.ndarray:
    if kind == "gemv":
        return rng.integers(0, 4, size=shape, dtype=np.uint8)
    if kind == "dual_gemm":
        return rng.integers(0, 256, size=shape, dtype=np.uint8) & np.uint8(0xBB)
    return rng.integers(0, 256, size=shape, dtype=np.uint8)  # gemm, grouped, wide


_POSITIVE_CODES = np.arange(1, 0x7F, dtype=np.uint8)  # every positive finite e4m3 byte (0x7F is NaN)
_POSITIVE_VALUES = e4m3_values(np.float64)[_POSITIVE_CODES]


def _scales(rng, shape, kind: str, smax: float | None = None) -> np.ndarray:
    if kind == "wide":
        codes = _POSITIVE_CODES[_POSITIVE_VALUES <= smax]
        return codes[rng.integers(0, codes.size, size=shape)].view(E4M3)
    if kind == "gemv":
        return rng.integers(0, 3, size=shape).astype(np.float32).astype(E4M3)
    if kind == "dual_gemm":
        return rng.random(size=shape, dtype=np.float32).astype(E4M3)
    return rng.integers(0, 4, size=shape).astype(np.float32).astype(E4M3)  # gemm, grouped


def _logical(physical: np.ndarray) -> np.ndarray:
    return physical.transpose(1, 2, 0)


def _c(rng, l, m, n) -> np.ndarray:
    return _logical(rng.standard_normal((l, m, n), dtype=np.float32).astype(np.float16))


def _rng(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.Generator(np.random.PCG64(seed))


def gemv_data(m: int, k: int, l: int = 1, *, seed=0, distribution: str = "competition") -> GemvData:
    """Inputs for batched GEMV ``c[:, 0, b] = A[b] @ b[b][0]`` (``seed`` may also be a Generator)."""
    _check(distribution, m=m, k=k, l=l)
    rng = _rng(seed)
    kind = "gemv" if distribution == "competition" else "wide"
    smax = wide_scale_max(k)
    a = _logical(_bytes(rng, (l, m, k // 2), kind))
    b = _logical(_bytes(rng, (l, GEMV_B_ROWS, k // 2), kind))
    sfa = _logical(_scales(rng, (l, m, k // 16), kind, smax))
    sfb = _logical(_scales(rng, (l, GEMV_B_ROWS, k // 16), kind, smax))
    return GemvData(a, b, sfa, sfb, _c(rng, l, m, 1), m, k, l)


def gemm_data(m: int, n: int, k: int, l: int = 1, *, seed=0, distribution: str = "competition") -> GemmData:
    """Inputs for ``c[:, :, b] = A[b] @ B[b]^T``."""
    _check(distribution, m=m, n=n, k=k, l=l)
    rng = _rng(seed)
    kind = "gemm" if distribution == "competition" else "wide"
    smax = wide_scale_max(k)
    a = _logical(_bytes(rng, (l, m, k // 2), kind))
    b = _logical(_bytes(rng, (l, n, k // 2), kind))
    sfa = _logical(_scales(rng, (l, m, k // 16), kind, smax))
    sfb = _logical(_scales(rng, (l, n, k // 16), kind, smax))
    return GemmData(a, b, sfa, sfb, _c(rng, l, m, n), m, n, k, l)


def dual_gemm_data(m: int, n: int, k: int, l: int = 1, *, seed=0, distribution: str = "competition") -> DualGemmData:
    """Inputs for ``c = silu(A @ B1^T) * (A @ B2^T)``."""
    _check(distribution, m=m, n=n, k=k, l=l)
    rng = _rng(seed)
    kind = "dual_gemm" if distribution == "competition" else "wide"
    smax = wide_scale_max(k, limit=2.0**7)
    a = _logical(_bytes(rng, (l, m, k // 2), kind))
    b1 = _logical(_bytes(rng, (l, n, k // 2), kind))
    b2 = _logical(_bytes(rng, (l, n, k // 2), kind))
    sfa = _logical(_scales(rng, (l, m, k // 16), kind, smax))
    sfb1 = _logical(_scales(rng, (l, n, k // 16), kind, smax))
    sfb2 = _logical(_scales(rng, (l, n, k // 16), kind, smax))
    return DualGemmData(a, b1, b2, sfa, sfb1, sfb2, _c(rng, l, m, n), m, n, k, l)


def grouped_gemm_data(groups, *, seed=0, distribution: str = "competition") -> GroupedGemmData:
    """Inputs for a grouped GEMM: ``groups`` is a list of (m, n, k); each group is a single-batch :class:`GemmData`.

    The competition distribution here is GEMM's (every byte, scales {0..3}).
    """
    groups = list(groups)
    if not groups:
        raise ValueError("groups must be a non-empty list of (m, n, k)")
    rng = _rng(seed)
    out = []
    for i, g in enumerate(groups):
        if len(g) != 3:
            raise ValueError(f"group {i} must be (m, n, k), got {g!r}")
        out.append(gemm_data(*g, 1, seed=rng, distribution=distribution))
    return GroupedGemmData(out)


def generate(problem: str, shape, *, seed=0, distribution: str = "competition"):
    """Dispatch on ``problem`` ("gemv", "gemm", "dual_gemm", "grouped_gemm") with a :data:`PRESETS`-style shape."""
    makers = {"gemv": gemv_data, "gemm": gemm_data, "dual_gemm": dual_gemm_data}
    if problem == "grouped_gemm":
        return grouped_gemm_data(shape, seed=seed, distribution=distribution)
    if problem not in makers:
        raise ValueError(f"problem must be one of {sorted(PRESETS)}, got {problem!r}")
    return makers[problem](*shape, seed=seed, distribution=distribution)
