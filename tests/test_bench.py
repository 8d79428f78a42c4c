"""CPU tests of the benchmark harness: timing statistics, the timing loop's order of
operations (with a fake device timer), result documents, file naming and BENCHMARKS.md
rendering.  GPU tests at the end time real work and measure the ceilings."""
import json
import math

import numpy as np
import pytest

from nvfp4rt import bench
from nvfp4rt.bench import Timing

from conftest import requires_gpu


# ----------------------------------------------------------------------------- Timing math

def test_timing_median_and_percentiles_of_given_samples():
    t = Timing.from_samples([5.0, 1.0, 3.0, 2.0, 4.0])
    assert t.median_us == 3.0
    # numpy linear interpolation: p10 at rank 0.4 -> 1.4, p90 at rank 3.6 -> 4.6
    assert t.p10_us == pytest.approx(1.4)
    assert t.p90_us == pytest.approx(4.6)
    assert t.samples == (5.0, 1.0, 3.0, 2.0, 4.0)  # kept in call order
    assert t.n == 5


def test_timing_even_count_median_is_mean_of_middle_pair():
    t = Timing.from_samples(range(1, 101))  # 1..100
    assert t.median_us == 50.5
    assert t.p10_us == pytest.approx(10.9)
    assert t.p90_us == pytest.approx(90.1)


def test_timing_median_ignores_one_outlier():
    t = Timing.from_samples([10.0] * 99 + [10_000.0])
    assert t.median_us == 10.0
    assert t.p90_us == 10.0


@pytest.mark.parametrize("bad", [[], [1.0, float("nan")], [1.0, -2.0], [[1.0, 2.0]]])
def test_timing_rejects_bad_samples(bad):
    with pytest.raises(ValueError):
        Timing.from_samples(bad)


# ----------------------------------------------------------------------------- the timing loop

class FakeTimer(bench._TimerBase):
    """Records the order of operations; each fn() call 'takes' a known time."""

    def __init__(self, durations_ms):
        self.log = []
        self.clock = 0.0
        self.durations = list(durations_ms)
        self.released = 0

    def event(self):
        return {"t": None}

    def record(self, ev):
        ev["t"] = self.clock
        self.log.append("record")

    def elapsed_ms(self, a, b):
        return b["t"] - a["t"]

    def clear_l2(self):
        self.log.append("clear")

    def pad(self, launches):
        self.log.extend(["pad"] * launches)

    def synchronize(self):
        self.log.append("sync")

    def release(self, events):
        self.released += len(events)

    def fn(self):
        self.log.append("fn")
        self.clock += self.durations.pop(0)


def test_measure_clears_l2_before_every_timed_call_and_times_only_the_call():
    timer = FakeTimer([9.0, 9.0] + [0.001 * (i + 1) for i in range(5)])  # 2 warm-up, 5 timed
    t = bench.measure(timer.fn, timer, iters=5, warmup=2)
    assert timer.log[:5] == ["clear", "fn", "clear", "fn", "sync"]  # warm-up, then sync
    timed = timer.log[5:]
    assert timed[:4] == ["clear", "record", "fn", "record"]
    assert timed.count("clear") == 5 and timed.count("fn") == 5 and timed[-1] == "sync"
    assert t.samples == pytest.approx((1.0, 2.0, 3.0, 4.0, 5.0))  # ms -> us, warm-up excluded
    assert t.median_us == pytest.approx(3.0)
    assert timer.released == 10


def test_measure_pads_before_every_fourth_timed_call_outside_the_events():
    timer = FakeTimer([0.001] * 10)
    bench.measure(timer.fn, timer, iters=9, warmup=1)
    warm, timed = timer.log[:timer.log.index("sync")], timer.log[timer.log.index("sync") + 1:-1]
    segments, cur = [], []  # each: the ops from the previous call's end event to this call's fn()
    for op in timed:
        cur.append(op)
        if op == "fn":
            segments.append(cur)
            cur = []
    assert all(seg[-2:] == ["record", "fn"] for seg in segments)  # nothing between the start event and the call
    before = [[op for op in seg if op not in ("record", "fn")] for seg in segments]
    assert before == [["clear"]] * 4 + [["pad", "clear"]] + [["clear"]] * 3 + [["pad", "clear"]]
    assert "pad" not in warm


def test_a_timers_pad_queues_no_op_spins_on_its_own_stream(monkeypatch):
    calls = []
    monkeypatch.setattr(bench, "spin", lambda stream, device=None, ns=bench.SPIN_NS: calls.append((stream, ns)))

    class StreamTimer(bench._TimerBase):
        def _stream(self):
            return "the timed stream"

    StreamTimer().pad(3)
    assert calls == [("the timed stream", 0)] * 3


def test_measure_can_leave_the_phases_alone():
    timer = FakeTimer([0.001] * 10)
    bench.measure(timer.fn, timer, iters=9, warmup=1, spread_phases=False)
    assert "pad" not in timer.log


@pytest.mark.parametrize("period", [2, 3, 4])
@pytest.mark.parametrize("launches_per_call", range(9))
def test_phase_pads_put_every_launch_count_evenly_on_every_phase(period, launches_per_call):
    # call i starts at phase (pads queued before it, included) + i * launches_per_call, modulo the period
    pads = bench.phase_pads(2 * period * period, period)
    starts = np.cumsum(pads) + launches_per_call * np.arange(len(pads))
    for block in (starts[:period * period], starts[period * period:]):
        assert np.bincount(block % period, minlength=period).tolist() == [period] * period


def test_phase_pads_default_period_and_bad_arguments():
    assert bench.phase_pads(9) == [0, 0, 0, 0, 1, 0, 0, 0, 1]
    assert bench.PHASE_PERIOD == 4
    for bad in (dict(iters=0), dict(iters=2.0), dict(iters=4, period=0), dict(iters=4, period=True)):
        with pytest.raises(ValueError):
            bench.phase_pads(**bad)


def test_measure_without_l2_clear_never_clears():
    timer = FakeTimer([0.001] * 4)
    bench.measure(timer.fn, timer, iters=3, warmup=1, clear_l2=False)
    assert "clear" not in timer.log


@pytest.mark.parametrize("kw", [dict(iters=0), dict(iters=1.5), dict(warmup=-1), dict(iters=True)])
def test_measure_rejects_bad_counts(kw):
    timer = FakeTimer([0.001] * 10)
    with pytest.raises(ValueError):
        bench.measure(timer.fn, timer, **kw)


def test_time_back_to_back_synchronizes_around_the_calls():
    log = []
    us = bench.time_back_to_back(lambda: log.append("fn"), 50, synchronize=lambda: log.append("sync"), warmup=1)
    assert log[0] == "fn" and log[1] == "sync" and log[-1] == "sync"
    assert log.count("fn") == 51
    assert us >= 0.0
    with pytest.raises(ValueError):
        bench.time_back_to_back(lambda: None, 0, synchronize=lambda: None)


# ----------------------------------------------------------------------------- naming

def test_device_slug():
    assert bench.device_slug("NVIDIA H100 80GB HBM3") == "nvidia-h100-80gb-hbm3"
    assert bench.device_slug("  NVIDIA  H200 (141GB) ") == "nvidia-h200-141gb"
    assert bench.device_slug("///") == "unknown-device"


def test_result_filename_uses_op_slug_and_compact_utc_date():
    name = bench.result_filename("gemv", "NVIDIA H100 80GB HBM3", "2026-11-21T10:30:05Z")
    assert name == "gemv-nvidia-h100-80gb-hbm3-20261121T103005Z.json"
    with pytest.raises(ValueError):
        bench.result_filename("gemv", "x", "yesterday")
    with pytest.raises(ValueError):
        bench.result_filename("GEMV/../x", "x", "2026-11-21T10:30:05Z")


def test_utc_now_is_iso_with_z():
    s = bench.utc_now()
    assert len(s) == 20 and s[10] == "T" and s.endswith("Z")
    bench.result_filename("gemv", "d", s)  # accepted as a date


# ----------------------------------------------------------------------------- result documents

CEIL = {"read_tbps": 3.0, "fp16_tflops": 750.0, "fp16_source": "fake", "measured_at": "2026-11-21T00:00:00Z"}
DEVICE = {"name": "NVIDIA H100 80GB HBM3", "arch": "sm_90a", "sm_count": 132, "l2_bytes": 52428800,
          "driver_version": "13.0"}


def _fake_result(date="2026-11-21T10:00:00Z", median=30.0, device=DEVICE, op="gemv", flops=0):
    t = Timing.from_samples([median - 1, median, median + 1] * 40)
    rec = bench.shape_result({"m": 7168, "k": 16384, "l": 1}, t, nbytes=66_000_000, flops=flops, ceilings=CEIL,
                             api_us_per_call=33.0, peers={"cublas_fp16_bmm": 90.0, "torch_naive": None})
    return bench.build_result(op, device=device, ceilings=CEIL, shapes=[rec], iters=120, warmup=10,
                              l2_clear_bytes=104857600, date=date, git={"revision": "a" * 40, "dirty": True},
                              cuda_bindings_version="13.5.0")


def test_result_records_the_compiler_and_the_table_names_it(monkeypatch, tmp_path):
    monkeypatch.setenv("NVFP4RT_COMPILER", "driver")
    res = _fake_result()
    assert res["compiler"] == "driver"
    bench.write_result(res, results_dir=tmp_path)
    old = dict(_fake_result(date="2026-11-20T10:00:00Z", device={**DEVICE, "name": "NVIDIA H200"}))
    del old["compiler"]  # documents written before the field render as they did
    bench.write_result(old, results_dir=tmp_path)
    text = bench.render_markdown(tmp_path)
    h100 = next(ln for ln in text.splitlines() if ln.startswith("- NVIDIA H100"))
    h200 = next(ln for ln in text.splitlines() if ln.startswith("- NVIDIA H200"))
    assert "cuda-bindings 13.5.0, kernels built by driver; read ceiling" in h100
    assert "kernels built by" not in h200


def test_shape_result_derived_figures():
    rec = _fake_result()["shapes"][0]
    assert rec["median_us"] == 30.0
    assert rec["gbps"] == pytest.approx(66e6 / 30e-6 / 1e9)  # 2200 GB/s
    assert rec["pct_of_bw"] == pytest.approx(2200 / 3000 * 100)
    assert rec["speedup"]["cublas_fp16_bmm"] == pytest.approx(3.0)
    assert rec["speedup"]["torch_naive"] is None and rec["peers"]["torch_naive"] is None
    assert rec["api_us_per_call"] == 33.0
    assert "tflops" not in rec  # memory-bound op: no flops figures


def test_shape_result_flops_figures_for_gemm_like_ops():
    rec = _fake_result(flops=2 * 128 * 7168 * 16384)["shapes"][0]
    assert rec["tflops"] == pytest.approx(2 * 128 * 7168 * 16384 / 30e-6 / 1e12)
    assert rec["pct_of_tensor_ceiling"] == pytest.approx(rec["tflops"] / 750 * 100)


def test_result_document_schema_roundtrips_through_json(tmp_path):
    res = _fake_result()
    for key in ("schema", "op", "device", "driver_version", "cuda_bindings_version", "date", "git", "ceilings",
                "method", "shapes"):
        assert key in res, key
    assert res["git"] == {"revision": "a" * 40, "dirty": True}
    assert res["method"]["l2_clear_bytes"] == 104857600 and res["method"]["iters"] == 120
    assert res["method"]["launch_phase_period"] == bench.PHASE_PERIOD  # the timed calls' phases were spread
    path = bench.write_result(res, results_dir=tmp_path)
    assert path.name == "gemv-nvidia-h100-80gb-hbm3-20261121T100000Z.json"
    back = json.loads(path.read_text())
    assert back == res
    assert not list(tmp_path.glob(".*.tmp"))  # temp file renamed away


def test_write_result_rejects_incomplete_documents(tmp_path):
    res = _fake_result()
    del res["shapes"][0]["p90_us"]
    with pytest.raises(ValueError, match="p90_us"):
        bench.write_result(res, results_dir=tmp_path)
    assert not list(tmp_path.iterdir())


def test_git_revision_of_this_checkout(monkeypatch):
    """Read from git (the device scripts pin NVFP4RT_GIT_REVISION to a short hash: not this test's subject)."""
    monkeypatch.delenv("NVFP4RT_GIT_REVISION", raising=False)
    g = bench.git_revision()
    assert set(g) == {"revision", "dirty"}
    if g["revision"] is not None:
        assert len(g["revision"]) == 40 and isinstance(g["dirty"], bool)


# ----------------------------------------------------------------------------- markdown

def test_render_markdown_newest_result_per_device(tmp_path):
    bench.write_result(_fake_result(date="2026-11-20T10:00:00Z", median=50.0), results_dir=tmp_path)
    bench.write_result(_fake_result(date="2026-11-21T10:00:00Z", median=30.0), results_dir=tmp_path)
    h200 = dict(DEVICE, name="NVIDIA H200")
    bench.write_result(_fake_result(date="2026-11-19T10:00:00Z", median=20.0, device=h200), results_dir=tmp_path)
    md = bench.render_markdown(tmp_path)
    assert "generated by `nvfp4rt bench`" in md and "never hand-edited" in md
    assert md.count("\n## gemv\n") == 1
    rows = [ln for ln in md.splitlines() if ln.startswith("| NVIDIA")]
    assert len(rows) == 2  # one per device: the older H100 run is not shown
    h100 = next(r for r in rows if "H100" in r)
    cells = [c.strip() for c in h100.strip("|").split("|")]
    assert cells[1] == "m=7168 k=16384 l=1"
    assert cells[2] == "30.0"          # the newest H100 median, not 50.0
    assert cells[3] == "29.0–31.0"
    assert cells[5] == "2.20"          # TB/s
    assert cells[6] == "73"            # % of the 3.0 TB/s read ceiling
    assert cells[8] == "90.0 (3.00×)"  # peer median and our speedup
    assert cells[9] == "–"             # a peer that failed
    header = next(ln for ln in md.splitlines() if ln.startswith("| device"))
    assert "cublas_fp16_bmm µs (speedup)" in header and "torch_naive µs (speedup)" in header
    assert "20261121T100000Z" in md and "20261120T100000Z" not in md


def test_render_markdown_separate_tables_per_op_and_flops_columns(tmp_path):
    bench.write_result(_fake_result(), results_dir=tmp_path)
    bench.write_result(_fake_result(op="gemm", flops=2 * 128 * 7168 * 16384), results_dir=tmp_path)
    md = bench.render_markdown(tmp_path)
    assert md.index("## gemm") < md.index("## gemv")
    gemm_table = md[md.index("## gemm"):md.index("## gemv")]
    gemv_table = md[md.index("## gemv"):]
    assert "TFLOP/s" in gemm_table.splitlines()[2]
    assert "TFLOP/s" not in gemv_table.splitlines()[2]


def test_render_markdown_skips_broken_files_and_handles_empty_dir(tmp_path):
    assert "No results yet" in bench.render_markdown(tmp_path / "missing")
    (tmp_path / "junk.json").write_text("{not json")
    bench.write_result(_fake_result(), results_dir=tmp_path)
    with pytest.warns(UserWarning, match="junk.json"):
        md = bench.render_markdown(tmp_path)
    assert sum(ln.startswith("| NVIDIA") for ln in md.splitlines()) == 1


def test_write_markdown_writes_the_file(tmp_path):
    bench.write_result(_fake_result(), results_dir=tmp_path / "r")
    out = bench.write_markdown(tmp_path / "r", tmp_path / "BENCHMARKS.md")
    assert out.read_text() == bench.render_markdown(tmp_path / "r")


# ----------------------------------------------------------------------------- op registry and shapes

def test_gemv_adapter_is_registered_with_competition_shapes():
    cls = bench.get_op("gemv")
    shapes = cls(None, None).parse_shapes(None)
    assert shapes == [{"m": 7168, "k": 16384, "l": 1}, {"m": 4096, "k": 7168, "l": 8}, {"m": 7168, "k": 2048, "l": 4}]


def test_gemv_adapter_parses_explicit_shapes_and_rejects_bad_ones():
    a = bench.get_op("gemv")(None, None)
    assert a.parse_shapes(["128,256,2", "default"])[0] == {"m": 128, "k": 256, "l": 2}
    for bad in ["128,256", "128,x,2", "128,250,2", "0,256,1"]:
        with pytest.raises(ValueError):
            a.parse_shapes([bad])


def test_gemv_bytes_count_every_operand_once():
    a = bench.get_op("gemv")(None, None)
    m, k, l = 7168, 16384, 1
    assert a.bytes({"m": m, "k": k, "l": l}) == l * (m * k // 2 + m * k // 16 + k // 2 + k // 16 + 2 * m)
    assert a.bytes({"m": 7168, "k": 16384, "l": 1}) / 1e6 == pytest.approx(66.1, abs=0.05)  # FACTS §4
    assert a.flops({"m": m, "k": k, "l": l}) == 2 * m * k * l


def test_unknown_op_names_the_known_ones():
    with pytest.raises(ValueError, match="gemv"):
        bench.get_op("nope")


def test_gemv_host_dequant_matches_table():
    from nvfp4rt.bench import _dequant_fp4_host

    packed = np.array([[[0x10, 0xF9]]], dtype=np.uint8)  # codes 0,1,9,15 -> 0, 0.5, -0.5, -6
    scales = np.array([[[0x38]]], dtype=np.uint8)  # e4m3 0x38 = 1.0
    packed = np.concatenate([packed, np.zeros((1, 1, 6), np.uint8)], axis=2)  # k = 16
    out = _dequant_fp4_host(packed, scales)
    assert out.shape == (1, 1, 16)
    assert out[0, 0, :4].tolist() == [0.0, 0.5, -0.5, -6.0]
    scales2 = np.array([[[0x40]]], dtype=np.uint8)  # 2.0
    assert _dequant_fp4_host(packed, scales2)[0, 0, 3] == -12.0


def _gemv_state(host_out):
    """A GemvBench state whose 'device' output returns ``host_out`` (CPU stand-in for the GPU)."""
    m, k, l = 64, 64, 2
    host = {"a": np.full((l, m, k // 2), 0x22, np.uint8),     # every value 1.0
            "b": np.full((l, 1, k // 2), 0x22, np.uint8),
            "sfa": np.full((l, m, k // 16), 0x38, np.uint8),  # scale 1.0
            "sfb": np.full((l, 1, k // 16), 0x40, np.uint8)}  # scale 2.0

    class FakeC:
        ptr = 0
        nbytes = 2 * l * m  # fp16 [l, m, 1]

        def numpy(self):
            return host_out(l, m)

    import ml_dtypes
    from types import SimpleNamespace

    logical = {n: v.transpose(1, 2, 0) for n, v in host.items()}
    for n in ("sfa", "sfb"):
        logical[n] = logical[n].view(ml_dtypes.float8_e4m3fn)
    return bench._GemvState({"m": m, "k": k, "l": l}, host, {"c": FakeC()}, {}, None, data=SimpleNamespace(**logical))


def test_gemv_bench_inputs_come_from_the_competition_generator(monkeypatch):
    """make_inputs draws nvfp4rt.data.gemv_data (b with its 128 rows, GEMV's narrow byte range)."""
    import nvfp4rt.array as arr_mod

    monkeypatch.setattr(arr_mod, "asarray", lambda x: x)
    monkeypatch.setattr(arr_mod, "empty", lambda shape, dtype, device=None: np.empty(shape, dtype))
    monkeypatch.setattr(bench, "_competition_view", lambda x: x.transpose(1, 2, 0))
    st = bench.GemvBench(None, None).make_inputs({"m": 8, "k": 64, "l": 2}, np.random.default_rng(1))
    assert st.host["a"].shape == (2, 8, 32) and st.host["b"].shape == (2, 128, 32)
    assert st.host["a"].max() <= 3  # competition GEMV bytes: randint(0, 4)
    assert st.views["a"].shape == (8, 32, 2) and st.data.m == 8


def test_gemv_check_poisons_output_and_rejects_nan_and_wrong_values(monkeypatch):
    from nvfp4rt import driver

    calls = []
    monkeypatch.setattr(driver, "call", lambda name, *a: calls.append((name, a)))
    a = bench.GemvBench(None, None)
    monkeypatch.setattr(a, "run", lambda state: None)
    a.check(_gemv_state(lambda l, m: np.full((l, m, 1), 128.0, np.float16)))  # right answer passes
    assert calls[0] == ("cuMemsetD8", (0, 0xFF, 2 * 2 * 64))  # poisoned before the run
    with pytest.raises(bench.BenchCheckError, match="128 of 128"):
        a.check(_gemv_state(lambda l, m: np.full((l, m, 1), np.nan, np.float16)))  # unwritten (NaN) output
    wrong = lambda l, m: np.where(np.arange(l * m).reshape(l, m, 1) == 5, 128.5, 128.0).astype(np.float16)
    with pytest.raises(bench.BenchCheckError, match=r"1 of 128.*\(5, 0, 0\)"):
        a.check(_gemv_state(wrong))  # 0.5 off at 128: beyond 1e-3 + 1e-3*128


# ----------------------------------------------------------------------------- GPU

@pytest.mark.gpu
@requires_gpu
def test_time_op_measures_a_memset_of_known_size():
    """A 256 MiB memset must time between 10 us and 10 ms, and be stable-ish (p90 < 3x median)."""
    from nvfp4rt import driver

    timer = bench.DriverTimer()
    n = 256 << 20
    ptr = driver.call("cuMemAlloc", n)
    try:
        t = bench.time_op(lambda: driver.call("cuMemsetD8Async", ptr, 1, n, timer._h), stream=timer.stream,
                          iters=100, warmup=5)
    finally:
        driver.call("cuMemFree", ptr)
    assert 10 < t.median_us < 10_000
    assert t.p10_us <= t.median_us <= t.p90_us < 3 * t.median_us
    assert len(t.samples) == 100


@pytest.mark.gpu
@requires_gpu
def test_read_bandwidth_ceiling_is_plausible():
    """bw_read over 1 GiB: between 0.3 and 20 TB/s (H100 measured 3.09 TB/s, FACTS §4)."""
    from nvfp4rt.ceilings import measure_read_bandwidth

    tbps = measure_read_bandwidth()
    assert 0.3 < tbps < 20


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("evict_first", [0, 1])
def test_bw_read_sums_the_buffer(evict_first):
    """The kernel's atomic total equals the wrapping u32 sum of the buffer (so every load happened), with and
    without the evict-first L2 policy."""
    from nvfp4rt import driver
    from nvfp4rt.module import load
    from nvfp4rt.ptxsource import ptx_dir

    dev = driver.device()
    k = load(ptx_dir() / "bw_read.ptx", device=dev, constants={"EVICT_FIRST": evict_first}).kernel("bw_read")
    n_words = (1 << 20) + 4 * 7  # not a multiple of the grid stride: exercises the tail loop
    host = np.random.default_rng(1).integers(0, 2**32, n_words, dtype=np.uint32)
    src = driver.call("cuMemAlloc", host.nbytes)
    out = driver.call("cuMemAlloc", 4)
    try:
        driver.call("cuMemcpyHtoD", src, host, host.nbytes)
        driver.call("cuMemsetD32", out, 0, 1)
        k(int(src), host.nbytes // 16, int(out), grid=(3, 1, 1), block=(128, 1, 1), shared_mem=0, stream=None)
        got = np.zeros(1, np.uint32)
        driver.call("cuMemcpyDtoH", got, out, 4)
    finally:
        driver.call("cuMemFree", src)
        driver.call("cuMemFree", out)
    assert int(got[0]) == int(host.sum(dtype=np.uint64) % 2**32)


@pytest.mark.gpu
@requires_gpu
def test_run_bench_gemv_small_shape_end_to_end(tmp_path):
    """A small GEMV through the whole harness: check passes, numbers positive, JSON written and rendered."""
    res = bench.run_bench("gemv", ["256,1024,2"], iters=20, warmup=2, with_peers=True, reuse_ceilings=True,
                          seed=0, log=lambda m: None)
    rec = res["shapes"][0]
    assert rec["check"] == "ok"
    assert rec["median_us"] > 0 and rec["p10_us"] <= rec["median_us"] <= rec["p90_us"]
    assert rec["api_us_per_call"] > 0
    assert res["ceilings"]["read_tbps"] > 0
    path = bench.write_result(res, results_dir=tmp_path)
    assert "| " + res["device"]["name"] in bench.render_markdown(tmp_path)
    assert math.isfinite(json.loads(path.read_text())["shapes"][0]["gbps"])


@pytest.mark.parametrize("op, kw, key, columns", [
    # a memory-bound op: a plain read of its bytes; 130%: faster than reading them
    ("gemv", dict(read_floor_us=39.0), "read_floor", ("same-size read µs", "39.0", "% of same-size read", "130")),
    # a compute-bound op: its flops through the fp16 tensor pipe (ptx/tensor_floor.ptx); a lower bound
    ("gemm", dict(tensor_floor_us=9.0, flops=2 * 128 * 7168 * 2048), "tensor_floor",
     ("tensor floor µs", "9.0", "% of tensor floor", "30")),
    # ... and the same with its input bytes streamed beside the products
    ("gemm", dict(op_floor_us=9.6, flops=2 * 128 * 7168 * 2048), "op_floor", ("op floor µs", "9.6", "% of op floor", "32")),
])
def test_same_size_floor_figures_and_markdown_columns(tmp_path, op, kw, key, columns):
    """A shape carries the same-run time of its floor; % is floor / ours, and BENCHMARKS.md shows both."""
    t = bench.Timing.from_samples([30.0, 29.0, 31.0])
    rec = bench.shape_result({"m": 7168, "k": 16384, "l": 1}, t, nbytes=66_000_000, ceilings=CEIL,
                             api_us_per_call=33.0, peers={}, **kw)
    assert rec[f"{key}_us"] == kw[f"{key}_us"]
    assert rec[f"pct_of_{key}"] == pytest.approx(100.0 * kw[f"{key}_us"] / 30.0)
    doc = bench.build_result(op, device=DEVICE, ceilings=CEIL, shapes=[rec], iters=100, warmup=10,
                             l2_clear_bytes=1, date="2026-11-21T10:00:00Z", git={"revision": "b" * 40, "dirty": False},
                             cuda_bindings_version="13.3.1")
    bench.write_result(doc, results_dir=tmp_path)
    md = bench.render_markdown(tmp_path)
    header = next(ln for ln in md.splitlines() if ln.startswith("| device"))
    row = next(ln for ln in md.splitlines() if ln.startswith("| NVIDIA"))
    cells = dict(zip([c.strip() for c in header.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")]))
    assert cells[columns[0]] == columns[1] and cells[columns[2]] == columns[3]
    # results written before the column existed still render (no floor: no column)
    assert f"{key}_us" not in bench.shape_result({"m": 1}, t, nbytes=1, ceilings=CEIL)


def test_l2_clear_is_followed_by_a_spin_so_host_time_is_never_timed(monkeypatch):
    """The clear queues the memset, then bench_spin on the same stream (the GPU stays busy while the host
    records the start event and runs the call)."""
    from nvfp4rt import driver

    order = []
    monkeypatch.setattr(driver, "call", lambda name, *a: order.append(name))
    monkeypatch.setattr(bench, "spin", lambda stream, device=None, ns=bench.SPIN_NS: order.append(("spin", stream, ns)))
    t = object.__new__(bench.DriverTimer)
    t._h, t.device, t._scratch_ptr, t.l2_clear_bytes, t._fill = "stream-7", None, 0x1000, 1 << 20, 0
    t.clear_l2()
    assert order == ["cuMemsetD8Async", ("spin", "stream-7", bench.SPIN_NS)]
    assert bench.SPIN_NS >= 250_000  # above the slowest API path's host time we time (~0.25 ms)


def test_git_revision_can_be_given_by_the_environment(monkeypatch):
    monkeypatch.setenv("NVFP4RT_GIT_REVISION", "c" * 40)
    assert bench.git_revision() == {"revision": "c" * 40, "dirty": False}
    monkeypatch.setenv("NVFP4RT_GIT_REVISION", "d" * 40 + "+dirty")
    assert bench.git_revision() == {"revision": "d" * 40, "dirty": True}
