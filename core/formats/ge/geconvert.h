#pragma once

// ge_proto messages to the plain Graph the views use: one text per attribute, the descriptors'
// fields, names and types interned per thread. Shared by the TextFormat path (a whole ModelDef)
// and the direct reader (getextfastparser.cpp: one op at a time, from a reused scratch OpDef).

#include "formats/ge/geir.pb.h"
#include "graph/graph.h"

#include <QHash>
#include <QString>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ds::ge::detail {

QString qs(const std::string &s);
QString num(double v);

/// Converts ops on one thread. Types, layouts, dtype names and attribute keys are interned:
/// a million ops share a few hundred, so they are allocated once and the nodes share them.
/// `unknownEnums` (private dtype numbers -> names, see parseGeProtoTextFast) may grow between
/// calls; it is read, never written.
class OpConverter
{
public:
    explicit OpConverter(const QHash<int, QString> *unknownEnums);
    ~OpConverter();
    OpConverter(const OpConverter &) = delete;
    OpConverter &operator=(const OpConverter &) = delete;

    GraphNode convert(const dumpscope::ge::OpDef &op);

private:
    std::unique_ptr<std::unordered_map<std::string, QString>> m_interner;
    const QHash<int, QString> *m_unknownEnums;
};

/// One GraphDef: its header, its ops (converted over two threads from 20,000 ops) followed by
/// `more` (ops already converted by the direct reader), then Graph::build().
Graph convertGraph(const dumpscope::ge::GraphDef &g, const QHash<int, QString> *unknownEnums,
                   std::vector<GraphNode> &&more = {});

} // namespace ds::ge::detail
