"""CPU checks of the GEMV work decomposition (nvfp4rt.ops.gemv._geometry).

The kernel trusts these numbers: a wrong tile count skips rows silently, a wrong
split leaves part of K unread.  Every shape here is replayed in Python exactly as
the kernel walks it, and every (batch, row, step) must be visited exactly once.
"""
import itertools

import pytest

from nvfp4rt.ops.gemv import MAX_K, _geometry, _SMEM_PER_STEP, _SMEM_FIXED

SHAPES = [(7168, 16384, 1), (4096, 7168, 8), (7168, 2048, 4), (1, 64, 1), (1, 32, 1), (129, 96, 3),
          (300, 3072, 2), (8, 1024 * 24, 1), (1000, 5 * 1024 + 64, 5), (7, MAX_K, 1)]


def replay(m, k, l, g):
    """Which (batch, row, step) each warp of each CTA processes, as the PTX loops do."""
    seen = []
    warps_per_row = 1 << g.log2_warps_per_row
    for cta in range(g.grid):
        for tile in range(cta * g.tiles_per_cta, min((cta + 1) * g.tiles_per_cta, g.num_tiles)):
            batch, tib = divmod(tile, g.tiles_per_batch)
            for warp in range(8):
                row = tib * g.rows_per_tile + (warp >> g.log2_warps_per_row)
                if row >= m:
                    continue
                first = (warp & (warps_per_row - 1)) * g.steps_per_warp
                for s in range(first, first + g.steps_per_warp):
                    if s * 512 < k // 2:  # the kernel's per-lane predicate at lane 0
                        seen.append((batch, row, s))
    return seen


@pytest.mark.parametrize("m,k,l", SHAPES)
@pytest.mark.parametrize("ctas_per_sm", [1, 4])
def test_every_row_and_step_is_visited_exactly_once(m, k, l, ctas_per_sm):
    g = _geometry(m, k, l, ctas_per_sm, 132)
    assert g.rows_per_tile << g.log2_warps_per_row == 8
    assert g.steps_per_warp << g.log2_warps_per_row == g.steps
    seen = replay(m, k, l, g)
    want = list(itertools.product(range(l), range(m), range(-(-k // 1024))))
    assert len(seen) == len(set(seen)) == len(want)
    assert set(seen) == set(want)


def test_persistent_grid_stays_within_one_wave_and_balanced():
    g = _geometry(7168, 16384, 1, 4, 132)
    assert g.grid <= 4 * 132
    # the busiest CTA does at most one tile more than the average
    assert g.tiles_per_cta <= g.num_tiles / (4 * 132) + 1


def test_shared_memory_fits_the_hopper_opt_in_limit_at_max_k():
    g = _geometry(7, MAX_K, 1, 1, 132)
    assert g.shared_mem == g.steps * _SMEM_PER_STEP + _SMEM_FIXED <= 227 * 1024
