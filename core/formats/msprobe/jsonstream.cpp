#include "jsonstream.h"

#include "io/openfile.h"

#include <QBuffer>
#include <QFile>

#include <fast_float/fast_float.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace ds::msprobe {

namespace {
constexpr size_t kBlock = size_t(1) << 20;

void appendUtf8(std::string &out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

QString printable(int c)
{
    if (c >= 0x20 && c < 0x7F)
        return QStringLiteral("'%1'").arg(QChar(c));
    return QStringLiteral("byte 0x%1").arg(c, 2, 16, QLatin1Char('0'));
}

} // namespace

// Python json.dumps(ensure_ascii=True) string escaping.
void appendPythonJsonString(std::string_view s, std::string &out)
{
    out += '"';
    for (size_t i = 0; i < s.size(); ++i) {
        // Runs of printable ASCII need no escape: copied at once.
        size_t run = i;
        while (run < s.size() && static_cast<unsigned char>(s[run]) >= 0x20 && static_cast<unsigned char>(s[run]) < 0x80
               && s[run] != '"' && s[run] != '\\')
            ++run;
        if (run > i) {
            out.append(s.data() + i, run - i);
            i = run - 1;
            continue;
        }
        const unsigned char c = static_cast<unsigned char>(s[i]);
        switch (c) {
        case '"': out += "\\\""; continue;
        case '\\': out += "\\\\"; continue;
        case '\n': out += "\\n"; continue;
        case '\r': out += "\\r"; continue;
        case '\t': out += "\\t"; continue;
        case '\b': out += "\\b"; continue;
        case '\f': out += "\\f"; continue;
        default: break;
        }
        char buf[16];
        if (c < 0x20) {
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
            continue;
        }
        if (c < 0x80) {
            out += char(c);
            continue;
        }
        // Decode one UTF-8 sequence; a byte that does not start a valid one (bad continuation
        // bytes, overlong forms, surrogates, past U+10FFFF, cut at the end) is written as U+FFFD.
        std::uint32_t cp = 0xFFFD;
        const size_t len = c >= 0xF8 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (len > 1 && i + len <= s.size()) {
            std::uint32_t v = c & (0x7Fu >> len);
            bool ok = true;
            for (size_t k = 1; k < len && ok; ++k) {
                const unsigned char b = static_cast<unsigned char>(s[i + k]);
                ok = (b & 0xC0) == 0x80;
                v = (v << 6) | (b & 0x3Fu);
            }
            static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
            if (ok && v >= kMin[len] && v <= 0x10FFFF && !(v >= 0xD800 && v < 0xE000)) {
                cp = v;
                i += len - 1;
            }
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
        } else {
            std::snprintf(buf, sizeof buf, "\\u%04x", cp);
        }
        out += buf;
    }
    out += '"';
}

std::uint32_t JsonTree::find(std::uint32_t obj, std::string_view name) const
{
    if (obj >= m_nodes.size() || m_nodes[obj].kind != JsonNode::Object)
        return 0;
    for (std::uint32_t c = m_nodes[obj].first; c; c = m_nodes[c].next)
        if (key(m_nodes[c]) == name)
            return c;
    return 0;
}

void JsonTree::serialize(std::uint32_t i, std::string &out) const
{
    const JsonNode &n = m_nodes[i];
    switch (n.kind) {
    case JsonNode::Null: out += "null"; return;
    case JsonNode::False: out += "false"; return;
    case JsonNode::True: out += "true"; return;
    case JsonNode::Number: out += text(n); return;
    case JsonNode::String: appendPythonJsonString(text(n), out); return;
    case JsonNode::Array:
        out += '[';
        for (std::uint32_t c = n.first; c; c = m_nodes[c].next) {
            if (c != n.first)
                out += ", ";
            serialize(c, out);
        }
        out += ']';
        return;
    case JsonNode::Object:
        out += '{';
        for (std::uint32_t c = n.first; c; c = m_nodes[c].next) {
            if (c != n.first)
                out += ", ";
            appendPythonJsonString(key(m_nodes[c]), out);
            out += ": ";
            serialize(c, out);
        }
        out += '}';
        return;
    }
}

JsonStreamReader::JsonStreamReader() = default;
JsonStreamReader::~JsonStreamReader() = default;

bool JsonStreamReader::open(const QString &path, std::uint64_t at)
{
    auto file = std::make_unique<QFile>(path);
    if (!openRegularFile(*file, QIODevice::ReadOnly, m_error))
        return false;
    m_size = std::uint64_t(file->size());
    if (at && !file->seek(qint64(std::min(at, m_size)))) {
        m_error = file->errorString();
        return false;
    }
    m_dev = std::move(file);
    m_buf.resize(kBlock);
    m_pos = m_end = 0;
    m_base = std::min(at, m_size);
    m_eof = false;
    return true;
}

void JsonStreamReader::setData(std::string data, std::uint64_t base)
{
    m_dev.reset();
    m_size = base + data.size();
    m_buf = std::move(data);
    m_pos = 0;
    m_end = m_buf.size();
    m_base = base;
    m_eof = true;
}

bool JsonStreamReader::fill()
{
    if (m_pos < m_end)
        return true;
    if (m_eof || !m_dev)
        return false;
    m_base += m_end;
    m_pos = m_end = 0;
    const qint64 n = m_dev->read(m_buf.data(), qint64(m_buf.size()));
    if (n <= 0) {
        m_eof = true;
        if (n < 0)
            m_error = m_dev->errorString();
        return false;
    }
    m_end = size_t(n);
    return true;
}

bool JsonStreamReader::fail(const QString &what)
{
    if (m_error.isEmpty()) {
        m_error = what;
        m_errorOffset = offset();
    }
    return false;
}

bool JsonStreamReader::failUnexpected(const char *expected)
{
    const int c = peekByte();
    if (c < 0) {
        m_hitEnd = true;
        return fail(QStringLiteral("unexpected end of file (expected %1)").arg(QLatin1String(expected)));
    }
    return fail(QStringLiteral("unexpected %1 at offset %2 (expected %3)").arg(printable(c)).arg(offset()).arg(QLatin1String(expected)));
}

int JsonStreamReader::peekToken()
{
    for (;;) {
        const char *p = m_buf.data() + m_pos;
        const char *e = m_buf.data() + m_end;
        while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
            ++p;
        m_pos = size_t(p - m_buf.data());
        if (p < e)
            return static_cast<unsigned char>(*p);
        if (!fill())
            return -1;
    }
}

bool JsonStreamReader::expect(char c)
{
    if (peekToken() != static_cast<unsigned char>(c)) {
        const char buf[4] = {'\'', c, '\'', 0};
        return failUnexpected(buf);
    }
    ++m_pos;
    return true;
}

int JsonStreamReader::nextMember(std::string &key, bool &first)
{
    int c = peekToken();
    if (c == '}') {
        ++m_pos;
        return 0;
    }
    if (!first) {
        if (c != ',')
        {
            failUnexpected("',' or '}'");
            return -1;
        }
        ++m_pos;
        c = peekToken();
    }
    first = false;
    if (c != '"')
    {
        failUnexpected("a member name");
        return -1;
    }
    if (!readString(key) || !expect(':'))
        return -1;
    return 1;
}

int JsonStreamReader::nextElement(bool &first)
{
    int c = peekToken();
    if (c == ']') {
        ++m_pos;
        return 0;
    }
    if (!first) {
        if (c != ',')
        {
            failUnexpected("',' or ']'");
            return -1;
        }
        ++m_pos;
    }
    first = false;
    return 1;
}

bool JsonStreamReader::readString(std::string &out)
{
    out.clear();
    if (peekToken() != '"')
        return failUnexpected("a string");
    return readStringInto(out);
}

// At '"': decodes the string and appends it to `out`.
bool JsonStreamReader::readStringInto(std::string &out)
{
    const std::uint64_t start = offset();
    ++m_pos;
    for (;;) {
        if (m_pos >= m_end && !fill()) {
            m_hitEnd = true;
            return fail(QStringLiteral("unexpected end of file inside the string starting at offset %1").arg(start));
        }
        // Copy the plain run up to a quote, backslash or control character.
        const char *b = m_buf.data() + m_pos;
        const char *e = m_buf.data() + m_end;
        const char *p = b;
        while (p < e && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20)
            ++p;
        out.append(b, size_t(p - b));
        m_pos += size_t(p - b);
        if (p == e)
            continue;
        const unsigned char c = static_cast<unsigned char>(*p);
        if (c == '"') {
            ++m_pos;
            return true;
        }
        if (c < 0x20)
            return fail(QStringLiteral("control character %1 inside the string starting at offset %2").arg(printable(c)).arg(start));
        ++m_pos; // backslash
        const int esc = peekByte();
        if (esc < 0) {
            m_hitEnd = true;
            return fail(QStringLiteral("unexpected end of file inside the string starting at offset %1").arg(start));
        }
        ++m_pos;
        // The one-character escapes; false for anything else.
        auto simpleEscape = [&out](int e) {
            switch (e) {
            case '"': out += '"'; return true;
            case '\\': out += '\\'; return true;
            case '/': out += '/'; return true;
            case 'b': out += '\b'; return true;
            case 'f': out += '\f'; return true;
            case 'n': out += '\n'; return true;
            case 'r': out += '\r'; return true;
            case 't': out += '\t'; return true;
            default: return false;
            }
        };
        if (simpleEscape(esc))
            continue;
        switch (esc) {
        case 'u': {
            auto hex4 = [this](std::uint32_t &v) {
                v = 0;
                for (int k = 0; k < 4; ++k) {
                    const int h = peekByte();
                    if (h < 0) {
                        m_hitEnd = true;
                        return false;
                    }
                    ++m_pos;
                    v <<= 4;
                    if (h >= '0' && h <= '9')
                        v |= std::uint32_t(h - '0');
                    else if (h >= 'a' && h <= 'f')
                        v |= std::uint32_t(h - 'a' + 10);
                    else if (h >= 'A' && h <= 'F')
                        v |= std::uint32_t(h - 'A' + 10);
                    else
                        return false;
                }
                return true;
            };
            std::uint32_t cp = 0;
            if (!hex4(cp))
                return fail(m_hitEnd ? QStringLiteral("unexpected end of file inside a \\u escape")
                                     : QStringLiteral("invalid \\u escape at offset %1").arg(offset()));
            if (cp >= 0xD800 && cp < 0xDC00 && peekByte() == '\\') {
                ++m_pos;
                std::uint32_t lo = 0;
                const int next = peekByte();
                if (next == 'u') {
                    ++m_pos;
                    if (!hex4(lo))
                        return fail(m_hitEnd ? QStringLiteral("unexpected end of file inside a \\u escape")
                                             : QStringLiteral("invalid \\u escape at offset %1").arg(offset()));
                    if (lo >= 0xDC00 && lo < 0xE000) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    } else {
                        // A lone high surrogate, then another code unit (itself lone if it is a
                        // surrogate: UTF-8 cannot hold surrogates).
                        appendUtf8(out, 0xFFFD);
                        cp = lo >= 0xD800 && lo < 0xE000 ? 0xFFFD : lo;
                    }
                } else {
                    // A lone high surrogate followed by a one-character escape, as in "\ud800\n".
                    if (next < 0) {
                        m_hitEnd = true;
                        return fail(QStringLiteral("unexpected end of file inside the string starting at offset %1").arg(start));
                    }
                    ++m_pos;
                    appendUtf8(out, 0xFFFD);
                    if (!simpleEscape(next))
                        return fail(QStringLiteral("invalid escape \\%1 at offset %2").arg(QChar(next)).arg(offset() - 1));
                    break;
                }
            } else if (cp >= 0xD800 && cp < 0xE000) {
                cp = 0xFFFD; // lone surrogate
            }
            appendUtf8(out, cp);
            break;
        }
        default:
            return fail(QStringLiteral("invalid escape \\%1 at offset %2").arg(QChar(esc)).arg(offset() - 1));
        }
    }
}

// Numbers (JSON grammar), NaN, Infinity, -Infinity, true, false, null. `text` receives the
// token as written.
bool JsonStreamReader::readNumberOrWord(std::string &text, JsonNode &n)
{
    const size_t start = text.size();
    const std::uint64_t startOffset = offset();
    auto take = [&](auto pred) {
        for (;;) {
            // Copy the run inside the current block at once; refill at its end.
            const char *b = m_buf.data() + m_pos;
            const char *e = m_buf.data() + m_end;
            const char *p = b;
            while (p < e && pred(static_cast<unsigned char>(*p)))
                ++p;
            text.append(b, size_t(p - b));
            m_pos += size_t(p - b);
            if (p < e || !fill())
                return;
        }
    };
    auto isAlpha = [](int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    int c = peekByte();
    if (isAlpha(c)) {
        take(isAlpha);
        const std::string_view w(text.data() + start, text.size() - start);
        if (w == "true") {
            n.kind = JsonNode::True;
        } else if (w == "false") {
            n.kind = JsonNode::False;
        } else if (w == "null") {
            n.kind = JsonNode::Null;
        } else if (w == "NaN") {
            n.kind = JsonNode::Number;
            n.number = std::numeric_limits<double>::quiet_NaN();
        } else if (w == "Infinity") {
            n.kind = JsonNode::Number;
            n.number = std::numeric_limits<double>::infinity();
        } else {
            if (peekByte() < 0 && (std::string_view("true").starts_with(w) || std::string_view("false").starts_with(w)
                                   || std::string_view("null").starts_with(w) || std::string_view("NaN").starts_with(w)
                                   || std::string_view("Infinity").starts_with(w)))
                m_hitEnd = true;
            m_errorOffset = startOffset;
            m_error = m_hitEnd ? QStringLiteral("unexpected end of file inside a literal")
                               : QStringLiteral("unknown literal \"%1\" at offset %2")
                                     .arg(QString::fromUtf8(w.data(), qsizetype(std::min<size_t>(w.size(), 40))))
                                     .arg(startOffset);
            return false;
        }
        if (n.kind != JsonNode::Number)
            text.resize(start); // words need no text
        return true;
    }
    n.kind = JsonNode::Number;
    if (c == '-') {
        text += '-';
        ++m_pos;
        c = peekByte();
        if (c == 'I') {
            take(isAlpha);
            if (std::string_view(text.data() + start, text.size() - start) == "-Infinity") {
                n.number = -std::numeric_limits<double>::infinity();
                return true;
            }
            if (peekByte() < 0 && std::string_view("-Infinity").starts_with(std::string_view(text.data() + start, text.size() - start)))
                m_hitEnd = true;
            m_errorOffset = startOffset;
            m_error = m_hitEnd ? QStringLiteral("unexpected end of file inside a literal")
                               : QStringLiteral("invalid number at offset %1").arg(startOffset);
            return false;
        }
    }
    auto isDigit = [](int ch) { return ch >= '0' && ch <= '9'; };
    auto bad = [&](const char *what) {
        if (peekByte() < 0)
            m_hitEnd = true;
        m_errorOffset = startOffset;
        m_error = m_hitEnd ? QStringLiteral("unexpected end of file inside a number")
                           : QStringLiteral("invalid number at offset %1 (%2)").arg(startOffset).arg(QLatin1String(what));
        return false;
    };
    if (!isDigit(c))
        return bad("digit expected");
    if (c == '0') {
        text += '0';
        ++m_pos;
    } else {
        take(isDigit);
    }
    bool integer = true;
    if (peekByte() == '.') {
        integer = false;
        text += '.';
        ++m_pos;
        if (!isDigit(peekByte()))
            return bad("digit expected after '.'");
        take(isDigit);
    }
    c = peekByte();
    if (c == 'e' || c == 'E') {
        integer = false;
        text += char(c);
        ++m_pos;
        c = peekByte();
        if (c == '+' || c == '-') {
            text += char(c);
            ++m_pos;
        }
        if (!isDigit(peekByte()))
            return bad("digit expected in the exponent");
        take(isDigit);
    }
    n.integer = integer;
    n.number = numberFromText(std::string_view(text.data() + start, text.size() - start), integer);
    return true;
}

double numberFromText(std::string_view text, bool integer)
{
    const bool neg = !text.empty() && text[0] == '-';
    if (integer && text.size() - neg <= 15) {
        // Up to 15 digits: exact in a double, no need for from_chars (shape dimensions).
        std::uint64_t v = 0;
        for (size_t i = neg; i < text.size(); ++i)
            v = v * 10 + std::uint64_t(text[i] - '0');
        return neg ? -double(v) : double(v);
    }
    double v = 0;
    // fast_float (Debian libfast-float-dev): the algorithm of libstdc++'s from_chars, inlined
    // here (18 ns against 22 ns per msprobe statistic, docs/PERFORMANCE.md). Values out of
    // range come back as inf or 0, as Python reads them (from_chars reported an error instead).
    fast_float::from_chars(text.data() + (neg ? 1 : 0), text.data() + text.size(), v);
    return neg ? -v : v;
}

bool JsonStreamReader::parseValue(JsonTree &tree)
{
    tree.clear();
    tree.m_nodes.emplace_back();
    if (peekToken() < 0) {
        m_hitEnd = true;
        return fail(QStringLiteral("unexpected end of file (expected a value)"));
    }
    return parseInto(tree, 0, 0);
}

bool JsonStreamReader::parseInto(JsonTree &t, std::uint32_t self, int depth)
{
    if (depth > kMaxDepth)
        return fail(QStringLiteral("nesting deeper than %1 levels at offset %2").arg(kMaxDepth).arg(offset()));
    // Offsets into the text arena are 32-bit: one value (one dump.json entry) may hold up
    // to 2 GiB of text.
    if (t.m_text.size() > std::numeric_limits<std::uint32_t>::max() / 2)
        return fail(QStringLiteral("value too large at offset %1").arg(offset()));
    const int c = peekToken();
    if (c == '"') {
        const size_t off = t.m_text.size();
        if (!readStringInto(t.m_text))
            return false;
        JsonNode &n = t.m_nodes[self];
        n.kind = JsonNode::String;
        n.textOff = std::uint32_t(off);
        n.textLen = std::uint32_t(t.m_text.size() - off);
        return true;
    }
    if (c == '{' || c == '[') {
        const bool object = c == '{';
        ++m_pos;
        t.m_nodes[self].kind = object ? JsonNode::Object : JsonNode::Array;
        std::uint32_t last = 0, count = 0;
        bool first = true;
        for (;;) {
            std::uint32_t keyOff = 0, keyLen = 0;
            if (object) {
                int p = peekToken();
                if (p == '}') {
                    ++m_pos;
                    break;
                }
                if (!first) {
                    if (p != ',')
                        return failUnexpected("',' or '}'");
                    ++m_pos;
                    p = peekToken();
                }
                first = false;
                if (p != '"')
                    return failUnexpected("a member name");
                keyOff = std::uint32_t(t.m_text.size());
                if (!readStringInto(t.m_text) || !expect(':'))
                    return false;
                keyLen = std::uint32_t(t.m_text.size() - keyOff);
            } else {
                int p = peekToken();
                if (p == ']') {
                    ++m_pos;
                    break;
                }
                if (!first) {
                    if (p != ',')
                        return failUnexpected("',' or ']'");
                    ++m_pos;
                }
                first = false;
            }
            if (t.m_nodes.size() >= std::numeric_limits<std::uint32_t>::max() - 1)
                return fail(QStringLiteral("value too large at offset %1").arg(offset()));
            const auto child = std::uint32_t(t.m_nodes.size());
            t.m_nodes.emplace_back();
            t.m_nodes[child].keyOff = keyOff;
            t.m_nodes[child].keyLen = keyLen;
            if (last)
                t.m_nodes[last].next = child;
            else
                t.m_nodes[self].first = child;
            last = child;
            ++count;
            if (!parseInto(t, child, depth + 1))
                return false;
        }
        t.m_nodes[self].count = count;
        return true;
    }
    if (c < 0) {
        m_hitEnd = true;
        return fail(QStringLiteral("unexpected end of file (expected a value)"));
    }
    if (c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        const size_t off = t.m_text.size();
        JsonNode n;
        if (!readNumberOrWord(t.m_text, n))
            return false;
        JsonNode &dst = t.m_nodes[self];
        dst.kind = n.kind;
        dst.integer = n.integer;
        dst.number = n.number;
        dst.textOff = std::uint32_t(off);
        dst.textLen = std::uint32_t(t.m_text.size() - off);
        return true;
    }
    return failUnexpected("a value");
}

bool JsonStreamReader::skipValue()
{
    return skip(0);
}

bool JsonStreamReader::skip(int depth)
{
    if (depth > kMaxDepth)
        return fail(QStringLiteral("nesting deeper than %1 levels at offset %2").arg(kMaxDepth).arg(offset()));
    const int c = peekToken();
    if (c == '"') {
        m_scratch.clear();
        return readStringInto(m_scratch);
    }
    if (c == '{') {
        ++m_pos;
        bool first = true;
        for (;;) {
            const int r = nextMember(m_scratch, first);
            if (r < 0)
                return false;
            if (r == 0)
                return true;
            if (!skip(depth + 1))
                return false;
        }
    }
    if (c == '[') {
        ++m_pos;
        bool first = true;
        for (;;) {
            const int r = nextElement(first);
            if (r < 0)
                return false;
            if (r == 0)
                return true;
            if (!skip(depth + 1))
                return false;
        }
    }
    if (c < 0) {
        m_hitEnd = true;
        return fail(QStringLiteral("unexpected end of file (expected a value)"));
    }
    m_scratch.clear();
    JsonNode n;
    if (c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return readNumberOrWord(m_scratch, n);
    return failUnexpected("a value");
}

bool parseJsonText(std::string text, JsonTree &tree, QString *error)
{
    JsonStreamReader r;
    r.setData(std::move(text));
    if (!r.parseValue(tree)) {
        if (error)
            *error = r.error();
        return false;
    }
    if (r.peekToken() >= 0) {
        if (error)
            *error = QStringLiteral("unexpected data after the JSON value at offset %1").arg(r.offset());
        return false;
    }
    return true;
}

} // namespace ds::msprobe
