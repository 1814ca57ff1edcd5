#!/usr/bin/env python3
"""Writes the 256 MB dumper .h5 of bench_h5isolate's 64 MiB tensor line (docs/RELIABILITY.md):
four operators /matmul/{1..4}/input/self, each one float32 [4096, 4096] dataset with the
dumper's attributes. Usage: /usr/bin/python3 bench/gen_big_h5.py OUT.h5"""
import sys

import h5py
import numpy as np


def main():
    rng = np.random.default_rng(1)
    with h5py.File(sys.argv[1], "w") as f:
        for i in range(4):
            group = f.create_group(f"/matmul/{i + 1}/input")
            ds = group.create_dataset("self", data=rng.standard_normal((4096, 4096), dtype=np.float32))
            for key, value in (("DeviceType", 0), ("DataType", 1), ("FormatType", 0), ("Type", 0)):
                ds.attrs.create(key, value, dtype="<i4")
            ds.attrs.create("Stride", np.array([4096, 1], dtype="<i8"))


if __name__ == "__main__":
    main()
