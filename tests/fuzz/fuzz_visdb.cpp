// libFuzzer harness: an msprobe graph database (.vis.db, SQLite). SQLite reads files only, so
// the input is written to a scratch file and read as the Graph tab reads it: every row
// (readVisDb's eager read) and the node tree alone (deferred rows, rowsUpTo 0), each turned
// into graphs (visDbGraphModels: the node-index build, its groups and chain edges), their start
// node and stored levels, and the first nodes' rows fetched on demand (readVisDbNodeRows).
// Each read is also made on two threads split in the middle of the rows (VisDbRead::splitAt):
// it must give the same nodes, or fail as the one-thread read does.
// A bad database must give an error naming the file; nothing may crash or hang (up_node
// cycles, sub_nodes naming missing or repeated nodes, node_order out of range, bad JSON rows).
#include "dumpgraph/visdbgraph.h"
#include "formats/visdb/visdb.h"

#include "fuzzscratch.h"

#include <QDir>
#include <QFile>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <unistd.h>

using namespace ds;

namespace {

QString scratchDir() { return fuzz::scratchDir("fuzz_visdb"); }

void walkGraphs(const visdb::VisDatabase &db)
{
    const std::vector<GraphModel> models = visDbGraphModels(db);
    if (!models.empty() && (visDbFirstModel(models) < 0 || visDbFirstModel(models) >= int(models.size())))
        __builtin_trap();
    for (const GraphModel &model : models) {
        (void)visDbModelTitle(model);
        for (const Graph &g : model.graphs) {
            const NodeId start = visDbStartNode(g);
            if (start.isValid() && start.index() >= g.nodes.size())
                __builtin_trap();
            const NodeStatusColumn status = visDbStatus(g, NodeStatusRole::OverflowLevel);
            (void)status;
            for (const GraphEdge &e : g.edges)
                if (e.from.index() >= g.nodes.size() || e.to.index() >= g.nodes.size())
                    __builtin_trap();
            for (size_t n = 0; n < g.nodes.size() && n < 4; ++n) {
                const VisDbRowsKey key = visDbRowsKey(g, g.nodes[n]);
                if (!key.isValid())
                    continue;
                const auto rows = readVisDbNodeRows(key);
                if (!rows && rows.errorText().isEmpty())
                    __builtin_trap(); // a failed fetch says why
            }
        }
    }
}

bool sameNodes(const visdb::VisDatabase &a, const visdb::VisDatabase &b)
{
    if (a.graphs.size() != b.graphs.size())
        return false;
    for (std::size_t g = 0; g < a.graphs.size(); ++g) {
        const visdb::VisGraph &x = a.graphs[g], &y = b.graphs[g];
        if (x.source != y.source || x.root != y.root || x.dumpDataDir != y.dumpDataDir || x.nodes.size() != y.nodes.size())
            return false;
        for (std::size_t n = 0; n < x.nodes.size(); ++n)
            if (x.nodes[n].name != y.nodes[n].name || x.nodes[n].parent != y.nodes[n].parent || x.nodes[n].order != y.nodes[n].order
                || x.nodes[n].children != y.nodes[n].children || x.nodes[n].inputData != y.nodes[n].inputData)
                return false;
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, size_t size)
{
    const QString file = scratchDir() + QStringLiteral("/input.vis.db");
    {
        QFile f(file);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            std::abort();
        if (size && f.write(reinterpret_cast<const char *>(data), qint64(size)) != qint64(size))
            std::abort();
    }
    for (const qint64 rowsUpTo : {std::numeric_limits<qint64>::max(), qint64(0)}) {
        visdb::VisDbRead read;
        read.rowsUpTo = rowsUpTo;
        read.twoThreadsFrom = std::numeric_limits<qint64>::max();
        const auto db = visdb::readVisDb(file, nullptr, read);
        std::size_t rows = 0;
        for (const visdb::VisGraph &g : db ? db->graphs : std::vector<visdb::VisGraph>{})
            rows += g.nodes.size();
        read.splitAt = qint64(rows / 2);
        const auto split = visdb::readVisDb(file, nullptr, read);
        if (!split && (split.error().file != file || split.errorText().isEmpty()))
            __builtin_trap();
        if (db.ok() != split.ok() || (db && !sameNodes(*db, *split)))
            __builtin_trap(); // two threads read what one does
        if (!db) {
            if (db.error().file != file || db.errorText().isEmpty())
                __builtin_trap(); // errors name the file and say why
            continue;
        }
        walkGraphs(*db);
    }
    // Nothing beside the database: it is opened immutable and read-only.
    if (QDir(scratchDir()).entryList(QDir::Files).size() != 1)
        __builtin_trap();
    return 0;
}
