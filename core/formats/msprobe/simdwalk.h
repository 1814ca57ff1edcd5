#pragma once
// Internal to the msprobe reader: the walk of a simdjson On Demand window that EntryWindow
// (entrywindow.cpp) and EntryWindow::parse (entryrecords.cpp, with the record handler) share.
// One value becomes RapidJSON's events, with the checks that keep simdjson's reading the same
// as RapidJSON's and the tokenizer's.

#include "entryrecords.h"

#include <rapidjson/rapidjson.h>
#include <simdjson.h>

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

/// A number token RapidJSON and the tokenizer read alike: JSON's grammar with at most two
/// exponent digits and 64 characters (RapidJSON calls some longer ones too big), or NaN,
/// Infinity, -Infinity. `integer`: without fraction or exponent (integerToken).
inline bool plainNumber(std::string_view t, bool &integer)
{
    integer = false;
    const char lead = t.empty() ? 0 : t[0];
    if (lead == 'N' || lead == 'I' || (lead == '-' && t.size() > 1 && t[1] == 'I'))
        return t == "NaN" || t == "Infinity" || t == "-Infinity";
    if (t.empty() || t.size() > 64)
        return false;
    size_t i = t[0] == '-' ? 1 : 0;
    if (i < t.size() && t[i] == '0') {
        ++i;
    } else {
        const size_t from = i;
        while (i < t.size() && isDigit(t[i]))
            ++i;
        if (i == from || t[from] == '0')
            return false;
    }
    bool fraction = false; // or an exponent
    if (i < t.size() && t[i] == '.') {
        fraction = true;
        const size_t from = ++i;
        while (i < t.size() && isDigit(t[i]))
            ++i;
        if (i == from)
            return false;
    }
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        fraction = true;
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-'))
            ++i;
        const size_t from = i;
        while (i < t.size() && isDigit(t[i]))
            ++i;
        if (i == from || i - from > 2)
            return false;
    }
    integer = !fraction;
    return i == t.size();
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
        // Without escapes the text is the bytes between the quotes (stage 1 refused bad UTF-8;
        // raw control characters are checked here: not every simdjson kernel refuses them).
        const std::string_view quoted = trimmedToken(raw);
        if (quoted.size() < 2 || quoted.back() != '"' || !followedWell())
            return false;
        const std::string_view inner = quoted.substr(1, quoted.size() - 2);
        bool plain = true;
        for (const char c : inner) {
            if (static_cast<unsigned char>(c) < 0x20)
                return false; // raw control characters: the tokenizer's error to report
            plain = plain && c != '"' && c != '\\';
        }
        if (plain)
            return h.String(inner.data(), rapidjson::SizeType(inner.size()), false);
        std::string_view text;
        if (!sameEscapes(quoted) || v.get_string().get(text))
            return false;
        return h.String(text.data(), rapidjson::SizeType(text.size()), false);
    }
    case 't':
    case 'f':
    case 'n': {
        const std::string_view t = trimmedToken(raw);
        if (!followedWell())
            return false;
        if (t == "true" || t == "false")
            return h.Bool(t[0] == 't');
        return t == "null" && h.Null();
    }
    default: {
        const std::string_view t = trimmedToken(raw);
        bool integer = false;
        return followedWell() && plainNumber(t, integer) && h.PlainNumber(t.data(), rapidjson::SizeType(t.size()), integer);
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
