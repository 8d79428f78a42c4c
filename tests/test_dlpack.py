"""DLPack: struct layouts, dtype codes, the ctypes consumer on numpy's capsules, export without a GPU,
and (on a GPU) zero-copy round trips with torch, cupy and jax."""
import ctypes
import gc
import weakref

import ml_dtypes
import numpy as np
import pytest

from nvfp4rt import dlpack as D
from nvfp4rt.array import DeviceArray

from conftest import requires_gpu


class FakeDevice:
    """Stands in for a Device: DLPack export only needs the ordinal, so no GPU is touched."""

    def __init__(self, ordinal=0):
        self.ordinal = ordinal


FAKE_PTR = 0x7F00_0000_1000  # never dereferenced


def fake_array(shape, dtype, ordinal=1, **kw):
    return DeviceArray.borrow(FAKE_PTR, shape, dtype, device=FakeDevice(ordinal), **kw)


# ----------------------------------------------------------------------------- layouts (dlpack.h, 64-bit)

def test_struct_sizes_match_the_dlpack_header():
    assert ctypes.sizeof(D.DLPackVersion) == 8
    assert ctypes.sizeof(D.DLDevice) == 8
    assert ctypes.sizeof(D.DLDataType) == 4
    assert ctypes.sizeof(D.DLTensor) == 48
    assert ctypes.sizeof(D.DLManagedTensor) == 64
    assert ctypes.sizeof(D.DLManagedTensorVersioned) == 80


def test_struct_field_offsets_match_the_dlpack_header():
    t = D.DLTensor
    assert [getattr(t, f).offset for f in ("data", "device", "ndim", "dtype", "shape", "strides", "byte_offset")] == \
        [0, 8, 16, 20, 24, 32, 40]
    assert [getattr(D.DLDataType, f).offset for f in ("code", "bits", "lanes")] == [0, 1, 2]
    m = D.DLManagedTensor
    assert (m.dl_tensor.offset, m.manager_ctx.offset, m.deleter.offset) == (0, 48, 56)
    v = D.DLManagedTensorVersioned
    assert (v.version.offset, v.manager_ctx.offset, v.deleter.offset, v.flags.offset, v.dl_tensor.offset) == \
        (0, 8, 16, 24, 32)


# ----------------------------------------------------------------------------- dtypes

def test_every_supported_dtype_round_trips_through_its_code():
    for dt in D.supported_dtypes():
        code, bits, lanes = D.dtype_to_dlpack(dt)
        assert lanes == 1 and bits == dt.itemsize * 8
        assert D.dtype_from_dlpack(code, bits, lanes) == (dt, None)


@pytest.mark.parametrize("dtype,expected", [
    (ml_dtypes.float8_e4m3fn, (10, 8, 1)),
    (ml_dtypes.bfloat16, (4, 16, 1)),
    (np.bool_, (6, 8, 1)),
    (np.float16, (2, 16, 1)),
    (np.uint8, (1, 8, 1)),
    (np.int64, (0, 64, 1)),
])
def test_dtype_codes_of_the_spec(dtype, expected):
    assert D.dtype_to_dlpack(dtype) == expected


def test_packed_fp4_maps_to_uint8_with_a_hint_and_back():
    assert D.dtype_to_dlpack(np.uint8, D.FP4_X2) == (17, 4, 2)
    assert D.dtype_from_dlpack(17, 4, 2) == (np.dtype(np.uint8), "float4_e2m1fn_x2")


def test_unsupported_dlpack_dtypes_are_refused_with_the_reason():
    with pytest.raises(TypeError, match="not byte-addressable"):
        D.dtype_from_dlpack(17, 4, 1)
    with pytest.raises(TypeError, match="lanes=4"):
        D.dtype_from_dlpack(2, 32, 4)
    with pytest.raises(TypeError, match="code=3"):
        D.dtype_from_dlpack(3, 64, 1)
    with pytest.raises(ValueError, match="uint8"):
        D.dtype_to_dlpack(np.float16, D.FP4_X2)


# ----------------------------------------------------------------------------- the consumer on numpy's CPU capsules

@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_numpy_capsule_parses_shape_strides_dtype_and_values(max_version):
    base = np.arange(24, dtype=np.int32).reshape(4, 6)
    a = base[::2, 1::2]  # strided: byte strides (48, 8)
    kw = {} if max_version is None else {"max_version": max_version}
    cap = a.__dlpack__(**kw)
    imp = D.consume_capsule(cap)
    assert imp.device_type == D.kDLCPU
    assert imp.shape == (2, 3)
    assert imp.strides == a.strides == (48, 8)
    assert imp.dtype == np.int32 and imp.dtype_hint is None
    assert imp.ptr == a.ctypes.data
    assert imp.versioned == (max_version is not None)
    assert np.array_equal(D.host_ndarray(imp), a)
    imp.release()
    assert imp.released


def test_consumed_capsule_is_renamed_and_cannot_be_consumed_twice():
    cap = np.ones(3).__dlpack__(max_version=(1, 0))
    imp = D.consume_capsule(cap)
    assert "used_dltensor_versioned" in repr(cap)
    with pytest.raises(BufferError, match="already consumed"):
        D.consume_capsule(cap)
    imp.release()


def test_consumer_rejects_non_capsules():
    with pytest.raises(TypeError, match="DLPack capsule"):
        D.consume_capsule(object())


def test_contiguous_numpy_capsule_gets_c_strides():
    a = np.zeros((2, 3, 5), np.float16)
    imp = D.consume_capsule(a.__dlpack__())
    assert imp.strides == (30, 10, 2)
    imp.release()


# ----------------------------------------------------------------------------- the producer, no GPU

@pytest.mark.parametrize("max_version,name", [(None, "dltensor"), ((1, 0), "dltensor_versioned"), ((1, 3), "dltensor_versioned")])
def test_export_then_import_round_trip_on_a_fake_device_pointer(max_version, name):
    arr = fake_array((2, 3, 4), ml_dtypes.float8_e4m3fn, ordinal=1).transpose(1, 2, 0)
    cap = arr.__dlpack__(max_version=max_version)
    assert f'"{name}"' in repr(cap)
    imp = D.consume_capsule(cap)
    assert (imp.device_type, imp.device_id) == (D.kDLCUDA, 1)
    assert imp.ptr == FAKE_PTR
    assert imp.shape == (3, 4, 2) and imp.strides == arr.strides == (4, 1, 12)
    assert imp.dtype == np.dtype(ml_dtypes.float8_e4m3fn)
    imp.release()


def test_export_keeps_the_array_alive_until_the_consumer_deleter_runs():
    before = D.pending_exports()
    arr = fake_array((8,), np.float32)
    ref = weakref.ref(arr)
    imp = D.consume_capsule(arr.__dlpack__(max_version=(1, 0)))
    del arr
    gc.collect()
    assert ref() is not None, "the exported array must live while the consumer holds the tensor"
    assert D.pending_exports() == before + 1
    imp.release()
    gc.collect()
    assert ref() is None
    assert D.pending_exports() == before


def test_an_unconsumed_capsule_releases_the_array_when_it_dies():
    before = D.pending_exports()
    arr = fake_array((8,), np.float32)
    ref = weakref.ref(arr)
    cap = arr.__dlpack__()
    del arr
    gc.collect()
    assert ref() is not None
    del cap
    gc.collect()
    assert ref() is None
    assert D.pending_exports() == before


def test_export_of_packed_fp4_and_read_only_flags():
    arr = fake_array((4, 8), np.uint8, dtype_hint="float4_e2m1fn_x2", readonly=True)
    cap = arr.__dlpack__(max_version=(1, 0))
    imp = D.consume_capsule(cap)
    assert imp.dtype == np.uint8 and imp.dtype_hint == "float4_e2m1fn_x2"
    assert imp.readonly
    imp.release()


def test_dlpack_device_is_cuda_and_the_ordinal():
    assert fake_array((1,), np.float32, ordinal=5).__dlpack_device__() == (2, 5)


def test_export_argument_checks():
    arr = fake_array((4,), np.float32, ordinal=0)
    with pytest.raises(BufferError, match="cannot export to device"):
        arr.__dlpack__(dl_device=(1, 0))
    with pytest.raises(ValueError, match="ambiguous"):
        arr.__dlpack__(stream=0)
    with pytest.raises(ValueError, match="stream must be"):
        arr.__dlpack__(stream=-7)
    with pytest.raises(TypeError, match="stream must be None or an int"):
        arr.__dlpack__(stream="s")
    odd = DeviceArray.borrow(FAKE_PTR, (3,), np.float32, device=FakeDevice(), strides=(6,))
    with pytest.raises(BufferError, match="not a multiple of the item size"):
        odd.__dlpack__()


def test_cuda_array_interface_export():
    arr = fake_array((2, 3), np.float16, ordinal=0)
    cai = arr.__cuda_array_interface__
    assert cai == {"shape": (2, 3), "typestr": "<f2", "data": (FAKE_PTR, False), "strides": None,
                   "version": 3, "stream": 1}
    assert arr.T.__cuda_array_interface__["strides"] == (2, 6)
    assert not hasattr(fake_array((2,), ml_dtypes.bfloat16), "__cuda_array_interface__")


# ----------------------------------------------------------------------------- GPU: interop with other libraries

def _ptr(x):
    return int(x.data_ptr()) if hasattr(x, "data_ptr") else None


@pytest.mark.gpu
@requires_gpu
def test_torch_round_trips_are_zero_copy_and_keep_values():
    torch = pytest.importorskip("torch")
    from nvfp4rt.array import asarray, from_numpy

    t = torch.arange(24, dtype=torch.float32, device="cuda").reshape(4, 6)[:, 1::2]
    a = asarray(t)
    assert a.ptr == t.data_ptr() and a.strides == (24, 8)
    assert np.array_equal(a.numpy(), t.cpu().numpy())
    ours = from_numpy(np.arange(12, dtype=np.float16).reshape(3, 4))
    back = torch.from_dlpack(ours)
    assert back.data_ptr() == ours.ptr
    assert np.array_equal(back.cpu().numpy(), ours.numpy())
    for dt in (torch.bfloat16, torch.bool, torch.int8, torch.float64):
        x = (torch.arange(10, device="cuda") % 3).to(dt)
        y = torch.from_dlpack(asarray(x))
        assert y.dtype == dt and y.data_ptr() == x.data_ptr() and torch.equal(x, y)


@pytest.mark.gpu
@requires_gpu
def test_torch_fp8_and_fp4_tensors_keep_their_meaning():
    torch = pytest.importorskip("torch")
    from nvfp4rt.array import asarray

    f8 = torch.linspace(-4, 4, 16, device="cuda").to(torch.float8_e4m3fn)
    a = asarray(f8)
    assert a.dtype == np.dtype(ml_dtypes.float8_e4m3fn) and a.ptr == f8.data_ptr()
    assert np.array_equal(a.numpy().astype(np.float32), f8.float().cpu().numpy())
    assert torch.from_dlpack(a).dtype == torch.float8_e4m3fn
    if not hasattr(torch, "float4_e2m1fn_x2"):
        pytest.skip("this torch has no float4_e2m1fn_x2")
    packed = torch.arange(256, dtype=torch.uint8, device="cuda").reshape(16, 16)
    fp4 = packed.view(torch.float4_e2m1fn_x2)
    b = asarray(fp4)
    assert b.dtype == np.uint8 and b.dtype_hint == "float4_e2m1fn_x2" and b.ptr == fp4.data_ptr()
    assert np.array_equal(b.numpy(), packed.cpu().numpy())
    back = torch.from_dlpack(b)
    assert back.dtype == torch.float4_e2m1fn_x2 and back.data_ptr() == b.ptr


@pytest.mark.gpu
@requires_gpu
def test_passing_a_torch_side_stream_orders_its_work_before_ours():
    torch = pytest.importorskip("torch")
    from nvfp4rt.array import asarray
    from nvfp4rt.stream import Stream

    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        x = torch.empty(1 << 24, device="cuda")
        x.fill_(3.0)  # pending on the side stream
        y = x * 2
    ours = Stream(non_blocking=True)
    a = asarray(y, stream=ours)
    assert a.stream is ours
    host = a.numpy()  # runs on `ours`, which must see the producer's pending writes
    assert float(host.min()) == 6.0 and float(host.max()) == 6.0
    # the other way: torch consumes ours on its side stream
    a.fill(1.5)
    with torch.cuda.stream(side):
        t = torch.from_dlpack(a)
        assert float(t.sum()) == 1.5 * t.numel()
    side.synchronize()


@pytest.mark.gpu
@requires_gpu
def test_cupy_round_trips():
    cupy = pytest.importorskip("cupy")
    from nvfp4rt.array import asarray, from_numpy

    c = cupy.arange(20, dtype=cupy.int32).reshape(4, 5)
    a = asarray(c)
    assert a.ptr == c.data.ptr and np.array_equal(a.numpy(), cupy.asnumpy(c))
    ours = from_numpy(np.linspace(0, 1, 7, dtype=np.float32))
    back = cupy.from_dlpack(ours)
    assert back.data.ptr == ours.ptr and np.array_equal(cupy.asnumpy(back), ours.numpy())
    via_cai = cupy.asarray(ours)  # __cuda_array_interface__
    assert via_cai.data.ptr == ours.ptr


@pytest.mark.gpu
@requires_gpu
def test_cuda_array_interface_import_without_dlpack():
    cupy = pytest.importorskip("cupy")
    from nvfp4rt.array import asarray

    c = cupy.arange(6, dtype=cupy.float64)

    class OnlyCAI:
        __cuda_array_interface__ = c.__cuda_array_interface__

    a = asarray(OnlyCAI())
    assert a.ptr == c.data.ptr and np.array_equal(a.numpy(), np.arange(6.0))


_JAX_ROUND_TRIP = r"""
import sys
import numpy as np
import jax, jax.numpy as jnp
from nvfp4rt.array import asarray, from_numpy
try:
    gpu = jax.devices("gpu")[0]
except RuntimeError:
    print("SKIP: jax has no GPU backend here"); sys.exit(0)
x = jax.device_put(jnp.arange(10, dtype=jnp.float32), gpu)
a = asarray(x)
assert a.ptr == x.unsafe_buffer_pointer(), "import copied jax's buffer"
assert np.array_equal(a.numpy(), np.arange(10, dtype=np.float32)), "import read wrong values"
ours = from_numpy(np.arange(8, dtype=np.float32))
y = jnp.from_dlpack(ours)
assert np.array_equal(np.asarray(y), np.arange(8, dtype=np.float32)), "jax read wrong values"
assert y.unsafe_buffer_pointer() == ours.ptr, "jax copied our buffer"
print("OK")
"""


@pytest.mark.gpu
@requires_gpu
def test_jax_round_trips():
    """jax reads our arrays and we read jax's, without copies.  Runs in a child process: jax's GPU
    backend initialisation has aborted a whole pytest process on the device image, and it must not
    take the other tests with it.  Preallocation is off so jax does not grab 75% of the GPU."""
    import os
    import subprocess
    import sys
    pytest.importorskip("jax")
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", _JAX_ROUND_TRIP], env=env, capture_output=True,
                          text=True, timeout=300)
    out = proc.stdout + proc.stderr
    if proc.returncode == 0 and "SKIP:" in proc.stdout:
        pytest.skip(proc.stdout.strip())
    assert proc.returncode == 0 and "OK" in proc.stdout, f"jax round trip failed (exit {proc.returncode}):\n{out[-3000:]}"