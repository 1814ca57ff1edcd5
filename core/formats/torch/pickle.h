#pragma once

#include "tensor/shape.h"
#include "util/error.h"

#include <QByteArray>
#include <QString>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ds {

/// A tensor described by a torch.save pickle: what `_rebuild_tensor_v2/_v3` (or torch_npu's
/// `_rebuild_npu_tensor`) would have been called with. Nothing here has been checked against
/// the archive yet; see readPtTensors() for that.
struct TorchTensorDesc
{
    QString path;                        ///< key path in the pickled object: "" (top level), "0", "weight", "a.1"
    int dataType = 0;                    ///< DataType of the elements
    Shape shape;
    std::vector<std::uint64_t> strides;  ///< in elements (torch strides are never negative)
    std::uint64_t storageOffset = 0;     ///< in elements
    QByteArray storageKey;               ///< the persistent id key: record `data/<key>`
    std::uint64_t storageBytes = 0;      ///< numel of the persistent id x its item size
    bool requiresGrad = false;

    bool operator==(const TorchTensorDesc &) const = default;
};

/// Resource limits of msprobe.md §7.5.
struct PickleLimits
{
    std::uint64_t maxPickleBytes = std::uint64_t(64) << 20;
    std::uint64_t maxMemo = 1000000;
    std::uint64_t maxStack = 100000;
    std::uint64_t maxString = std::uint64_t(1) << 20;
    std::uint64_t maxObjects = 4000000; ///< values created while decoding
    int maxNesting = 64;                ///< containers inside containers in the result
    std::uint64_t maxTensors = 100000;  ///< tensors returned (shared references count each time)
};

/// Runs a data-only pickle machine over a torch.save `data.pkl` (msprobe.md §7.3/§7.4): only
/// the listed opcodes, only allowlisted globals, which resolve to inert tags; nothing is
/// imported or called. The top-level object may be one tensor or a list/tuple/dict (nested)
/// of tensors; the tensors are returned in pickle order with their key paths. Errors are
/// plain sentences: "unsupported pickle opcode 0x69 at offset 2",
/// "unsafe or unsupported global `posix.system` at offset 2", ...
Result<std::vector<TorchTensorDesc>> unpickleTorchTensors(const std::byte *data, std::uint64_t size,
                                                          const PickleLimits &limits = {});

/// The DataType of a torch dtype name ("float32", "bfloat16", "half", ...); 0 when unknown.
int torchDtypeToDataType(QByteArrayView name);
/// The DataType of a typed storage class name ("FloatStorage", "BFloat16Storage", ...); 0 when unknown.
int torchStorageToDataType(QByteArrayView className);

} // namespace ds
