"""Session 47: the N = 48 unit loop of the grouped cluster kernel, from Nsight Compute's source page (warp stall
sampling per SASS instruction, `ncu -i REP --page source --csv --print-source sass`): every instruction of the loop
(from 60 before its first HGMMA.64x48x16 to 12 after its last) with its samples, and the samples summed by opcode, to
see which pipe the consumers' time goes to.  Usage: sass47.py SRC.csv"""
import csv
import sys
from collections import Counter


def main(path):
    rows = list(csv.reader(open(path)))
    hdr, data = rows[1], rows[2:]
    ix = {h: i for i, h in enumerate(hdr)}
    print("columns:", hdr)
    col = ix["Warp Stall Sampling (All Samples)"]
    ncol = ix.get("Warp Stall Sampling (Not-issued Samples)")
    src = [r[ix["Source"]] for r in data]
    hg = [i for i, s in enumerate(src) if "HGMMA.64x48x16" in s]
    lo, hi = hg[0] - 60, hg[-1] + 12
    ops, total = Counter(), 0
    for i in range(lo, hi):
        s = int(data[i][col] or 0)
        ni = int(data[i][ncol] or 0) if ncol is not None else -1
        total += s
        op = src[i].split()[0] if not src[i].startswith("@") else src[i].split()[1]
        ops[op.split(".")[0]] += s
        print(f"{s:5d} {ni:5d}  {' '.join(src[i].split())[:110]}")
    print(f"loop instructions {hi - lo}, samples {total}")
    for op, s in ops.most_common(25):
        print(f"  {op:14s} {s:6d}  {100 * s / total:5.1f}%")


if __name__ == "__main__":
    main(sys.argv[1])
