#!/usr/bin/python3
"""Independent check of DumpScope's .h5 export with h5py (run by tst_h5dumper).

usage: check_h5export.py SOURCE.h5 EXPORTED.h5 /op/seq [/op/seq ...]

Exit 0 when EXPORTED holds exactly the given /op/seq groups and every object below them
equals SOURCE: same kind, dtype, shape, values (bit for bit), attributes and, for datasets,
chunking and compression. Differences are printed.
"""
import sys

import h5py
import numpy as np


def same_attrs(a, b, path, problems):
    if sorted(a.attrs.keys()) != sorted(b.attrs.keys()):
        problems.append("%s: attributes %s != %s" % (path, sorted(a.attrs.keys()), sorted(b.attrs.keys())))
        return
    for k in a.attrs.keys():
        x, y = np.asarray(a.attrs[k]), np.asarray(b.attrs[k])
        if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
            problems.append("%s: attribute %s differs (%r vs %r)" % (path, k, x, y))


def compare(src, dst, path, problems):
    s, d = src[path], dst[path]
    if isinstance(s, h5py.Group) != isinstance(d, h5py.Group):
        problems.append("%s: kind differs" % path)
        return
    same_attrs(s, d, path, problems)
    if isinstance(s, h5py.Group):
        if sorted(s.keys()) != sorted(d.keys()):
            problems.append("%s: members %s != %s" % (path, sorted(s.keys()), sorted(d.keys())))
            return
        for k in s.keys():
            compare(src, dst, path + "/" + k, problems)
        return
    if s.dtype != d.dtype or s.shape != d.shape:
        problems.append("%s: %s %s != %s %s" % (path, s.dtype, s.shape, d.dtype, d.shape))
        return
    if s.chunks != d.chunks or s.compression != d.compression:
        problems.append("%s: storage differs (%s %s vs %s %s)" % (path, s.chunks, s.compression, d.chunks, d.compression))
    if s.shape != (0,) and s.id.get_space().get_simple_extent_type() != h5py.h5s.NULL:
        if np.asarray(s[()]).tobytes() != np.asarray(d[()]).tobytes():
            problems.append("%s: values differ" % path)


def main():
    source, exported, groups = sys.argv[1], sys.argv[2], sys.argv[3:]
    problems = []
    with h5py.File(source, "r") as src, h5py.File(exported, "r") as dst:
        expected_ops = sorted({g.split("/")[1] for g in groups})
        if sorted(dst.keys()) != expected_ops:
            problems.append("top level %s != %s" % (sorted(dst.keys()), expected_ops))
        for op in expected_ops:
            seqs = sorted(g.split("/")[2] for g in groups if g.split("/")[1] == op)
            if sorted(dst[op].keys()) != seqs:
                problems.append("/%s: %s != %s" % (op, sorted(dst[op].keys()), seqs))
        for g in groups:
            compare(src, dst, g, problems)
    for p in problems:
        print(p)
    print("checked %d groups: %s" % (len(groups), "OK" if not problems else "%d problems" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
