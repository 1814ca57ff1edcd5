"""Render msprobe 26.0.0 training-monitor output with msprobe's own writer classes.

    PYTHONPATH=<msprobe_real/tools/shims>:<msprobe checkout>/python /usr/bin/python3 render_monitor.py OUT

msprobe's monitor (TrainerMon, TrainerMonitorV2) needs torch >= 2.0 to hook a model; this
machine has Debian's torch 1.13. So no model is trained: the statistics are designed here
(below) and handed to msprobe's real writers, called the way the monitor calls them:

- v1 CSVs: `pytorch/monitor/data_writers.py` CSVWriterWithAD(WriterInput(path, ad_rules, job_id,
  anomaly_factory, ndigits=6, step_count_per_record)) and `write_metrics(ops, metric_value,
  step, prefix[, use_micro_step])` as `pytorch/monitor/module_hook.py:600-667` does per step
  (actv with micro steps, grad_unreduced, grad_reduced, param_origin, param_updated, exp_avg,
  exp_avg_sq), into `{Mon DD_HH-MM-SS}-rank{R}-{uuid}` (module_hook.py:207-226).
  `torch.utils.tensorboard` (not packaged with Debian's torch) is replaced by an empty module:
  data_writers.py imports SummaryWriter for its other writer class only.
- anomalies: the alert rules of msprobe's default config ({"rule_name": "AnomalyTurbulence",
  "args": {"threshold": 0.5}} and AnomalyNan, `core/monitor/anomaly_processor.py`
  AnomalyScanner.load_rules) run inside CSVWriterWithAD.add_scalar; AnomalyDataFactory,
  AnomalyDataWriter(<out>/anomaly_detected, rank).init_detected_json() /
  write_detected_json(writer.get_anomalies()) / clear_anomalies() per step as
  module_hook.py:382-420,842-877.
- anomaly_analyse.json: msprobe's own command `python -m msprobe.core.monitor.anomaly_processor
  -d <out>/anomaly_detected` (run by make_monitor.sh).
- v2 CSVs: `core/monitor_v2/writer.py` CSVWriterV2(out_dir, rank).write_monitor_data({"monitor",
  "slug", "step", "step_count_per_record", "rows": [{vpp_stage, module_name, scope, stats}]}).

The designed series (ours): 2 ranks, steps 0-5, a small 2-layer model (fc1, fc2). Norms decay
smoothly; rank 1's fc2.weight reduced gradient jumps x8 at step 4 (AnomalyTurbulence) and rank 0's
fc2.output activation is NaN at step 5 (AnomalyNan).
"""

import math
import os
import sys
import types

import torch
import torch113_compat  # noqa: F401  (msprobe_real/tools/shims)

tb = types.ModuleType("torch.utils.tensorboard")
tb.SummaryWriter = type("SummaryWriter", (), {})
sys.modules.setdefault("torch.utils.tensorboard", tb)

from msprobe.core.monitor.anomaly_processor import AnomalyDataFactory, AnomalyDataWriter, AnomalyScanner  # noqa: E402
from msprobe.core.monitor_v2.writer import CSVWriterV2  # noqa: E402
from msprobe.pytorch.monitor.data_writers import CSVWriterWithAD, WriterInput  # noqa: E402

OUT = sys.argv[1]
RANKS = 2
STEPS = 6
PER_RECORD = 3
OPS = ["norm", "min", "max", "mean", "zeros", "nans"]
RULES = AnomalyScanner.load_rules([{"rule_name": "AnomalyTurbulence", "args": {"threshold": 0.5}},
                                   {"rule_name": "AnomalyNan", "args": {}}])
TIME = ["Nov28_10-00-00", "Nov28_10-00-01"]
UUID = ["5c1d2e3f", "9a8b7c6d"]


def stats(norm, rank, step, salt, nan=False):
    """The designed statistics of one tensor (float32 tensors, as the monitor computes them)."""
    base = 0.01 * (1 + salt + rank) * (1 + 0.1 * math.sin(step + salt))
    values = {
        "norm": float("nan") if nan else norm,
        "min": float("nan") if nan else -base * 3,
        "max": float("nan") if nan else base * 3.5,
        "mean": float("nan") if nan else base * 0.01 * (salt - 1),
        "zeros": 0.0,
        "nans": 64.0 if nan else 0.0,
    }
    return {op: torch.tensor(values[op], dtype=torch.float32) for op in OPS}


def norm_of(kind, module, rank, step):
    salt = {"fc1": 1, "fc2": 2}[module]
    scale = {"actv": 4.0, "grad": 0.5, "param": 2.0, "exp_avg": 0.05, "exp_avg_sq": 0.001}[kind]
    value = scale * (1 + 0.2 * salt) * (1 + 0.05 * rank) * (0.95 ** step)
    if kind == "grad" and rank == 1 and step == 4 and module == "fc2":
        value *= 8.0
    return value, salt


def v1(rank):
    path = os.path.join(OUT, "monitor_output", f"{TIME[rank]}-rank{rank}-{UUID[rank]}")
    factory = AnomalyDataFactory(rank, 0, [0, 1])
    writer = CSVWriterWithAD(WriterInput(path, RULES, "", factory, 6, PER_RECORD))
    ad_writer = AnomalyDataWriter(os.path.join(OUT, "monitor_output", "anomaly_detected"), rank)
    ad_writer.init_detected_json()
    call_id = {}
    for step in range(STEPS):
        actv = {}
        for micro in range(2):
            for module in ("fc1", "fc2"):
                for io in ("input", "output"):
                    norm, salt = norm_of("actv", module, rank, step)
                    nan = rank == 0 and step == 5 and module == "fc2" and io == "output"
                    actv[f"0:{module}.{io}:{micro}/rank{rank}/actv"] = stats(norm * (1 + 0.01 * micro), rank, step, salt, nan)
        writer.write_metrics(OPS, actv, step, "actv")
        grad_pre, grad_post, p_origin, p_updated, m1, m2 = {}, {}, {}, {}, {}, {}
        for module in ("fc1", "fc2"):
            name = f"{module}.weight"
            norm, salt = norm_of("grad", module, rank, step)
            grad_pre[f"0:{name}/rank{rank}/pre_grad"] = stats(norm / 2, rank, step, salt)
            grad_post[f"0:{name}/rank{rank}/post_grad"] = stats(norm, rank, step, salt)
            norm, salt = norm_of("param", module, rank, step)
            p_origin[f"0:{name}/rank{rank}/param_origin"] = stats(norm, rank, step, salt)
            p_updated[f"0:{name}/rank{rank}/param_updated"] = stats(norm * 0.999, rank, step, salt)
            norm, salt = norm_of("exp_avg", module, rank, step)
            m1[f"0:{name}/rank{rank}/exp_avg"] = stats(norm, rank, step, salt)
            norm, salt = norm_of("exp_avg_sq", module, rank, step)
            m2[f"0:{name}/rank{rank}/exp_avg_sq"] = stats(norm, rank, step, salt)
        for i, key in enumerate(list(grad_pre) + list(grad_post)):
            call_id[key] = i
        factory.set_call_id(call_id)
        # module_hook.py: write_grad_tb, then the optimizer's param and exp_avg metrics
        writer.write_metrics(OPS, grad_pre, step, "grad_unreduced", use_micro_step=False)
        writer.write_metrics(OPS, grad_post, step, "grad_reduced")
        writer.write_metrics(OPS, p_origin, step, "param_origin")
        writer.write_metrics(OPS, p_updated, step, "param_updated")
        writer.write_metrics(OPS, m1, step, "exp_avg")
        writer.write_metrics(OPS, m2, step, "exp_avg_sq")
        ad_writer.write_detected_json(writer.get_anomalies())
        writer.clear_anomalies()


def v2(rank):
    out_dir = os.path.join(OUT, "monitor_v2_output")
    os.makedirs(out_dir, exist_ok=True)  # the config's output_dir exists (core/monitor_v2/trainer.py:121-131)
    writer = CSVWriterV2(out_dir, rank)
    for step in range(STEPS):
        rows = []
        for module in ("fc1", "fc2"):
            for scope, io in (("forward", "output"), ("backward", "grad_input")):
                norm, salt = norm_of("actv", module, rank, step)
                nan = rank == 0 and step == 5 and module == "fc2" and scope == "forward"
                s = stats(norm, rank, step, salt, nan)
                rows.append({"vpp_stage": 0, "module_name": f"{module}.{io}.0", "scope": scope,
                             "stats": {op: s[op] for op in ("min", "max", "mean", "norm", "nans")}})
        writer.write_monitor_data({"monitor": "module", "slug": "module", "step": step,
                                   "step_count_per_record": PER_RECORD, "start_step": 0, "rows": rows})
        rows = []
        for module in ("fc1", "fc2"):
            norm, salt = norm_of("grad", module, rank, step)
            for scope, n in (("unreduced", norm / 2), ("reduced", norm)):
                s = stats(n, rank, step, salt)
                rows.append({"vpp_stage": 0, "module_name": f"{module}.weight", "scope": scope,
                             "stats": {op: s[op] for op in ("min", "max", "mean", "norm", "nans")}})
        writer.write_monitor_data({"monitor": "weight_grad", "slug": "weight_grad", "step": step,
                                   "step_count_per_record": PER_RECORD, "start_step": 0, "rows": rows})


if __name__ == "__main__":
    for r in range(RANKS):
        v1(r)
        v2(r)
