# probe.py: one branch per process (seed 002 section 4)
import sys
import torch
import torch_npu

op = sys.argv[1]
dev = "npu:0"
if op == "ones":
    y = torch.ones((4,), device=dev)
elif op == "fill":
    y = torch.empty((4,), device=dev).fill_(3.0)
elif op == "copy":
    y = torch.ones((4,)).to(dev)
elif op == "cpu_rand_to_npu":
    y = torch.rand((4,)).to(dev)
elif op == "rand":
    y = torch.rand((1,), device=dev)
elif op == "randn":
    y = torch.randn((1,), device=dev)
elif op == "randint":
    y = torch.randint(0, 10, (1,), device=dev)
elif op == "matmul":
    x = torch.ones((256, 256), device=dev)
    y = x @ x
else:
    raise ValueError("unknown probe")

torch.npu.synchronize()
print(y.flatten()[0].cpu().item() if y.numel() == 1 or op != 'copy' else y.cpu())
