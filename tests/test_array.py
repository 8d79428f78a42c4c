"""DeviceArray: argument checks and views on CPU; allocation, copies, fills and leaks on a GPU."""
import gc

import ml_dtypes
import numpy as np
import pytest

from nvfp4rt import array as A
from nvfp4rt.array import DeviceArray

from conftest import requires_gpu

FAKE_PTR = 0x7F00_0000_2000


class FakeDevice:
    ordinal = 0


def fake(shape, dtype=np.float32, **kw):
    return DeviceArray.borrow(FAKE_PTR, shape, dtype, device=FakeDevice(), **kw)


# ----------------------------------------------------------------------------- CPU: argument checks

@pytest.mark.parametrize("shape,exc,match", [
    ((2, -1), ValueError, "non-negative"),
    ((2.0, 3), TypeError, "must contain ints"),
    ((True, 3), TypeError, "must contain ints"),
    ("ab", TypeError, "must contain ints"),
    (None, TypeError, "an int or a sequence"),
])
def test_bad_shapes_are_refused_before_touching_the_gpu(shape, exc, match):
    with pytest.raises(exc, match=match):
        A.empty(shape, np.float32)


def test_fp4_dtype_is_refused_with_the_packed_storage_advice():
    with pytest.raises(TypeError, match="float4_e2m1fn_x2"):
        A.empty((4,), ml_dtypes.float4_e2m1fn)


@pytest.mark.parametrize("dtype", [object, "U3", np.float128 if hasattr(np, "float128") else "V3"])
def test_unsupported_dtypes_are_refused(dtype):
    with pytest.raises(TypeError, match="not supported|not a numpy dtype"):
        A.empty((4,), dtype)


def test_from_numpy_refuses_object_arrays():
    with pytest.raises(TypeError, match="not supported"):
        A.from_numpy(np.array([object()]))


def test_borrow_argument_checks():
    with pytest.raises(ValueError, match="ptr must be in"):
        DeviceArray.borrow(-1, (2,), np.uint8, device=FakeDevice())
    with pytest.raises(TypeError, match="ptr must be an int"):
        DeviceArray.borrow(1.5, (2,), np.uint8, device=FakeDevice())
    with pytest.raises(ValueError, match="one entry per dimension"):
        DeviceArray.borrow(FAKE_PTR, (2, 3), np.uint8, device=FakeDevice(), strides=(3,))
    with pytest.raises(ValueError, match="needs dtype uint8"):
        DeviceArray.borrow(FAKE_PTR, (2,), np.float16, device=FakeDevice(), dtype_hint="float4_e2m1fn_x2")
    with pytest.raises(TypeError, match="device must be"):
        DeviceArray.borrow(FAKE_PTR, (2,), np.uint8, device="cuda")


# ----------------------------------------------------------------------------- CPU: metadata and views

def test_metadata_of_a_c_contiguous_array():
    a = fake((2, 3, 4), np.float16)
    assert a.strides == (24, 8, 2)
    assert (a.ndim, a.size, a.itemsize, a.nbytes, len(a)) == (3, 24, 2, 48, 2)
    assert a.is_c_contiguous and not a.owning and a.ptr == FAKE_PTR


def test_meta_describes_the_view_and_is_made_once():
    a = fake((4, 6, 2), np.uint8)
    m = a.meta
    assert m == A.ArrayMeta((4, 6, 2), (12, 2, 1), np.dtype(np.uint8), 0)
    assert a.meta is m                       # cached: the raw ops read it on every call
    t = a.transpose(1, 2, 0)
    assert t.meta == A.ArrayMeta((6, 2, 4), (2, 1, 12), np.dtype(np.uint8), 0)
    from nvfp4rt.ops.gemv import device_operands
    arrays, metas = device_operands(("a", "t"), (a, t), FakeDevice())
    assert arrays == (a, t) and metas[0] is m and metas[1] is t.meta   # the raw calls' hot path reuses it


def test_transpose_matches_numpy_strides():
    ref = np.empty((2, 3, 4), np.float32)
    a = fake((2, 3, 4))
    for axes in [(1, 2, 0), (2, 0, 1), (0, 1, 2)]:
        assert a.transpose(*axes).strides == ref.transpose(*axes).strides
        assert a.transpose(axes).shape == ref.transpose(axes).shape
    assert a.T.shape == (4, 3, 2) and a.T.strides == ref.T.strides
    assert not a.transpose(1, 2, 0).is_c_contiguous
    with pytest.raises(ValueError, match="permutation"):
        a.transpose(0, 0, 1)


def test_reshape_infers_minus_one_and_needs_contiguity():
    a = fake((2, 3, 4))
    assert a.reshape(-1, 4).shape == (6, 4)
    assert a.reshape((24,)).strides == (4,)
    with pytest.raises(ValueError, match="cannot reshape"):
        a.reshape(5, 5)
    with pytest.raises(ValueError, match="C-contiguous"):
        a.T.reshape(24)


def test_view_reinterprets_same_itemsize_only():
    a = fake((8,), np.uint8)
    f8 = a.view(ml_dtypes.float8_e4m3fn)
    assert f8.dtype == np.dtype(ml_dtypes.float8_e4m3fn) and f8.ptr == a.ptr and f8.base is a
    packed = a.view("float4_e2m1fn_x2")
    assert packed.dtype == np.uint8 and packed.dtype_hint == "float4_e2m1fn_x2"
    assert packed.view(np.uint8).dtype_hint is None
    with pytest.raises(ValueError, match="same item size"):
        a.view(np.float16)


def test_closed_borrowed_array_refuses_its_pointer():
    a = fake((4,))
    a.close()
    assert a.closed
    with pytest.raises(ValueError, match="closed"):
        a.ptr


def test_numpy_capsule_reaches_the_host_copy_path_through_the_consumer(monkeypatch):
    """asarray of a CPU DLPack producer copies through from_numpy (intercepted here: no GPU)."""
    seen = {}

    def fake_from_numpy(host, device=None, *, stream=None):
        seen["host"] = np.array(host)
        return "copied"

    monkeypatch.setattr(A, "from_numpy", fake_from_numpy)

    class CPUProducer:  # not an ndarray: forces the DLPack route
        def __init__(self, arr):
            self.arr = arr

        def __dlpack__(self, **kw):
            return self.arr.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()

    src = np.arange(12, dtype=np.int16).reshape(3, 4)[:, ::2]
    assert A.asarray(CPUProducer(src)) == "copied"
    assert np.array_equal(seen["host"], src)


# ----------------------------------------------------------------------------- GPU

ALL_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.float16, np.float32, np.float64, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn]


def _sample(dtype, shape=(3, 5)):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 7, size=shape)
    return (x > 3).astype(dtype) if dtype is np.bool_ else x.astype(dtype)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_from_numpy_numpy_round_trip(dtype):
    host = _sample(dtype)
    a = A.from_numpy(host)
    assert a.owning and a.shape == host.shape and a.dtype == np.dtype(dtype)
    back = a.numpy()
    assert back.dtype == host.dtype and np.array_equal(back.view(np.uint8), host.view(np.uint8))


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("dtype,value", [
    (np.uint8, 7), (np.int16, -2), (np.float16, 1.5), (np.float32, 3.25), (np.int32, 0x01020304),
    (np.float64, 0.0), (np.float64, 1.0), (np.int64, -1), (np.float64, 1.0 / 3.0),
    (ml_dtypes.bfloat16, -2.5), (ml_dtypes.float8_e4m3fn, 448.0), (np.bool_, True), (np.complex64, 1 + 2j),
])
def test_full_and_fill_write_every_element(dtype, value):
    a = A.full((7, 9), value, dtype)
    assert np.array_equal(a.numpy(), np.full((7, 9), value, dtype))
    a.fill(0)
    assert not a.numpy().astype(np.float64 if dtype is not np.complex64 else np.complex128).any()


@pytest.mark.gpu
@requires_gpu
def test_zeros_empty_and_zero_size():
    z = A.zeros((1000, 3), np.float32)
    assert not z.numpy().any()
    e = A.empty((0, 4), np.float16)
    assert e.numpy().shape == (0, 4) and e.nbytes == 0
    assert A.empty((), np.float32).shape == ()


@pytest.mark.gpu
@requires_gpu
def test_strided_numpy_copy_matches_numpy_transpose():
    host = np.arange(2 * 3 * 4, dtype=np.int32).reshape(2, 3, 4)
    a = A.from_numpy(host)
    assert np.array_equal(a.transpose(1, 2, 0).numpy(), host.transpose(1, 2, 0))
    assert np.array_equal(a.reshape(6, 4).numpy(), host.reshape(6, 4))


@pytest.mark.gpu
@requires_gpu
def test_view_between_uint8_and_e4m3_keeps_bytes():
    bits = np.arange(256, dtype=np.uint8)
    a = A.from_numpy(bits)
    f8 = a.view(ml_dtypes.float8_e4m3fn).numpy()
    assert np.array_equal(f8.view(np.uint8), bits)


@pytest.mark.gpu
@requires_gpu
def test_async_copies_on_a_stream():
    from nvfp4rt.stream import Stream

    host = np.arange(1 << 20, dtype=np.float32)
    out = np.empty_like(host)
    with Stream(non_blocking=True) as s:
        a = A.empty(host.shape, np.float32, stream=s)
        a.copy_from_host_async(host, s)
        b = a.copy()
        b.copy_to_host_async(out, s)
        s.synchronize()
    assert np.array_equal(out, host)
    with pytest.raises(ValueError, match="shape"):
        a.copy_to_host_async(np.empty(3, np.float32))
    with pytest.raises(TypeError, match="dtype"):
        a.copy_from_host_async(host.astype(np.float64))


@pytest.mark.gpu
@requires_gpu
def test_asarray_paths():
    host = np.arange(6, dtype=np.float32)
    a = A.asarray(host)
    assert A.asarray(a) is a
    assert np.array_equal(A.asarray([1, 2, 3]).numpy(), np.array([1, 2, 3]))

    class CPUProducer:
        def __dlpack__(self, **kw):
            return host.__dlpack__(**kw)

        def __dlpack_device__(self):
            return host.__dlpack_device__()

    c = A.asarray(CPUProducer())
    assert c.owning and np.array_equal(c.numpy(), host)


@pytest.mark.gpu
@requires_gpu
def test_close_frees_and_views_become_unusable():
    a = A.zeros((16,), np.uint8)
    v = a.view(ml_dtypes.float8_e4m3fn)
    with a:
        pass
    assert a.closed and v.closed
    with pytest.raises(ValueError):
        v.ptr
    a.close()  # idempotent


@pytest.mark.gpu
@requires_gpu
def test_dlpack_self_round_trip_is_zero_copy():
    a = A.from_numpy(np.arange(10, dtype=np.int64))
    b = A.from_dlpack(a)
    assert b.ptr == a.ptr and not b.owning and np.array_equal(b.numpy(), a.numpy())


@pytest.mark.gpu
@requires_gpu
@pytest.mark.slow
def test_ten_thousand_alloc_free_cycles_do_not_leak():
    import nvfp4rt.driver as drv

    dev = drv.device()
    dev.synchronize()
    gc.collect()
    free_before, total = dev.mem_info()
    for i in range(10_000):
        a = A.empty((1 << 20,), np.uint8)
        if i % 2:
            a.close()  # half explicit, half by garbage collection
        del a
    gc.collect()
    dev.synchronize()
    free_after, _ = dev.mem_info()
    print(f"free device memory before {free_before} after {free_after} (total {total}), "
          f"difference {free_before - free_after} bytes")
    assert abs(free_before - free_after) <= 2 << 20
