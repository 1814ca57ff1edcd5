#pragma once

// A hand-written reader for the protobuf text subset GE writes in ge_proto_*.txt
// (docs/scale/graphs-runs.md, item 2): `name: "..."`, `op { ... }`, `attr { key value { ... } }`
// with plain decimal numbers, double-quoted strings and enum names. It gives the same GraphNodes
// as protobuf's reflective TextFormat parser followed by the conversion (geconvert.h), at several
// times its speed, converting each op as soon as it is read.
// It never reports an error of its own: whatever it does not understand (an unknown field, `<...>`
// or `[...]` syntax, hex numbers, a repeated singular field, a syntax error) makes it give up,
// and the caller parses the file with TextFormat, whose messages and tolerance stay the rule.

#include "formats/ge/geir.pb.h"
#include "graph/graph.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <vector>

namespace ds::ge::detail {

/// Why the fast reader gave up: the 1-based line and column and a short reason.
struct FastParseStop
{
    int line = 0;
    int column = 0;
    QString reason;
};

/// Parses `text` into `model` (cleared first) and `nodes`. False when the text is outside the
/// subset; `stop` then says where and why, and the partial parse is to be discarded.
/// A `dtype` name the schema does not know (a newer GE's type) gets the private number the
/// TextFormat path gives it (100000, 100001, ... in order of first appearance), recorded in
/// `unknownEnums` as there.
/// The ops of the top-level graphs are not kept in `model` (nested graphs, in attributes, keep
/// theirs): each is read into one reused scratch OpDef and converted to a GraphNode at once,
/// `(*nodes)[g]` for `model->graph(g)` (no arena copy of every string, no million-op message).
/// From 4 MB a second thread reads the ops from the first `op {` line after the middle of the
/// text to its graph's end; the first thread adopts them when it reaches exactly that op (else
/// it reads on alone, as when the second thread gave up). `splitAt` (tests) forces that byte
/// offset (-1: chosen as said, 0: no second thread); `splitAdopted` says whether the second
/// thread's ops were used.
bool parseGeProtoTextDirect(const QByteArray &text, dumpscope::ge::ModelDef *model,
                            std::vector<std::vector<GraphNode>> *nodes, FastParseStop *stop,
                            QHash<int, QString> *unknownEnums, qsizetype splitAt = -1,
                            bool *splitAdopted = nullptr);

} // namespace ds::ge::detail
