"""Session 36, device run 7: a wider in-front decode.  The committed grouped decode launches 1024-ish CTAs of 256
threads (8 per SM), each thread one k32 piece: the GEMM's CTAs enter an SM only when its last decode CTA has left.
Variant "wide": decode_wide.ptx (the streamed decode of stream_decode.patch without its flags and fences) launched in
front of the GEMM as the committed decode is, one 1024-thread CTA per SM (grid = SMs), each warp running up to four
(row, k256 chunk) tasks with their loads issued together.  Same GEMM, same PDL launch, bits compared with the
committed plan's.  Competition grouped cases 1-4 on their default plans.  Whole call, L2 cleared, best of 3 medians
of 40, four interleaved rounds."""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver, reference  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.bench_grouped_gemm import GroupedGemmBench  # noqa: E402
from nvfp4rt.launch import Pointer  # noqa: E402
from nvfp4rt.memory import DeviceAllocation  # noqa: E402
from nvfp4rt.module import load  # noqa: E402
from nvfp4rt.ops import decode_a16 as D  # noqa: E402
from nvfp4rt.ops import grouped_gemm as GG  # noqa: E402

WIDE = Path(__file__).with_name("decode_wide.ptx")


class WideDecode(D.GroupedDecodeA16):
    """The committed decode's buffers and offsets; decode_wide.ptx's launch."""

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

    def table(self, a_ptrs, sfa_ptrs, a_rows, sfa_rows):
        t = super().table(a_ptrs, sfa_ptrs, a_rows, sfa_rows)
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


def best(f):
    return min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))


def main():
    print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    gb = GroupedGemmBench()
    runs = []
    for case in (1, 2, 3, 4):
        st = gb.make_inputs({"case": case}, np.random.default_rng())
        layouts = [GG._raw_groups([v])[0][3] for v in st.views]
        ref_bits = None
        cls = type(GG.plan_grouped_gemm(st.shapes, layouts=layouts))  # the op layer's choice; fresh plans below
        for name in ("committed", "wide"):
            p = cls(st.shapes, layouts)
            if name == "wide":
                p._decode = WideDecode(p._decode)
            outs = p(st.views)
            driver.call("cuCtxSynchronize")
            bits = [np.asarray(o.numpy()).view(np.uint16).copy() for o in outs]
            if ref_bits is None:
                ref_bits = bits
                refs = reference.grouped_gemm_ref(st.host.groups)
                ok = all(reference.check(o.numpy(), r).ok for o, r in zip(outs, refs))
                print(f"case {case} committed vs the float64 reference: {ok}", flush=True)
            same = all(np.array_equal(a, b) for a, b in zip(bits, ref_bits))
            print(f"case {case} {name:9s} {p!r} decode grid {p._decode.grid} bits equal: {same}", flush=True)
            runs.append((f"case {case} {name}", p, st))
    for rnd in range(4):
        for label, p, st in runs:
            print(f"round {rnd}: {label:16s} whole {best(lambda p=p, s=st: p(s.views)):.2f} us", flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
