"""Session 34: for each piece of a unit loop (cuobjdump -sass of a build), from wgmma.fence (WARPGROUP.ARRIVE) to
its second HGMMA: the instruction count, the sum of their stall counts, and any instruction that waits on a
scoreboard.  Usage: sass_pieces.py DUMP SHAPE (e.g. 64x128)."""
import sys
sys.path.insert(0,'.')
from sass_control import parse, fmt
def summary(path, shape):
    ins = parse(path)
    idx = [i for i,x in enumerate(ins) if x[1].startswith('HGMMA.'+shape)]
    lo, hi = idx[0]-80, idx[-1]+5
    seg = ins[lo:hi]
    # for each ARRIVE..second HGMMA, summarize
    out=[]
    i=0
    while i < len(seg):
        if seg[i][1].startswith('WARPGROUP.ARRIVE'):
            j=i; hg=[]
            while j < len(seg) and len(hg) < 2:
                if seg[j][1].startswith('HGMMA'): hg.append(j)
                j+=1
            if len(hg)<2: break
            body = seg[i:hg[1]+1]
            stall = sum(x[2] for x in body)
            waits = [fmt(x) for x in body if x[6]]
            out.append((len(body), stall, waits))
            i = hg[1]
        i+=1
    return out
for p, s in ((sys.argv[1], sys.argv[2]),):
    for n, st, w in summary(p, s):
        print(n, st, w)
