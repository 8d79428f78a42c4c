"""Session 34: parse cuobjdump -sass output of an sm_90 cubin into (address, text, stall, yield, write barrier, read
barrier, wait mask, reuse): the control bits in each instruction's second 64-bit word (bits 41-62).  As a script it
prints an address range: sass_control.py DUMP FROM TO (hex)."""
import re, sys
def parse(path):
    lines = open(path).read().splitlines()
    out = []
    i = 0
    pat = re.compile(r'/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*/\* (0x[0-9a-f]{16}) \*/')
    while i < len(lines):
        m = pat.search(lines[i])
        if m:
            addr, text, lo = m.group(1), m.group(2), int(m.group(3), 16)
            m2 = re.search(r'/\* (0x[0-9a-f]{16}) \*/', lines[i+1])
            hi = int(m2.group(1), 16)
            c = hi >> 41
            stall = c & 0xF; yld = (c >> 4) & 1; wb = (c >> 5) & 7; rb = (c >> 8) & 7; wm = (c >> 11) & 0x3F; reuse = (c >> 17) & 0xF
            out.append((int(addr, 16), text.strip().rstrip(';').strip(), stall, yld, wb, rb, wm, reuse))
            i += 2
        else:
            i += 1
    return out
def fmt(ins):
    a, t, s, y, wb, rb, wm, ru = ins
    w = ''.join(str(b) for b in range(6) if wm >> b & 1)
    return f"{a:05x} S{s:02d}{'Y' if y==0 else ' '} wb{wb if wb!=7 else '-'} rb{rb if rb!=7 else '-'} wt[{w:6s}] {t}"
if __name__ == "__main__":
    ins = parse(sys.argv[1])
    lo, hi = int(sys.argv[2], 16), int(sys.argv[3], 16)
    for x in ins:
        if lo <= x[0] <= hi: print(fmt(x))
