"""Session 40: the grouped cluster kernel's maps as a kernel parameter ('param', param_maps=True: no tensor-map proxy
fence) against the maps in device memory ('memory', param_maps=False, fenced), and 'param' with session 36's wider
decode in front ('param+wide': decode_wide.ptx, one 1024-thread CTA per SM; its session-36 gain on case 2 was
measured before the launch phases were spread).  Competition case 2 and an eight-group problem whose n differ (both
run the cluster kernel).  Same inputs; bits compared, the float64 reference checked; whole calls, L2 cleared, phases
spread, medians of 100, ROUNDS interleaved rounds.  Usage: ab40.py [ROUNDS]"""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import data, driver, reference  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: F401,E402
from nvfp4rt.launch import Pointer  # noqa: E402
from nvfp4rt.memory import DeviceAllocation  # noqa: E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import decode_a16 as D  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402

sys.path.insert(0, "tests")
from test_grouped_gemm import _device_groups  # noqa: E402

WIDE = Path(__file__).with_name("decode_wide.ptx")


class WideDecode(D.GroupedDecodeA16):
    """The committed decode's buffers and offsets; decode_wide.ptx's launch (all groups share k)."""

    def __init__(self, base: D.GroupedDecodeA16):
        self.__dict__.update(base.__dict__)
        self.row_starts, r = [], 0
        for m, _ in self.shapes:
            self.row_starts.append(r)
            r += m
        self.rows = r
        self.k = self.shapes[0][1]
        self.chunks = -(-self.k // 256)
        self.kernel = load(WIDE.read_text(), device=self.device, target="sm_90a").kernel("nvfp4_decode_a16_stream")
        self.kernel.set_shared_carveout(D.DECODE_CARVEOUT)
        self.scratch = DeviceAllocation(4 * self.chunks, self.device)
        self.grid = self.device.properties.sm_count
        self._launch = None

    def table(self, a_ptrs, sfa_ptrs, a_rows, sfa_rows, warm=()):
        t = super().table(a_ptrs, sfa_ptrs, a_rows, sfa_rows, warm)
        w = t.view(np.uint32)
        w[:len(self.shapes), 2] = self.row_starts
        w[len(self.shapes), 2] = self.rows
        return t

    def launch(self, table_ptr, out_ptr, stream_handle):
        if self._launch is None:
            self._launch = self.kernel.prepare(
                Pointer(table_ptr), Pointer(out_ptr), Pointer(self.scratch.ptr), len(self.shapes), self.rows,
                self.k // 32, self.chunks, grid=self.grid, block=1024, stream=stream_handle)
        self._launch.launch()


def problems(adapter):
    st = adapter.make_inputs({"case": 2}, np.random.default_rng())
    yield "case 2", st.shapes, [GG._raw_groups([v])[0][3] for v in st.views], st.views, st.host.groups
    shapes = [(m, 4096 + 128 * i, 2048) for i, m in enumerate((80, 176, 128, 72, 64, 248, 96, 160))]
    d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
    groups = [tuple(g) for g in _device_groups(d)]
    yield "mixed n", shapes, None, groups, d.groups


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    timer = DriverTimer(dev, None)
    adapter = get_op("grouped_gemm")(dev, timer.stream)
    runs = []
    for name, shapes, layouts, views, host in problems(adapter):
        refs = reference.grouped_gemm_ref(host)
        bits = None
        for label in ("memory", "param", "param+wide"):
            p = GC.GroupedGemmClusterPlan(shapes, layouts, param_maps=label != "memory")
            if label.endswith("wide"):
                p._decode = WideDecode(p._decode)
            outs = p(views)
            driver.call("cuCtxSynchronize")
            # the op's views are (m, n, l); the test groups' c are (l, m, n)
            ok = all(reference.check(o.numpy() if layouts else o.numpy().transpose(1, 2, 0), r).ok
                     for o, r in zip(outs, refs))
            got = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
            same = bits is None or all(np.array_equal(a, b) for a, b in zip(got, bits))
            bits = bits or got
            print(f"{name} {label:10s}: {p!r} reference ok {ok}, bits equal {same}", flush=True)
            runs.append((name, label, lambda p=p, v=views: p(v)))
    for rnd in range(rounds):
        for name, label, fn in runs:
            t = time_op(fn)
            print(f"round {rnd}: {name} {label:10s} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f}, p90 {t.p90_us:7.2f})",
                  flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
