#!/usr/bin/env python3
"""No crash on any input, every command: the CLI matrix over the committed samples.

Targets are found by walking the samples at run time (a new sample joins by being there):
every folder and every file. `info --json` runs on each; a folder is a *sample folder* when
info recognises something in it (operators, or files a reader took, bad ones included) or when
it is the samples root or a folder directly below it. Every sample folder and every file info
recognises something in then gets every command:

    info, list, stats, overflow, graph, compare P P, export P <first tensor id of list --json>

(folders: list and graph in text and JSON; the other commands in one form, text and JSON
alternating over the targets). A file no reader takes (an msprobe tensor file alone, a CSV, a
log) is never read, only named: it gets `info`, and the first of its kind in its folder every
command.

Each run has a timeout (a hang fails). A run fails on a signal (negative return code, or
128+N from a shell), a sanitizer report, an exit code outside the command's documented set
(README "Exit codes"), a nonzero exit without a message, JSON output that does not parse, or a
"nothing recognised" exit (1 from info) without the message naming what was looked for. The
stderr of every failure is printed.

The targets are dealt round-robin into `--shard K/N` so that several ctest entries share the
work. `--sanitized` (ASan/UBSan build, 10-50x slower) takes the folders at most two levels below
the root, below that the first folder of each sample group at each depth (a run, a step, a rank
folder ...), and one file per sample group and file kind; the commands run in one form each.

    cli_matrix.py --cli dumpscope-cli --samples DIR --tmp DIR [--shard K/N] [--sanitized]
                  [--self-check]
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# Exit codes each command may give on the samples (README "Exit codes"): 0 success, 1 nothing
# recognised / a tensor or report failed / no graph, 2 usage (compare: a folder of several
# runs). 3 (missing path), 4 (--fail-on, not used here) and 5 (mpirun) must not occur.
ALLOWED = {
    "info": {0, 1}, "list": {0, 1}, "stats": {0, 1}, "overflow": {0, 1}, "graph": {0, 1},
    "compare": {0, 1, 2}, "export": {0, 1},
}
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "SUMMARY: UndefinedBehaviorSanitizer")
NOTHING = "Nothing recognised here: "


class Matrix:
    def __init__(self, cli, samples, tmp, timeout):
        self.cli, self.samples, self.tmp, self.timeout = cli, samples, tmp, timeout
        self.runs = self.failures = 0
        self.seconds = {}
        self.env = dict(os.environ)
        # A sanitizer report must end the process with a signal, whatever ctest's environment.
        self.env["ASAN_OPTIONS"] = "abort_on_error=1:detect_leaks=1:" + self.env.get("ASAN_OPTIONS", "")
        self.env["UBSAN_OPTIONS"] = "halt_on_error=1:abort_on_error=1:print_stacktrace=1:" + self.env.get("UBSAN_OPTIONS", "")

    def rel(self, path):
        return os.path.relpath(path, self.samples)

    def fail(self, args, why, stderr=""):
        self.failures += 1
        shown = " ".join(self.rel(a) if a.startswith(self.samples) else a for a in args)
        print(f"FAIL dumpscope-cli {shown}: {why}", flush=True)
        if stderr.strip():
            print("  stderr: " + stderr.strip()[-3000:].replace("\n", "\n          "), flush=True)

    def run(self, command, *args):
        """Runs one command; returns (code, stdout, stderr) or None when the run failed."""
        argv = [command, *args]
        self.runs += 1
        start = time.monotonic()
        # Its own process group: a hung CLI is killed with every child it started.
        p = subprocess.Popen([self.cli, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                             env=self.env, start_new_session=True)
        try:
            stdout, stderr = p.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            stdout, stderr = p.communicate()
            self.fail(argv, f"hangs: no exit within {self.timeout:g} s", stderr.decode("utf-8", "replace"))
            return None
        finally:
            self.seconds[command] = self.seconds.get(command, 0.0) + time.monotonic() - start
        out = stdout.decode("utf-8", "replace")
        err = stderr.decode("utf-8", "replace")
        code = p.returncode
        if code < 0:
            self.fail(argv, f"killed by signal {signal.Signals(-code).name}", err)
            return None
        if code >= 128:
            self.fail(argv, f"exit {code}: a signal ({code - 128}) or an abort", err)
            return None
        if any(m in err for m in SANITIZER_MARKS):
            self.fail(argv, f"exit {code} with a sanitizer report", err)
            return None
        if code not in ALLOWED[command]:
            self.fail(argv, f"exit {code}, not one of the documented {sorted(ALLOWED[command])}", err)
            return None
        if code != 0 and not (err.strip() or out.strip()):
            self.fail(argv, f"exit {code} without a message")
            return None
        if "--json" in args and out.strip() and (code == 0 or command in ("info", "list", "stats")):
            try:
                json.loads(out)
            except ValueError as e:
                self.fail(argv, f"--json output does not parse: {e}", err)
                return None
        return code, out, err

    def info(self, path):
        """`info --json` and `info`; returns whether something is recognised at `path`
        (None when the run failed)."""
        r = self.run("info", "--json", path)
        if r is None:
            return None
        code, out, err = r
        ops = json.loads(out).get("ops", 0) if out.strip() else 0
        if code == 1:
            if NOTHING not in err or "Looked for: " not in err:
                self.fail(["info", "--json", path], "exit 1 without the 'nothing recognised' message naming what was looked for", err)
            if ops:
                self.fail(["info", "--json", path], f"exit 1 ('nothing recognised') although {ops} operators were indexed", err)
            return False
        return True

    def every_command(self, path, flip, both_forms):
        """Every command on `path` after `info --json`. `flip` chooses text or --json for the
        commands run in one form; `both_forms` (folders) runs list and graph in both."""
        fmt = ["--json"] if flip else []
        self.run("info", path)
        listed = self.run("list", "--json", path)
        if both_forms:
            self.run("list", path)
        self.run("stats", *fmt, path)
        self.run("overflow", *fmt, path)
        self.run("graph", *fmt, path)
        if both_forms:
            self.run("graph", *([] if flip else ["--json"]), path)
        self.run("compare", *fmt, path, path)
        tensor = None
        if listed is not None and listed[1].strip():
            for op in json.loads(listed[1]).get("ops", []):
                for key in ("inputs", "outputs", "parameters", "tensors"):
                    for t in op.get(key, []) or []:
                        if isinstance(t, dict) and t.get("id"):
                            tensor = t["id"]
                            break
                    if tensor:
                        break
                if tensor:
                    break
        if tensor:
            out = tempfile.mkdtemp(prefix="export_", dir=self.tmp)
            self.run("export", *fmt, path, tensor, "--out", out)
            shutil.rmtree(out, ignore_errors=True)


def targets(samples):
    """Every folder (the root first) and every file below `samples`, sorted."""
    dirs, files = [], []
    for dirpath, dirnames, filenames in os.walk(samples):
        dirnames.sort()
        dirs.append(dirpath)
        files += [os.path.join(dirpath, f) for f in sorted(filenames)]
    return dirs, files


def kind_of(path):
    """The kind of a file for the sanitized matrix: its last suffix (a dump file's name,
    whose suffix is a timestamp, counts as "dump")."""
    name = os.path.basename(path)
    suffix = name.rsplit(".", 1)[-1] if "." in name else ""
    return "dump" if suffix.isdigit() else suffix


def self_check(args):
    """The matrix fails on a crash, a hang, an undocumented exit and a silent failure:
    a fake CLI (a shell script) does each on its own path."""
    tmp = tempfile.mkdtemp(dir=args.tmp)
    samples = os.path.join(tmp, "samples")
    for name in ("segv", "hang", "exit3", "silent", "nothing", "ok"):
        os.makedirs(os.path.join(samples, name))
    fake = os.path.join(tmp, "fake-cli")
    with open(fake, "w") as f:
        f.write("""#!/bin/sh
for a in "$@"; do p="$a"; done
case "$*" in
  *segv*) kill -SEGV $$ ;;
  *hang*) exec sleep 30 ;;
  *exit3*) exit 3 ;;
  *silent*) exit 1 ;;
  *nothing*) echo '{"ops": 0}'; echo "no dump here" >&2; exit 1 ;;
esac
echo '{"ops": 1}'
""")
    os.chmod(fake, 0o755)
    m = Matrix(fake, samples, tmp, timeout=2)
    expected = {"segv": "signal SIGSEGV", "hang": "hangs", "exit3": "exit 3", "silent": "without a message",
                "nothing": "nothing recognised"}
    import contextlib
    import io
    ok = True
    for name, why in expected.items():
        before = m.failures
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            m.info(os.path.join(samples, name))
        if m.failures == before or why not in buf.getvalue():
            print(f"FAIL self-check: the matrix did not notice '{why}' ({buf.getvalue().strip()})")
            ok = False
    before = m.failures
    m.info(os.path.join(samples, "ok"))
    if m.failures != before:
        print("FAIL self-check: a clean run was reported")
        ok = False
    shutil.rmtree(tmp, ignore_errors=True)
    print("self-check: " + ("the matrix notices a signal, a hang, an undocumented exit, a silent failure and a bare 'nothing'"
                            if ok else "FAILED"))
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--samples", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--shard", default="1/1", help="K/N: the K-th of N round-robin parts of the targets")
    ap.add_argument("--sanitized", action="store_true")
    ap.add_argument("--timeout", type=float, default=None)
    ap.add_argument("--self-check", action="store_true", help="also check that the matrix notices failures")
    args = ap.parse_args()
    samples = os.path.abspath(args.samples)
    os.makedirs(args.tmp, exist_ok=True)
    k, n = (int(x) for x in args.shard.split("/"))
    timeout = args.timeout or (600 if args.sanitized else 120)
    if args.self_check and not self_check(args):
        return 1

    dirs, files = targets(samples)
    if args.sanitized:
        # One file per sample group and kind; the folders at most two levels down, and below
        # that the first folder of each sample group at each depth (a run, a step, a rank ...).
        seen, kept = set(), []
        for f in files:
            key = (os.path.relpath(f, samples).split(os.sep)[0], kind_of(f))
            if key not in seen:
                seen.add(key)
                kept.append(f)
        files = kept
        seen, kept = set(), []
        for d in dirs:
            rel = os.path.relpath(d, samples).split(os.sep) if d != samples else []
            key = (rel[0], len(rel)) if len(rel) > 2 else None
            if key is None or key not in seen:
                seen.add(key)
                kept.append(d)
        dirs = kept
    # A file no reader takes is only named and listed (never read): every command runs on the
    # first of each kind in its folder, `info` on all (graph discovery looks at the folder).
    first_of_kind, seen = set(), set()
    for f in files:
        key = (os.path.dirname(f), kind_of(f))
        if key not in seen:
            seen.add(key)
            first_of_kind.add(f)
    everything = dirs + files
    mine = [t for i, t in enumerate(everything) if i % n == k - 1]
    m = Matrix(os.path.abspath(args.cli), samples, args.tmp, timeout)
    start = time.monotonic()
    sample_folders = full_files = 0
    for i, path in enumerate(mine):
        depth = 0 if path == samples else os.path.relpath(path, samples).count(os.sep) + 1
        recognised = m.info(path)
        if recognised is None:
            continue
        if os.path.isdir(path):
            if not recognised and depth > 1:
                if not args.sanitized:
                    m.run("list", path)  # the same message from another command, exit 1
                continue
            sample_folders += 1
            m.every_command(path, flip=i % 2 == 0, both_forms=not args.sanitized)
        elif recognised or path in first_of_kind:
            full_files += 1
            m.every_command(path, flip=i % 2 == 0, both_forms=False)
    took = time.monotonic() - start
    slow = ", ".join(f"{c} {s:.1f} s" for c, s in sorted(m.seconds.items(), key=lambda x: -x[1]))
    print(f"shard {k}/{n}: {len(mine)} of {len(everything)} targets, {sample_folders} sample folders and {full_files} files "
          f"with every command; {m.runs} runs in {took:.1f} s ({slow}); {m.failures} failed")
    if m.runs == 0:
        print("FAIL no run: the shard holds no target")
        return 1
    return 1 if m.failures else 0


if __name__ == "__main__":
    sys.exit(main())
