"""Session 34 (offline): which unit-cost model's longest run tracks the kernel time of log 05's whole-tile cuts of
case 2?  For each (d, e) on a grid, the costliest run of each cut under d + N/256 per unit and e * N/256 per tile
(charged to its last unit) against the cut's median kernel-alone time; prints the best correlations and that fit.
Run from the repository root."""
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, "docs/device-logs/2026-11-27-session34/scripts")
import probe2  # noqa: E402
from nvfp4rt.data import PRESETS  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402

LOG = Path("docs/device-logs/2026-11-27-session34/05-whole-sweep.log")


def geometry(shapes):
    """The old layout: groups in the order given (no launch_order), as run 3 built them."""
    geo = GC.cluster_geometry(shapes, 66)
    groups, unit, tile = [], 0, 0
    for m, n, k in shapes:
        g = GC.ClusterGroup(m, n, k, -(-m // GC.TILE_M), -(-n // (GC.TILE_N * 2)), -(-k // GC.STAGE_K), unit, tile)
        groups.append(g)
        unit += g.units
        tile += g.tiles
    return geo.__class__(tuple(groups), 2, unit, tile, geo.starts, geo.num_stages, geo.a_bufs, tuple(range(len(shapes))))


def run_costs(geo, starts, d, e):
    c = []
    for g in geo.groups:
        for mt in range(g.m_tiles):
            n_tok = GC.tokens(g.rows(mt))
            per = [d + n_tok / 256] * g.k_stages
            per[-1] += e * n_tok / 256
            c += per * g.n_tiles
    cum = np.concatenate(([0.0], np.cumsum(c)))
    return np.array([cum[b] - cum[a] for a, b in zip(starts[:-1], starts[1:])])


def main():
    sh = [tuple(s) for s in PRESETS["grouped_gemm"][1]]
    orders = {"given": list(range(8)), "asc": sorted(range(8), key=lambda i: sh[i][0]),
              "desc": sorted(range(8), key=lambda i: -sh[i][0])}
    meas = {}
    for line in LOG.read_text().splitlines():
        m = re.match(r"\s+case 2 (\w+)\s+d([\d.]+)e([\d.]+)\s+whole .* kernel alone\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", line)
        if m:
            meas[(m.group(1), float(m.group(2)), float(m.group(3)))] = float(np.median([float(m.group(i)) for i in (4, 5, 6)]))
    geos = {o: geometry([sh[i] for i in orders[o]]) for o in orders}
    parts = {k: probe2.model_starts(geos[k[0]], k[1], k[2], 66) for k in meas}
    rows = []
    for d in np.arange(0.0, 1.61, 0.1):
        for e in np.arange(0.0, 3.01, 0.25):
            x = np.array([run_costs(geos[k[0]], parts[k], d, e).max() for k in meas])
            y = np.array(list(meas.values()))
            if x.std() > 0:
                rows.append((float(np.corrcoef(x, y)[0, 1]), round(d, 2), round(e, 2), np.polyfit(x, y, 1)))
    rows.sort(key=lambda r: -r[0])
    print(f"{len(meas)} cuts from {LOG.name}")
    for r, d, e, (a, b) in rows[:5]:
        print(f"  d {d:.2f} e {e:.2f}: correlation {r:.3f}, kernel alone ~ {a:.2f} * costliest run + {b:.1f} us")


if __name__ == "__main__":
    main()
