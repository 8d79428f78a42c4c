"""Streams and events: argument checks on CPU; creation, ordering and timing on a GPU."""
import time

import numpy as np
import pytest

from nvfp4rt import stream as S
from nvfp4rt.stream import Event, Stream, as_stream, default_stream, elapsed_ms

from conftest import requires_gpu


# ----------------------------------------------------------------------------- CPU: argument checks

def test_as_stream_refuses_unknown_objects():
    with pytest.raises(TypeError, match="stream must be None, an nvfp4rt Stream"):
        as_stream("stream 7")
    with pytest.raises(TypeError, match="stream must be"):
        as_stream(1.5)


def test_as_stream_checks_the_cuda_stream_protocol_value():
    class Bad:
        def __cuda_stream__(self):
            return "not a tuple"

    with pytest.raises(TypeError, match=r"__cuda_stream__ must give \(version, handle\)"):
        as_stream(Bad())


def test_stream_constructor_argument_checks():
    with pytest.raises(TypeError, match="non_blocking must be a bool"):
        Stream(non_blocking="yes")
    with pytest.raises(TypeError, match="priority must be an int"):
        Stream(priority=0.5)
    with pytest.raises(TypeError, match="handle must be a CUstream or an int"):
        Stream.from_handle("0x1")
    with pytest.raises(ValueError, match=">= 0"):
        Stream.from_handle(-1)


def test_event_argument_checks():
    with pytest.raises(TypeError, match="timing must be a bool"):
        Event(timing=1)
    with pytest.raises(TypeError, match="start must be an nvfp4rt Event"):
        elapsed_ms(0.0, 1.0)


def test_resolve_device_refuses_non_devices():
    with pytest.raises(TypeError, match="device must be None, an int ordinal"):
        S.resolve_device("cuda:0")
    with pytest.raises(TypeError):
        S.resolve_device(True)


# ----------------------------------------------------------------------------- GPU

@pytest.mark.gpu
@requires_gpu
def test_default_stream_is_the_legacy_stream_once_per_device():
    s = default_stream()
    assert int(s) == 0 and s.is_legacy_default and not s.owning
    assert default_stream() is s and as_stream(None) is s
    s.synchronize()
    assert s.query()


@pytest.mark.gpu
@requires_gpu
def test_created_stream_owns_its_handle_and_closes_once():
    s = Stream(non_blocking=True, priority=0)
    assert s.owning and int(s) != 0
    s.synchronize()
    assert s.query()
    s.close()
    assert s.closed
    s.close()  # no double destroy


@pytest.mark.gpu
@requires_gpu
def test_as_stream_accepts_handles_protocol_objects_and_torch_like_streams():
    with Stream() as owned:
        h = int(owned)
        assert as_stream(owned) is owned
        assert int(as_stream(h)) == h and not as_stream(h).owning
        assert int(as_stream(owned.handle)) == h

        class Proto:
            def __cuda_stream__(self):
                return (0, h)

        class TorchLike:
            cuda_stream = h

        assert int(as_stream(Proto())) == h
        assert int(as_stream(TorchLike())) == h
        as_stream(h).close()  # closing a borrowed wrapper must not destroy the stream
        owned.synchronize()


@pytest.mark.gpu
@requires_gpu
def test_as_stream_takes_a_real_torch_stream():
    torch = pytest.importorskip("torch")
    ts = torch.cuda.Stream()
    assert int(as_stream(ts)) == ts.cuda_stream


@pytest.mark.gpu
@requires_gpu
def test_event_timing_is_positive_and_below_host_wall_time():
    from nvfp4rt.array import empty

    buf = empty((1 << 30,), np.uint8)
    with Stream() as s:
        start, end = Event(), Event()
        t0 = time.perf_counter()
        start.record(s)
        for v in range(8):
            buf.fill(v, stream=s)  # 8 GiB of memset
        end.record(s)
        end.synchronize()
        wall_ms = (time.perf_counter() - t0) * 1e3
        ms = end - start
        print(f"8 x 1 GiB memset: {ms:.3f} ms on the device, {wall_ms:.3f} ms on the host")
        assert ms == elapsed_ms(start, end)
        assert 0.0 < ms <= wall_ms + 1.0
        assert end.query()
    with pytest.raises(ValueError, match="timing=False"):
        elapsed_ms(start, Event(timing=False))


@pytest.mark.gpu
@requires_gpu
def test_wait_orders_work_across_non_blocking_streams():
    from nvfp4rt.array import empty

    n = 1 << 28
    with Stream(non_blocking=True) as producer, Stream(non_blocking=True) as consumer:
        a = empty((n,), np.uint8, stream=producer)
        for v in range(1, 6):
            a.fill(v, stream=producer)  # long chain; the last value written is 5
        consumer.wait(producer.record())
        out = a.copy(stream=consumer)
        host = out.numpy(stream=consumer)
        assert host[0] == 5 and host[-1] == 5 and host.min() == 5
