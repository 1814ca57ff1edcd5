#!/usr/bin/env python3
"""Read-only guarantee: a full CLI and GUI session over the samples changes nothing in them.

Hashes every file under the samples (content, size, mode, mtime, and every directory's listing
and mtime) before and after: CLI info, list, stats (with histograms, raw layout), export (.npy
and .txt to a temporary directory, and a refused export into the dump itself), overflow and
graph; then the GUI's screenshot mode with a selected tensor on the values, heatmap, graph and
overflow tabs. Any difference (changed, added or removed entry) fails the test.

    readonly_session.py --cli dumpscope-cli [--gui dumpscope] --samples DIR --tmp DIR
"""
import argparse
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile


def snapshot(root):
    """Path -> (kind, size, mode, mtime_ns, sha256 or listing). Links are recorded, not followed."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = os.path.relpath(dirpath, root)
        st = os.lstat(dirpath)
        out[rel_dir] = ("dir", 0, st.st_mode, st.st_mtime_ns, "\n".join(sorted(dirnames + filenames)))
        for name in filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            rel = os.path.join(rel_dir, name)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", st.st_size, st.st_mode, st.st_mtime_ns, os.readlink(path))
                continue
            h = hashlib.sha256()
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            out[rel] = ("file", st.st_size, st.st_mode, st.st_mtime_ns, h.hexdigest())
    return out


def differences(before, after):
    diffs = []
    for k in sorted(set(before) | set(after)):
        if k not in after:
            diffs.append(f"removed: {k}")
        elif k not in before:
            diffs.append(f"added: {k}")
        elif before[k] != after[k]:
            fields = ("kind", "size", "mode", "mtime", "content")
            what = [f for f, a, b in zip(fields, before[k], after[k]) if a != b]
            diffs.append(f"changed ({', '.join(what)}): {k}")
    return diffs


def self_check():
    """The snapshot notices an added file, a content change with the same size and mtime, and
    a touched mtime."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "a"), "wb") as f:
            f.write(b"12345678")
        base = snapshot(d)
        st = os.stat(os.path.join(d, "a"))
        with open(os.path.join(d, "a"), "r+b") as f:
            f.write(b"X")
        os.utime(os.path.join(d, "a"), ns=(st.st_atime_ns, st.st_mtime_ns))
        assert differences(base, snapshot(d)) == ["changed (content): ./a"], differences(base, snapshot(d))
        os.utime(os.path.join(d, "a"), ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
        assert any("mtime" in x for x in differences(base, snapshot(d)))
        open(os.path.join(d, "b"), "wb").close()
        assert "added: ./b" in differences(base, snapshot(d))


def run(cmd, ok_codes=(0,), env=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=300)
    if r.returncode not in ok_codes:
        sys.stderr.write(f"FAIL: {' '.join(cmd)} exited {r.returncode}\n{r.stderr.decode(errors='replace')}\n")
        sys.exit(1)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--gui")
    ap.add_argument("--samples", required=True)
    ap.add_argument("--tmp", required=True)
    args = ap.parse_args()
    self_check()

    samples = os.path.abspath(args.samples)
    model = os.path.join(samples, "cann", "model_dump")
    overflow = os.path.join(samples, "overflow", "legacy")
    graph = os.path.join(samples, "graph", "dump")
    shutil.rmtree(args.tmp, ignore_errors=True)
    os.makedirs(args.tmp)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=os.path.join(args.tmp, "config"),
               HOME=os.path.join(args.tmp, "home"))

    before = snapshot(samples)
    cli = args.cli
    listing = json.loads(run([cli, "list", model, "--json"], env=env).stdout)
    ids = [t["id"] for op in listing["ops"] for t in op["inputs"] + op["outputs"]]
    assert len(ids) >= 10, "the model dump sample has tensors"
    run([cli, "info", model], env=env)
    run([cli, "info", model, "--json"], env=env)
    run([cli, "list", model], env=env)
    run([cli, "stats", model, "--json", "--bins", "32"], ok_codes=(0, 1), env=env)
    run([cli, "stats", model, ids[0], "--raw"], env=env)
    run([cli, "export", model] + ids[:4] + ["--out", os.path.join(args.tmp, "npy"), "--json"], env=env)
    run([cli, "export", model] + ids[:2] + ["--out", os.path.join(args.tmp, "txt"), "--format", "txt"], env=env)
    # Export into the dump itself is refused.
    refused = run([cli, "export", model, ids[0], "--out", os.path.join(model, "exported")], ok_codes=(1, 2), env=env)
    assert refused.returncode != 0
    run([cli, "overflow", overflow, "--json"], env=env)
    run([cli, "overflow", model], env=env)
    run([cli, "graph", graph, "--json"], env=env)
    run([cli, "graph", model], ok_codes=(0, 1), env=env)
    # Framework formats and the comparison read in place too.
    for fmt in ("msprobe", "ptdbg", "h5", os.path.join("npy", "convert")):
        run([cli, "list", os.path.join(samples, fmt), "--json"], env=env)
        run([cli, "stats", os.path.join(samples, fmt), "--json"], ok_codes=(0, 1), env=env)
    npu, bench = os.path.join(samples, "compare", "npu"), os.path.join(samples, "compare", "bench")
    run([cli, "compare", npu, bench, "--csv", os.path.join(args.tmp, "compare.csv"), "--json"], env=env)
    refused = run([cli, "compare", npu, bench, "--csv", os.path.join(npu, "compare.csv")], ok_codes=(1, 2), env=env)
    assert refused.returncode != 0
    written = sorted(os.listdir(os.path.join(args.tmp, "npy")))
    assert len(written) == 4, written

    shots = 0
    if args.gui:
        gui = args.gui
        for extra, path in ((["--select", ids[0], "--tab", "values"], model),
                            (["--select", ids[1], "--tab", "heatmap"], model),
                            (["--tab", "graph"], graph),
                            (["--tab", "overflow"], overflow),
                            (["--compare", bench], npu),
                            (["--select", "step0/rank0/Module.conv1.Conv2d.forward.0.input.0"], os.path.join(samples, "msprobe"))):
            png = os.path.join(args.tmp, f"shot{shots}.png")
            run([gui, "--screenshot", png, "--size", "1000x700"] + extra + [path], env=env)
            with open(png, "rb") as f:
                assert f.read(8) == b"\x89PNG\r\n\x1a\n", png
            shots += 1

    after = snapshot(samples)
    diffs = differences(before, after)
    if diffs:
        sys.stderr.write("FAIL: the session changed the samples:\n  " + "\n  ".join(diffs) + "\n")
        return 1
    print(f"read-only: {len(before)} entries under {samples} unchanged after a CLI session "
          f"({len(ids)} tensors, 4 exported) and {shots} GUI sessions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
