#pragma once

#include "tensor/shape.h"
#include "util/cancel.h"
#include "util/error.h"

#include <QString>
#include <QStringList>
#include <cstddef>
#include <cstdint>

namespace ds::npy {

/// A parsed .npy header (msprobe.md §8, numpy/lib/format.py). Every size in it has been
/// checked against the file: the data range [dataOffset, dataOffset + dataBytes) lies inside.
struct NpyHeader
{
    int major = 1, minor = 0;
    QString descr;               ///< as written, e.g. "<f4", ">i8", "|V2", "<U5"
    int dataType = 0;            ///< DataType (tensor/dtype.h); String for unicode arrays
    std::uint32_t itemSize = 0;  ///< bytes per element
    Shape shape;                 ///< empty for a 0-d array
    bool fortranOrder = false;   ///< data is in column-major order
    bool byteSwap = false;       ///< big-endian data: swap each element (each part of a complex)
    bool unicode = false;        ///< "<U n" / ">U n": n UCS-4 characters per element
    bool voidPair = false;       ///< "|V2": 2-byte opaque items (bfloat16 only when asked)
    std::uint64_t elementCount = 0;
    std::uint64_t dataOffset = 0; ///< first data byte (after magic, lengths and header)
    std::uint64_t dataBytes = 0;  ///< elementCount * itemSize
};

struct NpyParseOptions
{
    /// Decode "|V2" items as bfloat16 (some tools' bf16). Without it they are uint16 bit patterns,
    /// because the format itself does not say what the bytes are.
    bool v2AsBfloat16 = false;
};

/// Parses the header of a .npy file held in memory (typically a mapping of the whole file):
/// magic, version 1.0/2.0/3.0, header length, the Python dict literal (descr, fortran_order,
/// shape; no evaluation) and the data size, all checked against `size`. Object arrays ("|O")
/// are refused because they hold pickles. The error text does not name the file.
Result<NpyHeader> parseNpyHeader(const std::byte *data, std::uint64_t size, const NpyParseOptions &options = {});

/// The numpy spelling of a shape: "()", "(5,)", "(2, 3)".
QString npyShapeString(const Shape &shape);

/// Decodes `count` fixed-width UCS-4 strings of `chars` characters each (numpy "<Un"/">Un"),
/// dropping trailing NULs. `bytes` must hold count * chars * 4 bytes.
QStringList decodeNpyUnicode(const std::byte *bytes, std::uint64_t count, std::uint32_t chars, bool bigEndian);

/// Copies `count` elements of `itemSize` bytes, reversing the bytes of each `partSize`-byte
/// part (partSize = itemSize, or half of it for complex numbers).
void byteSwapCopy(const std::byte *src, std::byte *dst, std::uint64_t count, std::uint32_t itemSize,
                  std::uint32_t partSize);

/// Reorders a column-major (Fortran) array of `shape` into row-major (C) order.
/// Returns false when cancelled.
bool fortranToC(const std::byte *src, std::byte *dst, const Shape &shape, std::uint32_t itemSize,
                const JobControl *job = nullptr);

} // namespace ds::npy
