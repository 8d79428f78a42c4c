import sys, subprocess
sys.path.insert(0, ".scratch")
from prof_transform import transform
from nvfp4rt.ptxsource import render
for name in sys.argv[1:]:
    src = open(f".scratch/gx_{name}.ptx").read()
    out = transform(src)
    open(f".scratch/gp_{name}.ptx", "w").write(out)
    r = render(out, "sm_90a", {"CLUSTER": 2, "A_BUFS": 4})
    open(f"/tmp/gp_{name}.ptx", "w").write(r)
    p = subprocess.run(["/usr/local/cuda/bin/ptxas", "-arch=sm_90a", "-v", f"/tmp/gp_{name}.ptx", "-o", "/tmp/gp.cubin"], capture_output=True, text=True)
    print(name, p.returncode, "SERIALIZED" if "C7511" in p.stderr else "", [l.split(":")[-1] for l in p.stderr.splitlines() if "Used" in l or "rror" in l][:5])
