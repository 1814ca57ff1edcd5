#!/usr/bin/env python3
"""`mpirun -n N dumpscope-cli info|overflow PATH [--json]` (issue 17) against one process.

    python3 mpi_scan.py --cli build/dev/app/dumpscope-cli --samples samples --tmp /tmp/x

The oracle is the CLI without mpirun on the same tree: its text and JSON reports of `info` and
of `overflow`. The cases run under mpirun with 1, 2 and 4 (--oversubscribe) processes (every
count and layout on the first case, one of each on the others; with --sanitized, an ASan build,
2 in each layout) in two layouts:

- shared: every process is given the same path (scopes are split between the processes);
- split: every process is given its own root r<OMPI_COMM_WORLD_RANK> holding only some of the
  tree's leaf folders (dealt round-robin by a key: a run, or a run's rank), by the wrapper
  mpi_compare uses; the union of the roots, read by one process, is the oracle.

The cases are real msprobe runs with overflows (samples/msprobe_real: statistics, tensor and
norm-overflow runs, together as a folder of several runs and one run alone) and CANN trees with
OpDebug overflow files (samples/overflow: legacy, magic and vector layouts, a software-scan
tree). The reports must be byte-identical (split: after writing each root's path as ROOT). Then
one failure per command and a killed / a hanging process: rank 0 must name the node and the
path, exit non-zero, and the run must end within a bound.
One line per failed check, then "N passed, M failed"; exit 1 on failure.
"""

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "oracle"))
from checker import Checker  # noqa: E402
from mpi_compare import link_scope, mpi_env, mpirun, run, setup  # noqa: E402

RUNS = "msprobe_real/dumps"
# (name, [(folder in the tree, sample folder)], the path components below the tree that make
#  the deal key, process counts of the shared layout, of the split layout): every count and
#  layout on the folder of several runs, one of each on the others (an mpirun costs seconds
#  under ASan). The key is a run's rank (run/step/rank: components 0 and 2), as node-local
#  storage holds every step of a rank and an overflow unit is a rank's steps (DISTRIBUTED.md).
CASES = [
    ("msprobe_runs", [("overflow_statistics_mix", f"{RUNS}/overflow_statistics_mix"),
                      ("overflow_tensor_mix", f"{RUNS}/overflow_tensor_mix"),
                      ("overflow_norm_statistics_mix", f"{RUNS}/overflow_norm_statistics_mix"),
                      ("npu_rank1_statistics_mix", f"{RUNS}/npu_rank1_statistics_mix"),
                      ("optnan_dumped_statistics_mix", f"{RUNS}/optnan_dumped_statistics_mix")], (0, 2), [1, 2, 4], [2, 4]),
    ("msprobe_overflow_tensor", [(".", f"{RUNS}/overflow_tensor_mix")], (1,), [4], [2]),
    ("cann_opdebug", [(".", "overflow")], (0,), [2], [4]),
]
REPORTS = [("info", []), ("info", ["--json"]), ("overflow", []), ("overflow", ["--json"])]


def leaves(folder):
    """Folders holding files (a rank folder, a CANN data_index folder, a flat dump), sorted."""
    return sorted({p.parent for p in folder.rglob("*") if p.is_file() or (p.is_symlink() and not p.is_dir())})


def assemble(tmp, samples, parts, key_parts, n):
    """tree/ (the whole tree) and r<k>/tree for k < n: every leaf folder, as a real folder of
    links to its files, dealt round-robin by its path components numbered `key_parts`."""
    if tmp.exists():
        shutil.rmtree(tmp)
    keys = {}
    for into, source in parts:
        source = samples / source
        for leaf in leaves(source):
            rel = Path(into) / leaf.relative_to(source)
            comps = rel.parts if into != "." else leaf.relative_to(source).parts
            key = tuple(comps[i] for i in key_parts if i < len(comps))
            k = keys.setdefault(key, len(keys)) % n
            for root in (tmp / "union" / "tree", tmp / f"r{k}" / "tree"):
                target = root / rel
                target.mkdir(parents=True, exist_ok=True)
                for e in sorted(leaf.iterdir()):
                    if e.is_file():
                        (target / e.name).symlink_to(e.resolve())
    for k in range(n):
        (tmp / f"r{k}" / "tree").mkdir(parents=True, exist_ok=True)
    return tmp


def reports(cmd_prefix, path, cwd=None, n=None, env=None):
    """stdout and exit code of every report (info/overflow, text/JSON)."""
    out = []
    for command, extra in REPORTS:
        cmd = [*cmd_prefix, command, path, *extra, "--quiet"]
        rc, stdout, stderr, _ = mpirun(n, cmd, env) if n else run([str(c) for c in cmd], cwd=cwd, env=env)
        out.append((f"{command} {' '.join(extra)}".strip(), rc, stdout, stderr))
    return out


def main():
    cli, samples, tmp, wrapper, host, sanitized = setup()
    c = Checker()

    for name, parts, key_parts, shared_counts, split_counts in CASES:
        if sanitized:  # an ASan build: two processes in each layout
            shared_counts, split_counts = [2], [2]
        # the leaf folders dealt over the roots of each split (links only: small); the oracle
        # reads the whole tree
        built = {n: assemble(tmp / f"{name}_{n}", samples, parts, key_parts, n) for n in split_counts}
        tree = built[split_counts[0]] / "union" / "tree"
        ref = reports([cli], tree)
        for what, rc, out, err in ref:
            c.check(rc == 0 and len(out) > 100, f"{name} one process {what}", f"exit {rc}: {err[-300:]!r}")
        overflow = next(out for what, _, out, _ in ref if what == "overflow --json")
        c.check(b'"first_anomaly": {' in overflow or b'"first_overflow_overall": "' in overflow, name,
                "the case has no overflow: it would test nothing")
        for n in shared_counts:
            got = reports([cli], tree, n=n)
            for (what, rc, out, err), (_, rc0, out0, _) in zip(got, ref):
                c.check(rc == rc0 and out == out0, f"{name} shared -n {n} {what}",
                        f"differs from one process's (exit {rc} vs {rc0}): {err[-300:]!r}")
        for n in split_counts:
            roots = built[n]
            split = reports([wrapper, roots], "tree", n=n)
            for (what, rc, out, err), (_, rc0, out0, _) in zip(split, ref):
                mine = out.replace(str(roots / "r0" / "tree").encode(), b"ROOT")
                theirs = out0.replace(str(tree).encode(), b"ROOT")
                c.check(rc == rc0 and mine == theirs, f"{name} split -n {n} {what}",
                        f"differs from one process's on the union (exit {rc} vs {rc0}): {err[-300:]!r}")
    # the traffic line (stderr, not with --quiet) names the bytes per scope
    rc, _, err, _ = mpirun(2, [cli, "overflow", tree, "--json"])
    c.check(rc == 0 and b"bytes per scope" in err, "traffic line", f"exit {rc}: {err[-300:]!r}")

    # Failures: non-zero within the bound, rank 0 naming the node and the path.
    roots = assemble(tmp / "fail_missing", samples, CASES[1][1], CASES[1][2], 2)
    shutil.rmtree(roots / "r1" / "tree")
    rc, _, err, _ = mpirun(2, [wrapper, roots, "info", "tree"])
    err = err.decode(errors="replace")
    c.check(rc == 3, "info: unreadable path", f"exit {rc}, expected 3 (as one process on a missing path)")
    c.check(f"rank 1 on node {host}" in err and str(roots / "r1" / "tree") in err, "info: unreadable path",
            f"rank 0 does not name the node and the path: {err[-400:]!r}")

    roots = assemble(tmp / "fail_contents", samples, CASES[1][1], CASES[1][2], 2)
    for k in range(2):  # both processes see every scope, but r1's step1/rank0 dump.json differs
        shutil.rmtree(roots / f"r{k}")
        shutil.copytree(roots / "union", roots / f"r{k}", symlinks=True)
    dump = roots / "r1" / "tree" / "step1" / "rank0" / "dump.json"
    text = dump.read_text()
    dump.unlink()
    dump.write_text(text.replace('"Max"', '"Max" ', 1))
    rc, _, err, _ = mpirun(2, [wrapper, roots, "overflow", "tree"])
    err = err.decode(errors="replace")
    c.check(rc == 5, "overflow: different contents", f"exit {rc}, expected 5")
    c.check("scope rank0 (every step) has different contents" in err and f"rank 1 on node {host}" in err
            and str(roots / "r1" / "tree") in err, "overflow: different contents", f"not named: {err[-400:]!r}")

    tree = tmp / f"{CASES[1][0]}_{CASES[1][4][0]}" / "union" / "tree"
    env = mpi_env()
    for command, fault, expect in (("info", "kill:1", "still waiting for: rank 1 on node"), ("overflow", "hang:1", "rank 1 on node")):
        env["DUMPSCOPE_MPI_TEST_FAULT"] = fault
        rc, _, err, took = mpirun(2, ["-x", "DUMPSCOPE_MPI_TEST_FAULT", cli, command, tree, "--mpi-timeout", "3"], env)
        err = err.decode(errors="replace")
        where = f"{command} {fault}"
        c.check(rc not in (None, 0), where, f"exit {rc}: expected non-zero (None: it hung)")
        c.check(took < 60, where, f"took {took:.0f} s")
        c.check(expect in err and f"(path {tree})" in err, where, f"rank 0 does not name the process, node and path: {err[-500:]!r}")
        if fault.startswith("hang"):
            c.check(rc == 5 and "sent nothing for 3 s" in err, where, f"exit {rc} / message: {err[-300:]!r}")

    return c.finish(min_checks=50 if sanitized else 60)


if __name__ == "__main__":
    sys.exit(main())
