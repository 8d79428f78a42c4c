"""NVFP4 GEMM on Hopper tensor cores (sm_90a wgmma): ``c[b] = alpha * A[b] @ B[b]^T`` in fp16.

The kernel is ``ptx/gemm_nvfp4_wgmma.ptx`` (its header explains the swap-AB
design, the pipeline, the decode-to-fragment mapping and the stream-K
reduction).  This module holds what the host decides:

* :func:`wgmma_geometry` (pure, no GPU): tiles of 128 (n) x 128 (m) rows,
  one *unit* per k256 stage of a tile, ``units_per_cta`` chosen so the grid
  fills the SMs (stream-K: a CTA takes a contiguous run of units, crossing at
  most two partially-owned tiles), the ring depth and the shared memory;
* :func:`tile_contributors` / :func:`workspace_slot`: the reduction schedule
  the kernel derives on its own, as Python, for tests and docs;
* :class:`GemmWgmmaPlan`: a fixed ``(m, n, k, l)`` on one device: the kernel,
  a workspace for fp32 partial tiles plus zeroed per-tile counters, tensor
  maps built once and re-pointed when the buffers move, and a prepared launch.

The plan follows the op layer's contract (``nvfp4rt.ops.gemm``, docs/gemm.md)::

    plan = GemmWgmmaPlan(m, n, k, l, layout=None, *, alpha=1.0, device=None)
    plan(a, b, sfa, sfb, c, stream=None) -> c          # also plan.run(...)

``layout`` is a :class:`nvfp4rt.ops.gemm.GemmLayout` (byte strides of a, sfa,
b, sfb; c's in fp16 elements; K and c's n contiguous); None means the
competition's batch-major physical layout: ``a`` ``[l][m][k/2]`` bytes, ``b``
``[l][n][k/2]``, ``sfa`` ``[l][m][k/16]`` e4m3 bytes, ``sfb`` ``[l][n][k/16]``,
``c`` ``[l][m][n]`` fp16.  Arrays are anything with an int ``.ptr``.  ``a``
and ``b`` must be 16-byte aligned with 16-byte multiple strides (TMA; see
:func:`supports`).  When a scale pointer or stride is not a multiple of 16
bytes (always the case for ``k % 256 != 0``), the plan first copies the
scales into padded rows of ``k_stages * 16`` bytes on the same stream
(``cuMemcpy2DAsync``, one per batch).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import driver
from ..launch import Pointer
from ..memory import copy_2d_async
from ..ptxsource import ptx_dir
from ._args import positive_int, finite_float, device_ptr

__all__ = [
    "GemmWgmmaPlan",
    "supports",
    "GemmWgmmaGeometry",
    "wgmma_geometry",
    "tile_contributors",
    "workspace_slot",
    "K_MULTIPLE",
    "TILE",
    "STAGE_K",
]

_KERNEL_FILE = "gemm_nvfp4_wgmma.ptx"
_ENTRY = "nvfp4_gemm_wgmma"
_THREADS = 384  # producer warpgroup + 2 consumer warpgroups
#: A_DECODER=1: decoder warpgroup (A -> fp16 a16 ring) + 2 consumer warpgroups + a TMA producer warp
_THREADS_DECODER = 416
#: a16 ring depths the A_DECODER=1 kernel is built for (template constant A_BUFS)
A_BUFS_CHOICES = (2, 3, 4)
_C_STAGE_BYTES = 128 * 272  # the fp16 C staging tile (A_DECODER=1 gives it its own space)
#: Rows of A (m) per CTA tile, and of B (n) in the default layout.
TILE = 128
#: B rows per CTA tile the kernel is built for (template constant TILE_N = 128 * B_BLOCKS): 256 gives
#: each consumer warpgroup two m64n128 accumulators and shares each CTA's A decode over twice the rows
TILE_N_CHOICES = (128, 256)
#: K values per unit (one ring stage): 128 bytes of each a/b row, 16 scale bytes.
STAGE_K = 256
_STAGE_BYTES = 2 * TILE * (STAGE_K // 2) + 2 * TILE * (STAGE_K // 16)  # 36864


def stage_layout(tile_n: int = TILE) -> dict:
    """Byte offsets of one ring slot [B tile_n x 128 | A 128 x 128 | sfb tile_n x 16 | sfa 128 x 16]."""
    b = tile_n * (STAGE_K // 2)
    return {"A_OFF": b, "SFB_OFF": b + TILE * (STAGE_K // 2), "SFA_OFF": b + TILE * (STAGE_K // 2) + tile_n * 16,
            "STAGE_BYTES": b + TILE * (STAGE_K // 2) + tile_n * 16 + TILE * 16}
_A16_BUF_BYTES = TILE * 128  # one decoded-A buffer: 128 rows x k64 fp16
#: wgmma groups each consumer leaves in flight at its per-piece wait (template constant WG_WAIT):
#: 1 (two fragment sets busy, 3 a16 buffers) or 3 (four sets, 4 a16 buffers; A_DECODER=0 only)
WGMMA_DEPTHS = (1, 3)
_ALIGN_SLACK = 1024
_PARTIAL_BYTES = TILE * TILE * 4  # one fp32 partial tile
#: K must be a multiple of this (the kernel's decode granule is one 16-byte piece of a row = k32;
#: 64 keeps whole k64 sub-steps meaningful; the last stage is zero-filled past K).
K_MULTIPLE = 64
MIN_STAGES, MAX_STAGES = 2, 4
#: Default cap on the k256 units one CTA runs (one accumulation chain per tile): 32 units = 8192 k.
MAX_CHAIN_UNITS = 32
_DEFAULT_STAGES = 4


def a16_buffers(wgmma_depth: int) -> int:
    """a16 buffers the A_DECODER=0 kernel needs so that the one-sub-step-ahead A decode never rewrites a
    buffer that a wgmma may still read: WG_WAIT <= 2 * A16_BUFS - 5 (the PTX header derives it)."""
    return 3 if wgmma_depth == 1 else 4


def shared_bytes(num_stages: int, a_decoder: bool = False, a_bufs: int = 4, wgmma_depth: int = 1,
                 tile_n: int = TILE) -> int:
    """Dynamic shared memory of one CTA (see the PTX header's launch contract)."""
    if a_decoder:
        return (_ALIGN_SLACK + num_stages * _STAGE_BYTES + a_bufs * TILE * 128 + _C_STAGE_BYTES
                + 16 * num_stages + 16 * a_bufs + 16)
    return (_ALIGN_SLACK + num_stages * stage_layout(tile_n)["STAGE_BYTES"]
            + a16_buffers(wgmma_depth) * _A16_BUF_BYTES + 16 * num_stages + 16)


@dataclass(frozen=True)
class GemmWgmmaGeometry:
    """How the kernel splits an ``(m, n, k, l)`` GEMM over the SMs."""

    m: int
    n: int
    k: int
    l: int
    m_tiles: int
    n_tiles: int
    k_stages: int
    units: int
    units_per_cta: int
    grid: int
    num_stages: int
    tile_n: int = TILE

    @property
    def tiles(self) -> int:
        return self.l * self.m_tiles * self.n_tiles

    @property
    def shared_mem(self) -> int:
        return shared_bytes(self.num_stages)

    @property
    def workspace_bytes(self) -> int:
        """fp32 partial tiles: two slots per CTA (its first and its last tile) per 128-row half of a tile."""
        return 2 * self.grid * _PARTIAL_BYTES * (self.tile_n // TILE)

    @property
    def counters(self) -> int:
        """Arrival counters: one per 128-row half of each tile (the kernel's virtual tiles)."""
        return self.tiles * (self.tile_n // TILE)

    @property
    def split_tiles(self) -> int:
        """Tiles shared by more than one CTA (they go through the workspace)."""
        return sum(1 for t in range(self.tiles) if len(tile_contributors(self, t)) > 1)

    @property
    def balance(self) -> float:
        """Mean units per CTA over the largest (1.0 = every CTA equally busy)."""
        return self.units / (self.grid * self.units_per_cta)


def wgmma_geometry(m: int, n: int, k: int, l: int, sm_count: int, *, stages: int | None = None,
                   units_per_cta: int | None = None, tile_n: int = TILE) -> GemmWgmmaGeometry:
    """The work split for one GEMM (pure).

    ``units_per_cta`` defaults to ``ceil(units / sm_count)`` (one CTA per SM,
    one wave); pass a larger value to split fewer tiles (fewer partials) at
    the price of fewer busy SMs.
    """
    m, n, k, l, sm_count = (positive_int(nm, v) for nm, v in
                            (("m", m), ("n", n), ("k", k), ("l", l), ("sm_count", sm_count)))
    if k % K_MULTIPLE:
        raise ValueError(f"k must be a multiple of {K_MULTIPLE}, got {k}")
    if isinstance(tile_n, bool) or tile_n not in TILE_N_CHOICES:
        raise ValueError(f"tile_n must be one of {TILE_N_CHOICES}, got {tile_n!r}")
    m_tiles, n_tiles, k_stages = -(-m // TILE), -(-n // tile_n), -(-k // STAGE_K)
    units = l * m_tiles * n_tiles * k_stages
    if units >= 2**31:
        raise ValueError(f"problem too large: {units} units of 128x128xk256 do not fit the kernel's 32-bit indices")
    if units_per_cta is None:
        # one wave, but no CTA's fp32 accumulator sums more than MAX_CHAIN_UNITS stages (8192 k: the
        # op layer's cap, see nvfp4rt.ops.gemm.MAX_CHAIN_CHUNKS); past that the grid takes more waves
        upc = min(-(-units // sm_count), MAX_CHAIN_UNITS)
    else:
        upc = positive_int("units_per_cta", units_per_cta)
    grid = -(-units // upc)
    if stages is None:
        s = _DEFAULT_STAGES
    else:
        s = positive_int("stages", stages)
        if not MIN_STAGES <= s <= MAX_STAGES:
            raise ValueError(f"stages must be in {MIN_STAGES}..{MAX_STAGES}, got {s}")
    return GemmWgmmaGeometry(m, n, k, l, m_tiles, n_tiles, k_stages, units, upc, grid, s, tile_n)


def tile_contributors(geo: GemmWgmmaGeometry, tile: int) -> range:
    """The CTAs whose unit runs touch ``tile``, in the order the reduction adds them."""
    first = tile * geo.k_stages
    last = first + geo.k_stages - 1
    return range(first // geo.units_per_cta, last // geo.units_per_cta + 1)


def workspace_slot(geo: GemmWgmmaGeometry, cta: int, tile: int) -> int:
    """Workspace slot where ``cta`` leaves its partial of ``tile``: 2*cta for its first tile, else 2*cta + 1."""
    first_tile = (cta * geo.units_per_cta) // geo.k_stages
    return 2 * cta + (0 if tile == first_tile else 1)


def operand_pointers(a, b, sfa, sfb, c) -> dict:
    """Device addresses of a GEMM's five arrays, checked for what the TMA kernels need (a, b 16-byte
    aligned, c 2-byte aligned); ValueError names the argument."""
    ptrs = {name: device_ptr(name, arr) for name, arr in (("a", a), ("b", b), ("sfa", sfa), ("sfb", sfb), ("c", c))}
    for name in ("a", "b"):
        if ptrs[name] % 16:
            raise ValueError(f"{name} must be 16-byte aligned for TMA (address 0x{ptrs[name]:x})")
    if ptrs["c"] % 2:
        raise ValueError(f"c must be 2-byte aligned (fp16), address 0x{ptrs['c']:x}")
    return ptrs


def repeat_key(stream, *arrays):
    """What decides whether a plan's call repeats its last one: the operands' addresses and the stream (None when an
    operand has no ``ptr``: that call takes the checked path and raises there).  A plan whose last call found
    every pointer valid, re-pointed its tensor maps and made no per-call copy may relaunch as it is when the next
    call's key is equal: same addresses (so the same alignment and maps) and the same stream object."""
    try:
        return (stream, *(x.ptr for x in arrays))
    except AttributeError:
        return None


def launch_with_maps(launch, launched: dict, maps: dict, p_c: int, stream) -> dict:
    """Re-launch a prepared GEMM launch: copy in the tensor maps that changed since ``launched`` (the prepared
    launch holds copies of the descriptor bytes), set ``p_c`` and the stream, launch.  Returns the new
    ``launched`` record (name -> (id, base) of each map)."""
    for name, tm in maps.items():
        if launched.get(name) != (id(tm), tm.base):
            launch.set("tmap_" + name, tm)
    launch.set("p_c", Pointer(p_c))
    launch.set_stream(stream)
    launch.launch()
    return {name: (id(tm), tm.base) for name, tm in maps.items()}


def padded_scale_rows(buf, src: int, row: int, batch: int, rows: int, k: int, l: int, device, stream_handle):
    """Copy ``l`` batches of ``[rows][k/16]`` scale bytes (strides ``row``, ``batch``) at ``src`` into rows of
    ``ceil(k/256) * 16`` bytes, the pitch a TMA scale map needs, on ``stream_handle``.  ``buf`` is the
    destination from an earlier call (or None: a zeroed one is made; the pad columns stay zero).  Returns it."""
    from ..memory import DeviceAllocation

    pitch = -(-k // STAGE_K) * 16
    if buf is None:
        nbytes = l * rows * pitch
        buf = DeviceAllocation(nbytes, device)
        driver.call("cuMemsetD8", buf.ptr, 0, nbytes)
    for bi in range(l):
        copy_2d_async(buf.ptr + bi * rows * pitch, pitch, src + bi * batch, row, k // 16, rows, stream_handle)
    return buf


def _layout(m, n, k, l, layout):
    from .gemm import GemmLayout

    if layout is None:
        return GemmLayout.contiguous(m, n, k, l)
    if not isinstance(layout, GemmLayout):
        raise TypeError(f"layout must be a GemmLayout or None, got {type(layout).__name__}")
    return layout


def _layout_problem(m, n, k, l, layout) -> str | None:
    """Why the kernel cannot take this layout (None: it can)."""
    for name in ("a_row", "a_batch", "b_row", "b_batch"):
        v = getattr(layout, name)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0 or v % 16:
            return f"layout.{name} must be a non-negative multiple of 16 bytes (TMA), got {v!r}"
    if layout.a_row < k // 2 or layout.b_row < k // 2:
        return f"layout.a_row and layout.b_row must be at least k/2 = {k // 2} bytes"
    if l > 1 and (layout.a_batch == 0 or layout.b_batch == 0):
        return "a batch stride of 0 (broadcast a or b) is not supported by the TMA maps"
    for name in ("sfa_row", "sfa_batch", "sfb_row", "sfb_batch", "c_row", "c_batch"):
        v = getattr(layout, name)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            return f"layout.{name} must be a non-negative int, got {v!r}"
    if layout.sfa_row < k // 16 or layout.sfb_row < k // 16:
        return f"layout.sfa_row and layout.sfb_row must be at least k/16 = {k // 16} bytes"
    if layout.c_row < n:
        return f"layout.c_row must be at least n = {n} elements"
    return None


def hopper_problem(m, n, k, l, layout, device, kernel_name: str):
    """(layout, device) for a Hopper GEMM plan: the layout checked against the TMA rules (ValueError
    naming the field), the device resolved (None: the current one; an int: that ordinal) and required to be
    compute capability 9.0 (ValueError naming ``kernel_name``), then made current."""
    layout = _layout(m, n, k, l, layout)
    why = _layout_problem(m, n, k, l, layout)
    if why:
        raise ValueError(why)
    device = device if device is not None else driver.device()
    if isinstance(device, int) and not isinstance(device, bool):
        device = driver.device(device)
    if tuple(device.compute_capability) != (9, 0):
        major, minor = device.compute_capability
        raise ValueError(f"device: the {kernel_name} kernel is sm_90a only (Hopper); {device.properties.name} "
                         f"is compute capability {major}.{minor}")
    device.activate()
    return layout, device


def supports(m, n, k, l, layout=None) -> bool:
    """True when the wgmma kernel can run this size and layout (the op layer asks before choosing it)."""
    try:
        wgmma_geometry(m, n, k, l, 1)
        return _layout_problem(m, n, k, l, _layout(m, n, k, l, layout)) is None
    except (ValueError, TypeError):
        return False


def kernel_constants(normal_operands: bool = False, a_decoder: bool = False, a_bufs: int = 4,
                     wgmma_depth: int = 1, tile_n: int = TILE) -> dict:
    """The template constants of one kernel variant (see the PTX header)."""
    if wgmma_depth not in WGMMA_DEPTHS:
        raise ValueError(f"wgmma_depth must be one of {WGMMA_DEPTHS}, got {wgmma_depth!r}")
    if a_decoder and wgmma_depth != 1:
        raise ValueError("wgmma_depth=3 needs a_decoder=False (the decoder ring releases a16 buffers "
                         "after a wait_group 1)")
    if isinstance(tile_n, bool) or tile_n not in TILE_N_CHOICES:
        raise ValueError(f"tile_n must be one of {TILE_N_CHOICES}, got {tile_n!r}")
    if a_decoder and tile_n != TILE:
        raise ValueError("tile_n=256 needs a_decoder=False")
    if tile_n != TILE and wgmma_depth != 1:
        raise ValueError("tile_n=256 needs wgmma_depth=1 (with four fragment sets of two halves ptxas "
                         "serialises the wgmmas for lack of registers)")
    return {"NORMAL_OPERANDS": 1 if normal_operands else 0, "A_DECODER": 1 if a_decoder else 0,
            "A_BUFS": int(a_bufs), "WG_WAIT": int(wgmma_depth), "A16_BUFS": a16_buffers(wgmma_depth),
            "B_BLOCKS": tile_n // TILE, "TILE_N": int(tile_n), **stage_layout(tile_n)}


def operands_normal(alpha: float, requested: bool) -> bool:
    """The NORMAL_OPERANDS choice for ``alpha``: the subnormal-operand kernel takes alpha * 2^28 as an
    fp32 parameter, so an alpha that large would overflow; those fall back to normal operands."""
    return bool(requested) or abs(float(alpha)) * 2.0**28 > float(np.finfo(np.float32).max)


@lru_cache(maxsize=None)
def _kernel(ordinal: int, normal_operands: bool, a_decoder: bool = False, a_bufs: int = 4, wgmma_depth: int = 1,
            tile_n: int = TILE):
    from ..module import load

    dev = driver.Device(ordinal)
    return load(ptx_dir() / _KERNEL_FILE, device=dev, target="sm_90a",
                constants=kernel_constants(normal_operands, a_decoder, a_bufs, wgmma_depth, tile_n)).kernel(_ENTRY)


class GemmFacts:
    """``flops`` and ``bytes_moved`` of a GEMM plan with ``m, n, k, l`` attributes (the bench reads them)."""

    @property
    def flops(self) -> int:
        return 2 * self.m * self.n * self.k * self.l

    @property
    def bytes_moved(self) -> int:
        """NVFP4 bytes the GEMM must move at least once: both operands, their scales and c."""
        m, n, k, l = self.m, self.n, self.k, self.l
        return l * ((m + n) * (k // 2 + k // 16) + 2 * m * n)


class GemmWgmmaPlan(GemmFacts):
    """A Hopper NVFP4 GEMM of fixed size on one device, ready to launch again and again.

    ``GemmWgmmaPlan(m, n, k, l=1, layout=None, *, device=None, alpha=1.0, stages=None,
    units_per_cta=None, multicast=False, normal_operands=False, a_decoder=False, a_bufs=4, wgmma_depth=1)``.
    ``plan.run(a, b, sfa, sfb, c, stream=None)`` (also ``plan(...)``) launches;
    see the module docstring for the array layouts.  ``multicast=True`` (TMA
    multicast of A across a cluster) is not implemented yet and raises.
    ``normal_operands=False`` (the default) selects the kernel variant that skips one fp16
    multiply per pair and relies on fp16 subnormal tensor-core inputs (the H200 sweep
    passed with it on every shape and both distributions); True restores the 2^14 multiply.
    ``wgmma_depth=3`` (A_DECODER=0 only) lets each consumer keep three wgmma groups in
    flight (four fragment register sets, four a16 buffers) instead of one.
    ``tile_n=256`` (A_DECODER=0 only; B_BLOCKS=2) makes a CTA tile 256 B rows: each consumer
    warpgroup holds two m64n128 accumulators (setmaxnreg: producer 24, consumers 240 registers)
    and the A decode of a unit serves twice the B rows; ``stages`` then defaults to 3.
    ``a_decoder=True`` selects the A_DECODER=1 kernel (416 threads): the otherwise
    idle producer warpgroup decodes A into a ring of ``a_bufs`` (2..4) fp16
    buffers guarded by mbarriers, the consumers only decode B and issue wgmma,
    and a 13th warp issues the TMA loads.  ``stages`` then defaults to 3.
    """

    def __init__(self, m: int, n: int, k: int, l: int = 1, layout=None, *, device=None, alpha: float = 1.0,
                 stages: int | None = None, units_per_cta: int | None = None, multicast: bool = False,
                 normal_operands: bool = False, a_decoder: bool = False, a_bufs: int = 4, wgmma_depth: int = 1,
                 tile_n: int = TILE):
        if not isinstance(a_decoder, bool):
            raise TypeError(f"a_decoder must be a bool, got {type(a_decoder).__name__}")
        if isinstance(a_bufs, bool) or not isinstance(a_bufs, (int, np.integer)) or a_bufs not in A_BUFS_CHOICES:
            raise ValueError(f"a_bufs must be one of {A_BUFS_CHOICES}, got {a_bufs!r}")
        self.a_decoder, self.a_bufs = a_decoder, int(a_bufs)
        if isinstance(wgmma_depth, bool) or not isinstance(wgmma_depth, (int, np.integer)):
            raise TypeError(f"wgmma_depth must be an int, got {type(wgmma_depth).__name__}")
        kernel_constants(False, a_decoder, self.a_bufs, int(wgmma_depth), tile_n)  # validates the combination
        self.wgmma_depth, self.tile_n = int(wgmma_depth), int(tile_n)
        if tile_n != TILE and stages is None:
            stages = 3  # 55296-byte stages: 4 would pass the 227 KB limit
        if a_decoder and stages is None:
            stages = 3  # 4 raw stages + 4 a16 buffers + the C tile would pass the 227 KB opt-in limit
        if not isinstance(multicast, bool):
            raise TypeError(f"multicast must be a bool, got {type(multicast).__name__}")
        if multicast:
            raise ValueError("multicast: the cluster/TMA-multicast variant is not implemented yet; use multicast=False")
        if not isinstance(normal_operands, bool):
            raise TypeError(f"normal_operands must be a bool, got {type(normal_operands).__name__}")
        self.alpha = finite_float("alpha", alpha)
        self.normal_operands = operands_normal(self.alpha, normal_operands)
        # validate the sizes before touching the GPU
        wgmma_geometry(m, n, k, l, 1, stages=stages, units_per_cta=units_per_cta, tile_n=self.tile_n)
        self.layout, self.device = hopper_problem(m, n, k, l, layout, device, "wgmma GEMM")
        props = self.device.properties
        self.geometry = wgmma_geometry(m, n, k, l, props.sm_count, stages=stages, units_per_cta=units_per_cta,
                                       tile_n=self.tile_n)
        g = self.geometry
        self.m, self.n, self.k, self.l = g.m, g.n, g.k, g.l
        self.shared_mem = shared_bytes(g.num_stages, a_decoder, self.a_bufs, self.wgmma_depth, self.tile_n)
        if self.shared_mem > props.max_shared_per_block_optin:
            raise ValueError(f"stages={g.num_stages} (a_decoder={a_decoder}, a_bufs={self.a_bufs}) needs "
                             f"{self.shared_mem} bytes of shared memory; the device allows "
                             f"{props.max_shared_per_block_optin}")
        self.threads = _THREADS_DECODER if a_decoder else _THREADS
        self.kernel = _kernel(self.device.ordinal, self.normal_operands, a_decoder, self.a_bufs, self.wgmma_depth,
                              self.tile_n)
        self.kernel.set_max_dynamic_shared(self.shared_mem)

        from ..memory import DeviceAllocation

        self._ws = DeviceAllocation(g.workspace_bytes, self.device)
        self._counters = DeviceAllocation(4 * g.counters, self.device)
        driver.call("cuMemsetD32", self._counters.ptr, 0, g.counters)
        self._sf_pitch = g.k_stages * 16
        lay = self.layout
        self._pad = {"sfa": lay.sfa_row % 16 != 0 or (l > 1 and (lay.sfa_batch % 16 or lay.sfa_batch == 0)),
                     "sfb": lay.sfb_row % 16 != 0 or (l > 1 and (lay.sfb_batch % 16 or lay.sfb_batch == 0))}
        self._sfa_pad = self._sfb_pad = None
        self._tmaps: dict[str, object] = {}
        self._launch = None

    # ------------------------------------------------------------------ tensor maps
    def _map_spec(self, which: str):
        """(shape, outer byte strides, box, swizzle) in numpy order for the 3-D map of one operand."""
        g, lay = self.geometry, self.layout
        rows = g.m if which in ("a", "sfa") else g.n
        if which in ("a", "b"):
            inner, box_inner, swizzle = g.k // 2, STAGE_K // 2, "128B"
            row, batch = getattr(lay, which + "_row"), getattr(lay, which + "_batch")
        else:
            box_inner, swizzle = STAGE_K // 16, "none"
            if self._pad_scales_active(which):
                inner = row = self._sf_pitch
                batch = rows * row
            else:
                inner = g.k // 16
                row, batch = getattr(lay, which + "_row"), getattr(lay, which + "_batch")
        if g.l == 1 or batch == 0:  # the batch coordinate is always 0 then: any legal stride does
            batch = rows * row
        box_rows = g.tile_n if which in ("b", "sfb") else TILE
        return (g.l, rows, inner), (batch, row), (1, box_rows, box_inner), swizzle

    def _pad_scales_active(self, which: str) -> bool:
        return (self._sfa_pad if which == "sfa" else self._sfb_pad) is not None

    def _tensor_map(self, which: str, ptr: int):
        from ..tma import TensorMap

        tm = self._tmaps.get(which)
        if tm is None:
            shape, strides, box, swizzle = self._map_spec(which)
            tm = TensorMap(ptr, "uint8", shape, box, strides=strides, swizzle=swizzle)
            self._tmaps[which] = tm
        elif tm.base != ptr:
            tm.repoint(ptr)
        return tm

    def _padded_scales(self, which: str, src: int, rows: int, stream_handle) -> int:
        """Copy the [rows][k/16] scale bytes of every batch into rows of k_stages*16 bytes (zero tail)."""
        buf = self._sfa_pad if which == "sfa" else self._sfb_pad
        row, batch = getattr(self.layout, which + "_row"), getattr(self.layout, which + "_batch")
        buf = padded_scale_rows(buf, src, row, batch, rows, self.k, self.l, self.device, stream_handle)
        if which == "sfa":
            self._sfa_pad = buf
        else:
            self._sfb_pad = buf
        return buf.ptr

    # ------------------------------------------------------------------ launch
    def run(self, a, b, sfa, sfb, c, stream=None):
        """Launch on ``stream`` (default: the device's default stream); returns ``c``."""
        from ..launch import _stream_handle

        ptrs = operand_pointers(a, b, sfa, sfb, c)
        handle = _stream_handle(stream, self.device)
        for name, rows in (("sfa", self.m), ("sfb", self.n)):
            if self._pad[name] or ptrs[name] % 16:
                if not self._pad_scales_active(name):
                    self._tmaps.pop(name, None)  # its map must describe the padded rows
                ptrs[name] = self._padded_scales(name, ptrs[name], rows, handle)
        maps = {name: self._tensor_map(name, ptrs[name]) for name in ("a", "b", "sfa", "sfb")}
        alpha = self.alpha if self.normal_operands else self.alpha * 2.0**28
        g = self.geometry
        if self._launch is None:
            self._launch = self.kernel.prepare(
                maps["a"], maps["b"], maps["sfa"], maps["sfb"], Pointer(ptrs["c"]), Pointer(self._ws.ptr),
                Pointer(self._counters.ptr), self.layout.c_row, self.layout.c_batch, g.m, g.n, g.k_stages, g.m_tiles, g.n_tiles, g.units, g.units_per_cta,
                g.num_stages, alpha, grid=g.grid, block=self.threads, shared_mem=self.shared_mem, stream=stream)
            self._launched_maps = {}
        self._launched_maps = launch_with_maps(self._launch, self._launched_maps, maps, ptrs["c"], stream)
        return c

    __call__ = run

    def __repr__(self) -> str:
        g = self.geometry
        return (f"<GemmWgmmaPlan m={g.m} n={g.n} k={g.k} l={g.l} grid={g.grid} units/cta={g.units_per_cta} "
                f"stages={g.num_stages} split_tiles={g.split_tiles}"
                + (f" a_decoder a_bufs={self.a_bufs}" if self.a_decoder else "")
                + (f" wgmma_depth={self.wgmma_depth}" if self.wgmma_depth != 1 else "")
                + (f" tile_n={self.tile_n}" if self.tile_n != TILE else "")
                + ("" if self.normal_operands else " subnormal_operands") + ">")
