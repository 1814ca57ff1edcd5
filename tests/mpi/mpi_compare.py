#!/usr/bin/env python3
"""`mpirun -n N dumpscope-cli compare ...` (issue 17) against one process on the union.

    python3 mpi_compare.py --cli build/dev/app/dumpscope-cli --samples samples --tmp /tmp/x

The oracle is the CLI without mpirun: for every case (real msprobe runs of several steps and
ranks, CANN trees) its JSON report, its CSV and .xlsx in both styles (dumpscope and
--style msprobe), its text report, and its exit code with --fail-on. Each case then runs under mpirun with 2 processes and with 4
(--oversubscribe) in two layouts (with --sanitized, an ASan build: three of the cases, 2 processes):

- shared: every process is given the same paths (as on shared storage; scopes are split
  between the processes);
- split: every process is given its own root holding only some scopes (as on node-local
  disks), by a wrapper script that changes into root r<OMPI_COMM_WORLD_RANK>; the union of the
  roots is the oracle's input.

The reports must be byte-identical to the oracle's (split: after writing each root's path as
ROOT; the rows are not even reordered); the .xlsx workbooks (whose zip holds a creation time)
are compared cell by cell with openpyxl: every sheet, every cell's value and type. Then the failures: a process whose path does not
exist, a scope with different contents on two processes, a process that is killed and one that
hangs: rank 0 must name the node and path, exit non-zero, and the run must end within a bound.
One line per failed check, then "N passed, M failed"; exit 1 on failure.
"""

import argparse
import csv
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "oracle"))
from checker import Checker  # noqa: E402

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
# --sanitized (an ASan build, where one mpirun takes seconds): two processes, and one case per
# kind of input (msprobe statistics, msprobe tensors with --fail-on, CANN)
SANITIZED_CASES = {"msprobe_rank1_statistics", "msprobe_weight_tensor", "cann_compare"}
TIMEOUT = 180  # seconds for one mpirun: a hang fails the check instead of the test run


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


def xlsx_cells(path):
    """Every sheet of the workbook as (name, rows of (type, value) per cell), None when missing."""
    if not path.exists():
        return None
    import openpyxl  # python3-openpyxl (packaging/install-deps.sh)
    book = openpyxl.load_workbook(path, read_only=True)
    sheets = [(ws.title, [[(type(v).__name__, v) for v in row] for row in ws.iter_rows(values_only=True)])
              for ws in book.worksheets]
    book.close()
    return sheets


def read(path):
    return path.read_bytes() if path.exists() else b""


class Reports:
    """One way of running the compare: the JSON (with the dumpscope-style CSV and .xlsx) and the
    text report (with the --style msprobe CSV and .xlsx); exit codes of both runs."""

    def __init__(self, cli_cmd, npu, bench, extra, tmp, tag, cwd=None, env=None, n=None):
        files = {k: tmp / f"{tag}{k}" for k in (".csv", ".xlsx", "_msprobe.csv", "_msprobe.xlsx")}
        for f in files.values():
            f.unlink(missing_ok=True)
        self.raw = {}
        for kind, args in (("json", ["--json", "--csv", files[".csv"], "--xlsx", files[".xlsx"], "--quiet"]),
                           ("text", ["--style", "msprobe", "--csv", files["_msprobe.csv"], "--xlsx", files["_msprobe.xlsx"],
                                     "--quiet"])):
            cmd = [*cli_cmd, "compare", npu, bench, *extra, *args]
            rc, stdout, stderr, _ = mpirun(n, cmd, env) if n else run([str(c) for c in cmd], cwd=cwd, env=env)
            self.raw[kind] = (rc, stdout, stderr)
        self.json, self.text = self.raw["json"][1], self.raw["text"][1]
        self.csv, self.msprobe_csv = read(files[".csv"]), read(files["_msprobe.csv"])
        self.xlsx, self.msprobe_xlsx = xlsx_cells(files[".xlsx"]), xlsx_cells(files["_msprobe.xlsx"])
        self.codes = (self.raw["json"][0], self.raw["text"][0])

    def byte_reports(self):
        return (("JSON", self.json), ("CSV", self.csv), ("msprobe-style CSV", self.msprobe_csv), ("text report", self.text))

    def workbooks(self):
        return (("xlsx", self.xlsx), ("msprobe-style xlsx", self.msprobe_xlsx))


def replace_in_cells(sheets, old, new):
    if sheets is None:
        return None
    return [(name, [[(t, v.replace(old, new) if isinstance(v, str) else v) for t, v in row] for row in rows])
            for name, rows in sheets]


def same_cells(a, b):
    """Cell by cell; NaN equals NaN (the workbook writes none, but a reader could)."""
    if a is None or b is None or len(a) != len(b):
        return False
    for (na, ra), (nb, rb) in zip(a, b):
        if na != nb or len(ra) != len(rb):
            return False
        for x, y in zip(ra, rb):
            if len(x) != len(y):
                return False
            for (tx, vx), (ty, vy) in zip(x, y):
                if tx != ty or not (vx == vy or (vx != vx and vy != vy)):
                    return False
    return True


def first_cell_difference(a, b):
    if a is None or b is None:
        return f"missing workbook ({a is None}, {b is None})"
    for (na, ra), (nb, rb) in zip(a, b):
        for i, (x, y) in enumerate(zip(ra, rb)):
            if x != y:
                col = next((j for j, (u, v) in enumerate(zip(x, y)) if u != v), min(len(x), len(y)))
                return (f"sheet {na} row {i + 1} column {col + 1}: {x[col] if col < len(x) else 'none'!r} != "
                        f"{y[col] if col < len(y) else 'none'!r} ({len(x)} and {len(y)} cells)")
        if len(ra) != len(rb):
            return f"sheet {na}: {len(ra)} rows != {len(rb)}"
    return f"{len(a)} sheets != {len(b)}"


def setup():
    """--cli, --samples, --tmp and --sanitized of the mpi test scripts: (cli, samples, a fresh
    tmp, the own-root wrapper in it, this host's name, whether the CLI is a sanitizer build)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--sanitized", action="store_true", help="the CLI is a sanitizer build: a smaller matrix")
    a = ap.parse_args()
    cli = Path(a.cli).resolve()
    tmp = Path(a.tmp).resolve()
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    return cli, Path(a.samples).resolve(), tmp, write_wrapper(tmp / "own_root.sh", cli), socket.gethostname(), a.sanitized


def main():
    cli, samples, tmp, wrapper, host, sanitized = setup()
    c = Checker()
    cases = [case for case in CASES if case[0] in SANITIZED_CASES] if sanitized else CASES
    processes = [2] if sanitized else PROCESSES

    for name, npu_rel, bench_rel, pattern, extra in cases:
        npu, bench = samples / npu_rel, samples / bench_rel
        ref = Reports([cli], npu, bench, extra, tmp, f"{name}_ref")
        c.check(ref.codes[0] in (0, 4) and ref.json.startswith(b"{"), name, f"one process failed: {ref.raw['json'][2][-300:]!r}")
        # the oracle's tables are real: as many .xlsx rows as CSV lines, in both styles
        for what, table, book in (("dumpscope", ref.csv, ref.xlsx), ("msprobe", ref.msprobe_csv, ref.msprobe_xlsx)):
            lines = list(csv.reader(table.decode().splitlines()))
            c.check(book is not None and len(lines) > 1 and sum(len(rows) for _, rows in book) == len(lines)
                    and book[0][1][0] == [("str", h) for h in lines[0]], name,
                    f"{what} style: the one-process .xlsx does not hold the CSV's rows and header")
        c.check(ref.msprobe_csv.split(b"\n")[0] != ref.csv.split(b"\n")[0], name, "--style msprobe gave the same header")
        for n in processes:
            where = f"{name} shared -n {n}"
            got = Reports([cli], npu, bench, extra, tmp, f"{name}_shared{n}", n=n)
            for (what, mine), (_, theirs) in zip(got.byte_reports(), ref.byte_reports()):
                c.check(mine == theirs, where, f"{what} differs from one process's")
            for (what, mine), (_, theirs) in zip(got.workbooks(), ref.workbooks()):
                c.check(same_cells(mine, theirs), where, f"{what} differs from one process's: {first_cell_difference(mine, theirs)}")
            c.check(got.codes == ref.codes, where, f"exit codes {got.codes} != {ref.codes}")
            c.check(b"distributed over" not in got.raw["text"][2] and b"distributed over" in
                    mpirun(n, [cli, "compare", npu, bench, *extra])[2], where, "traffic line missing or printed with --quiet")

            roots = split_roots(tmp / f"{name}_split{n}", npu, bench, pattern, n)
            union = Reports([cli], "npu", "bench", extra, tmp, f"{name}_union{n}", cwd=roots / "union")
            c.check(union.json.replace(str(roots / "union").encode(), b"ROOT") == ref.json.replace(str(npu).encode(), b"ROOT/npu")
                    .replace(str(bench).encode(), b"ROOT/bench") or npu == bench,
                    where, "the union of the split roots is not the same run")
            split = Reports([wrapper, roots], "npu", "bench", extra, tmp, f"{name}_split{n}", n=n)
            where = f"{name} split -n {n}"
            for (what, mine), (_, theirs) in zip(split.byte_reports(), union.byte_reports()):
                c.check(mine.replace(str(roots / "r0").encode(), b"ROOT") == theirs.replace(str(roots / "union").encode(), b"ROOT"),
                        where, f"{what} differs from one process's on the union")
            for (what, mine), (_, theirs) in zip(split.workbooks(), union.workbooks()):
                mine = replace_in_cells(mine, str(roots / "r0"), "ROOT")
                theirs = replace_in_cells(theirs, str(roots / "union"), "ROOT")
                c.check(same_cells(mine, theirs), where,
                        f"{what} differs from one process's on the union: {first_cell_difference(mine, theirs)}")
            c.check(split.codes == union.codes, where, f"exit codes {split.codes} != {union.codes}")

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
    c.check(rc == 2 and b"only compare, info and overflow are spread" in err, "stats under mpirun", f"exit {rc}: {err[-200:]!r}")
    rc, out, _, _ = mpirun(1, [cli, "compare", npu, bench, "--json"])
    c.check(rc == 0 and out == Reports([cli], npu, bench, [], tmp, "plain").json, "mpirun -n 1", "differs from no mpirun")
    # a report inside a dump is refused under mpirun as without it (the file is never written)
    for option in ("--csv", "--xlsx"):
        inside = tmp / "dump_copy" / "npu"
        if not inside.exists():
            shutil.copytree(npu, inside, symlinks=True)
        report = inside / ("r.csv" if option == "--csv" else "r.xlsx")
        rc, _, err, _ = mpirun(2, [cli, "compare", inside, bench, option, report])
        c.check(rc == 2 and b"lies inside a dump directory" in err and not report.exists(), f"{option} inside the dump",
                f"exit {rc}: {err[-200:]!r}")

    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
