#pragma once

#include "tensor/shape.h"
#include "util/error.h"

#include <QByteArray>
#include <QString>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ds {

class MappedFile;

/// One tensor of a torch.save `.pt` file (msprobe.md §7), checked against the archive: the
/// storage record exists, the storage fits in it and every element of the strided view lies
/// inside the storage. Elements are at byte
/// `(storageOffset + sum(i_k * strides[k])) * itemSize()` of the record.
struct PtTensor
{
    QString path;                       ///< key path in the pickled object ("" for a lone tensor)
    int dataType = 0;                   ///< DataType (proto numbering)
    Shape shape;
    std::vector<std::uint64_t> strides; ///< in elements
    std::uint64_t storageOffset = 0;    ///< in elements
    QByteArray storageKey;              ///< persistent id key ("0")
    QByteArray recordName;              ///< ZIP entry holding the storage ("archive/data/0")
    std::uint64_t recordOffset = 0;     ///< file offset of the entry's (compressed) data
    std::uint64_t recordSize = 0;       ///< bytes of the record after inflating
    std::uint64_t storageBytes = 0;     ///< bytes the storage declares (numel x item size)
    bool bigEndian = false;             ///< the `byteorder` record says "big": swap each element
    bool inPlace = true;                ///< STORED: the record is `recordSize` bytes at `recordOffset`
    std::shared_ptr<const std::vector<std::byte>> inflated; ///< the record when it was DEFLATE compressed

    std::uint64_t itemSize() const;     ///< bytes per element (complex counts both parts)
    std::uint64_t elementCount() const; ///< product of the shape (validated not to overflow)
    /// Row-major contiguous (dimensions of size 1 and empty tensors ignore strides).
    bool isContiguous() const;
    /// First byte of the storage record: in `fileData` when in place, else the inflated copy.
    const std::byte *recordData(const std::byte *fileData) const;
};

/// All tensors of a `.pt` held in memory (`data`, `size`: usually a mapped file) in pickle
/// order. Errors name the record and the problem ("data.pkl: unsafe or unsupported global
/// `posix.system` at offset 2"), not the file: callers prefix the file name.
Result<std::vector<PtTensor>> readPtTensors(const std::byte *data, std::uint64_t size);

/// The tensor at key path `path` of a `.pt`; with an empty path the file must hold exactly one
/// tensor (the msprobe case). Errors start with the file's path.
Result<PtTensor> readPtTensor(const MappedFile &file, const QString &path = QString());
/// Same over memory; errors do not name a file.
Result<PtTensor> readPtTensor(const std::byte *data, std::uint64_t size, const QString &path = QString());

} // namespace ds
