"""Session 34: hybrid run cuts for the cluster kernel (offline): tile-aligned cuts, or mid-tile cuts that pay a
penalty P per split end, minimising the longest run under the cost model fitted to run 3 (d = 0.6 per unit plus
N/256, e = 1.0 * N/256 per tile epilogue).  Run as a script it prints the predicted caps for the four cases."""
import sys, numpy as np
sys.path.insert(0, "docs/device-logs/2026-11-27-session34/scripts")
import probe2
from nvfp4rt.ops import grouped_gemm_cluster as GC
from nvfp4rt.data import PRESETS
D,E=0.6,1.0
def unit_arrays(geo):
    c=[]; first=[]; last=[]
    for g in geo.groups:
        for mt in range(g.m_tiles):
            N=GC.tokens(g.rows(mt))
            for t in range(g.n_tiles):
                for k in range(g.k_stages):
                    c.append(D + N/256 + (E*N/256 if k==g.k_stages-1 else 0)); first.append(k==0); last.append(k==g.k_stages-1)
    return np.array(c), np.array(first), np.array(last)
def hybrid_starts(geo, runs, P):
    c, first, last = unit_arrays(geo)
    U=len(c); cum=np.concatenate(([0],np.cumsum(c)))
    # boundary b (0..U): aligned if b==U or first[b]
    aligned=np.array([b==U or b==0 or first[b] for b in range(U+1)])
    def cost(a,b):
        return cum[b]-cum[a] + P*((not aligned[a]) + (not aligned[b]))
    def cut(cap):
        starts=[0]; a=0
        while a<U:
            # farthest b with cost(a,b)<=cap
            b=a+1; best=None
            # scan forward (U small)
            bb=a+1
            while bb<=U and cum[bb]-cum[a] <= cap:
                if cost(a,bb)<=cap: best=bb
                bb+=1
            if best is None: best=a+1
            starts.append(best); a=best
        return starts
    lo,hi=0.0,cum[-1]+2*P
    for _ in range(40):
        mid=(lo+hi)/2
        if len(cut(mid))-1<=runs: hi=mid
        else: lo=mid
    s=cut(hi)
    return tuple(s), hi
if __name__=="__main__":
    for ci in (2,1,3,4):
        sh=[tuple(x) for x in PRESETS['grouped_gemm'][ci-1]]
        for oname, order in (("given",list(range(len(sh)))),("desc",sorted(range(len(sh)),key=lambda i:-sh[i][0]))):
            g=GC.cluster_geometry([sh[i] for i in order],66)
            c,_,_=unit_arrays(g)
            for P in (1.0,2.5,4.0,100.0):
                s,cap=hybrid_starts(g,66,P)
                import dataclasses
                g2=dataclasses.replace(g,starts=s)
                print(ci,oname,"P",P,"runs",len(s)-1,"cap",round(cap,2),"pred",round(1.32*cap+22.68,2),"splits",g2.split_tiles,"avg",round(c.sum()/66,2))
