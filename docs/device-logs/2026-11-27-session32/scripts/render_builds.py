"""Session 32: write the rendered loop-set builds that runs 5-8 load (.scratch/s32/NAME.ptx, the kernel's default
constants) and their cubins for cuobjdump (ptxas -arch=sm_90a).  Run from the repository root."""
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, "tools")
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, ".")
import gen_grouped_gemm_cluster_ptx as g  # noqa: E402
import gen_pin  # noqa: E402
import gen_rename  # noqa: E402
import gen_split  # noqa: E402
import gen_variants  # noqa: E402
from nvfp4rt.ops import grouped_gemm_cluster as GC  # noqa: E402
from nvfp4rt.ptxsource import render  # noqa: E402

SMALL = (32, 64, 96, 128)
BUILDS = {
    "G1": gen_variants.text((128,)), "G2": gen_variants.text((128, 256)), "G4": gen_variants.text(SMALL),
    "G2d": gen_variants.text((128, 256), True),
    "G2r": gen_rename.text((128, 256), False, True), "G2dr": gen_rename.text((128, 256)),
    "G3dr": gen_rename.text((64, 128, 256)), "Q4dr": gen_rename.text((64, 128, 192, 256)),
    "G11": gen_split.g11_text(), "G2x": gen_split.text((128, 256)), "G3x": gen_split.text((64, 128, 256)),
    "Q4x": gen_split.text((64, 128, 192, 256)), "G8x": gen_split.text(g.TOKEN_VARIANTS),
    "G2p": gen_pin.text((128, 256)), "G3p": gen_pin.text((64, 128, 256)), "Q4p": gen_pin.text((64, 128, 192, 256)),
}
out = Path(".scratch/s32")
out.mkdir(parents=True, exist_ok=True)
# G1L: G1 with accumulators 64..127 defined before the segment loop (so live through it)
ZERO = "    // G1L: accumulators 64..127 defined, so live through the N = 128 loop (read by the post-loop code)\n" + "".join(f"    mov.f32 %acc{i}, 0f00000000;\n" for i in range(64, 128))
BUILDS["G1L"] = BUILDS["G1"].replace("SEG_LOOP:\n", ZERO + "SEG_LOOP:\n", 1)
for name, text in BUILDS.items():
    path = out / f"{name}.ptx"
    path.write_text(render(text, "sm_90a", GC.kernel_constants()))
    r = subprocess.run(["ptxas", "-arch=sm_90a", str(path), "-o", str(out / f"{name}.cubin")], capture_output=True,
                       text=True)
    print(name, r.returncode, " ".join(l for l in r.stderr.splitlines() if "C75" in l)[:120])
