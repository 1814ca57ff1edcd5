#pragma once

#include <QString>
#include <cstddef>
#include <cstdint>

namespace ds {

/// Element types in the dump header (IR/proto numbering, cann-dump.md §6.1).
/// Values outside the table are kept as integers and shown as UNKNOWN(n).
enum class DataType : int {
    Undefined = 0, Float32 = 1, Float16 = 2, Int8 = 3, UInt8 = 4, Int16 = 5, UInt16 = 6,
    Int32 = 7, Int64 = 8, UInt32 = 9, UInt64 = 10, Bool = 11, Float64 = 12, String = 13,
    DualSubInt8 = 14, DualSubUInt8 = 15, Complex64 = 16, Complex128 = 17, QInt8 = 18,
    QInt16 = 19, QInt32 = 20, QUInt8 = 21, QUInt16 = 22, Resource = 23, StringRef = 24,
    Dual = 25, Variant = 26, BFloat16 = 27, Int4 = 28, UInt1 = 29, Int2 = 30, UInt2 = 31,
    Complex32 = 32, HiFloat8 = 33, Float8E5M2 = 34, Float8E4M3FN = 35, Float8E8M0 = 36,
    Float6E3M2 = 37, Float6E2M3 = 38, Float4E2M1 = 39, Float4E1M2 = 40,
};

/// How one stored element is decoded by the kernels, after sub-byte types are unpacked
/// to one byte per element.
enum class Elem : std::uint8_t {
    None, // not decodable (string, dual, unknown): raw bytes only
    F16, BF16, F32, F64, I8, U8, I16, U16, I32, I64, U32, U64, Bool,
    C32, C64, C128, F8E5M2, F8E4M3FN, F8E8M0, HiF8, F4E2M1,
};

/// Sub-byte packing of the stored bytes (cann-dump.md §6.2).
enum class Packing : std::uint8_t {
    None,
    Int4LowFirst,  // two signed nibbles per byte, low nibble first
    UInt1MsbFirst, // eight bits per byte, MSB first
    Int2LsbFirst,  // four signed 2-bit values per byte (unverified)
    UInt2LsbFirst, // four unsigned 2-bit values per byte (unverified)
    Nibble,        // fp4: low nibble first when packed two per byte
};

struct DataTypeInfo
{
    DataType type;
    const char *name;       ///< lower-case name used in the CLI, JSON and GUI ("float16")
    int bits;               ///< stored bits per element (0 = variable / unknown)
    Elem elem;              ///< decoder after unpacking
    Packing packing;
    const char *exportDescr; ///< numpy descr used for .npy export, nullptr = not exportable
    bool verified;          ///< false where the spec marks the decoding UNCONFIRMED
};

/// Table lookup; unknown values give an info with elem None and name "unknown".
const DataTypeInfo &dataTypeInfo(DataType t);
inline const DataTypeInfo &dataTypeInfo(int t) { return dataTypeInfo(static_cast<DataType>(t)); }
QString dataTypeName(int t); ///< "float16" or "UNKNOWN(99)"

/// Bytes of one unpacked element of the given decoder kind (complex counts both parts).
size_t elemBytes(Elem e);
bool isComplex(Elem e);
bool isFloating(Elem e); ///< can hold NaN / Inf
/// The numpy descr the export writes for this element kind ("<f4", "|i1", ...).
const char *elemNumpyDescr(Elem e);
/// Element kind written by export: native numpy kinds stay, bf16/fp8/hif8/fp4 become F32,
/// complex32 becomes C64.
Elem exportElem(Elem e);

/// The finite ±max of a floating kind: the value a saturating overflow clamps to
/// (overflow.md §9: float16 65504, bfloat16 3.3895313892515355e38, float32 FLT_MAX, float8
/// E5M2 57344, E4M3FN 448, HiFloat8 32768). Complex kinds use the limit of their parts
/// (complex32: 65504, complex64: FLT_MAX); 0 for kinds that do not saturate (integers,
/// float64, float8 E8M0, float4). The one table the overflow scan, the compare view and the
/// value grid use.
double saturationLimit(Elem e);
/// The bit pattern of +max of a real kind with a saturation limit (its -max has the sign
/// bit set), and its width in bytes; {0, 0} for other kinds.
struct SaturationBits
{
    std::uint32_t positive = 0;
    unsigned bytes = 0;
};
SaturationBits saturationBits(Elem e);

/// Stored bytes for `count` elements of `t` (ceil for sub-byte types); 0 if unknown.
std::uint64_t storedBytes(DataType t, std::uint64_t count);

/// The C0 cube size for private formats (16, 32 for 8-bit ints, 64 for int4).
int cubeSize(DataType t);

// Scalar decoders (cann-dump.md §6.2), exact in double.
double halfToDouble(std::uint16_t h);
double bf16ToDouble(std::uint16_t b);
double f8e5m2ToDouble(std::uint8_t b);
double f8e4m3fnToDouble(std::uint8_t b);
double f8e8m0ToDouble(std::uint8_t b);
double hif8ToDouble(std::uint8_t b);
double f4e2m1ToDouble(std::uint8_t b); ///< low nibble

/// Expands `count` sub-byte packed elements to one byte each (int4/int2 sign-extended).
void unpackElements(Packing p, const std::byte *src, size_t count, std::byte *dst);

/// Decodes element i of an unpacked buffer to double (magnitude for complex).
double elemToDouble(Elem e, const std::byte *data, size_t i);

} // namespace ds
