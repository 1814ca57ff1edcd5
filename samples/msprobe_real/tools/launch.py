"""Start N copies of a script as the ranks of one torch.distributed job (env:// rendezvous).

This does what `torchrun --nproc_per_node N` does for a single node. Debian's torch 1.13
`python3 -m torch.distributed.run` fails on Python 3.11 before it starts any worker
(AttributeError: 'NoneType' object has no attribute 'get' in elastic/multiprocessing/api.py),
so the corpus uses this launcher instead.

    launch.py --nproc 2 [--port P] -- script.py args...
"""

import argparse
import os
import socket
import subprocess
import sys


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("cmd", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    cmd = args.cmd[1:] if args.cmd and args.cmd[0] == "--" else args.cmd
    port = args.port or free_port()
    procs = []
    for rank in range(args.nproc):
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                   RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(args.nproc),
                   OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen([sys.executable] + cmd, env=env))
    codes = [p.wait(timeout=600) for p in procs]
    if any(codes):
        sys.exit(f"launch.py: rank exit codes {codes}")


if __name__ == "__main__":
    main()
