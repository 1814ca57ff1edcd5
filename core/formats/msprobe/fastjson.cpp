#include "fastjson.h"

// SSE2 is part of x86-64: RapidJSON skips white space 16 bytes at a time (msprobe indents).
#if defined(__SSE2__) && !defined(RAPIDJSON_SSE2)
#define RAPIDJSON_SSE2
#endif
#include <rapidjson/reader.h>

namespace {
constexpr size_t kSimdPadding = 1 + 16; ///< the NUL and one 16-byte SSE2 block
} // namespace

#include <QFile>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace ds::msprobe {

namespace {
constexpr size_t kBlock = size_t(4) << 20;
/// RapidJSON reports some errors a few bytes before the point where the input stopped (the
/// start of a cut escape sequence): errors this close to the end of the buffer may only mean
/// that the value continues in the next block.
constexpr size_t kEndMargin = 16;

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
} // namespace

/// SAX handler: one value into a JsonTree, node for node what JsonStreamReader::parseInto
/// builds. Returning false stops RapidJSON; the caller then asks the tokenizer.
class TreeBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TreeBuilder>
{
public:
    void reset(JsonTree &tree)
    {
        m_t = &tree;
        tree.clear();
        m_stack.clear();
        m_keyOff = m_keyLen = 0;
    }

    bool Null() { return add(JsonNode::Null) != kFail; }
    bool Bool(bool b) { return add(b ? JsonNode::True : JsonNode::False) != kFail; }
    bool RawNumber(const char *s, rapidjson::SizeType len, bool)
    {
        const std::string_view text(s, len);
        // RapidJSON also reads "Inf", "-Inf" and "-NaN"; Python and the tokenizer do not.
        const char first = text.empty() ? 0 : text[0] == '-' && text.size() > 1 ? text[1] : text[0];
        const bool word = first == 'N' || first == 'I';
        if (word && text != "NaN" && text != "Infinity" && text != "-Infinity")
            return false;
        const std::uint32_t i = add(JsonNode::Number);
        if (i == kFail)
            return false;
        bool integer = !word;
        for (char c : text)
            if (c == '.' || c == 'e' || c == 'E') {
                integer = false;
                break;
            }
        JsonNode &n = m_t->m_nodes[i];
        n.integer = integer;
        n.number = numberFromText(text, integer);
        return setText(n, text);
    }
    bool String(const char *s, rapidjson::SizeType len, bool)
    {
        const std::uint32_t i = add(JsonNode::String);
        return i != kFail && setText(m_t->m_nodes[i], std::string_view(s, len));
    }
    bool Key(const char *s, rapidjson::SizeType len, bool)
    {
        if (!roomFor(len))
            return false;
        m_keyOff = std::uint32_t(m_t->m_text.size());
        m_keyLen = len;
        m_t->m_text.append(s, len);
        return true;
    }
    bool StartObject() { return open(JsonNode::Object); }
    bool EndObject(rapidjson::SizeType count) { return close(count); }
    bool StartArray() { return open(JsonNode::Array); }
    bool EndArray(rapidjson::SizeType count) { return close(count); }

private:
    static constexpr std::uint32_t kFail = std::numeric_limits<std::uint32_t>::max();
    struct Open
    {
        std::uint32_t node, last;
    };

    bool roomFor(size_t bytes) const
    {
        // The tokenizer's limit on one value: 32-bit offsets into the text arena.
        return m_t->m_text.size() + bytes <= std::numeric_limits<std::uint32_t>::max() / 2;
    }
    bool setText(JsonNode &n, std::string_view text)
    {
        if (!roomFor(text.size()))
            return false;
        n.textOff = std::uint32_t(m_t->m_text.size());
        n.textLen = std::uint32_t(text.size());
        m_t->m_text.append(text);
        return true;
    }
    std::uint32_t add(JsonNode::Kind kind)
    {
        // A value nested deeper than the tokenizer allows, or past its node limit: its error.
        if (m_stack.size() > size_t(JsonStreamReader::kMaxDepth)
            || m_t->m_nodes.size() >= std::numeric_limits<std::uint32_t>::max() - 1)
            return kFail;
        auto &nodes = m_t->m_nodes;
        const auto i = std::uint32_t(nodes.size());
        nodes.emplace_back();
        nodes[i].kind = kind;
        if (!m_stack.empty()) {
            Open &top = m_stack.back();
            if (nodes[top.node].kind == JsonNode::Object) {
                nodes[i].keyOff = m_keyOff;
                nodes[i].keyLen = m_keyLen;
            }
            if (top.last)
                nodes[top.last].next = i;
            else
                nodes[top.node].first = i;
            top.last = i;
        }
        return i;
    }
    bool open(JsonNode::Kind kind)
    {
        const std::uint32_t i = add(kind);
        if (i == kFail)
            return false;
        m_stack.push_back({i, 0});
        return true;
    }
    bool close(rapidjson::SizeType count)
    {
        m_t->m_nodes[m_stack.back().node].count = count;
        m_stack.pop_back();
        return true;
    }

    JsonTree *m_t = nullptr;
    std::vector<Open> m_stack;
    std::uint32_t m_keyOff = 0, m_keyLen = 0;
};

FastJsonReader::FastJsonReader() = default;
FastJsonReader::~FastJsonReader() = default;

bool FastJsonReader::open(const QString &path)
{
    auto file = std::make_unique<QFile>(path);
    if (!file->open(QIODevice::ReadOnly | QIODevice::Unbuffered)) {
        m_error = file->errorString();
        return false;
    }
    m_path = path;
    m_size = std::uint64_t(file->size());
    m_file = std::move(file);
    m_base = m_len = m_pos = 0;
    m_eof = m_size == 0;
    return true;
}

void FastJsonReader::setData(std::string data)
{
    m_file.reset();
    m_data = std::move(data);
    m_size = m_data.size();
    m_base = m_len = m_pos = 0;
    m_eof = m_size == 0;
}

void FastJsonReader::load(std::uint64_t at, size_t want)
{
    at = std::min(at, m_size);
    const std::uint64_t left = m_size - at;
    // Files are read a block at a time; text in memory is taken whole.
    size_t cap = m_file ? std::max({m_cap, want, kBlock}) : size_t(left);
    cap = size_t(std::min<std::uint64_t>(cap, std::max<std::uint64_t>(left, 1)));
    if (cap > m_cap || !m_buf) {
        // Grown buffers stay: one entry larger than a block is likely followed by others.
        // The terminating NUL, then padding: RapidJSON's SSE2 scanners load aligned 16-byte blocks
        // and may read up to 15 bytes past the NUL (AddressSanitizer reports that as a heap
        // overflow); the zeroed padding keeps every such load inside the allocation.
        m_buf = std::make_unique<char[]>(cap + kSimdPadding);
        m_cap = cap;
    }
    size_t n = 0;
    if (m_file) {
        const int fd = m_file->handle();
        while (n < cap && at + n < m_size) {
            const ssize_t got = ::pread(fd, m_buf.get() + n, std::min<std::uint64_t>(cap - n, m_size - at - n), off_t(at + n));
            if (got <= 0)
                break; // read error or a file that shrank: the input ends here
            n += size_t(got);
        }
    } else {
        n = size_t(std::min<std::uint64_t>(cap, left));
        std::memcpy(m_buf.get(), m_data.data() + at, n);
    }
    m_buf[n] = 0;
    m_base = at;
    m_len = n;
    m_pos = 0;
    m_eof = at + n >= m_size || n < cap;
}

void FastJsonReader::slide()
{
    const size_t keep = m_len - m_pos;
    std::memmove(m_buf.get(), m_buf.get() + m_pos, keep);
    m_base += m_pos;
    m_pos = 0;
    m_len = keep;
    size_t n = 0;
    if (m_file) {
        const int fd = m_file->handle();
        const std::uint64_t at = m_base + keep;
        while (keep + n < m_cap && at + n < m_size) {
            const ssize_t got = ::pread(fd, m_buf.get() + keep + n, std::min<std::uint64_t>(m_cap - keep - n, m_size - at - n),
                                        off_t(at + n));
            if (got <= 0)
                break;
            n += size_t(got);
        }
    }
    m_len = keep + n;
    m_buf[m_len] = 0;
    m_eof = m_base + m_len >= m_size || keep + n < m_cap;
}

int FastJsonReader::skipWhiteSpace()
{
    for (;;) {
        const char *b = m_buf.get();
        while (m_pos < m_len && isSpace(b[m_pos]))
            ++m_pos;
        if (m_pos < m_len)
            return static_cast<unsigned char>(b[m_pos]);
        if (m_eof)
            return -1;
        load(m_base + m_pos, 1);
    }
}

template<typename Op>
auto FastJsonReader::viaTokenizer(std::uint64_t at, Op op) -> decltype(op(std::declval<JsonStreamReader &>()))
{
    ++m_fallbacks;
    JsonStreamReader slow;
    if (m_file) {
        if (!slow.open(m_path, at)) {
            if (m_error.isEmpty()) {
                m_error = slow.error();
                m_errorOffset = at;
            }
            if constexpr (std::is_same_v<decltype(op(slow)), bool>)
                return false;
            else
                return -1;
        }
    } else {
        slow.setData(m_data.substr(size_t(std::min<std::uint64_t>(at, m_data.size()))), at);
    }
    const auto result = op(slow);
    if (!slow.error().isEmpty()) {
        if (m_error.isEmpty()) {
            m_error = slow.error();
            m_errorOffset = slow.errorOffset();
            m_hitEnd = slow.hitEnd();
        }
    } else {
        // Continue after what the tokenizer read; the next operation loads from there.
        m_base = slow.offset();
        m_len = m_pos = 0;
        m_eof = m_base >= m_size;
    }
    return result;
}

int FastJsonReader::peekToken()
{
    if (!m_buf && !m_eof)
        load(0, 1);
    return m_buf ? skipWhiteSpace() : -1;
}

bool FastJsonReader::expect(char c)
{
    const std::uint64_t start = offset();
    if (peekToken() == static_cast<unsigned char>(c)) {
        ++m_pos;
        return true;
    }
    return viaTokenizer(start, [c](JsonStreamReader &r) { return r.expect(c); });
}

int FastJsonReader::nextMember(std::string &key, bool &first)
{
    const std::uint64_t start = offset();
    const bool wasFirst = first;
    auto slow = [&] {
        bool f = wasFirst;
        const int r = viaTokenizer(start, [&](JsonStreamReader &t) { return t.nextMember(key, f); });
        first = f;
        return r;
    };
    int c = peekToken();
    if (c == '}') {
        ++m_pos;
        return 0;
    }
    if (!first) {
        if (c != ',')
            return slow();
        ++m_pos;
        c = skipWhiteSpace();
    }
    if (c != '"')
        return slow();
    // A plain name (no escape) inside the buffer; anything else is the tokenizer's.
    for (;;) {
        const char *b = m_buf.get();
        size_t q = m_pos + 1;
        while (q < m_len && b[q] != '"' && b[q] != '\\' && static_cast<unsigned char>(b[q]) >= 0x20)
            ++q;
        if (q < m_len) {
            if (b[q] != '"')
                return slow();
            key.assign(b + m_pos + 1, q - m_pos - 1);
            m_pos = q + 1;
            break;
        }
        if (m_eof)
            return slow();
        load(m_base + m_pos, (m_len - m_pos) * 2 + 64);
    }
    if (skipWhiteSpace() != ':')
        return slow();
    ++m_pos;
    first = false;
    return 1;
}

bool FastJsonReader::parseValue(JsonTree &tree)
{
    constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseNanAndInfFlag
        | rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseStopWhenDoneFlag;
    const std::uint64_t start = offset();
    auto slow = [&] { return viaTokenizer(start, [&](JsonStreamReader &t) { return t.parseValue(tree); }); };
    if (peekToken() < 0)
        return slow();
    // Keep a good part of a block ahead: most values then parse in one go. The bytes not
    // parsed yet are intact (in-situ parsing only rewrites what it consumed): moved, not re-read.
    if (!m_eof && m_len - m_pos < std::min(m_cap, kBlock) / 4)
        slide();
    thread_local TreeBuilder builder;
    thread_local rapidjson::Reader reader;
    for (;;) {
        builder.reset(tree);
        rapidjson::InsituStringStream in(m_buf.get() + m_pos);
        const rapidjson::ParseResult r = reader.Parse<kFlags>(in, builder);
        const size_t end = m_pos + (r.IsError() ? r.Offset() : in.Tell());
        if (!m_eof && end + kEndMargin >= m_len) {
            // The value may go on past the buffer (a number may even look complete): read it
            // again from its start (in-situ parsing rewrote the bytes), with a larger buffer
            // when it already filled this one.
            load(m_base + m_pos, m_pos == 0 ? m_cap * 2 : m_cap);
            continue;
        }
        if (r.IsError())
            return slow();
        m_pos = end;
        return true;
    }
}

} // namespace ds::msprobe
