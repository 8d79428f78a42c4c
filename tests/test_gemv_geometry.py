"""CPU checks of the GEMV work decomposition (nvfp4rt.ops.gemv._geometry) and of the kernel's walk.

The kernel trusts these numbers: a wrong row count skips rows silently, a wrong split leaves part
of K unread.  Every shape here is replayed in Python exactly as ptx/gemv_nvfp4.ptx walks it: the
CTA -> (batch, rows) map, each warp's row count, its load cursor (512 bytes per item, then the
`a_jump` to its next row) and the [local_row][kpart] slots of the partial sums.  Every
(batch, row, item) must be loaded exactly once, and every partial slot the epilogue reads must be
written exactly once.
"""
import itertools

import pytest

from nvfp4rt.ops.gemv import MAX_K, _SMEM_PER_STEP, _geometry, _shared_mem

SHAPES = [(7168, 16384, 1), (4096, 7168, 8), (7168, 2048, 4), (1, 64, 1), (1, 32, 1), (129, 96, 3),
          (300, 3072, 2), (8, 1024 * 24, 1), (1000, 5 * 1024 + 64, 5), (7, MAX_K, 1), (5, 2048, 16),
          (100000, 64, 1), (3, 1024 * 9, 7)]


def replay(m, k, l, g, a_row=None, a_batch=None):
    """(batch, row, step) of every load the kernel issues, and the partial slots each CTA writes."""
    kbytes = k // 2
    a_row = a_row or kbytes
    a_batch = a_batch or m * a_row
    R, lg, spw = g.rows_per_tile, g.log2_warps_per_row, g.steps_per_warp
    gw = 1 << lg
    loads, slots = [], []
    for cta in range(g.grid):
        batch, chunk = divmod(cta, g.ctas_per_batch)
        row0 = chunk * g.rows_per_cta
        row_end = min(row0 + g.rows_per_cta, m)
        nrows = row_end - row0
        assert nrows >= 1, "a CTA without rows"
        written = []
        for warp in range(8):
            rit, kpart = warp >> lg, warp & (gw - 1)
            step0 = kpart * spw
            rows_left = (max(nrows - rit, 0) + R - 1) // R
            to_load = rows_left * spw
            lane_kb = step0 * 512  # lane 0
            addr = batch * a_batch + (row0 + rit) * a_row + lane_kb
            a_jump = R * a_row - spw * 512
            ld_step, ld_kb = 0, lane_kb
            while to_load > 0:  # the kernel issues 3 more (predicated-off) loads: to_load <= 0 there
                if ld_kb < kbytes:
                    b, rest = divmod(addr, a_batch)
                    row, off = divmod(rest, a_row)
                    assert off % 512 == 0
                    loads.append((b, row, off // 512))
                to_load -= 1
                ld_step += 1
                ld_kb += 512
                addr += 512
                if ld_step == spw:
                    ld_step, ld_kb = 0, lane_kb
                    addr += a_jump
            slot = rit * gw + kpart
            for _ in range(rows_left):
                written.append(slot)
                slot += R * gw
        read = [i * gw + p for i in range(nrows) for p in range(gw)]
        assert sorted(written) == read, f"CTA {cta}: partial slots written {sorted(written)} != read {read}"
        assert max(read) * 4 + 4 <= g.shared_mem - g.steps * _SMEM_PER_STEP
    return loads


@pytest.mark.parametrize("m,k,l", SHAPES)
@pytest.mark.parametrize("ctas_per_sm", [1, 4])
def test_every_row_and_item_is_loaded_exactly_once(m, k, l, ctas_per_sm):
    g = _geometry(m, k, l, ctas_per_sm, 132)
    assert g.rows_per_tile << g.log2_warps_per_row == 8
    assert g.steps_per_warp << g.log2_warps_per_row == g.steps
    assert g.grid == g.ctas_per_batch * l and (g.ctas_per_batch - 1) * g.rows_per_cta < m
    loads = replay(m, k, l, g)
    want = list(itertools.product(range(l), range(m), range(-(-k // 1024))))
    assert len(loads) == len(set(loads)) == len(want)
    assert set(loads) == set(want)


def test_padded_row_strides_are_walked_too():
    """a with a row pitch larger than k/2 (a strided view): the jump between rows uses the stride."""
    m, k, l = 300, 3072, 2
    g = _geometry(m, k, l, 4, 132)
    loads = replay(m, k, l, g, a_row=k // 2 + 512, a_batch=(k // 2 + 512) * m + 4096)
    assert sorted(loads) == sorted(itertools.product(range(l), range(m), range(3)))


@pytest.mark.parametrize("m,k,l", [(7168, 16384, 1), (4096, 7168, 8), (7168, 2048, 4)])
def test_benchmark_shapes_run_in_one_balanced_wave(m, k, l):
    g = _geometry(m, k, l, 4, 132)
    assert g.grid <= 4 * 132, "more CTAs than fit at once: a second wave"
    assert g.grid >= 0.95 * 4 * 132, "SMs left idle"
    # the busiest warp walks at most 10% more items than the average warp
    items = m * l * -(-k // 1024)
    per_warp = -(-g.rows_per_cta // g.rows_per_tile) * g.steps_per_warp
    assert per_warp <= 1.1 * items / (8 * g.grid)


def test_shared_memory_fits_the_hopper_opt_in_limit_at_max_k():
    g = _geometry(7, MAX_K, 1, 1, 132)
    assert g.shared_mem == _shared_mem(g.steps, g.rows_per_cta, 1 << g.log2_warps_per_row) <= 227 * 1024
    with pytest.raises(ValueError, match="shared memory"):
        _geometry(7, MAX_K + 1024 * 8, 1, 1, 132)


def _metas(m=300, k=1024, l=2, **override):
    """Operand metadata as gemv_raw sees it: competition views [rows, cols, l] of batch-major arrays."""
    import numpy as np

    from nvfp4rt.ops.gemv import _Meta

    def view(rows, cols, dtype, itemsize):
        return _Meta((rows, cols, l), (cols * itemsize, itemsize, rows * cols * itemsize), np.dtype(dtype), 0)

    metas = {"a": view(m, k // 2, "uint8", 1), "b": view(128, k // 2, "uint8", 1),
             "sfa": view(m, k // 16, "uint8", 1), "sfb": view(128, k // 16, "uint8", 1),
             "c": view(m, 1, "float16", 2)}
    metas.update(override)
    return tuple(metas[n] for n in ("a", "b", "sfa", "sfb", "c"))


def test_raw_checks_are_cached_per_operand_kind_and_errors_are_not():
    from nvfp4rt.ops.gemv import GemvLayout, _check_raw, _Meta

    _check_raw.cache_clear()
    m, k, l, layout = _check_raw(_metas(), 0)
    assert (m, k, l) == (300, 1024, 2)
    assert layout == GemvLayout(512, 300 * 512, 64, 300 * 64, 128 * 512, 128 * 64, 1, 300)
    assert _check_raw(_metas(), 0) == (m, k, l, layout) and _check_raw.cache_info().hits == 1
    assert _check_raw(_metas(k=1040), 0)[3] is None  # k % 32 == 16: the padded path
    bad = _metas(c=_Meta((300, 1, 2), (2, 2, 600), __import__("numpy").dtype("float32"), 0))
    for _ in range(2):  # raised both times: a failed check is never remembered
        with pytest.raises(TypeError, match="c must be float16"):
            _check_raw(bad, 0)
    with pytest.raises(ValueError, match="sfa must have shape"):
        _check_raw(_metas(sfa=_metas(m=301)[2]), 0)
    with pytest.raises(ValueError, match="b is on device 1"):
        _check_raw(_metas(b=_metas()[1]._replace(ordinal=1)), 0)
