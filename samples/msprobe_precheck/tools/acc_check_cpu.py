"""Run msprobe's real `acc_check` (and `api_precision_compare`) on a CPU-only machine.

    PYTHONPATH=<msprobe_real/tools/shims>:<msprobe checkout>/python \
        /usr/bin/python3 acc_check_cpu.py --perturb SPEC acc_check -api_info dump.json -o OUT -save_error_data

msprobe's acc_check runs each API twice: on the CPU (the bench) and on the device
(`acc_check.py:26-32`: "npu" with torch_npu, else "cuda"). This machine has neither, so the
"device" here is the CPU again, reached through msprobe's own module globals:
`acc_check.current_device` and `acc_check_utils.current_device` are set to "cpu" and
`torch.cuda.set_device` accepts "cpu:0" (`acc_check.py:504-507`). Every other line that runs
is msprobe's: argument parsing, data generation from dump.json's statistics, the compare
standards, the CSV writers and `-save_error_data`.

Two identical CPU runs agree bit for bit, so every API would pass. `--perturb` gives the
device output of the named APIs a designed error, after msprobe's device call
(`acc_check.py:244-247`, `exec_api` is called for the bench first, then for the device):
`API=REL` multiplies the device output by (1 + REL * u) (in its dtype, keeping the autograd
graph, so the backward outputs differ too), u in [-1, 1) from a fixed seed.
This is ours and is the only deviation from a real NPU run; the files are what msprobe writes
for such a device.
"""

import sys

import torch
import torch113_compat  # noqa: F401  (msprobe_real/tools/shims)

# torch 1.13 has no float8 types; msprobe only compares dtypes against them
# (`pytorch/api_accuracy_checker/common/utils.py:279`). Stand-ins equal to nothing else:
for _name in ("float8_e4m3fn", "float8_e5m2"):
    if not hasattr(torch, _name):
        setattr(torch, _name, "torch." + _name + " (absent in torch 1.13)")

from msprobe.pytorch.api_accuracy_checker.acc_check import acc_check, acc_check_utils

perturb = {}
args = sys.argv[1:]
while args and args[0] == "--perturb":
    name, rel = args[1].split("=")
    perturb[name] = float(rel)
    args = args[2:]

acc_check.current_device = "cpu"
acc_check_utils.current_device = "cpu"
torch.cuda.set_device = lambda device: None

_exec_api = acc_check.exec_api
_calls = {"n": 0}


def _perturbed(value, rel, gen):
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        u = torch.rand(value.shape, generator=gen, dtype=torch.float64) * 2 - 1
        # a product keeps the autograd graph, so msprobe's backward check still runs
        return value * (1 + rel * u).to(value.dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_perturbed(v, rel, gen) for v in value)
    return value


def exec_api(exec_params):
    out = _exec_api(exec_params)
    _calls["n"] += 1
    if _calls["n"] % 2 == 0 and exec_params.api_name in perturb:   # the device call
        gen = torch.Generator().manual_seed(1234)
        out = _perturbed(out, perturb[exec_params.api_name], gen)
    return out


acc_check.exec_api = exec_api

if __name__ == "__main__":
    from msprobe.msprobe import main
    sys.argv = ["msprobe"] + args
    main()
