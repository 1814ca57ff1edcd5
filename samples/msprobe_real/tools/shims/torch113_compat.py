"""Compatibility shim so that msprobe 26 runs on Debian's torch 1.13 (CPU).

msprobe calls `tensor.untyped_storage()` (added in torch 2.0) to get the byte storage
behind a tensor (for the md5/CRC-32 of the raw bytes, the null-pointer check and freeing
saved tensors). torch 1.13 has the same object as `tensor.storage()._storage`
(a torch.UntypedStorage whose data_ptr() is the storage base address).

Import this module before msprobe. It changes nothing when torch already has the method.
"""

import torch

if not hasattr(torch.Tensor, "untyped_storage"):
    def _untyped_storage(self):
        return self.storage()._storage

    torch.Tensor.untyped_storage = _untyped_storage

# msprobe's module backward hooks (levels L0 and mix) call
# torch._C._autograd._get_creation_meta / _set_creation_meta / CreationMeta (torch >= 2.0) on
# the views that BackwardHookFunction returns, to let users modify a module's output in place.
# On torch 1.13 the lookup raised AttributeError inside msprobe, msprobe caught it and silently
# dropped the hook, and no `Module.*.backward.N` entry was written at all. The stand-ins below
# report every tensor as CreationMeta(0) (DEFAULT), so msprobe never tries to change it; the
# corpus models do no in-place op on module outputs, which is the only case this affects.
_autograd = torch._C._autograd
if not hasattr(_autograd, "_get_creation_meta"):
    class CreationMeta(int):
        """CreationMeta(0) stands for torch's CreationMeta.DEFAULT."""

    def _get_creation_meta(_tensor):
        return CreationMeta(0)

    def _set_creation_meta(_tensor, _meta):
        return None

    _autograd.CreationMeta = CreationMeta
    _autograd._get_creation_meta = _get_creation_meta
    _autograd._set_creation_meta = _set_creation_meta

# msprobe writes a ReduceOp argument as {"type": "torch.distributed.ReduceOp", "value": str(op)}.
# On torch >= 2.0 str(ReduceOp.SUM) is "RedOpType.SUM" (msprobe's own unit test expects that
# value); on torch 1.13 it is "<torch.distributed.distributed_c10d.ReduceOp object at 0x...>",
# an address that differs between any two processes, so every compare row of it would be a
# false "scalar parameters inconsistent" error. Give 1.13 the torch 2 string.
try:
    import torch.distributed as _dist

    if _dist.is_available() and "object at 0x" in str(_dist.ReduceOp.SUM):
        _dist.ReduceOp.__str__ = lambda self: str(self.op)
except (ImportError, AttributeError):
    pass
