#include "npyheader.h"

#include "tensor/dtype.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

static_assert(std::endian::native == std::endian::little, "the .npy reader assumes a little-endian host");

namespace ds::npy {

namespace {

constexpr std::uint64_t kMaxHeaderLen = 16u << 20; // numpy writes a few hundred bytes
constexpr int kMaxDims = 64;                       // numpy 2's NPY_MAXDIMS
constexpr int kMaxDepth = 8;

/// A Python literal from the header dict: the few kinds numpy writes there.
struct Literal
{
    enum class Kind { String, Bool, Int, None, Tuple, List } kind = Kind::None;
    QByteArray text;
    bool flag = false;
    bool negative = false;
    std::uint64_t number = 0;
    std::vector<Literal> items;
};

/// A strict parser for the subset of Python literal syntax numpy uses in .npy headers:
/// one dict of string keys to strings, True/False/None, integers (with Python 2's `L`
/// suffix), tuples and lists. Nothing is evaluated.
class LiteralParser
{
public:
    LiteralParser(const char *begin, const char *end) : m_begin(begin), m_p(begin), m_end(end) {}

    bool parseDict(std::vector<std::pair<QByteArray, Literal>> &out)
    {
        skipSpace();
        if (!consume('{'))
            return fail(QStringLiteral("expected '{'"));
        skipSpace();
        while (!consume('}')) {
            Literal key;
            if (!parseValue(key, 1))
                return false;
            if (key.kind != Literal::Kind::String)
                return fail(QStringLiteral("dict keys must be strings"));
            skipSpace();
            if (!consume(':'))
                return fail(QStringLiteral("expected ':'"));
            Literal value;
            if (!parseValue(value, 1))
                return false;
            for (const auto &kv : out)
                if (kv.first == key.text)
                    return fail(QStringLiteral("key '%1' appears twice").arg(QString::fromLatin1(key.text)));
            out.emplace_back(key.text, std::move(value));
            skipSpace();
            if (consume(','))
                skipSpace();
            else if (!peek('}'))
                return fail(QStringLiteral("expected ',' or '}'"));
        }
        // numpy pads with spaces and ends with '\n'; nothing else may follow the dict.
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t'))
            ++m_p;
        if (m_p != m_end)
            return fail(QStringLiteral("unexpected text after the dict"));
        return true;
    }

    QString error() const { return m_error; }

private:
    bool parseValue(Literal &out, int depth)
    {
        if (depth > kMaxDepth)
            return fail(QStringLiteral("literal nested too deeply"));
        skipSpace();
        if (m_p >= m_end)
            return fail(QStringLiteral("unexpected end of header"));
        const char c = *m_p;
        if (c == '\'' || c == '"') {
            ++m_p;
            const char *start = m_p;
            while (m_p < m_end && *m_p != c) {
                if (*m_p == '\\')
                    return fail(QStringLiteral("escape sequences in strings are not supported"));
                if (*m_p == '\n')
                    return fail(QStringLiteral("unterminated string"));
                ++m_p;
            }
            if (m_p >= m_end)
                return fail(QStringLiteral("unterminated string"));
            out.kind = Literal::Kind::String;
            out.text = QByteArray(start, m_p - start);
            ++m_p;
            return true;
        }
        if (c == '(' || c == '[') {
            const char close = c == '(' ? ')' : ']';
            out.kind = c == '(' ? Literal::Kind::Tuple : Literal::Kind::List;
            ++m_p;
            skipSpace();
            bool sawComma = false;
            while (!consume(close)) {
                Literal item;
                if (!parseValue(item, depth + 1))
                    return false;
                out.items.push_back(std::move(item));
                skipSpace();
                sawComma = consume(',');
                if (sawComma)
                    skipSpace();
                else if (!peek(close))
                    return fail(QStringLiteral("expected ',' or '%1'").arg(QLatin1Char(close)));
            }
            // "(5)" is an int in parentheses, not a tuple.
            if (out.kind == Literal::Kind::Tuple && out.items.size() == 1 && !sawComma)
                return fail(QStringLiteral("a one-element tuple needs a trailing comma"));
            return true;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            out.kind = Literal::Kind::Int;
            out.negative = consume('-');
            if (m_p >= m_end || *m_p < '0' || *m_p > '9')
                return fail(QStringLiteral("expected digits"));
            std::uint64_t v = 0;
            while (m_p < m_end && *m_p >= '0' && *m_p <= '9') {
                const auto digit = std::uint64_t(*m_p - '0');
                if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
                    return fail(QStringLiteral("integer too large"));
                v = v * 10 + digit;
                ++m_p;
            }
            if (m_p < m_end && (*m_p == 'L' || *m_p == 'l'))
                ++m_p; // Python 2 long literal, written by numpy under Python 2
            out.number = v;
            return true;
        }
        const char *start = m_p;
        while (m_p < m_end && ((*m_p >= 'A' && *m_p <= 'Z') || (*m_p >= 'a' && *m_p <= 'z') || *m_p == '_'))
            ++m_p;
        const QByteArray word(start, m_p - start);
        if (word == "True" || word == "False") {
            out.kind = Literal::Kind::Bool;
            out.flag = word == "True";
            return true;
        }
        if (word == "None") {
            out.kind = Literal::Kind::None;
            return true;
        }
        m_p = start;
        return fail(word.isEmpty() ? QStringLiteral("unexpected character '%1'").arg(QLatin1Char(c))
                                   : QStringLiteral("'%1' is not a literal").arg(QString::fromLatin1(word)));
    }

    void skipSpace()
    {
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\t' || *m_p == '\n' || *m_p == '\r'))
            ++m_p;
    }
    bool peek(char c) const { return m_p < m_end && *m_p == c; }
    bool consume(char c)
    {
        if (!peek(c))
            return false;
        ++m_p;
        return true;
    }
    bool fail(const QString &what)
    {
        if (m_error.isEmpty())
            m_error = QStringLiteral("%1 at header character %2").arg(what).arg(m_p - m_begin);
        return false;
    }

    const char *m_begin, *m_p, *m_end;
    QString m_error;
};

bool allDigits(const QByteArray &s)
{
    return !s.isEmpty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Fills dataType, itemSize, byteSwap, unicode and voidPair from the descr string.
QString decodeDescr(const QByteArray &d, const NpyParseOptions &options, NpyHeader &h)
{
    const QString shown = QString::fromLatin1(d);
    if (d.size() < 2 || !QByteArray("<>|=").contains(d[0]))
        return QStringLiteral("unsupported descr '%1'").arg(shown);
    const char order = d[0];
    const char kind = d[1];
    if (kind == 'O')
        return QStringLiteral("descr '%1' is an object array: it holds pickled Python objects, which DumpScope "
                              "never loads (security rule); save the data with a numeric dtype")
            .arg(shown);
    const QByteArray digits = d.mid(2);
    if (!allDigits(digits))
        return QStringLiteral("unsupported descr '%1'").arg(shown);
    const std::uint32_t n = digits.toUInt();
    using enum DataType;
    DataType t = Undefined;
    switch (kind) {
    case 'b': t = n == 1 ? Bool : Undefined; break;
    case 'i': t = n == 1 ? Int8 : n == 2 ? Int16 : n == 4 ? Int32 : n == 8 ? Int64 : Undefined; break;
    case 'u': t = n == 1 ? UInt8 : n == 2 ? UInt16 : n == 4 ? UInt32 : n == 8 ? UInt64 : Undefined; break;
    case 'f': t = n == 2 ? Float16 : n == 4 ? Float32 : n == 8 ? Float64 : Undefined; break;
    case 'c': t = n == 8 ? Complex64 : n == 16 ? Complex128 : Undefined; break;
    case 'V':
        if (n == 2) {
            h.voidPair = true;
            t = options.v2AsBfloat16 ? BFloat16 : UInt16;
        }
        break;
    case 'U':
        if (order == '|')
            return QStringLiteral("descr '%1' has no byte order").arg(shown);
        if (n > (std::numeric_limits<std::uint32_t>::max() / 4))
            return QStringLiteral("descr '%1' is too wide").arg(shown);
        // Zero-width items (numpy itself never writes them) would give any element count
        // over no data bytes: a huge shape would pass the size check and then be iterated.
        if (n == 0)
            return QStringLiteral("descr '%1' has zero-width items").arg(shown);
        h.unicode = true;
        h.dataType = int(String);
        h.itemSize = 4 * n;
        h.byteSwap = order == '>';
        return {};
    default: break;
    }
    if (t == Undefined)
        return QStringLiteral("unsupported descr '%1' (supported: b1, i1-i8, u1-u8, f2, f4, f8, c8, c16, V2, U)").arg(shown);
    h.dataType = int(t);
    h.itemSize = n;
    if (n > 1 && !h.voidPair) {
        if (order == '|')
            return QStringLiteral("descr '%1' has no byte order").arg(shown);
        h.byteSwap = order == '>';
    }
    return {};
}

/// Column-major to row-major copy; N is the item size when known at compile time (0: itemSize).
template<size_t N>
bool fortranToCImpl(const std::byte *src, std::byte *dst, const Shape &shape, std::uint32_t itemSize,
                    const JobControl *job)
{
    const size_t item = N ? N : itemSize;
    const std::uint64_t count = elementCount(shape).value_or(0);
    const size_t n = shape.size();
    std::vector<std::uint64_t> idx(n, 0), fstride(n, 1);
    for (size_t k = 1; k < n; ++k)
        fstride[k] = fstride[k - 1] * shape[k - 1];
    std::uint64_t srcIndex = 0;
    for (std::uint64_t out = 0; out < count; ++out) {
        if ((out & 0xFFFFF) == 0 && job && job->cancelled())
            return false;
        std::memcpy(dst + out * item, src + srcIndex * item, N ? N : item);
        for (size_t k = n; k-- > 0;) {
            srcIndex += fstride[k];
            if (++idx[k] < shape[k])
                break;
            srcIndex -= fstride[k] * shape[k];
            idx[k] = 0;
        }
    }
    return true;
}

} // namespace

Result<NpyHeader> parseNpyHeader(const std::byte *data, std::uint64_t size, const NpyParseOptions &options)
{
    using R = Result<NpyHeader>;
    static constexpr char kMagic[] = "\x93NUMPY";
    if (size < 8)
        return R::failure(QStringLiteral("file is too short for a .npy header (%1 bytes)").arg(size));
    if (std::memcmp(data, kMagic, 6) != 0)
        return R::failure(QStringLiteral("not a .npy file (no \\x93NUMPY magic)"));
    NpyHeader h;
    h.major = int(std::to_integer<unsigned>(data[6]));
    h.minor = int(std::to_integer<unsigned>(data[7]));
    if (h.major < 1 || h.major > 3 || h.minor != 0)
        return R::failure(QStringLiteral("unsupported .npy format version %1.%2").arg(h.major).arg(h.minor));
    const std::uint64_t prefix = h.major == 1 ? 10 : 12;
    if (size < prefix)
        return R::failure(QStringLiteral("file is too short for a .npy header (%1 bytes)").arg(size));
    std::uint64_t headerLen = 0;
    for (std::uint64_t i = prefix - 1; i >= 8; --i)
        headerLen = (headerLen << 8) | std::to_integer<std::uint64_t>(data[i]);
    if (headerLen > size - prefix)
        return R::failure(QStringLiteral("header length %1 runs past the end of the file (%2 bytes)").arg(headerLen).arg(size));
    if (headerLen > kMaxHeaderLen)
        return R::failure(QStringLiteral("header length %1 is implausibly large").arg(headerLen));
    h.dataOffset = prefix + headerLen;

    const char *text = reinterpret_cast<const char *>(data + prefix);
    std::vector<std::pair<QByteArray, Literal>> dict;
    LiteralParser parser(text, text + headerLen);
    if (!parser.parseDict(dict))
        return R::failure(QStringLiteral("header is not a valid dict literal: %1").arg(parser.error()));
    const Literal *descr = nullptr, *fortran = nullptr, *shape = nullptr;
    for (const auto &[key, value] : dict) {
        if (key == "descr")
            descr = &value;
        else if (key == "fortran_order")
            fortran = &value;
        else if (key == "shape")
            shape = &value;
        else
            return R::failure(QStringLiteral("unexpected key '%1' in the header").arg(QString::fromLatin1(key)));
    }
    for (auto [lit, name] : {std::pair{descr, "descr"}, std::pair{fortran, "fortran_order"}, std::pair{shape, "shape"}})
        if (!lit)
            return R::failure(QStringLiteral("the header has no '%1'").arg(QLatin1String(name)));
    if (descr->kind == Literal::Kind::List)
        return R::failure(QStringLiteral("structured arrays (a list of fields as descr) are not supported"));
    if (descr->kind != Literal::Kind::String)
        return R::failure(QStringLiteral("'descr' is not a string"));
    if (fortran->kind != Literal::Kind::Bool)
        return R::failure(QStringLiteral("'fortran_order' is not True or False"));
    if (shape->kind != Literal::Kind::Tuple)
        return R::failure(QStringLiteral("'shape' is not a tuple"));
    if (shape->items.size() > size_t(kMaxDims))
        return R::failure(QStringLiteral("shape has %1 dimensions (at most %2 are supported)").arg(shape->items.size()).arg(kMaxDims));
    h.descr = QString::fromLatin1(descr->text);
    h.fortranOrder = fortran->flag;
    for (const Literal &d : shape->items) {
        if (d.kind != Literal::Kind::Int || d.negative)
            return R::failure(QStringLiteral("'shape' holds something other than non-negative integers"));
        h.shape.push_back(d.number);
    }
    if (const QString err = decodeDescr(descr->text, options, h); !err.isEmpty())
        return R::failure(err);

    const auto count = elementCount(h.shape);
    if (!count || (h.itemSize && *count > std::numeric_limits<std::uint64_t>::max() / h.itemSize))
        return R::failure(QStringLiteral("shape %1 is too large (the byte count overflows)").arg(npyShapeString(h.shape)));
    h.elementCount = *count;
    h.dataBytes = *count * h.itemSize;
    if (h.dataBytes > size - h.dataOffset)
        return R::failure(QStringLiteral("shape %1 of '%2' needs %3 data bytes but the file holds %4 after the header")
                              .arg(npyShapeString(h.shape), h.descr)
                              .arg(h.dataBytes)
                              .arg(size - h.dataOffset));
    return h;
}

QString npyShapeString(const Shape &shape)
{
    QString s = QStringLiteral("(");
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i)
            s += QStringLiteral(", ");
        s += QString::number(shape[i]);
    }
    if (shape.size() == 1)
        s += QLatin1Char(',');
    return s + QLatin1Char(')');
}

QStringList decodeNpyUnicode(const std::byte *bytes, std::uint64_t count, std::uint32_t chars, bool bigEndian)
{
    QStringList out;
    out.reserve(qsizetype(count));
    std::vector<char32_t> buf(chars);
    for (std::uint64_t i = 0; i < count; ++i) {
        size_t len = 0;
        for (std::uint32_t c = 0; c < chars; ++c) {
            std::uint32_t v;
            std::memcpy(&v, bytes + (i * chars + c) * 4, 4);
            if (bigEndian)
                v = __builtin_bswap32(v);
            if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
                v = 0xFFFD;
            buf[c] = char32_t(v);
            if (v != 0)
                len = c + 1; // numpy strips trailing NULs only
        }
        out << QString::fromUcs4(buf.data(), qsizetype(len));
    }
    return out;
}

void byteSwapCopy(const std::byte *src, std::byte *dst, std::uint64_t count, std::uint32_t itemSize,
                  std::uint32_t partSize)
{
    if (partSize == 0 || itemSize % partSize)
        return;
    const std::uint64_t parts = count * (itemSize / partSize);
    for (std::uint64_t p = 0; p < parts; ++p) {
        const std::byte *s = src + p * partSize;
        std::byte *d = dst + p * partSize;
        for (std::uint32_t b = 0; b < partSize; ++b)
            d[b] = s[partSize - 1 - b];
    }
}

bool fortranToC(const std::byte *src, std::byte *dst, const Shape &shape, std::uint32_t itemSize,
                const JobControl *job)
{
    switch (itemSize) {
    case 1: return fortranToCImpl<1>(src, dst, shape, itemSize, job);
    case 2: return fortranToCImpl<2>(src, dst, shape, itemSize, job);
    case 4: return fortranToCImpl<4>(src, dst, shape, itemSize, job);
    case 8: return fortranToCImpl<8>(src, dst, shape, itemSize, job);
    case 16: return fortranToCImpl<16>(src, dst, shape, itemSize, job);
    default: return fortranToCImpl<0>(src, dst, shape, itemSize, job);
    }
}

} // namespace ds::npy
