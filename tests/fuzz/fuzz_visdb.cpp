// libFuzzer harness: an msprobe graph database (.vis.db, SQLite). SQLite reads files only, so
// the input is written to a scratch file and read as the Graph tab reads it: every row
// (readVisDb's eager read) and the node tree alone (deferred rows, rowsUpTo 0), each turned
// into graphs (visDbGraphModels: the node-index build, its groups and chain edges), their start
// node and stored levels, and the first nodes' rows fetched on demand (readVisDbNodeRows).
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
        const auto db = visdb::readVisDb(file, nullptr, read);
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
