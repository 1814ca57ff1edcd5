#pragma once

#include "formats/ge/gegraphreader.h"
#include "graph/graph.h"
#include "util/cancel.h"

#include <QString>
#include <QStringList>
#include <limits>
#include <vector>

namespace ds {

class DumpIndex;

/// One graph file found for a dump or added by the user.
struct GraphFileRead
{
    QString path;            ///< absolute
    ge::GraphFileName name;
    int model = -1;          ///< index into DiscoveredGraphs::models, -1 when unreadable
    QString error;           ///< "<file>:<line>:<column>: <message>" when unreadable
};

/// The graphs that belong to an opened dump (the one graph-discovery function of the CLI
/// `graph` command and the GUI's Graph tab).
struct DiscoveredGraphs
{
    std::vector<GraphFileRead> files; ///< every GE graph file found, sorted by index (ge_proto first)
    std::vector<GraphModel> models;   ///< readable GE graphs in file order; else the graphs of msprobe's
                                      ///< graph databases (.vis.db), one per side, step and rank; else the module graphs
    QStringList visDbFiles;           ///< msprobe graph databases found
    QStringList visDbErrors;          ///< "<file>: <message>" for databases that could not be read
    bool moduleGraphs = false;        ///< models are buildModuleGraphs() of the dump (no GE file was readable)
    bool cancelled = false;

    QStringList errors() const;
};

struct DiscoveryOptions
{
    /// Without a readable GE graph file, the module hierarchy of a framework dump (msprobe,
    /// ptdbg) in the index.
    bool moduleFallback = true;
    /// Above this many nodes a graph database's input and output rows are left in the file
    /// and read per node when shown (visdb::VisDbRead::rowsUpTo, readVisDbNodeRows); the
    /// default reads them all, as the CLI does.
    qint64 visDbRowsUpTo = std::numeric_limits<qint64>::max();
};

/// The GE graph files for a dump: ge::findGraphFiles(dumpPath) (in the dump, below it, or
/// next to it) plus every file found at `graphPaths` (graph files or folders the user gave:
/// "Add graph folder…", the CLI's extra paths), without duplicates, sorted by file index;
/// each read with ge::readGraphFile. Without a readable GE graph, the msprobe graph databases
/// (*.vis.db) in the dump or at `graphPaths` (visdb::findVisDbFiles). `dumpPath` may be empty
/// (graph folders alone). With `index` and moduleFallback, a dump with neither gets its module graphs.
/// Runs on the calling thread (call it from a worker); stops between files when cancelled.
DiscoveredGraphs discoverGraphs(const QString &dumpPath, const QStringList &graphPaths, const DumpIndex *index,
                                const DiscoveryOptions &options = {}, const JobControl *job = nullptr);

/// The distinct model_name folders of the ops of `index`, in first-seen order (the names
/// the computation-graph choice prefers, rankComputationGraphs).
QStringList dumpModelNames(const DumpIndex &index);

/// True when `path` is a GE graph file or an msprobe graph database, or a folder whose files
/// are all such files (at
/// least one; the walk gives up, saying false, after `maxEntries` entries): a path to open as a
/// graph folder rather than to index as a dump. Reads directory entries only.
bool isGraphOnlyFolder(const QString &path, int maxEntries = 500);

/// True when `path` holds GE graph files (ge::findGraphFiles finds some in or below it) or
/// msprobe graph databases:
/// a folder opened as another path is then a graph folder, not a dump. Touches the file
/// system: call it from a worker.
bool holdsGraphFiles(const QString &path);

} // namespace ds
