"""Session 47: timing-only cuts of the grouped cluster kernel's TMA epilogue (results wrong, never checked), written
next to the committed template so ab46.py can build them (its +kPATH variant).
  p0: the template unchanged (the control for the +kPATH path)
  p1: no wait for a free box and no barrier before each quarter's staging
  p2: p1, and no barrier between the staging's proxy fence and the store
  w2, w3: the unit loops of N <= 128 wait for at most 2 / 3 pending wgmma groups (wgmma.wait_group 2 / 3) instead
      of 1 before each piece's B fragments (the fragment sets rotate over 4 pieces, so their registers stay safe; the
      a16 buffers are still released a sub-step after their reads, which 2 or 3 pending groups may still be making:
      timing only)
  w3all: w3 in every unit loop
Usage (from the repository root): cuts47.py OUTDIR"""
import re
import sys
from pathlib import Path

src = Path("ptx/grouped_gemm_nvfp4_wgmma_cluster.ptx").read_text().splitlines(keepends=True)
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
WAIT = "@%p_iss cp.async.bulk.wait_group.read 1;"
FENCE = "fence.proxy.async.shared::cta;            // this thread's stmatrix stores"


def cut(pre: bool, post: bool) -> str:
    lines, i, n_pre, n_post = [], 0, 0, 0
    while i < len(src):
        s = src[i].strip()
        if pre and s.startswith(WAIT) and src[i + 1].strip().startswith("bar.sync %wbar, 128;"):
            i += 2
            n_pre += 1
            continue
        if post and s.startswith(FENCE) and src[i + 1].strip().startswith("bar.sync %wbar, 128;"):
            lines.append(src[i])
            i += 2
            n_post += 1
            continue
        lines.append(src[i])
        i += 1
    print(f"pre cuts {n_pre}, post cuts {n_post}")
    return "".join(lines)


for name, pre, post in (("p0", False, False), ("p1", True, False), ("p2", True, True)):
    (out / f"{name}.ptx").write_text(cut(pre, post))

WAIT1 = "    wgmma.wait_group.sync.aligned 1;  // <= WG_WAIT groups pending"


def deeper(depth: int, max_n: int) -> str:
    lines, n, cuts = [], None, 0
    for line in src:
        m = re.match(r"UNIT_LOOP_N(\d+):", line)
        if m:
            n = int(m[1])
        if line.startswith(WAIT1) and n is not None and n <= max_n:
            line = line.replace("aligned 1;", f"aligned {depth};", 1)
            cuts += 1
        lines.append(line)
    print(f"wait_group {depth} in loops N <= {max_n}: {cuts} waits")
    return "".join(lines)


for name, depth, max_n in (("w2", 2, 128), ("w3", 3, 128), ("w3all", 3, 256)):
    (out / f"{name}.ptx").write_text(deeper(depth, max_n))
