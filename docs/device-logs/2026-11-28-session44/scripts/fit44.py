"""Session 44, offline (no GPU): the grouped cluster plan's schedule against ts44.py's finish times (log 08).
1. A least-squares fit of each cluster's finish time to F + units * (a + b N/256) + finished tiles * (e0 + e1 N/256) +
   split ends * s over four problems (prints the coefficients and the residuals per problem).
2. Case 2's cuts under a grid of (DECODE_COST, EPILOGUE_COST, SPLIT_COST), ranked by their costliest cluster under
   per-tile times read off log 08 (the 196-row group's tiles 18.4 us less 3% for the steps of 8, and so on) plus 3.7 us
   per split end; sched44.py measured the first three (run 9).
3. Case 2's 224 whole tiles dealt largest first to the least loaded of 66 clusters (no split, any mix of groups), under
   the same per-tile times: the costliest cluster, against the defaults' cut.
Usage: fit44.py docs/device-logs/2026-11-28-session44/08-ts44.log"""
import re
import sys

import numpy as np

sys.path.insert(0, ".")
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402

CASE2 = [(m, 7168, 2048) for m in (40, 76, 168, 72, 164, 148, 196, 160)]
PROBS = {"case 2": CASE2, "8 x 40": [(40, 7168, 2048)] * 8, "8 x 196": [(196, 7168, 2048)] * 8,
         "case 1 shapes": [(m, 4096, 7168) for m in (80, 176, 128, 72, 64, 248, 96, 160)]}


def parse(path):
    out, cur = {}, None
    for ln in open(path):
        m = re.match(r"^(case 2|8 x 40|8 x 196|case 1 shapes): <\S+ groups=\d+ units=(\d+) clusters=(\d+)", ln)
        if m:
            cur = m.group(1)
            out[cur] = dict(clusters=int(m.group(3)), rows={})
            continue
        m = re.match(r"\s+cluster\s+(\d+) units\s+(\d+) model\s+([\d.]+) entry\s+([\d.]+) finish\s+([\d.]+)", ln)
        if m and cur:
            out[cur]["rows"][int(m.group(1))] = (int(m.group(2)), float(m.group(5)))
    return out


def unit_info(g):
    """Per unit in launch order: the group's rows, N/256, whether it starts and whether it ends its tile."""
    rows, n, first, last = [], [], [], []
    for grp in g.groups:
        for mt in range(grp.m_tiles):
            for _ in range(grp.n_tiles):
                for k in range(grp.k_stages):
                    rows.append(grp.rows(mt))
                    n.append(GC.tokens(grp.rows(mt)) / GC.TILE_M)
                    first.append(k == 0)
                    last.append(k == grp.k_stages - 1)
    return np.array(rows), np.array(n), np.array(first), np.array(last)


def features(g):
    _, n, first, last = unit_info(g)
    out = []
    for q in range(g.clusters):
        a, b = g.starts[q], g.starts[q + 1]
        out.append([1, b - a, n[a:b].sum(), last[a:b].sum(), (n[a:b] * last[a:b]).sum(),
                    (0 if first[a] else 1) + (0 if last[b - 1] else 1)])
    return np.array(out, float)


def main(log):
    data = parse(log)
    X, y, tags = [], [], []
    fine = GC.FINE_STEP
    GC.FINE_STEP = 16  # log 08 ran d5389ca, whose host rounded every tile's rows to 16 tokens
    for name, d in data.items():
        g = GC.cluster_geometry(PROBS[name], 66)
        assert g.clusters == d["clusters"], (name, g.clusters, d["clusters"])
        assert all(g.starts[q + 1] - g.starts[q] == d["rows"][q][0] for q in range(g.clusters)), name
        F = features(g)
        for q in range(g.clusters):
            X.append(F[q])
            y.append(d["rows"][q][1])
            tags.append(name)
    X, y = np.array(X), np.array(y)
    coef, *_ = np.linalg.lstsq(X, y, rcond=None)
    print("fit (us):", dict(zip(["F", "unit", "unit*N/256", "tile", "tile*N/256", "split end"], np.round(coef, 3))))
    res = y - X @ coef
    for name in data:
        m = np.array([t == name for t in tags])
        print(f"  {name:14s} rms {np.sqrt((res[m] ** 2).mean()):.2f} max |res| {abs(res[m]).max():.2f}")
    GC.FINE_STEP = fine  # the candidate cuts: the host of 230ae6a (steps of 8 above 128 rows)
    tile_us = {196: 18.4 * 0.97, 168: 16.6 * 0.965, 164: 16.6 * 0.965, 160: 16.2, 148: 16.2 * 0.96, 76: 13.1, 72: 13.1,
               40: 10.7}

    def costliest(g):
        rows, _, first, last = unit_info(g)
        return max(sum(tile_us[rows[u]] / 8 for u in range(g.starts[q], g.starts[q + 1]))
                   + 3.7 * ((0 if first[g.starts[q]] else 1) + (0 if last[g.starts[q + 1] - 1] else 1))
                   for q in range(g.clusters))

    seen, ranked = set(), []
    for d in np.arange(0.4, 0.9, 0.05):
        for e in (0.25, 0.5, 1.0, 1.5, 2.0, 3.0):
            for sp in (1.0, 1.5, 2.0, 2.5, 3.0, 4.0):
                g = GC.cluster_geometry(CASE2, 66, decode_cost=float(d), epilogue_cost=e, split_cost=sp)
                if g.starts not in seen:
                    seen.add(g.starts)
                    ranked.append((round(costliest(g), 2), round(float(d), 2), e, sp))
    print("case 2, the defaults' cut:", round(costliest(GC.cluster_geometry(CASE2, 66)), 2), "us")
    print(f"the best of {len(ranked)} distinct cuts (costliest cluster, decode, epilogue, split):", sorted(ranked)[:5])
    loads = [0.0] * 66
    for t in sorted((tile_us[m] for m, _, _ in CASE2 for _ in range(28)), reverse=True):
        q = loads.index(min(loads))
        loads[q] += t
    print(f"whole tiles dealt largest first: costliest cluster {max(loads):.2f} us, mean {sum(loads) / 66:.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
