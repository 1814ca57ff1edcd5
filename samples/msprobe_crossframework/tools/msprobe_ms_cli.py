"""`msprobe ARGS` (the wheel's console script, msprobe.msprobe:main) for MindSpore dumps without MindSpore.

msprobe's compare of a MindSpore dump needs no MindSpore; only the package init
msprobe/mindspore/__init__.py imports it (for the dump debugger). This registers the package
`msprobe.mindspore` with its path but without running that init, so msprobe.mindspore.compare
imports as it does on a MindSpore machine. The torch 1.13 shim of samples/msprobe_real is
imported first, as in its msprobe_cli.py.
"""

import importlib.util
import os
import sys
import types

import torch113_compat  # noqa: F401

_spec = importlib.util.find_spec("msprobe")
_pkg = types.ModuleType("msprobe.mindspore")
_pkg.__path__ = [os.path.join(os.path.dirname(_spec.origin), "mindspore")]
sys.modules["msprobe.mindspore"] = _pkg

from msprobe.msprobe import main  # noqa: E402

if __name__ == "__main__":
    sys.argv[0] = "msprobe"
    main()
