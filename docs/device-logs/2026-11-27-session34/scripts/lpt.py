"""Session 34 (offline): how far case 2's committed runs are from what the schedule's model allows.  Under the
committed cost model (grouped_gemm_cluster.schedule_costs, SPLIT_COST per run end inside a tile), prints the
costliest committed run, the makespan of whole tiles placed by LPT (longest first onto the least loaded of the
clusters; not contiguous, so the kernel could not run it as is), and the even share (a perfect split at no cost).
Run from the repository root."""
import heapq

import numpy as np

from nvfp4rt.data import PRESETS
from nvfp4rt.ops import grouped_gemm_cluster as GC


def main():
    shapes = [tuple(s) for s in PRESETS["grouped_gemm"][1]]
    geo = GC.cluster_geometry(shapes, 66)
    costs, firsts = GC.schedule_costs(geo.groups)
    cum = np.concatenate(([0.0], np.cumsum(costs)))
    U = len(costs)

    def pen(b):
        return 0.0 if b in (0, U) or firsts[b] else GC.SPLIT_COST

    committed = max(cum[b] - cum[a] + pen(a) + pen(b) for a, b in zip(geo.starts[:-1], geo.starts[1:]))
    bounds = list(np.flatnonzero(firsts)) + [U]
    tiles = sorted((cum[b] - cum[a] for a, b in zip(bounds[:-1], bounds[1:])), reverse=True)
    heap = [0.0] * 66
    for t in tiles:
        heapq.heapreplace(heap, heap[0] + t)
    print(f"case 2, 66 clusters, model units: committed costliest run {committed:.2f}, whole tiles by LPT "
          f"{max(heap):.2f}, even share {costs.sum() / 66:.2f}")


if __name__ == "__main__":
    main()
