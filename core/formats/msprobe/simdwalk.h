#pragma once
// Internal to the msprobe reader: the walk of a simdjson On Demand window that EntryWindow
// (entrywindow.cpp) and EntryWindow::parse (entryrecords.cpp, with the record handler) share.
// One value becomes RapidJSON's events, with the checks that keep simdjson's reading the same
// as RapidJSON's and the tokenizer's.

#include "entryrecords.h"

#include <rapidjson/rapidjson.h>
#include <simdjson.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace ds::msprobe::simdwalk {

namespace od = simdjson::ondemand;

inline std::string_view trimmedToken(std::string_view t)
{
    while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t'))
        t.remove_suffix(1);
    return t;
}

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }

/// Whether a scalar's own text, `end` bytes long, is all of its raw token but whitespace.
/// Stage 1 ends a raw token at the next structural byte, and a byte other than whitespace
/// that follows whitespace starts a new one: so when the byte after the text is whitespace,
/// so is the rest (the trailing indentation of pretty-printed JSON is not scanned).
inline bool endsToken(std::string_view raw, size_t end)
{
    if (end == raw.size())
        return true;
    const char c = raw[end];
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/// The length of the number word (NaN, Infinity, -Infinity) that `raw` starts with, or 0.
inline size_t numberWord(std::string_view raw)
{
    for (const std::string_view word : {std::string_view("NaN"), std::string_view("Infinity"), std::string_view("-Infinity")})
        if (raw.substr(0, word.size()) == word && endsToken(raw, word.size()))
            return word.size();
    return 0;
}

/// How many ASCII digits `p` starts with, at most `max`. Eight bytes at a time: a byte is a
/// digit when its high nibble is 3 and its low nibble, plus 6, stays below 16. Reads up to 7
/// bytes past the digits: a window's padding (SIMDJSON_PADDING) keeps them readable.
inline size_t digitRun(const char *p, size_t max)
{
    size_t i = 0;
    if constexpr (std::endian::native == std::endian::little) {
        for (; i < max; i += 8) {
            std::uint64_t x;
            std::memcpy(&x, p + i, 8);
            constexpr std::uint64_t kHigh = 0xF0F0F0F0F0F0F0F0ull;
            const std::uint64_t notDigit = ((x & kHigh) ^ 0x3030303030303030ull)
                | (((x & ~kHigh) + 0x0606060606060606ull) & kHigh);
            if (notDigit)
                return std::min(max, i + size_t(std::countr_zero(notDigit)) / 8);
        }
        return max;
    }
    while (i < max && isDigit(p[i]))
        ++i;
    return i;
}

/// The length of the number token at the start of `raw` that RapidJSON and the tokenizer read
/// alike, or 0: JSON's grammar with at most two exponent digits and 64 characters (RapidJSON
/// calls some longer ones too big), or NaN, Infinity, -Infinity. `integer`: without fraction or
/// exponent (integerToken).
inline size_t plainNumber(std::string_view raw, bool &integer)
{
    integer = false;
    const size_t n = raw.size();
    const char *p = raw.data();
    size_t i = n && p[0] == '-' ? 1 : 0;
    if (i < n && p[i] == '0') {
        ++i;
    } else {
        const size_t digits = digitRun(p + i, n - i);
        if (!digits)
            return numberWord(raw);
        i += digits;
    }
    bool fraction = false; // or an exponent
    if (i < n && p[i] == '.') {
        fraction = true;
        const size_t digits = digitRun(p + i + 1, n - i - 1);
        if (!digits)
            return 0;
        i += 1 + digits;
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        fraction = true;
        ++i;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            ++i;
        const size_t digits = digitRun(p + i, n - i);
        if (!digits || digits > 2)
            return 0;
        i += digits;
    }
    integer = !fraction;
    return i <= 64 && endsToken(raw, i) ? i : 0;
}

inline bool hex4(std::string_view t, size_t at, unsigned &v)
{
    if (at + 4 > t.size())
        return false;
    v = 0;
    for (size_t i = at; i < at + 4; ++i) {
        const char c = t[i];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return false;
        v = v * 16 + unsigned(d);
    }
    return true;
}

/// A string whose escapes (if any) simdjson and RapidJSON decode alike: every \\u a
/// character outside the surrogates or a high surrogate followed by a low one (lone
/// surrogates are the tokenizer's to report).
inline bool sameEscapes(std::string_view quoted)
{
    for (size_t i = 0; i + 1 < quoted.size(); ++i) {
        if (quoted[i] != '\\')
            continue;
        if (quoted[i + 1] != 'u') {
            ++i;
            continue;
        }
        unsigned cp = 0, low = 0;
        if (!hex4(quoted, i + 2, cp) || (cp >= 0xDC00 && cp <= 0xDFFF))
            return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (i + 12 > quoted.size() || quoted[i + 6] != '\\' || quoted[i + 7] != 'u' || !hex4(quoted, i + 8, low)
                || low < 0xDC00 || low > 0xDFFF)
                return false;
            i += 6;
        }
        i += 5;
    }
    return true;
}

/// A member name from its raw text (after the opening quote): the bytes themselves when it has
/// no escape (stage 1 found its closing quote, so the scan ends), else simdjson's decoding
/// when that is RapidJSON's too.
inline bool memberName(od::field &f, std::string_view &name)
{
    const char *raw = f.key().raw();
    const char *q = raw;
    while (*q != '"' && *q != '\\' && static_cast<unsigned char>(*q) >= 0x20)
        ++q;
    if (*q == '"') {
        name = std::string_view(raw, size_t(q - raw));
        return true;
    }
    if (*q != '\\')
        return false; // a raw control character
    while (*q != '"') {
        if (static_cast<unsigned char>(*q) < 0x20)
            return false;
        q += *q == '\\' ? 2 : 1;
    }
    return sameEscapes(std::string_view(raw, size_t(q - raw))) && !f.unescaped_key().get(name);
}

/// One value as RapidJSON's events (in-situ spellings: numbers as written, strings decoded).
/// On Demand does not check everything between values: a missing ',' can end an array or
/// object early without an error, and values that are not read are skipped without looking at
/// them. So after every value the next structural byte must be a ',' or the `closer` of the
/// container holding it; anything else refuses the value.
template<typename Handler>
bool events(od::document &doc, od::value &v, Handler &h, char closer)
{
    const std::string_view raw = v.raw_json_token();
    if (raw.empty())
        return false;
    // A scalar's raw token runs up to the next structural byte.
    auto followedWell = [&] {
        const char next = raw.data()[raw.size()];
        return next == ',' || next == closer;
    };
    // A container's: where the iteration stands after its closing bracket.
    auto endedWell = [&] {
        const char *at = nullptr;
        return !doc.current_location().get(at) && (*at == ',' || *at == closer);
    };
    switch (raw[0]) {
    case '{': {
        od::object o;
        if (v.get_object().get(o) || !h.StartObject())
            return false;
        rapidjson::SizeType n = 0;
        for (auto member : o) {
            // The field is used where the iterator built it: copying it out (get) reloads
            // 16 bytes just stored in two parts, a store-forwarding stall on every member.
            if (member.error())
                return false;
            od::field &&f = std::move(member).value_unsafe();
            std::string_view key;
            if (!memberName(f, key))
                return false;
            if (!h.Key(key.data(), rapidjson::SizeType(key.size()), false) || !events(doc, f.value(), h, '}'))
                return false;
            ++n;
        }
        return endedWell() && h.EndObject(n);
    }
    case '[': {
        od::array a;
        if (v.get_array().get(a) || !h.StartArray())
            return false;
        rapidjson::SizeType n = 0;
        for (auto element : a) {
            if (element.error())
                return false;
            od::value &&e = std::move(element).value_unsafe();
            if (!events(doc, e, h, ']'))
                return false;
            ++n;
        }
        return endedWell() && h.EndArray(n);
    }
    case '"': {
        // Without escapes the text is the bytes up to the next quote (stage 1 refused bad
        // UTF-8; raw control characters are checked here: not every simdjson kernel refuses them).
        size_t q = 1;
        while (q < raw.size() && raw[q] != '"' && raw[q] != '\\' && static_cast<unsigned char>(raw[q]) >= 0x20)
            ++q;
        if (q < raw.size() && raw[q] == '"')
            return endsToken(raw, q + 1) && followedWell() && h.String(raw.data() + 1, rapidjson::SizeType(q - 1), false);
        if (q == raw.size() || raw[q] != '\\')
            return false; // unclosed, or a raw control character: the tokenizer's error to report
        const std::string_view quoted = trimmedToken(raw);
        if (quoted.size() < 2 || quoted.back() != '"' || !followedWell())
            return false;
        for (const char c : quoted)
            if (static_cast<unsigned char>(c) < 0x20)
                return false;
        std::string_view text;
        if (!sameEscapes(quoted) || v.get_string().get(text))
            return false;
        return h.String(text.data(), rapidjson::SizeType(text.size()), false);
    }
    case 't':
    case 'f':
    case 'n': {
        if (!followedWell())
            return false;
        for (const std::string_view word : {std::string_view("true"), std::string_view("false"), std::string_view("null")})
            if (raw.substr(0, word.size()) == word && endsToken(raw, word.size()))
                return word[0] == 'n' ? h.Null() : h.Bool(word[0] == 't');
        return false;
    }
    default: {
        bool integer = false;
        const size_t n = plainNumber(raw, integer);
        return n && followedWell() && h.PlainNumber(raw.data(), rapidjson::SizeType(n), integer);
    }
    }
}

} // namespace ds::msprobe::simdwalk

namespace ds::msprobe {

struct EntryWindow::Impl
{
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    simdjson::ondemand::object object;
    simdjson::ondemand::object_iterator it, end;
    simdjson::ondemand::field member;
    bool started = false;
};

} // namespace ds::msprobe
