#include "graphcommand.h"

#include "visdbcommand.h"

#include "dumpgraph/dumpmapping.h"
#include "dumpgraph/graphdiscovery.h"
#include "index/buildindex.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace ds {

namespace {

QString shown(const QString &root, const QString &file)
{
    const QString rel = QDir(root).relativeFilePath(file);
    return rel.startsWith(QLatin1String("..")) ? file : rel;
}

QJsonArray nodeList(const GraphModel &model, const std::vector<GraphNodeRef> &refs)
{
    QJsonArray a;
    for (const auto &r : refs) {
        const Graph &g = model.graphs[size_t(r.graph)];
        const GraphNode &n = g.node(r.node);
        a.append(QJsonObject{{QStringLiteral("node"), n.name}, {QStringLiteral("type"), n.type}, {QStringLiteral("graph"), g.name}});
    }
    return a;
}

QJsonArray opList(const DumpIndex &index, const std::vector<int> &ops)
{
    QJsonArray a;
    for (int o : ops)
        a.append(index.ops[size_t(o)].relPath.toString());
    return a;
}

QString nodeLine(const GraphModel &model, const GraphNodeRef &r)
{
    const Graph &g = model.graphs[size_t(r.graph)];
    const GraphNode &n = g.node(r.node);
    return QStringLiteral("    %1 [%2]%3\n").arg(n.name, n.type, r.graph > 0 ? QStringLiteral(" in sub-graph ") + g.name : QString());
}

} // namespace

QByteArray graphReport(const QString &path, const QStringList &graphPaths, bool asJson, int *exitCode)
{
    const QFileInfo info(path);
    if (!info.exists()) {
        *exitCode = 3;
        return QStringLiteral("no such file or directory: %1\n").arg(path).toUtf8();
    }
    for (const QString &g : graphPaths)
        if (!QFileInfo::exists(g)) {
            *exitCode = 3;
            return QStringLiteral("no such file or directory: %1\n").arg(g).toUtf8();
        }
    const QString root = info.isDir() ? info.absoluteFilePath() : info.absolutePath();

    // The dump at PATH (a graph file alone is no dump).
    std::shared_ptr<DumpIndex> index;
    if (info.isDir() || !ge::parseGraphFileName(info.fileName())) {
        auto built = buildIndex(path);
        if (built && !(*built)->ops.empty())
            index = *built;
    }
    const QStringList dumpModels = index ? dumpModelNames(*index) : QStringList();

    // The graph files of the dump and of the extra graph paths (GE only: no module graphs here).
    DiscoveryOptions discovery;
    discovery.moduleFallback = false;
    const DiscoveredGraphs found = discoverGraphs(path, graphPaths, index.get(), discovery);
    const std::vector<GraphModel> &models = found.models;
    std::vector<size_t> fileOfModel(models.size());
    for (size_t i = 0; i < found.files.size(); ++i)
        if (found.files[i].model >= 0)
            fileOfModel[size_t(found.files[i].model)] = i;
    auto shownPath = [&](const GraphFileRead &f) { return shown(root, f.path); };
    const auto candidates = rankComputationGraphs(models, dumpModels);
    const GraphModel *chosen = candidates.empty() ? nullptr : &models[size_t(candidates.front().model)];
    std::optional<DumpMapping> mapping;
    if (chosen && index)
        mapping = mapDumpToGraph(*chosen, *index);
    const VisDbSection msprobeGraphs = visDbSection(path, root);
    *exitCode = models.empty() && msprobeGraphs.readable == 0 ? 1 : 0;

    if (asJson) {
        QJsonObject doc;
        doc.insert(QStringLiteral("path"), info.absoluteFilePath());
        QJsonArray graphs;
        for (const auto &f : found.files) {
            QJsonObject g{{QStringLiteral("file"), shownPath(f)},
                          {QStringLiteral("kind"), f.name.kind == ge::GraphFileKind::GeOnnx ? QStringLiteral("ge_onnx") : QStringLiteral("ge_proto")},
                          {QStringLiteral("index"), double(f.name.index)},
                          {QStringLiteral("stage"), f.name.suffix}};
            if (f.model < 0) {
                g.insert(QStringLiteral("error"), f.error);
            } else {
                const GraphModel &m = models[size_t(f.model)];
                const Graph *r = m.root();
                g.insert(QStringLiteral("model_name"), m.modelName);
                g.insert(QStringLiteral("graph"), r ? r->name : QString());
                g.insert(QStringLiteral("nodes"), r ? int(r->nodes.size()) : 0);
                g.insert(QStringLiteral("edges"), r ? int(r->edges.size()) : 0);
                g.insert(QStringLiteral("data_edges"), r ? r->dataEdgeCount() : 0);
                g.insert(QStringLiteral("control_edges"), r ? r->controlEdgeCount() : 0);
                QJsonArray subs;
                for (size_t s = 1; s < m.graphs.size(); ++s)
                    subs.append(QJsonObject{{QStringLiteral("name"), m.graphs[s].name},
                                            {QStringLiteral("nodes"), int(m.graphs[s].nodes.size())},
                                            {QStringLiteral("edges"), int(m.graphs[s].edges.size())}});
                g.insert(QStringLiteral("subgraphs"), subs);
                g.insert(QStringLiteral("unknown_fields"), m.unknownFields);
                g.insert(QStringLiteral("reduced_fidelity"), m.reducedFidelity);
            }
            graphs.append(g);
        }
        doc.insert(QStringLiteral("graphs"), graphs);
        if (chosen) {
            QJsonArray cands;
            for (const auto &c : candidates) {
                const auto &m = models[size_t(c.model)];
                cands.append(QJsonObject{{QStringLiteral("file"), shownPath(found.files[fileOfModel[size_t(c.model)]])},
                                         {QStringLiteral("graph"), m.root() ? m.root()->name : QString()},
                                         {QStringLiteral("reason"), c.reason}});
            }
            QJsonObject cg = cands.first().toObject();
            cg.insert(QStringLiteral("candidates"), cands);
            doc.insert(QStringLiteral("computation_graph"), cg);
        } else {
            doc.insert(QStringLiteral("computation_graph"), QJsonValue::Null);
        }
        if (index && mapping) {
            const auto &mp = *mapping;
            doc.insert(QStringLiteral("dump"),
                       QJsonObject{{QStringLiteral("ops"), int(index->ops.size())},
                                   {QStringLiteral("model_folders"), QJsonArray::fromStringList(mp.modelFolders)},
                                   {QStringLiteral("mapped_ops"), int(mp.consideredOps.size() - mp.unmappedOps.size())},
                                   {QStringLiteral("nodes_without_dump"), nodeList(*chosen, mp.missingNodes)},
                                   {QStringLiteral("no_dump_expected"), nodeList(*chosen, mp.noDumpExpectedNodes)},
                                   {QStringLiteral("dumps_without_node"), opList(*index, mp.unmappedOps)},
                                   {QStringLiteral("ambiguous"), opList(*index, mp.ambiguousOps)},
                                   {QStringLiteral("stream_mismatch"), opList(*index, mp.streamMismatchOps)}});
        } else {
            doc.insert(QStringLiteral("dump"), QJsonValue::Null);
        }
        doc.insert(QStringLiteral("msprobe_graphs"), msprobeGraphs.json);
        return QJsonDocument(doc).toJson(QJsonDocument::Indented);
    }

    QString text = QStringLiteral("graph files: %1\n").arg(found.files.size());
    for (const auto &f : found.files) {
        if (f.model < 0) {
            text += QStringLiteral("  [%1] %2  %3\n    error: %4\n").arg(f.name.index).arg(f.name.suffix, shownPath(f), f.error);
            continue;
        }
        const GraphModel &m = models[size_t(f.model)];
        const Graph *r = m.root();
        text += QStringLiteral("  [%1] %2  %3\n    graph %4: %5 nodes, %6 edges (%7 control), %8 sub-graph(s), %9 unknown field(s)%10\n")
                    .arg(f.name.index)
                    .arg(f.name.suffix, shownPath(f), r ? r->name : QStringLiteral("-"))
                    .arg(r ? r->nodes.size() : 0)
                    .arg(r ? r->edges.size() : 0)
                    .arg(r ? r->controlEdgeCount() : 0)
                    .arg(m.graphs.empty() ? 0 : m.graphs.size() - 1)
                    .arg(m.unknownFields)
                    .arg(m.reducedFidelity ? QStringLiteral(", reduced fidelity (ONNX)") : QString());
    }
    if (!chosen) {
        text += QStringLiteral("computation graph: none (no readable graph file)\n");
    } else {
        text += QStringLiteral("computation graph: %1 (%2)\n  %3\n")
                    .arg(shownPath(found.files[fileOfModel[size_t(candidates.front().model)]]),
                         chosen->root() ? chosen->root()->name : QString(), candidates.front().reason);
        for (size_t c = 1; c < candidates.size(); ++c)
            text += QStringLiteral("  other: %1  %2\n").arg(shownPath(found.files[fileOfModel[size_t(candidates[c].model)]]), candidates[c].reason);
    }
    if (index && mapping) {
        const auto &mp = *mapping;
        text += QStringLiteral("dump: %1 operator file(s); %2 in model folder(s) %3, %4 mapped to nodes\n")
                    .arg(index->ops.size())
                    .arg(mp.consideredOps.size())
                    .arg(mp.modelFolders.isEmpty() ? QStringLiteral("(none matches the graph)") : mp.modelFolders.join(QStringLiteral(", ")))
                    .arg(mp.consideredOps.size() - mp.unmappedOps.size());
        text += QStringLiteral("  nodes without dump data: %1\n").arg(mp.missingNodes.size());
        for (const auto &r : mp.missingNodes)
            text += nodeLine(*chosen, r);
        text += QStringLiteral("  nodes with no dump expected: %1\n").arg(mp.noDumpExpectedNodes.size());
        text += QStringLiteral("  dump files without a graph node: %1\n").arg(mp.unmappedOps.size());
        for (int o : mp.unmappedOps)
            text += QStringLiteral("    %1\n").arg(index->ops[size_t(o)].relPath);
        for (int o : mp.ambiguousOps)
            text += QStringLiteral("  ambiguous (several nodes): %1\n").arg(index->ops[size_t(o)].relPath);
        for (int o : mp.streamMismatchOps)
            text += QStringLiteral("  warning: stream id differs from the graph: %1\n").arg(index->ops[size_t(o)].relPath);
    }
    if (!msprobeGraphs.json.isEmpty())
        text += QStringLiteral("msprobe graph databases: %1\n").arg(msprobeGraphs.json.size()) + msprobeGraphs.text;
    return text.toUtf8();
}

int runGraphCommand(const QString &path, const QStringList &graphPaths, bool asJson)
{
    int code = 0;
    const QByteArray report = graphReport(path, graphPaths, asJson, &code);
    std::FILE *stream = code == 3 ? stderr : stdout;
    std::fwrite(report.constData(), 1, size_t(report.size()), stream);
    return code;
}

} // namespace ds
