"""Session 25: the cluster GEMM launched at a lower register cap, setmaxnreg giving the producers 40 and the consumers 168"""
from nvfp4rt.ptxsource import render

TEXT = open("ptx/gemm_nvfp4_wgmma_cluster.ptx").read()


def capped(consts, cap):
    t = render(TEXT, "sm_90a", consts)
    t = t.replace(".minnctapersm 1\n", f".minnctapersm 1\n.maxnreg {cap}\n", 1)
    old = "    setp.lt.u32 %p_lead, %thread, 128;\n    @%p_lead bra PRODUCERS;\n"
    assert t.count(old) == 1
    t = t.replace(old, old + "    setmaxnreg.inc.sync.aligned.u32 168;\n", 1)
    assert t.count("PRODUCERS:\n") == 1
    return t.replace("PRODUCERS:\n", "PRODUCERS:\n    setmaxnreg.dec.sync.aligned.u32 40;\n", 1)
