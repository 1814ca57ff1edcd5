#pragma once

#include "util/cancel.h"
#include "util/error.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace ds::visdb {

/// One node of msprobe's graph database (`tb_nodes`, msprobe 26 `graph_visualize`).
struct VisNode
{
    QString name;           ///< node_name: "Functional.linear.0.forward", "Module.fc1.Linear.forward.0"
    int nodeType = 0;       ///< 0 module (and the root DefaultModel), 1 API, 9 APIs between modules
    QString parent;         ///< up_node ("" for the root)
    QStringList children;   ///< sub_nodes, in order
    int order = 0;          ///< node_order
    int microStep = 0;
    std::optional<double> precisionIndex; ///< compare graphs: 0 pass .. 1 error (NULL: no data)
    QString overflowLevel;  ///< build graphs with overflow check: "medium", "high", "critical" or ""
    QStringList matchedPath; ///< matched_node_link: the other side's node path, root first
    QString stackId;
    bool distributed = false; ///< a communication op (is_distributed)
    QString inputData, outputData; ///< JSON objects keyed by row name (every value a string)
};

/// The nodes of one side of one step and rank (graph_id `<source>_<step>_<rank>`).
struct VisGraph
{
    QString source; ///< "NPU" or "Bench"
    int step = 0, rank = 0;
    std::vector<VisNode> nodes; ///< by node_order
    QString root;   ///< the node without a parent ("DefaultModel")
    QString dumpDataDir; ///< the first non-empty dump_data_dir of its nodes (tensor dumps only)
};

/// A colour band of a compare graph (tb_config.node_colors).
struct VisColor
{
    QString color;  ///< "#FF704D"
    double lo = 0, hi = 0;
    bool hasRange = false;
    QString level;  ///< accuracy_level: "pass", "warning", "error", "unmatched node"
};

struct VisDatabase
{
    QString file;
    QString graphType;      ///< "build" or "compare"
    QString task;           ///< compare: "summary" (statistics), "all" (tensor), "md5"
    bool overflowCheck = false;
    std::vector<VisColor> colors;
    std::vector<int> steps, ranks;
    std::vector<VisGraph> graphs; ///< by source (NPU first), step, rank
    int stackCount = 0;
};

/// Cheap check: the name ends in ".vis.db", or the file starts with the SQLite header and
/// its name ends in ".db".
bool looksLikeVisDb(const QString &path);

/// The graph databases at `path`: the file itself, or every *.vis.db file below a directory
/// (at most 8 levels down), sorted by path.
QStringList findVisDbFiles(const QString &path);

/// Reads a graph database written by msprobe's `graph_visualize` (build or compare) through
/// Qt SQL's SQLite driver. The file is opened read-only as an immutable URI, so SQLite writes
/// nothing (msprobe writes its databases in WAL mode: an ordinary open, even a read-only one,
/// would create `-wal` and `-shm` files beside it, inside the dump folder). Fails with an error
/// naming the file when it is not an SQLite database or lacks msprobe's tables.
Result<VisDatabase> readVisDb(const QString &path, const JobControl *job = nullptr);

/// The level of a precision index in the database's colour bands ("pass", "warning", "error"),
/// "" when no band holds it.
QString precisionLevel(const VisDatabase &db, double index);

} // namespace ds::visdb
