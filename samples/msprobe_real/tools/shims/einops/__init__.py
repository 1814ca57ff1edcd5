"""Minimal stand-in for the `einops` package (not packaged by Debian).

DumpScope's corpus scripts run msprobe on Debian's python3-torch. msprobe imports
`from einops import rearrange` in its NPU fusion-attention bench functions only; the
corpus never calls them. This module exists so that the import succeeds. Calling
`rearrange` raises, so a silent wrong result is impossible.
"""

__version__ = "0.0-dumpscope-shim"


def rearrange(*_args, **_kwargs):
    raise NotImplementedError("einops.rearrange is not available: this is DumpScope's import shim")


def repeat(*_args, **_kwargs):
    raise NotImplementedError("einops.repeat is not available: this is DumpScope's import shim")


def reduce(*_args, **_kwargs):
    raise NotImplementedError("einops.reduce is not available: this is DumpScope's import shim")
