#pragma once
// Internal to the msprobe reader: one dump.json entry turned into records straight from
// RapidJSON's events, without a JsonTree for the whole entry.

#include "dump/records.h"

#include <memory>

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
    class Sax;
    std::unique_ptr<Sax> d;
};

} // namespace ds::msprobe
