#include "graphcommand.h"

#include "visdbcommand.h"

#include "dumpgraph/dumpmapping.h"
#include "dumpgraph/graphdiscovery.h"
#include "dumpgraph/modulegraph.h"
#include "index/buildindex.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <utility>

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

/// The counts of one module graph (modulegraph.h) and of the dump's ops linked to it: what the
/// GUI's Graph tab shows for a framework dump ("N operator(s)", "Linked: ...").
struct ModuleGraphCounts
{
    int nodes = 0, parameters = 0, modules = 0, groups = 0, edges = 0;
    int ops = 0, mappedOps = 0, nodesWithData = 0;
};

ModuleGraphCounts moduleGraphCounts(const GraphModel &model, const DumpIndex &index)
{
    ModuleGraphCounts c;
    const Graph *g = model.root();
    if (!g)
        return c;
    c.nodes = int(g->nodes.size());
    c.edges = int(g->edges.size());
    c.groups = int(g->groups.size());
    for (const GraphNode &n : g->nodes)
        c.parameters += n.attr(QString::fromLatin1(kModuleTensorAttr)) ? 1 : 0;
    for (const NameGroup &group : g->groups) // module calls; not the phases, prefixes or "optimizer"
        c.modules += group.label.startsWith(QLatin1String("Module.")) || group.label.startsWith(QLatin1String("Cell.")) ? 1 : 0;
    const DumpMapping mapping = mapModuleGraph(model, index);
    c.ops = int(mapping.consideredOps.size());
    c.mappedOps = c.ops - int(mapping.unmappedOps.size());
    if (!mapping.nodeOps.empty())
        for (const auto &ops : mapping.nodeOps.front())
            c.nodesWithData += ops.empty() ? 0 : 1;
    return c;
}

/// The module graphs of a framework dump: JSON entries and text lines.
void moduleGraphSection(const std::vector<GraphModel> &models, const DumpIndex &index, const QString &root, QJsonArray *json,
                        QString *text)
{
    if (models.empty())
        return;
    *text += QStringLiteral("module graphs of the framework dump (as the GUI's Graph tab draws them): %1\n")
                 .arg(models.size());
    for (const GraphModel &m : models) {
        const ModuleGraphCounts c = moduleGraphCounts(m, index);
        json->append(QJsonObject{{QStringLiteral("graph"), m.modelName}, {QStringLiteral("file"), shown(root, m.file)},
                                 {QStringLiteral("nodes"), c.nodes}, {QStringLiteral("parameters"), c.parameters},
                                 {QStringLiteral("modules"), c.modules}, {QStringLiteral("groups"), c.groups},
                                 {QStringLiteral("edges"), c.edges}, {QStringLiteral("ops"), c.ops},
                                 {QStringLiteral("mapped_ops"), c.mappedOps}, {QStringLiteral("nodes_with_data"), c.nodesWithData}});
        *text += QStringLiteral("  %1 (%2): %3 nodes (%4 parameters), %5 modules in %6 groups, %7 edges (call order)\n"
                                "    %8 of %9 operators mapped to nodes; %10 of %3 nodes have dump data\n")
                     .arg(m.modelName, shown(root, m.file))
                     .arg(c.nodes)
                     .arg(c.parameters)
                     .arg(c.modules)
                     .arg(c.groups)
                     .arg(c.edges)
                     .arg(c.mappedOps)
                     .arg(c.ops)
                     .arg(c.nodesWithData);
    }
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

    // The graph files of the dump and of the extra graph paths, else (as the GUI's Graph tab
    // shows them) msprobe's graph databases, else the module graphs of a framework dump.
    DiscoveredGraphs found = discoverGraphs(path, graphPaths, index.get());
    std::vector<GraphModel> moduleModels;
    if (found.moduleGraphs)
        moduleModels = std::exchange(found.models, {});
    // The graphs of msprobe's databases have their own section (visDbSection): only the models
    // read from GE files are ranked. Those come first, in file order.
    found.models.resize(size_t(std::count_if(found.files.begin(), found.files.end(), [](const GraphFileRead &f) { return f.model >= 0; })));
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
    QJsonArray moduleJson;
    QString moduleText;
    if (index)
        moduleGraphSection(moduleModels, *index, root, &moduleJson, &moduleText);
    *exitCode = models.empty() && msprobeGraphs.readable == 0 && moduleModels.empty() ? 1 : 0;

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
        doc.insert(QStringLiteral("module_graphs"), moduleJson);
        return QJsonDocument(doc).toJson(QJsonDocument::Indented);
    }

    QString text = QStringLiteral("GE graph files: %1\n").arg(found.files.size());
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
        text += QStringLiteral("computation graph: none (no readable GE graph file)\n");
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
    text += moduleText;
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
