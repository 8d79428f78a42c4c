import sys
sys.path.insert(0, "tools"); sys.path.insert(0, ".")
import gen_grouped_gemm_cluster_ptx as g
setup, loop, post = g.split_main_loop()
def text(v, half):
    txt = (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + setup + g.seg_loop(v)
           + g.unit_loops(loop, v) + post + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
    if half:
        txt = txt.replace("mul.lo.u32 %a16, %ab, 32768;", "mul.lo.u32 %a16, %ab, 16384;")
        txt = txt.replace("{{A_BUFS}}*32768", "{{A_BUFS}}*16384")
        txt = txt.replace("selp.u32 %x, 32768, 16384, %p_two;", "mov.u32 %x, 16384;")
    return txt
for name, v, half in [("full4", (32, 64, 96, 128), False), ("full1", (128,), False), ("half1", (128,), True),
                      ("halfsel4", (32, 64, 96, 128), "sel")]:
    t = text(v, half is True)
    if half == "sel":  # 16 KB buffers but the producer's selp kept (a tile > 128 rows would be wrong: never run)
        t = text(v, False).replace("mul.lo.u32 %a16, %ab, 32768;", "mul.lo.u32 %a16, %ab, 16384;").replace("{{A_BUFS}}*32768", "{{A_BUFS}}*16384")
    open(f".scratch/loops/{name}.ptx", "w").write(t)
