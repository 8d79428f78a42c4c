"""Session 42 run 9: the driver-JIT'd grouped cluster kernel's SASS through the new `nvfp4rt cache` commands, and a
summary of it: per unit loop (the code between consecutive HGMMA-dense regions is not labelled in SASS, so the summary
is over the whole kernel and over the SASS between the first and last HGMMA of each m64nN shape), the HGMMA,
WARPGROUP.DEPBAR and WARPGROUP.ARRIVE counts and the highest register.  With the unit drain, ptxas should wait once
per piece (wait_group 1) plus once per unit (the drain), not after each HGMMA.
Usage: sass42.py SASS_FILE"""
import re
import sys
from collections import defaultdict

text = open(sys.argv[1]).read()
lines = [ln for ln in text.split("\n") if re.search(r"/\*[0-9a-f]{4,}\*/", ln)]
print(f"{len(lines)} SASS instructions")
regs = [int(r) for r in re.findall(r"\bR(\d+)\b", text)]
print(f"highest register R{max(regs)}")
for op in ("HGMMA", "WARPGROUP.DEPBAR", "WARPGROUP.ARRIVE", "BAR.SYNC", "SYNCS"):
    print(f"{op:18s} {sum(op in ln for ln in lines)}")
by_shape = defaultdict(list)
for i, ln in enumerate(lines):
    m = re.search(r"HGMMA\.64x(\d+)x16", ln)
    if m:
        by_shape[int(m.group(1))].append(i)
print("per wgmma shape: HGMMAs, DEPBARs and ARRIVEs between its first and last HGMMA, registers used there")
for n in sorted(by_shape):
    a, b = by_shape[n][0], by_shape[n][-1]
    seg = lines[a:b + 1]
    dep = sum("WARPGROUP.DEPBAR" in ln for ln in seg)
    arr = sum("WARPGROUP.ARRIVE" in ln for ln in seg)
    hi = max(int(r) for ln in seg for r in re.findall(r"\bR(\d+)\b", ln))
    print(f"  N={n:3d}: {len(by_shape[n]):3d} HGMMA, {dep:3d} DEPBAR, {arr:3d} ARRIVE, {b - a + 1:5d} instructions, "
          f"highest R{hi}")
