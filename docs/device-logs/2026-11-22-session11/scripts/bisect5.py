exec(open(".scratch/bisect_c7511.py").read().split("def build")[0])
import re
def build(variants):
    txt = (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + setup + g.seg_loop(variants)
           + g.unit_loops(loop, variants) + post + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
    p = tempfile.mktemp(suffix=".ptx"); open(p, "w").write(txt)
    r = subprocess.run([sys.executable, "tools/ptxas_report.py", p, "-D", "CLUSTER=2", "-D", "A_BUFS=4", "-D", "HEAD_CHECK=1", "-D", "HEAD_WAIT=32768"], capture_output=True, text=True)
    os.unlink(p)
    return sorted(set(re.findall(r"C75\d\d", r.stdout + r.stderr)))
from concurrent.futures import ThreadPoolExecutor
subs = [eval(a) for a in sys.argv[1:]]
with ThreadPoolExecutor(2) as ex:
    for v, r in zip(subs, ex.map(build, subs)):
        print(v, r, flush=True)
