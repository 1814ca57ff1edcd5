"""msprobe_real's train.py loop with the SGD update inside the dumped region (our code).

    train_multirun.py --config configs/<run>.json --variant base|weight

The model, batches and perturbation are train.py's (imported); only the optimizer step moves
before debugger.stop(), so that msprobe records every parameter update (Tensor.add_).
"""

import argparse

import torch113_compat  # noqa: F401  (must precede msprobe; see msprobe_real/tools/shims/)
import torch
import torch.distributed as dist
import torch.nn.functional as F

from msprobe.pytorch import PrecisionDebugger, seed_all
import msprobe_cpu_md5  # noqa: F401,E402
from train import TinyNet, batch, perturb_fc1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--variant", default="base", choices=["base", "weight"])
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    seed_all(seed=1234)
    debugger = PrecisionDebugger(config_path=args.config)
    torch.manual_seed(42)
    model = TinyNet()
    if args.variant == "weight":
        perturb_fc1(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    params = list(model.parameters())
    for step in range(args.steps):
        x, y = batch(rank, step, torch.float32)
        debugger.start(model=model)
        loss = F.cross_entropy(model(x), y)
        loss_avg = loss.detach().float()
        dist.all_reduce(loss_avg, op=dist.ReduceOp.SUM)
        loss.backward()
        bucket = torch.cat([p.grad.reshape(-1) for p in params]).float()
        dist.all_reduce(bucket, group=dist.group.WORLD)
        bucket = bucket / world
        offset = 0
        for p in params:
            n = p.numel()
            p.grad.copy_(bucket[offset:offset + n].reshape(p.shape))
            offset += n
        optimizer.step()
        debugger.stop()
        optimizer.zero_grad()
        debugger.step()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
