"""Session 25 probe B (exact, checked bit for bit): the GEMM launched first, the A decode second by programmatic
dependent launch on whatever room the GEMM leaves, and the GEMM's A16 producer waiting for the decode's completion
count instead of griddepcontrol.wait.
  * counter W (u32, device, zeroed once): every decode CTA adds 1 (atom.release.gpu, after fence.proxy.async.global
    and bar.sync) when its A16 stores are done; the CTA that completes this launch's count (old + 1 = 0 mod G)
    executes griddepcontrol.wait, so the decode grid completes only after the GEMM (stream order stays safe).
  * GEMM: every thread reads W at entry (before launch_dependents, so no decode CTA has counted yet), target =
    W - W % G + G; the A16 producer polls W (ld.acquire.gpu) until it reaches the target, then
    fence.proxy.async.global, where it used to execute griddepcontrol.wait.  No fallback: a timing probe.
  * confine=True gives the decode CTAs enough dynamic shared memory that none fits beside a GEMM CTA."""
from nvfp4rt.ptxsource import render

GEMM_TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()
DEC_TEXT = open("ptx/nvfp4_decode_a16.ptx").read()
PARAMS = "    // ------------------------------------------------------------------ parameters\n"
WAIT = "    griddepcontrol.wait;                      // the decode kernel is complete and A16 is visible (PDL)\n"
REGS = "    .reg .b32   %w0, %w1, %sw0, %sw1;\n"


def gemm_first(consts, addr, grid):
    t = render(GEMM_TEXT, "sm_90a", consts)
    assert t.count(PARAMS) == 1 and t.count(WAIT) == 1 and t.count(REGS) == 1
    t = t.replace(REGS, REGS + "    .reg .b32   %dq_tgt, %dq_v;\n    .reg .b64   %dq_p;\n    .reg .pred  %p_dq;\n", 1)
    t = t.replace(PARAMS, PARAMS + (
        f"    mov.u64 %dq_p, {addr};\n"
        "    ld.relaxed.gpu.global.u32 %dq_tgt, [%dq_p];\n"
        f"    rem.u32 %dq_v, %dq_tgt, {grid};\n"
        "    sub.u32 %dq_tgt, %dq_tgt, %dq_v;\n"
        f"    add.u32 %dq_tgt, %dq_tgt, {grid};          // this launch's decode is complete at this count\n"
        "    griddepcontrol.launch_dependents;\n"), 1)
    t = t.replace(WAIT, (
        "DQ_POLL:\n"
        "    ld.acquire.gpu.global.u32 %dq_v, [%dq_p];\n"
        "    sub.u32 %dq_v, %dq_v, %dq_tgt;\n"
        "    setp.lt.s32 %p_dq, %dq_v, 0;\n"
        "    @%p_dq bra DQ_POLL;\n"
        "    fence.proxy.async.global;\n"), 1)
    return t


def decode_second(grouped, addr, grid):
    t = render(DEC_TEXT, "sm_90a", {"NORMAL_OPERANDS": 0, "GROUPED": int(grouped)})
    old = "    griddepcontrol.wait;\n"
    assert t.count(old) == 1
    t = t.replace(old, "", 1)
    old = "DONE:\n    ret;\n"
    assert t.count(old) == 1
    t = t.replace(old, "DONE:\n    {\n    .reg .b64 %dq_p;\n    .reg .b32 %dq_o;\n    .reg .pred %p_dq;\n"
                  "    fence.proxy.async.global;\n    bar.sync 0;\n    setp.ne.u32 %p_dq, %thread, 0;\n    @%p_dq bra DQ_OUT;\n"
                  f"    mov.u64 %dq_p, {addr};\n    atom.release.gpu.global.add.u32 %dq_o, [%dq_p], 1;\n"
                  f"    add.u32 %dq_o, %dq_o, 1;\n    rem.u32 %dq_o, %dq_o, {grid};\n    setp.ne.u32 %p_dq, %dq_o, 0;\n"
                  "    @%p_dq bra DQ_OUT;\n    griddepcontrol.wait;                      // the last decode CTA outlives the GEMM\n"
                  "DQ_OUT:\n    }\n    ret;\n", 1)
    return t
