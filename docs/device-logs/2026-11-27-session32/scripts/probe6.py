"""Session 32, device run 9: what the decode launch adds to the dual GEMM's whole call (session 31's call_parts.py for
the GEMM and grouped plans; session 30 saw grouped case 1 in clusters of 1 lose 22 us to it).  For the four competition
dual shapes (their default plans): the whole call, the GEMM launch alone (A16 left by the last call) and the decode
launch alone; best of 3 medians of 40, L2 cleared, two interleaved rounds."""
import sys
import time

sys.path.insert(0, "tools")
sys.path.insert(0, "docs/device-logs/2026-11-22-session27/scripts")
from hang_watchdog import Watchdog  # noqa: E402
from nvfp4rt import driver  # noqa: E402
from nvfp4rt.bench import time_op  # noqa: E402
from nvfp4rt.ops import dual_gemm  # noqa: E402
import exp1h as H  # noqa: E402

wd = Watchdog(200)
print(driver.device().properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)


def best(f):
    wd.arm("timing")
    r = min(time_op(f, iters=40, warmup=5).median_us for _ in range(3))
    wd.disarm()
    return r


cases = []
for m, n, k in [(256, 4096, 7168), (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168)]:
    d, args, c = H.dual_args(m, n, k, 1, "competition")
    p = dual_gemm.plan_dual_gemm_silu(m, n, k)
    wd.arm("first"); p(*args); driver.call("cuCtxSynchronize"); wd.disarm()
    cases.append((f"{m}x{n}x{k} {p!r}", (d, args, c), lambda p=p, a=args: p(*a), p._launch.launch,
                  p._decode._launch.launch))
for rnd in range(2):
    for name, _keep, whole, gemm, dec in cases:
        tw, tg, td = best(whole), best(gemm), best(dec)
        print(f"round {rnd}: {name}\n   whole {tw:.2f}  gemm alone {tg:.2f}  decode alone {td:.2f}  "
              f"whole - gemm alone {tw - tg:.2f} us", flush=True)
print("done", time.strftime("%H:%M:%S"), flush=True)
