#include "dtype.h"

#include <array>
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

namespace ds {

namespace {

using enum DataType;
constexpr std::array<DataTypeInfo, 41> kTypes = {{
    {Undefined, "undefined", 8, Elem::U8, Packing::None, "|u1", true},
    {Float32, "float32", 32, Elem::F32, Packing::None, "<f4", true},
    {Float16, "float16", 16, Elem::F16, Packing::None, "<f2", true},
    {Int8, "int8", 8, Elem::I8, Packing::None, "|i1", true},
    {UInt8, "uint8", 8, Elem::U8, Packing::None, "|u1", true},
    {Int16, "int16", 16, Elem::I16, Packing::None, "<i2", true},
    {UInt16, "uint16", 16, Elem::U16, Packing::None, "<u2", true},
    {Int32, "int32", 32, Elem::I32, Packing::None, "<i4", true},
    {Int64, "int64", 64, Elem::I64, Packing::None, "<i8", true},
    {UInt32, "uint32", 32, Elem::U32, Packing::None, "<u4", true},
    {UInt64, "uint64", 64, Elem::U64, Packing::None, "<u8", true},
    {Bool, "bool", 8, Elem::Bool, Packing::None, "|b1", true},
    {Float64, "float64", 64, Elem::F64, Packing::None, "<f8", true},
    {String, "string", 0, Elem::None, Packing::None, nullptr, true},
    {DualSubInt8, "dual_sub_int8", 8, Elem::I8, Packing::None, "|i1", true},
    {DualSubUInt8, "dual_sub_uint8", 8, Elem::U8, Packing::None, "|u1", true},
    {Complex64, "complex64", 64, Elem::C64, Packing::None, "<c8", true},
    {Complex128, "complex128", 128, Elem::C128, Packing::None, "<c16", true},
    {QInt8, "qint8", 8, Elem::I8, Packing::None, "|i1", true},
    {QInt16, "qint16", 16, Elem::I16, Packing::None, "<i2", true},
    {QInt32, "qint32", 32, Elem::I32, Packing::None, "<i4", true},
    {QUInt8, "quint8", 8, Elem::U8, Packing::None, "|u1", true},
    {QUInt16, "quint16", 16, Elem::U16, Packing::None, "<u2", true},
    {Resource, "resource", 64, Elem::I64, Packing::None, "<i8", true},
    {StringRef, "string_ref", 0, Elem::None, Packing::None, nullptr, true},
    {Dual, "dual", 40, Elem::None, Packing::None, nullptr, false},
    {Variant, "variant", 64, Elem::I64, Packing::None, "<i8", false},
    {BFloat16, "bfloat16", 16, Elem::BF16, Packing::None, "<f4", true},
    {Int4, "int4", 4, Elem::I8, Packing::Int4LowFirst, "|i1", true},
    {UInt1, "uint1", 1, Elem::U8, Packing::UInt1MsbFirst, "|u1", false},
    {Int2, "int2", 2, Elem::I8, Packing::Int2LsbFirst, "|i1", false},
    {UInt2, "uint2", 2, Elem::U8, Packing::UInt2LsbFirst, "|u1", false},
    {Complex32, "complex32", 32, Elem::C32, Packing::None, "<c8", false},
    {HiFloat8, "hifloat8", 8, Elem::HiF8, Packing::None, "<f4", false},
    {Float8E5M2, "float8_e5m2", 8, Elem::F8E5M2, Packing::None, "<f4", true},
    {Float8E4M3FN, "float8_e4m3fn", 8, Elem::F8E4M3FN, Packing::None, "<f4", true},
    {Float8E8M0, "float8_e8m0", 8, Elem::F8E8M0, Packing::None, "<f4", false},
    {Float6E3M2, "float6_e3m2", 6, Elem::None, Packing::None, nullptr, false},
    {Float6E2M3, "float6_e2m3", 6, Elem::None, Packing::None, nullptr, false},
    {Float4E2M1, "float4_e2m1", 4, Elem::F4E2M1, Packing::Nibble, "<f4", false},
    {Float4E1M2, "float4_e1m2", 4, Elem::None, Packing::None, nullptr, false},
}};

const DataTypeInfo kUnknown{static_cast<DataType>(-1), "unknown", 0, Elem::None, Packing::None, nullptr, false};

} // namespace

const DataTypeInfo &dataTypeInfo(DataType t)
{
    const int v = static_cast<int>(t);
    return (v >= 0 && v < int(kTypes.size())) ? kTypes[size_t(v)] : kUnknown;
}

QString dataTypeName(int t)
{
    const auto &info = dataTypeInfo(t);
    if (info.elem == Elem::None && info.type != static_cast<DataType>(t))
        return QStringLiteral("UNKNOWN(%1)").arg(t);
    return QString::fromLatin1(info.name);
}

size_t elemBytes(Elem e)
{
    switch (e) {
    case Elem::None: return 1;
    case Elem::F16: case Elem::BF16: case Elem::I16: case Elem::U16: return 2;
    case Elem::F32: case Elem::I32: case Elem::U32: case Elem::C32: return 4;
    case Elem::F64: case Elem::I64: case Elem::U64: case Elem::C64: return 8;
    case Elem::C128: return 16;
    default: return 1;
    }
}

bool isComplex(Elem e) { return e == Elem::C32 || e == Elem::C64 || e == Elem::C128; }

bool isFloating(Elem e)
{
    switch (e) {
    case Elem::F16: case Elem::BF16: case Elem::F32: case Elem::F64: case Elem::C32: case Elem::C64:
    case Elem::C128: case Elem::F8E5M2: case Elem::F8E4M3FN: case Elem::F8E8M0: case Elem::HiF8:
        return true;
    default: return false;
    }
}

namespace {

struct SaturationRow
{
    Elem elem;
    double limit;
    SaturationBits bits;
};

constexpr SaturationRow kSaturation[] = {
    {Elem::F16, 65504.0, {0x7BFF, 2}},
    {Elem::BF16, 3.3895313892515355e38, {0x7F7F, 2}},
    {Elem::F32, 3.4028234663852886e38, {0x7F7FFFFF, 4}},
    {Elem::F8E5M2, 57344.0, {0x7B, 1}},
    {Elem::F8E4M3FN, 448.0, {0x7E, 1}},
    {Elem::HiF8, 32768.0, {0x6E, 1}},
};

const SaturationRow *saturationRow(Elem e)
{
    if (e == Elem::C32)
        e = Elem::F16;
    else if (e == Elem::C64)
        e = Elem::F32;
    for (const auto &row : kSaturation)
        if (row.elem == e)
            return &row;
    return nullptr;
}

} // namespace

double saturationLimit(Elem e)
{
    const SaturationRow *row = saturationRow(e);
    return row ? row->limit : 0.0;
}

SaturationBits saturationBits(Elem e)
{
    const SaturationRow *row = isComplex(e) ? nullptr : saturationRow(e);
    return row ? row->bits : SaturationBits{};
}

const char *elemNumpyDescr(Elem e)
{
    switch (e) {
    case Elem::F16: return "<f2";
    case Elem::F32: return "<f4";
    case Elem::F64: return "<f8";
    case Elem::I8: return "|i1";
    case Elem::U8: return "|u1";
    case Elem::I16: return "<i2";
    case Elem::U16: return "<u2";
    case Elem::I32: return "<i4";
    case Elem::I64: return "<i8";
    case Elem::U32: return "<u4";
    case Elem::U64: return "<u8";
    case Elem::Bool: return "|b1";
    case Elem::C64: return "<c8";
    case Elem::C128: return "<c16";
    default: return nullptr;
    }
}

Elem exportElem(Elem e)
{
    switch (e) {
    case Elem::BF16: case Elem::F8E5M2: case Elem::F8E4M3FN: case Elem::F8E8M0: case Elem::HiF8:
    case Elem::F4E2M1:
        return Elem::F32;
    case Elem::C32: return Elem::C64;
    default: return e;
    }
}

std::uint64_t storedBytes(DataType t, std::uint64_t count)
{
    const auto &info = dataTypeInfo(t);
    if (info.bits <= 0)
        return 0;
    if (count > std::numeric_limits<std::uint64_t>::max() / std::uint64_t(info.bits))
        return 0;
    return (count * std::uint64_t(info.bits) + 7) / 8;
}

int cubeSize(DataType t)
{
    switch (t) {
    case DataType::Int8: case DataType::UInt8: case DataType::QInt8: case DataType::QUInt8:
    case DataType::DualSubInt8: case DataType::DualSubUInt8: case DataType::Bool:
        return 32;
    case DataType::Int4: return 64;
    default: return 16;
    }
}

double halfToDouble(std::uint16_t h)
{
    const int s = h >> 15, e = (h >> 10) & 0x1F, m = h & 0x3FF;
    double v;
    if (e == 0)
        v = std::ldexp(double(m), -24);
    else if (e == 31)
        v = m == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    else
        v = std::ldexp(1.0 + m / 1024.0, e - 15);
    return s ? -v : v;
}

double bf16ToDouble(std::uint16_t b)
{
    return double(std::bit_cast<float>(std::uint32_t(b) << 16));
}

double f8e5m2ToDouble(std::uint8_t b)
{
    return halfToDouble(std::uint16_t(b) << 8); // E5M2 is the upper byte of a binary16
}

double f8e4m3fnToDouble(std::uint8_t b)
{
    const int s = b >> 7, e = (b >> 3) & 0xF, m = b & 7;
    if ((b & 0x7F) == 0x7F)
        return std::numeric_limits<double>::quiet_NaN();
    const double v = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
    return s ? -v : v;
}

double f8e8m0ToDouble(std::uint8_t b)
{
    return b == 0xFF ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, int(b) - 127);
}

double hif8ToDouble(std::uint8_t b)
{
    if (b == 0x00)
        return 0.0;
    if (b == 0x80)
        return std::numeric_limits<double>::quiet_NaN();
    if ((b & 0x7F) == 0x6F)
        return (b & 0x80) ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    const bool neg = b & 0x80;
    const unsigned x = b & 0x7F; // 7 bits: prefix, exponent, mantissa
    int d, prefixBits;
    if ((x >> 5) == 3) { d = 4; prefixBits = 2; }
    else if ((x >> 5) == 2) { d = 3; prefixBits = 2; }
    else if ((x >> 5) == 1) { d = 2; prefixBits = 2; }
    else if ((x >> 4) == 1) { d = 1; prefixBits = 3; }
    else if ((x >> 3) == 1) { d = 0; prefixBits = 4; }
    else { // denormal: prefix 0000, 3 mantissa bits
        const double v = std::ldexp(1.0, int(x & 7) - 23);
        return neg ? -v : v;
    }
    const int mbits = 7 - prefixBits - d;
    const unsigned mant = x & ((1u << mbits) - 1);
    int exp = 0;
    if (d >= 1) {
        const unsigned ebits = (x >> mbits) & ((1u << d) - 1);
        const bool eneg = (ebits >> (d - 1)) & 1;
        const unsigned low = ebits & ((1u << (d - 1)) - 1);
        exp = int((1u << (d - 1)) + low);
        if (eneg)
            exp = -exp;
    }
    const double v = std::ldexp(1.0 + double(mant) / double(1u << mbits), exp);
    return neg ? -v : v;
}

double f4e2m1ToDouble(std::uint8_t b)
{
    static constexpr double table[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    const double v = table[b & 7];
    return (b & 8) ? -v : v;
}

double elemToDouble(Elem e, const std::byte *data, size_t i)
{
    auto load = [&](auto tag) {
        using T = decltype(tag);
        T v;
        std::memcpy(&v, data + i * sizeof(T), sizeof(T));
        return v;
    };
    switch (e) {
    case Elem::F16: return halfToDouble(load(std::uint16_t{}));
    case Elem::BF16: return bf16ToDouble(load(std::uint16_t{}));
    case Elem::F32: return double(load(float{}));
    case Elem::F64: return load(double{});
    case Elem::I8: return double(load(std::int8_t{}));
    case Elem::U8: return double(load(std::uint8_t{}));
    case Elem::Bool: return load(std::uint8_t{}) ? 1.0 : 0.0;
    case Elem::I16: return double(load(std::int16_t{}));
    case Elem::U16: return double(load(std::uint16_t{}));
    case Elem::I32: return double(load(std::int32_t{}));
    case Elem::U32: return double(load(std::uint32_t{}));
    case Elem::I64: return double(load(std::int64_t{}));
    case Elem::U64: return double(load(std::uint64_t{}));
    case Elem::C32: {
        std::uint16_t p[2];
        std::memcpy(p, data + i * 4, 4);
        return std::hypot(halfToDouble(p[0]), halfToDouble(p[1]));
    }
    case Elem::C64: {
        float p[2];
        std::memcpy(p, data + i * 8, 8);
        return std::hypot(double(p[0]), double(p[1]));
    }
    case Elem::C128: {
        double p[2];
        std::memcpy(p, data + i * 16, 16);
        return std::hypot(p[0], p[1]);
    }
    case Elem::F8E5M2: return f8e5m2ToDouble(load(std::uint8_t{}));
    case Elem::F8E4M3FN: return f8e4m3fnToDouble(load(std::uint8_t{}));
    case Elem::F8E8M0: return f8e8m0ToDouble(load(std::uint8_t{}));
    case Elem::HiF8: return hif8ToDouble(load(std::uint8_t{}));
    case Elem::F4E2M1: return f4e2m1ToDouble(load(std::uint8_t{}));
    case Elem::None: break;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

/// Expands sub-byte packings to one byte per element.
void unpackElements(Packing p, const std::byte *src, size_t count, std::byte *dst)
{
    const auto *s = reinterpret_cast<const std::uint8_t *>(src);
    auto *d = reinterpret_cast<std::uint8_t *>(dst);
    for (size_t i = 0; i < count; ++i) {
        switch (p) {
        case Packing::Int4LowFirst: {
            const unsigned n = (i & 1) ? (s[i / 2] >> 4) : (s[i / 2] & 0xF);
            d[i] = std::uint8_t(n >= 8 ? int(n) - 16 : int(n));
            break;
        }
        case Packing::Nibble: d[i] = (i & 1) ? (s[i / 2] >> 4) : (s[i / 2] & 0xF); break;
        case Packing::UInt1MsbFirst: d[i] = (s[i / 8] >> (7 - i % 8)) & 1; break;
        case Packing::Int2LsbFirst: {
            const unsigned n = (s[i / 4] >> (2 * (i % 4))) & 3;
            d[i] = std::uint8_t(n >= 2 ? int(n) - 4 : int(n));
            break;
        }
        case Packing::UInt2LsbFirst: d[i] = (s[i / 4] >> (2 * (i % 4))) & 3; break;
        case Packing::None: d[i] = s[i]; break;
        }
    }
}


} // namespace ds
