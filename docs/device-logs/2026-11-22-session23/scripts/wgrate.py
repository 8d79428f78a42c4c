"""Session 18: what rate can wgmma m64n128k16 reach on its own?  A microbenchmark kernel: WGS consumer warpgroups
(plus an idle producer warpgroup, as in the GEMM) each issue PIECES pieces of two k16 wgmmas (one commit group per
piece) and wait for all but DEPTH groups after each commit, as the GEMM's loop does.  Variants: A from registers (RS,
the GEMM's form) or from shared memory (SS); ALU = an integer/half2 chain of that many instructions rewriting the
A fragment between the wait and the next wgmma.fence (a stand-in for the B decode).  Reports cycles per
"unit" = 16 k16 steps per warpgroup (the tensor pipe's dense rate: 64 clocks per m64n128k16, so 2048 per unit with two
warpgroups)."""
import sys, time
import numpy as np

ACC = ", ".join(f"%acc{i}" for i in range(64))


def kernel(wgs=2, rs=True, depth=1, alu=0, pieces=4096, indep=False, late_wait=False, sts=0, prod_alu=0, lds=False, prod_sts=0):
    L = []
    a = L.append
    a(".version 8.4\n.target sm_90a\n.address_size 64\n.extern .shared .align 1024 .b8 smem[];")
    a(".visible .entry wgrate(.param .u64 p_out)\n.maxntid %d, 1, 1\n.minnctapersm 1\n{" % (128 * (wgs + 1)))
    a("  .reg .pred %p, %p_acc;\n  .reg .b32 %th, %ct, %wg, %i, %addr, %v, %sm, %dlo, %dhi, %alo, %x, %y, %xa<16>, %t<4>, %yb<4>, %zc<4>, %stsa, %ldsa;")
    a("  .reg .b64 %t0c, %t1c, %desc, %adesc, %out;\n  .reg .f32 %acc<64>, %s;")
    a("  mov.u32 %th, %tid.x;\n  mov.u32 %sm, smem;\n  add.u32 %sm, %sm, 1023;\n  and.b32 %sm, %sm, -1024;")
    # fill 16 KB (B, 128 rows x 128 B) + 8 KB per warpgroup (A) with small finite fp16 values
    nthr, nwords = 128 * (wgs + 1), (16384 + 8192 * wgs) // 4
    a("  mov.u32 %i, %th;\nFILL:\n  shl.b32 %addr, %i, 2;\n  add.u32 %addr, %addr, %sm;\n"
      "  mul.lo.u32 %v, %i, 0x9E3779B1;\n  and.b32 %v, %v, 0x37FF37FF;\n  st.shared.u32 [%addr], %v;\n"
      f"  add.u32 %i, %i, {nthr};\n  setp.lt.u32 %p, %i, {nwords};\n  @%p bra FILL;")
    flag = 16384 + 8192 * wgs + 2048 * wgs * max(sts, 1)
    if prod_alu:   # producers: independent ALU chains until the consumers are done (worst-case neighbours)
        a(f"  mov.u32 %v, 0;\n  st.shared.u32 [%sm+{flag}], %v;")
    a("  bar.sync 0;\n  setp.lt.u32 %p, %th, 128;")
    if wgs == 4:
        a("  @%p bra PRODREG;\n  setmaxnreg.inc.sync.aligned.u32 112;\n  bra.uni REGDONE;\nPRODREG:\n  setmaxnreg.dec.sync.aligned.u32 24;\nREGDONE:")
    if prod_alu:
        a("  @%p bra PROD;")
    else:
        a("  @%p bra DONE;")
    a("  sub.u32 %ct, %th, 128;\n  shr.u32 %wg, %ct, 7;")
    a("  shr.u32 %dlo, %sm, 4;\n  or.b32 %dlo, %dlo, 0x10000;\n  mov.b32 %dhi, 0x40000040;")
    a("  mad.lo.u32 %alo, %wg, 8192, %sm;\n  add.u32 %alo, %alo, 16384;\n  shr.u32 %alo, %alo, 4;\n  or.b32 %alo, %alo, 0x10000;")
    for q in range(16):
        a(f"  mov.b32 %xa{q}, {0x3C003C00 - 0x02000200 * (q % 4)};")
    a(f"  and.b32 %stsa, %ct, 127;\n  shl.b32 %stsa, %stsa, 4;\n  mad.lo.u32 %stsa, %wg, {2048 * max(sts, 1)}, %stsa;\n  add.u32 %stsa, %stsa, %sm;\n  add.u32 %stsa, %stsa, {16384 + 8192 * wgs};")
    a("  and.b32 %ldsa, %ct, 127;\n  shl.b32 %ldsa, %ldsa, 4;\n  add.u32 %ldsa, %ldsa, %sm;")   # the B region (16 KB)
    a("  mov.b32 %t0, 0x01020304;\n  mov.b32 %t1, 0x0F0F0F0F;\n  mov.b32 %t2, 0x3C003C00;\n  mov.b32 %t3, 0;")
    for q in range(4):
        a(f"  mov.b32 %yb{q}, {0x3C003C00 - 0x02000200 * q};")
    a("  setp.ne.u32 %p_acc, 0, 0;\n  mov.u32 %i, 0;\n  mov.u64 %t0c, %clock64;")
    a("LOOP:")
    for piece in range(4):          # unrolled four pieces = a k64 sub-step (descriptor offsets 0..7 * 32 bytes)
        if alu:
            for j in range(alu):
                r = 4 * piece + j % 4
                reg = f"%yb{j % 4}" if indep else f"%xa{r}"
                if j % 3 == 0:
                    a(f"  lop3.b32 {reg}, {reg}, %t1, %t0, 0xE4;")
                elif j % 3 == 1:
                    a(f"  shf.l.wrap.b32 {reg}, {reg}, {reg}, 3;")
                else:
                    a(f"  and.b32 {reg}, {reg}, 0x3BFF3BFF;")
        if late_wait:
            a(f"  wgmma.wait_group.sync.aligned {depth};")
        if lds:    # the set's 4 registers, twice over (k16 steps a and b share one set here): 2 x 16 bytes
            a(f"  ld.shared.v4.b32 {{%xa{4 * piece}, %xa{4 * piece + 1}, %xa{4 * piece + 2}, %xa{4 * piece + 3}}}, [%ldsa+{piece * 4096}];")
            a(f"  ld.shared.v4.b32 {{%zc0, %zc1, %zc2, %zc3}}, [%ldsa+{piece * 4096 + 2048}];")
            a(f"  xor.b32 %xa{4 * piece}, %xa{4 * piece}, %zc0;\n  xor.b32 %xa{4 * piece + 1}, %xa{4 * piece + 1}, %zc3;")
        for q in range(sts):   # 16-byte shared stores per thread and piece into a scratch region (bandwidth only)
            a(f"  st.shared.v4.b32 [%stsa+{q * 2048}], {{%xa{4 * piece}, %xa{4 * piece + 1}, %xa{4 * piece + 2}, %xa{4 * piece + 3}}};")
        a("  wgmma.fence.sync.aligned;")
        for step in range(2):
            off = 2 * (2 * piece + step) % 8
            a(f"  add.u32 %x, %dlo, {off};\n  mov.b64 %desc, {{%x, %dhi}};")
            if rs:
                a(f"  wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{{ACC}}}, {{%xa{4 * piece}, %xa{4 * piece + 1}, %xa{4 * piece + 2}, %xa{4 * piece + 3}}}, %desc, %p_acc, 1, 1, 0;")
            else:
                a(f"  add.u32 %y, %alo, {off};\n  mov.b64 %adesc, {{%y, %dhi}};")
                a(f"  wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{{ACC}}}, %adesc, %desc, %p_acc, 1, 1, 0, 0;")
            a("  setp.eq.u32 %p_acc, 0, 0;")
        a("  wgmma.commit_group.sync.aligned;")
        if not late_wait:
            a(f"  wgmma.wait_group.sync.aligned {depth};")
    a(f"  add.u32 %i, %i, 4;\n  setp.lt.u32 %p, %i, {pieces};\n  @%p bra LOOP;")
    a("  wgmma.wait_group.sync.aligned 0;\n  mov.u64 %t1c, %clock64;")
    a("  add.f32 %s, %acc0, %acc63;")
    for q in range(4):
        a(f"  cvt.rn.f32.u32 %acc0, %yb{q};\n  add.f32 %s, %s, %acc0;")
    for i in range(1, 63):
        a(f"  add.f32 %s, %s, %acc{i};")
    a("  ld.param.u64 %out, [p_out];\n  mov.u32 %v, %ctaid.x;\n  mad.lo.u32 %v, %v, 256, %ct;\n  mul.wide.u32 %t1c, %v, 16;"
      "\n  add.u64 %out, %out, %t1c;\n  mov.u64 %t1c, %clock64;\n  sub.u64 %t1c, %t1c, %t0c;\n  cvt.rn.f32.u64 %s, %s;" if False else "")
    a("  sub.s64 %t1c, %t1c, %t0c;\n  ld.param.u64 %out, [p_out];\n  mov.u32 %v, %ctaid.x;\n  mad.lo.u32 %v, %v, 640, %ct;"
      "\n  mul.wide.u32 %t0c, %v, 16;\n  add.u64 %out, %out, %t0c;\n  st.global.v2.u64 [%out], {%t1c, %t1c};\n  st.global.f32 [%out+8], %s;")
    if prod_alu:
        a(f"  setp.eq.u32 %p, %ct, 0;\n  mov.u32 %v, 1;\n  @%p st.volatile.shared.u32 [%sm+{flag}], %v;\n  bra.uni DONE;")
        a("PROD:\n  mov.b32 %t0, 0x01020304;\n  mov.b32 %t1, 0x0F0F0F0F;")
        for q in range(4):
            a(f"  mov.b32 %yb{q}, {0x3C003C00 - 0x02000200 * q};")
        a(f"PLOOP:\n  ld.volatile.shared.u32 %v, [%sm+{flag}];\n  setp.ne.u32 %p, %v, 0;\n  @%p bra PDONE;")
        for j in range(prod_alu):
            reg = f"%yb{j % 4}"
            a([f"  lop3.b32 {reg}, {reg}, %t1, %t0, 0xE4;", f"  shf.l.wrap.b32 {reg}, {reg}, {reg}, 3;",
               f"  and.b32 {reg}, {reg}, 0x3BFF3BFF;"][j % 3])
        if prod_sts:
            a(f"  shl.b32 %addr, %th, 4;\n  add.u32 %addr, %addr, %sm;")
            for q in range(prod_sts):
                a(f"  st.shared.v4.b32 [%addr+{flag + 16 + 2048 * q}], {{%yb0, %yb1, %yb2, %yb3}};")
        a("  bra.uni PLOOP;\nPDONE:\n  xor.b32 %v, %yb0, %yb1;\n  xor.b32 %v, %v, %yb2;\n  xor.b32 %v, %v, %yb3;")
        a(f"  shl.b32 %addr, %th, 2;\n  add.u32 %addr, %addr, %sm;\n  st.shared.u32 [%addr+{flag + 16}], %v;")
    a("DONE:\n  ret;\n}")
    return "\n".join(L) + "\n"


if __name__ == "__main__" and "--ptx" in sys.argv:
    print(kernel(rs="--ss" not in sys.argv, alu=30))
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
    cases = []
    for wgs in (2, 3, 4):
        for alu in (0, 32, 48, 64, 80, 96):
            cases.append((f"RS {wgs}wg depth1 alu{alu}", dict(wgs=wgs, rs=True, depth=1, alu=alu)))
    for grid in (132,):
        for tag, kw in cases:
            mod = load(kernel(pieces=pieces, **kw), target="sm_90a")
            kern = mod.kernel("wgrate")
            shm = 1024 + 16384 + 8192 * kw["wgs"] + 2048 * kw["wgs"] * max(kw.get("sts", 0), 1) + 16 + 512 + 2048 * max(kw.get("prod_sts", 0), 1)
            kern.set_max_dynamic_shared(shm)
            res = []
            for rep in range(3):
                kern(Pointer(out.ptr), grid=grid, block=128 * (kw["wgs"] + 1), shared_mem=shm)
                driver.call("cuCtxSynchronize")
                buf = np.zeros(132 * 640 * 2, np.uint64)
                driver.call("cuMemcpyDtoH", buf.ctypes.data, out.ptr, buf.nbytes)
                cyc = buf.reshape(132, 640, 2)[:grid, :128 * kw["wgs"], 0].astype(np.int64)
                res.append(np.median(cyc))
            units = pieces / 8
            c = min(res) / units
            ideal = 1024 * kw["wgs"]
            print(f"grid {grid:3d} {tag:40s} {c:7.0f} cycles per unit  ({ideal / c * 100:5.1f}% of the tensor pipe)"
                  f"  {c / kw['wgs'] * 2:7.0f} per 2-wg unit", flush=True)
