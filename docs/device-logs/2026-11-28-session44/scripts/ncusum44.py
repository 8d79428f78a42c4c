"""Session 44: summarise Nsight Compute's source page (warp stall sampling per SASS instruction, run 2) of the grouped
cluster kernel: for 8 x 40 rows (the N = 48 unit loop) and 8 x 196 rows (N = 208), the samples inside that loop by
kind (the a16 / B barrier spins, wgmma.wait_group / the unit drain, wgmma issue, everything else) and its
instructions with the most samples.  The kernel's other warps (idle producer lanes at the exit's cluster barrier)
count in the kernel's total but not in the loop's.
Usage: ncusum44.py DIR (holding src-8x40.csv and src-8x196.csv: `ncu -i REP --page source --csv --print-source sass`)"""
import csv
import sys
from collections import Counter
from pathlib import Path


def main(folder):
    for prob, shape in (("8x40", "64x48x16"), ("8x196", "64x208x16")):
        rows = list(csv.reader(open(Path(folder) / f"src-{prob}.csv")))
        hdr, data = rows[1], rows[2:]
        ix = {h: i for i, h in enumerate(hdr)}
        samples = lambda r: int(r[ix["Warp Stall Sampling (All Samples)"]] or 0)  # noqa: E731
        src = lambda i: data[i][ix["Source"]]  # noqa: E731
        hg = [i for i in range(len(data)) if f"HGMMA.{shape}" in src(i)]
        lo, hi = hg[0] - 60, hg[-1] + 12
        kinds = Counter()
        for i in range(lo, hi):
            s, ins, prev = samples(data[i]), src(i), src(i - 1)
            if "TRYWAIT" in ins or ("BRA" in ins and "TRYWAIT" in prev):
                kinds["barrier spins (a16 and B full)"] += s
            elif "DEPBAR.LE gsb0, 0x0" in ins:
                kinds["unit drain (wait_group 0)"] += s
            elif "DEPBAR" in ins:
                kinds["wgmma.wait_group 1"] += s
            elif "HGMMA" in ins or "WARPGROUP.ARRIVE" in ins:
                kinds["wgmma issue"] += s
            else:
                kinds["other (decode, loads, releases, loop)"] += s
        loop = sum(kinds.values())
        print(f"{prob} (N = {shape.split('x')[1]} loop): {loop} samples in the loop, {sum(map(samples, data))} in the kernel")
        for k, v in kinds.most_common():
            print(f"    {k:40s} {v:6d}  {100 * v / loop:5.1f}%")
        print("    instructions with the most samples:")
        for i in sorted(range(lo, hi), key=lambda i: -samples(data[i]))[:8]:
            print(f"      {samples(data[i]):5d}  {' '.join(src(i).split())[:70]}")


if __name__ == "__main__":
    main(sys.argv[1])
