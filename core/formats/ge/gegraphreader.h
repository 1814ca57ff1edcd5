#pragma once

#include "graph/graph.h"
#include "util/error.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>

namespace ds::ge {

enum class GraphFileKind { GeProto, GeOnnx };

/// The parts of a graph dump file name (ge-graph.md §2):
/// `ge_proto_{index}_{suffix}.txt`, `ge_proto_{index}_graph_{id}_{suffix}.txt`,
/// `ge_onnx_{index}_graph_{id}_{suffix}.pbtxt`.
struct GraphFileName
{
    GraphFileKind kind = GraphFileKind::GeProto;
    qint64 index = -1;
    int indexDigits = 0; ///< 8 in current GE, 5 in older builds
    QString graphId;     ///< "" when the name has no `graph_{id}` part
    QString suffix;      ///< the stage: "Build", "PreRunAfterBuild" ...
    QString extension;   ///< "txt" or "pbtxt"
};

/// Parses a base file name; nullopt when it is not a GE graph dump name.
std::optional<GraphFileName> parseGraphFileName(const QString &fileName);

/// Graph dump files for a path: the path itself when it is a graph file; for a directory, every
/// ge_proto_* / ge_onnx_* file below it (DUMP_GRAPH_PATH/{pid}_{deviceid} folders included);
/// when there is none below, the graph files next to it (its parent and the parent's
/// {pid}_{deviceid} folders). For a dump file, its directory is searched. Sorted by index (ge_proto before ge_onnx).
QStringList findGraphFiles(const QString &path);

/// Reads one graph file (kind chosen by its name; ge_proto when the name does not tell).
/// Unknown fields never fail: they are skipped and counted. A syntax error fails with
/// "<file>:<line>:<column>: <message>".
Result<GraphModel> readGraphFile(const QString &path);

/// Which reader parses ge_proto text: `Auto` tries the hand-written reader for the subset GE
/// writes and falls back to protobuf's TextFormat for anything outside it (so odd files read as
/// before); `FastOnly` fails where `Auto` would fall back (tests); `TextFormat` is the old path.
enum class GeTextReader { Auto, FastOnly, TextFormat };

/// `ge.proto.ModelDef` in protobuf text format. `fileLabel` names the file in messages.
/// `splitAt` (tests) is where the fast reader's second thread starts (see
/// detail::parseGeProtoTextDirect; -1: its own choice, from 4 MB); `splitAdopted` says whether
/// that thread's ops were used.
Result<GraphModel> parseGeProtoText(const QByteArray &text, const QString &fileLabel,
                                    GeTextReader reader = GeTextReader::Auto, qsizetype splitAt = -1,
                                    bool *splitAdopted = nullptr);

/// Text-format ONNX ModelProto as GE writes it (ge-graph.md §8); reducedFidelity is set.
Result<GraphModel> parseGeOnnxText(const QByteArray &text, const QString &fileLabel);

/// Name of a `ge::DataType` (C++ numbering, cann-dump.md §6.3), as used by AttrDef.dt.
QString cppDataTypeName(qint64 value);

} // namespace ds::ge
