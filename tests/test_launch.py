"""Launches: argument packing, geometry and prepared launches on any machine; real launches on a GPU."""
import statistics
import struct
import time
from types import SimpleNamespace

import numpy as np
import pytest

from nvfp4rt import driver
from nvfp4rt.launch import (PackedArgs, Pointer, PreparedLaunch, launch, launch_geometry, pack_arguments)
from nvfp4rt.ptxsource import parse_entries, ptx_dir

from conftest import requires_gpu

SIGNATURE_PTX = """
.version 8.7
.target sm_90a
.address_size 64
.visible .entry mixed(
    .param .u64 .ptr .global .align 16 data,
    .param .u8 flag,
    .param .f32 alpha,
    .param .align 64 .b8 tmap[128],
    .param .s16 delta,
    .param .u64 count,
    .param .f64 beta,
    .param .b32 bits
)
{ ret; }
"""


def _sig():
    return parse_entries(SIGNATURE_PTX)["mixed"]


class FakeArray:
    """Anything with an int .ptr is a device array to the packer."""

    def __init__(self, ptr):
        self.ptr = ptr


class CaiArray:
    def __init__(self, ptr):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": (4,), "typestr": "<f4", "version": 3}


def _args(**over):
    base = dict(data=FakeArray(0x7F0000001000), flag=3, alpha=1.5, tmap=bytes(range(128)), delta=-2, count=2**40,
                beta=0.25, bits=0xFFFFFFFF)
    base.update(over)
    return [base[p.name] for p in _sig().params]


# ----------------------------------------------------------------------------- packing layout

def test_layout_offsets_follow_size_and_alignment():
    packed = pack_arguments(_sig(), _args())
    assert packed.offsets == {"data": 0, "flag": 8, "alpha": 12, "tmap": 64, "delta": 192, "count": 200,
                              "beta": 208, "bits": 216}
    assert packed.nbytes == 220
    assert packed.base % 64 == 0


def test_values_land_in_the_buffer_bytes():
    packed = pack_arguments(_sig(), _args())
    buf = packed.buffer
    assert struct.unpack_from("<Q", buf, 0)[0] == 0x7F0000001000
    assert buf[8] == 3
    assert struct.unpack_from("<f", buf, 12)[0] == 1.5
    assert buf[64:192] == bytes(range(128))
    assert struct.unpack_from("<h", buf, 192)[0] == -2
    assert struct.unpack_from("<Q", buf, 200)[0] == 2**40
    assert struct.unpack_from("<d", buf, 208)[0] == 0.25
    assert struct.unpack_from("<I", buf, 216)[0] == 0xFFFFFFFF


def test_void_pointer_array_points_into_the_buffer():
    import ctypes

    packed = pack_arguments(_sig(), _args())
    pointers = (ctypes.c_void_p * 8).from_address(packed.address)
    assert [p - packed.base for p in pointers] == list(packed.offsets.values())
    assert ctypes.string_at(pointers[3], 128) == bytes(range(128))


def test_pointer_forms_and_dict_arguments():
    sig = _sig()
    for value in (FakeArray(4096), CaiArray(4096), Pointer(4096), driver.raw.CUdeviceptr(4096)):
        packed = pack_arguments(sig, _args(data=value))
        assert packed.param_bytes("data") == struct.pack("<Q", 4096)
    by_name = dict(zip([p.name for p in sig.params], _args()))
    assert pack_arguments(sig, by_name).buffer == pack_arguments(sig, _args()).buffer


def test_u64_without_ptr_is_an_integer_but_takes_arrays_too():
    sig = _sig()
    assert pack_arguments(sig, _args(count=np.uint64(7))).param_bytes("count") == struct.pack("<Q", 7)
    assert pack_arguments(sig, _args(count=FakeArray(8192))).param_bytes("count") == struct.pack("<Q", 8192)


def test_bits_param_takes_signed_or_unsigned_values():
    sig = _sig()
    assert pack_arguments(sig, _args(bits=-1)).param_bytes("bits") == b"\xff\xff\xff\xff"
    with pytest.raises(ValueError, match="bits"):
        pack_arguments(sig, _args(bits=2**32))


# ----------------------------------------------------------------------------- packing errors

def test_wrong_argument_count_lists_parameter_names():
    with pytest.raises(TypeError, match=r"takes 8 argument\(s\) \(data, flag, alpha, tmap, delta, count, beta, bits\)"):
        pack_arguments(_sig(), _args()[:-1])


def test_plain_int_is_never_taken_as_a_pointer():
    with pytest.raises(TypeError, match="'data'.*pointer.*Pointer"):
        pack_arguments(_sig(), _args(data=0x7F0000001000))


def test_pointer_param_rejects_other_objects():
    with pytest.raises(TypeError, match="'data'"):
        pack_arguments(_sig(), _args(data="0x1000"))


@pytest.mark.parametrize("name,value", [("flag", 256), ("flag", -1), ("delta", 2**15), ("delta", -(2**15) - 1),
                                        ("count", 2**64), ("count", -1)])
def test_integer_out_of_range_names_param_and_range(name, value):
    with pytest.raises(ValueError, match=rf"'{name}'.*out of range \["):
        pack_arguments(_sig(), _args(**{name: value}))


@pytest.mark.parametrize("value", [True, np.bool_(False)])
def test_bool_is_rejected_for_integers(value):
    with pytest.raises(TypeError, match="'flag'.*bool"):
        pack_arguments(_sig(), _args(flag=value))


def test_float_for_integer_is_rejected():
    with pytest.raises(TypeError, match="'flag'"):
        pack_arguments(_sig(), _args(flag=1.0))


def test_float_param_types():
    sig = _sig()
    assert struct.unpack("<f", pack_arguments(sig, _args(alpha=np.float32(2.5))).param_bytes("alpha"))[0] == 2.5
    assert struct.unpack("<f", pack_arguments(sig, _args(alpha=2)).param_bytes("alpha"))[0] == 2.0
    for bad in ("1.0", None, True, np.ones(1)):
        with pytest.raises(TypeError, match="'alpha'"):
            pack_arguments(sig, _args(alpha=bad))
    with pytest.raises(ValueError, match="'alpha'.*overflows"):
        pack_arguments(sig, _args(alpha=1e39))


@pytest.mark.parametrize("value,exc", [(bytes(127), ValueError), (bytes(129), ValueError), ("x" * 128, TypeError),
                                       (np.zeros(128, np.float32), TypeError)])
def test_byte_array_param_needs_exact_bytes(value, exc):
    with pytest.raises(exc, match="'tmap'.*128"):
        pack_arguments(_sig(), _args(tmap=value))


def test_tensor_map_like_objects_pack_their_bytes():
    tm = SimpleNamespace(tensor_map_bytes=bytes([7]) * 128)
    assert pack_arguments(_sig(), _args(tmap=tm)).param_bytes("tmap") == bytes([7]) * 128


def test_set_repacks_only_that_param():
    packed = pack_arguments(_sig(), _args())
    before = packed.buffer
    address = packed.address
    packed.set("alpha", -3.0)
    after = packed.buffer
    changed = [i for i in range(len(before)) if before[i] != after[i]]
    assert changed and all(12 <= i < 16 for i in changed)
    assert packed.address == address
    with pytest.raises(KeyError, match="nope"):
        packed.set("nope", 1)
    with pytest.raises(TypeError, match="'data'"):
        packed.set("data", 5)


def test_kernel_without_parameters_has_null_params():
    sig = parse_entries(".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry empty()\n{ ret; }\n")["empty"]
    packed = PackedArgs(sig, ())
    assert packed.address == 0 and packed.nbytes == 0


# ----------------------------------------------------------------------------- geometry

def test_geometry_normalises_to_three_dims():
    g = launch_geometry(8, (32, 4), (2,))
    assert g.grid == (8, 1, 1) and g.block == (32, 4, 1) and g.cluster == (2, 1, 1) and g.cluster_size == 2
    assert launch_geometry((2, 3, 4), 1).cluster is None


@pytest.mark.parametrize("grid,block,cluster,exc,match", [
    (0, 32, None, ValueError, "grid.x must be positive"),
    ((1, -1), 32, None, ValueError, "grid.y"),
    (1.0, 32, None, TypeError, "grid"),
    (1, (1, 2, 3, 4), None, TypeError, "block"),
    (1, (True,), None, TypeError, "block.x"),
    (1, (64, 32), None, ValueError, "2048 threads"),
    (1, (1, 1, 65), None, ValueError, "block.z=65"),
    ((1, 65536), 32, None, ValueError, "grid.y=65536"),
    (2**31, 32, None, ValueError, "grid.x"),
    (6, 32, 4, ValueError, "not a multiple of cluster.x=4"),
    (16, 32, 16, ValueError, "non_portable_cluster=True"),
])
def test_geometry_errors(grid, block, cluster, exc, match):
    with pytest.raises(exc, match=match):
        launch_geometry(grid, block, cluster)


def test_non_portable_cluster_allowed_on_request():
    assert launch_geometry(32, 32, 16, non_portable_cluster=True).cluster_size == 16


def test_device_thread_limit_is_used():
    with pytest.raises(ValueError, match="at most 512"):
        launch_geometry(1, 1024, max_threads_per_block=512)


# ----------------------------------------------------------------------------- prepared launch without a GPU

class _FakeDevice:
    properties = SimpleNamespace(max_threads_per_block=1024, max_shared_per_block_optin=227 * 1024)

    def activate(self):
        return self


def _fake_kernel():
    return SimpleNamespace(name="mixed", function=driver.raw.CUfunction(), signature=_sig(), device=_FakeDevice())


def test_prepared_launch_builds_config_once_and_updates_in_place():
    calls = []
    p = PreparedLaunch(_fake_kernel(), _args(), grid=(4, 2), block=128, cluster=(2, 1), stream=driver.raw.CUstream(0))
    p._raw_launch = lambda cfg, fn, params, extra: calls.append((cfg, params)) or (driver.CUresult.CUDA_SUCCESS,)
    cfg = p._config
    assert (cfg.gridDimX, cfg.gridDimY, cfg.blockDimX, cfg.numAttrs) == (4, 2, 128, 1)
    assert cfg.attrs[0].value.clusterDim.x == 2
    before = p.args.buffer
    p.update(flag=9, count=5).set("beta", 1.0)
    after = p.args.buffer
    changed = {i for i in range(len(before)) if before[i] != after[i]}
    assert changed <= set(range(8, 9)) | set(range(200, 208)) | set(range(208, 216))
    p.launch()
    p.launch()
    assert len(calls) == 2 and calls[0][0] is cfg and calls[0][1] == p.args.address


def test_programmatic_launch_adds_the_pdl_attribute_beside_the_cluster():
    attr_id = driver.raw.CUlaunchAttributeID
    both = PreparedLaunch(_fake_kernel(), _args(), grid=(4, 2), block=128, cluster=(2, 1),
                          stream=driver.raw.CUstream(0), programmatic=True)._config
    assert both.numAttrs == 2
    assert [a.id for a in both.attrs] == [attr_id.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                                          attr_id.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION]
    assert both.attrs[0].value.clusterDim.x == 2
    assert both.attrs[1].value.programmaticStreamSerializationAllowed == 1
    alone = PreparedLaunch(_fake_kernel(), _args(), grid=4, block=128, stream=driver.raw.CUstream(0),
                           programmatic=True)._config
    assert alone.numAttrs == 1
    assert alone.attrs[0].id == attr_id.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    assert alone.attrs[0].value.programmaticStreamSerializationAllowed == 1
    plain = PreparedLaunch(_fake_kernel(), _args(), grid=4, block=128, stream=driver.raw.CUstream(0))
    assert plain._config.numAttrs == 0 and not plain.programmatic
    with pytest.raises(TypeError, match="programmatic must be a bool"):
        PreparedLaunch(_fake_kernel(), _args(), grid=4, block=128, stream=driver.raw.CUstream(0), programmatic=1)


def test_prepared_launch_raises_typed_error_on_failure():
    p = PreparedLaunch(_fake_kernel(), _args(), grid=1, block=1, stream=driver.raw.CUstream(0))
    p._raw_launch = lambda *a: (driver.CUresult.CUDA_ERROR_INVALID_VALUE,)
    with pytest.raises(driver.CudaError, match="cuLaunchKernelEx.*CUDA_ERROR_INVALID_VALUE"):
        p.launch()


def test_shared_mem_type_checked_before_the_driver():
    with pytest.raises(TypeError, match="shared_mem"):
        PreparedLaunch(_fake_kernel(), _args(), grid=1, block=1, shared_mem=1.5, stream=driver.raw.CUstream(0))
    with pytest.raises(ValueError, match="shared_mem"):
        PreparedLaunch(_fake_kernel(), _args(), grid=1, block=1, shared_mem=-1, stream=driver.raw.CUstream(0))


# ----------------------------------------------------------------------------- GPU

class _Buffer:
    """Raw device memory through the driver (keeps these tests independent of nvfp4rt.array)."""

    def __init__(self, nbytes):
        self.nbytes = nbytes
        self.ptr = int(driver.call("cuMemAlloc", nbytes))

    def upload(self, host: np.ndarray):
        driver.call("cuMemcpyHtoD", self.ptr, host.ctypes.data, host.nbytes)

    def download(self, dtype, count):
        out = np.empty(count, dtype)
        driver.call("cuMemcpyDtoH", out.ctypes.data, self.ptr, out.nbytes)
        return out

    def free(self):
        driver.call("cuMemFree", self.ptr)


def _load(name):
    from nvfp4rt.module import load

    driver.device(0)
    return load(ptx_dir() / name, cache=None)


@pytest.mark.gpu
@requires_gpu
def test_cluster_ranks_reach_the_kernel():
    dev = driver.device(0)
    k = _load("test_cluster_rank.ptx").kernel("cluster_rank")
    sizes = [1, 2, 4, 8]
    try:
        driver.call("cuFuncSetAttribute", k.function,
                    driver.raw.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
        sizes.append(16)
    except driver.CudaError:
        pass
    blocks = 64
    out = _Buffer(blocks * 16)
    try:
        for c in sizes:
            out.upload(np.full(blocks * 4, 0xDEADBEEF, np.uint32))
            launch(k, (out,), grid=blocks, block=32, cluster=c, non_portable_cluster=c > 8)
            dev.synchronize()
            got = out.download(np.uint32, blocks * 4).reshape(blocks, 4)
            b = np.arange(blocks)
            assert (got[:, 0] == b % c).all(), f"cluster {c}: ranks {got[:, 0]}"
            assert (got[:, 1] == b // c).all(), f"cluster {c}: cluster ids {got[:, 1]}"
            assert (got[:, 2] == c).all(), f"cluster {c}: sizes {got[:, 2]}"
            assert (got[:, 3] == b).all()
        with pytest.raises(ValueError, match="non_portable"):
            launch(k, (out,), grid=blocks, block=32, cluster=16)
    finally:
        out.free()


@pytest.mark.gpu
@requires_gpu
def test_too_much_dynamic_shared_memory_is_refused_before_launch():
    dev = driver.device(0)
    k = _load("test_tma_copy.ptx").kernel("tma_copy_2d")
    limit = dev.properties.max_shared_per_block_optin
    args = (bytes(128), bytes(128), 1, 1, 1, 0)
    with pytest.raises(ValueError, match="shared_mem"):
        launch(k, args, grid=1, block=32, shared_mem=limit)


@pytest.mark.gpu
@requires_gpu
def test_dynamic_shared_above_48k_works():
    from nvfp4rt.tma import TensorMap

    dev = driver.device(0)
    k = _load("test_tma_copy.ptx").kernel("tma_copy_2d")
    rows, cols = 64, 256
    src, dst = _Buffer(rows * cols), _Buffer(rows * cols)
    try:
        host = np.random.default_rng(1).integers(0, 256, rows * cols, dtype=np.uint8)
        src.upload(host)
        dst.upload(np.zeros_like(host))
        box = (64, 256)  # 16 KiB tile, launched with 100 KiB of dynamic shared memory
        sm, dm = (TensorMap(b, np.uint8, (rows, cols), box) for b in (src, dst))
        launch(k, (sm, dm, 256, 64, 1, sm.box_bytes), grid=1, block=32, shared_mem=100 * 1024)
        dev.synchronize()
        assert (dst.download(np.uint8, rows * cols) == host).all()
    finally:
        src.free()
        dst.free()


@pytest.mark.gpu
@requires_gpu
def test_prepared_launch_host_overhead():
    """Median host time of PreparedLaunch.launch() (6 params, two 128-byte maps) vs raw cuLaunchKernelEx."""
    from nvfp4rt.tma import TensorMap

    dev = driver.device(0)
    k = _load("test_tma_copy.ptx").kernel("tma_copy_2d")
    buf = _Buffer(64 * 64)
    try:
        tm = TensorMap(buf, np.uint8, (64, 64), (16, 64))
        p = PreparedLaunch(k, (tm, tm, 64, 16, 1, tm.box_bytes), grid=(1, 4), block=32,
                           shared_mem=tm.box_bytes + 1024)

        def median_us(fn, n=2000):
            times = []
            for _ in range(n):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
                if len(times) % 200 == 0:
                    dev.synchronize()  # keep the launch queue short: measure the host, not queue back-pressure
            return statistics.median(times) * 1e6

        median_us(p.launch, 200)  # warm up
        prepared = median_us(p.launch)
        raw, cfg, fn, addr = driver.raw.cuLaunchKernelEx, p._config, k.function, p.args.address
        baseline = median_us(lambda: raw(cfg, fn, addr, 0))
        dev.synchronize()
        print(f"\nPreparedLaunch.launch(): {prepared:.2f} us median host time; raw cuLaunchKernelEx: {baseline:.2f} us")
        if "H100" in dev.properties.name:
            assert prepared <= 10.0
    finally:
        buf.free()


PDL_PTX = """
.version {{PTX_VERSION}}
.target {{TARGET}}
.address_size 64

// primary: lets its dependent start at once, then sleeps spin_ns and writes 42 (buf[0]) and its end time (buf[1])
.visible .entry pdl_primary(.param .u64 .ptr .global .align 8 p_buf, .param .u64 spin_ns)
{
    .reg .pred  %p_wait;
    .reg .b32   %val;
    .reg .b64   %buf, %wait_ns, %t_start, %t_now, %elapsed;
    griddepcontrol.launch_dependents;
    ld.param.u64 %buf, [p_buf];
    cvta.to.global.u64 %buf, %buf;
    ld.param.u64 %wait_ns, [spin_ns];
    mov.u64 %t_start, %globaltimer;
SPIN:
    nanosleep.u32 1000;
    mov.u64 %t_now, %globaltimer;
    sub.u64 %elapsed, %t_now, %t_start;
    setp.lt.u64 %p_wait, %elapsed, %wait_ns;
    @%p_wait bra SPIN;
    mov.u32 %val, 42;
    st.global.u32 [%buf], %val;
    st.global.u64 [%buf+8], %t_now;
    ret;
}

// dependent: records its start time (out[1]) before griddepcontrol.wait, then copies buf[0] to out[0]
.visible .entry pdl_dependent(.param .u64 .ptr .global .align 8 p_buf, .param .u64 .ptr .global .align 8 p_out)
{
    .reg .b32   %val;
    .reg .b64   %buf, %out, %t_start;
    mov.u64 %t_start, %globaltimer;
    ld.param.u64 %buf, [p_buf];
    cvta.to.global.u64 %buf, %buf;
    ld.param.u64 %out, [p_out];
    cvta.to.global.u64 %out, %out;
    st.global.u64 [%out+8], %t_start;
    griddepcontrol.wait;
    ld.global.u32 %val, [%buf];
    st.global.u32 [%out], %val;
    ret;
}
"""


def test_pdl_test_kernels_assemble():
    from nvfp4rt.assemble import assemble, find_ptxas

    if find_ptxas() is None:
        pytest.skip("ptxas not found")
    assert set(assemble(PDL_PTX, "sm_90a").functions) == {"pdl_primary", "pdl_dependent"}


@pytest.mark.gpu
@requires_gpu
def test_programmatic_dependent_launch_overlaps_and_waits():
    """The dependent (programmatic=True) starts before the primary ends, and after griddepcontrol.wait sees its write."""
    from nvfp4rt.module import load
    from nvfp4rt.stream import Stream

    dev = driver.device(0)
    if dev.compute_capability[0] < 9:
        pytest.skip("griddepcontrol needs sm_90+")
    mod = load(PDL_PTX, cache=None)
    primary, dependent = mod.kernel("pdl_primary"), mod.kernel("pdl_dependent")
    buf, out = _Buffer(16), _Buffer(16)
    try:
        with Stream(dev) as stream:
            for programmatic in (True, False):
                buf.upload(np.zeros(4, np.uint32))
                out.upload(np.full(4, 0xFFFFFFFF, np.uint32))
                primary(buf, 200_000, grid=1, block=1, stream=stream)  # 200 us
                dependent(buf, out, grid=1, block=1, stream=stream, programmatic=programmatic)
                stream.synchronize()
                value, start = int(out.download(np.uint32, 4)[0]), int(out.download(np.uint64, 2)[1])
                primary_end = int(buf.download(np.uint64, 2)[1])
                assert value == 42, f"programmatic={programmatic}: the dependent read {value} after griddepcontrol.wait"
                if programmatic:  # launched early: it ran while the primary slept
                    assert start < primary_end, "the dependent did not start before the primary ended (no PDL?)"
                else:  # ordinary stream order
                    assert start >= primary_end
    finally:
        buf.free()
        out.free()


def test_half_precision_params():
    sig = parse_entries(".visible .entry h(.param .f16 x, .param .bf16 y)\n{ ret; }")["h"]
    assert pack_arguments(sig, (1.0, 1.0)).buffer == bytes.fromhex("003c803f")
    with pytest.raises(ValueError, match="'x'.*overflows"):
        pack_arguments(sig, (65520.0, 1.0))
    with pytest.raises(TypeError, match="'y'"):
        pack_arguments(sig, (1.0, "1"))
