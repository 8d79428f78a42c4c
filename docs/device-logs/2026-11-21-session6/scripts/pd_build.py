import sys, subprocess
sys.path.insert(0, ".scratch")
import predecode_transform, prof_transform
from nvfp4rt.ptxsource import render
src = open(".scratch/gx_A.ptx").read()
pd = predecode_transform.transform(src)
open(".scratch/gx_P.ptx", "w").write(pd)
open(".scratch/gp_P.ptx", "w").write(prof_transform.transform(pd))
for name in ("gx_P", "gp_P"):
    r = render(open(f".scratch/{name}.ptx").read(), "sm_90a", {"CLUSTER": 2, "A_BUFS": 4})
    open(f"/tmp/{name}.ptx", "w").write(r)
    p = subprocess.run(["/usr/local/cuda/bin/ptxas", "-arch=sm_90a", "-v", f"/tmp/{name}.ptx", "-o", "/tmp/x.cubin"], capture_output=True, text=True)
    print(name, p.returncode, "SERIALIZED" if "C7511" in p.stderr else "", [l.split(":")[-1] for l in p.stderr.splitlines() if "Used" in l or "spill" in l or "rror" in l][:4])
