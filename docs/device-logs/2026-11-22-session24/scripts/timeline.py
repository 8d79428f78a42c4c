"""Session 24 timing probes: %globaltimer timelines of the decode prepass and the GEMM (timing only, results exact).
GEMM (tl_gemm): every thread reads the timer at entry; consumer thread 0 (thread 128) writes, at p_ws + 64*ctaid.x:
  entry, SEG_LOOP, after the first unit's full wait, after the first afull wait, the first wgmma.fence, loop end.
A16 producer (thread 32) writes after its griddepcontrol.wait at +48 of the same record... (slot 6).
Decode (tl_decode): thread 0 of each CTA writes {start, end} at a baked address + 16*ctaid.x."""
import re
from probes import _loop


def tl_gemm(t):
    t = re.sub(r"(    \.reg \.b32   %w0, %w1, %sw0, %sw1[^\n]*\n)",
               r"\1    .reg .b64 %tg<8>, %tga;\n    .reg .pred %p_tg0, %p_tg1;\n    .reg .b32 %tgi;\n", t, count=1)
    old = "    // ------------------------------------------------------------------ parameters\n"
    assert t.count(old) == 1
    t = t.replace(old, old + "    mov.u64 %tg0, %globaltimer;\n    mov.u64 %tg2, 0;\n    mov.u64 %tg3, 0;\n    mov.u64 %tg4, 0;\n", 1)
    a, b, c = _loop(t)
    assert a.count("\nSEG_LOOP:\n") == 1
    a = a.replace("\nSEG_LOOP:\n", "\n    mov.u64 %tg1, %globaltimer;\nSEG_LOOP:\n", 1)
    old = "C_WAIT_FULL:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %phase;\n    @!%p_ready bra C_WAIT_FULL;\n"
    assert b.count(old) == 1
    b = b.replace(old, old + "    setp.eq.u64 %p_tg0, %tg2, 0;\n    @%p_tg0 mov.u64 %tg2, %globaltimer;\n", 1)
    old = "    @!%p_ready bra C_WAIT_A0;\n"
    assert b.count(old) == 1
    b = b.replace(old, old + "    setp.eq.u64 %p_tg0, %tg3, 0;\n    @%p_tg0 mov.u64 %tg3, %globaltimer;\n", 1)
    marker = "    // ================================================================== segment epilogue\n"
    assert c.startswith(marker)
    c = marker + ("    mov.u64 %tg5, %globaltimer;\n    setp.ne.u32 %p_tg1, %thread, 128;\n    @%p_tg1 bra TG_DONE;\n"
                  "    ld.param.u64 %tga, [p_ws];\n    mov.u32 %tgi, %ctaid.x;\n    mul.wide.u32 %tg7, %tgi, 64;\n    add.s64 %tga, %tga, %tg7;\n"
                  "    st.global.v2.u64 [%tga], {%tg0, %tg1};\n    st.global.v2.u64 [%tga+16], {%tg2, %tg3};\n"
                  "    st.global.u64 [%tga+32], %tg5;\nTG_DONE:\n") + c[len(marker):]
    t = a + b + c
    old = "    griddepcontrol.wait;                      // the decode kernel is complete and A16 is visible (PDL)\n"
    assert t.count(old) == 1
    t = t.replace(old, old + "    mov.u64 %tg6, %globaltimer;\n    ld.param.u64 %tga, [p_ws];\n    mov.u32 %tgi, %ctaid.x;\n"
                  "    mul.wide.u32 %tg7, %tgi, 64;\n    add.s64 %tga, %tga, %tg7;\n    st.global.u64 [%tga+48], %tg6;\n", 1)
    return t


def tl_decode(t, addr):
    t = t.replace("    griddepcontrol.launch_dependents;\n",
                  "    griddepcontrol.launch_dependents;\n    {\n    .reg .b64 %tq0, %tq1;\n    .reg .b32 %tqi;\n    .reg .pred %tqp;\n"
                  "    mov.u64 %tq0, %globaltimer;\n    mov.u32 %tqi, %tid.x;\n    setp.ne.u32 %tqp, %tqi, 0;\n"
                  "    mov.u32 %tqi, %ctaid.x;\n    mul.wide.u32 %tq1, %tqi, 16;\n"
                  f"    add.u64 %tq1, %tq1, {addr};\n    @!%tqp st.global.u64 [%tq1], %tq0;\n    }}\n", 1)
    assert t.count("DONE:\n    ret;\n") == 1
    t = t.replace("DONE:\n    ret;\n", "DONE:\n    {\n    .reg .b64 %tq0, %tq1;\n    .reg .b32 %tqi;\n    .reg .pred %tqp;\n"
                  "    bar.sync 0;\n    mov.u64 %tq0, %globaltimer;\n    mov.u32 %tqi, %tid.x;\n    setp.ne.u32 %tqp, %tqi, 0;\n"
                  "    mov.u32 %tqi, %ctaid.x;\n    mul.wide.u32 %tq1, %tqi, 16;\n"
                  f"    add.u64 %tq1, %tq1, {addr};\n    @!%tqp st.global.u64 [%tq1+8], %tq0;\n    }}\n    ret;\n", 1)
    return t
