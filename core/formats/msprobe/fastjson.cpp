#include "fastjsonsax.h"

#include <QFile>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace ds::msprobe {

namespace {
using fastjson_detail::kBlock;
constexpr size_t kSimdPadding = 1 + 16; ///< the NUL and 16 zeroed bytes

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/// TreeBuilder with the reset() parseSax calls.
class TreeSax : public TreeBuilder
{
public:
    JsonTree *tree = nullptr;
    void reset() { TreeBuilder::reset(*tree); }
};
} // namespace

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
    m_data = std::move(data);
    setView(m_data);
}

void FastJsonReader::setView(std::string_view data)
{
    m_file.reset();
    m_path.clear();
    m_view = data;
    m_size = m_view.size();
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
        // The terminating NUL RapidJSON's in-situ parse stops at, then zeroed padding (kept from
        // when RapidJSON's SSE2 scanners, which read up to 15 bytes past the NUL, were used).
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
        std::memcpy(m_buf.get(), m_view.data() + at, n);
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
    const std::uint64_t at = m_base + keep;
    if (m_file) {
        const int fd = m_file->handle();
        while (keep + n < m_cap && at + n < m_size) {
            const ssize_t got = ::pread(fd, m_buf.get() + keep + n, std::min<std::uint64_t>(m_cap - keep - n, m_size - at - n),
                                        off_t(at + n));
            if (got <= 0)
                break;
            n += size_t(got);
        }
    } else if (at < m_view.size()) {
        n = size_t(std::min<std::uint64_t>(m_cap - keep, m_view.size() - at));
        std::memcpy(m_buf.get() + keep, m_view.data() + at, n);
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

std::string FastJsonReader::memberIndent()
{
    if (peekToken() != '"')
        return {};
    const char *b = m_buf.get();
    size_t i = m_pos;
    while (i > 0 && (b[i - 1] == ' ' || b[i - 1] == '\t'))
        --i;
    if (i == 0 || b[i - 1] != '\n')
        return {};
    return std::string(b + i - 1, m_pos - i + 1);
}

bool FastJsonReader::openMemberWindow(bool first, std::string_view closing, size_t maxBytes, MemberWindow &w)
{
    constexpr size_t kPadding = 64; // SIMDJSON_PADDING: readable bytes after the document
    if (closing.empty() || peekToken() < 0)
        return false;
    // Slid (the rest moved to the front, refilled) only when a window of maxBytes might not fit.
    if (!m_eof && m_len - m_pos < std::min(std::min(m_cap, kBlock) / 4, 2 * maxBytes + kPadding))
        slide();
    const int c = peekToken();
    if (c != (first ? '"' : ',') || (first && m_pos == 0))
        return false;
    char *b = m_buf.get();
    char *openAt = b + (first ? m_pos - 1 : m_pos);
    // The last `closing` that ends before the limit: the ',' after it closes the window.
    const size_t limit = std::min(m_len - std::min(m_len, kPadding + 1), size_t(openAt - b) + maxBytes);
    char *closeAt = nullptr;
    for (size_t end = limit; end > size_t(openAt - b) + closing.size();) {
        const void *nl = memrchr(openAt + 1, '\n', end - size_t(openAt + 1 - b));
        if (!nl)
            break;
        const char *p = static_cast<const char *>(nl);
        if (size_t(p - b) + closing.size() <= limit && std::memcmp(p, closing.data(), closing.size()) == 0) {
            closeAt = b + (p - b) + closing.size() - 1;
            break;
        }
        end = size_t(p - b);
    }
    if (!closeAt)
        return false;
    w.start = b + m_pos;
    w.openAt = openAt;
    w.closeAt = closeAt;
    w.open = *openAt;
    w.close = *closeAt;
    *openAt = '{';
    *closeAt = '}';
    w.doc = openAt;
    w.len = size_t(closeAt - openAt) + 1;
    w.capacity = m_len - size_t(openAt - b);
    return true;
}

void FastJsonReader::closeMemberWindow(const MemberWindow &w, const char *resume)
{
    *w.openAt = w.open;
    *w.closeAt = w.close;
    m_pos = size_t(resume - m_buf.get());
}

bool FastJsonReader::parseValue(JsonTree &tree)
{
    thread_local TreeSax builder;
    builder.tree = &tree;
    bool viaTree = false;
    return parseSax(builder, tree, viaTree);
}

} // namespace ds::msprobe
