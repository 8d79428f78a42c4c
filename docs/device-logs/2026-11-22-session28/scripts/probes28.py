"""Session 28 probes: text transforms of a rendered cluster-GEMM build (two consumer warpgroups)."""
INS = "    wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16\n"
ACC128 = "{" + ", ".join(f"%acc{i}" for i in range(64)) + "}"
ACC64 = "{" + ", ".join(f"%acc{i}" for i in range(32)) + "}"
ACCHI = "{" + ", ".join(f"%acc{i}" for i in range(64, 128)) + "}"


def _one(t, a):
    assert t.count(a) == 1, (a, t.count(a))
    return t


def n64(t):
    """m64n64k16 on the first 32 accumulators: the tile's first 64 m rows only (exact for m <= 64)."""
    c = t.count(INS)
    assert c == t.count(ACC128) and c >= 16, (c, t.count(ACC128))
    return t.replace(INS, INS.replace("n128", "n64")).replace(ACC128, ACC64)


def maxnreg(t, cons=232, prod=40):
    """setmaxnreg: the producer warpgroup gives registers to the two consumer warpgroups."""
    go = "    @%p_lead bra PRODUCERS;\n"
    _one(t, go); _one(t, "PRODUCERS:\n")
    t = t.replace(go, go + f"    setmaxnreg.inc.sync.aligned.u32 {cons};\n", 1)
    return t.replace("PRODUCERS:\n", f"PRODUCERS:\n    setmaxnreg.dec.sync.aligned.u32 {prod};\n", 1)


def dbl(t, regs=True):
    """Every wgmma issued twice: the copy accumulates the same products into %acc64..127, which the segment epilogue
    adds to %acc0..63 and halves (exact: the two sums are equal).  Twice the tensor work, the same decode."""
    _one(t, "    .reg .f32   %acc<64>;\n")
    t = t.replace("    .reg .f32   %acc<64>;\n", "    .reg .f32   %acc<128>;\n", 1)
    parts = t.split(INS + "        " + ACC128 + ",\n")
    assert len(parts) >= 17, len(parts)
    out = [parts[0]]
    for p in parts[1:]:
        ops, rest = p.split("\n", 1)  # "        {%xa0, ...}, %desc, %p_acc, 1, 1, 0;"
        out.append(INS + "        " + ACC128 + ",\n" + ops + "\n" + INS + "        " + ACCHI + ",\n" + ops + "\n" + rest)
    t = "".join(out)
    w0 = "    wgmma.wait_group.sync.aligned 0;\n"
    assert t.count(w0) >= 1
    fold = "".join(f"    add.f32 %acc{i}, %acc{i}, %acc{64 + i};\n    mul.f32 %acc{i}, %acc{i}, 0f3F000000;\n"
                   for i in range(64))
    t = t.replace(w0, w0 + fold)
    return maxnreg(t) if regs else t


PROBES = {"n64": n64, "maxnreg": maxnreg, "dbl": dbl, "dbl_noreg": lambda t: dbl(t, regs=False)}


def noldB(t):
    """timing probe: the B words come from a register add instead of ld.shared (the current loop's w and pw pairs)"""
    import re
    i, j = t.index("UNIT_LOOP:"), t.index("    // ================================================================== segment epilogue")
    b, n = re.subn(r"    ld\.shared\.b32 (%p?w[01]), \[%addr(?:\+1024)?\];\n", r"    add.u32 \1, \1, %addr;\n", t[i:j])
    assert n >= 16, n
    return t[:i] + b + t[j:]


def strip_max(t):
    """session 26's nobar, nodec_nomul, norel and constsc, and noldB: no decode, no transfers after the first lap, no
    waits after it, no releases, constant scales, no B-word loads"""
    import probes26 as P26
    t = P26.PROBES["nobar"](t)
    t = P26.PROBES["nodec_nomul"](t)
    t = P26.norel(t)
    t = P26.constsc(t)
    return noldB(t)


PROBES.update({"noldB": noldB, "strip_max": strip_max, "dbl_strip_max": lambda t: dbl(strip_max(t))})
