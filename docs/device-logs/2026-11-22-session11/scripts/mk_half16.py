"""Experiment: the grouped cluster kernel with 16 KB a16 buffers (128 rows: tiles of <= 128 rows only) so that
twice as many buffers fit: does the a16 ring's depth bound the unit time?"""
import sys
sys.path.insert(0, "tools"); sys.path.insert(0, ".")
import gen_grouped_gemm_cluster_ptx as g
setup, loop, post = g.split_main_loop()
v = (32, 64, 96, 128)
txt = (g.HEADER + g.SIGNATURE + g.PARAMETERS + g.dual.CARVE_UP + g.CONSUMER_INTRO + setup + g.seg_loop(v)
       + g.unit_loops(loop, v) + post + g.segment_epilogue() + "\n" + g.store_tile() + "\n" + g.PRODUCERS)
n = txt.count("mul.lo.u32 %a16, %ab, 32768;")
print("a16 address lines", n)
txt = txt.replace("mul.lo.u32 %a16, %ab, 32768;", "mul.lo.u32 %a16, %ab, 16384;")
assert txt.count("{{A_BUFS}}*32768") == 1
txt = txt.replace("{{A_BUFS}}*32768", "{{A_BUFS}}*16384")
assert txt.count("selp.u32 %x, 32768, 16384, %p_two;") == 1
txt = txt.replace("selp.u32 %x, 32768, 16384, %p_two;", "mov.u32 %x, 16384;")
assert "32768" not in txt.split("PRODUCERS:")[1].replace("HEAD_WAIT=32768", ""), "leftover"
open(".scratch/loops/half16.ptx", "w").write(txt)
