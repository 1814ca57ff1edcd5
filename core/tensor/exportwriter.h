#pragma once

#include "tensor/dtype.h"
#include "tensor/shape.h"
#include "util/cancel.h"
#include "util/error.h"

#include <QString>
#include <optional>

namespace ds {

/// Builds the .npy header exactly as numpy (format 1.0, padded with spaces so that the
/// data starts at a multiple of 64 bytes, ending in '\n').
QByteArray npyHeader(const char *descr, const Shape &shape);

struct WriteOptions
{
    bool force = false;  ///< overwrite an existing file
    int txtPrecision = 18; ///< digits after the point for .txt ("%.18e", numpy.savetxt's default)
};

/// Writes elements (unpacked, of kind `elem`) as .npy. Kinds numpy lacks (bf16, fp8, hif8,
/// fp4) are written as float32, complex32 as complex64. Atomic (QSaveFile); refuses to
/// replace an existing file unless options.force. Returns the error on failure.
std::optional<Error> writeNpy(const QString &path, Elem elem, const std::byte *data, size_t count, const Shape &shape,
                 const WriteOptions &options, const JobControl *job = nullptr);

/// Writes the flattened values one per line like numpy.savetxt(path, a.ravel()) with
/// fmt "%.{precision}e"; complex values as " (re+imj)".
std::optional<Error> writeTxt(const QString &path, Elem elem, const std::byte *data, size_t count,
                 const WriteOptions &options, const JobControl *job = nullptr);

} // namespace ds
