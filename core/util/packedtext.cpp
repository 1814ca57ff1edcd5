#include "packedtext.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ds {

namespace {

// A 64 KiB arena block: this header, then texts. A handle into it finds the header by
// clearing the low 16 bits of its address.
constexpr size_t kArenaBlock = size_t(1) << 16;
// A block of its own: this header, then the text (the handle points just after the header).
struct Header
{
    std::atomic<std::uint32_t> refs;
    std::uint32_t reserved;
    std::uint64_t length; ///< own blocks: the text's length
};
static_assert(sizeof(Header) == 16);
constexpr size_t kArenaCapacity = kArenaBlock - sizeof(Header);

Header *headerOf(std::uint64_t raw, std::uint64_t addressMask, std::uint64_t ownBit)
{
    const std::uint64_t address = raw & addressMask;
    if (raw & ownBit)
        return reinterpret_cast<Header *>(address - sizeof(Header));
    return reinterpret_cast<Header *>(address & ~std::uint64_t(kArenaBlock - 1));
}

std::uint64_t tag(const char *p, size_t length, bool own)
{
    const auto address = reinterpret_cast<std::uint64_t>(p);
    if (address >> 47)
        std::abort(); // x86-64 and AArch64 user space (4-level paging) stays below 2^47
    const std::uint64_t len = length >= 0xFFFF ? 0xFFFF : length;
    return address | (own ? std::uint64_t(1) << 47 : 0) | (len << 48);
}

} // namespace

PackedText PackedText::fromUtf8(std::string_view utf8)
{
    PackedText t;
    if (utf8.empty())
        return t;
    void *mem = std::malloc(sizeof(Header) + utf8.size());
    if (!mem)
        throw std::bad_alloc();
    auto *h = new (mem) Header{{1}, 0, utf8.size()};
    char *text = reinterpret_cast<char *>(h + 1);
    std::memcpy(text, utf8.data(), utf8.size());
    t.m_raw = tag(text, utf8.size(), true);
    return t;
}

size_t PackedText::length() const
{
    const std::uint64_t len = m_raw >> 48;
    if (len != kLongLength)
        return size_t(len);
    return size_t(headerOf(m_raw, kAddressMask, kOwnBlock)->length);
}

void PackedText::retain() const
{
    if (m_raw)
        headerOf(m_raw, kAddressMask, kOwnBlock)->refs.fetch_add(1, std::memory_order_relaxed);
}

void PackedText::release()
{
    if (!m_raw)
        return;
    Header *h = headerOf(m_raw, kAddressMask, kOwnBlock);
    m_raw = 0;
    if (h->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        h->~Header();
        std::free(h);
    }
}

qsizetype PackedText::size() const
{
    const std::string_view b = utf8();
    for (char c : b)
        if (static_cast<unsigned char>(c) >= 0x80)
            return toString().size();
    return qsizetype(b.size());
}

PackedText PackedText::substr(size_t pos, size_t n) const
{
    const std::string_view b = utf8();
    if (pos >= b.size())
        return {};
    n = std::min(n, b.size() - pos);
    if (n == 0)
        return {};
    if (m_raw & kOwnBlock)
        return fromUtf8(b.substr(pos, n));
    PackedText t;
    t.m_raw = tag(b.data() + pos, n, false);
    t.retain();
    return t;
}

int PackedText::compare(const PackedText &o) const
{
    const std::string_view a = utf8(), b = o.utf8();
    bool ascii = true;
    for (char c : a)
        ascii = ascii && static_cast<unsigned char>(c) < 0x80;
    for (char c : b)
        ascii = ascii && static_cast<unsigned char>(c) < 0x80;
    if (ascii)
        return a.compare(b);
    return toString().compare(o.toString());
}

bool PackedText::equals(const QString &s) const
{
    const std::string_view b = utf8();
    if (qsizetype(b.size()) < s.size())
        return false; // every UTF-16 unit needs at least one UTF-8 byte
    return toString() == s;
}

bool PackedText::equals(QLatin1StringView s) const
{
    const std::string_view b = utf8();
    bool ascii = true;
    for (char c : std::string_view(s.data(), size_t(s.size())))
        ascii = ascii && static_cast<unsigned char>(c) < 0x80;
    if (ascii)
        return b == std::string_view(s.data(), size_t(s.size()));
    return toString() == s;
}

TextArena::~TextArena()
{
    if (m_block) {
        PackedText keep;
        keep.m_raw = tag(static_cast<const char *>(m_block) + sizeof(Header), 0, false);
        // Drop this arena's own reference through a handle (frees the block when unused).
        keep.release();
    }
}

PackedText TextArena::add(const QString &s)
{
    const QByteArray u = s.toUtf8();
    return add(std::string_view(u.constData(), size_t(u.size())));
}

PackedText TextArena::add(std::string_view utf8)
{
    if (utf8.empty())
        return {};
    if (utf8.size() > kArenaCapacity / 8)
        return PackedText::fromUtf8(utf8);
    if (!m_block || m_used + utf8.size() > kArenaCapacity) {
        if (m_block) {
            PackedText old;
            old.m_raw = tag(static_cast<const char *>(m_block) + sizeof(Header), 0, false);
            old.release();
        }
        void *mem = std::aligned_alloc(kArenaBlock, kArenaBlock);
        if (!mem)
            throw std::bad_alloc();
        new (mem) Header{{1}, 0, 0};
        m_block = mem;
        m_used = 0;
    }
    char *text = static_cast<char *>(m_block) + sizeof(Header) + m_used;
    std::memcpy(text, utf8.data(), utf8.size());
    m_used += utf8.size();
    PackedText t;
    t.m_raw = tag(text, utf8.size(), false);
    t.retain();
    return t;
}

} // namespace ds
