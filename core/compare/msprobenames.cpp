#include "msprobenames.h"

#include "formats/readers.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>
#include <cmath>
#include <zlib.h>

namespace ds {

namespace {

/// The first '.'-separated token of a leaf name ("input_args" of "input_args.3.1").
QStringView headToken(const QString &name)
{
    const qsizetype dot = name.indexOf(QLatin1Char('.'));
    return dot < 0 ? QStringView(name) : QStringView(name).left(dot);
}

/// Converts JSON text to Python's str() of the value (repr inside containers).
class JsonToPython
{
public:
    explicit JsonToPython(const QString &text) : m_s(text) {}

    QString run()
    {
        skipSpace();
        QString out;
        if (!value(out, true))
            return m_s; // not JSON: the text itself
        skipSpace();
        return m_i == m_s.size() ? out : m_s;
    }

private:
    void skipSpace()
    {
        while (m_i < m_s.size() && m_s[m_i].isSpace())
            ++m_i;
    }
    bool literal(const char *word)
    {
        const QLatin1String w(word);
        if (QStringView(m_s).mid(m_i).startsWith(w)) {
            m_i += w.size();
            return true;
        }
        return false;
    }
    bool string(QString &decoded)
    {
        if (m_i >= m_s.size() || m_s[m_i] != QLatin1Char('"'))
            return false;
        ++m_i;
        while (m_i < m_s.size() && m_s[m_i] != QLatin1Char('"')) {
            QChar c = m_s[m_i++];
            if (c == QLatin1Char('\\') && m_i < m_s.size()) {
                const QChar e = m_s[m_i++];
                switch (e.unicode()) {
                case 'n': c = QLatin1Char('\n'); break;
                case 't': c = QLatin1Char('\t'); break;
                case 'r': c = QLatin1Char('\r'); break;
                case 'b': c = QLatin1Char('\b'); break;
                case 'f': c = QLatin1Char('\f'); break;
                case 'u':
                    if (m_i + 4 <= m_s.size()) {
                        bool ok = false;
                        c = QChar(char16_t(m_s.mid(m_i, 4).toUShort(&ok, 16)));
                        m_i += 4;
                    }
                    break;
                default: c = e; break;
                }
            }
            decoded += c;
        }
        if (m_i >= m_s.size())
            return false;
        ++m_i;
        return true;
    }
    bool value(QString &out, bool top, int depth = 0)
    {
        if (depth > 64 || m_i >= m_s.size())
            return false;
        const QChar c = m_s[m_i];
        if (c == QLatin1Char('"')) {
            QString s;
            if (!string(s))
                return false;
            out += top ? s : pythonStrRepr(s);
            return true;
        }
        if (c == QLatin1Char('[') || c == QLatin1Char('{')) {
            const bool object = c == QLatin1Char('{');
            const QChar close = object ? QLatin1Char('}') : QLatin1Char(']');
            out += c;
            ++m_i;
            skipSpace();
            bool first = true;
            while (m_i < m_s.size() && m_s[m_i] != close) {
                if (!first) {
                    if (m_s[m_i] != QLatin1Char(','))
                        return false;
                    ++m_i;
                    skipSpace();
                    out += QLatin1String(", ");
                }
                first = false;
                if (object) {
                    QString key;
                    if (!string(key))
                        return false;
                    out += pythonStrRepr(key) + QLatin1String(": ");
                    skipSpace();
                    if (m_i >= m_s.size() || m_s[m_i] != QLatin1Char(':'))
                        return false;
                    ++m_i;
                    skipSpace();
                }
                if (!value(out, false, depth + 1))
                    return false;
                skipSpace();
            }
            if (m_i >= m_s.size())
                return false;
            ++m_i;
            out += close;
            return true;
        }
        if (literal("true")) {
            out += QLatin1String("True");
            return true;
        }
        if (literal("false")) {
            out += QLatin1String("False");
            return true;
        }
        if (literal("null")) {
            out += QLatin1String("None");
            return true;
        }
        const qsizetype start = m_i;
        while (m_i < m_s.size() && (m_s[m_i].isDigit() || QStringLiteral("+-.eE").contains(m_s[m_i])))
            ++m_i;
        if (m_i == start)
            return false;
        const QString number = m_s.mid(start, m_i - start);
        if (number.contains(QLatin1Char('.')) || number.contains(QLatin1Char('e')) || number.contains(QLatin1Char('E'))) {
            bool ok = false;
            const double d = number.toDouble(&ok);
            if (!ok)
                return false;
            out += pythonFloatRepr(d);
        } else {
            out += number;
        }
        return true;
    }

    const QString &m_s;
    qsizetype m_i = 0;
};

} // namespace

bool isMsprobeOp(const OpRecord &op) { return sourceFormatName(op.source) == QLatin1String("msprobe"); }

QString msprobeTensorKey(const QString &entry, const TensorRecord &t)
{
    if (t.storage() == TensorStorage::PtFile || t.storage() == TensorStorage::NpyFile) {
        // msprobe names a leaf with a file after the file: data_name without its extension
        QString stem = msprobeDataName(t);
        const qsizetype dot = stem.lastIndexOf(QLatin1Char('.'));
        if (dot > 0)
            stem.truncate(dot);
        if (stem.startsWith(entry + QLatin1Char('.')))
            return stem.mid(entry.size() + 1);
    }
    const QStringView head = headToken(t.name());
    if (head == QLatin1String("input_args") || head == QLatin1String("input_kwargs"))
        return QLatin1String("input") + QStringView(t.name()).mid(head.size());
    return t.name();
}

int msprobeSection(const TensorRecord &t)
{
    const QStringView head = headToken(t.name());
    if (head == QLatin1String("input_args"))
        return 0;
    if (head == QLatin1String("input_kwargs"))
        return 1;
    if (head == QLatin1String("input"))
        return 2;
    if (head == QLatin1String("parameters"))
        return 3;
    if (head == QLatin1String("output"))
        return 4;
    return 5;
}

QString msprobeRequiresGrad(const TensorRecord &t)
{
    if (!t.isTensor())
        return QStringLiteral("N/A");
    // the first "requires_grad" : true|false of the value text (\\s: ASCII white space, as
    // QRegularExpression's without UseUnicodePropertiesOption)
    static const QString key = QStringLiteral("\"requires_grad\"");
    const QString &v = t.value();
    auto space = [](QChar c) {
        const char16_t u = c.unicode();
        return u == ' ' || u == '\t' || u == '\n' || u == '\r' || u == '\v' || u == '\f';
    };
    for (qsizetype at = v.indexOf(key); at >= 0; at = v.indexOf(key, at + 1)) {
        qsizetype i = at + key.size();
        while (i < v.size() && space(v[i]))
            ++i;
        if (i >= v.size() || v[i] != QLatin1Char(':'))
            continue;
        ++i;
        while (i < v.size() && space(v[i]))
            ++i;
        const QStringView rest = QStringView(v).mid(i);
        if (rest.startsWith(QLatin1String("true")))
            return QStringLiteral("True");
        if (rest.startsWith(QLatin1String("false")))
            return QStringLiteral("False");
    }
    return QStringLiteral("N/A");
}

QString msprobeDataName(const TensorRecord &t)
{
    if (t.storage() != TensorStorage::PtFile && t.storage() != TensorStorage::NpyFile)
        return QStringLiteral("-1");
    return t.location().mid(t.location().lastIndexOf(QLatin1Char('/')) + 1);
}

size_t pythonFloatRepr(double v, char *out)
{
    auto copy = [out](std::string_view t) {
        std::memcpy(out, t.data(), t.size());
        return t.size();
    };
    if (std::isnan(v))
        return copy("nan");
    if (std::isinf(v))
        return copy(v > 0 ? "inf" : "-inf");
    if (v == 0)
        return copy(std::signbit(v) ? "-0.0" : "0.0");
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    const std::string_view sci(buf, size_t(r.ptr - buf)); // "-d.ddde-05"
    const bool negative = sci.front() == '-';
    const size_t e = sci.find('e');
    char digits[32]; // at most 17 significant digits
    size_t nd = 0;
    for (char c : sci.substr(negative ? 1 : 0, e - (negative ? 1 : 0)))
        if (c != '.')
            digits[nd++] = c;
    int exponent = 0;
    std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exponent);
    const int decpt = exponent + 1; // value = 0.<digits> * 10^decpt
    size_t n = 0;
    auto put = [&](char c) { out[n++] = c; };
    auto putDigits = [&](size_t from, size_t to) {
        for (size_t i = from; i < to; ++i)
            put(digits[i]);
    };
    if (negative)
        put('-');
    if (decpt <= -4 || decpt > 16) {
        put(digits[0]);
        if (nd > 1) {
            put('.');
            putDigits(1, nd);
        }
        put('e');
        put(exponent < 0 ? '-' : '+');
        const int a = std::abs(exponent);
        if (a >= 100)
            put(char('0' + a / 100));
        put(char('0' + a / 10 % 10));
        put(char('0' + a % 10));
    } else if (decpt <= 0) {
        put('0');
        put('.');
        for (int i = 0; i < -decpt; ++i)
            put('0');
        putDigits(0, nd);
    } else if (size_t(decpt) >= nd) {
        putDigits(0, nd);
        for (size_t i = nd; i < size_t(decpt); ++i)
            put('0');
        put('.');
        put('0');
    } else {
        putDigits(0, size_t(decpt));
        put('.');
        putDigits(size_t(decpt), nd);
    }
    return n;
}

QString pythonFloatRepr(double v)
{
    char out[kPythonReprMax];
    return QString::fromLatin1(out, qsizetype(pythonFloatRepr(v, out)));
}

namespace {

/// The powers of ten of precise_xstrtod's table: the C literals 1e0 .. 1e308 (correctly rounded).
const std::array<double, 309> &powersOfTen()
{
    static const auto e = [] {
        std::array<double, 309> t{};
        for (int i = 0; i <= 308; ++i)
            t[size_t(i)] = std::strtod(("1e" + std::to_string(i)).c_str(), nullptr);
        return t;
    }();
    return e;
}

constexpr int kPandasMaxDigits = 17;

/// precise_xstrtod's last step: the accumulated digits scaled by 10^exponent (nullopt: ERANGE).
std::optional<double> pandasScale(double number, long exponent)
{
    const auto &e = powersOfTen();
    if (exponent > 308)
        return std::nullopt; // ERANGE: to_numeric gives NaN (coerce)
    if (exponent > 0)
        number *= e[size_t(exponent)];
    else if (exponent < -308) {
        if (exponent < -616) {
            number = 0.;
        } else {
            number /= e[size_t(-308 - exponent)];
            number /= e[308];
        }
    } else {
        number /= e[size_t(-exponent)];
    }
    if (std::isinf(number))
        return std::nullopt; // an overflow is ERANGE too
    return number;
}

} // namespace

std::optional<double> pandasToNumeric(std::string_view text)
{
    // pandas/_libs/src/parser/tokenizer.c precise_xstrtod (decimal '.', sci 'E', no thousands
    // separator, trailing spaces skipped), as floatify calls it, then floatify's inf words
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; };
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    const char *p = text.data(), *end = p + text.size();
    while (p < end && space(*p))
        ++p;
    bool negative = false;
    if (p < end && (*p == '-' || *p == '+'))
        negative = *p++ == '-';
    long exponent = 0, numDigits = 0, numDecimals = 0;
    double number = 0;
    for (; p < end && digit(*p); ++p) {
        if (numDigits < kPandasMaxDigits) {
            number = number * 10. + (*p - '0');
            ++numDigits;
        } else {
            ++exponent;
        }
    }
    if (p < end && *p == '.') {
        ++p;
        for (; numDigits < kPandasMaxDigits && p < end && digit(*p); ++p) {
            number = number * 10. + (*p - '0');
            ++numDigits;
            ++numDecimals;
        }
        if (numDigits >= kPandasMaxDigits)
            while (p < end && digit(*p))
                ++p;
        exponent -= numDecimals;
    }
    if (numDigits == 0) { // floatify: the whole text, any case
        auto is = [&](std::string_view w) {
            return text.size() == w.size()
                   && std::equal(w.begin(), w.end(), text.begin(), [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
        };
        if (is("inf") || is("+inf") || is("infinity") || is("+infinity"))
            return HUGE_VAL;
        if (is("-inf") || is("-infinity"))
            return -HUGE_VAL;
        return std::nullopt;
    }
    if (negative)
        number = -number;
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        bool eneg = false;
        if (q < end && (*q == '-' || *q == '+'))
            eneg = *q++ == '-';
        if (q < end && digit(*q)) {
            long n = 0;
            for (; q < end && digit(*q); ++q)
                n = std::min(n * 10 + (*q - '0'), 100000L);
            exponent += eneg ? -n : n;
            p = q;
        }
    }
    while (p < end && space(*p))
        ++p;
    if (p != end)
        return std::nullopt; // trailing text
    return pandasScale(number, exponent);
}

double pandasReparse(double v)
{
    // pandasToNumeric(repr(v)) without writing the text: the digits repr writes, in its order,
    // through the same accumulation (leading and trailing zeros count as digits)
    if (!std::isfinite(v) || v == 0)
        return v; // "inf", "nan", "0.0", "-0.0" read back as they are
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    const std::string_view sci(buf, size_t(r.ptr - buf)); // "-d.ddde-05"
    const bool negative = sci.front() == '-';
    const size_t e = sci.find('e');
    char digits[32] = {};
    int nd = 0;
    for (char c : sci.substr(negative ? 1 : 0, e - (negative ? 1 : 0)))
        if (c != '.')
            digits[nd++] = c;
    int exp10 = 0;
    std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exp10);
    const int decpt = exp10 + 1; // value = 0.<digits> * 10^decpt
    // repr's digits before and after the point, and its written exponent
    char stream[48];
    int intDigits = 0, total = 0;
    long written = 0;
    auto put = [&](char c) { stream[total++] = c; };
    if (decpt <= -4 || decpt > 16) { // "d.ddde-05" / "de+16"
        put(digits[0]);
        intDigits = 1;
        for (int i = 1; i < nd; ++i)
            put(digits[i]);
        written = exp10;
    } else if (decpt <= 0) { // "0.000ddd"
        put('0');
        intDigits = 1;
        for (int i = 0; i < -decpt; ++i)
            put('0');
        for (int i = 0; i < nd; ++i)
            put(digits[i]);
    } else if (decpt >= nd) { // "ddd00.0"
        for (int i = 0; i < nd; ++i)
            put(digits[i]);
        for (int i = nd; i < decpt; ++i)
            put('0');
        intDigits = decpt;
        put('0');
    } else { // "ddd.ddd"
        for (int i = 0; i < nd; ++i)
            put(digits[i]);
        intDigits = decpt;
    }
    double number = 0;
    long exponent = written, numDigits = 0, numDecimals = 0;
    for (int i = 0; i < intDigits; ++i) {
        if (numDigits < kPandasMaxDigits) {
            number = number * 10. + (stream[i] - '0');
            ++numDigits;
        } else {
            ++exponent;
        }
    }
    for (int i = intDigits; i < total && numDigits < kPandasMaxDigits; ++i) {
        number = number * 10. + (stream[i] - '0');
        ++numDigits;
        ++numDecimals;
    }
    exponent -= numDecimals;
    // (a repr near the largest double can overflow in pandas' parser: NaN, as to_numeric gives)
    return pandasScale(negative ? -number : number, exponent).value_or(std::nan(""));
}

QString pythonStrRepr(const QString &s)
{
    const bool dq = s.contains(QLatin1Char('\'')) && !s.contains(QLatin1Char('"'));
    const QChar quote = dq ? QLatin1Char('"') : QLatin1Char('\'');
    QString out(quote);
    for (QChar c : s) {
        const char16_t u = c.unicode();
        if (c == quote || c == QLatin1Char('\\'))
            out += QLatin1Char('\\') + c;
        else if (u == '\n')
            out += QLatin1String("\\n");
        else if (u == '\r')
            out += QLatin1String("\\r");
        else if (u == '\t')
            out += QLatin1String("\\t");
        else if (u < 0x20 || u == 0x7f)
            out += QStringLiteral("\\x%1").arg(int(u), 2, 16, QLatin1Char('0'));
        else
            out += c;
    }
    return out + quote;
}

QString pythonStrOfJson(const QString &jsonText) { return JsonToPython(jsonText).run(); }

QString crc32Hex(const QString &text)
{
    const QByteArray u = text.toUtf8();
    const uLong c = crc32(0L, reinterpret_cast<const Bytef *>(u.constData()), uInt(u.size()));
    return QStringLiteral("%1").arg(qulonglong(c), 8, 16, QLatin1Char('0'));
}

ModuleName moduleNameOf(const QString &entry)
{
    if (!entry.startsWith(QLatin1String("Module.")) && !entry.startsWith(QLatin1String("Cell.")))
        return {};
    // the '.'-separated tokens: the first d >= 3 that is a direction ends path (1 .. d-2) and class (d-1)
    const QStringView e(entry);
    qsizetype starts[64];
    qsizetype n = 0;
    for (qsizetype at = 0; n < qsizetype(std::size(starts));) {
        starts[n++] = at;
        const qsizetype dot = e.indexOf(QLatin1Char('.'), at);
        if (dot < 0)
            break;
        at = dot + 1;
    }
    if (n == qsizetype(std::size(starts))) { // very deep names: the general way
        const QStringList t = entry.split(QLatin1Char('.'));
        if (t.size() < 4)
            return {};
        for (qsizetype d = 3; d < t.size(); ++d)
            if (t[d] == QLatin1String("forward") || t[d] == QLatin1String("backward") || t[d] == QLatin1String("parameters_grad"))
                return {t.mid(1, d - 2).join(QLatin1Char('.')), t[d - 1]};
        return {};
    }
    auto token = [&](qsizetype i) { // without its '.'
        const qsizetype end = i + 1 < n ? starts[i + 1] - 1 : e.size();
        return e.mid(starts[i], end - starts[i]);
    };
    if (n < 4)
        return {};
    for (qsizetype d = 3; d < n; ++d) {
        const QStringView t = token(d);
        if (t == QLatin1String("forward") || t == QLatin1String("backward") || t == QLatin1String("parameters_grad"))
            return {e.mid(starts[1], starts[d - 1] - 1 - starts[1]).toString(), token(d - 1).toString()};
    }
    return {};
}

bool isForwardEntry(const QString &entry)
{
    return entry.endsWith(QLatin1String(".forward")) || entry.contains(QLatin1String(".forward."));
}

} // namespace ds
