"""Experiment: the grouped cluster kernel with the consumers' B decode replaced by two 16-byte shared
loads per piece (garbage values: timing only).  Bounds what moving the decode out of the consumers gains."""
import re

DECODE = re.compile(r"    shf\.l\.wrap\.b32 %xr, %w0, %w0, 3;\n(?:    (?:shf\.|lop3\.|shl\.b32 %xr|and\.b32 %[xyzw][ab]\d, %xr|mul\.rn\.f16x2 %[xyzw][ab]\d)[^\n]*\n)+")
PREFETCH = re.compile(r"(    xor\.b32 %addr, %bslot, \d+;[^\n]*\n)    ld\.shared\.b32 %w0, \[%addr\];\n    ld\.shared\.b32 %w1, \[%addr\+1024\];\n"
                      r"(?:    (?:ld\.shared\.u8|cvt\.rn\.f16x2\.e4m3x2|mov\.b32)[^\n]*\n)+")


def transform(t: str) -> str:
    n = 0

    def dec(m):
        nonlocal n
        n += 1
        dst = re.findall(r"and\.b32 (%\w+), %xr, 0x8E008E00;", m.group(0))
        assert len(dst) == 8, dst
        a0, b0, a2, b2, a1, b1, a3, b3 = dst
        return (f"    and.b32 %xr, %addr, 0xFFFFFFF0;\n"
                f"    ld.shared.v4.b32 {{{a0}, {a1}, {a2}, {a3}}}, [%xr];\n"
                f"    ld.shared.v4.b32 {{{b0}, {b1}, {b2}, {b3}}}, [%xr+1024];\n")
    t = DECODE.sub(dec, t)
    t, k = PREFETCH.subn(lambda m: m.group(1), t)
    print(f"predecode: {n} decode blocks, {k} prefetch blocks replaced")
    return t
