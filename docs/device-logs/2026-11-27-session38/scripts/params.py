"""Session 38: does a launch's parameter block cost device time?  Two empty kernels, 8 bytes of parameters against
392 (three 128-byte blobs, as the m-tile GEMM's unused by-value tensor maps), timed as two launches per call with the
harness's phases spread (medians of 100, L2 cleared), four interleaved rounds.  Also the m-tile plan's GEMM launch
alone (it carries the three maps) for scale."""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import DriverTimer, measure  # noqa: E402
from nvfp4rt.launch import Pointer  # noqa: E402
from nvfp4rt.module import load  # noqa: E402

HERE = Path(__file__).resolve().parent


def main():
    dev = driver.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    timer = DriverTimer(dev, None)
    h = timer._h
    mod = load(HERE / "params.ptx", device=dev)
    blob = np.zeros(128, np.uint8)
    small = mod.kernel("small").prepare(Pointer(0), grid=(1, 1, 1), block=(32, 1, 1), shared_mem=0, stream=h)
    big = mod.kernel("big").prepare(blob, blob, blob, Pointer(0), grid=(1, 1, 1), block=(32, 1, 1), shared_mem=0,
                                    stream=h)
    big128 = mod.kernel("big").prepare(blob, blob, blob, Pointer(0), grid=(128, 1, 1), block=(384, 1, 1),
                                       shared_mem=0, stream=h)
    small128 = mod.kernel("small").prepare(Pointer(0), grid=(128, 1, 1), block=(384, 1, 1), shared_mem=0, stream=h)
    kinds = {
        "small+small": lambda: (small.launch(), small.launch()),
        "big+big": lambda: (big.launch(), big.launch()),
        "small+small, 128 CTAs of 384": lambda: (small128.launch(), small128.launch()),
        "big+big, 128 CTAs of 384": lambda: (big128.launch(), big128.launch()),
    }
    for rnd in range(4):
        for name, fn in kinds.items():
            t = measure(fn, timer)
            print(f"round {rnd}: {name:32s} median {t.median_us:6.2f} p10 {t.p10_us:6.2f} p90 {t.p90_us:6.2f}",
                  flush=True)
    print("done", time.strftime("%H:%M:%S"))


if __name__ == "__main__":
    main()
