"""Session 44: the grouped cluster kernel with unit loops in steps of 16 tokens up to N = 128 (where a unit costs about
the same at every N) and of 8 above it (where the tensor work sets a unit's cost): N = 32, 48, ..., 128, 136, 144, ...,
256, 23 loops.  The A16 producer keeps rounding rows to 16: the slices it loads start at multiples of 64 (32 for
clusters of 4), so rows rounded to 8 or to 16 select the same ones, and N <= 128 either way for the half ring.  The
host's schedule is left alone (its cost model still rounds to 16).  Writes .probe/hyb44.ptx; reports ptxas."""
import re
import subprocess
import sys

sys.path.insert(0, "tools")
sys.path.insert(0, ".")
import gen_grouped_gemm_cluster_ptx as G  # noqa: E402
from nvfp4rt.assemble import as_ptx_source  # noqa: E402

HYBRID = tuple(range(32, 129, 16)) + tuple(range(136, 257, 8))
G.token_variants = lambda step=16: HYBRID
G.TOKEN_VARIANTS = HYBRID
t = G.generate()
open(".probe/hyb44.ptx", "w").write(t)
src = as_ptx_source(t, "sm_90a", dict(CLUSTER=2, A_BUFS=4, A_UNIT=1, HEAD_CHECK=1, HEAD_WAIT=32768))
open("/tmp/hyb.ptx", "w").write(src.text)
r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", "/tmp/hyb.ptx", "-o", "/tmp/hyb.cubin"], capture_output=True, text=True)
print(re.findall(r"C75\d\d|error.*|\d+ bytes spill stores|Used \d+ registers", r.stderr), len(t.splitlines()),
      len(re.findall(r"^UNIT_LOOP_N\d+:", t, re.M)), "loops")
