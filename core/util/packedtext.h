#pragma once

#include <QString>
#include <QStringBuilder>

#include <cstdint>
#include <string>
#include <string_view>

namespace ds {

class TextArena;

/// Immutable UTF-8 text in 8 bytes, for the strings an index holds millions of (operator names
/// and paths): a QString costs 24 bytes plus a heap block of two bytes per character.
///
/// The handle is a tagged pointer to the first byte: bits 0-46 the address, bit 47 set for a
/// text in its own block, bits 48-63 the length in bytes (0xFFFF: longer, the length is in
/// the own block's header). Texts live either in 64 KiB blocks filled by a TextArena (names of
/// one file next to each other; a substring of such a text, e.g. an operator name inside its
/// path, shares the bytes) or in a block of their own. Blocks are reference-counted and freed
/// with the last handle; copying a handle is one atomic increment.
///
/// Reads like a const QString: converts implicitly (allocating the QString each time, so hot
/// loops should convert once or use utf8()), compares with QString and other PackedTexts, joins
/// QStringBuilder expressions (`op.relPath + u'/'`), and forwards the common QString queries.
class PackedText
{
public:
    PackedText() = default;
    PackedText(const QString &s) : PackedText(fromUtf8(s.toUtf8())) {}
    PackedText(QLatin1StringView s) : PackedText(QString(s)) {}
    template<typename A, typename B>
    PackedText(const QStringBuilder<A, B> &b) : PackedText(QString(b)) {}
    PackedText(const PackedText &o) noexcept : m_raw(o.m_raw) { retain(); }
    PackedText(PackedText &&o) noexcept : m_raw(o.m_raw) { o.m_raw = 0; }
    PackedText &operator=(const PackedText &o) noexcept
    {
        if (m_raw != o.m_raw) {
            PackedText copy(o);
            swap(copy);
        }
        return *this;
    }
    PackedText &operator=(PackedText &&o) noexcept
    {
        swap(o);
        return *this;
    }
    ~PackedText() { release(); }
    void swap(PackedText &o) noexcept { std::swap(m_raw, o.m_raw); }

    /// A copy of `utf8` in a block of its own (use a TextArena for many small texts).
    static PackedText fromUtf8(std::string_view utf8);
    static PackedText fromUtf8(const QByteArray &utf8) { return fromUtf8(std::string_view(utf8.constData(), size_t(utf8.size()))); }

    std::string_view utf8() const { return {data(), length()}; }
    QString toString() const { return m_raw ? QString::fromUtf8(data(), qsizetype(length())) : QString(); }
    operator QString() const { return toString(); }
    std::string toStdString() const { return std::string(utf8()); }
    QByteArray toUtf8() const { return QByteArray(data(), qsizetype(length())); }

    bool isEmpty() const { return length() == 0; }
    bool isNull() const { return m_raw == 0; }
    /// Length in UTF-16 code units, as QString::size() (the byte count when the text is ASCII).
    qsizetype size() const;

    /// The bytes [pos, pos + n) (n clipped to the end; byte positions, not characters). Shares
    /// the block when the text is in an arena block, copies otherwise.
    PackedText substr(size_t pos, size_t n = std::string_view::npos) const;

    // QString queries (on the converted text unless the bytes answer them).
    bool startsWith(QLatin1StringView s, Qt::CaseSensitivity cs = Qt::CaseSensitive) const
    {
        return cs == Qt::CaseSensitive && isAscii(s) ? utf8().starts_with(std::string_view(s.data(), size_t(s.size())))
                                                     : toString().startsWith(s, cs);
    }
    bool endsWith(QLatin1StringView s, Qt::CaseSensitivity cs = Qt::CaseSensitive) const
    {
        return cs == Qt::CaseSensitive && isAscii(s) ? utf8().ends_with(std::string_view(s.data(), size_t(s.size())))
                                                     : toString().endsWith(s, cs);
    }
    bool startsWith(QChar c) const { return c.unicode() < 0x80 ? utf8().starts_with(char(c.unicode())) : toString().startsWith(c); }
    bool endsWith(QChar c) const { return c.unicode() < 0x80 ? utf8().ends_with(char(c.unicode())) : toString().endsWith(c); }
    bool startsWith(const QString &s) const { return toString().startsWith(s); }
    bool endsWith(const QString &s) const { return toString().endsWith(s); }
    bool contains(QLatin1StringView s) const
    {
        return isAscii(s) ? utf8().find(std::string_view(s.data(), size_t(s.size()))) != std::string_view::npos
                          : toString().contains(s);
    }
    bool contains(QChar c) const { return c.unicode() < 0x80 ? utf8().find(char(c.unicode())) != std::string_view::npos : toString().contains(c); }
    bool contains(const QString &s, Qt::CaseSensitivity cs = Qt::CaseSensitive) const { return toString().contains(s, cs); }
    qsizetype indexOf(QChar c) const { return toString().indexOf(c); }
    qsizetype lastIndexOf(QChar c) const { return toString().lastIndexOf(c); }
    QString section(QChar sep, qsizetype start, qsizetype end = -1) const { return toString().section(sep, start, end); }
    QString mid(qsizetype pos, qsizetype n = -1) const { return toString().mid(pos, n); }
    QString left(qsizetype n) const { return toString().left(n); }
    QString right(qsizetype n) const { return toString().right(n); }
    QString chopped(qsizetype n) const { return toString().chopped(n); }
    int compare(const PackedText &o) const;
    int compare(const QString &s, Qt::CaseSensitivity cs = Qt::CaseSensitive) const { return toString().compare(s, cs); }

    friend bool operator==(const PackedText &a, const PackedText &b) { return a.m_raw == b.m_raw || a.utf8() == b.utf8(); }
    friend bool operator!=(const PackedText &a, const PackedText &b) { return !(a == b); }
    friend bool operator==(const PackedText &a, const QString &b) { return a.equals(b); }
    friend bool operator!=(const PackedText &a, const QString &b) { return !a.equals(b); }
    friend bool operator==(const QString &a, const PackedText &b) { return b.equals(a); }
    friend bool operator!=(const QString &a, const PackedText &b) { return !b.equals(a); }
    friend bool operator==(const PackedText &a, QLatin1StringView b) { return a.equals(b); }
    friend bool operator!=(const PackedText &a, QLatin1StringView b) { return !a.equals(b); }
    /// Order of the converted QStrings (UTF-16 code units), as the QString members had.
    friend bool operator<(const PackedText &a, const PackedText &b) { return a.compare(b) < 0; }

private:
    friend class TextArena;
    static constexpr std::uint64_t kAddressMask = (std::uint64_t(1) << 47) - 1;
    static constexpr std::uint64_t kOwnBlock = std::uint64_t(1) << 47;
    static constexpr std::uint64_t kLongLength = 0xFFFF;

    const char *data() const { return reinterpret_cast<const char *>(m_raw & kAddressMask); }
    static bool isAscii(QLatin1StringView s)
    {
        for (char c : s)
            if (static_cast<unsigned char>(c) >= 0x80)
                return false;
        return true;
    }
    size_t length() const;
    bool equals(const QString &s) const;
    bool equals(QLatin1StringView s) const;
    void retain() const;
    void release();

    std::uint64_t m_raw = 0;
};

/// Fills 64 KiB blocks with texts for PackedText handles: one allocation per thousand
/// operator names instead of one per name. Not thread-safe (one per reader thread); the
/// blocks outlive it as long as handles into them exist.
class TextArena
{
public:
    TextArena() = default;
    ~TextArena();
    TextArena(const TextArena &) = delete;
    TextArena &operator=(const TextArena &) = delete;

    /// A handle to a copy of `utf8`.
    PackedText add(std::string_view utf8);
    PackedText add(const QString &s);

private:
    void *m_block = nullptr; ///< the block being filled (this arena holds one reference)
    size_t m_used = 0;
};

} // namespace ds

// QStringBuilder joins (`op.relPath + u'/' + name`) with PackedText operands.
template<>
struct QConcatenable<ds::PackedText>
{
    using type = ds::PackedText;
    using ConvertTo = QString;
    enum { ExactSize = false };
    static qsizetype size(const ds::PackedText &t) { return qsizetype(t.utf8().size()); } // >= UTF-16 units
    static void appendTo(const ds::PackedText &t, QChar *&out)
    {
        const QString s = t.toString();
        std::copy(s.cbegin(), s.cend(), out);
        out += s.size();
    }
};
