#pragma once
// Internal to the msprobe readers: RapidJSON's SAX reader behind FastJsonReader. Included only
// by the .cpp files that run a handler over FastJsonReader's buffer (fastjson.cpp builds
// JsonTrees, entryrecords.cpp builds records), so that RapidJSON stays out of every header
// the rest of the program sees.

#include "fastjson.h"

// RapidJSON's SSE2 string scanning is not used: Debian's RapidJSON 1.1 with RAPIDJSON_SSE2
// accepts a raw control character inside a string at some alignments of the buffer (it refuses
// it at others; found by the differential fuzzing of the msprobe reader, tests/fuzz). Its
// scalar code refuses it everywhere, as the tokenizer does.
#include <rapidjson/reader.h>

#include <algorithm>
#include <limits>
#include <type_traits>
#include <string_view>
#include <vector>

namespace ds::msprobe {

/// RapidJSON also reads "Inf", "-Inf" and "-NaN"; Python and the tokenizer do not. True for
/// number tokens both accept (every handler must refuse the others: the tokenizer then
/// reports them).
inline bool pythonNumberToken(std::string_view text)
{
    const char first = text.empty() ? 0 : text[0] == '-' && text.size() > 1 ? text[1] : text[0];
    const bool word = first == 'N' || first == 'I';
    return !word || text == "NaN" || text == "Infinity" || text == "-Infinity";
}

/// True for a number token without fraction or exponent (and not NaN / Infinity).
inline bool integerToken(std::string_view text)
{
    for (char c : text)
        if (c == '.' || c == 'e' || c == 'E' || c == 'N' || c == 'I')
            return false;
    return true;
}

/// SAX handler: one value into a JsonTree, node for node what JsonStreamReader::parseInto
/// builds. Returning false stops RapidJSON; the caller then asks the tokenizer. `depthBase`
/// (reset) is the nesting of the value inside the one the tokenizer would parse (a member
/// captured inside a dump.json entry), for the tokenizer's depth limit.
class TreeBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TreeBuilder>
{
public:
    void reset(JsonTree &tree, size_t depthBase = 0)
    {
        m_t = &tree;
        tree.clear();
        m_stack.clear();
        m_keyOff = m_keyLen = 0;
        m_depthBase = depthBase;
    }
    /// The value is complete (its last container closed, or it was a scalar).
    bool done() const { return m_stack.empty() && !m_t->m_nodes.empty(); }

    bool Null() { return add(JsonNode::Null) != kFail; }
    bool Bool(bool b) { return add(b ? JsonNode::True : JsonNode::False) != kFail; }
    bool RawNumber(const char *s, rapidjson::SizeType len, bool)
    {
        const std::string_view text(s, len);
        if (!pythonNumberToken(text))
            return false;
        const std::uint32_t i = add(JsonNode::Number);
        if (i == kFail)
            return false;
        const bool integer = integerToken(text);
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
        if (m_depthBase + m_stack.size() > size_t(JsonStreamReader::kMaxDepth)
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
    size_t m_depthBase = 0;
};

namespace fastjson_detail {
/// RapidJSON reports some errors a few bytes before the point where the input stopped (the
/// start of a cut escape sequence): errors this close to the end of the buffer may only mean
/// that the value continues in the next block.
constexpr size_t kEndMargin = 16;
/// Bytes read at a time: the block the kernel copies into stays in a core's L2 cache until
/// stage 1 and the walk read it (docs/PERFORMANCE.md, sixth round).
constexpr size_t kBlock = size_t(512) << 10;
} // namespace fastjson_detail

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
        slow.setData(std::string(m_view.substr(size_t(std::min<std::uint64_t>(at, m_view.size())))), at);
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

template<typename Handler>
bool FastJsonReader::parseSax(Handler &handler, JsonTree &tree, bool &viaTree)
{
    using namespace fastjson_detail;
    constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseNanAndInfFlag
        | rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseStopWhenDoneFlag;
    viaTree = false;
    const std::uint64_t start = offset();
    auto slow = [&] {
        viaTree = true;
        return viaTokenizer(start, [&](JsonStreamReader &t) { return t.parseValue(tree); });
    };
    if (peekToken() < 0)
        return slow();
    // Keep a good part of a block ahead: most values then parse in one go. The bytes not
    // parsed yet are intact (in-situ parsing only rewrites what it consumed): moved, not re-read.
    if (!m_eof && m_len - m_pos < std::min(m_cap, kBlock) / 4)
        slide();
    thread_local rapidjson::Reader reader;
    for (;;) {
        handler.reset();
        rapidjson::InsituStringStream in(m_buf.get() + m_pos);
        const rapidjson::ParseResult r = reader.Parse<kFlags>(in, handler);
        const size_t end = m_pos + (r.IsError() ? r.Offset() : in.Tell());
        if (!m_eof && end + kEndMargin >= m_len) {
            // The value may go on past the buffer (a number may even look complete): read it
            // again from its start (in-situ parsing rewrote the bytes), with a larger buffer
            // when it already filled this one.
            load(m_base + m_pos, m_pos == 0 ? m_cap * 2 : m_cap);
            continue;
        }
        // A value past the tokenizer's 2 GiB of text is its error to report.
        if (r.IsError() || end - m_pos > std::numeric_limits<std::uint32_t>::max() / 2)
            return slow();
        m_pos = end;
        return true;
    }
}

} // namespace ds::msprobe
