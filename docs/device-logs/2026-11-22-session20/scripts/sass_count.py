"""Count the SASS of each descriptor/scale variant's unit loop (the span from a unit's first to its 16th HGMMA) in
cuobjdump output (device call 3's dv.sass: `cuobjdump -sass` of the cubins `descvar.py` assembles), and print the
sub-step excerpt of the committed form.  python3 sass_count.py dv.sass > 03-loop-sass.txt"""
import re
import sys
from collections import Counter

txt = open(sys.argv[1]).read()
parts = re.split(r"^=== (.*)$", txt, flags=re.M)
excerpt = None
print("variant      span  " + "  ".join(f"{op:>6s}" for op in ("R2UR", "UMOV", "UIADD3", "SHFL", "LDS", "F2FP", "PRMT", "HMUL2")))
for i in range(1, len(parts), 2):
    name = parts[i].split("s20_")[1].replace(".cubin", "")
    ins = [re.sub(r"^/\*[0-9a-f]+\*/\s*", "", l.split(";")[0].strip()) for l in parts[i + 1].split("\n")
           if re.match(r"\s+/\*[0-9a-f]{4}\*/", l)]
    h = [j for j, x in enumerate(ins) if "HGMMA" in x]
    loop = ins[h[0]:h[15] + 1]
    ops = Counter(re.sub(r"^@!?U?P\w+\s+", "", x).split()[0].split(".")[0] for x in loop)
    print(f"{name:12s} {len(loop):4d}  " + "  ".join(f"{ops[op]:6d}" for op in
                                                 ("R2UR", "UMOV", "UIADD3", "SHFL", "LDS", "F2FP", "PRMT", "HMUL2")))
    if True:
        excerpt = (excerpt or "") + f"\n---- {name}: HGMMA 3 .. HGMMA 8 of the unit\n" + "\n".join(
            "    " + x for x in ins[h[3]:h[8] + 1]) + "\n"
print(excerpt)
