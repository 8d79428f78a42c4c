"""Session 27: the consumers' unit loop in the SASS of the default K-split build (ks) and the tail-helper build (kh).
The cubins are compiled offline (ptxas -arch=sm_90a from the rendered PTX), and cuobjdump -sass ran on the device.
Usage: python3 sass_cmp.py ks.sass kh.sass."""
import collections, difflib, re, sys


def load(path):
    out = []
    for line in open(path):
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m:
            out.append((int(m.group(1), 16), re.sub(r"\s+", " ", m.group(2).strip())))
    return out


def unit_loop(ins):
    """the loop that holds the HGMMAs: from the target of the first backward branch after the last HGMMA that jumps
    above the first HGMMA, to that branch"""
    h = [i for i, (_, t) in enumerate(ins) if "HGMMA" in t]
    at = {a: i for i, (a, _) in enumerate(ins)}
    for j in range(h[-1], len(ins)):
        t = ins[j][1]
        tgt = re.findall(r"0x([0-9a-f]+)", t) if "BRA" in t else []
        if tgt and int(tgt[-1], 16) < ins[h[0]][0]:
            return ins[at[int(tgt[-1], 16)]:j + 1]
    raise ValueError("no loop found")


def opcode(t):
    w = t.split()
    return w[1] if w[0].startswith("@") else w[0]


loops = {}
for path in sys.argv[1:3]:
    body = unit_loop(load(path))
    loops[path] = [opcode(t) for _, t in body]
    hist = collections.Counter(loops[path])
    print(f"{path}: unit loop {hex(body[0][0])}..{hex(body[-1][0])}, {len(body)} instructions")
    print("   " + ", ".join(f"{k} {v}" for k, v in sorted(hist.items(), key=lambda x: -x[1])))
a, b = (loops[p] for p in sys.argv[1:3])
sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
print(f"opcode histograms differ in: {dict((collections.Counter(a) - collections.Counter(b)) + (collections.Counter(b) - collections.Counter(a)))}")
print(f"opcode-order similarity (difflib ratio): {sm.ratio():.3f}; blocks that differ: "
      f"{sum(1 for op in sm.get_opcodes() if op[0] != 'equal')}")
