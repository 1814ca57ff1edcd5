#pragma once

#include <QString>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

class QIODevice;

namespace ds::msprobe {

/// One value of a JsonTree. Children are linked through `first`/`next` (index 0 means
/// "none": the root is node 0 and is never anybody's child).
struct JsonNode
{
    enum Kind : std::uint8_t { Null, False, True, Number, String, Array, Object };
    Kind kind = Null;
    bool integer = false;      ///< number token without fraction or exponent
    std::uint32_t first = 0, next = 0, count = 0;
    std::uint32_t keyOff = 0, keyLen = 0;   ///< member name (objects) in the text arena
    std::uint32_t textOff = 0, textLen = 0; ///< decoded string, or the number token as written
    double number = 0;         ///< numbers; NaN / Infinity tokens included
};

/// A small JSON document (one dump.json entry, one stack group) in flat arrays that are
/// reused between values, so that parsing millions of entries allocates almost nothing.
class JsonTree
{
public:
    void clear()
    {
        m_nodes.clear();
        m_text.clear();
    }
    bool empty() const { return m_nodes.empty(); }
    const JsonNode &node(std::uint32_t i) const { return m_nodes[i]; }
    const JsonNode &root() const { return m_nodes[0]; }
    std::string_view key(const JsonNode &n) const { return {m_text.data() + n.keyOff, n.keyLen}; }
    std::string_view text(const JsonNode &n) const { return {m_text.data() + n.textOff, n.textLen}; }
    /// Member `name` of object node `obj`, 0 if absent (or if obj is no object).
    std::uint32_t find(std::uint32_t obj, std::string_view name) const;
    /// Python `json.dumps` spelling of a value (", " and ": " separators, ASCII escapes,
    /// numbers as written in the file).
    void serialize(std::uint32_t i, std::string &out) const;

private:
    friend class JsonStreamReader;
    friend class TreeBuilder;
    std::vector<JsonNode> m_nodes;
    std::string m_text;
};

/// A forward-only JSON tokenizer over a file read in 1 MiB blocks: memory does not grow
/// with the file. Accepts the Python tokens `NaN`, `Infinity` and `-Infinity` in number
/// position (never inside strings). After a failure, error() says what was wrong and
/// errorOffset() where; atEnd() tells a truncated file from a syntax error.
class JsonStreamReader
{
public:
    JsonStreamReader();
    ~JsonStreamReader();
    JsonStreamReader(const JsonStreamReader &) = delete;
    JsonStreamReader &operator=(const JsonStreamReader &) = delete;

    /// Opens a file, positioned at byte `at`; false with error() set ("No such file or
    /// directory") if that fails.
    bool open(const QString &path, std::uint64_t at = 0);
    /// Reads from a byte array (tests, small inputs) that starts at offset `base` of the input
    /// (offsets and size() count from the input's start).
    void setData(std::string data, std::uint64_t base = 0);

    std::uint64_t size() const { return m_size; }
    std::uint64_t offset() const { return m_base + m_pos; }

    /// Skips white space; the next byte, or -1 at the end of the input (or on a read error).
    int peekToken();
    /// Consumes `c` (after white space) or fails.
    bool expect(char c);
    /// Starts iterating an object: consumes '{'.
    bool beginObject() { return expect('{'); }
    /// Next member of the object being iterated: 1 = `key` holds the name and the value
    /// is next; 0 = the object ended ('}' consumed); -1 = error. `first` must be true for
    /// the first call of each object and is cleared.
    int nextMember(std::string &key, bool &first);
    /// Same for arrays: 1 = an element follows, 0 = ']' consumed, -1 = error.
    int nextElement(bool &first);
    bool readString(std::string &out);
    /// Parses the next value completely into `tree` (cleared first); depth is limited.
    bool parseValue(JsonTree &tree);
    /// Skips the next value without storing it.
    bool skipValue();

    const QString &error() const { return m_error; }
    std::uint64_t errorOffset() const { return m_errorOffset; }
    /// True when the failure was the input ending (truncated file).
    bool hitEnd() const { return m_hitEnd; }

    static constexpr int kMaxDepth = 512;

private:
    bool fill();
    int peekByte()
    {
        if (m_pos < m_end)
            return static_cast<unsigned char>(m_buf[m_pos]);
        return fill() ? static_cast<unsigned char>(m_buf[m_pos]) : -1;
    }
    bool fail(const QString &what);
    bool failUnexpected(const char *expected);
    bool readStringInto(std::string &out);
    bool readNumberOrWord(std::string &text, JsonNode &n);
    bool parseInto(JsonTree &t, std::uint32_t self, int depth);
    bool skip(int depth);

    std::unique_ptr<QIODevice> m_dev;
    std::string m_buf;
    size_t m_pos = 0, m_end = 0;
    std::uint64_t m_base = 0, m_size = 0;
    bool m_eof = false;
    QString m_error;
    std::uint64_t m_errorOffset = 0;
    bool m_hitEnd = false;
    std::string m_scratch;
};

/// The value of a number token as written (JSON grammar, or NaN / Infinity / -Infinity),
/// the way Python's json module reads it: out of range gives +-inf (or 0 for tiny fractions).
double numberFromText(std::string_view text, bool integer);

/// Appends `s` (UTF-8) as Python's json.dumps writes it: quoted, ASCII-only escapes.
void appendPythonJsonString(std::string_view s, std::string &out);

/// Parses a whole (small) JSON text into a tree; false with `error` set on failure.
bool parseJsonText(std::string text, JsonTree &tree, QString *error);

} // namespace ds::msprobe
