#!/usr/bin/env python3
"""Writes the committed bad-input corpus (tests/data/bad/{cann,graph}/) next to valid files.

cases.json (edited by hand) says what each file must give; tst_badinput checks it. Cases that
cannot be committed (symbolic-link loops, unreadable files, non-UTF-8 or very long names,
files changing during indexing) are made by the test at run time.

Deterministic (uses the samples generator's protobuf helpers, hence numpy):
    /usr/bin/python3 tests/data/bad/make_bad.py
"""
import random
import shutil
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent.parent / "samples"))
from generate_samples import f_bytes, f_string, f_varint, shape_msg, varint  # noqa: E402

TS = 1700000000000000


def desc(output, dtype=2, fmt=2, shape=(4,), size=None, data=b"", original_shape=None, raw_shape=None):
    """OpOutput (output=True) or OpInput; size defaults to the float16 payload of `shape`."""
    f = dict(data_type=1, format=2, shape=3, data=5, size=6, original_shape=7) if output else \
        dict(data_type=1, format=2, shape=3, data=4, size=5, original_shape=6)
    sh = raw_shape if raw_shape is not None else shape_msg(shape)
    out = f_varint(f["data_type"], dtype) + f_varint(f["format"], fmt)
    out += varint(f["shape"] << 3 | 2) + varint(len(sh)) + sh
    out += f_bytes(f["data"], data)
    out += f_varint(f["size"], size)
    if original_shape is not None:
        out += f_bytes(f["original_shape"], shape_msg(original_shape))
    return out


def header(op_name, inputs=(), outputs=(), version="2.0", extra=b""):
    h = f_string(1, version) + f_varint(2, TS)
    for o in outputs:
        h += f_bytes(3, o)
    for i in inputs:
        h += f_bytes(4, i)
    return h + f_string(6, op_name) + extra


def big(h, payload=b"", header_len=None):
    return struct.pack("<Q", len(h) if header_len is None else header_len) + h + payload


def f16(n, seed):
    r = random.Random(seed)
    return b"".join(struct.pack("<e", r.uniform(-4, 4)) for _ in range(n))


def valid(op_name, n_in, n_out, n=4):
    ins = [desc(False, shape=(n,), size=2 * n) for _ in range(n_in)]
    outs = [desc(True, shape=(n,), size=2 * n) for _ in range(n_out)]
    payload = b"".join(f16(n, f"{op_name}{k}") for k in range(n_in + n_out))
    return big(header(op_name, ins, outs), payload)


def opdebug_file(payload):
    out = desc(True, dtype=4, fmt=2, shape=(len(payload),), size=len(payload))
    return big(header("Node_OpDebug", outputs=[out]), payload)


def magic(version=0, acc_type=0, data_len=88, fields=11, valid_flag=1):
    head = struct.pack("<IIIIII", 0x5A5A5A5A, version, valid_flag, acc_type, 0, data_len)
    return head + b"".join(struct.pack("<Q", 0x10 if k == fields - 1 else k + 1) for k in range(fields))


def main():
    cann, graph = HERE / "cann", HERE / "graph"
    for d in (cann, graph):
        if d.exists():
            shutil.rmtree(d)
        d.mkdir()

    def w(name, data, d=cann):
        (d / name).write_bytes(data)

    # Valid files beside the bad ones (tst_badinput checks they still load).
    w(f"Relu.valid_relu.1.1.{TS + 1}", valid("valid/relu", 1, 1))
    w(f"Add.valid_add.2.1.{TS + 2}", valid("valid/add", 2, 1))
    w(f"MatMul.valid_mm.3.1.{TS + 3}", valid("valid/mm", 2, 1, n=16))
    legacy_out = desc(True, shape=(4,), size=8, data=f16(4, "legacy"))
    w(f"Neg.valid_legacy.4.1.{TS + 4}", header("valid/legacy", outputs=[legacy_out]))
    w("100001", valid("valid/mapped", 1, 1))
    w(f"Opdebug.Node_OpDebug.5.1.{TS + 5}", opdebug_file(magic()))

    # Containers: empty, short, wrong magic, header length against the file size.
    good = valid("bad/x", 1, 1)
    w(f"Relu.zero_bytes.10.1.{TS + 10}", b"")
    w(f"Relu.five_bytes.11.1.{TS + 11}", b"\x01\x02\x03\x04\x05")
    w(f"Relu.garbage.12.1.{TS + 12}", bytes(random.Random(12).randrange(256) for _ in range(512)))
    w(f"Relu.text_file.13.1.{TS + 13}", b"this is a log file, not a dump\n" * 20)
    w(f"Relu.header_past_end.14.1.{TS + 14}", struct.pack("<Q", 100000) + good[8:])
    w(f"Relu.header_u64_max.15.1.{TS + 15}", struct.pack("<Q", 2**64 - 1) + good[8:])
    w(f"Relu.header_2pow63.16.1.{TS + 16}", struct.pack("<Q", 2**63) + good[8:])
    w(f"Relu.header_cut.17.1.{TS + 17}", good[:20])
    w(f"Relu.header_not_protobuf.18.1.{TS + 18}", struct.pack("<Q", 64) + b"\xff" * 64 + b"\0" * 16)
    w(f"Relu.payload_truncated.19.1.{TS + 19}", good[:-3])
    w(f"Relu.nano_magic.20.1.{TS + 20}", struct.pack("<QI", 16, 0x5A5A5A5A) + b"\0" * 20)
    w(f"Relu.only_length.21.1.{TS + 21}", struct.pack("<Q", 0))
    # Sizes that overflow 64-bit arithmetic.
    w(f"Relu.size_u64_max.22.1.{TS + 22}", big(header("bad/s", outputs=[desc(True, size=2**64 - 1)]), b"\0" * 8))
    w(f"Relu.size_sum_wraps.23.1.{TS + 23}",
      big(header("bad/s", inputs=[desc(False, size=2**62)], outputs=[desc(True, size=2**62)]), b"\0" * 8))
    w(f"Relu.size_2pow63.24.1.{TS + 24}", big(header("bad/s", outputs=[desc(True, size=2**63)]), b"\0" * 8))
    w(f"Relu.size_past_end.25.1.{TS + 25}", big(header("bad/s", outputs=[desc(True, size=1 << 40)]), b"\0" * 8))
    # Absurd shapes (the header parses; loading the tensor must be refused or shown as raw bytes).
    w(f"Relu.shape_overflow.26.1.{TS + 26}",
      big(header("bad/s", outputs=[desc(True, shape=(2**62, 2**62), size=8)]), b"\0" * 8))
    w(f"Relu.shape_negative.27.1.{TS + 27}",
      big(header("bad/s", outputs=[desc(True, shape=(2**64 - 1, 4), size=8)]), b"\0" * 8))
    w(f"Relu.shape_huge.28.1.{TS + 28}",
      big(header("bad/s", outputs=[desc(True, shape=(1 << 20, 1 << 20, 1 << 20), size=8)]), b"\0" * 8))
    w(f"Relu.shape_many_dims.29.1.{TS + 29}",
      big(header("bad/s", outputs=[desc(True, shape=(1,) * 10000, size=8)]), b"\0" * 8))
    w(f"Relu.shape_zero_dim.30.1.{TS + 30}",
      big(header("bad/s", outputs=[desc(True, shape=(0, 4), size=8)]), b"\0" * 8))
    w(f"Relu.dtype_unknown.31.1.{TS + 31}",
      big(header("bad/s", outputs=[desc(True, dtype=9999, shape=(4,), size=8)]), b"\0" * 8))
    w(f"Relu.format_unknown.32.1.{TS + 32}",
      big(header("bad/s", outputs=[desc(True, fmt=9999, shape=(4,), size=8)]), b"\0" * 8))
    # NC1HWC0 (format 3) whose original shape is absurd: never sized from it.
    w(f"Conv2D.layout_absurd_original.33.1.{TS + 33}",
      big(header("bad/s", outputs=[desc(True, fmt=3, shape=(1, 1, 1, 1, 16), size=32,
                                        original_shape=(1 << 40, 16, 1 << 20, 1 << 20))]), b"\0" * 32))
    w(f"Relu.shape_bigger_than_size.34.1.{TS + 34}",
      big(header("bad/s", outputs=[desc(True, shape=(1000,), size=8)]), b"\0" * 8))
    w(f"Relu.packed_shape_cut.35.1.{TS + 35}",
      big(header("bad/s", outputs=[desc(True, size=8, raw_shape=b"\x0a\x05\x04")]), b"\0" * 8))
    w(f"Relu.trailing_bytes.36.1.{TS + 36}", good + b"\0" * 5)
    w(f"Relu.inline_in_big.37.1.{TS + 37}",
      big(header("bad/s", outputs=[desc(True, size=8, data=b"\1" * 8)]), b""))
    # Deep nesting: 100000 nested unknown groups in the header (protobuf's recursion limit).
    nest = 100000
    deep = b"\x7b" * nest + b"\x7c" * nest  # field 15, start group / end group
    w(f"Relu.deep_nesting.38.1.{TS + 38}", big(header("bad/s", extra=deep)))
    # Names.
    w("Relu.no_timestamp.1.1", good)
    w("just_a_name", good)
    w(f"Relu..1.1.{TS + 39}", good)
    # mapping.csv: a numeric file without a row, a row whose name does not parse, junk rows.
    w("mapping.csv", b"100001,Relu.mapped_relu.6.1.%d\n" % (TS + 6)
      + b"100002,not a dump name\n"
      + b"junk row without comma\n,\n100004,a,b\n\xff\xfe,\xfd\n")
    w("100002", good)
    w("100003", good)
    # OpDebug payloads.
    w(f"Opdebug.Node_OpDebug.40.1.{TS + 40}", opdebug_file(b"\0" * 100))
    w(f"Opdebug.Node_OpDebug.41.1.{TS + 41}", opdebug_file(magic(version=7)))
    w(f"Opdebug.Node_OpDebug.42.1.{TS + 42}", opdebug_file(magic(acc_type=9)))
    w(f"Opdebug.Node_OpDebug.43.1.{TS + 43}", opdebug_file(magic(data_len=0xFFFFFFFF)))
    w(f"Opdebug.Node_OpDebug.44.1.{TS + 44}", opdebug_file(magic(fields=0)))
    w(f"Opdebug.Node_OpDebug.45.1.{TS + 45}", big(header("Node_OpDebug")))
    w(f"Opdebug.Node_OpDebug.46.1.{TS + 46}", opdebug_file(b"\0" * 2047))

    # GE graphs (text ModelDef and ONNX pbtxt).
    node = b'op { name: "a" type: "Data" }\n'
    model = b'name: "m"\ngraph { name: "g"\n' + node + b'op { name: "b" type: "Relu" input: "a:0" }\n}\n'
    w("ge_proto_00000001_Valid.txt", model, graph)
    w("ge_proto_00000002_Empty.txt", b"", graph)
    w("ge_proto_00000003_Truncated.txt", model[:len(model) // 2], graph)
    w("ge_proto_00000004_ExtraBrace.txt", b'graph { op { name: "a" type: "Data" } } }\n', graph)
    w("ge_proto_00000005_DeepNesting.txt", b"graph {" * 5000 + b"}" * 5000, graph)
    w("ge_proto_00000006_IntegerOverflow.txt", b'graph { op { name: "a" id: 99999999999999999999999 } }\n', graph)
    w("ge_proto_00000007_Garbage.txt", bytes(random.Random(7).randrange(256) for _ in range(400)), graph)
    w("ge_proto_00000008_NonUtf8.txt", b'graph { name: "\xff\xfe" op { name: "\xc3\x28" } }\n', graph)
    w("ge_proto_00000009_DanglingInput.txt",
      b'graph { name: "g" op { name: "b" type: "Relu" input: "missing:0" input: "b:0" } }\n', graph)
    future = b" ".join(b"dtype: DT_FUTURE%d" % k for k in range(80))
    w("ge_proto_00000010_UnknownEnums.txt", b'graph { name: "g" op { name: "a" output_desc { ' + future + b" } } }\n", graph)
    w("ge_proto_00000011_DuplicateNames.txt", b'graph { name: "g" ' + b'op { name: "a" type: "Data" }\n' * 3
      + b"}\n", graph)
    onnx = (b'ir_version: 8\ngraph { name: "g"\n node { name: "a" op_type: "Data" output: "a:0" }\n'
            b' node { name: "b" op_type: "Relu" input: "a:0" output: "b:0" }\n}\n')
    w("ge_onnx_00000001_graph_1_Valid.pbtxt", onnx, graph)
    w("ge_onnx_00000002_graph_1_Empty.pbtxt", b"", graph)
    w("ge_onnx_00000003_graph_1_Truncated.pbtxt", onnx[:40], graph)
    w("ge_onnx_00000004_graph_1_DeepNesting.pbtxt", b"graph { node {" * 3000 + b"}}" * 3000, graph)
    w("ge_onnx_00000005_graph_1_DanglingInput.pbtxt",
      b'graph { node { name: "b" op_type: "Relu" input: "nowhere:0" input: "b:0" output: "b:0" } }\n', graph)
    print(f"cann: {len(list(cann.iterdir()))} files, graph: {len(list(graph.iterdir()))} files")


if __name__ == "__main__":
    main()
