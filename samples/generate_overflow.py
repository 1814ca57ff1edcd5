#!/usr/bin/env python3
"""Generate the overflow (OpDebug) samples under samples/overflow/ and their manifest entries.

Deterministic; run it again to recreate the trees byte for byte:

    /usr/bin/python3 samples/generate_overflow.py

Written from shared/specs/overflow.md (OpDebug record layouts §3-§5, status decoding §6,
linking §7, ordering §8, saturation §9, levels §14) and cann-dump.md (§2-§5 directory
trees, names and container).  The DumpData encoder and the tensor/manifest helpers are
imported from generate_samples.py (no protobuf library anywhere).

The expected "overflow" object of every manifest entry is NOT taken from the generator's
intentions: after writing a tree, this script re-reads the files from disk with its own
small decoder (protobuf wire format, OpDebug payload layouts, file-name grammar, linking
and ordering rules, software scan) and stores what that decoder finds.  The generator's
intentions are then asserted against the decoded result, so the two must agree.

Files written: samples/overflow/** and samples/manifest.json, in which only the entries
whose name starts with "overflow_" are replaced (all other entries are kept unchanged).
"""

import json
import os
import shutil
import struct
import sys
from pathlib import Path

import numpy as np

sys.dont_write_bytecode = True  # importing generate_samples must not leave __pycache__ behind
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import generate_samples as gs  # noqa: E402  (encoder, tensors, Sample, compact_json)

# Output root: samples/ itself, or the folder in DUMPSCOPE_SAMPLES_OUT (tests/check_samples.py
# regenerates every sample into a temporary folder and diffs it against the committed one).
ROOT = Path(os.environ.get("DUMPSCOPE_SAMPLES_OUT") or HERE)
OVERFLOW_DIR = ROOT / "overflow"

# ----------------------------------------------------------------------------
# Spec constants (overflow.md §3-§6)
# ----------------------------------------------------------------------------

PAYLOAD_LEN = 2048
MAGIC = 0x5A5A5A5A

# §4: block -> (info offset, status offset); AI Core also kernel_code/block_idx at 0x400/0x408
LEGACY_BLOCKS = (("DHA Atomic Add", 0x000, 0x200),
                 ("L2 Atomic Add", 0x080, 0x300),
                 ("AI Core", 0x100, 0x410))
INFO_FIELDS = ("model_id", "stream_id", "task_id", "task_type", "pc_start", "para_base")

# §5: acc_type -> (kind, field sequence); AIC/AIV version 1 has 4 status words
ACC_TYPES = {
    0: ("AIC", ("model_id", "stream_id", "task_id", "task_type", "context_id", "thread_id",
                "pc_start", "para_base", "core_id", "block_id", "status")),
    1: ("AIV", ("model_id", "stream_id", "task_id", "task_type", "context_id", "thread_id",
                "pc_start", "para_base", "core_id", "block_id", "status")),
    2: ("AICPU", ("model_id", "stream_id", "task_id", "task_type", "context_id", "cpu_id",
                  "thread_id", "status")),
    3: ("SDMA", ("model_id", "stream_id", "task_id", "task_type", "context_id", "thread_id",
                 "src_addr", "dst_addr", "channel_id", "status")),
}
ACC_TYPE_OF = {kind: t for t, (kind, _) in ACC_TYPES.items()}

AI_CORE_BITS = (0x8, 0x10, 0x20, 0x80, 0x100, 0x400)   # §6.1 (documented)
FP16_MAX = 65504.0
BF16_MAX = 3.3895313892515355e38


# ============================================================================
# Part 1: the independent decoder (reads what is on disk)
# ============================================================================


def read_varint(b, i):
    shift = value = 0
    while True:
        if i >= len(b) or shift > 63:
            raise ValueError("bad varint")
        c = b[i]
        i += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return value, i


def pb_fields(b):
    """Protobuf wire parse: list of (field number, wire type, int or bytes)."""
    i, out = 0, []
    while i < len(b):
        key, i = read_varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = read_varint(b, i)
        elif wt == 2:
            n, i = read_varint(b, i)
            if i + n > len(b):
                raise ValueError("length-delimited field runs past the message")
            v, i = bytes(b[i:i + n]), i + n
        elif wt == 1:
            v, i = None, i + 8
        elif wt == 5:
            v, i = None, i + 4
        else:
            raise ValueError(f"wire type {wt}")
        out.append((num, wt, v))
    if i != len(b):
        raise ValueError("message overrun")
    return out


def pb_shape(b):
    dims = []
    for num, wt, v in pb_fields(b):
        if num == 1 and wt == 2:          # packed
            j = 0
            while j < len(v):
                d, j = read_varint(v, j)
                dims.append(d)
        elif num == 1 and wt == 0:        # unpacked
            dims.append(v)
    return dims


# proto data_type -> numpy dtype ("bf16" handled separately)
NP_OF = {1: "<f4", 2: "<f2", 3: "|i1", 4: "|u1", 5: "<i2", 6: "<u2", 7: "<i4", 8: "<i8",
         9: "<u4", 10: "<u8", 11: "|b1", 12: "<f8", 27: "bf16"}
DTYPE_NAME = {1: "float32", 2: "float16", 3: "int8", 4: "uint8", 5: "int16", 6: "uint16",
              7: "int32", 8: "int64", 9: "uint32", 10: "uint64", 11: "bool", 12: "float64",
              27: "bfloat16"}


def pb_tensor(b, is_output):
    """OpOutput / OpInput (cann-dump.md §5.1: the field numbers differ after shape)."""
    f = dict(data_type=1, format=2, shape=3, data=5 if is_output else 4,
             size=6 if is_output else 5, original_shape=7 if is_output else 6)
    t = {"data_type": 0, "format": 0, "shape": [], "data": b"", "size": 0,
         "original_shape": [], "original_op": None}
    for num, wt, v in pb_fields(b):
        if num == f["data_type"] and wt == 0:
            t["data_type"] = v
        elif num == f["format"] and wt == 0:
            t["format"] = v
        elif num == f["shape"] and wt == 2:
            t["shape"] = pb_shape(v)
        elif num == f["data"] and wt == 2:
            t["data"] = v
        elif num == f["size"] and wt == 0:
            t["size"] = v
        elif num == f["original_shape"] and wt == 2:
            t["original_shape"] = pb_shape(v)
        elif is_output and num == 4 and wt == 2:
            t["original_op"] = next((x.decode() for n, w, x in pb_fields(v) if n == 1 and w == 2), "")
    return t


def decode_dump_file(path):
    """Big dump container (cann-dump.md §4.1): u64 header_len | DumpData | inputs | outputs."""
    data = path.read_bytes()
    (hlen,) = struct.unpack_from("<Q", data, 0)
    assert 8 + hlen <= len(data), path
    d = {"version": "", "dump_time": 0, "op_name": "", "inputs": [], "outputs": []}
    for num, wt, v in pb_fields(data[8:8 + hlen]):
        if num == 1 and wt == 2:
            d["version"] = v.decode()
        elif num == 2 and wt == 0:
            d["dump_time"] = v
        elif num == 3 and wt == 2:
            d["outputs"].append(pb_tensor(v, True))
        elif num == 4 and wt == 2:
            d["inputs"].append(pb_tensor(v, False))
        elif num == 6 and wt == 2:
            d["op_name"] = v.decode()
    pos = 8 + hlen
    for t in d["inputs"] + d["outputs"]:   # payload order: inputs first, then outputs
        t["raw"] = data[pos:pos + t["size"]]
        pos += t["size"]
    assert pos == len(data), f"{path}: size check {pos} != {len(data)}"
    d["header_len"], d["file_size"] = hlen, len(data)
    return d


def tensor_values(t):
    kind = NP_OF[t["data_type"]]
    if kind == "bf16":
        bits = np.frombuffer(t["raw"], dtype="<u2")
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return np.frombuffer(t["raw"], dtype=kind).astype(np.float64)


def parse_name(name):
    """cann-dump.md §3.3 (the parts the samples use): numeric fields parsed from the right."""
    tok = name.split(".")
    t = next((i for i in range(len(tok) - 1, 1, -1) if tok[i].isdigit() and len(tok[i]) == 16), None)
    if t is None:
        return None
    nums, j = [], t - 1
    while j >= 2 and len(nums) < 2 and tok[j].isdigit():
        nums.insert(0, int(tok[j]))
        j -= 1
    first_numeric = t - len(nums)
    task = nums[0] if nums else None
    stream = nums[1] if len(nums) == 2 else None
    op_type, op_name = tok[0], ".".join(tok[1:first_numeric])
    return {"op_type": op_type, "op_name": op_name, "task_id": task, "stream_id": stream,
            "timestamp": int(tok[t]),
            "opdebug": op_type.lower() == "opdebug" and op_name.lower() == "node_opdebug"}


def dir_levels(reldir):
    """cann-dump.md §2.2: 14 digits -> time; next integer -> device; non-integer -> model_name;
    remaining integers -> model_id, then data_index.  Missing levels are ''."""
    lv = {"time": "", "device": "", "model_name": "", "model_id": "", "data_index": ""}
    for comp in [c for c in reldir.split("/") if c]:
        if comp.isdigit() and len(comp) == 14 and not lv["time"]:
            lv["time"] = comp
        elif comp.isdigit():
            for key in ("device", "model_id", "data_index"):
                if not lv[key]:
                    lv[key] = comp
                    break
        else:
            lv["model_name"] = comp
    return lv


def num(s):
    return int(s) if s else -1


def index_tree(root):
    """Every regular file whose name parses as a dump name, decoded."""
    files = []
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        info = parse_name(p.name)
        if info is None:
            continue
        rel = p.relative_to(root).as_posix()
        reldir = rel.rsplit("/", 1)[0] if "/" in rel else ""
        d = decode_dump_file(p)
        # overflow.md §2: an OpDebug file is also recognised by its header content
        if (d["op_name"] == "Node_OpDebug" and len(d["outputs"]) == 1 and not d["inputs"]
                and d["outputs"][0]["data_type"] == 4 and d["outputs"][0]["size"] == PAYLOAD_LEN):
            info["opdebug"] = True
        files.append(dict(info, rel=rel, dir=reldir, levels=dir_levels(reldir), dump=d))
    return files


def u64(p, off):
    return struct.unpack_from("<Q", p, off)[0]


def ai_core_codes(status):
    return [1 << b for b in range(64) if status >> b & 1]


def decode_payload(p):
    """-> (layout, [block dicts of the triggered blocks])."""
    if len(p) >= 4 and struct.unpack_from("<I", p, 0)[0] == MAGIC:       # §5
        version, valid, acc_type, _rsv, data_len = struct.unpack_from("<5I", p, 4)
        kind, fields = ACC_TYPES[acc_type]
        names = list(fields)
        if kind in ("AIC", "AIV") and version == 1:
            names = names[:-1] + ["status", "status_1", "status_2", "status_3"]
        assert data_len == 8 * len(names), (kind, version, data_len)
        vals = {n: u64(p, 24 + 8 * i) for i, n in enumerate(names)}
        blocks = []
        if valid == 1:
            status = vals["status"]  # the first status word
            words = [vals[n] for n in names if n.startswith("status")]
            codes = ai_core_codes(status) if kind == "AIC" else []
            blocks.append({"kind": kind, "model_id": vals["model_id"], "stream_id": vals["stream_id"],
                           "task_id": vals["task_id"], "status": status, "codes": codes,
                           "overflow": any(words)})
        return "magic", blocks
    assert len(p) == PAYLOAD_LEN
    blocks = []
    for kind, info_off, status_off in LEGACY_BLOCKS:                     # §4
        info = {f: u64(p, info_off + 8 * i) for i, f in enumerate(INFO_FIELDS)}
        status = u64(p, status_off)
        if not any(info.values()) and status == 0:
            continue  # not triggered
        if kind == "AI Core":
            codes, overflow = ai_core_codes(status), status != 0
        elif kind == "DHA Atomic Add":
            codes = [(status >> 8) & 0xFF]
            overflow = codes[0] != 0
        else:
            codes = [(status >> 16) & 0x7]
            overflow = codes[0] != 0
        blocks.append({"kind": kind, "model_id": info["model_id"], "stream_id": info["stream_id"],
                       "task_id": info["task_id"], "status": status, "codes": codes,
                       "overflow": overflow})
    # the traversal order of §7 lists AI Core first; keep the spec's display order
    order = {"AI Core": 0, "DHA Atomic Add": 1, "L2 Atomic Add": 2}
    blocks.sort(key=lambda b: order[b["kind"]])
    return "legacy", blocks


def pick_candidate(cands, ts):
    """§7: the largest timestamp <= the OpDebug file's, else the earliest."""
    if not cands:
        return None
    before = [c for c in cands if c["timestamp"] <= ts]
    if before:
        return max(before, key=lambda c: (c["timestamp"], c["rel"]))
    return min(cands, key=lambda c: (c["timestamp"], c["rel"]))


def link(files, rec, block):
    ops = [f for f in files if not f["opdebug"]]
    match = [f for f in ops if f["task_id"] == block["task_id"] and f["stream_id"] == block["stream_id"]]
    here = [f for f in match if f["dir"] == rec["dir"]]
    if here:
        return pick_candidate(here, rec["timestamp"])["rel"]
    parent = rec["dir"].rsplit("/", 1)[0] if "/" in rec["dir"] else None
    if parent is None:
        return None
    sib = [f for f in match if f["dir"] != rec["dir"] and "/" in f["dir"]
           and f["dir"].rsplit("/", 1)[0] == parent]
    c = pick_candidate(sib, rec["timestamp"])
    return c["rel"] if c else None


def l2norm(v):
    fin = v[np.isfinite(v)]
    return float(np.sqrt(np.sum(fin * fin))) if fin.size else 0.0


def anomalous(t):
    v = tensor_values(t)
    if not np.all(np.isfinite(v)):
        return True
    if t["data_type"] == 2:
        return bool(np.any(np.abs(v) == FP16_MAX))
    if t["data_type"] == 27:
        return bool(np.any(np.abs(v) == BF16_MAX))
    return False


def software_level(d):
    """overflow.md §14 as DumpScope applies it to CANN dumps (first matching rule wins)."""
    ins, outs = d["inputs"], d["outputs"]
    in_bad = any(anomalous(t) for t in ins)
    out_bad = any(anomalous(t) for t in outs)
    if not in_bad and out_bad:
        return "critical"
    if in_bad and out_bad:
        return "high"
    if in_bad and not out_bad:
        return "medium"
    in_norm = max((l2norm(tensor_values(t)) for t in ins), default=0.0)
    out_norm = max((l2norm(tensor_values(t)) for t in outs), default=0.0)
    if (in_norm > 0 and out_norm / in_norm > 100) or (in_norm == 0 and out_norm > 100):
        return "high"
    return None


def exec_key(f):
    lv = f["levels"]
    return (lv["time"], num(lv["device"]), lv["model_name"], num(lv["model_id"]),
            num(lv["data_index"]), f["timestamp"], f["rel"])


def value_anomaly(d):
    """NaN, Inf or saturated values among an operator's inputs or outputs (overflow.md §9)."""
    return any(anomalous(t) for t in d["inputs"] + d["outputs"])


def scope_id(lv):
    """The scope of a CANN file: its device and iteration (data_index), as README "Overflow" names it."""
    parts = [("device" + lv["device"]) if lv["device"] else "",
             ("iteration" + lv["data_index"]) if lv["data_index"] else ""]
    return "/".join(p for p in parts if p)


def first_overflow(files, records):
    """README "Overflow", the one first-overflow rule, from the decoded files:

    per scope (device x iteration) every operator a source names, at its position in the
    scope's execution order (every file of the scope, OpDebug files included, in exec_key
    order): the software scan names the operators with NaN/Inf/saturated values, the OpDebug
    records (in §8 order) the operators their blocks link to (an unlinked record: itself).
    The first of a source is its earliest step (iteration), then the smallest position (no
    CANN operator is a communication op: the clock offset is the position), then the lowest
    device; the answer is that of the two sources together."""
    scopes = {}
    for f in sorted(files, key=exec_key):
        scopes.setdefault(scope_id(f["levels"]), []).append(f)
    where = {}
    for sid, fs in scopes.items():
        for pos, f in enumerate(fs):
            where[f["rel"]] = (sid, pos, f)
    record_of = {}
    hardware = []
    for r in records:  # already in §8 order
        named = [b["linked_op"] or r["file"] for b in r["blocks"]] or [r["file"]]
        for rel in named:
            record_of.setdefault(rel, r["file"])
            hardware.append(rel)
    software = [f["rel"] for f in files if not f["opdebug"] and value_anomaly(f["dump"])]

    def earliest(rels):
        def key(rel):
            sid, pos, f = where[rel]
            return (num(f["levels"]["data_index"]), pos, num(f["levels"]["device"]))
        return min(rels, key=key) if rels else None

    def describe(rel):
        if rel is None:
            return None
        sid, _pos, f = where[rel]
        level = software_level(f["dump"]) if rel in software else None
        return {"file": rel, "op": f["dump"]["op_name"], "scope": sid,
                "record": record_of.get(rel), "level": level}

    first = earliest(hardware + software)
    if first is None:
        return None
    out = describe(first)
    out["source"] = ("both" if out["record"] and out["level"] else "opdebug" if out["record"] else "software")
    out["opdebug_first"] = describe(earliest(hardware))
    out["software_first"] = describe(earliest(software))
    return out


def analyse(root):
    """The manifest's "overflow" object for one sample tree, from the files on disk."""
    files = index_tree(root)
    records = []
    for f in files:
        if not f["opdebug"]:
            continue
        payload = f["dump"]["outputs"][0]["raw"]
        layout, blocks = decode_payload(payload)
        for b in blocks:
            b["linked_op"] = link(files, f, b)
        records.append({"file": f["rel"], "layout": layout, "blocks": blocks, "_f": f})
    # §8: device, data_index (numeric), file timestamp, file name
    records.sort(key=lambda r: (num(r["_f"]["levels"]["device"]), num(r["_f"]["levels"]["data_index"]),
                                r["_f"]["timestamp"], r["_f"]["rel"].rsplit("/", 1)[-1]))
    first = {}
    for r in records:
        first.setdefault(r["_f"]["levels"]["device"], r["file"])
    levels, producer = {}, None
    for f in sorted((f for f in files if not f["opdebug"]), key=exec_key):
        lvl = software_level(f["dump"])
        if lvl:
            levels[f["rel"]] = lvl
            if lvl == "critical" and producer is None:
                producer = f["rel"]
    for r in records:
        del r["_f"]
    answer = first_overflow(files, records)
    n_tensors = sum(len(f["dump"]["inputs"]) + len(f["dump"]["outputs"]) for f in files)
    return {"records": records, "first_overflow": first, "first": answer,
            "software": {"first_producer": producer, "levels": levels}}, len(files), n_tensors


# ============================================================================
# Part 2: the generator
# ============================================================================


def legacy_payload(blocks):
    """blocks: {kind: dict(model_id, stream_id, task_id, task_type, pc_start, para_base, status,
    [kernel_code, block_idx])} -> 2048 bytes (overflow.md §4)."""
    p = bytearray(PAYLOAD_LEN)
    for kind, info_off, status_off in LEGACY_BLOCKS:
        b = blocks.get(kind)
        if not b:
            continue
        for i, f in enumerate(INFO_FIELDS):
            struct.pack_into("<Q", p, info_off + 8 * i, b.get(f, 0))
        struct.pack_into("<Q", p, status_off, b["status"])
        if kind == "AI Core":
            struct.pack_into("<QQ", p, 0x400, b.get("kernel_code", 0), b.get("block_idx", 0))
    return bytes(p)


def magic_payload(kind, version, values):
    """overflow.md §5: magic, version, acc_list{valid, acc_type, rsv, data_len, data[]}."""
    names = list(ACC_TYPES[ACC_TYPE_OF[kind]][1])
    if kind in ("AIC", "AIV") and version == 1:
        names = names[:-1] + ["status", "status_1", "status_2", "status_3"]
    data = b"".join(struct.pack("<Q", values.get(n, 0)) for n in names)
    head = struct.pack("<6I", MAGIC, version, 1, ACC_TYPE_OF[kind], 0, len(data))
    p = bytearray(PAYLOAD_LEN)
    p[:len(head) + len(data)] = head + data
    return bytes(p)


def opdebug_op(payload, timestamp):
    """An OpDebug file is an ordinary big dump (overflow.md §3.1)."""
    t = gs.nd_tensor(np.frombuffer(payload, dtype=np.uint8), "uint8")
    t.original_op = ("Node_OpDebug",)  # name only: output_index 0 and no data_type on the wire
    return gs.Op("Opdebug", "Node_OpDebug", 0, 0, timestamp, [], [t])


def ai_core(model, stream, task, status, block_idx=1):
    pc = 0x100800500000 + task * 0x10000
    return {"AI Core": dict(model_id=model, stream_id=stream, task_id=task, pc_start=pc,
                            para_base=0x100800200000 + task * 0x1000, kernel_code=pc - 0x2000,
                            block_idx=block_idx, status=status)}


def atomic(kind, model, stream, task, status):
    return {kind: dict(model_id=model, stream_id=stream, task_id=task,
                       pc_start=0x100800700000 + task * 0x10000,
                       para_base=0x100800300000 + task * 0x1000, status=status)}


f16 = gs.f16


def t16(a):
    return gs.nd_tensor(f16(a), "float16")


def t32(a):
    return gs.nd_tensor(np.asarray(a, dtype=np.float32), "float32")


def normal(key, shape, scale=1.0):
    return gs.rng_for(key).standard_normal(shape) * scale


def op(op_type, name, task, stream, ts, ins, outs):
    return gs.Op(op_type, name, task, stream, ts, ins, outs)


# ---------------------------------------------------------------------------- operators


def op_conv(ts, task, stream, name):
    x = f16(normal(name + "x", (1, 4, 6, 6)))
    w = f16(normal(name + "w", (4, 4, 3, 3), 0.2))
    y = f16(gs.conv2d(x, w))
    return op("Conv2D", name, task, stream, ts, [t16(x), t16(w)], [t16(y)])


def op_relu(ts, task, stream, name, shape=(4, 16)):
    x = f16(normal(name, shape))
    return op("Relu", name, task, stream, ts, [t16(x)], [t16(np.maximum(x, f16(0)))])


def op_matmul(ts, task, stream, name, specials):
    """fp16 MatMul with normal inputs; `specials` {(i, j): value} are forced into the output."""
    a = f16(normal(name + "a", (4, 16)))
    b = f16(normal(name + "b", (16, 8), 0.5))
    y = a.astype(np.float32) @ b.astype(np.float32)
    for (i, j), v in specials.items():
        y[i, j] = v
    return op("MatMulV2", name, task, stream, ts, [t16(a), t16(b)], [t16(f16(y))])


def op_reduce_sum(ts, task, stream, name, specials):
    """fp32 row sums; `specials` {(i, j): value} are placed in the input first."""
    x = normal(name, (8, 16)).astype(np.float32)
    for (i, j), v in specials.items():
        x[i, j] = v
    with np.errstate(over="ignore", invalid="ignore"):
        y = x.sum(axis=1, dtype=np.float32)
    return op("ReduceSumD", name, task, stream, ts, [t32(x)], [t32(y)])


def op_mul(ts, task, stream, name):
    x, y = f16(normal(name + "x", (4, 16))), f16(normal(name + "y", (4, 16)))
    return op("Mul", name, task, stream, ts, [t16(x), t16(y)],
              [t16(f16(x.astype(np.float32) * y.astype(np.float32)))])


# ---------------------------------------------------------------------------- trees


class OverflowSample(gs.Sample):
    def add_opdebug(self, reldir, file_name, payload, timestamp):
        self.add_op(reldir, opdebug_op(payload, timestamp), file_name=file_name)


LEGACY_DIR = "20240401120000/0/ge_default_1/1"


def build_legacy():
    s = OverflowSample("overflow_legacy", "overflow/legacy")
    d0, d1 = f"{LEGACY_DIR}/0", f"{LEGACY_DIR}/1"
    b0 = 1711944000000000
    b1 = b0 + 1_000_000
    S, M = 2, 1  # stream of every operator, model_id

    # data_index 0 --------------------------------------------------------------
    conv = op_conv(b0 + 1, 12, S, "resnet/conv1/Conv2D")
    relu = op_relu(b0 + 2, 14, S, "resnet/relu1/Relu")
    fc = op_matmul(b0 + 3, 13, S, "fc/MatMul", {(0, 0): np.inf, (2, 5): np.inf})
    bias = f16(normal("fc/bias", (8,)))
    fc_out = fc.outputs[0].nd
    bias_add = op("BiasAdd", "fc/BiasAdd", 17, S, b0 + 4, [t16(fc_out), t16(bias)],
                  [t16(f16(fc_out.astype(np.float32) + bias.astype(np.float32)))])
    x = (normal("head/Cast", (4, 8)) * 1000).astype(np.float32)
    x[1, 2], x[3, 7] = 70000.0, -80000.0
    head_cast = op("Cast", "head/Cast", 15, S, b0 + 5, [t32(x)],
                   [t16(np.clip(x, -FP16_MAX, FP16_MAX))])  # saturation mode: clamp to +-65504
    loss = op_reduce_sum(b0 + 6, 16, S, "loss/ReduceSum", {(3, 1): 3e38, (3, 9): 2e38})
    for o in (conv, relu, fc, bias_add, head_cast, loss):
        s.add_op(d0, o)

    # data_index 1 --------------------------------------------------------------
    xi = np.array([-2 ** 31, 5, -7, 100, 2 ** 31 - 1, 0, 42, -1000], dtype=np.int32)
    neg = op("Neg", "neg/Neg", 21, S, b1 + 1, [gs.nd_tensor(xi, "int32")],
             [gs.nd_tensor((-xi.astype(np.int64)).astype(np.int32), "int32")])  # INT_MIN stays INT_MIN
    fc2 = op_matmul(b1 + 3, 23, S, "fc2/MatMul", {(1, 1): -np.inf})
    grad = op_reduce_sum(b1 + 4, 24, S, "grad/ReduceSum", {(5, 0): -3e38, (5, 3): -2e38})
    xu = (normal("to_uint8/Cast", (32,)) * 3).astype(np.float32)
    to_u8 = op("Cast", "to_uint8/Cast", 22, S, b1 + 5, [t32(xu)],
               [gs.nd_tensor(np.clip(np.rint(xu), 0, 255).astype(np.uint8), "uint8")])
    nan_sum = op_reduce_sum(b1 + 6, 25, S, "nan/ReduceSum", {(2, 4): np.nan})
    xc = (normal("cast_fp16/Cast", (4, 8)) * 100).astype(np.float32)
    xc[0, 3] = 1.0e5
    cast16 = op("Cast", "cast_fp16/Cast", 26, S, b1 + 7, [t32(xc)], [t16(f16(xc))])  # INF/NAN mode: +Inf
    scale = op_mul(b1 + 80, 23, S, "scale/Mul")         # same (task, stream) as fc2/MatMul
    tail = op_relu(b1 + 85, 24, S, "tail/Relu")          # same (task, stream) as grad/ReduceSum
    for o in (neg, fc2, grad, to_u8, nan_sum, cast16, scale, tail):
        s.add_op(d1, o)

    # OpDebug records: (dir, file name, payload).  File-name task ids never equal the payload's;
    # several name an existing *other* operator, so linking by file name gives a wrong answer.
    recs = [
        # earliest of device 0: data_index 0 wins although its timestamp is later than all of dir 1
        (d0, f"Opdebug.Node_OpDebug.12.2.{b0 + 2_000_000}", ai_core(M, S, 13, 0x20)),
        (d0, f"Opdebug.Node_OpDebug.9.0.{b0 + 2_000_050}", atomic("DHA Atomic Add", M, S, 16, 2546)),
        # file name sorts before the earliest one, timestamp does not
        (d0, f"Opdebug.Node_OpDebug.1.0.{b0 + 2_000_100}", ai_core(M, S, 15, 272)),
        # L2 underflow (code 0b010); both candidates are later -> the earliest one
        (d1, f"Opdebug.Node_OpDebug.26.2.{b1 + 2}", atomic("L2 Atomic Add", M, S, 24, (0b010 << 16) | 0x35)),
        # older spelling, 4 fields (no stream id in the name)
        (d1, f"OpDebug.Node_Opdebug.5.{b1 + 10}", ai_core(M, S, 26, 0x100)),
        (d1, f"Opdebug.Node_OpDebug.22.2.{b1 + 20}", ai_core(M, S, 21, 0x8)),
        (d1, f"Opdebug.Node_OpDebug.4.0.{b1 + 30}", ai_core(M, S, 22, 0x80)),
        (d1, f"Opdebug.Node_OpDebug.6.0.{b1 + 40}", atomic("DHA Atomic Add", M, S, 25, (0xB << 8) | 0x12)),
        # two candidates (b1+3, b1+80): the later one is after the record -> fc2/MatMul
        (d1, f"Opdebug.Node_OpDebug.7.0.{b1 + 60}", ai_core(M, S, 23, 0x400, block_idx=3)),
        # unknown bit 0x2000; the operator is only in the sibling data_index 0
        (d1, f"Opdebug.Node_OpDebug.8.0.{b1 + 65}", ai_core(M, S, 13, 0x2020)),
        # no operator with (stream 2, task 99) anywhere -> operator not found
        (d1, f"Opdebug.Node_OpDebug.10.0.{b1 + 70}", ai_core(M, S, 99, 0x10)),
    ]
    for reldir, name, blocks in recs:
        s.add_opdebug(reldir, name, legacy_payload(blocks), int(name.rsplit(".", 1)[1]))

    def r(d, name):
        return f"{d}/{name}"

    expect = {
        "first": {"0": r(d0, f"Opdebug.Node_OpDebug.12.2.{b0 + 2_000_000}")},
        "links": {
            r(d0, f"Opdebug.Node_OpDebug.12.2.{b0 + 2_000_000}"): r(d0, fc.file_name()),
            r(d0, f"Opdebug.Node_OpDebug.9.0.{b0 + 2_000_050}"): r(d0, loss.file_name()),
            r(d0, f"Opdebug.Node_OpDebug.1.0.{b0 + 2_000_100}"): r(d0, head_cast.file_name()),
            r(d1, f"Opdebug.Node_OpDebug.26.2.{b1 + 2}"): r(d1, grad.file_name()),
            r(d1, f"OpDebug.Node_Opdebug.5.{b1 + 10}"): r(d1, cast16.file_name()),
            r(d1, f"Opdebug.Node_OpDebug.22.2.{b1 + 20}"): r(d1, neg.file_name()),
            r(d1, f"Opdebug.Node_OpDebug.4.0.{b1 + 30}"): r(d1, to_u8.file_name()),
            r(d1, f"Opdebug.Node_OpDebug.6.0.{b1 + 40}"): r(d1, nan_sum.file_name()),
            r(d1, f"Opdebug.Node_OpDebug.7.0.{b1 + 60}"): r(d1, fc2.file_name()),
            r(d1, f"Opdebug.Node_OpDebug.8.0.{b1 + 65}"): r(d0, fc.file_name()),
            r(d1, f"Opdebug.Node_OpDebug.10.0.{b1 + 70}"): None,
        },
        "producer": r(d0, fc.file_name()),
        "levels": {r(d0, fc.file_name()): "critical", r(d0, bias_add.file_name()): "high",
                   r(d0, head_cast.file_name()): "critical", r(d0, loss.file_name()): "critical",
                   r(d1, fc2.file_name()): "critical", r(d1, grad.file_name()): "critical",
                   r(d1, nan_sum.file_name()): "high", r(d1, cast16.file_name()): "critical"},
    }
    return s, expect


MAGIC_DIR = "20240401130000/1/ge_default_2/2/0"


def build_magic():
    s = OverflowSample("overflow_magic", "overflow/magic")
    d = MAGIC_DIR
    b = 1711947600000000
    S, M = 4, 2
    pre = op_relu(b + 1, 30, S, "pre/Relu")
    x, y = f16(normal("vec/Add.x", (4, 16), 20)), f16(normal("vec/Add.y", (4, 16), 20))
    z = x.astype(np.float32) + y.astype(np.float32)
    z[0, 0], z[3, 15] = np.inf, -np.inf
    vec = op("Add", "vec/Add", 31, S, b + 2, [t16(x), t16(y)], [t16(f16(z))])
    cube = op_matmul(b + 3, 32, S, "cube/MatMul", {(1, 2): FP16_MAX, (3, 3): -FP16_MAX})
    xs = normal("cpu/Sqrt", (16,)).astype(np.float32)
    with np.errstate(invalid="ignore"):
        cpu = op("Sqrt", "cpu/Sqrt", 33, S, b + 4, [t32(xs)], [t32(np.sqrt(xs))])  # NaN for x < 0
    vz = vec.outputs[0].nd
    copy = op("MemcpyAsync", "copy/MemcpyAsync", 34, S, b + 5, [t16(vz)], [t16(vz.copy())])
    for o in (pre, vec, cube, cpu, copy):
        s.add_op(d, o)

    common = dict(model_id=M, stream_id=S, task_type=0)
    recs = [
        # file-name order differs from timestamp order: AIV (b+10) is the first overflow
        (f"Opdebug.Node_OpDebug.2.5.{b + 12}", magic_payload(
            "AIC", 0, dict(common, task_id=32, context_id=0, thread_id=0, pc_start=0x124080000000,
                           para_base=0x124080010000, core_id=3, block_id=1, status=0x420))),
        (f"Opdebug.Node_OpDebug.8.5.{b + 10}", magic_payload(
            "AIV", 1, dict(common, task_id=31, context_id=1, thread_id=2, pc_start=0x124080020000,
                           para_base=0x124080030000, core_id=7, block_id=2, status=0x20,
                           status_1=0x4, status_2=0, status_3=0x1))),
        (f"Opdebug.Node_OpDebug.3.5.{b + 14}", magic_payload(
            "AICPU", 0, dict(common, task_id=33, context_id=0, cpu_id=2, thread_id=5, status=0x1))),
        (f"Opdebug.Node_OpDebug.4.5.{b + 16}", magic_payload(
            "SDMA", 0, dict(common, task_id=34, context_id=0, thread_id=0, src_addr=0x124080100000,
                            dst_addr=0x124080200000, channel_id=7, status=0x2))),
    ]
    for name, payload in recs:
        s.add_opdebug(d, name, payload, int(name.rsplit(".", 1)[1]))
    r = lambda n: f"{d}/{n}"  # noqa: E731
    expect = {
        "first": {"1": r(f"Opdebug.Node_OpDebug.8.5.{b + 10}")},
        "links": {r(recs[0][0]): r(cube.file_name()), r(recs[1][0]): r(vec.file_name()),
                  r(recs[2][0]): r(cpu.file_name()), r(recs[3][0]): r(copy.file_name())},
        "producer": r(vec.file_name()),
        "levels": {r(vec.file_name()): "critical", r(cube.file_name()): "critical",
                   r(cpu.file_name()): "critical", r(copy.file_name()): "high"},
    }
    return s, expect


# overflow.md §3.3, header bytes (73 bytes including the length prefix)
VECTOR_HEADER = """
41 00 00 00 00 00 00 00 0a 03 32 2e 30 10 fb 80 f9 c0 c1 c4 82 03 1a 23 08 04 10 02 1a 04 0a 02
80 10 22 0e 0a 0c 4e 6f 64 65 5f 4f 70 44 65 62 75 67 30 80 10 3a 04 0a 02 80 10 32 0c 4e 6f 64
65 5f 4f 70 44 65 62 75 67
"""
# (file offset, bytes) of the non-zero payload fields in the §3.3 table
VECTOR_FIELDS = [
    (0x149, "01 00 00 00 00 00 00 00"),   # AI Core model_id 1
    (0x151, "03 00 00 00 00 00 00 00"),   # stream_id 3
    (0x159, "39 00 00 00 00 00 00 00"),   # task_id 57
    (0x169, "00 00 5b 00 08 10 00 00"),   # pc_start 0x1008005b0000
    (0x171, "00 70 29 00 08 10 00 00"),   # para_base 0x100800297000
    (0x449, "00 e0 5a 00 08 10 00 00"),   # kernel_code 0x1008005ae000
    (0x451, "01 00 00 00 00 00 00 00"),   # block_idx 1
    (0x459, "10 01 00 00 00 00 00 00"),   # status 272
]
VECTOR_NAME = "Opdebug.Node_OpDebug.9.3.1700000000000123"


def build_vector():
    s = OverflowSample("overflow_vector", "overflow/vector")
    data = bytearray(bytes.fromhex(VECTOR_HEADER))
    assert len(data) == 73
    data += bytes(PAYLOAD_LEN)
    for off, hexbytes in VECTOR_FIELDS:
        raw = bytes.fromhex(hexbytes)
        data[off:off + len(raw)] = raw
    data = bytes(data)
    assert len(data) == 8 + 65 + 2048 == 2121
    # Our OpDebug encoder must reproduce the spec's bytes exactly.
    payload = legacy_payload({"AI Core": dict(model_id=1, stream_id=3, task_id=57, pc_start=0x1008005B0000,
                                              para_base=0x100800297000, kernel_code=0x1008005AE000,
                                              block_idx=1, status=272)})
    assert gs.encode_big_dump(opdebug_op(payload, 1700000000000123)) == data, "encoder disagrees with §3.3"
    # the linked operator: saturation mode, normal fp16 inputs, output clamped to 65504
    a = np.array([[40000, 30000], [1, 2]], dtype=np.float16)
    b = np.array([[30000, 40000], [3, 4]], dtype=np.float16)
    out = np.clip(a.astype(np.float32) + b.astype(np.float32), -FP16_MAX, FP16_MAX)
    add = op("Add", "add_57", 57, 3, 1700000000000100, [t16(a), t16(b)], [t16(out)])
    s.add_op("", add)
    s.add_opdebug("", VECTOR_NAME, payload, 1700000000000123)
    assert (s.root / VECTOR_NAME).read_bytes() == data
    assert (s.root / VECTOR_NAME).stat().st_size == 2121
    expect = {"first": {"": VECTOR_NAME}, "links": {VECTOR_NAME: add.file_name()},
              "producer": add.file_name(), "levels": {add.file_name(): "critical"}}
    return s, expect


SOFTWARE_DIR = "20240401140000/0/net/1/0"


def build_software():
    s = OverflowSample("overflow_software", "overflow/software")
    d = SOFTWARE_DIR
    b = 1711951200000000
    S = 0
    rnd = normal("rand/RandomUniform", (4, 16)).astype(np.float32) * 0.5  # no inputs, l2norm < 100
    rand = op("RandomUniform", "rand/RandomUniform", 1, S, b + 1, [], [t32(rnd)])
    conv = op_conv(b + 2, 2, S, "conv1/Conv2D")
    relu = op_relu(b + 3, 3, S, "relu1/Relu")
    # P: normal inputs, output holds +Inf (INF/NAN mode) -> critical, the first producer
    px, py = f16(normal("scale/Mul.x", (4, 16), 200)), f16(normal("scale/Mul.y", (4, 16), 200))
    prod = px.astype(np.float32) * py.astype(np.float32)
    prod[0, 0], prod[2, 7] = 1e6, 2e5  # beyond 65504 -> +Inf in float16
    pm = f16(prod)
    assert np.isinf(pm).sum() >= 2
    mul = op("Mul", "scale/Mul", 4, S, b + 4, [t16(px), t16(py)], [t16(pm)])
    # consumer: Inf input, NaN output (Inf - Inf) -> high
    sy = f16(normal("res/Sub.y", (4, 16)))
    sy[np.isinf(pm)] = np.inf
    with np.errstate(invalid="ignore"):
        sub = op("Sub", "res/Sub", 5, S, b + 5, [t16(pm), t16(sy)],
                 [t16(f16(pm.astype(np.float32) - sy.astype(np.float32)))])
    # Inf input, normal output -> medium
    clip = op("ClipByValue", "clip/ClipByValue", 6, S, b + 6, [t16(pm)],
              [t16(np.clip(pm, f16(-100), f16(100)))])
    # later saturation: fp16 Exp with normal inputs, output clamped to 65504 -> critical
    xe = f16(normal("exp/Exp", (4, 16)))
    xe[1, 1], xe[3, 0] = 12.0, 11.5
    ye = np.clip(np.exp(xe.astype(np.float32)), -FP16_MAX, FP16_MAX)
    exp = op("Exp", "exp/Exp", 7, S, b + 7, [t16(xe)], [t16(ye)])
    # numerical mutation: all finite, output l2norm > 100 x the largest input l2norm -> high
    xd = normal("div/RealDiv.x", (32,)).astype(np.float32)
    yd = (np.abs(normal("div/RealDiv.y", (32,))) * 1e-3 + 1e-4).astype(np.float32)
    div = op("RealDiv", "div/RealDiv", 8, S, b + 8, [t32(xd), t32(yd)], [t32(xd / yd)])
    tail = op_relu(b + 9, 9, S, "tail/Relu")
    ops = [rand, conv, relu, mul, sub, clip, exp, div, tail]
    for o in ops:
        s.add_op(d, o)
    r = lambda o: f"{d}/{o.file_name()}"  # noqa: E731
    expect = {"first": {}, "links": {}, "producer": r(mul),
              "levels": {r(mul): "critical", r(sub): "high", r(clip): "medium",
                         r(exp): "critical", r(div): "high"}}
    return s, expect


RESNET_DIR = "20240401150000/0/resnet50/1"


def op_saturating_conv(ts, task, stream, name, special):
    """fp16 Conv2D with normal inputs whose output gets `special` (+Inf, or 65504 as saturation
    mode clamps) in two elements: critical for the software scan."""
    c = op_conv(ts, task, stream, name)
    y = c.outputs[0].nd.copy()
    y[0, 1, 2, 2], y[0, 3, 0, 1] = special, -special
    c.outputs[0] = t16(f16(y))
    return c


def build_resnet():
    """Issue 30: the two sources disagree.  Iteration 0: the software scan's first critical
    operator, resnet/layer2/block0/conv2/Conv2D (outputs clamped to +-65504 from normal
    inputs), runs before the only operator an OpDebug record names, resnet/layer4/block0/
    conv3/Conv2D (+Inf outputs, critical too): no record names conv2.  Iteration 1: the
    hardware comes first: a record names resnet/layer1/block0/conv1/Conv2D, whose outputs are
    finite (the overflow stayed inside it), and the software scan's first anomaly,
    resnet/layer3/block0/conv2/Conv2D, runs later."""
    s = OverflowSample("overflow_resnet", "overflow/resnet")
    d0, d1 = f"{RESNET_DIR}/0", f"{RESNET_DIR}/1"
    b0 = 1711954800000000
    b1 = b0 + 1_000_000
    S, M = 1, 1
    conv2 = op_saturating_conv(b0 + 4, 4, S, "resnet/layer2/block0/conv2/Conv2D", FP16_MAX)
    y2 = conv2.outputs[0].nd
    relu2 = op("Relu", "resnet/layer2/block0/relu/Relu", 5, S, b0 + 5, [t16(y2)], [t16(np.maximum(y2, f16(0)))])
    conv3 = op_saturating_conv(b0 + 7, 7, S, "resnet/layer4/block0/conv3/Conv2D", np.inf)
    ops0 = [op_conv(b0 + 1, 1, S, "resnet/conv1/Conv2D"),
            op_conv(b0 + 2, 2, S, "resnet/layer1/block0/conv1/Conv2D"),
            op_conv(b0 + 3, 3, S, "resnet/layer2/block0/conv1/Conv2D"),
            conv2, relu2,
            op_conv(b0 + 6, 6, S, "resnet/layer3/block0/conv1/Conv2D"),
            conv3,
            op_matmul(b0 + 8, 8, S, "resnet/fc/MatMul", {})]
    for o in ops0:
        s.add_op(d0, o)
    hw1 = op_conv(b1 + 2, 2, S, "resnet/layer1/block0/conv1/Conv2D")  # finite outputs
    sw1 = op_saturating_conv(b1 + 5, 5, S, "resnet/layer3/block0/conv2/Conv2D", np.inf)
    ops1 = [op_conv(b1 + 1, 1, S, "resnet/conv1/Conv2D"), hw1,
            op_conv(b1 + 3, 3, S, "resnet/layer2/block0/conv1/Conv2D"),
            op_conv(b1 + 4, 4, S, "resnet/layer2/block0/conv2/Conv2D"),
            sw1, op_matmul(b1 + 6, 6, S, "resnet/fc/MatMul", {})]
    for o in ops1:
        s.add_op(d1, o)
    rec0 = f"Opdebug.Node_OpDebug.7.0.{b0 + 7_500}"  # written after conv3 ran
    rec1 = f"Opdebug.Node_OpDebug.2.0.{b1 + 2_500}"
    s.add_opdebug(d0, rec0, legacy_payload(ai_core(M, S, 7, 0x20)), b0 + 7_500)
    s.add_opdebug(d1, rec1, legacy_payload(ai_core(M, S, 2, 0x10)), b1 + 2_500)
    r = lambda d, n: f"{d}/{n}"  # noqa: E731
    expect = {
        "first": {"0": r(d0, rec0)},
        "links": {r(d0, rec0): r(d0, conv3.file_name()), r(d1, rec1): r(d1, hw1.file_name())},
        "producer": r(d0, conv2.file_name()),
        "levels": {r(d0, conv2.file_name()): "critical", r(d0, relu2.file_name()): "high",
                   r(d0, conv3.file_name()): "critical", r(d1, sw1.file_name()): "critical"},
        "answer": {"file": r(d0, conv2.file_name()), "source": "software", "record": None, "level": "critical",
                   "opdebug_first": r(d0, conv3.file_name()), "software_first": r(d0, conv2.file_name())},
        # iteration 1 opened alone: the record's operator comes first
        "answer_in": {d1: {"file": hw1.file_name(), "source": "opdebug", "record": rec1, "level": None,
                           "opdebug_first": hw1.file_name(), "software_first": sw1.file_name()}},
    }
    return s, expect


# ============================================================================


def check_answer(name, got, want):
    """The generator's intended first overflow == the rule applied to what was decoded."""
    for key in ("file", "source", "record", "level"):
        assert got[key] == want[key], (name, key, got[key], want[key])
    for key in ("opdebug_first", "software_first"):
        assert (got[key] or {}).get("file") == want[key], (name, key, got[key], want[key])


def check(sample, expect, ov, n_files, n_tensors):
    """Generator intentions == what the independent decoder read back from disk."""
    name = sample.name
    assert n_files == sample.ops and n_tensors == sample.tensors, (name, n_files, sample.ops)
    assert ov["first_overflow"] == expect["first"], (name, ov["first_overflow"])
    links = {r["file"]: [b["linked_op"] for b in r["blocks"]] for r in ov["records"]}
    assert links == {f: [v] for f, v in expect["links"].items()}, (name, links)
    assert ov["software"]["first_producer"] == expect["producer"], (name, ov["software"])
    assert ov["software"]["levels"] == expect["levels"], (name, ov["software"]["levels"])
    if "answer" in expect:
        check_answer(name, ov["first"], expect["answer"])


def check_coverage(ov_legacy, ov_magic, ov_vector):
    blocks = [b for r in ov_legacy["records"] for b in r["blocks"]]
    ai_bits = {c for b in blocks if b["kind"] == "AI Core" for c in b["codes"]}
    assert set(AI_CORE_BITS) <= ai_bits and 0x2000 in ai_bits, ai_bits
    assert any(b["kind"] == "AI Core" and b["status"] == 272 and b["codes"] == [0x10, 0x100] for b in blocks)
    assert any(b["kind"] == "DHA Atomic Add" and b["status"] == 2546 and b["codes"] == [0x9] for b in blocks)
    assert any(b["kind"] == "DHA Atomic Add" and b["codes"] == [0xB] for b in blocks)
    assert any(b["kind"] == "L2 Atomic Add" and b["codes"] == [0b010] for b in blocks)
    assert any(b["linked_op"] is None for b in blocks)
    assert all(len(r["blocks"]) == 1 and r["layout"] == "legacy" for r in ov_legacy["records"])
    kinds = {b["kind"]: b for r in ov_magic["records"] for b in r["blocks"]}
    assert set(kinds) == {"AIC", "AIV", "AICPU", "SDMA"} and kinds["AIC"]["codes"] == [0x20, 0x400]
    assert all(r["layout"] == "magic" for r in ov_magic["records"])
    # overflow.md §3.3: status 272 = 0x10 + 0x100, linked to *.*.57.3.*, never to task 9
    (rec,) = ov_vector["records"]
    (blk,) = rec["blocks"]
    assert rec["file"] == VECTOR_NAME and rec["layout"] == "legacy"
    assert (blk["kind"], blk["model_id"], blk["stream_id"], blk["task_id"], blk["status"]) == \
        ("AI Core", 1, 3, 57, 272)
    assert blk["codes"] == [0x10, 0x100] and blk["overflow"]
    assert blk["linked_op"] == "Add.add_57.57.3.1700000000000100"
    # §6.4 worked examples
    assert ai_core_codes(272) == [0x10, 0x100] and ai_core_codes(32) == [0x20]
    assert (2546 >> 8) & 0xFF == 0x9 and (2546 >> 16) & 7 == 0


def manifest_entry(sample, ov):
    e = {"name": sample.name, "path": sample.path, "format": "cann", "ops": sample.ops,
         "tensors": sample.tensors, "errors": sample.errors, "overflow": ov,
         "tensors_expected": sample.expected}
    return e


def main():
    if OVERFLOW_DIR.exists():
        shutil.rmtree(OVERFLOW_DIR)
    built = [build_legacy(), build_magic(), build_vector(), build_software(), build_resnet()]
    entries, decoded = [], {}
    for sample, expect in built:
        ov, n_files, n_tensors = analyse(sample.root)
        check(sample, expect, ov, n_files, n_tensors)
        # sub-folders opened on their own (a folder below the sample, its files' paths relative to it)
        if "answer_in" in expect:
            ov["first_in"] = {}
            for sub, want in expect["answer_in"].items():
                sub_ov, _, _ = analyse(sample.root / sub)
                check_answer(f"{sample.name}/{sub}", sub_ov["first"], want)
                ov["first_in"][sub] = sub_ov["first"]
        decoded[sample.name] = ov
        entries.append(manifest_entry(sample, ov))
    check_coverage(decoded["overflow_legacy"], decoded["overflow_magic"], decoded["overflow_vector"])

    manifest_path = ROOT / "manifest.json"
    old = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"version": 1, "samples": []}
    samples = [e for e in old.get("samples", []) if not e["name"].startswith("overflow_")]
    # keep the position of the old overflow entries if there were any, else append
    pos = next((i for i, e in enumerate(old.get("samples", [])) if e["name"].startswith("overflow_")), None)
    if pos is None:
        samples += entries
    else:
        kept_before = sum(1 for e in old["samples"][:pos] if not e["name"].startswith("overflow_"))
        samples[kept_before:kept_before] = entries
    old["samples"] = samples
    manifest_path.write_text(gs.compact_json(old))

    total = sum(p.stat().st_size for p in OVERFLOW_DIR.rglob("*") if p.is_file())
    assert total < 300 * 1024, total
    for sample, _ in built:
        ov = decoded[sample.name]
        print(f"{sample.path}: {sample.ops} files ({len(ov['records'])} OpDebug), {sample.tensors} tensors; "
              f"first overflow {ov['first_overflow']}; first producer {ov['software']['first_producer']}")
    print(f"overflow/ total {total} bytes; manifest {manifest_path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
