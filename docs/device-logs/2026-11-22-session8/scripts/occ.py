"""Clusters of the K-split GEMM kernel the device holds at once (cuOccupancyMaxActiveClusters), per ksplit."""
import nvfp4rt
from nvfp4rt.ops import gemm_wgmma_cluster as CL
dev = nvfp4rt.device()
sms = dev.properties.sm_count
print(dev.properties.name, "SMs", sms)
for ks in (2, 4, 8):
    cons = CL.kernel_constants(1, 6, 1, 2, ksplit=ks)
    kern = CL._kernel(dev.ordinal, tuple(sorted(cons.items())))
    smem = CL.shared_bytes(4, 6, 2)
    kern.set_max_dynamic_shared(smem)
    print(f"ksplit {ks}: max active clusters {CL._max_active_clusters(kern, ks, 384, smem, 10**6)} (CTAs {ks} each)")
for shape in [(128, 7168, 16384, 1), (128, 4096, 7168, 1), (128, 7168, 2048, 1)]:
    print(shape, CL.GemmClusterPlan(*shape))
