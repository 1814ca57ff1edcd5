#!/usr/bin/env python3
"""Files twice msprobe's caps (issue 35, items 1, 4 and 5; figures in docs/scale/files.md).

    python3 bench/bench_big_files.py PART [--dir /work/scratch/h21] [--build build/ci] [--repeat 3]
                                          [--gib 20] [--keep]

PART is one of (each generates its inputs under --dir, measures, and deletes them unless --keep;
only one big input exists at a time, so the disk never holds much more than --gib GiB):

json   a --gib GiB dump.json of real msprobe entries (bench/gen_big_dumpjson.py) and a 1 GiB
       slice of the same entries; per repeat, alternated in the same command: Python's json.load
       of the slice (/usr/bin/python3, its C scanner) and `dumpscope-cli info --json --quiet` of
       the big file, each its own process under /usr/bin/time (wall, CPU, peak RSS). The
       json.load-equivalent ratio is (big bytes / CLI wall) / (slice bytes / json.load wall).
       With --baseline CLI, another build's `info` of the big file runs in each repeat too
       (old against new build, same command). With --cold, the big file is dropped from the page
       cache before each `info` (posix_fadvise DONTNEED), the two builds run in alternating order
       and each run's per-thread CPU and block-I/O wait (/proc/TID/stat field 42, with
       kernel.task_delayacct=1) are recorded. --autogroup-nice N runs every measured program in
       an autogroup of its own at nice N (root; see own_autogroup()). Then once: the GUI probe (bench_gui_latency, offscreen) on the big file, --gui-repeat
       times (default 1: it needs about 0.7x the file in memory).
cold   a 1 GiB float32 tensor (a CANN dump file, bench/gen_tree.py --big-tensor) and a second
       one (another seed); per repeat, each with its pages dropped from the page cache first
       (posix_fadvise DONTNEED after fsync; checked with mincore through fincore when present):
       `cat FILE > /dev/null`, `dumpscope-cli stats FILE` (statistics and nothing else to do),
       `cat A B > /dev/null` and `dumpscope-cli compare A B --quiet` (with --baseline CLI, that
       build's compare too, alternated, its pages dropped first); then warm: bench_stats
       (statistics + histogram against a 2-thread read loop of the same mapping).
lazy   a --gib GiB .npy (float32) and a .pt of the same size (torch's zip layout, zip64, one
       storage): written sparse (header and zip directory real, the payload a hole reading as
       zeros), so that they cost no disk; `dumpscope-cli info` (open: header only) and
       `dumpscope-cli stats` (every element streamed; --stats-repeat times, default 1) with wall
       time and peak RSS.
table  msprobe compare tables of --mibs MiB (default 32,256,2048: up to 2 GiB, made of the rows
       of a real msprobe 26 table (samples/msprobe_real/compare/...), renamed per replica);
       `dumpscope-cli compare TABLE.csv --json --quiet` under an address-space cap (--cap-gb,
       default 8): wall, CPU and peak RSS; tables of 64 MiB or more are read paged. With
       --old-build DIR, that build alternated with this one on tables up to --old-max-mib (64).
       With --gui, also the GUI (offscreen --screenshot, DS_TRACE_TABLE_OPEN): when the first
       rows and every row were shown, wall, CPU and peak RSS.

Prints one JSON object per measurement and the medians. Nothing is written into the repository.
The machine is shared: figures are ratios measured in the same command, median of --repeat.
"""

import json
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def opt(name, default, conv=str):
    return conv(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def own_autogroup():
    """--autogroup-nice N (root; N < 0 on a shared machine): each measured program runs in a
    scheduler autogroup of its own at that nice level (setsid, /proc/self/autogroup), so that
    it gets the cores about as on an idle machine while other users' builds run."""
    nice = opt("--autogroup-nice", None, int)
    if nice is None:
        return None

    def pre():
        os.setsid()
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(nice))
    return pre


def timed(cmd, env=None, cap_gb=None):
    """Runs cmd under /usr/bin/time: {wall, cpu, rss (bytes), rc, out}."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        pre = own_autogroup()
        if cap_gb:
            limit = int(cap_gb * (1 << 30))

            def pre():
                import resource
                if own_autogroup():
                    own_autogroup()()
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        p = subprocess.run(["/usr/bin/time", "-o", t.name, "-f", "%e %U %S %M"] + cmd, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=pre)
        fields = t.read().split()[-4:]
    wall, user, sys_, rss = fields
    return {"wall": float(wall), "cpu": float(user) + float(sys_), "rss": int(rss) * 1024, "rc": p.returncode,
            "out": p.stdout.decode(errors="replace"), "err": p.stderr.decode(errors="replace")[-400:]}


def timed_threads(cmd, env=None):
    """timed() plus, polled every 0.1 s from /proc while it runs, each thread's CPU (utime +
    stime) and block-I/O wait (delayacct_blkio_ticks, /proc/TID/stat field 42: needs
    sysctl kernel.task_delayacct=1), in seconds: {..., threads: [{comm, cpu, blkio}], blkio}."""
    import threading
    tick = os.sysconf("SC_CLK_TCK")
    seen, done = {}, threading.Event()
    holder = {}

    def poll():
        while not done.is_set():
            tp = holder.get("pid")
            kids = []
            if tp:
                try:
                    kids = Path(f"/proc/{tp}/task/{tp}/children").read_text().split()
                except OSError:
                    pass
            for kid in kids:
                try:
                    tids = os.listdir(f"/proc/{kid}/task")
                except OSError:
                    continue
                for tid in tids:
                    try:
                        st = Path(f"/proc/{kid}/task/{tid}/stat").read_text()
                    except OSError:
                        continue
                    comm = st[st.index("(") + 1:st.rindex(")")]
                    f = st[st.rindex(")") + 2:].split()  # f[0] is field 3
                    blkio = int(f[39]) / tick
                    if blkio > time.monotonic() - start + 1:  # a thread inside a read shows
                        blkio = seen.get(tid, {}).get("blkio", 0.0)  # nonsense (uptime) on 6.18
                    seen[tid] = {"comm": comm, "cpu": (int(f[11]) + int(f[12])) / tick, "blkio": blkio}
            done.wait(0.1)

    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        th = threading.Thread(target=poll)
        th.start()
        start = time.monotonic()
        p = subprocess.Popen(["/usr/bin/time", "-o", t.name, "-f", "%e %U %S %M"] + cmd, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=own_autogroup())
        holder["pid"] = p.pid
        out, err = p.communicate()
        done.set()
        th.join()
        wall, user, sys_, rss = t.read().split()[-4:]
    threads = sorted(seen.values(), key=lambda x: -x["cpu"])
    return {"wall": float(wall), "cpu": float(user) + float(sys_), "sys": float(sys_), "rss": int(rss) * 1024,
            "rc": p.returncode, "out": out.decode(errors="replace"), "err": err.decode(errors="replace")[-400:],
            "threads": [t for t in threads if t["cpu"] >= 0.05 or t["blkio"] >= 0.05],
            "blkio": sum(t["blkio"] for t in threads)}


def drop(*paths):
    """Evicts the files' pages from the page cache (written back first)."""
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def cached_fraction(path):
    """Share of the file's pages in the page cache (fincore), or None without fincore."""
    if not shutil.which("fincore"):
        return None
    p = subprocess.run(["fincore", "-b", "-n", "-o", "RES,SIZE", path], capture_output=True, text=True)
    try:
        res, size = (int(x) for x in p.stdout.split())
        return res / size if size else 0.0
    except ValueError:
        return None


def median(rows, key):
    return statistics.median(r[key] for r in rows)


def show(obj):
    print(json.dumps(obj), flush=True)


def cli(build):
    return str(Path(build) / "app" / "dumpscope-cli")


# ---------------------------------------------------------------- json
def part_json(d, build, repeat, gib):
    big, sl = d / "big", d / "slice"
    for out, size in ((sl, 1), (big, gib)):
        if not (out / "step0/rank0/dump.json").exists():
            subprocess.run([PY, str(HERE / "gen_big_dumpjson.py"), str(out), "--gib", str(size)], check=True)
    big_bytes = (big / "step0/rank0/dump.json").stat().st_size
    sl_file = sl / "step0/rank0/dump.json"
    sl_bytes = sl_file.stat().st_size
    rows = []
    # --cold: the big file dropped from the page cache before each CLI run, the new and the
    # baseline build in alternating order, per-thread CPU and block-I/O wait recorded.
    cold = "--cold" in sys.argv
    for i in range(repeat):
        py = timed([PY, "-c", "import json,sys; json.load(open(sys.argv[1]))", str(sl_file)])

        def run(binary):
            if cold:
                drop(big / "step0/rank0/dump.json")
                return timed_threads([binary, "info", "--json", "--quiet", str(big)])
            return timed([binary, "info", "--json", "--quiet", str(big)])
        baseline_first = cold and opt("--baseline", None) and i % 2 == 1
        base = run(opt("--baseline", None)) if baseline_first else None
        ds = run(cli(build))
        if ds["rc"] != 0:
            raise SystemExit("dumpscope-cli info failed: " + ds["err"])
        info = json.loads(ds["out"])
        if opt("--baseline", None) and not base:  # another build's CLI on the same file, alternated (old vs new)
            base = run(opt("--baseline", None))
        row = {"repeat": i, "big_bytes": big_bytes, "slice_bytes": sl_bytes,
               "json_load_slice_s": py["wall"], "json_load_slice_cpu_s": py["cpu"], "json_load_slice_rss": py["rss"],
               "json_load_equiv_gbps": sl_bytes / py["wall"] / 1e9,
               "cli_wall_s": ds["wall"], "cli_cpu_s": ds["cpu"], "cli_rss": ds["rss"],
               "cli_gbps": big_bytes / ds["wall"] / 1e9,
               "ratio": (big_bytes / ds["wall"]) / (sl_bytes / py["wall"]),
               "rss_over_file": ds["rss"] / big_bytes,
               "ratio_cpu": (big_bytes / ds["cpu"]) / (sl_bytes / py["cpu"]),
               "ops": info.get("ops", info.get("operators")), "loadavg": os.getloadavg()[0]}
        if cold:
            row.update({"baseline_first": bool(baseline_first), "cli_sys_s": ds["sys"], "cli_blkio_s": ds["blkio"],
                        "cli_threads": ds["threads"]})
            if base:
                row.update({"baseline_sys_s": base["sys"], "baseline_blkio_s": base["blkio"],
                            "baseline_threads": base["threads"], "cpu_over_baseline": ds["cpu"] / base["cpu"]})
        if base:
            row.update({"baseline_wall_s": base["wall"], "baseline_cpu_s": base["cpu"], "baseline_rss": base["rss"],
                        "baseline_ratio": (big_bytes / base["wall"]) / (sl_bytes / py["wall"]),
                        "speedup_over_baseline": base["wall"] / ds["wall"]})
        rows.append(row)
        show(row)
    show({"median_ratio": median(rows, "ratio"), "median_cli_wall_s": median(rows, "cli_wall_s"),
          "median_rss_over_file": median(rows, "rss_over_file"),
          "median_json_load_slice_s": median(rows, "json_load_slice_s"), "median_cli_cpu_s": median(rows, "cli_cpu_s"),
          **({"median_baseline_ratio": median(rows, "baseline_ratio"),
              "median_speedup_over_baseline": median(rows, "speedup_over_baseline")} if rows and "baseline_ratio" in rows[0] else {})})
    gui = Path(build) / "bench" / "bench_gui_latency"
    if gui.exists():
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        for i in range(opt("--gui-repeat", 1, int)):
            for args in ([], ["--after-shown"]) if "--gui-after-shown" in sys.argv else ([],):
                g = timed([str(gui)] + args + [str(big)], env=env)
                line = [l for l in g["out"].splitlines() if l.startswith("{")]
                res = json.loads(line[-1]) if line else {"error": g["err"]}
                res.update({"mode": "file_open" if args else "command_line", "gui_wall_s": g["wall"],
                            "gui_rss": g["rss"], "gui_rss_over_file": g["rss"] / big_bytes})
                show(res)


# ---------------------------------------------------------------- cold
def part_cold(d, build, repeat):
    d.mkdir(parents=True, exist_ok=True)
    # CANN dump file names ({op type}.{op name}.{task}.{stream}.{timestamp}): the CLI recognises them by name
    a, b = d / "MatMul.a.1.2.1700000000000001", d / "MatMul.b.1.2.1700000000000002"
    for path, seed in ((a, []), (b, ["--seed", "2"])):
        if not path.exists():
            cmd = [PY, str(HERE / "gen_tree.py"), "--big-tensor", str(path), "--dtype", "float32", "--mib", "1024"]
            r = subprocess.run(cmd + seed, capture_output=True, text=True)
            if r.returncode != 0 and seed:  # gen_tree.py has a fixed seed: a second copy then
                subprocess.run(cmd, check=True)
            elif r.returncode != 0:
                raise SystemExit(r.stderr)
    size = a.stat().st_size
    rows = []
    for i in range(repeat):
        row = {"repeat": i, "bytes": size}
        drop(a)
        row["cached_before_cat"] = cached_fraction(str(a))
        c = timed(["sh", "-c", 'cat "$0" > /dev/null', str(a)])
        drop(a)
        row["cached_before_stats"] = cached_fraction(str(a))
        s = timed([cli(build), "stats", "--json", str(a)])
        if s["rc"] != 0:
            raise SystemExit("stats failed: " + s["err"])
        drop(a, b)
        c2 = timed(["sh", "-c", 'cat "$0" "$1" > /dev/null', str(a), str(b)])
        drop(a, b)
        m = timed([cli(build), "compare", str(a), str(b), "--quiet"])
        if opt("--baseline", None):  # another build's compare, alternated in the same repeat (old vs new)
            drop(a, b)
            o = timed([opt("--baseline", None), "compare", str(a), str(b), "--quiet"])
            row.update({"baseline_compare_over_cat": c2["wall"] / o["wall"], "baseline_compare_rss": o["rss"],
                        "baseline_compare_cpu": o["cpu"], "new_over_baseline": o["wall"] / m["wall"]})
        row.update({"compare_cpu": m["cpu"], "stats_cpu": s["cpu"], "cat2_cpu": c2["cpu"]})
        row.update({"cat_gbps": size / c["wall"] / 1e9, "stats_gbps": size / s["wall"] / 1e9,
                    "stats_over_cat": c["wall"] / s["wall"], "stats_rss": s["rss"],
                    "cat2_gbps": 2 * size / c2["wall"] / 1e9, "compare_gbps": 2 * size / m["wall"] / 1e9,
                    "compare_over_cat": c2["wall"] / m["wall"], "compare_rc": m["rc"], "compare_rss": m["rss"],
                    "loadavg": os.getloadavg()[0]})
        rows.append(row)
        show(row)
    warm = []
    for i in range(repeat):
        w = timed([str(Path(build) / "bench" / "bench_stats"), str(a), "--repeat", "3"])
        r = json.loads([l for l in w["out"].splitlines() if l.startswith("{")][-1])
        r["over_read_loop"] = r["gbps"] / r["read_loop_gbps"]
        warm.append(r)
        show({"warm": i, "gbps": r["gbps"], "read_loop_gbps": r["read_loop_gbps"], "over_read_loop": r["over_read_loop"]})
    if rows and "baseline_compare_over_cat" in rows[0]:
        show({"median_baseline_compare_over_cat": median(rows, "baseline_compare_over_cat"),
              "median_new_over_baseline": median(rows, "new_over_baseline")})
    show({"median_stats_over_cat": median(rows, "stats_over_cat"), "median_compare_over_cat": median(rows, "compare_over_cat"),
          "median_warm_over_read_loop": median(warm, "over_read_loop")})


# ---------------------------------------------------------------- lazy
def write_sparse_npy(path, n):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % n
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.truncate(f.tell() + 4 * n)


def torch_pickle(n):
    """data.pkl of torch.save(torch.zeros(n)) (protocol 2, one FloatStorage '0'), made without
    allocating the tensor nor importing torch: the same opcodes torch's persistent_id / _rebuild_tensor_v2 write."""
    import collections
    import pickle
    import types
    # Stand-ins named like torch's globals, so that pickle writes GLOBAL 'torch._utils
    # _rebuild_tensor_v2' and 'torch FloatStorage' as torch.save does (torch is not needed).
    saved = {m: sys.modules.get(m) for m in ("torch", "torch._utils")}
    torch = types.ModuleType("torch")
    torch._utils = types.ModuleType("torch._utils")

    def _rebuild_tensor_v2(*args):
        pass

    class FloatStorage:
        pass
    _rebuild_tensor_v2.__module__, _rebuild_tensor_v2.__qualname__ = "torch._utils", "_rebuild_tensor_v2"
    FloatStorage.__module__, FloatStorage.__qualname__ = "torch", "FloatStorage"
    torch._utils._rebuild_tensor_v2, torch.FloatStorage = _rebuild_tensor_v2, FloatStorage
    sys.modules["torch"], sys.modules["torch._utils"] = torch, torch._utils

    class Storage:
        pass

    class Tensor:
        def __reduce_ex__(self, proto):
            return (torch._utils._rebuild_tensor_v2, (Storage(), 0, (n,), (1,), False, collections.OrderedDict()))

    class P(pickle.Pickler):
        def persistent_id(self, obj):
            return ("storage", torch.FloatStorage, "0", "cpu", n) if isinstance(obj, Storage) else None

    import io
    buf = io.BytesIO()
    try:
        P(buf, protocol=2).dump(Tensor())
    finally:
        for m, v in saved.items():
            if v is None:
                sys.modules.pop(m, None)
            else:
                sys.modules[m] = v
    return buf.getvalue()


def write_sparse_pt(path, n):
    """A zip64 archive as torch.save writes it (stored entries, 64-byte aligned payloads) whose
    20 GiB payload is a hole: only the headers and the directory take disk space."""
    stem = "archive"
    size = 4 * n
    zero_crc = 0
    chunk = bytes(1 << 24)
    left = size
    while left:
        k = min(left, len(chunk))
        zero_crc = zlib.crc32(chunk[:k] if k < len(chunk) else chunk, zero_crc)
        left -= k
    entries = [(stem + "/data.pkl", torch_pickle(n), None), (stem + "/byteorder", b"little", None),
               (stem + "/data/0", None, (size, zero_crc)), (stem + "/version", b"3\n", None)]
    central = []
    with open(path, "wb") as f:
        for name, data, hole in entries:
            nb = name.encode()
            length, crc = (len(data), zlib.crc32(data)) if data is not None else hole
            off = f.tell()
            # zip64 extra in the local header (sizes), padded so the payload starts 64-aligned
            extra = struct.pack("<HHQQ", 1, 16, length, length)
            pad = (-(off + 30 + len(nb) + len(extra) + 4)) % 64
            extra += struct.pack("<HH", 0xFFFF, pad) + b"\0" * pad  # an unknown extra id as padding
            f.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, 0, 0, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(nb), len(extra)))
            f.write(nb + extra)
            if data is not None:
                f.write(data)
            else:
                f.seek(length, 1)
            central.append((nb, crc, length, off))
        cd = f.tell()
        for nb, crc, length, off in central:
            extra = struct.pack("<HHQQQ", 1, 24, length, length, off)
            f.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 0, 0, 0, crc, 0xFFFFFFFF, 0xFFFFFFFF,
                                len(nb), len(extra), 0, 0, 0, 0, 0xFFFFFFFF))
            f.write(nb + extra)
        end = f.tell()
        f.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, len(central), len(central), end - cd, cd))
        f.write(struct.pack("<IIQI", 0x07064B50, 0, end, 1))
        f.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0))


def part_lazy(d, build, repeat, gib):
    d.mkdir(parents=True, exist_ok=True)
    n = int(gib * (1 << 30)) // 4
    # DumpScope reads .pt tensors where msprobe writes them: a tensor-task dump's dump_tensor_data
    # (a .npy also opens on its own); the dump.json is msprobe's, with one entry naming the file.
    rank = d / "pt" / "step0" / "rank0"
    (rank / "dump_tensor_data").mkdir(parents=True, exist_ok=True)
    name = "Functional.linear.0.forward.output.0.pt"
    leaf = {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [n], "Max": 0.0, "Min": 0.0, "Mean": 0.0,
            "Norm": 0.0, "requires_grad": False, "data_name": name}
    doc = {"task": "tensor", "level": "L1", "framework": "pytorch", "dump_data_dir": str(rank / "dump_tensor_data"),
           "data": {"Functional.linear.0.forward": {"input_args": [], "input_kwargs": {}, "output": [leaf]}}}
    (rank / "dump.json").write_text(json.dumps(doc, indent=1))
    files = {"npy": d / "big.npy", "pt": rank / "dump_tensor_data" / name}
    write_sparse_npy(files["npy"], n)
    write_sparse_pt(files["pt"], n)
    opened = {"npy": files["npy"], "pt": d / "pt"}
    for kind, path in files.items():
        rows = []
        for i in range(repeat):
            o = timed([cli(build), "info", "--json", "--quiet", str(opened[kind])])
            # streaming every element is long (--gib GiB): --stats-repeat times (default 1)
            s = timed([cli(build), "stats", "--json", str(opened[kind])]) if i < opt("--stats-repeat", 1, int) else dict(rows[0])
            ok = s.get("rc", 0) == 0 and o["rc"] == 0 and s.get("ok", True)
            row = {"kind": kind, "repeat": i, "bytes": path.stat().st_size, "disk_bytes": path.stat().st_blocks * 512,
                   "open_s": o["wall"], "open_rss": o["rss"], "stats_s": s.get("wall", s.get("stats_s")),
                   "stats_rss": s.get("rss", s.get("stats_rss")),
                   "stats_gbps": path.stat().st_size / s.get("wall", s.get("stats_s")) / 1e9, "ok": ok,
                   "err": "" if ok else (o["err"] + s["err"])[-300:]}
            if ok and "out" in s:
                try:
                    st = json.loads(s["out"])
                    row["stats_head"] = json.dumps(st)[:200]
                except ValueError:
                    row["stats_head"] = s["out"][:200]
            rows.append(row)
            show(row)
        show({"kind": kind, "median_open_s": median(rows, "open_s"), "median_stats_s": median(rows, "stats_s"),
              "max_stats_rss": max(r["stats_rss"] for r in rows)})


# ---------------------------------------------------------------- table
def write_table(path, source, target_bytes):
    lines = Path(source).read_text(encoding="utf-8").splitlines(keepends=True)
    header, body = lines[0], lines[1:]
    name_re = re.compile(r'^([^,]*?)(\.)(\d+)(\.[^,]*?),([^,]*?)(\.)(\d+)(\.[^,]*?),')
    with open(path, "w", encoding="utf-8") as f:
        f.write(header)
        written, k = len(header), 0
        while written < target_bytes:
            k += 1
            block = []
            for line in body:
                # NPU Name and Bench Name: the call counter gets the replica number in front
                line = name_re.sub(lambda m: "%s.%d%03d%s,%s.%d%03d%s," % (m[1], k, int(m[3]), m[4], m[5], k, int(m[7]), m[8]), line, count=1)
                block.append(line)
            text = "".join(block)
            f.write(text)
            written += len(text.encode())
    return k * len(body)


def part_table(d, build, repeat):
    """Tables of --mibs MiB (default 32,256,2048): `compare TABLE.csv --json --quiet` of the build
    (tables of 64 MiB or more are read paged) and, for tables up to --old-max-mib (default 64),
    of --old-build (a build before the paged reader) alternated with it; wall, CPU, peak RSS."""
    d.mkdir(parents=True, exist_ok=True)
    src = opt("--table-source", str(REPO / "samples/msprobe_real/compare/bf16_statistics_mix/step0/csv"))
    src = str(next(Path(src).glob("compare_result_rank0_*.csv"))) if Path(src).is_dir() else src
    cap = opt("--cap-gb", 8.0, float)
    old = opt("--old-build", None)
    old_max = opt("--old-max-mib", 64, int)
    for mib in (int(m) for m in opt("--mibs", "32,256,2048").split(",")):
        # msprobe's table opened alone makes DumpScope look for its dumps below its folder and up
        # to four folders above it (core/compare/tabledumps.h): five empty folders keep the
        # search inside d, so that only the table is measured.
        deep = d / "a" / "b" / "c" / "d" / "e"
        deep.mkdir(parents=True, exist_ok=True)
        path = deep / ("compare_result_rank0_%d.csv" % mib)
        if not path.exists():
            write_table(path, src, mib << 20)
        rows_n = sum(1 for _ in open(path, "rb")) - 1
        builds = [("new", build)] + ([("old", old)] if old and mib <= old_max else [])
        rows = []
        for i in range(repeat):
            for name, b in builds:
                t = timed([cli(b), "compare", str(path), "--json", "--quiet"], cap_gb=cap)
                row = {"mib": mib, "build": name, "rows": rows_n, "repeat": i, "bytes": path.stat().st_size,
                       "wall_s": t["wall"], "cpu_s": t["cpu"], "rss": t["rss"], "rss_over_file": t["rss"] / path.stat().st_size,
                       "rc": t["rc"], "out_bytes": len(t["out"]), "err": t["err"][-200:]}
                rows.append(row)
                show(row)
            if "--gui" in sys.argv:  # the GUI opening the table: when its first rows and every row are shown
                env = dict(os.environ, QT_QPA_PLATFORM="offscreen", DS_TRACE_TABLE_OPEN="1")
                shot = d / "shot.png"
                t = timed([str(Path(build) / "app" / "gui" / "dumpscope"), "--screenshot", str(shot), "--size", "1280x800",
                           str(path)], env=env, cap_gb=cap)
                first = re.search(r"rows shown after (\d+) ms \(first rows\)", t["err"])
                every = re.search(r"rows shown after (\d+) ms \(every row\)", t["err"])
                row = {"mib": mib, "build": "gui", "repeat": i, "wall_s": t["wall"], "cpu_s": t["cpu"], "rss": t["rss"],
                       "rss_over_file": t["rss"] / path.stat().st_size, "first_rows_s": int(first[1]) / 1000 if first else None,
                       "every_row_s": int(every[1]) / 1000 if every else None, "rc": t["rc"]}
                rows.append(row)
                show(row)
        for name in [b[0] for b in builds] + (["gui"] if "--gui" in sys.argv else []):
            mine = [r for r in rows if r["build"] == name]
            show({"mib": mib, "build": name, "median_wall_s": median(mine, "wall_s"), "median_cpu_s": median(mine, "cpu_s"),
                  "max_rss": max(r["rss"] for r in mine)})
        if "--keep" not in sys.argv:
            path.unlink()


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("json", "cold", "lazy", "table"):
        print(__doc__)
        return 2
    part = sys.argv[1]
    d = Path(opt("--dir", "/work/scratch/h21")) / part
    build = opt("--build", str(REPO / "build/ci"))
    repeat = opt("--repeat", 3, int)
    gib = opt("--gib", 20.0, float)
    print(json.dumps({"part": part, "machine": os.uname().release, "cores": os.cpu_count(),
                      "loadavg": os.getloadavg()}), flush=True)
    try:
        if part == "json":
            part_json(d, build, repeat, gib)
        elif part == "cold":
            part_cold(d, build, repeat)
        elif part == "lazy":
            part_lazy(d, build, repeat, gib)
        else:
            part_table(d, build, repeat)
    finally:
        if "--keep" not in sys.argv:
            shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
