"""Batched NVFP4 GEMV, TMA variant (sm_90a): ``c[:, batch] = alpha * A[batch] @ b[batch]``.

Same operation, argument order and numerics as :class:`nvfp4rt.ops.gemv.GemvPlan`;
the kernel (``ptx/gemv_nvfp4_tma.ptx``) differs in how A and its scales reach
the warps: one producer warp streams them into a ring of shared-memory stages
with ``cp.async.bulk.tensor`` (TMA) while 8 consumer warps compute, so loads
keep flowing across tile and batch boundaries.  It exists to be measured against
the vector-load kernel (the issue asks for whichever is faster).

Restrictions (checked, ValueError naming the argument): Hopper only (sm_90a);
``k % 512 == 0`` (the tensor maps view each row as 256-byte chunks); the row
and batch strides of ``a`` and ``sfa`` multiples of 16 bytes and their base
addresses 16-byte aligned (TMA rules).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import driver
from ..ptxsource import ptx_dir
from ._args import positive_int
from .gemv import GemvLayout

__all__ = ["GemvTmaPlan", "GemvTmaGeometry", "tma_geometry", "K_MULTIPLE", "MAX_STAGES"]

_KERNEL_FILE = "gemv_nvfp4_tma.ptx"
_ENTRY = "nvfp4_gemv_tma"
_CONSUMER_WARPS = 8
_THREADS = 32 * (_CONSUMER_WARPS + 1)  # 8 consumer warps + 1 producer warp
_STEP_VALUES = 1024  # values of one row a warp consumes per round (16 bytes per lane)
_CHUNK_BYTES = 256  # inner box of the A map: a row is viewed as k/512 chunks of 256 bytes
_SF_CHUNK_BYTES = 32  # the matching 32 scale bytes
_ROUND_SLOT_BYTES = _CONSUMER_WARPS * (512 + 64)  # A + sfa of one round of the 8 warps: 4608
_B_BYTES_PER_STEP = 2048 + 256  # decoded b (fp16) + its block scales (f32)
_ALIGN_SLACK = 128  # the kernel rounds the dynamic window up to 128 bytes (TMA destination rule)
_PARTIALS = 64
#: K must be a multiple of this (the chunk axis of the tensor maps must tile each row).
K_MULTIPLE = 2 * _CHUNK_BYTES
#: The kernel holds at most this many full/empty mbarrier pairs.
MAX_STAGES = 8
_MAX_ROUNDS_PER_STAGE = 4  # a slot holds at most 4 rounds: 18 KB
_RING_TARGET_BYTES = 36 * 1024  # default ring size the stage count aims at
_MIN_DEFAULT_STAGES = 3


@dataclass(frozen=True)
class GemvTmaGeometry:
    """How the kernel splits the work (see the header of ``ptx/gemv_nvfp4_tma.ptx``)."""

    steps: int
    rows_per_tile: int
    log2_warps_per_row: int
    rounds_per_warp: int
    rounds_per_stage: int
    num_stages: int
    tiles_per_batch: int
    num_tiles: int
    tiles_per_cta: int
    grid: int
    shared_mem: int

    @property
    def warps_per_row(self) -> int:
        return 1 << self.log2_warps_per_row

    @property
    def slot_bytes(self) -> int:
        """Bytes one TMA stage brings in (what the full barrier expects): A then sfa."""
        return self.rounds_per_stage * _ROUND_SLOT_BYTES

    @property
    def box_chunks(self) -> int:
        """Chunks (256 bytes of A, 32 of sfa) per row in one box: 2 * rounds_per_stage * warps_per_row."""
        return 2 * self.rounds_per_stage * self.warps_per_row


def shared_bytes(steps: int, rounds_per_stage: int, num_stages: int) -> int:
    """Dynamic shared memory of one CTA: slack, ring, decoded B and its scales, partials, mbarriers."""
    return (_ALIGN_SLACK + num_stages * rounds_per_stage * _ROUND_SLOT_BYTES + steps * _B_BYTES_PER_STEP
            + _PARTIALS + 16 * num_stages)


def _largest_divisor_at_most(n: int, limit: int) -> int:
    return max(d for d in range(1, min(n, limit) + 1) if n % d == 0)


def stage_shape(k: int, stages: int | None = None, rounds_per_stage: int | None = None) -> tuple[int, int, int, int]:
    """``(steps, warps_per_row, rounds_per_stage, num_stages)`` for a K (pure; validates the overrides)."""
    steps = -(-k // _STEP_VALUES)
    g = math.gcd(steps, _CONSUMER_WARPS)
    rounds = steps // g
    if rounds_per_stage is None:
        d = _largest_divisor_at_most(rounds, _MAX_ROUNDS_PER_STAGE)
    else:
        d = positive_int("rounds_per_stage", rounds_per_stage)
        if rounds % d or d > _MAX_ROUNDS_PER_STAGE:
            raise ValueError(f"rounds_per_stage must divide the {rounds} rounds per warp of k={k} and be at most "
                             f"{_MAX_ROUNDS_PER_STAGE}, got {d}")
    if stages is None:
        s = min(MAX_STAGES, max(_MIN_DEFAULT_STAGES, -(-_RING_TARGET_BYTES // (d * _ROUND_SLOT_BYTES))))
    else:
        s = positive_int("stages", stages)
        if s > MAX_STAGES:
            raise ValueError(f"stages must be in 1..{MAX_STAGES}, got {s}")
    return steps, g, d, s


def tma_geometry(m: int, k: int, l: int, ctas_per_sm: int, sm_count: int, *, stages: int | None = None,
                 rounds_per_stage: int | None = None) -> GemvTmaGeometry:
    """The work decomposition for an ``m x k`` GEMV over ``l`` batches (pure: no GPU)."""
    steps, g, d, s = stage_shape(k, stages, rounds_per_stage)
    rows_per_tile = _CONSUMER_WARPS // g
    tiles_per_batch = -(-m // rows_per_tile)
    num_tiles = tiles_per_batch * l
    slots = max(1, ctas_per_sm * sm_count)
    tiles_per_cta = -(-num_tiles // slots)
    grid = -(-num_tiles // tiles_per_cta)
    return GemvTmaGeometry(steps, rows_per_tile, g.bit_length() - 1, steps // g, d, s, tiles_per_batch, num_tiles,
                           tiles_per_cta, grid, shared_bytes(steps, d, s))


@lru_cache(maxsize=None)
def _kernel(ordinal: int):
    from ..module import load

    dev = driver.Device(ordinal)
    return load(ptx_dir() / _KERNEL_FILE, device=dev, target="sm_90a").kernel(_ENTRY)


def _validate(m, k, l, layout, alpha, stages, rounds_per_stage):
    m, k, l = (positive_int(n, v) for n, v in (("m", m), ("k", k), ("l", l)))
    if k % K_MULTIPLE:
        raise ValueError(f"k must be a multiple of {K_MULTIPLE} for the TMA GEMV (got k={k}); "
                         "use nvfp4rt.ops.gemv.GemvPlan for other K")
    if not isinstance(layout, GemvLayout):
        raise TypeError(f"layout must be a GemvLayout, got {type(layout).__name__}")
    for name in ("a_row", "a_batch", "sfa_row", "sfa_batch", "b_batch"):
        v = getattr(layout, name)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0 or v % 16:
            raise ValueError(f"layout.{name} must be a non-negative multiple of 16 bytes (TMA / 16-byte loads), "
                             f"got {v!r}")
    if layout.a_row < k // 2:
        raise ValueError(f"layout.a_row must be at least k/2 = {k // 2} bytes (rows may not overlap), got {layout.a_row}")
    if layout.sfa_row < k // 16:
        raise ValueError(f"layout.sfa_row must be at least k/16 = {k // 16} bytes, got {layout.sfa_row}")
    if layout.sfb_batch % 2 or layout.sfb_batch < 0:
        raise ValueError(f"layout.sfb_batch must be a non-negative even number of bytes, got {layout.sfb_batch}")
    for name in ("c_row", "c_batch"):
        v = getattr(layout, name)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"layout.{name} must be a non-negative int (fp16 elements), got {v!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(alpha)):
        raise ValueError(f"alpha must be a finite float, got {alpha!r}")
    stage_shape(k, stages, rounds_per_stage)  # validates the overrides
    return m, k, l


class GemvTmaPlan:
    """A TMA GEMV of fixed size, layout and device, ready to launch again and again.

    ``GemvTmaPlan(m, k, l, layout, alpha=1.0, device=None, stages=None, rounds_per_stage=None)``;
    ``plan(a, b, sfa, sfb, c, stream=None)`` takes device arrays (anything with
    ``.ptr``) exactly as :class:`~nvfp4rt.ops.gemv.GemvPlan` does.  The tensor
    maps of ``a`` and ``sfa`` are built on the first call and re-pointed
    (``cuTensorMapReplaceAddress``) when a later call passes other buffers.
    ``stages`` / ``rounds_per_stage`` override the ring depth and the rounds a
    stage holds (for tuning; defaults aim at a ~36 KB ring).
    """

    def __init__(self, m: int, k: int, l: int, layout: GemvLayout, *, alpha: float = 1.0, device=None,
                 stages: int | None = None, rounds_per_stage: int | None = None):
        self.m, self.k, self.l = _validate(m, k, l, layout, alpha, stages, rounds_per_stage)
        self.layout, self.alpha = layout, float(alpha)
        self.device = device if device is not None else driver.device()
        if tuple(self.device.compute_capability) != (9, 0):
            major, minor = self.device.compute_capability
            raise ValueError(f"device: the TMA GEMV kernel is sm_90a only (Hopper); {self.device.properties.name} "
                             f"is compute capability {major}.{minor}")
        steps, _, d, s = stage_shape(self.k, stages, rounds_per_stage)
        smem = shared_bytes(steps, d, s)
        limit = self.device.properties.max_shared_per_block_optin
        if smem > limit:
            raise ValueError(f"k={self.k} with {s} stages needs {smem} bytes of shared memory; the device allows {limit}")
        self.kernel = _kernel(self.device.ordinal)
        if smem > 48 * 1024:  # occupancy is computed against the opted-in limit
            self.kernel.set_max_dynamic_shared(smem)
        occ = driver.call("cuOccupancyMaxActiveBlocksPerMultiprocessor", self.kernel.function, _THREADS, smem)
        if int(occ) < 1:
            raise ValueError(f"k={self.k}: a CTA with {smem} bytes of shared memory does not fit on an SM")
        self.geometry = tma_geometry(self.m, self.k, self.l, int(occ), self.device.properties.sm_count,
                                     stages=s, rounds_per_stage=d)
        self._tmap_a = None
        self._tmap_sfa = None
        self._launch = None

    @property
    def bytes_moved(self) -> int:
        """NVFP4 bytes the GEMV must move: A, its scales, b, its scales and c."""
        m, k, l = self.m, self.k, self.l
        return l * (m * k // 2 + m * k // 16 + k // 2 + k // 16 + 2 * m)

    # ------------------------------------------------------------------ tensor maps
    def _map_args(self, which: str):
        """(shape, strides, box) in numpy order for the 4-D view of a or sfa."""
        geo, lay, m, k, l = self.geometry, self.layout, self.m, self.k, self.l
        chunk = _CHUNK_BYTES if which == "a" else _SF_CHUNK_BYTES
        row = lay.a_row if which == "a" else lay.sfa_row
        batch = lay.a_batch if which == "a" else lay.sfa_batch
        if l == 1 or batch == 0:  # the batch coordinate is always 0 then: any legal stride does
            batch = row * m
        shape = (l, m, k // K_MULTIPLE, chunk)
        strides = (batch, row, chunk)
        box = (1, geo.rows_per_tile, geo.box_chunks, chunk)
        return shape, strides, box

    def tensor_maps(self, a, sfa):
        """The (a, sfa) :class:`nvfp4rt.tma.TensorMap` pair, built or re-pointed for these buffers."""
        from ..tma import TensorMap

        if self._tmap_a is None:
            shape, strides, box = self._map_args("a")
            self._tmap_a = TensorMap(a.ptr, "uint8", shape, box, strides=strides)
            shape, strides, box = self._map_args("sfa")
            self._tmap_sfa = TensorMap(sfa.ptr, "uint8", shape, box, strides=strides)
        else:
            if self._tmap_a.base != a.ptr:
                self._tmap_a.repoint(a.ptr)
            if self._tmap_sfa.base != sfa.ptr:
                self._tmap_sfa.repoint(sfa.ptr)
        return self._tmap_a, self._tmap_sfa

    # ------------------------------------------------------------------ launch
    def _args(self, tmap_a, tmap_sfa, b, sfb, c):
        g, lay = self.geometry, self.layout
        return (tmap_a, tmap_sfa, b, sfb, c, lay.b_batch, lay.sfb_batch, lay.c_row, lay.c_batch, self.m, self.k,
                g.steps, g.rows_per_tile, g.log2_warps_per_row, g.rounds_per_warp, g.rounds_per_stage, g.num_stages,
                g.tiles_per_batch, g.num_tiles, g.tiles_per_cta, self.alpha)

    def __call__(self, a, b, sfa, sfb, c, stream=None):
        for name, arr, align in (("a", a, 16), ("b", b, 16), ("sfa", sfa, 16), ("sfb", sfb, 2), ("c", c, 2)):
            if arr.ptr % align:
                raise ValueError(f"{name} must be {align}-byte aligned (address 0x{arr.ptr:x})")
        old_a = self._tmap_a.base if self._tmap_a is not None else None
        old_sfa = self._tmap_sfa.base if self._tmap_sfa is not None else None
        tmap_a, tmap_sfa = self.tensor_maps(a, sfa)
        if self._launch is None:
            self._launch = self.kernel.prepare(*self._args(tmap_a, tmap_sfa, b, sfb, c), grid=self.geometry.grid,
                                               block=_THREADS, shared_mem=self.geometry.shared_mem, stream=stream)
        else:
            launch = self._launch
            if tmap_a.base != old_a:  # the prepared launch holds a copy of the descriptor bytes
                launch.set("tmap_a", tmap_a)
            if tmap_sfa.base != old_sfa:
                launch.set("tmap_sfa", tmap_sfa)
            launch.set("p_b", b)
            launch.set("p_sfb", sfb)
            launch.set("p_c", c)
            launch.set_stream(stream)
        self._launch.launch()
        return c
