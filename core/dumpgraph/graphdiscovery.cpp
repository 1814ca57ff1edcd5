#include "graphdiscovery.h"

#include "dumpgraph/modulegraph.h"
#include "dumpgraph/visdbgraph.h"
#include "dump/dumpindex.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QSet>
#include <algorithm>

namespace ds {

QStringList DiscoveredGraphs::errors() const
{
    QStringList out;
    for (const GraphFileRead &f : files)
        if (f.model < 0)
            out << f.error;
    return out + visDbErrors;
}

DiscoveredGraphs discoverGraphs(const QString &dumpPath, const QStringList &graphPaths, const DumpIndex *index,
                                const DiscoveryOptions &options, const JobControl *job)
{
    DiscoveredGraphs out;
    QStringList paths;
    if (!dumpPath.isEmpty())
        paths += ge::findGraphFiles(dumpPath);
    for (const QString &p : graphPaths)
        paths += ge::findGraphFiles(p);
    paths.removeDuplicates();
    std::vector<GraphFileRead> files;
    for (const QString &p : std::as_const(paths))
        if (const auto name = ge::parseGraphFileName(QFileInfo(p).fileName()))
            files.push_back({p, *name, -1, {}});
    std::stable_sort(files.begin(), files.end(), [](const GraphFileRead &a, const GraphFileRead &b) {
        if (a.name.index != b.name.index)
            return a.name.index < b.name.index;
        if (a.name.kind != b.name.kind) // ge_proto before the ge_onnx form of the same graph
            return a.name.kind == ge::GraphFileKind::GeProto;
        return a.path < b.path;
    });
    for (size_t i = 0; i < files.size(); ++i) {
        if (job && job->cancelled()) {
            out.cancelled = true;
            break;
        }
        auto r = ge::readGraphFile(files[i].path);
        if (r) {
            files[i].model = int(out.models.size());
            out.models.push_back(std::move(*r));
        } else {
            files[i].error = r.errorText();
        }
        if (job)
            job->report(int(1000 * (i + 1) / files.size()));
    }
    out.files = std::move(files);
    if (out.models.empty() && !out.cancelled) { // msprobe's graph databases
        if (!dumpPath.isEmpty())
            out.visDbFiles += visdb::findVisDbFiles(dumpPath);
        for (const QString &p : graphPaths)
            out.visDbFiles += visdb::findVisDbFiles(p);
        out.visDbFiles.removeDuplicates();
        for (const QString &file : std::as_const(out.visDbFiles)) {
            const auto db = visdb::readVisDb(file, job, visdb::VisDbRead{options.visDbRowsUpTo});
            if (db.isCancelled()) {
                out.cancelled = true;
                break;
            }
            if (!db) {
                out.visDbErrors << db.errorText();
                continue;
            }
            for (GraphModel &m : visDbGraphModels(*db))
                out.models.push_back(std::move(m));
        }
    }
    if (out.models.empty() && index && options.moduleFallback && !out.cancelled) {
        out.models = buildModuleGraphs(*index);
        out.moduleGraphs = !out.models.empty();
    }
    return out;
}

QStringList dumpModelNames(const DumpIndex &index)
{
    QStringList names;
    QSet<QString> seen;
    for (const auto &op : index.ops) {
        const QString &m = op.levels->modelName;
        if (!m.isEmpty() && !seen.contains(m)) {
            seen.insert(m);
            names << m;
        }
    }
    return names;
}

bool isGraphOnlyFolder(const QString &path, int maxEntries)
{
    const QFileInfo info(path);
    auto isGraphFile = [](const QString &name) { return ge::parseGraphFileName(name) || name.endsWith(QLatin1String(".vis.db"), Qt::CaseInsensitive); };
    if (info.isFile())
        return isGraphFile(info.fileName());
    if (!info.isDir())
        return false;
    QDirIterator it(path, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    int seen = 0;
    while (it.hasNext()) {
        if (++seen > maxEntries || !isGraphFile(QFileInfo(it.next()).fileName()))
            return false;
    }
    return seen > 0;
}

bool holdsGraphFiles(const QString &path)
{
    const QFileInfo info(path);
    if (info.isFile())
        return ge::parseGraphFileName(info.fileName()).has_value() || visdb::looksLikeVisDb(path);
    if (!visdb::findVisDbFiles(path).isEmpty())
        return true;
    QDirIterator it(path, {QStringLiteral("ge_proto_*"), QStringLiteral("ge_onnx_*")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        if (ge::parseGraphFileName(QFileInfo(it.next()).fileName()))
            return true;
    return false;
}

} // namespace ds
