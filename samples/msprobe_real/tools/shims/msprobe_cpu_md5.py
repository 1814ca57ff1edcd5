"""Make msprobe's md5 (CRC-32) summary deterministic for CPU tensors.

msprobe 26 hashes tensors in md5 summary mode on a ThreadPoolExecutor
(PytorchDataProcessor._crc_executor). For NPU/GPU tensors it first copies the tensor to the
host (`.to("cpu", non_blocking=True)` plus a device synchronize), so the worker hashes the
bytes as they were when the hook ran. A CPU tensor is not copied: the worker hashes a view
of the live tensor, and races with whatever the script does next. In two identical runs we
saw different md5 values for the parameter that `Tensor.add_` (SGD) updates in place.

This module replaces that executor with one that runs the CRC at once, in the hook, which
hashes the same bytes the NPU/GPU path hashes. Nothing else in msprobe changes. Import it
after torch113_compat and before creating PrecisionDebugger.
"""

from concurrent.futures import Future

from msprobe.core.dump.data_dump.data_processor import pytorch_processor as _pp


class InlineExecutor:
    """The part of concurrent.futures.Executor that msprobe uses, run in the calling thread."""

    def submit(self, fn, *args, **kwargs):
        future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # same contract as a pool: the error travels in the future
            future.set_exception(exc)
        return future

    def shutdown(self, wait=True, **_kwargs):
        return None


_original_init = _pp.PytorchDataProcessor.__init__


def _init_with_inline_crc(self, *args, **kwargs):
    _original_init(self, *args, **kwargs)
    pool = getattr(self, "_crc_executor", None)
    if pool is not None and not isinstance(pool, InlineExecutor):
        pool.shutdown(wait=False)
        self._crc_executor = InlineExecutor()


_pp.PytorchDataProcessor.__init__ = _init_with_inline_crc
