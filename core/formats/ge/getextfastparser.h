#pragma once

// A hand-written reader for the protobuf text subset GE writes in ge_proto_*.txt
// (docs/scale/graphs-runs.md, item 2): `name: "..."`, `op { ... }`, `attr { key value { ... } }`
// with plain decimal numbers, double-quoted strings and enum names. It fills the same
// `ge.proto.ModelDef` protobuf's reflective TextFormat parser fills, at several times its speed.
// It never reports an error of its own: whatever it does not understand (an unknown field, `<...>`
// or `[...]` syntax, hex numbers, a repeated singular field, a syntax error) makes it give up,
// and the caller parses the file with TextFormat, whose messages and tolerance stay the rule.

#include "formats/ge/geir.pb.h"

#include <QByteArray>
#include <QHash>
#include <QString>

namespace ds::ge::detail {

/// Why the fast reader gave up: the 1-based line and column and a short reason.
struct FastParseStop
{
    int line = 0;
    int column = 0;
    QString reason;
};

/// Parses `text` into `model` (cleared first). False when the text is outside the subset;
/// `stop` then says where and why, and `model` holds a partial parse to be discarded.
/// A `dtype` name the schema does not know (a newer GE's type) gets the private number the
/// TextFormat path gives it (100000, 100001, ... in order of first appearance), recorded in
/// `unknownEnums` as there.
bool parseGeProtoTextFast(const QByteArray &text, dumpscope::ge::ModelDef *model, FastParseStop *stop,
                          QHash<int, QString> *unknownEnums);

} // namespace ds::ge::detail
