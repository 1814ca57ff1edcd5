#!/usr/bin/env python3
"""`mpirun -n N dumpscope-cli compare ...` (issue 17) against one process on the union.

    python3 mpi_compare.py --cli build/dev/app/dumpscope-cli --samples samples --tmp /tmp/x

The oracle is the CLI without mpirun: for every case (real msprobe runs of several steps and
ranks, CANN trees) its JSON report, its msprobe-compatible CSV and its text report, and its
exit code with --fail-on. Each case then runs under mpirun with 2 processes and with 4
(--oversubscribe) in two layouts:

- shared: every process is given the same paths (as on shared storage; scopes are split
  between the processes);
- split: every process is given its own root holding only some scopes (as on node-local
  disks), by a wrapper script that changes into root r<OMPI_COMM_WORLD_RANK>; the union of the
  roots is the oracle's input.

The reports must be byte-identical to the oracle's (split: after writing each root's path as
ROOT; the rows are not even reordered). Then the failures: a process whose path does not
exist, a scope with different contents on two processes, a process that is killed and one that
hangs: rank 0 must name the node and path, exit non-zero, and the run must end within a bound.
One line per failed check, then "N passed, M failed"; exit 1 on failure.
"""

import argparse
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

CORPUS = "msprobe_real/dumps"
# (name, NPU run, bench run, glob of the scope folders below a run, extra options)
CASES = [
    ("msprobe_rank1_statistics", f"{CORPUS}/npu_rank1_statistics_mix", f"{CORPUS}/base_statistics_mix", "step*/rank*", []),
    ("msprobe_step1_md5", f"{CORPUS}/npu_step1_md5_mix", f"{CORPUS}/base_md5_mix", "step*/rank*", []),
    ("msprobe_weight_tensor", f"{CORPUS}/npu_weight_tensor_mix", f"{CORPUS}/base_tensor_mix", "step*/rank*", ["--fail-on", "error"]),
    ("msprobe_bf16_statistics", f"{CORPUS}/npu_bf16_statistics_mix", f"{CORPUS}/base_statistics_mix", "step*/rank*", []),
    ("msprobe_weight_L1_summary", f"{CORPUS}/npu_weight_statistics_L1", f"{CORPUS}/base_statistics_L1", "step*/rank*",
     ["--mode", "summary"]),
    ("cann_model_dump", "cann/model_dump", "cann/model_dump", "*/*/*/*/*", []),
    ("cann_compare", "compare/npu", "compare/bench", "*/*/*/*/*", ["--fail-on", "warning"]),
]
PROCESSES = [2, 4]
TIMEOUT = 180  # seconds for one mpirun: a hang fails the check instead of the test run


class Checker:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, where, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {where}: {what}", flush=True)
        return ok


def mpi_env():
    env = dict(os.environ)
    env.update({
        # CI runs as root; Open MPI refuses to start as root without both.
        "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
        # containers: no cross-memory attach, shared memory and TCP over loopback only
        "OMPI_MCA_btl_vader_single_copy_mechanism": "none", "OMPI_MCA_btl": "self,vader,tcp",
        "OMPI_MCA_btl_tcp_if_include": "lo", "OMPI_MCA_oob_tcp_if_include": "lo",
        "OMPI_MCA_rmaps_base_oversubscribe": "1",
    })
    return env


def run(cmd, cwd=None, env=None):
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=TIMEOUT)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", e.stderr or b"", time.monotonic() - start


def mpirun(n, args, env=None):
    cmd = ["mpirun", "-n", str(n)]
    if n > os.cpu_count():
        cmd.append("--oversubscribe")
    return run(cmd + [str(a) for a in args], env=env or mpi_env())


def link_scope(target, source):
    """A real folder holding links to the scope's entries (as runs_oracle assembles runs)."""
    target.mkdir(parents=True)
    for e in sorted(source.iterdir()):
        (target / e.name).symlink_to(e.resolve())


def split_roots(tmp, npu, bench, pattern, n):
    """union/{npu,bench} and r<k>/{npu,bench} for k < n: the scopes dealt round-robin by their
    position among the run's scope folders (the same position on both sides), so that each
    process sees both sides of its scopes and nothing else."""
    if tmp.exists():
        shutil.rmtree(tmp)
    for side, run_dir in (("npu", npu), ("bench", bench)):
        scopes = sorted(p for p in run_dir.glob(pattern) if p.is_dir())
        for i, scope in enumerate(scopes):
            rel = scope.relative_to(run_dir)
            link_scope(tmp / "union" / side / rel, scope)
            link_scope(tmp / f"r{i % n}" / side / rel, scope)
        for k in range(n):
            (tmp / f"r{k}" / side).mkdir(parents=True, exist_ok=True)
    return tmp


def write_wrapper(path, cli):
    """Each process changes into its own root and compares the runs found there."""
    path.write_text('#!/bin/sh\nroot="$1"; shift\ncd "$root/r${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}" || exit 3\n'
                    f'exec "{cli}" "$@"\n')
    path.chmod(0o755)
    return path


def reports(cli_cmd, npu, bench, extra, tmp, tag, cwd=None, env=None, n=None):
    """(json stdout, csv bytes, text stdout, exit codes) of one way of running the compare."""
    out = {}
    csv = tmp / f"{tag}.csv"
    for kind, args in (("json", ["--json", "--csv", csv, "--quiet"]), ("text", ["--quiet"])):
        cmd = [*cli_cmd, "compare", npu, bench, *extra, *args]
        rc, stdout, stderr, _ = mpirun(n, cmd, env) if n else run([str(c) for c in cmd], cwd=cwd, env=env)
        out[kind] = (rc, stdout, stderr)
    return out["json"][1], csv.read_bytes() if csv.exists() else b"", out["text"][1], (out["json"][0], out["text"][0]), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--tmp", required=True)
    a = ap.parse_args()
    cli = Path(a.cli).resolve()
    samples = Path(a.samples).resolve()
    tmp = Path(a.tmp).resolve()
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    c = Checker()
    wrapper = write_wrapper(tmp / "own_root.sh", cli)
    host = socket.gethostname()

    for name, npu_rel, bench_rel, pattern, extra in CASES:
        npu, bench = samples / npu_rel, samples / bench_rel
        ref = reports([cli], npu, bench, extra, tmp, f"{name}_ref")
        c.check(ref[3][0] in (0, 4) and ref[0].startswith(b"{"), name, f"one process failed: {ref[4]['json'][2][-300:]!r}")
        for n in PROCESSES:
            where = f"{name} shared -n {n}"
            got = reports([cli], npu, bench, extra, tmp, f"{name}_shared{n}", n=n)
            c.check(got[0] == ref[0], where, "JSON differs from one process's")
            c.check(got[1] == ref[1], where, "CSV differs from one process's")
            c.check(got[2] == ref[2], where, "text report differs from one process's")
            c.check(got[3] == ref[3] or (ref[3] == (0, 0) and got[3] == (0, 0)), where, f"exit codes {got[3]} != {ref[3]}")
            c.check(b"distributed over" not in got[4]["text"][2] and b"distributed over" in
                    mpirun(n, [cli, "compare", npu, bench, *extra])[2], where, "traffic line missing or printed with --quiet")

            roots = split_roots(tmp / f"{name}_split{n}", npu, bench, pattern, n)
            union = reports([cli], "npu", "bench", extra, tmp, f"{name}_union{n}", cwd=roots / "union")
            c.check(union[0].replace(str(roots / "union").encode(), b"ROOT") == ref[0].replace(str(npu).encode(), b"ROOT/npu")
                    .replace(str(bench).encode(), b"ROOT/bench") or npu == bench,
                    where, "the union of the split roots is not the same run")
            split = reports([wrapper, roots], "npu", "bench", extra, tmp, f"{name}_split{n}", n=n)
            where = f"{name} split -n {n}"
            for i, what in ((0, "JSON"), (1, "CSV"), (2, "text report")):
                mine = split[i].replace(str(roots / "r0").encode(), b"ROOT")
                theirs = union[i].replace(str(roots / "union").encode(), b"ROOT")
                c.check(mine == theirs, where, f"{what} differs from one process's on the union")
            c.check(split[3] == union[3], where, f"exit codes {split[3]} != {union[3]}")

    # Failures: each must end non-zero within the bound, rank 0 naming the node and the path.
    npu, bench = samples / CASES[0][1], samples / CASES[0][2]
    roots = split_roots(tmp / "fail_missing", npu, bench, "step*/rank*", 2)
    shutil.rmtree(roots / "r1" / "bench")
    rc, _, err, took = mpirun(2, [wrapper, roots, "compare", "npu", "bench"])
    err = err.decode(errors="replace")
    c.check(rc == 3, "unreadable path", f"exit {rc}, expected 3 (as one process on a missing path)")
    c.check(f"rank 1 on node {host}" in err and str(roots / "r1" / "bench") in err, "unreadable path",
            f"rank 0 does not name the node and the path: {err[-400:]!r}")

    roots = split_roots(tmp / "fail_contents", npu, bench, "step*/rank*", 2)
    for k in range(2):  # both processes see every scope, but r1's step0/rank0 dump.json differs
        shutil.rmtree(roots / f"r{k}")
        shutil.copytree(roots / "union", roots / f"r{k}", symlinks=True)
    dump = roots / "r1" / "npu" / "step0" / "rank0" / "dump.json"
    text = dump.read_text()
    dump.unlink()
    dump.write_text(text.replace('"Max"', '"Max" ', 1))
    rc, _, err, took = mpirun(2, [wrapper, roots, "compare", "npu", "bench"])
    err = err.decode(errors="replace")
    c.check(rc == 5, "different contents", f"exit {rc}, expected 5")
    c.check("scope step0/rank0 of the NPU run has different contents" in err and f"rank 1 on node {host}" in err
            and str(roots / "r1" / "npu") in err, "different contents", f"not named: {err[-400:]!r}")

    env = mpi_env()
    for fault, expect in (("kill:1", "still waiting for: rank 1 on node"), ("hang:1", "rank 1 on node")):
        env["DUMPSCOPE_MPI_TEST_FAULT"] = fault
        rc, _, err, took = mpirun(2, ["-x", "DUMPSCOPE_MPI_TEST_FAULT", cli, "compare", npu, bench, "--mpi-timeout", "3"], env)
        err = err.decode(errors="replace")
        c.check(rc not in (None, 0), fault, f"exit {rc}: expected non-zero (None: it hung)")
        c.check(took < 60, fault, f"took {took:.0f} s")
        c.check(expect in err and str(npu) in err, fault, f"rank 0 does not name the process, node and path: {err[-500:]!r}")
        if fault.startswith("hang"):
            c.check(rc == 5 and "sent nothing for 3 s" in err, fault, f"exit {rc} / message: {err[-300:]!r}")

    # Other commands are not spread: refused with a clear message; without mpirun nothing changes.
    rc, _, err, _ = mpirun(2, [cli, "stats", npu])
    c.check(rc == 2 and b"only compare is spread" in err, "stats under mpirun", f"exit {rc}: {err[-200:]!r}")
    rc, out, _, _ = mpirun(1, [cli, "compare", npu, bench, "--json"])
    c.check(rc == 0 and out == reports([cli], npu, bench, [], tmp, "plain")[0], "mpirun -n 1", "differs from no mpirun")

    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
