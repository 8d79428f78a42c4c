"""The TMA GEMV variant (ptx/gemv_nvfp4_tma.ptx, nvfp4rt.ops.gemv_tma).

CPU: the kernel assembles for sm_90a without spills; the host's geometry and
tensor maps (replayed in Python exactly as the producer copies and the consumer
warps read) cover every (batch, row, step) once and put each warp's bytes where
it reads them; the full barrier expects exactly the bytes the two copies bring;
bad plan arguments raise before anything touches a GPU.

GPU: the three benchmark shapes and awkward ones against the float64 reference,
fresh random data each run (every byte pattern of a and b, e4m3 scales from
subnormal up), the output poisoned with NaN (0xFFFF) before each launch.
"""
import math

import ml_dtypes
import numpy as np
import pytest

from conftest import requires_gpu
from nvfp4rt.assemble import assemble, declared_targets, find_ptxas
from nvfp4rt.ops.gemv import GemvLayout
from nvfp4rt.ops.gemv_tma import K_MULTIPLE, MAX_STAGES, GemvTmaPlan, shared_bytes, tma_geometry
from nvfp4rt.ptxsource import ptx_dir
from nvfp4rt.tma import check_tensor_map

KERNEL = ptx_dir() / "gemv_nvfp4_tma.ptx"
BENCH_SHAPES = [(7168, 16384, 1), (4096, 7168, 8), (7168, 2048, 4)]
AWKWARD_SHAPES = [(1, 512, 1), (129, 1536, 3), (1, 16384, 3), (129, 7168, 1), (1000, 2560, 3), (77, 24576, 2)]
H100_SMEM_OPTIN = 227 * 1024

requires_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found")


# ----------------------------------------------------------------------------- offline assembly

def test_kernel_file_is_ascii_and_declares_sm90a_only():
    KERNEL.read_bytes().decode("ascii")  # ptxas rejects non-ASCII even in comments
    assert declared_targets(KERNEL) == ("sm_90a",)


@requires_ptxas
def test_kernel_assembles_for_sm90a_without_spills():
    report = assemble(KERNEL, "sm_90a")
    fn = report.functions["nvfp4_gemv_tma"]
    assert not fn.spills, report.log
    assert fn.stack_frame == 0 and fn.local_bytes == 0, report.log
    assert fn.shared_bytes == 0, report.log  # everything is dynamic shared memory
    # 288 threads: at most 64 registers keeps 3 CTAs per SM possible
    assert fn.registers <= 64, report.log


# ----------------------------------------------------------------------------- geometry replay

def replay(m, k, l, geo):
    """Run the producer and consumer loops of the kernel in Python.

    Returns the (batch, row, step) triples whose A bytes some consumer warp
    reads, after checking that each warp's slot offset holds exactly that row
    and step of the box the producer copied into the slot.
    """
    g = geo.warps_per_row
    rows, d = geo.rows_per_tile, geo.rounds_per_stage
    chunks = geo.box_chunks
    stages_per_tile = geo.rounds_per_warp // d
    seen = []
    for cta in range(geo.grid):
        for tile in range(cta * geo.tiles_per_cta, min((cta + 1) * geo.tiles_per_cta, geo.num_tiles)):
            batch, tib = divmod(tile, geo.tiles_per_batch)
            row0 = tib * rows
            for stage in range(stages_per_tile):
                coord = stage * chunks  # the producer's chunk coordinate
                for warp in range(8):
                    r, p = warp >> geo.log2_warps_per_row, warp & (g - 1)
                    a_lane = r * (d * g * 512) + p * 512  # lane 0, as the kernel computes it
                    sf_lane = d * 4096 + r * (d * g * 64) + p * 64
                    for j in range(d):
                        rnd = stage * d + j
                        step = rnd * g + p  # the B step the warp multiplies with
                        # invert the box layout [R][chunks][256] at the warp's A offset
                        off = a_lane + j * g * 512
                        box_row, rest = divmod(off, chunks * 256)
                        box_chunk, byte = divmod(rest, 256)
                        assert (box_row, byte) == (r, 0) and box_chunk % 2 == 0
                        assert (coord + box_chunk) // 2 == step
                        sf_off = sf_lane + j * g * 64 - d * 4096
                        sf_row, sf_rest = divmod(sf_off, chunks * 32)
                        assert (sf_row, sf_rest) == (r, 2 * (step - coord // 2) * 32)
                        if row0 + r < m and step * 512 < k // 2:
                            seen.append((batch, row0 + r, step))
    return seen


GEOMETRY_SHAPES = BENCH_SHAPES + AWKWARD_SHAPES + [(8, 1024 * 40, 1), (300, 3072, 2)]


@pytest.mark.parametrize("m,k,l", GEOMETRY_SHAPES)
@pytest.mark.parametrize("ctas_per_sm", [1, 3])
def test_every_row_and_step_is_read_once_where_the_box_put_it(m, k, l, ctas_per_sm):
    geo = tma_geometry(m, k, l, ctas_per_sm, 132)
    assert geo.rows_per_tile * geo.warps_per_row == 8
    assert geo.rounds_per_warp * geo.warps_per_row == geo.steps
    assert geo.rounds_per_warp % geo.rounds_per_stage == 0
    assert 1 <= geo.num_stages <= MAX_STAGES and geo.box_chunks <= 256
    seen = replay(m, k, l, geo)
    want = {(b, r, s) for b in range(l) for r in range(m) for s in range(-(-k // 1024))}
    assert len(seen) == len(set(seen)) == len(want)
    assert set(seen) == want


@pytest.mark.parametrize("stages,rounds", [(2, 1), (3, 2), (8, 1)])
def test_overrides_change_the_ring_and_keep_the_replay_exact(stages, rounds):
    m, k, l = 130, 16384, 2
    geo = tma_geometry(m, k, l, 2, 132, stages=stages, rounds_per_stage=rounds)
    assert (geo.num_stages, geo.rounds_per_stage) == (stages, rounds)
    assert geo.shared_mem == shared_bytes(geo.steps, rounds, stages)
    assert len(set(replay(m, k, l, geo))) == m * l * 16


@pytest.mark.parametrize("m,k,l", BENCH_SHAPES)
def test_benchmark_shapes_fit_several_ctas_per_sm(m, k, l):
    geo = tma_geometry(m, k, l, 3, 132)
    assert 3 <= geo.num_stages
    assert geo.shared_mem * 3 <= H100_SMEM_OPTIN


def _maps_for(m, k, l, layout, geo):
    """The plan's tensor-map arguments, without a device (the plan method on a bare instance)."""
    plan = object.__new__(GemvTmaPlan)
    plan.m, plan.k, plan.l, plan.layout, plan.geometry = m, k, l, layout, geo
    return plan._map_args("a"), plan._map_args("sfa")


@pytest.mark.parametrize("m,k,l", BENCH_SHAPES + AWKWARD_SHAPES)
def test_tensor_maps_follow_the_tma_rules_and_fill_a_slot_exactly(m, k, l):
    geo = tma_geometry(m, k, l, 3, 132)
    layout = GemvLayout.contiguous(m, k, l)
    (a_shape, a_strides, a_box), (s_shape, s_strides, s_box) = _maps_for(m, k, l, layout, geo)
    a_spec = check_tensor_map("uint8", a_shape, a_box, strides=a_strides, base_address=0x10000)
    s_spec = check_tensor_map("uint8", s_shape, s_box, strides=s_strides, base_address=0x20000)
    # the full barrier expects the two boxes' bytes, out-of-bounds fill included
    assert a_spec.box_bytes + s_spec.box_bytes == geo.slot_bytes
    assert a_spec.box_bytes == geo.rounds_per_stage * 4096
    # the views cover the arrays exactly: k/512 chunks of 256 (32) bytes per row
    assert a_shape == (l, m, k // 512, 256) and s_shape == (l, m, k // 512, 32)
    assert a_strides[1:] == (k // 2, 256) and s_strides[1:] == (k // 16, 32)


# ----------------------------------------------------------------------------- argument validation (CPU)

GOOD = dict(m=64, k=1024, l=2)


def _layout(m=64, k=1024, l=2):
    return GemvLayout.contiguous(m, k, l)


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(k=1000), ValueError, "k must be a multiple of 512"),
    (dict(k=1536 + 32), ValueError, "k must be a multiple of 512"),
    (dict(m=0), ValueError, "m must be a positive int"),
    (dict(l=-1), ValueError, "l must be a positive int"),
    (dict(m=2.0), ValueError, "m must be a positive int"),
    (dict(stages=MAX_STAGES + 1), ValueError, "stages must be"),
    (dict(stages=0), ValueError, "stages must be a positive int"),
    (dict(rounds_per_stage=3), ValueError, "rounds_per_stage must divide"),
    (dict(alpha=float("nan")), ValueError, "alpha must be a finite float"),
    (dict(layout="contiguous"), TypeError, "layout must be a GemvLayout"),
])
def test_bad_plan_arguments_raise_before_any_gpu_work(kwargs, exc, match):
    args = dict(GOOD, layout=_layout())
    args.update(kwargs)
    m, k, l, layout = args.pop("m"), args.pop("k"), args.pop("l"), args.pop("layout")
    with pytest.raises(exc, match=match):
        GemvTmaPlan(m, k, l, layout, **args)


@pytest.mark.parametrize("field,value,match", [
    ("a_row", 512 + 8, "layout.a_row must be a non-negative multiple of 16"),
    ("a_row", 256, "layout.a_row must be at least k/2"),
    ("sfa_row", 72, "layout.sfa_row must be a non-negative multiple of 16"),
    ("sfa_batch", 64 * 64 + 2, "layout.sfa_batch must be a non-negative multiple of 16"),
    ("a_batch", 24, "layout.a_batch must be a non-negative multiple of 16"),
    ("b_batch", 520, "layout.b_batch must be a non-negative multiple of 16"),
    ("sfb_batch", 63, "layout.sfb_batch must be a non-negative even"),
])
def test_bad_layouts_name_the_stride(field, value, match):
    import dataclasses

    layout = dataclasses.replace(_layout(), **{field: value})
    with pytest.raises(ValueError, match=match):
        GemvTmaPlan(64, 1024, 2, layout)


# ----------------------------------------------------------------------------- GPU

_MEAN_Q2 = 8.5625  # E[q^2] over the 16 e2m1 codes
_SFA_CODES = np.arange(0x01, 0x60, dtype=np.uint8)  # subnormal 2^-9 up to 1.875 * 2^4


def _e4m3(codes):
    return codes.view(ml_dtypes.float8_e4m3fn).astype(np.float64)


def sfb_code_cap(k):
    """Largest e4m3 code c so that, with sfa from 0x01..0x5F and sfb from 0x01..c, eight standard
    deviations of a k-long dot product stay under 2^11: outputs are finite in fp16 and the fp32
    accumulation error stays far below the 1e-3 absolute tolerance."""
    ea2 = float(np.mean(_e4m3(_SFA_CODES) ** 2))
    cap = 0x08
    for c in range(0x08, 0x60):
        eb2 = float(np.mean(_e4m3(np.arange(1, c + 1, dtype=np.uint8)) ** 2))
        if 8 * math.sqrt(k) * _MEAN_Q2 * math.sqrt(ea2 * eb2) <= 2.0**11:
            cap = c
    return cap


def full_range_data(m, k, l, rng):
    """Batch-major (physical) arrays: every byte pattern of a and b, e4m3 scales from subnormal up."""
    a = rng.integers(0, 256, size=(l, m, k // 2), dtype=np.uint8)
    b = rng.integers(0, 256, size=(l, 1, k // 2), dtype=np.uint8)
    sfa = rng.choice(_SFA_CODES, size=(l, m, k // 16)).astype(np.uint8)
    sfb = rng.integers(1, sfb_code_cap(k) + 1, size=(l, 1, k // 16), dtype=np.uint8)
    return a, b, sfa, sfb


def reference_out(a, b, sfa, sfb, alpha=1.0):
    """float64 reference as fp16 [l, m] (from nvfp4rt.reference when it is there)."""
    try:
        from nvfp4rt.reference import gemv_ref
    except ImportError:
        gemv_ref = None
    if gemv_ref is not None and alpha == 1.0:
        t = lambda x: x.transpose(1, 2, 0)  # noqa: E731  physical (l, rows, cols) -> logical [rows, cols, l]
        out = gemv_ref(t(a), t(b), t(sfa.view(ml_dtypes.float8_e4m3fn)), t(sfb.view(ml_dtypes.float8_e4m3fn)))
        return np.asarray(out)[:, 0, :].T
    lut = np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float64)

    def decode(packed, scales):
        vals = np.stack([lut[packed & 0xF], lut[packed >> 4]], axis=-1).reshape(*packed.shape[:-1], -1)
        return vals * np.repeat(_e4m3(scales), 16, axis=-1)

    out = np.einsum("lmk,lk->lm", decode(a, sfa), decode(b, sfb)[:, 0, :]) * alpha
    return out.astype(np.float16)


class _DeviceBuffer:
    """Plain device memory with a ``.ptr`` (the plan needs nothing else)."""

    def __init__(self, host):
        from nvfp4rt import driver

        driver.device()  # make the primary context current on this thread
        host = np.ascontiguousarray(host)
        self.nbytes = host.nbytes
        self.ptr = int(driver.call("cuMemAlloc", max(self.nbytes, 1)))
        driver.call("cuMemcpyHtoD", self.ptr, host, self.nbytes)

    def read(self, dtype, shape):
        from nvfp4rt import driver

        out = np.empty(shape, dtype)
        driver.call("cuCtxSynchronize")
        driver.call("cuMemcpyDtoH", out, self.ptr, out.nbytes)
        return out

    def free(self):
        from nvfp4rt import driver

        driver.call("cuMemFree", self.ptr)


def _check(out, ref):
    from nvfp4rt.reference import check

    return check(out, ref)


def run_case(m, k, l, *, plan=None, alpha=1.0, seed=None, **overrides):
    """Launch on fresh data into a NaN-poisoned c; return (check result, plan)."""
    rng = np.random.default_rng(seed)
    a, b, sfa, sfb = full_range_data(m, k, l, rng)
    ref = reference_out(a, b, sfa, sfb, alpha)
    bufs = [_DeviceBuffer(x) for x in (a, b, sfa, sfb)]
    c = _DeviceBuffer(np.full((l, m), 0xFFFF, np.uint16))  # every element NaN until written
    try:
        if plan is None:
            layout = GemvLayout(k // 2, m * k // 2, k // 16, m * k // 16, k // 2, k // 16, 1, m)  # c is (l, m)
            plan = GemvTmaPlan(m, k, l, layout, alpha=alpha, **overrides)
        plan(bufs[0], bufs[1], bufs[2], bufs[3], c)
        out = c.read(np.float16, (l, m))
    finally:
        for buf in bufs + [c]:
            buf.free()
    return _check(out, ref), plan


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("m,k,l", BENCH_SHAPES + AWKWARD_SHAPES)
def test_matches_float64_reference(m, k, l):
    res, _ = run_case(m, k, l)
    assert res.ok, res


@pytest.mark.gpu
@requires_gpu
def test_calls_alternating_between_two_live_buffer_sets_repoint_the_tensor_maps():
    m, k, l = 4096, 7168, 2
    rng = np.random.default_rng()
    sets = []
    for _ in range(2):
        host = full_range_data(m, k, l, rng)
        sets.append((reference_out(*host), [_DeviceBuffer(x) for x in host]))
    c = _DeviceBuffer(np.zeros((l, m), np.uint16))
    plan = GemvTmaPlan(m, k, l, GemvLayout(k // 2, m * k // 2, k // 16, m * k // 16, k // 2, k // 16, 1, m))
    bases = []
    try:
        for i in (0, 1, 0):
            ref, (a, b, sfa, sfb) = sets[i]
            driver_fill_nan(c, l * m)
            plan(a, b, sfa, sfb, c)
            res = _check(c.read(np.float16, (l, m)), ref)
            assert res.ok, (i, res)
            bases.append((plan._tmap_a.base, plan._tmap_sfa.base))
    finally:
        for _, bufs in sets:
            for buf in bufs:
                buf.free()
        c.free()
    assert bases[0] != bases[1] and bases[0] == bases[2]


def driver_fill_nan(buf, count):
    """Poison ``count`` fp16 elements of ``buf`` with 0xFFFF (NaN)."""
    from nvfp4rt import driver

    driver.call("cuMemsetD16", buf.ptr, 0xFFFF, count)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("stages,rounds", [(2, 1), (3, 2), (8, 1)])
def test_ring_overrides_give_the_same_result(stages, rounds):
    res, plan = run_case(1000, 16384, 2, stages=stages, rounds_per_stage=rounds)
    assert (plan.geometry.num_stages, plan.geometry.rounds_per_stage) == (stages, rounds)
    assert res.ok, res


@pytest.mark.gpu
@requires_gpu
def test_alpha_scales_the_result():
    res, _ = run_case(300, 3072, 2, alpha=0.375)
    assert res.ok, res


@pytest.mark.gpu
@requires_gpu
def test_misaligned_sfa_is_rejected():
    m, k, l = 64, 1024, 1
    plan = GemvTmaPlan(m, k, l, GemvLayout.contiguous(m, k, l))

    class Fake:
        def __init__(self, ptr):
            self.ptr = ptr

    with pytest.raises(ValueError, match="sfa must be 16-byte aligned"):
        plan(Fake(0x1000), Fake(0x2000), Fake(0x3008), Fake(0x4000), Fake(0x5000))
