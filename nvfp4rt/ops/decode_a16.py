"""Decode the NVFP4 operand A once per call into "A16", fp16 in the wgmma GEMM's a16 k order.

The kernel is ``ptx/nvfp4_decode_a16.ptx`` (its header gives the k order, the
numerics and the launch contract).  It is the prepass of a Hopper GEMM that
TMA-loads A already decoded (boxes of 128 rows x 64 fp16, 128B swizzle)
instead of decoding it in every CTA.  This module holds:

* :func:`a16_reference` (numpy, no GPU): the bit-exact A16 a correct kernel
  writes, from the packed bytes and scale bytes;
* :func:`a16_k_order`: which k each A16 element of a k32 piece holds;
* :func:`decode_grid`: the grid the plan launches;
* :class:`GroupedDecodeA16`: every group of a grouped GEMM in one launch, from a device table (the
  kernel's GROUPED=1 form, or for groups that share k ``ptx/nvfp4_decode_a16_wide.ptx``, one 1024-thread
  CTA per SM writing the same bytes);
* :class:`DecodeA16Plan`: a fixed ``(m, k, l)`` and input strides on one
  device, with a prepared launch re-pointed per call::

    plan = DecodeA16Plan(m, k, l, a_row, a_batch, sfa_row, sfa_batch)
    plan.run(a, sfa, out, stream=None) -> out      # also plan(...)

``a`` is ``[l][m][k/2]`` packed e2m1 bytes (row/batch strides in bytes,
16-byte aligned base and strides), ``sfa`` ``[l][m][k/16]`` e4m3 bytes (any
strides and alignment), ``out`` a contiguous fp16 ``[l][m][k]`` buffer
(16-byte aligned).  Arrays are anything with an int ``.ptr``
(:class:`nvfp4rt.launch.Pointer` included).  ``normal_operands=False`` (the
GEMM's default) writes ``value * 2^-14``, True writes ``value``.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .. import driver
from ..launch import Pointer
from ..nvfp4 import E4M3, decode_scales, fp4_values, unpack_fp4_codes
from ..ptxsource import ptx_dir
from ._args import device_ptr, positive_int

__all__ = ["DecodeA16Plan", "GroupedDecodeA16", "a16_reference", "a16_k_order", "decode_grid", "K_MULTIPLE", "THREADS",
           "CTAS_PER_SM", "WIDE_THREADS", "WIDE_TASKS", "shares_k"]

_KERNEL_FILE = "nvfp4_decode_a16.ptx"
_ENTRY = "nvfp4_decode_a16"
#: Threads per CTA (the kernel's .maxntid).
THREADS = 256
#: Four threads decode one k32 piece (each writes one 16-byte chunk of its 64 output bytes).
ITEMS_PER_CTA = THREADS // 4
#: At most this many CTAs per SM in the grid (one full-occupancy wave; the kernel's .minnctapersm).
CTAS_PER_SM = 8
#: k must be a multiple of this (whole k64 sub-steps of the GEMM; the kernel's piece is k32).
K_MULTIPLE = 64
_PIECE_K = 32
#: The wide grouped decode (``ptx/nvfp4_decode_a16_wide.ptx``): one CTA of WIDE_THREADS per SM, WIDE_TASKS
#: (row, k256 chunk) tasks per warp and round.
_WIDE_KERNEL_FILE, _WIDE_ENTRY = "nvfp4_decode_a16_wide.ptx", "nvfp4_decode_a16_wide"
WIDE_THREADS, WIDE_TASKS = 1024, 4
_CHUNK_K = 256
_MAX_ITEMS = 2**31  # the kernel numbers (batch, row, piece) work items in 32 bits


def a16_k_order() -> np.ndarray:
    """``order[e]`` = the k (0..31, within a k32 piece) that A16 element ``e`` of the piece holds.

    Element ``8c + 2w + h`` of chunk ``c``, word ``w``, half ``h`` holds nibble ``H[c] + 4h`` of
    word ``w``, i.e. k = 8w + H[c] + 4h with H = (0, 2, 1, 3): chunks h0, h2, h1, h3 of the decode.
    """
    pair_of_chunk = (0, 2, 1, 3)
    return np.array([8 * w + pair_of_chunk[c] + 4 * h for c in range(4) for w in range(4) for h in range(2)],
                    dtype=np.intp)


def _as_bytes(name: str, x) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype not in (np.dtype(np.uint8), np.dtype(np.int8), E4M3):
        raise TypeError(f"{name} must hold bytes (uint8, int8 or float8_e4m3fn), got dtype {arr.dtype}")
    return arr.view(np.uint8)


def a16_reference(a_bytes, sfa_bytes, normal_operands: bool = False) -> np.ndarray:
    """The A16 a correct ``nvfp4_decode_a16`` writes, as float16 (``.view(np.uint16)`` for the bits).

    ``a_bytes``: uint8 ``[l, m, k/2]`` or ``[m, k/2]`` packed e2m1 (low nibble first);
    ``sfa_bytes``: ``[l, m, k/16]`` or ``[m, k/16]`` (same rank) e4m3 bytes or float8_e4m3fn.
    Returns ``[l, m, k]`` (or ``[m, k]``): each k32 piece in the order of :func:`a16_k_order`,
    values ``e2m1 * scale * 2^-14`` (``normal_operands=True``: ``e2m1 * scale``).  Every such
    product is exact in fp16, so these are the kernel's bits (-0 included); only NaN scale bytes
    (0x7F, 0xFF) give NaNs whose payload may differ.
    """
    a = _as_bytes("a_bytes", a_bytes)
    sf = _as_bytes("sfa_bytes", sfa_bytes)
    if a.ndim not in (2, 3):
        raise ValueError(f"a_bytes must be [m, k/2] or [l, m, k/2], got shape {a.shape}")
    if sf.ndim != a.ndim:
        raise ValueError(f"sfa_bytes must have a_bytes' rank {a.ndim}, got shape {sf.shape}")
    k = 2 * a.shape[-1]
    if k == 0 or k % _PIECE_K:
        raise ValueError(f"k = 2 * a_bytes.shape[-1] = {k} must be a positive multiple of {_PIECE_K}")
    if sf.shape != a.shape[:-1] + (k // 16,):
        raise ValueError(f"sfa_bytes must have shape {a.shape[:-1] + (k // 16,)} for a_bytes {a.shape}, "
                         f"got {sf.shape}")
    vals = fp4_values(np.float32)[unpack_fp4_codes(a)]             # exact, -0 kept
    if not normal_operands:
        vals *= np.float32(2.0**-14)                                 # the decode's value * 2^-14, exact
    scales = np.repeat(decode_scales(sf, np.float32), 16, axis=-1)
    with np.errstate(invalid="ignore"):
        prod = (vals * scales).astype(np.float16)                    # <= 5 significant bits: exact
    pieces = prod.reshape(prod.shape[:-1] + (k // _PIECE_K, _PIECE_K))
    return np.ascontiguousarray(pieces[..., a16_k_order()]).reshape(prod.shape)


def decode_grid(items: int, sm_count: int) -> int:
    """CTAs to launch for ``items`` k32 pieces: one per 64 items (four threads per item), at most 8 per
    SM (one wave)."""
    items, sm_count = positive_int("items", items), positive_int("sm_count", sm_count)
    return min(-(-items // ITEMS_PER_CTA), CTAS_PER_SM * sm_count)


def _check_stride(name: str, v, multiple: int = 1) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0 or v >= 2**63:
        raise ValueError(f"{name} must be a non-negative int (bytes), got {v!r}")
    if v % multiple:
        raise ValueError(f"{name} must be a multiple of {multiple} bytes (16-byte vector loads), got {v}")
    return int(v)


#: the decode's preferred shared-memory carveout (percent).  It uses no shared memory, but the GEMM launched behind
#: it by programmatic dependent launch needs nearly all of it, and an SM changes its L1/shared split only when idle:
#: asking for the GEMM's split lets the GEMM's CTAs land on an SM as soon as its registers free up.  H100, whole
#: call: 0.1-0.3 us faster on the three GEMM benchmark shapes (docs/device-logs/2026-11-22-session29/15).
DECODE_CARVEOUT = 100


def _load(ordinal: int, normal_operands: bool, grouped: bool):
    """The decode kernel of one template variant, asking for the GEMM's carveout."""
    from ..module import load

    kernel = load(ptx_dir() / _KERNEL_FILE, device=driver.Device(ordinal), target="sm_90a",
                  constants={"NORMAL_OPERANDS": int(normal_operands), "GROUPED": int(grouped)}).kernel(_ENTRY)
    kernel.set_shared_carveout(DECODE_CARVEOUT)
    return kernel


@lru_cache(maxsize=None)
def _kernel(ordinal: int, normal_operands: bool):
    return _load(ordinal, normal_operands, grouped=False)


class DecodeA16Plan:
    """Decode A ``[l][m][k/2]`` + sfa into a contiguous fp16 A16 ``[l][m][k]`` (see the module doc).

    ``DecodeA16Plan(m, k, l, a_row, a_batch, sfa_row, sfa_batch, *, device=None,
    normal_operands=False, grid=None, programmatic=False)``: strides in bytes;
    ``grid`` overrides :func:`decode_grid` (any positive CTA count is correct);
    ``programmatic=True`` launches the decode itself with programmatic dependent
    launch (it may start before the previous kernel on the stream ends: the kernel
    executes ``griddepcontrol.wait`` before touching memory).  The kernel always
    executes ``griddepcontrol.launch_dependents``, so the GEMM after it may be
    launched with ``programmatic=True`` and must ``griddepcontrol.wait`` before
    reading A16.  Every check raises before any GPU work.
    """

    def __init__(self, m: int, k: int, l: int, a_row: int, a_batch: int, sfa_row: int, sfa_batch: int, *,
                 device=None, normal_operands: bool = False, grid: int | None = None, programmatic: bool = False):
        self.m, self.k, self.l = (positive_int(n, v) for n, v in (("m", m), ("k", k), ("l", l)))
        if self.k % K_MULTIPLE:
            raise ValueError(f"k must be a multiple of {K_MULTIPLE}, got {k}")
        self.a_row = _check_stride("a_row", a_row, 16)
        self.a_batch = _check_stride("a_batch", a_batch, 16)
        self.sfa_row = _check_stride("sfa_row", sfa_row)
        self.sfa_batch = _check_stride("sfa_batch", sfa_batch)
        if self.a_row < self.k // 2:
            raise ValueError(f"a_row must be at least k/2 = {self.k // 2} bytes, got {self.a_row}")
        if self.sfa_row < self.k // 16:
            raise ValueError(f"sfa_row must be at least k/16 = {self.k // 16} bytes, got {self.sfa_row}")
        for name, flag in (("normal_operands", normal_operands), ("programmatic", programmatic)):
            if not isinstance(flag, bool):
                raise TypeError(f"{name} must be a bool, got {type(flag).__name__}")
        self.normal_operands, self.programmatic = normal_operands, programmatic
        self.items = self.l * self.m * (self.k // _PIECE_K)
        if self.items >= _MAX_ITEMS:
            raise ValueError(f"l*m*k/32 = {self.items} work items do not fit the kernel's 32-bit index "
                             f"(at most {_MAX_ITEMS - 1})")
        if grid is not None:
            grid = positive_int("grid", grid)
        self.out_bytes = 2 * self.l * self.m * self.k

        dev = device if device is not None else driver.device()
        if isinstance(dev, int) and not isinstance(dev, bool):
            dev = driver.device(dev)
        if not isinstance(dev, driver.Device):
            raise TypeError(f"device must be a Device, an ordinal or None, got {type(dev).__name__}")
        if tuple(dev.compute_capability) != (9, 0):
            major, minor = dev.compute_capability
            raise ValueError(f"device: nvfp4_decode_a16 is sm_90a only (Hopper); {dev.properties.name} is "
                             f"compute capability {major}.{minor}")
        self.device = dev
        dev.activate()
        self.grid = grid if grid is not None else decode_grid(self.items, dev.properties.sm_count)
        self.kernel = _kernel(dev.ordinal, normal_operands)
        self._launch = None
        self._ptrs: tuple[int, int, int] | None = None

    @property
    def bytes_moved(self) -> int:
        """Bytes the decode must move at least: A and its scales in, A16 out."""
        return self.l * self.m * (self.k // 2 + self.k // 16) + self.out_bytes

    def _pointers(self, a, sfa, out) -> tuple[int, int, int]:
        pa, psf, pout = device_ptr("a", a), device_ptr("sfa", sfa), device_ptr("out", out)
        if pa % 16:
            raise ValueError(f"a must be 16-byte aligned (16-byte vector loads), address 0x{pa:x}")
        if pout % 16:
            raise ValueError(f"out must be 16-byte aligned (16-byte vector stores), address 0x{pout:x}")
        nbytes = getattr(out, "nbytes", None)
        if isinstance(nbytes, (int, np.integer)) and nbytes < self.out_bytes:
            raise ValueError(f"out holds {nbytes} bytes; A16 [l={self.l}][m={self.m}][k={self.k}] fp16 needs "
                             f"{self.out_bytes}")
        if getattr(out, "is_c_contiguous", True) is False:
            raise ValueError("out must be C-contiguous: A16 is written as a dense [l][m][k] fp16 array")
        dtype = getattr(out, "dtype", None)
        if dtype is not None and np.dtype(dtype).itemsize != 2:
            raise TypeError(f"out must hold 2-byte elements (float16 or uint16), got dtype {np.dtype(dtype)}")
        return pa, psf, pout

    def run(self, a, sfa, out, stream=None):
        """Launch on ``stream`` (default: the device's default stream); returns ``out``.  Asynchronous."""
        self.launch_pointers(*self._pointers(a, sfa, out), stream)
        return out

    __call__ = run

    def launch_pointers(self, pa: int, psf: int, pout: int, stream_handle) -> None:
        """The launch of :meth:`run` for callers that checked the pointers themselves (the cluster GEMM
        plan: ``pa`` 16-byte aligned, ``pout`` its own A16 buffer), on a driver stream handle."""
        ptrs = (pa, psf, pout)
        if self._launch is None:
            self._launch = self.kernel.prepare(
                *(Pointer(p) for p in ptrs), self.a_row, self.a_batch, self.sfa_row, self.sfa_batch,
                self.m, self.k, self.l, grid=self.grid, block=THREADS, stream=stream_handle,
                programmatic=self.programmatic)
        else:
            for name, old, new in zip(("p_a", "p_sfa", "p_out"), self._ptrs, ptrs):
                if old != new:
                    self._launch.set(name, Pointer(new))
            self._launch.set_stream(stream_handle)
        self._ptrs = ptrs
        self._launch.launch()

    def __repr__(self) -> str:
        return (f"<DecodeA16Plan m={self.m} k={self.k} l={self.l} grid={self.grid}"
                + (" normal_operands" if self.normal_operands else "")
                + (" programmatic" if self.programmatic else "") + ">")


#: bytes per entry of the grouped decode's table (the PTX header's GROUPED=1 section)
GROUPED_TABLE_ENTRY = 64

#: bytes per record of the table's L2 warm-up list (the PTX header's "L2 WARM-UP OF THE GEMM'S TABLES")
WARM_RECORD = 16
#: records one launch may list: one per thread of CTA 0
MAX_WARM_REGIONS = THREADS


def warm_region(ptr: int, nbytes: int) -> tuple[int, int] | None:
    """The part of ``[ptr, ptr + nbytes)`` a ``cp.async.bulk.prefetch.L2`` may cover (16-byte aligned start and
    size, inside the region), or None if no whole 16 bytes are left."""
    ptr, nbytes = int(ptr), int(nbytes)
    if ptr < 0 or nbytes < 0:
        raise ValueError(f"a warm-up region needs a device pointer and a size >= 0, got ({ptr:#x}, {nbytes})")
    start, end = -(-ptr // 16) * 16, (ptr + nbytes) // 16 * 16
    if end <= start:
        return None
    return start, min(end - start, 2**32 - 16)


def table_bytes(groups: int, warm_regions: int = 0) -> int:
    """Bytes of a grouped decode table for ``groups`` groups and up to ``warm_regions`` warm-up records."""
    return (groups + 1 + -(-warm_regions // (GROUPED_TABLE_ENTRY // WARM_RECORD))) * GROUPED_TABLE_ENTRY


@lru_cache(maxsize=None)
def _grouped_kernel(ordinal: int):
    return _load(ordinal, normal_operands=False, grouped=True)


@lru_cache(maxsize=None)
def _wide_kernel(ordinal: int):
    from ..module import load

    kernel = load(ptx_dir() / _WIDE_KERNEL_FILE, device=driver.Device(ordinal), target="sm_90a").kernel(_WIDE_ENTRY)
    kernel.set_shared_carveout(DECODE_CARVEOUT)
    return kernel


def shares_k(shapes) -> bool:
    """True when every ``(m, k)`` or ``(m, n, k)`` of ``shapes`` has the same k (what the wide decode needs)."""
    return len({s[-1] for s in shapes}) == 1


class GroupedDecodeA16:
    """Decode every group's A into one A16 buffer in ONE launch (the kernel's GROUPED=1 form).

    ``GroupedDecodeA16(shapes, *, device=None, wide=False)`` with ``shapes`` a list of ``(m, k)``: group g's A16
    ``[m_g][k_g]`` fp16 sits at byte ``offsets[g]`` of the buffer (``out_bytes`` in all), the groups back to
    back.  :meth:`table` builds the device table for the groups' ``(a, sfa)`` pointers and row strides;
    :meth:`launch` runs the decode from a table already on the device (the caller uploads it).  Values are
    ``e2m1 * scale * 2^-14`` (the GEMMs' subnormal operands), in :func:`a16_k_order` within each k32 piece.
    ``wide=True`` runs ``ptx/nvfp4_decode_a16_wide.ptx`` instead (same bytes, same table; groups that share k,
    one 1024-thread CTA per SM; it reads no L2 warm-up list).
    """

    def __init__(self, shapes, *, device=None, wide: bool = False):
        shapes = [tuple(s) for s in shapes]
        if not shapes:
            raise ValueError("shapes must hold at least one (m, k)")
        starts, items = [], 0
        for i, s in enumerate(shapes):
            if len(s) != 2:
                raise ValueError(f"shapes[{i}] must be (m, k), got {s!r}")
            m, k = positive_int(f"shapes[{i}] m", s[0]), positive_int(f"shapes[{i}] k", s[1])
            if k % K_MULTIPLE:
                raise ValueError(f"shapes[{i}]: k must be a multiple of {K_MULTIPLE}, got {k}")
            starts.append(items)
            items += m * (k // _PIECE_K)
        if items >= _MAX_ITEMS:
            raise ValueError(f"{items} work items do not fit the kernel's 32-bit index (at most {_MAX_ITEMS - 1})")
        self.shapes = [(int(m), int(k)) for m, k in shapes]
        self.item_starts, self.items = tuple(starts), items
        self.rows = sum(m for m, _ in self.shapes)
        self.offsets = tuple(64 * s for s in starts)
        self.out_bytes = 64 * items
        if not isinstance(wide, (bool, np.bool_)):
            raise ValueError(f"wide must be True or False, got {wide!r}")
        if wide and not shares_k(self.shapes):
            raise ValueError(f"wide: every group must share k, got k = {sorted({k for _, k in self.shapes})}")
        dev = device if device is not None else driver.device()
        if tuple(dev.compute_capability) != (9, 0):
            raise ValueError(f"device: nvfp4_decode_a16 is sm_90a only (Hopper); {dev.properties.name} is not")
        self.device, self.wide = dev, bool(wide)
        if self.wide:
            self.grid = dev.properties.sm_count
            tasks = self.rows * -(-self.shapes[0][1] // _CHUNK_K)
            if tasks + WIDE_TASKS * self.grid * (WIDE_THREADS // 32) >= _MAX_ITEMS:
                raise ValueError(f"wide: {tasks} (row, k256) tasks do not fit the kernel's 32-bit task index")
            self.kernel = _wide_kernel(dev.ordinal)
        else:
            self.grid = decode_grid(items, dev.properties.sm_count)
            self.kernel = _grouped_kernel(dev.ordinal)
        self._launch = None

    def table(self, a_ptrs, sfa_ptrs, a_rows, sfa_rows, warm=()) -> np.ndarray:
        """The table for these pointers and row strides (bytes): G + 1 entries of 64 bytes, then the L2 warm-up
        list of ``warm``, ``(device pointer, bytes)`` regions that the GEMM after this decode reads first (its
        tables; :func:`warm_region` trims each to whole 16 bytes), four 16-byte records per 64-byte row."""
        G = len(self.shapes)
        regions = [r for r in (warm_region(p, n) for p, n in warm) if r is not None]
        if regions and getattr(self, "wide", False):
            raise ValueError("warm: the wide decode reads no L2 warm-up list; pass warm=() or use wide=False")
        if len(regions) > MAX_WARM_REGIONS:
            raise ValueError(f"warm: at most {MAX_WARM_REGIONS} regions (one per thread of CTA 0), got {len(regions)}")
        t = np.zeros(table_bytes(G, len(regions)) // 8, dtype=np.uint64).reshape(-1, GROUPED_TABLE_ENTRY // 8)
        words = t.view(np.uint32)
        row_start = 0  # u32[2]: the group's first row of all groups' (the wide decode's)
        for g, (m, k) in enumerate(self.shapes):
            words[g, 0], words[g, 1], words[g, 2] = self.item_starts[g], k // _PIECE_K, row_start
            t[g, 2:6] = (a_ptrs[g], sfa_ptrs[g], a_rows[g], sfa_rows[g])
            row_start += m
        words[G, 0] = self.items
        if regions:
            words[0, 12], words[0, 13] = len(regions), (G + 1) * GROUPED_TABLE_ENTRY
            recs = t[G + 1:].reshape(-1, 2)  # u64 pointer, u64 (u32 bytes, u32 0)
            for i, (p, n) in enumerate(regions):
                recs[i] = (p, n)
        return t

    def launch(self, table_ptr: int, out_ptr: int, stream_handle) -> None:
        """Launch on a driver stream handle; the pointers are re-set only when they changed."""
        ptrs = (table_ptr, out_ptr)
        if self._launch is None and self.wide:
            k = self.shapes[0][1]
            self._launch = self.kernel.prepare(
                Pointer(table_ptr), Pointer(out_ptr), len(self.shapes), self.rows, k // _PIECE_K, -(-k // _CHUNK_K),
                grid=self.grid, block=WIDE_THREADS, stream=stream_handle)
        elif self._launch is None:
            self._launch = self.kernel.prepare(Pointer(table_ptr), Pointer(out_ptr), self.items, grid=self.grid,
                                               block=THREADS, stream=stream_handle)
        else:
            for name, old, new in zip(("p_table", "p_out"), self._ptrs, ptrs):
                if old != new:
                    self._launch.set(name, Pointer(new))
            self._launch.set_stream(stream_handle)
        self._ptrs = ptrs
        self._launch.launch()
