"""Run the msprobe command line (`msprobe ...`) from a source checkout with DumpScope's shims.

    PYTHONPATH=<shims>:<msprobe checkout>/python python3 msprobe_cli.py compare -tp ... -gp ...

Equivalent to the `msprobe` console script of the mindstudio-probe wheel
(`msprobe = "msprobe.msprobe:main"` in its pyproject.toml), after importing the torch 1.13
compatibility shim.
"""

import sys

import torch113_compat  # noqa: F401
from msprobe.msprobe import main

if __name__ == "__main__":
    sys.argv[0] = "msprobe"
    main()
