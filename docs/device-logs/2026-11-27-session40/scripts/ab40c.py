"""Session 40: would the wide decode help a single-problem plan?  The dual GEMM's four competition shapes on the op
layer's own plan classes, each against the same plan whose DecodeA16Plan is swapped for the wide
grouped decode on a one-group table (WideSingle: same A16 bytes; l = 1).  Bits compared, the float64 reference
checked; whole calls, L2 cleared, phases spread, medians of 100, ROUNDS interleaved rounds.  Usage: ab40c.py [ROUNDS]"""
import sys
import time

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, get_op, time_op  # noqa: E402
from nvfp4rt.bench_dual_gemm import DualGemmBench  # noqa: F401,E402
from nvfp4rt.memory import DeviceAllocation  # noqa: E402
from nvfp4rt.ops import decode_a16 as D  # noqa: E402
from nvfp4rt.ops.dual_gemm import plan_dual_gemm_silu  # noqa: E402


class WideSingle:
    """DecodeA16Plan's launch_pointers / _launch, run by the wide grouped decode on a one-group table."""

    def __init__(self, plan: D.DecodeA16Plan):
        assert plan.l == 1
        self.p = plan
        self.dec = D.GroupedDecodeA16([(plan.m, plan.k)], wide=True)
        self.table = DeviceAllocation(D.table_bytes(1))
        self.key = None
        self._launch = None

    def launch_pointers(self, pa, psf, pout, handle):
        if (pa, psf) != self.key:
            t = self.dec.table([pa], [psf], [self.p.a_row], [self.p.sfa_row])
            driver.call("cuMemcpyHtoD", self.table.ptr, t.ctypes.data, t.nbytes)
            self.key = (pa, psf)
        self.dec.launch(self.table.ptr, pout, handle)
        self._launch = self.dec._launch


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    stream = DriverTimer(dev, None).stream
    runs = []
    for op in ("dual_gemm",):
        bench = get_op(op)(dev, stream)
        for shape in bench.presets["default"]:
            st = bench.make_inputs(shape, np.random.default_rng())
            bench.check(st)  # the op's own plan against the reference
            base = None
            for label in ("items", "wide"):
                m, n, k = shape["m"], shape["n"], shape["k"]
                p = type(plan_dual_gemm_silu(m, n, k))(m, n, k, 1)
                args = [st.views[x] for x in ("a", "b1", "b2", "sfa", "sfb1", "sfb2", "c")]
                if not hasattr(p, "_decode"):
                    print(f"{op} {shape}: {type(p).__name__} decodes no A: skipped", flush=True)
                    break
                if label == "wide":
                    p._decode = WideSingle(p._decode)
                p(*args)
                driver.call("cuCtxSynchronize")
                c = np.asarray(args[-1].numpy()).view(np.uint16).copy()
                same = base is None or np.array_equal(c, base)
                base = c if base is None else base
                print(f"{op} {shape} {label}: {type(p).__name__} bits equal {same}", flush=True)
                runs.append((f"{op} {shape}", label, lambda p=p, a=args: p(*a)))
    for rnd in range(rounds):
        for name, label, fn in runs:
            t = time_op(fn)
            print(f"round {rnd}: {name} {label:6s} whole {t.median_us:7.2f} (p10 {t.p10_us:7.2f})", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
