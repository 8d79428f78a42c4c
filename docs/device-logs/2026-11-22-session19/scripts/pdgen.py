"""Emit the DECODE_WG blocks of ptx/gemm_nvfp4_wgmma_cluster.ptx (pasted into the template by edit.py)."""
ACC = ", ".join(f"%acc{i}" for i in range(64))
SETS = "xyzw"


def wgmma(frag, step):
    return (f"    add.u32 %x, %dlo, {2 * step};                  // + 32 bytes per k16 step\n"
            f"    mov.b64 %desc, {{%x, %desc_hi}};\n"
            f"    wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16\n"
            f"        {{{ACC}}},\n"
            f"        {{%{frag}0, %{frag}1, %{frag}2, %{frag}3}}, %desc, %p_acc, 1, 1, 0;\n"
            f"    setp.eq.u32 %p_acc, 0, 0;\n")


RELEASE_A16 = """\
    and.pred %p_rel, %p_pend, %p_l0;
    shl.b32 %tmp, %pab, 3;
    add.u32 %bar, %sm_aempty, %tmp;
// {{if CLUSTER == 1}}
    @%p_rel mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];
// {{else}}
    @%p_rel mapa.shared::cluster.u32 %rbar, %bar, 0;      // every CTA of the cluster writes a slice of this buffer:
    @%p_rel mbarrier.arrive.shared::cluster.b64 _, [%rbar];   // release it to each one's producer
    @%p_rel mapa.shared::cluster.u32 %rbar, %bar, 1;
    @%p_rel mbarrier.arrive.shared::cluster.b64 _, [%rbar];
// {{if CLUSTER == 4}}
    @%p_rel mapa.shared::cluster.u32 %rbar, %bar, 2;
    @%p_rel mbarrier.arrive.shared::cluster.b64 _, [%rbar];
    @%p_rel mapa.shared::cluster.u32 %rbar, %bar, 3;
    @%p_rel mbarrier.arrive.shared::cluster.b64 _, [%rbar];
// {{endif}}
// {{endif}}
    mov.u32 %pab, %ab;
    setp.eq.u32 %p_pend, 0, 0;
    add.u32 %ab, %ab, 1;
    setp.eq.u32 %p_wrap, %ab, {{A_BUFS}};
    @%p_wrap mov.u32 %ab, 0;
    @%p_wrap xor.b32 %aph, %aph, 1;
"""


def consumer_unit():
    out = ["    // ---- DECODE_WG: the decoder warpgroup wrote each k64 sub-step's fragments, in fragment order, into a"
           " decoded buffer;\n"
           "    //      per piece: two 16-byte loads per thread and two wgmmas (no B words, scales or decode here)\n"]
    for j in range(4):
        s0, s1 = SETS[(2 * j) % 4], SETS[(2 * j + 1) % 4]
        out.append(f"""\
    // ================================================================ k64 sub-step {j}: decoded buffer db, a16 buffer ab
    shl.b32 %tmp, %db, 3;
    add.u32 %bar, %sm_dfull, %tmp;
C_DEC_WAIT_D{j}:
    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %dph;
    @!%p_ready bra C_DEC_WAIT_D{j};
    shl.b32 %tmp, %ab, 3;
    add.u32 %bar, %sm_afull, %tmp;
C_DEC_WAIT_A{j}:
    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %aph;
    @!%p_ready bra C_DEC_WAIT_A{j};
    mad.lo.u32 %a16, %ab, 16384, %sm_a16;
    shr.u32 %dlo, %a16, 4;
    or.b32 %dlo, %dlo, 0x10000;               // LBO field = 1 (unused with 128B swizzle)
    mad.lo.u32 %addr, %db, 16384, %sm_dec;
    add.u32 %addr, %addr, %doff;              // this thread's fragments: piece 2j at +0 (a) / +2048 (b), 2j+1 at +4096
    // ---- piece {2 * j}: set {s0.upper()} from the buffer, two wgmma k16 steps
    wgmma.wait_group.sync.aligned 1;          // <= 1 group pending: set {s0.upper()}'s last reader (4 pieces ago) is done
    ld.shared.v4.b32 {{%{s0}a0, %{s0}a1, %{s0}a2, %{s0}a3}}, [%addr];
    ld.shared.v4.b32 {{%{s0}b0, %{s0}b1, %{s0}b2, %{s0}b3}}, [%addr+2048];
    wgmma.fence.sync.aligned;
""")
        out.append(wgmma(f"{s0}a", 0) + wgmma(f"{s0}b", 1))
        out.append("    wgmma.commit_group.sync.aligned;\n")
        out.append(f"""\
    // ---- piece {2 * j + 1}: set {s1.upper()}
    wgmma.wait_group.sync.aligned 1;          // every wgmma of the previous sub-step is complete: its a16 buffer goes back
""")
        out.append(RELEASE_A16)
        out.append(f"""\
    ld.shared.v4.b32 {{%{s1}a0, %{s1}a1, %{s1}a2, %{s1}a3}}, [%addr+4096];
    ld.shared.v4.b32 {{%{s1}b0, %{s1}b1, %{s1}b2, %{s1}b3}}, [%addr+6144];
""")
        out.append("    wgmma.fence.sync.aligned;\n")
        out.append(wgmma(f"{s1}a", 2) + wgmma(f"{s1}b", 3))
        out.append(f"""\
    wgmma.commit_group.sync.aligned;
    // the wgmmas above read this warp's loads of buffer db (they waited for them): it goes back to the decoders
    shl.b32 %tmp, %db, 3;
    add.u32 %bar, %sm_dempty, %tmp;
    @%p_l0 mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];
    add.u32 %db, %db, 1;
    setp.eq.u32 %p_wrap, %db, {{{{D_BUFS}}}};
    @%p_wrap mov.u32 %db, 0;
    @%p_wrap xor.b32 %dph, %dph, 1;
""")
    return "".join(out)


def decode_word(w, s, a0, b0, a2, b2):
    return f"""\
    shf.l.wrap.b32 %xr, {w}, {w}, 3;
    lop3.b32 %we, {w}, %xr, 0x07070707, 0xE4;
    lop3.b32 %wo, {w}, %xr, 0x70707070, 0xE4;
    shl.b32 %xr, %we, 9;
    and.b32 {a0}, %xr, 0x8E008E00;
    shl.b32 %xr, %wo, 5;
    and.b32 {b0}, %xr, 0x8E008E00;
    shl.b32 %xr, %we, 1;
    and.b32 {a2}, %xr, 0x8E008E00;
    shf.r.wrap.b32 %xr, %wo, %wo, 3;
    and.b32 {b2}, %xr, 0x8E008E00;
    mul.rn.f16x2 {a0}, {a0}, {s};
    mul.rn.f16x2 {b0}, {b0}, {s};
    mul.rn.f16x2 {a2}, {a2}, {s};
    mul.rn.f16x2 {b2}, {b2}, {s};
"""


def decoder_substep(j):
    out = [f"""\
    // ---------------------------------------------------------------- sub-step {j}: pieces {2 * j}, {2 * j + 1} into buffer db
    shl.b32 %tmp, %db, 3;
    add.u32 %bar, %sm_dempty, %tmp;
    xor.b32 %par, %dph, 1;
D_WAIT_EMPTY{j}:
    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %par;
    @!%p_ready bra D_WAIT_EMPTY{j};
    mad.lo.u32 %dbuf, %db, 16384, %sm_dec;
    add.u32 %dbuf, %dbuf, %doff;
"""]
    for pl in range(2):
        pp = 2 * j + pl
        for i in range(2):
            r = 2048 * i
            out.append(f"""\
    // piece {pp}, consumer warp wi = 2*(dw & 1) + {i}: B rows rowB{' + 16' if i else ''}, {'rowB + 24' if i else 'rowB + 8'}
    xor.b32 %addr, %bslot, {16 * pp};
    ld.shared.b32 %w0, [%addr+{r}];
    ld.shared.b32 %w1, [%addr+{r + 1024}];
    ld.shared.u8 %sb0, [%sfslot+{2 * pp + 256 * i}];
    ld.shared.u8 %sb1, [%sfslot+{2 * pp + 256 * i + 128}];
    cvt.rn.f16x2.e4m3x2 %sw0, %sb0;
    mov.b32 {{%hl, %hh}}, %sw0;
    mov.b32 %sw0, {{%hl, %hl}};
    cvt.rn.f16x2.e4m3x2 %sw1, %sb1;
    mov.b32 {{%hl, %hh}}, %sw1;
    mov.b32 %sw1, {{%hl, %hl}};
""")
            out.append(decode_word("%w0", "%sw0", "%xa0", "%xb0", "%xa2", "%xb2"))
            out.append(decode_word("%w1", "%sw1", "%xa1", "%xb1", "%xa3", "%xb3"))
            off = pl * 4096 + i * 512
            out.append(f"""\
    st.shared.v4.b32 [%dbuf+{off}], {{%xa0, %xa1, %xa2, %xa3}};
    st.shared.v4.b32 [%dbuf+{off + 2048}], {{%xb0, %xb1, %xb2, %xb3}};
""")
    out.append(f"""\
    bar.warp.sync -1;                         // the warp's stores are in: lane 0 publishes them
    shl.b32 %tmp, %db, 3;
    add.u32 %bar, %sm_dfull, %tmp;
    @%p_l0 mbarrier.arrive.shared::cta.b64 %mbstate, [%bar];
    add.u32 %db, %db, 1;
    setp.eq.u32 %p_wrap, %db, {{{{D_BUFS}}}};
    @%p_wrap mov.u32 %db, 0;
    @%p_wrap xor.b32 %dph, %dph, 1;
""")
    return "".join(out)


def decoders():
    return "".join(decoder_substep(j) for j in range(4))


if __name__ == "__main__":
    import sys
    print(consumer_unit() if sys.argv[1] == "c" else decoders(), end="")
