"""Session 23: what each instruction class costs a register-A wgmma loop.  Like the session-18 microbenchmark
(wgrate.py: two consumer warpgroups, an idle producer warpgroup, 132 CTAs), but each piece first loads two B words
per thread from shared memory (as the GEMM does) and then runs BODY, which writes the piece's 8 fragment registers
(two k16 steps: sets a and b) from them; the wgmmas read those.  Reports cycles per WG-piece (2 wgmma k16 = 128
tensor-pipe clocks) and per unit."""
import sys, time
import numpy as np

ACC = ", ".join(f"%acc{i}" for i in range(64))
DEC_WORD = """    shf.l.wrap.b32 %xr, {w}, {w}, 3;
    lop3.b32 %we, {w}, %xr, 0x07070707, 0xE4;
    lop3.b32 %wo, {w}, %xr, 0x70707070, 0xE4;
    shl.b32 %xr, %we, 9;
    and.b32 {a0}, %xr, 0x8E008E00;
    shl.b32 %xr, %wo, 5;
    and.b32 {b0}, %xr, 0x8E008E00;
    shl.b32 %xr, %we, 1;
    and.b32 {a2}, %xr, 0x8E008E00;
    shf.r.wrap.b32 %xr, %wo, %wo, 3;
    and.b32 {b2}, %xr, 0x8E008E00;"""


def body(kind, f, w0="%w0", w1="%w1"):
    """f(set, i) -> fragment register name; set 'a' or 'b', i 0..3."""
    L = []
    if kind in ("dec", "dec_nomul"):
        L.append(DEC_WORD.format(w=w0, a0=f("a", 0), b0=f("b", 0), a2=f("a", 2), b2=f("b", 2)))
        L.append(DEC_WORD.format(w=w1, a0=f("a", 1), b0=f("b", 1), a2=f("a", 3), b2=f("b", 3)))
        if kind == "dec":
            for s in "ab":
                for i in range(4):
                    L.append(f"    mul.rn.f16x2 {f(s, i)}, {f(s, i)}, {'%sw0' if i % 2 == 0 else '%sw1'};")
        return "\n".join(L)
    srcs = [w0, w1]
    regs = [f(s, i) for s in "ab" for i in range(4)]
    if kind == "none":
        return "\n".join(f"    xor.b32 {r}, {srcs[j % 2]}, {j};" for j, r in enumerate(regs))   # 8 LOP3
    if kind == "mul8":      # 8 HMUL2
        return "\n".join(f"    mul.rn.f16x2 {r}, {srcs[j % 2]}, %sw0;" for j, r in enumerate(regs))
    if kind == "mul16":     # 16 HMUL2
        return "\n".join(f"    mul.rn.f16x2 {r}, {srcs[j % 2]}, %sw0;\n    mul.rn.f16x2 {r}, {r}, %sw1;" for j, r in enumerate(regs))
    if kind == "fma16":     # 16 HFMA2
        return "\n".join(f"    fma.rn.f16x2 {r}, {srcs[j % 2]}, %sw0, %sw1;\n    fma.rn.f16x2 {r}, {r}, %sw1, %sw0;" for j, r in enumerate(regs))
    if kind == "lop16":     # 16 LOP3
        return "\n".join(f"    lop3.b32 {r}, {srcs[j % 2]}, %sw0, 0x8E008E00, 0xE4;\n    lop3.b32 {r}, {r}, %sw1, 0x0E000E00, 0xE4;" for j, r in enumerate(regs))
    if kind == "imad16":    # 16 IMAD (mad.lo with a register multiplier, so ptxas cannot make shifts)
        return "\n".join(f"    mad.lo.u32 {r}, {srcs[j % 2]}, %mulk, %sw0;\n    mad.lo.u32 {r}, {r}, %mulk, %sw1;" for j, r in enumerate(regs))
    if kind == "shl16":     # 16 shifts by immediates (ptxas may pick SHF or IMAD.SHL)
        return "\n".join(f"    shl.b32 {r}, {srcs[j % 2]}, {1 + j};\n    shl.b32 {r}, {r}, 3;" for j, r in enumerate(regs))
    if kind == "prmt16":
        return "\n".join(f"    prmt.b32 {r}, {srcs[j % 2]}, %sw0, 0x5140;\n    prmt.b32 {r}, {r}, %sw1, 0x7362;" for j, r in enumerate(regs))
    if kind == "cvt8":      # 8 cvt e4m3x2 -> f16x2 (F2FP)
        out = []
        for j, r in enumerate(regs):
            out.append(f"    mov.b32 {{%h0, %h1}}, {srcs[j % 2]};\n    cvt.rn.f16x2.e4m3x2 {r}, {'%h0' if j < 4 else '%h1'};")
        return "\n".join(out)
    if kind == "iadd16":
        return "\n".join(f"    add.u32 {r}, {srcs[j % 2]}, %sw0;\n    add.u32 {r}, {r}, %sw1;" for j, r in enumerate(regs))
    raise ValueError(kind)


def kernel(kind, pieces=4096, wgs=2, sync=0, bw=0, arr=0, pspin=0, nbuf=0, unroll=4, scl=0, depth=1, sets=4):
    L = []
    a = L.append
    a(".version 8.4\n.target sm_90a\n.address_size 64\n.extern .shared .align 1024 .b8 smem[];")
    a(".visible .entry wgrate(.param .u64 p_out)\n.maxntid %d, 1, 1\n.minnctapersm 1\n{" % (128 * (wgs + 1)))
    a("  .reg .pred %p, %p_acc;\n  .reg .b32 %th, %ct, %wg, %i, %addr, %v, %sm, %dlo, %dhi, %x, %xr, %we, %wo, %w0, %w1, %sw0, %sw1, %mulk, %ldsa, %la, %mb, %dsub, %dcur, %scw, %sq0, %sq1, %fa<16>, %fb<16>;")
    a("  .reg .b16 %h0, %h1, %sb0, %sbx, %hl, %hh;\n  .reg .pred %p_ready, %p_l0, %p_stop;\n  .reg .b64 %t0c, %t1c, %desc, %out, %mbst;\n  .reg .f32 %acc<64>, %s;")
    a("  mov.u32 %th, %tid.x;\n  mov.u32 %sm, smem;\n  add.u32 %sm, %sm, 1023;\n  and.b32 %sm, %sm, -1024;")
    nthr, nwords = 128 * (wgs + 1), (33792 + 16384 * nbuf) // 4 if nbuf else (16384 + 16384) // 4
    a("  mov.u32 %i, %th;\nFILL:\n  shl.b32 %addr, %i, 2;\n  add.u32 %addr, %addr, %sm;\n"
      "  mul.lo.u32 %v, %i, 0x9E3779B1;\n  and.b32 %v, %v, 0x37FF37FF;\n  st.shared.u32 [%addr], %v;\n"
      f"  add.u32 %i, %i, {nthr};\n  setp.lt.u32 %p, %i, {nwords};\n  @%p bra FILL;")
    a("  add.u32 %mb, %sm, 32768;\n  setp.eq.u32 %p, %th, 0;")
    a("  @%p mbarrier.init.shared::cta.b64 [%mb], 1;\n  @%p mbarrier.init.shared::cta.b64 [%mb+8], 1000000;")
    a("  @%p mbarrier.init.shared::cta.b64 [%mb+16], 1;\n  mov.u32 %v, 0;\n  @%p st.shared.u32 [%mb+24], %v;")
    a("  bar.sync 0;\n  @%p mbarrier.arrive.shared::cta.b64 %mbst, [%mb];\n  bar.sync 0;")
    a("  setp.lt.u32 %p, %th, 128;")
    if pspin:
        a("  @%p bra PSPIN;")
    else:
        a("  @%p bra DONE;")
    a("  sub.u32 %ct, %th, 128;\n  shr.u32 %wg, %ct, 7;")
    a("  shr.u32 %dlo, %sm, 4;\n  or.b32 %dlo, %dlo, 0x10000;\n  mov.b32 %dhi, 0x40000040;")
    a("  mov.b32 %sw0, 0x3C003C00;\n  mov.b32 %sw1, 0x3A003A00;\n  mov.b32 %mulk, 0x201;")
    a("  and.b32 %ldsa, %ct, 127;\n  shl.b32 %ldsa, %ldsa, 2;\n  add.u32 %ldsa, %ldsa, %sm;\n  add.u32 %ldsa, %ldsa, 16384;")
    a("  setp.ne.u32 %p_acc, 0, 0;\n  mov.u32 %i, 0;\n  mov.u64 %t0c, %clock64;")
    if nbuf:
        a("  add.u32 %dsub, %sm, 33792;\n  shr.u32 %dsub, %dsub, 4;\n  or.b32 %dsub, %dsub, 0x10000;")
    a("LOOP:")
    a("  shl.b32 %la, %i, 2;\n  and.b32 %la, %la, 0x1FC;\n  add.u32 %la, %la, %ldsa;")   # loop-variant words
    for piece in range(unroll):
        if sync and piece % sync == 0:   # both consumer warpgroups meet (named barrier 1, 256 threads)
            a("  bar.sync 1, 256;")
        if nbuf and piece % 2 == 0:   # a16 buffer of this sub-step: (i / 2 + piece / 2) % nbuf
            a(f"  shr.u32 %v, %i, 1;\n  add.u32 %v, %v, {piece // 2};\n  and.b32 %v, %v, {nbuf - 1};\n  mad.lo.u32 %dcur, %v, 1024, %dsub;")
        if scl and piece % 2 == 0:    # this sub-step's scales: a word, prmt, cvt, broadcast (as the GEMM)
            a(f"  ld.shared.b32 %scw, [%la+{(piece % 4) * 1024 + 256}];\n  prmt.b32 %v, %scw, 0, 0x3210;\n  mov.b32 {{%sb0, %sbx}}, %v;")
            a("  cvt.rn.f16x2.e4m3x2 %sq0, %sb0;\n  cvt.rn.f16x2.e4m3x2 %sq1, %sbx;")
            a("  mov.b32 {%hl, %hh}, %sq0;\n  mov.b32 %sw0, {%hl, %hl};\n  mov.b32 {%hl, %hh}, %sq1;\n  mov.b32 %sw1, {%hl, %hl};")
        a(f"  ld.shared.b32 %w0, [%la+{(piece % 4) * 1024}];\n  ld.shared.b32 %w1, [%la+{(piece % 4) * 1024 + 512}];")
        a(f"  wgmma.wait_group.sync.aligned {depth};")
        if arr and piece % 2 == 1:
            a("  and.b32 %v, %ct, 31;\n  setp.eq.u32 %p_l0, %v, 0;\n  @%p_l0 mbarrier.arrive.shared::cta.b64 %mbst, [%mb+8];")
        f = lambda s, i, piece=piece: f"%f{s}{4 * (piece % sets) + i}"
        a(body(kind, f))
        if bw and piece % 2 == 0:
            a(f"BW{piece}:\n  mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%mb], 0;\n  @!%p_ready bra BW{piece};")
        a("  wgmma.fence.sync.aligned;")
        for step, s in enumerate("ab"):
            off = 2 * (2 * piece + step) % 8
            a(f"  add.u32 %x, {'%dcur' if nbuf else '%dlo'}, {off};\n  mov.b64 %desc, {{%x, %dhi}};")
            regs = ", ".join(f(s, i) for i in range(4))
            a(f"  wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{{ACC}}}, {{{regs}}}, %desc, %p_acc, 1, 1, 0;")
            a("  setp.eq.u32 %p_acc, 0, 0;")
        a("  wgmma.commit_group.sync.aligned;")
    a(f"  add.u32 %i, %i, {unroll};\n  setp.lt.u32 %p, %i, {pieces};\n  @%p bra LOOP;")
    a("  wgmma.wait_group.sync.aligned 0;\n  mov.u64 %t1c, %clock64;")
    a("  add.f32 %s, %acc0, %acc63;")
    for i in range(1, 63):
        a(f"  add.f32 %s, %s, %acc{i};")
    a("  sub.s64 %t1c, %t1c, %t0c;\n  ld.param.u64 %out, [p_out];\n  mov.u32 %v, %ctaid.x;\n  mad.lo.u32 %v, %v, 640, %ct;"
      "\n  mul.wide.u32 %t0c, %v, 16;\n  add.u64 %out, %out, %t0c;\n  st.global.v2.u64 [%out], {%t1c, %t1c};\n  st.global.f32 [%out+8], %s;")
    if pspin:
        a("  mov.u32 %v, 1;\n  st.volatile.shared.u32 [%mb+24], %v;\n  bra.uni DONE;")
        a("PSPIN:\n  setp.ge.u32 %p, %th, 64;\n  @%p bra DONE;")
        a("PSPIN_L:\n  mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%mb+16], 0;\n  ld.volatile.shared.u32 %v, [%mb+24];")
        a("  setp.eq.u32 %p_stop, %v, 0;\n  @%p_stop bra PSPIN_L;")
    a("DONE:\n  ret;\n}")
    return "\n".join(L) + "\n"


KINDS = ["none", "dec", "dec_nomul", "mul8", "mul16", "fma16", "lop16", "imad16", "shl16", "prmt16", "cvt8", "iadd16"]

if __name__ == "__main__" and "--ptx" in sys.argv:
    print(kernel(sys.argv[2]))
    sys.exit()

if __name__ == "__main__":
    import nvfp4rt
    from nvfp4rt import driver
    from nvfp4rt.module import load
    from nvfp4rt.launch import Pointer
    from nvfp4rt.memory import DeviceAllocation
    dev = nvfp4rt.device()
    print(dev.properties.name, time.strftime("%Y-%m-%d %H:%M:%S"), flush=True)
    pieces = 4096
    out = DeviceAllocation(132 * 640 * 16)
    for spec in (sys.argv[1:] or KINDS):
        kind, *opts = spec.split(":")
        kw = dict(o.split("=") for o in opts)
        mod = load(kernel(kind, pieces=pieces, **{k2: int(v) for k2, v in kw.items()}), target="sm_90a")
        kern = mod.kernel("wgrate")
        shm = 1024 + 33792 + 16384 * int(kw.get('nbuf', 0))
        kern.set_max_dynamic_shared(shm)
        res = []
        for rep in range(3):
            kern(Pointer(out.ptr), grid=132, block=128 * (int(kw.get('wgs', 2)) + 1), shared_mem=shm)
            driver.call("cuCtxSynchronize")
            buf = np.zeros(132 * 640 * 2, np.uint64)
            driver.call("cuMemcpyDtoH", buf.ctypes.data, out.ptr, buf.nbytes)
            cyc = buf.reshape(132, 640, 2)[:, :128 * int(kw.get('wgs', 2)), 0].astype(np.int64)
            res.append(np.median(cyc))
        nw = int(kw.get('wgs', 2))
        c = min(res) / (pieces / 8)
        print(f"{spec:10s} {c:7.0f} cycles per unit of {nw} wg ({1024 * nw / c * 100:5.1f}% of the pipe), {c / (8 * nw):6.1f} per WG-piece", flush=True)
