"""Experiment transforms of the GEMM cluster kernel's unit loop (session 12).

hoist(t): decode each piece's B fragments BEFORE its wgmma.wait_group instead of after it, so the decode overlaps
the two groups still queued (set p % 4's last reader, group p - 4, is complete since piece p - 1's wait)."""
import re

DEC = re.compile(r"    shf\.l\.wrap\.b32 %xr, %w0, %w0, 3;\n(?:    .*\n){28}    mul\.rn\.f16x2 %(\w)b3, %\wb3, %sw1;\n")
WAIT = "    wgmma.wait_group.sync.aligned {{WG_WAIT}};"


def hoist(t: str) -> tuple[str, int]:
    out, pos, n = [], 0, 0
    for mo in DEC.finditer(t):
        w = t.rfind(WAIT, pos, mo.start())
        assert w >= 0, "no wait_group before a decode block"
        out.append(t[pos:w])
        out.append(mo.group(0))
        out.append(t[w:mo.start()])
        pos = mo.end()
        n += 1
    out.append(t[pos:])
    return "".join(out), n


if __name__ == "__main__":
    import sys
    src = open(sys.argv[1]).read()
    res, n = hoist(src)
    open(sys.argv[2], "w").write(res)
    print(n, "decode blocks hoisted")


AND = re.compile(r"    and\.b32 %(\w)([ab])(\d), %xr, 0x8E008E00;\n")
MUL = re.compile(r"    mul\.rn\.f16x2 %(\w)([ab])(\d), %\w[ab]\d, (%sw[01]);\n")


def split_block(block: str) -> tuple[str, str]:
    """The integer part (and results into %dq0..7) and the 8 scale multiplies (temps -> fragments)."""
    ints = AND.sub(lambda mo: f"    and.b32 %dq{'ab'.index(mo.group(2)) * 4 + int(mo.group(3))}, %xr, 0x8E008E00;\n",
                   MUL.sub("", block))
    muls = "".join(f"    mul.rn.f16x2 %{mo.group(1)}{mo.group(2)}{mo.group(3)}, %dq{'ab'.index(mo.group(2)) * 4 + int(mo.group(3))}, {mo.group(4)};\n"
                   for mo in MUL.finditer(block))
    assert ints.count("%dq") == 8 and muls.count("mul.rn") == 8
    return ints, muls


def hoist_int(t: str) -> tuple[str, int]:
    """Only the integer decode moves before the wait_group (into temporaries that no wgmma reads); the scale
    multiplies that write the fragment set stay after it."""
    out, pos, n = [], 0, 0
    for mo in DEC.finditer(t):
        w = t.rfind(WAIT, pos, mo.start())
        assert w >= 0
        ints, muls = split_block(mo.group(0))
        out += [t[pos:w], ints, t[w:mo.start()], muls]
        pos = mo.end()
        n += 1
    out.append(t[pos:])
    res = "".join(out)
    decl = "    .reg .b32 %dq<8>;\n"
    first_reg = res.index("    .reg ")
    return res[:first_reg] + decl + res[first_reg:], n
