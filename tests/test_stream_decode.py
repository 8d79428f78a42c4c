"""The A decode streamed beside the GEMM (ptx/nvfp4_decode_a16_stream.ptx, the cluster GEMM's A_FLAGS build, the
m-tile plan's ``stream_decode``).

CPU part: the plan's rule, the kernel constants, both kernels' parameter lists and the A16 producer's flag wait in
the text, the decode table's row starts, and assembly (registers: 1024 threads of the decode must fit one SM; the
GEMM without spills).

GPU part (``@pytest.mark.gpu``): the streamed decode's A16 against ``a16_reference`` bit for bit with its flags
counted per launch; the m-tile plan with the streamed decode against the float64 reference and bit for bit against
the same plan with the decode in front; repeated calls on the same buffers whose contents change between calls (a
GEMM that did not wait for its own decode would read the last call's A16); the GEMM launched alone after a call
(its target is met: it must not hang).
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from nvfp4rt.assemble import assemble, find_ptxas
from nvfp4rt.ops import decode_a16 as D
from nvfp4rt.ops import gemm_wgmma_cluster as CL
from nvfp4rt.ops import grouped_gemm_mtiles as GM
from nvfp4rt.ptxsource import parse_entries, render

from conftest import requires_gpu

PTX_DIR = Path(__file__).resolve().parent.parent / "ptx"
STREAM_PTX = (PTX_DIR / "nvfp4_decode_a16_stream.ptx").read_text()
CASE3 = [(192, 3072, 4096), (320, 3072, 4096)]
CASE4 = [(128, 4096, 1536), (384, 4096, 1536)]


# ============================================================== the rule and the constants

def test_the_plan_streams_the_decode_only_beside_whole_tiles_in_one_wave_that_leave_an_sm():
    assert GM.streams_decode(True, 120, 132)        # competition case 3: 12 SMs idle
    assert GM.streams_decode(True, 128, 132)        # case 4: 4 idle
    assert not GM.streams_decode(True, 132, 132)    # no SM left
    assert not GM.streams_decode(False, 120, 132)   # stream-K runs, or several waves
    assert not GM.streams_decode(True, 0, 132)


def test_a_flags_is_a_grouped_constant():
    assert CL.kernel_constants(1, 8, grouped=True)["A_FLAGS"] == 0
    assert CL.kernel_constants(1, 8, grouped=True, a_flags=True)["A_FLAGS"] == 1
    assert CL.kernel_constants(2, 8)["A_FLAGS"] == 0
    with pytest.raises(ValueError, match="a_flags needs grouped"):
        CL.kernel_constants(1, 8, a_flags=True)
    with pytest.raises(ValueError, match="a_flags must be True or False"):
        CL.kernel_constants(1, 8, grouped=True, a_flags=1)


def _gemm_text(a_flags: bool) -> str:
    cons = CL.kernel_constants(1, 8, grouped=True, row_classes=(112,), a_flags=a_flags)
    return render(CL.kernel_text(cons), "sm_90a", cons)


def test_the_a_flags_build_takes_two_more_parameters_and_waits_per_unit_instead_of_on_the_grid():
    on, off = _gemm_text(True), _gemm_text(False)
    p_on = [p.name for p in parse_entries(on)[CL._ENTRY].params]
    p_off = [p.name for p in parse_entries(off)[CL._ENTRY].params]
    assert p_on == p_off + ["p_aflags", "a_target"]
    code = [ln.split("//")[0].strip() for ln in on.splitlines()]
    code = [ln for ln in code if ln]
    assert "griddepcontrol.wait;" not in code and "griddepcontrol.wait;" in off
    # the poll sits after the unit's k stage is known and before its first copy: acquire, signed compare, then the
    # proxy fence
    i = code.index("A_FLAG_POLL:")
    assert code.index("shl.b32 %kel, %kb, 8;") < i < code.index("A_SUBSTEP:")
    seq = code[i:code.index("A_FLAG_SEEN:") + 2]
    assert seq[1].startswith("ld.acquire.gpu.global.u32 %af_v, [%af_flag]")
    assert "setp.ge.s32 %p_af, %af_v, 0;" in seq and seq[-1] == "fence.proxy.async.global;"


def test_the_stream_decode_signature():
    params = [(p.name, p.ptx_type) for p in parse_entries(render(STREAM_PTX, "sm_90a"))["nvfp4_decode_a16_stream"].params]
    assert params == [("p_table", "u64"), ("p_out", "u64"), ("p_flags", "u64"), ("groups", "u32"), ("rows", "u32"),
                      ("pieces", "u32"), ("chunks", "u32")]


def test_the_stream_decode_counts_each_round_in_after_its_stores():
    code = [ln.split("//")[0].strip() for ln in render(STREAM_PTX, "sm_90a").splitlines()]
    code = [ln for ln in code if ln]
    stores = [i for i, ln in enumerate(code) if ln.startswith("st.global.v4.b32")]
    fence = code.index("fence.proxy.async.global;")
    rel = code.index("fence.acq_rel.gpu;")
    reds = [i for i, ln in enumerate(code) if ln.startswith("red.relaxed.gpu.global.add.u32")]
    assert len(stores) == 4 and len(reds) == 4
    assert max(stores) < fence < code.index("bar.warp.sync 0xffffffff;", fence) < rel < min(reds)
    assert code.index("griddepcontrol.launch_dependents;") < min(i for i, ln in enumerate(code) if "ld.global" in ln)
    assert not any(ln.startswith("griddepcontrol.wait") for ln in code)


def test_the_decode_table_carries_each_groups_first_row():
    dec = D.GroupedDecodeA16.__new__(D.GroupedDecodeA16)
    dec.shapes = [(5, 64), (7, 64), (2, 64)]
    dec.item_starts, dec.row_starts = (0, 10, 24), (0, 5, 12)
    dec.items, dec.rows = 28, 14
    words = dec.table([1, 2, 3], [4, 5, 6], [32, 48, 64], [4, 5, 6]).view(np.uint32)
    assert list(words[:4, 2]) == [0, 5, 12, 14] and list(words[:3, 0]) == [0, 10, 24] and words[3, 0] == 28


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found")
def test_both_kernels_assemble_the_decode_in_at_most_64_registers():
    fn = assemble(render(STREAM_PTX, "sm_90a"), "sm_90a").functions["nvfp4_decode_a16_stream"]
    assert fn.registers <= 64 and not fn.spills  # 1024 threads of one CTA fit one SM's register file
    cons = CL.kernel_constants(1, 8, grouped=True, row_classes=(112,), a_flags=True)
    rep = assemble(CL.kernel_text(cons), "sm_90a", cons)
    g = rep.functions[CL._ENTRY]
    assert not g.spills and g.stack_frame == 0 and "serializ" not in rep.log.lower()


# ============================================================== on the GPU

def _random_groups(rng, shapes):
    from test_decode_a16 import _random_a

    out = []
    for m, k in shapes:
        a, sfa = _random_a(rng, (1, m), k)
        out.append((a[0], sfa[0]))
    return out


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("shapes, ctas", [([(96, 4096), (107, 4096)], 3), ([(1, 1088), (300, 1088), (33, 1088)], 1),
                                          ([(64, 320)], 5)])
def test_the_stream_decode_writes_the_reference_and_counts_every_row(shapes, ctas):
    import nvfp4rt
    from nvfp4rt import driver

    rng = np.random.default_rng()
    dec = D.StreamedDecodeA16(shapes, ctas)
    groups = _random_groups(rng, shapes)
    dev_a = [nvfp4rt.from_numpy(np.ascontiguousarray(a)) for a, _ in groups]
    dev_sf = [nvfp4rt.from_numpy(np.ascontiguousarray(s)) for _, s in groups]
    table = dec.table([x.ptr for x in dev_a], [x.ptr for x in dev_sf], [a.shape[1] for a, _ in groups],
                      [s.shape[1] for _, s in groups])
    dev_table = nvfp4rt.from_numpy(table.view(np.uint8).ravel())
    out = nvfp4rt.from_numpy(np.full(dec.out_bytes // 2, 0xA5A5, np.uint16))
    for launch in (1, 2):
        dec.launch(dev_table.ptr, out.ptr, 0)
        driver.call("cuCtxSynchronize")
        flags = np.empty(dec.chunks, np.uint32)
        driver.call("cuMemcpyDtoH", flags.ctypes.data, dec.flags_ptr, flags.nbytes)
        assert (flags == launch * dec.rows).all() and dec.target == launch * dec.rows
    got = out.numpy()
    for g, ((a, sfa), off) in enumerate(zip(groups, dec.offsets)):
        want = D.a16_reference(a, sfa).view(np.uint16).ravel()
        assert np.array_equal(got[off // 2:off // 2 + want.size], want), f"group {g}"


def _run(shapes, distribution="wide", **kw):
    from test_grouped_gemm import _run as run_plan

    return run_plan(shapes, distribution, GM.GroupedGemmMTilePlan, **kw)


@pytest.mark.gpu
@requires_gpu
@pytest.mark.parametrize("shapes", [CASE3, CASE4, [(255, 130, 1088), (1, 130, 1088), (300, 130, 1088)],
                                    [(17, 256, 512), (33, 256, 512), (200, 256, 512)]])
@pytest.mark.parametrize("distribution", ["competition", "wide"])
def test_the_streamed_decode_plan_matches_the_reference_and_the_decode_in_front(shapes, distribution):
    from nvfp4rt import data, reference
    from test_grouped_gemm import _device_groups

    d = data.grouped_gemm_data(shapes, seed=None, distribution=distribution)
    refs = reference.grouped_gemm_ref(d.groups)
    groups = _device_groups(d)
    bits = []
    for stream in (True, False):
        plan = GM.GroupedGemmMTilePlan(shapes, stream_decode=stream)
        assert bool(plan.decode_ctas) == stream
        for g in groups:  # poison c again
            g[4].copy_from_host_async(np.full(g[4].shape, np.nan, np.float16))
        plan([tuple(g) for g in groups])
        res = [reference.check(g[4].numpy().transpose(1, 2, 0), r) for g, r in zip(groups, refs)]
        assert all(r.ok for r in res), (plan, [r.summary() for r in res if not r.ok])
        bits.append([g[4].numpy().view(np.uint16).copy() for g in groups])
    assert all(np.array_equal(x, y) for x, y in zip(*bits))


@pytest.mark.gpu
@requires_gpu
def test_the_competition_cases_stream_their_decode_by_default():
    from nvfp4rt import driver

    sms = driver.device().properties.sm_count
    for shapes, ctas in ((CASE3, 120), (CASE4, 128)):
        plan = GM.GroupedGemmMTilePlan(shapes)
        assert plan.geometry.grid == ctas
        assert plan.decode_ctas == min(sms - ctas, GM.STREAM_DECODE_MAX_CTAS)
        assert plan.constants["A_FLAGS"] == (1 if sms > ctas else 0)


@pytest.mark.gpu
@requires_gpu
def test_repeated_calls_wait_for_their_own_decode():
    """The same buffers, new contents every call (the repeat path relaunches both kernels as they are): each call's
    c must be that call's product, so the GEMM waited for this call's decode, not the last one's A16."""
    from nvfp4rt import data, reference
    from test_grouped_gemm import _device_groups

    shapes = CASE4
    d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
    groups = _device_groups(d)
    plan = GM.GroupedGemmMTilePlan(shapes, stream_decode=True)
    for call in range(4):
        d = data.grouped_gemm_data(shapes, seed=None, distribution="wide")
        for g, hg in zip(groups, d.groups):
            for i, x in enumerate(("a", "b", "sfa", "sfb")):
                g[i].copy_from_host_async(np.ascontiguousarray(hg.physical(x)).view(np.uint8))
            g[4].copy_from_host_async(np.full(g[4].shape, np.nan, np.float16))
        plan([tuple(g) for g in groups])
        refs = reference.grouped_gemm_ref(d.groups)
        res = [reference.check(g[4].numpy().transpose(1, 2, 0), r) for g, r in zip(groups, refs)]
        assert all(r.ok for r in res), (call, [r.summary() for r in res if not r.ok])
    assert plan.uploads == 1 and plan._decode.launches == 4


@pytest.mark.gpu
@requires_gpu
def test_the_gemm_launched_alone_after_a_call_finds_its_target_met():
    from nvfp4rt import driver

    results, plan, groups = _run(CASE4, stream_decode=True)
    assert all(r.ok for r in results)
    before = [g[4].numpy().view(np.uint16).copy() for g in groups]
    plan._launch.launch()  # no decode: the target is the last call's, already met
    driver.call("cuCtxSynchronize")
    assert all(np.array_equal(g[4].numpy().view(np.uint16), b) for g, b in zip(groups, before))


def test_the_stream_ptx_header_names_its_launch_contract():
    head = STREAM_PTX.split(".version")[0]
    for word in ("LAUNCH CONTRACT", "WORK ORDER AND FLAGS", "griddepcontrol.launch_dependents", "a_target"):
        assert word in head
    assert re.search(r"block = \(1024, 1, 1\)", head)
