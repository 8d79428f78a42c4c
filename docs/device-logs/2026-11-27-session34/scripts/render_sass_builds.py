"""Session 34: write the session-32 loop-set builds G1 (the N = 128 loop alone), G2 (N = 128 and 256) and G4
(N = 32..128), rendered with the kernel's default constants, and their cubins (ptxas -arch=sm_90a) to .scratch/s34 for
device run 1 (cuobjdump / nvdisasm).  Run from the repository root."""
import subprocess, sys
from pathlib import Path
sys.path.insert(0, "tools"); sys.path.insert(0, "docs/device-logs/2026-11-27-session32/scripts"); sys.path.insert(0, ".")
import gen_variants
from nvfp4rt.ops import grouped_gemm_cluster as GC
from nvfp4rt.ptxsource import render
out = Path(".scratch/s34")
B = {"G1": gen_variants.text((128,)), "G2": gen_variants.text((128, 256)), "G4": gen_variants.text((32,64,96,128))}
for name, text in B.items():
    p = out / f"{name}.ptx"; p.write_text(render(text, "sm_90a", GC.kernel_constants()))
    r = subprocess.run(["ptxas", "-arch=sm_90a", "-v", str(p), "-o", str(out / f"{name}.cubin")], capture_output=True, text=True)
    print(name, r.returncode, [l for l in r.stderr.splitlines() if "C75" in l or "registers" in l])
