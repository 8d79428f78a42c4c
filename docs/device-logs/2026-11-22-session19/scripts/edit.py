"""Session 19: write the DECODE_WG (decoder warpgroup) form of ptx/gemm_nvfp4_wgmma_cluster.ptx onto the session's
base (1cec504), from the blocks pdgen.py emits; decode_wg.patch is the whole working-tree change that device calls 1
and 2 ran (kernel, host plan options dec_bufs, generator and test).  Run from the repository root."""
import subprocess, sys
sys.path.insert(0, "docs/device-logs/2026-11-22-session19/scripts")
import pdgen
P = "ptx/gemm_nvfp4_wgmma_cluster.ptx"
src = subprocess.run(["git", "show", "1cec504:ptx/gemm_nvfp4_wgmma_cluster.ptx"], capture_output=True, text=True,
                     check=True).stdout


def sub(old, new, count=1):
    global src
    assert src.count(old) == count, (old, src.count(old))
    src = src.replace(old, new)


# registers
sub("    .reg .f32   %acc<64>;\n",
    "    .reg .f32   %acc<64>;\n"
    "// {{if DECODE_WG}}\n"
    "    .reg .b32   %sm_dec, %sm_dfull, %sm_dempty, %db, %dph, %doff, %dbuf, %dw;   // DECODE_WG\n"
    "// {{endif}}\n")
# carve-up
sub("    add.u32 %sm_c, %sm_a16, {{A_BUFS}}*16384; // C staging tile\n",
    "// {{if DECODE_WG}}\n"
    "    add.u32 %sm_dec, %sm_a16, {{A_BUFS}}*16384; // D_BUFS decoded B sub-steps of 16 KB (fragment order)\n"
    "    add.u32 %sm_c, %sm_dec, {{D_BUFS}}*16384; // C staging tile\n"
    "// {{else}}\n"
    "    add.u32 %sm_c, %sm_a16, {{A_BUFS}}*16384; // C staging tile\n"
    "// {{endif}}\n")
sub("    add.u32 %sm_flag, %sm_aempty, {{A_BUFS}}*8;\n",
    "// {{if DECODE_WG}}\n"
    "    add.u32 %sm_dfull, %sm_aempty, {{A_BUFS}}*8;\n"
    "    add.u32 %sm_dempty, %sm_dfull, {{D_BUFS}}*8;\n"
    "    add.u32 %sm_flag, %sm_dempty, {{D_BUFS}}*8;\n"
    "// {{else}}\n"
    "    add.u32 %sm_flag, %sm_aempty, {{A_BUFS}}*8;\n"
    "// {{endif}}\n")
# barrier inits
sub("    mbarrier.init.shared::cta.b64 [%bar], 4*{{CONSUMER_WGS}};  // one arrive per consumer warp\n",
    "// {{if DECODE_WG}}\n"
    "    mbarrier.init.shared::cta.b64 [%bar], 4;  // one arrive per decoder warp\n"
    "// {{else}}\n"
    "    mbarrier.init.shared::cta.b64 [%bar], 4*{{CONSUMER_WGS}};  // one arrive per consumer warp\n"
    "// {{endif}}\n")
sub("    @%p_more bra INIT_A_LOOP;\n",
    "    @%p_more bra INIT_A_LOOP;\n"
    "// {{if DECODE_WG}}\n"
    "    mov.u32 %i, 0;\n"
    "INIT_D_LOOP:\n"
    "    shl.b32 %tmp, %i, 3;\n"
    "    add.u32 %bar, %sm_dfull, %tmp;\n"
    "    mbarrier.init.shared::cta.b64 [%bar], 4;  // one arrive per decoder warp\n"
    "    add.u32 %bar, %sm_dempty, %tmp;\n"
    "    mbarrier.init.shared::cta.b64 [%bar], 4*{{CONSUMER_WGS}};  // one arrive per consumer warp\n"
    "    add.u32 %i, %i, 1;\n"
    "    setp.lt.u32 %p_more, %i, {{D_BUFS}};\n"
    "    @%p_more bra INIT_D_LOOP;\n"
    "// {{endif}}\n")
# role split
sub("    setp.lt.u32 %p_lead, %thread, 128;\n    @%p_lead bra PRODUCERS;\n",
    "    setp.lt.u32 %p_lead, %thread, 128;\n    @%p_lead bra PRODUCERS;\n"
    "// {{if DECODE_WG}}\n"
    "    setp.ge.u32 %p_lead, %thread, 128 + {{CONSUMERS}};\n"
    "    @%p_lead bra DECODERS;                    // warpgroup 3\n"
    "    setmaxnreg.inc.sync.aligned.u32 184;      // 128 x 40 (producers) + 128 x 96 (decoders) + 256 x 184 <= 65536\n"
    "// {{endif}}\n")
# consumer setup: decoded fragment offset
sub("    setp.eq.u32 %p_l0, %lane, 0;\n\n",
    "    setp.eq.u32 %p_l0, %lane, 0;\n"
    "// {{if DECODE_WG}}\n"
    "    shl.b32 %doff, %wg, 13;                   // this thread's 16 bytes in a decoded buffer: wg * 8192 + wi * 512\n"
    "    shl.b32 %tmp, %wi, 9;                     // + lane * 16 (+ 4096 per piece of the sub-step, + 2048 for the\n"
    "    add.u32 %doff, %doff, %tmp;               // odd k16 step's fragment)\n"
    "    shl.b32 %tmp, %lane, 4;\n"
    "    add.u32 %doff, %doff, %tmp;\n"
    "    mov.u32 %db, 0;\n"
    "    mov.u32 %dph, 0;\n"
    "// {{endif}}\n\n")
# consumer unit body
start = "    // ---------------------------------------------------------------- wait for stage `slot`\n"
end = "    @%p_wrap xor.b32 %phase, %phase, 1;\n// {{if KS_STREAM == 1}}\n    add.u32 %u, %u, 2;                        // the pair's other CTA runs the units between\n"
i0 = src.index(start)
i1 = src.index(end) + len("    @%p_wrap xor.b32 %phase, %phase, 1;\n")
src = src[:i0] + "// {{if DECODE_WG}}\n" + pdgen.consumer_unit() + "// {{else}}\n" + src[i0:i1] + "// {{endif}}\n" + src[i1:]
# decoders
DEC = r"""
// {{if DECODE_WG}}
    // ---------------------------------------------------------------- decoders (warpgroup 3, DECODE_WG)
    // Per unit of the CTA's run (the B producer's order): wait full[slot]; per k64 sub-step wait dempty[db], decode
    // and scale the sub-step's two pieces for two consumer warps (the consumers' own sequence), store them in fragment
    // order (16-byte stores, a warp's 512 contiguous bytes), lane 0 arrives on dfull[db] after bar.warp.sync; after the
    // unit lane 0 releases the slot (empty[slot], one arrive per decoder warp).
DECODERS:
    setmaxnreg.dec.sync.aligned.u32 96;
    sub.u32 %ct, %thread, 128 + {{CONSUMERS}};  // decoder thread 0..127
    shr.u32 %dw, %ct, 5;                      // decoder warp: consumer warpgroup dw / 2, warps wi = 2*(dw & 1) + 0, 1
    and.b32 %lane, %ct, 31;
    shr.u32 %g, %lane, 2;
    and.b32 %t, %lane, 3;
    setp.eq.u32 %p_l0, %lane, 0;
    shl.b32 %rowB, %dw, 5;                    // rowB = 64*wg + 16*wi + g = 32*dw + g for wi = 2*(dw & 1) (+16: the next warp)
    add.u32 %rowB, %rowB, %g;
    shl.b32 %tmp, %rowB, 7;                   // the consumers' B word offset (see the consumer setup)
    shl.b32 %tmp2, %t, 2;
    add.u32 %tmp, %tmp, %tmp2;
    shl.b32 %x, %g, 4;
    add.u32 %offB0, %tmp, %x;
    shl.b32 %sfB, %rowB, 4;
    add.u32 %sfB, %sfB, {{SFB_OFF}};
    shr.u32 %tmp, %t, 1;
    add.u32 %sfB, %sfB, %tmp;
    shr.u32 %tmp, %dw, 1;                     // the fragments' place: wg * 8192 + wi * 512 + lane * 16
    shl.b32 %doff, %tmp, 13;
    and.b32 %tmp, %dw, 1;
    shl.b32 %tmp, %tmp, 10;
    add.u32 %doff, %doff, %tmp;
    shl.b32 %tmp, %lane, 4;
    add.u32 %doff, %doff, %tmp;
    mov.u32 %slot, 0;
    mov.u32 %phase, 0;
    mov.u32 %db, 0;
    mov.u32 %dph, 0;
// {{if KS_STREAM == 1}}
    xor.b32 %tmp, %u, %krank;                 // the consumers' units: u % 2 == krank
    and.b32 %tmp, %tmp, 1;
    add.u32 %u, %u, %tmp;
// {{endif}}
D_LOOP:
    setp.ge.u32 %p_more, %u, %u_end;
    @%p_more bra EXIT;
    shl.b32 %tmp, %slot, 3;
    add.u32 %bar, %sm_full, %tmp;
D_WAIT_FULL:
    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %phase;
    @!%p_ready bra D_WAIT_FULL;
    mul.lo.u32 %slot_addr, %slot, {{STAGE_BYTES}};
    add.u32 %slot_addr, %slot_addr, %sm;
    add.u32 %bslot, %slot_addr, %offB0;       // piece pp's word: %bslot ^ 16*pp
    add.u32 %sfslot, %slot_addr, %sfB;        // piece pp's scale byte: + 2*pp (row + 8: + 128; next warp: + 2048 / + 256)
""" + pdgen.decoders() + r"""    bar.warp.sync -1;                         // the warp's reads of the slot are done: it goes back to the B producer
    shl.b32 %tmp, %slot, 3;
    add.u32 %bar, %sm_empty, %tmp;
    @%p_l0 mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];
    add.u32 %slot, %slot, 1;
    setp.eq.u32 %p_wrap, %slot, %S;
    @%p_wrap mov.u32 %slot, 0;
    @%p_wrap xor.b32 %phase, %phase, 1;
// {{if KS_STREAM == 1}}
    add.u32 %u, %u, 2;
// {{else}}
    add.u32 %u, %u, 1;
// {{endif}}
    bra.uni D_LOOP;
// {{endif}}
"""
sub("    // ================================================================== producers (warpgroup 0)\nPRODUCERS:\n",
    DEC.lstrip("\n") + "    // ================================================================== producers (warpgroup 0)\nPRODUCERS:\n")
sub("PRODUCERS:\n// {{if CONSUMER_WGS == 3}}\n    setmaxnreg.dec.sync.aligned.u32 40;       // all of warpgroup 0: the consumers take the registers\n// {{endif}}\n",
    "PRODUCERS:\n// {{if CONSUMER_WGS == 3}}\n    setmaxnreg.dec.sync.aligned.u32 40;       // all of warpgroup 0: the consumers take the registers\n// {{endif}}\n"
    "// {{if DECODE_WG}}\n    setmaxnreg.dec.sync.aligned.u32 40;\n// {{endif}}\n")
open(P, "w").write(src)
print("ok", src.count("\n"))
