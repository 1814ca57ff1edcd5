#pragma once
// Internal to the msprobe reader: one dump.json entry turned into records straight from
// RapidJSON's events, without a JsonTree for the whole entry.

#include "dump/records.h"

#include <memory>
#include <string_view>

namespace ds::msprobe {

class FastJsonReader;
class JsonTree;
class LeafBuilder;

/// Streams the body of one dump.json entry (`{"input_args": [...], "output": [...], ...}`)
/// into records: categories, lists and containers are walked as their events arrive, and a
/// leaf object (a tensor or a value) is kept as the spans of its members in the parse buffer
/// until it closes, then becomes its record directly. The result is the same as
/// LeafBuilder::walk over the entry's JsonTree (msprobereader.cpp, the reference); whatever
/// the direct path does not cover (P2POp class_type objects, dicts nested in a leaf, string
/// statistics, unusual shapes, datapath files, parameters_grad members) is collected into a
/// small JsonTree of that leaf or member only and walked by LeafBuilder.
class EntryRecords
{
public:
    explicit EntryRecords(LeafBuilder &lb);
    ~EntryRecords();
    EntryRecords(const EntryRecords &) = delete;
    EntryRecords &operator=(const EntryRecords &) = delete;

    /// Parses the next value of `r`, the body of an entry (`parametersGrad`: of a
    /// `*.parameters_grad` entry). false: a parse error (r.error(), r.errorOffset(),
    /// r.hitEnd() as after FastJsonReader::parseValue). true and `inTree` false: the records
    /// are in the LeafBuilder (between its begin() and finish()) and the warnings in `op`;
    /// true and `inTree` set: the value is in `tree` instead (the tokenizer parsed it, or the
    /// body is not an object) and the caller converts it from there.
    bool parse(FastJsonReader &r, bool parametersGrad, OpRecord &op, JsonTree &tree, bool &inTree);

private:
    friend class EntryWindow;
    class Sax;
    std::unique_ptr<Sax> d;
};

/// A run of whole dump.json entries read by simdjson's On Demand parser: the window text
/// `{"name": {...}, ..., "name": {...}}` (FastJsonReader::openMemberWindow) walked member by
/// member, each body's values sent as RapidJSON's events to the handler EntryRecords::parse
/// uses, so the records are the same. Only what RapidJSON and the tokenizer read the same way
/// is taken: numbers in JSON's grammar (and NaN / Infinity / -Infinity) with short exponents,
/// literals, strings whose `\u` escapes are not lone surrogates, entry names without escapes;
/// any other value, and whatever simdjson refuses, fails the entry, which the caller then
/// parses the usual way.
/// docs/PERFORMANCE.md has the measurements behind it.
class EntryWindow
{
public:
    EntryWindow();
    ~EntryWindow();
    EntryWindow(const EntryWindow &) = delete;
    EntryWindow &operator=(const EntryWindow &) = delete;

    /// Starts on the `len` bytes at `doc`, readable up to `doc + capacity` (capacity >= len + 64).
    bool open(const char *doc, size_t len, size_t capacity);
    /// 1: the next member, its name in `name` (no escapes in the file) and its opening quote at
    /// `nameAt`, its value next; 0: the window's object closed at the end of the window; -1:
    /// anything else (an error, a name with escapes).
    int next(std::string_view &name, const char *&nameAt);
    /// The value of the member next() gave, into records as EntryRecords::parse does (same
    /// `inTree` meaning). false: refused; nothing of it is kept by `records`.
    bool parse(EntryRecords &records, bool parametersGrad, OpRecord &op, JsonTree &tree, bool &inTree);
    /// After parse(): the ',' or '}' after the value.
    const char *position();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace ds::msprobe
