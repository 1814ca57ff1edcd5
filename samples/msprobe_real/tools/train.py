"""One rank of a tiny DDP-style training run, dumped by the real msprobe (PrecisionDebugger).

Launched by make_corpus.py through `python3 -m torch.distributed.run --nproc_per_node 2`
(gloo backend, CPU), so msprobe names its folders step{N}/rank{R}.

    train.py --config configs/<run>.json --variant <variant> [--steps 2]

Variants (what the "npu" run does differently from the "base" = bench run):
  base      the reference run
  weight    fc1.weight[0, :] += 0.25 on every rank before step 0 (outside the dumped region)
  bf16      model and inputs in torch.bfloat16 (same initial weights and inputs, cast)
  overflow  OverflowNet (an exp after fc1); on rank 1 at step 1 the input batch is x 1000,
            so torch.exp overflows to inf from finite inputs
  overflow_norm  OverflowNet; on rank 1 at step 1 the input batch is x 130: torch.exp's
            output stays finite (max ~1e21) but its float32 Norm statistic overflows to inf,
            and the LayerNorm after it turns the values into NaN
  step1     fc1.weight[0, :] += 0.25 on rank 0 only, just before step 1 (step 0 identical)
  rank1     fc1.weight[0, :] += 0.25 on rank 1 only, before step 0; rank 0 receives the
            difference only through all_reduce
  optnan    fc1.weight has a parameter group of its own whose learning rate comes from a linear
            warm-up over 0 steps: lr = 0.1 * step / 0 = NaN at step 0, so step 0's SGD update
            writes NaN into all of fc1.weight (outside the dumped region, as in every run); step
            1 starts with a NaN parameter and no operator of step 1 produced it
  fc1_bf16  fc1 alone runs in bfloat16 (torch.autocast on the CPU around the call, output cast
            back to float32): its inputs and weights are the bench's float32 ones, only the
            matmul is done in lower precision (samples/msprobe_addederror, issue 34)
  optnan_dumped  optnan with the optimizer step inside the dumped region: msprobe records the
            update that writes the NaN (Tensor.add_ on fc1.weight) in step 0
  align_base  BlockNet (two residual blocks with an MLP each): the bench of the align_* runs
  align_unfused  BlockNet whose blocks.0.mlp.fc1 computes torch.matmul(x, W.t()) + b instead of
            F.linear (a port that unfuses one Linear; numerically identical): every later
            Functional.linear / Torch.matmul / Tensor.__add__ counter is shifted by one
  align_unfused_weight  align_unfused plus blocks.1.mlp.fc1.weight[0, :] += 0.25 before step 0
  align_missing  BlockNet whose blocks.0 skips its layer scale (x 1.0): one Tensor.__mul__ fewer
            (numerically identical), every later Tensor.__mul__ counter shifted by one

Nothing here is msprobe code: msprobe is imported from the checkout given in PYTHONPATH.
"""

import argparse

import torch113_compat  # noqa: F401  (must precede msprobe; see tools/shims/)
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

from msprobe.pytorch import PrecisionDebugger, seed_all
import msprobe_cpu_md5  # noqa: F401,E402  (deterministic md5 on CPU; see tools/shims/)

PERTURB_DELTA = 0.25
OVERFLOW_SCALE = {"overflow": 1000.0, "overflow_norm": 130.0}
OPTNAN = ("optnan", "optnan_dumped")
WARMUP_STEPS = 0  # optnan: the broken warm-up


def warmup_lr(step):
    """0.1 * step / WARMUP_STEPS in float64: NaN at step 0 (0/0), +inf after (Python would raise)."""
    return 0.1 * (torch.tensor(float(step), dtype=torch.float64) / WARMUP_STEPS).item()


class TinyNet(nn.Module):
    """Conv2d -> ReLU -> flatten -> Linear -> LayerNorm -> softmax gate -> Linear.

    conv and fc2 have no bias: every parameter adds about 7 tensor files per scope in tensor
    mode, and the corpus must stay small."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, kernel_size=3, padding=1, bias=False)
        self.fc1 = nn.Linear(32, 8)
        self.ln = nn.LayerNorm(8)
        self.fc2 = nn.Linear(8, 4, bias=False)

    fc1_bf16 = False  # the fc1_bf16 variant

    def body(self, x):
        h = F.relu(self.conv(x))
        h = torch.flatten(h, 1)
        if self.fc1_bf16:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                h = self.fc1(h)
            return h.float()
        return self.fc1(h)

    def head(self, h):
        h = self.ln(h)
        h = h * F.softmax(h, dim=-1)
        return self.fc2(h)

    def forward(self, x):
        return self.head(self.body(x))


class OverflowNet(TinyNet):
    """TinyNet with torch.exp between fc1 and the LayerNorm: exp(>88.7) is inf in float32."""

    def forward(self, x):
        return self.head(torch.exp(self.body(x)))


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 8)
        self.fc2 = nn.Linear(8, 8, bias=False)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class Block(nn.Module):
    """x + mlp(x) * scale; scale is 1.0 (a layer scale a port may skip)."""

    def __init__(self):
        super().__init__()
        self.mlp = Mlp()
        self.scale = 1.0
        self.skip_scale = False

    def forward(self, x):
        h = self.mlp(x)
        if not self.skip_scale:
            h = h * self.scale
        return x + h


class BlockNet(nn.Module):
    """Linear -> 2 residual Blocks -> Linear: the op stream the align_* variants change."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(16, 8, bias=False)
        self.blocks = nn.ModuleList([Block(), Block()])
        self.head = nn.Linear(8, 4, bias=False)

    def forward(self, x):
        h = self.embed(torch.flatten(x, 1))
        for block in self.blocks:
            h = block(h)
        return self.head(h)


def unfuse_linear(linear):
    """The Linear's forward as torch.matmul + bias (the module and its hooks stay)."""
    def forward(x):
        return torch.matmul(x, linear.weight.t()) + linear.bias
    linear.forward = forward


def batch(rank, step, dtype):
    """The same batch for a given (rank, step) in every run; cast to the run's dtype."""
    gen = torch.Generator().manual_seed(1000 + 100 * step + rank)
    x = torch.randn(2, 1, 4, 4, generator=gen)
    y = torch.randint(0, 4, (2,), generator=gen)
    return x.to(dtype), y


def perturb_fc1(model):
    # a whole row: a single element can multiply an input that ReLU made zero (it did: fc1
    # input column 0 is 0 on rank 0 at step 0) and then change nothing downstream
    with torch.no_grad():
        model.fc1.weight[0, :] += PERTURB_DELTA


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--variant", default="base",
                        choices=["base", "weight", "bf16", "overflow", "overflow_norm", "step1", "rank1", "optnan",
                                 "optnan_dumped", "fc1_bf16", "align_base", "align_unfused",
                                 "align_unfused_weight", "align_missing"])
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(1)  # deterministic CPU kernels, and 2 processes on 2 cores

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    world = dist.get_world_size()

    seed_all(seed=1234)
    debugger = PrecisionDebugger(config_path=args.config)

    torch.manual_seed(42)  # identical initial weights on every rank and in every run
    if args.variant.startswith("align_"):
        model = BlockNet()
    else:
        model = OverflowNet() if args.variant in OVERFLOW_SCALE else TinyNet()
    dtype = torch.bfloat16 if args.variant == "bf16" else torch.float32
    model = model.to(dtype)
    model.fc1_bf16 = args.variant == "fc1_bf16"
    if args.variant == "weight" or (args.variant == "rank1" and rank == 1):
        perturb_fc1(model)
    if args.variant in ("align_unfused", "align_unfused_weight"):
        unfuse_linear(model.blocks[0].mlp.fc1)
    if args.variant == "align_unfused_weight":
        with torch.no_grad():
            model.blocks[1].mlp.fc1.weight[0, :] += PERTURB_DELTA
    if args.variant == "align_missing":
        model.blocks[0].skip_scale = True
    if args.variant in OPTNAN:
        others = [p for n, p in model.named_parameters() if n != "fc1.weight"]
        optimizer = torch.optim.SGD([{"params": others}, {"params": [model.fc1.weight]}], lr=0.1)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    params = [p for p in model.parameters()]

    for step in range(args.steps):
        if args.variant == "step1" and step == 1 and rank == 0:
            perturb_fc1(model)
        x, y = batch(rank, step, dtype)
        if args.variant in OVERFLOW_SCALE and step == 1 and rank == 1:
            x = x * OVERFLOW_SCALE[args.variant]
        if args.variant in OPTNAN:  # computed before the dumped region: its 0/0 is not an op of the dump
            optimizer.param_groups[1]["lr"] = warmup_lr(step)

        debugger.start(model=model)
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        # the logged mean loss: communication op #0 of every step
        loss_avg = loss.detach().float()
        dist.all_reduce(loss_avg, op=dist.ReduceOp.SUM)
        loss.backward()
        # DDP-style gradient averaging in one fp32 bucket: communication op #1 of every step
        bucket = torch.cat([p.grad.reshape(-1) for p in params]).float()
        dist.all_reduce(bucket, group=dist.group.WORLD)
        bucket = bucket / world
        offset = 0
        for p in params:
            n = p.numel()
            p.grad.copy_(bucket[offset:offset + n].reshape(p.shape))
            offset += n
        if args.variant == "optnan_dumped":  # the update is dumped too (statistics only: small)
            optimizer.step()
            debugger.stop()
        else:
            # the SGD update runs outside the dumped region: in tensor mode its 6 in-place
            # Tensor.add_ calls would add 18 .pt files per scope (size budget of the corpus)
            debugger.stop()
            optimizer.step()
        optimizer.zero_grad()
        debugger.step()
        if rank == 0:
            print(f"step {step}: mean loss {loss_avg.item() / world:.6f}", flush=True)

    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
