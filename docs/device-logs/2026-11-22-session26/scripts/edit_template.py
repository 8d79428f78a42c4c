"""Apply session 26's unit-loop changes to ptx/gemm_nvfp4_wgmma_cluster.ptx (run once)."""
import re
P = "ptx/gemm_nvfp4_wgmma_cluster.ptx"
s = open(P).read()
i = s.index("UNIT_LOOP:\n")
j = s.index("    // ================================================================== segment epilogue")
pre, b, post = s[:i], s[i:j], s[j:]

# ---- 1. B words a piece earlier: pieces 0 and 1 at the unit's top, piece p + 2 after piece p's commit; odd pieces
#         in their own pair (%pw0, %pw1)
LD = re.compile(r"    xor\.b32 %addr, %bslot, (\d+);[^\n]*\n    ld\.shared\.b32 %w0, \[%addr\];\n    ld\.shared\.b32 %w1, \[%addr\+1024\];\n")
DEC = re.compile(r"((?:    (?:shf|lop3|shl|and|mul)\.[^\n]*\n){30})")
loads, decs = list(LD.finditer(b)), list(DEC.finditer(b))
assert len(loads) == 8 and len(decs) == 8
assert [int(m.group(1)) for m in loads] == [16 * i for i in range(8)]


def ld(pp):
    r0, r1 = ("%w0", "%w1") if pp % 2 == 0 else ("%pw0", "%pw1")
    return (f"    xor.b32 %addr, %bslot, {16 * pp};{' ' * (10 - len(str(16 * pp)))}// piece {pp}: chunk {pp} of row g (swizzled), "
            f"word t; row g + 8 at + 1024\n    ld.shared.b32 {r0}, [%addr];\n    ld.shared.b32 {r1}, [%addr+1024];\n")


events = sorted([(m.start(), m.end(), "ld", k) for k, m in enumerate(loads)] + [(m.start(), m.end(), "dec", k) for k, m in enumerate(decs)])
out, pos = [], 0
for s0, e0, kind, k in events:
    out.append(b[pos:s0])
    if kind == "ld":
        out.append(ld(0) + ld(1) if k == 0 else (ld(k + 1) if k + 1 < 8 else ""))
    else:
        blk = b[s0:e0]
        if k % 2 == 1:
            blk = blk.replace("%w0", "%pw0").replace("%w1", "%pw1")
        out.append(blk)
    pos = e0
out.append(b[pos:])
b = "".join(out)
# the prefetch comments: what each block now loads
b = b.replace("    // ---- prefetch piece 0: its two B words and scales (before the A work of sub-step 0)\n",
              "    // ---- prefetch pieces 0 and 1: their B words (odd pieces' in %pw0, %pw1), and piece 0's scales\n", 1)
for p in range(1, 8):
    old = f"    // ---- prefetch piece {p}: its two B words and scales (loaded while the wgmmas of piece {p - 1} run)\n"
    assert b.count(old) == 1, p
    new = (f"    // ---- prefetch: piece {p + 1}'s B words (a piece ahead of its decode), piece {p}'s scales (while the wgmmas of "
           f"piece {p - 1} run)\n" if p < 7 else
           f"    // ---- prefetch: piece 7's scales (while the wgmmas of piece 6 run; its B words are in)\n")
    b = b.replace(old, new, 1)

# ---- 2. one 64-bit descriptor per sub-step; each wgmma's is a 64-bit add of its k16 offset
n = 0
for m in list(re.finditer(r"(    // ---- piece (\d): B fragments)", b))[::-1]:
    pp = int(m.group(2))
    if pp % 2 == 0:
        b = b[:m.start()] + "    mov.b64 %dbase, {%dlo, %desc_hi};        // the sub-step's descriptor (+ 2 per k16 step)\n" + b[m.start():]
        n += 1
assert n == 4
b, n = re.subn(r"    add\.u32 %x, %dlo, (\d+);[^\n]*\n    mov\.b64 %desc, \{%x, %desc_hi\};\n", r"    add.s64 %desc, %dbase, \1;\n", b)
assert n == 16, n

# ---- 3. A_UNIT: each sub-step's afull barrier tested (non-blocking) about two pieces before its wait
for sst in range(4):
    mark = ("    // ---- prefetch pieces 0 and 1:" if sst == 0 else "    // ---- prefetch: piece " + str(2 * sst) + "'s B words")
    assert b.count(mark) == 1, mark
    b = b.replace(mark, "// {{if A_UNIT}}\n"
                  f"    add.u32 %eb, %abar, {8 * sst};\n"
                  f"    mbarrier.test_wait.parity.shared::cta.b64 %p_ea{sst}, [%eb], %aph;  // sub-step {sst}'s a16, looked at early\n"
                  "// {{endif}}\n" + mark, 1)
    old = (f"// {{{{if A_UNIT}}}}\n    add.u32 %bar, %abar, {8 * sst};\n// {{{{else}}}}\n    shl.b32 %tmp, %ab, 3;\n"
           f"    add.u32 %bar, %sm_afull, %tmp;\n// {{{{endif}}}}\nC_WAIT_A{sst}:\n"
           f"    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %aph;\n    @!%p_ready bra C_WAIT_A{sst};\n")
    assert b.count(old) == 1, sst
    new = (f"// {{{{if A_UNIT}}}}\n    add.u32 %bar, %abar, {8 * sst};\n    @%p_ea{sst} bra C_AOK{sst};                   // already complete\n"
           f"// {{{{else}}}}\n    shl.b32 %tmp, %ab, 3;\n"
           f"    add.u32 %bar, %sm_afull, %tmp;\n// {{{{endif}}}}\nC_WAIT_A{sst}:\n"
           f"    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %aph;\n    @!%p_ready bra C_WAIT_A{sst};\n"
           f"// {{{{if A_UNIT}}}}\nC_AOK{sst}:\n// {{{{endif}}}}\n")
    b = b.replace(old, new, 1)

# ---- 4. the next unit's full barrier tested before piece 6; the unit's top skips its wait when that saw it full
old = "C_WAIT_FULL:\n    mbarrier.try_wait.parity.shared::cta.b64 %p_ready, [%bar], %phase;\n    @!%p_ready bra C_WAIT_FULL;\n"
assert b.count(old) == 1
b = b.replace(old, "    @%p_fok bra C_FULL_OK;                    // the previous unit saw this stage full\n" + old + "C_FULL_OK:\n", 1)
mark = "    // ---- prefetch: piece 7's B words"
assert b.count(mark) == 1
b = b.replace(mark, ("    // ---- the next unit's stage, looked at early (non-blocking): the unit's top skips its wait when it is full\n"
                     "    add.u32 %nslot, %slot, 1;\n    setp.eq.u32 %p_nw, %nslot, %S;\n    @%p_nw mov.u32 %nslot, 0;\n"
                     "    selp.b32 %nphase, 1, 0, %p_nw;\n    xor.b32 %nphase, %nphase, %phase;\n"
                     "    shl.b32 %fbar, %nslot, 3;\n    add.u32 %fbar, %fbar, %sm_full;\n"
                     "    mbarrier.test_wait.parity.shared::cta.b64 %p_fok, [%fbar], %nphase;\n") + mark, 1)
assert pre.endswith("\n")
k = pre.rindex("\n", 0, len(pre) - 1)
pre = pre + "    setp.ne.u32 %p_fok, 0, 0;                 // no stage seen full ahead of its unit yet\n"
# registers
old = "    .reg .b32   %desc_hi, %dlo, %dlou, %abar, %aebar;                          // A_UNIT: %dlou..%aebar\n"
assert pre.count(old) == 1
pre = pre.replace(old, old + "    .reg .b32   %pw0, %pw1, %eb, %nslot, %nphase, %fbar;                      // session 26's loop\n"
                  "    .reg .b64   %dbase;\n    .reg .pred  %p_ea<4>, %p_fok, %p_nw;\n", 1)
open(P, "w").write(pre + b + post)
print("ok")
