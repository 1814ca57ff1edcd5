#pragma once

#include "util/cancel.h"
#include "util/error.h"

#include <QString>
#include <QStringList>
#include <limits>
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
    QString inputData, outputData; ///< JSON objects keyed by row name (every value a string); "" when deferred
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
    /// The nodes' input_data / output_data were not read (VisDbRows::OnDemand): readVisNodeData
    /// reads a node's when it is shown.
    bool rowsDeferred = false;
};

/// What readVisDb reads of every node: the node tree and its state only are what the graph,
/// its colours and its first view need; a node's input and output rows are what its inspector
/// and tooltip show, and they are ~90 % of a database.
struct VisDbRead
{
    /// Read every node's input_data / output_data as well when the database holds at most this
    /// many nodes (the default: always); above it they are left for readVisNodeData, and so
    /// are what the graph does not show: micro_step_id, stack_id, is_distributed (0, "", false)
    /// and a build database's matched_node_link (msprobe links nodes in compare databases only).
    qint64 rowsUpTo = std::numeric_limits<qint64>::max();
    /// A node table of at least this many rows is read on two threads (two read-only
    /// connections, each walking one half of index3: the same rows in the same order).
    qint64 twoThreadsFrom = 100000;
    /// Where the second thread starts (a row of the index3 walk); -1: the middle. For tests.
    qint64 splitAt = -1;
};

/// The input_data and output_data JSON of one node of a database.
struct VisNodeData
{
    QString inputData, outputData;
};

/// Cheap check: the name ends in ".vis.db", or the file starts with the SQLite header and
/// its name ends in ".db".
bool looksLikeVisDb(const QString &path);

/// The graph databases at `path`: the file itself, or every *.vis.db file below a directory
/// (at most 8 levels down), sorted by path.
QStringList findVisDbFiles(const QString &path);

/// Reads a graph database written by msprobe's `graph_visualize` (build or compare) through
/// SQLite's C API (UTF-8 rows, no Qt SQL). The file is opened read-only as an immutable URI, so SQLite writes
/// nothing (msprobe writes its databases in WAL mode: an ordinary open, even a read-only one,
/// would create `-wal` and `-shm` files beside it, inside the dump folder). Fails with an error
/// naming the file when it is not an SQLite database or lacks msprobe's tables.
/// With `read.rowsUpTo` below the node count, the nodes' rows are not read (rowsDeferred).
Result<VisDatabase> readVisDb(const QString &path, const JobControl *job = nullptr, const VisDbRead &read = {});

/// One node's input_data and output_data (the node of that graph with that node_order and
/// node_name), read through msprobe's index3 (step, rank, data_source, node_order): what a node
/// of a database read with deferred rows shows. Safe on any thread (its own read-only
/// connection). NotFound when the database has no such node.
Result<VisNodeData> readVisNodeData(const QString &path, const QString &source, int step, int rank, int nodeOrder,
                                    const QString &nodeName);

/// The level of a precision index in the database's colour bands ("pass", "warning", "error"),
/// "" when no band holds it.
QString precisionLevel(const VisDatabase &db, double index);

} // namespace ds::visdb
