// msprobe graph databases (.vis.db) written by the real msprobe 26.0.0 `graph_visualize`
// (samples/msprobe_real/graph): read through Qt SQL, checked against what Python's sqlite3
// read from the same files (samples/msprobe_real/expected.json "graphs", written by the corpus
// tools, not by DumpScope).
#include "runcorpus.h"

#include "dumpgraph/visdbgraph.h"
#include "formats/visdb/visdb.h"
#include "index/buildindex.h"
#include "visdbcommand.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace ds;

namespace {

const QString kCorpus = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real");

QJsonObject expectedGraphs()
{
    QFile f(kCorpus + QStringLiteral("/expected.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("graphs")).toObject();
}

std::vector<int> ints(const QJsonValue &v)
{
    std::vector<int> out;
    for (const QJsonValue &x : v.toArray())
        out.push_back(x.toInt());
    return out;
}

const visdb::VisGraph *findGraph(const visdb::VisDatabase &db, const QString &source, int step, int rank)
{
    for (const auto &g : db.graphs)
        if (g.source == source && g.step == step && g.rank == rank)
            return &g;
    return nullptr;
}

QByteArray folderState(const QString &dir)
{
    QCryptographicHash h(QCryptographicHash::Sha256);
    for (const QFileInfo &f : QDir(dir).entryInfoList(QDir::Files | QDir::Hidden, QDir::Name)) {
        h.addData(f.fileName().toUtf8());
        QFile file(f.absoluteFilePath());
        if (file.open(QIODevice::ReadOnly))
            h.addData(file.readAll());
    }
    return h.result();
}

/// The graph_visualize command that wrote a database of the corpus (expected.json
/// producer.commands): its -tp and -gp runs ("dumps/npu_weight_tensor_mix"), by -o folder.
std::pair<QString, QString> producerRuns(const QString &key)
{
    for (const QJsonValue &c : runcorpus::expected().value(QStringLiteral("producer")).toObject().value(QStringLiteral("commands")).toArray()) {
        const QStringList args = c.toString().split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (!args.contains(QStringLiteral("graph_visualize")) || !args.contains(QStringLiteral("graph/") + key))
            continue;
        const qsizetype tp = args.indexOf(QStringLiteral("-tp")), gp = args.indexOf(QStringLiteral("-gp"));
        return {tp >= 0 ? args.value(tp + 1) : QString(), gp >= 0 ? args.value(gp + 1) : QString()};
    }
    qFatal("no graph_visualize command for %s", qPrintable(key));
    return {};
}

} // namespace

class TestVisDb : public QObject
{
    Q_OBJECT
private slots:
    void readsEveryDatabase_data()
    {
        QTest::addColumn<QString>("key");
        const QJsonObject graphs = expectedGraphs();
        QVERIFY2(graphs.size() >= 3, "the corpus lists at least 3 graph databases");
        for (const QString &key : graphs.keys())
            QTest::addRow("%s", qPrintable(key)) << key;
    }
    void readsEveryDatabase()
    {
        QFETCH(QString, key);
        const QJsonObject want = expectedGraphs().value(key).toObject();
        const QString file = kCorpus + QLatin1Char('/') + want.value(QStringLiteral("file")).toString();
        const QString dir = QFileInfo(file).absolutePath();
        const QByteArray before = folderState(dir);
        const auto db = visdb::readVisDb(file);
        QVERIFY2(db.ok(), qPrintable(db.errorText()));
        // Read-only and immutable: nothing new beside the database (msprobe writes WAL databases).
        QCOMPARE(folderState(dir), before);

        const QJsonObject config = want.value(QStringLiteral("config")).toObject();
        QCOMPARE(db->graphType, config.value(QStringLiteral("graph_type")).toString());
        QCOMPARE(db->task, config.value(QStringLiteral("task")).toString());
        QCOMPARE(db->overflowCheck, config.value(QStringLiteral("overflow_check")).toInt() != 0);
        QCOMPARE(db->steps, ints(config.value(QStringLiteral("step_list"))));
        QCOMPARE(db->ranks, ints(config.value(QStringLiteral("rank_list"))));
        if (db->graphType == QLatin1String("compare")) {
            QCOMPARE(db->colors.size(), size_t(config.value(QStringLiteral("node_colors")).toObject().size()));
            QCOMPARE(visdb::precisionLevel(*db, 0.5), QStringLiteral("warning"));
        }

        // Node counts per step, rank and side.
        const QJsonObject nodes = want.value(QStringLiteral("nodes")).toObject();
        QCOMPARE(db->graphs.size(), size_t(nodes.size()));
        for (auto it = nodes.begin(); it != nodes.end(); ++it) {
            const QStringList parts = it.key().split(QLatin1Char('/')); // step0/rank1/NPU
            const auto *g = findGraph(*db, parts[2], parts[0].mid(4).toInt(), parts[1].mid(4).toInt());
            QVERIFY2(g, qPrintable(it.key()));
            QCOMPARE(int(g->nodes.size()), it.value().toInt());
            QCOMPARE(g->root, QStringLiteral("DefaultModel"));
        }

        // Overflow levels, exactly the nodes msprobe marked.
        std::set<std::tuple<int, int, QString, QString>> wantOverflow, gotOverflow;
        for (const QJsonValue &v : want.value(QStringLiteral("overflow_nodes")).toArray()) {
            const QJsonObject o = v.toObject();
            wantOverflow.insert({o.value(QStringLiteral("step")).toInt(), o.value(QStringLiteral("rank")).toInt(),
                                 o.value(QStringLiteral("node")).toString(), o.value(QStringLiteral("level")).toString()});
        }
        for (const auto &g : db->graphs)
            for (const auto &n : g.nodes)
                if (!n.overflowLevel.isEmpty())
                    gotOverflow.insert({g.step, g.rank, n.name, n.overflowLevel});
        QCOMPARE(gotOverflow, wantOverflow);

        // Precision index of every NPU node with one.
        const QJsonObject precision = want.value(QStringLiteral("npu_precision_index")).toObject();
        int checked = 0;
        for (auto it = precision.begin(); it != precision.end(); ++it) {
            const QStringList parts = it.key().split(QLatin1Char('/'));
            const auto *g = findGraph(*db, QStringLiteral("NPU"), parts[0].mid(4).toInt(), parts[1].mid(4).toInt());
            QVERIFY(g);
            const QJsonObject perNode = it.value().toObject();
            int withIndex = 0;
            for (const auto &n : g->nodes) {
                if (!n.precisionIndex)
                    continue;
                ++withIndex;
                QVERIFY2(perNode.contains(n.name), qPrintable(n.name));
                QCOMPARE(*n.precisionIndex, perNode.value(n.name).toDouble());
                ++checked;
            }
            QCOMPARE(withIndex, perNode.size());
        }
        if (db->graphType == QLatin1String("compare"))
            QVERIFY(checked >= 60);
    }

    void graphModelsKeepHierarchyAndState()
    {
        const QJsonObject graphs = expectedGraphs();
        for (const QString &key : graphs.keys()) {
            const auto db = visdb::readVisDb(kCorpus + QLatin1Char('/') + graphs.value(key).toObject().value(QStringLiteral("file")).toString());
            QVERIFY(db.ok());
            const auto models = visDbGraphModels(*db);
            QCOMPARE(models.size(), db->graphs.size());
            for (size_t m = 0; m < models.size(); ++m) {
                const visdb::VisGraph &vg = db->graphs[m];
                const Graph &g = *models[m].root();
                QCOMPARE(models[m].stage, QString::fromLatin1(kVisDbStage));
                QCOMPARE(models[m].modelName, QStringLiteral("%1 step%2 rank%3").arg(vg.source).arg(vg.step).arg(vg.rank));
                // Every database node but the root and the API groups is one graph node.
                int expectedNodes = 0;
                for (const auto &n : vg.nodes)
                    expectedNodes += n.name != vg.root && n.nodeType != 9;
                QCOMPARE(int(g.nodes.size()), expectedNodes);
                for (const GraphNode &n : g.nodes) {
                    const GraphAttr *vis = n.attr(QString::fromLatin1(kVisNodeAttr));
                    QVERIFY(vis);
                    const auto it = std::find_if(vg.nodes.begin(), vg.nodes.end(), [&](const visdb::VisNode &v) { return v.name == vis->value; });
                    QVERIFY(it != vg.nodes.end());
                    // Its parent (below the root) is the innermost group of the node.
                    if (it->parent != vg.root) {
                        QVERIFY(n.group.isValid());
                        QCOMPARE(g.group(n.group).label, it->children.isEmpty() ? it->parent : it->name);
                    }
                    const GraphAttr *overflow = n.attr(QString::fromLatin1(kVisOverflowAttr));
                    QCOMPARE(overflow ? overflow->value : QString(), it->overflowLevel);
                    const GraphAttr *precision = n.attr(QString::fromLatin1(kVisPrecisionAttr));
                    QCOMPARE(bool(precision), bool(it->precisionIndex));
                    // Inputs and outputs keep msprobe's row names.
                    if (!it->outputData.isEmpty() && it->outputData != QLatin1String("{}")) {
                        QVERIFY(!n.outputDescs.empty());
                        QVERIFY2(n.outputDescs.front().name.startsWith(it->name + QLatin1Char('.')), qPrintable(n.outputDescs.front().name));
                    }
                }
                // Call-order edges: every node but the first of the graph is reached.
                QVERIFY(g.edges.size() + 1 >= g.nodes.size());
            }
        }
    }

    // Every node's input and output rows are the JSON msprobe stored in input_data /
    // output_data, read here by Qt's own JSON parser: the row names, every key and every value
    // (sorted by name, as QJsonObject orders them). The reader takes them with RapidJSON.
    void rowsAreWhatMsprobeWrote()
    {
        const QJsonObject graphs = expectedGraphs();
        int rows = 0;
        for (const QString &key : graphs.keys()) {
            const auto db = visdb::readVisDb(kCorpus + QLatin1Char('/') + graphs.value(key).toObject().value(QStringLiteral("file")).toString());
            QVERIFY(db.ok());
            const auto models = visDbGraphModels(*db);
            for (size_t m = 0; m < models.size(); ++m) {
                const visdb::VisGraph &vg = db->graphs[m];
                for (const GraphNode &n : models[m].root()->nodes) {
                    const QString name = n.attr(QString::fromLatin1(kVisNodeAttr))->value;
                    const auto it = std::find_if(vg.nodes.begin(), vg.nodes.end(), [&](const visdb::VisNode &v) { return v.name == name; });
                    QVERIFY(it != vg.nodes.end());
                    for (const auto &[json, got] : {std::pair{it->inputData, &n.inputDescs}, std::pair{it->outputData, &n.outputDescs}}) {
                        const QJsonObject stored = QJsonDocument::fromJson(json.toUtf8()).object();
                        QCOMPARE(qsizetype(got->size()), stored.size());
                        QStringList storedNames = stored.keys();
                        storedNames.sort();
                        for (size_t r = 0; r < got->size(); ++r) {
                            const GraphTensorDesc &row = (*got)[r];
                            QCOMPARE(row.name, storedNames[qsizetype(r)]);
                            const QJsonObject leaf = stored.value(row.name).toObject();
                            QCOMPARE(row.dtypeName, leaf.value(QStringLiteral("dtype")).toString());
                            QCOMPARE(qsizetype(row.attrs.size()), leaf.size());
                            QStringList leafKeys = leaf.keys();
                            leafKeys.sort();
                            for (size_t a = 0; a < row.attrs.size(); ++a) {
                                QCOMPARE(row.attrs[a].key, leafKeys[qsizetype(a)]);
                                QCOMPARE(row.attrs[a].kind, QStringLiteral("s"));
                                QCOMPARE(row.attrs[a].value, leaf.value(row.attrs[a].key).toString());
                            }
                            ++rows;
                        }
                    }
                }
            }
        }
        QVERIFY(rows > 100);
    }

    // A database read with deferred rows (what the Graph tab does above a size) holds the node
    // tree and its state only: no input_data / output_data is read at open. A node's rows are
    // read when asked, and are then exactly the rows the eager read gives (which
    // rowsAreWhatMsprobeWrote checks against msprobe's JSON). The same graphs otherwise.
    void rowsReadOnDemandEqualTheEagerRead()
    {
        const QJsonObject graphs = expectedGraphs();
        int rows = 0;
        for (const QString &key : graphs.keys()) {
            const QString file = kCorpus + QLatin1Char('/') + graphs.value(key).toObject().value(QStringLiteral("file")).toString();
            const auto eager = visdb::readVisDb(file);
            const auto lazy = visdb::readVisDb(file, nullptr, visdb::VisDbRead{0});
            const auto above = visdb::readVisDb(file, nullptr, visdb::VisDbRead{1000000});
            QVERIFY(eager.ok() && lazy.ok() && above.ok());
            QVERIFY(!eager->rowsDeferred);
            QVERIFY(!above->rowsDeferred); // at most rowsUpTo nodes: read as before
            QVERIFY(lazy->rowsDeferred);
            QCOMPARE(lazy->graphs.size(), eager->graphs.size());
            for (size_t g = 0; g < lazy->graphs.size(); ++g) {
                QCOMPARE(lazy->graphs[g].nodes.size(), eager->graphs[g].nodes.size());
                QCOMPARE(above->graphs[g].nodes.size(), eager->graphs[g].nodes.size());
                for (size_t n = 0; n < lazy->graphs[g].nodes.size(); ++n) {
                    const visdb::VisNode &l = lazy->graphs[g].nodes[n], &e = eager->graphs[g].nodes[n];
                    QVERIFY(l.inputData.isEmpty() && l.outputData.isEmpty()); // not read at open
                    QCOMPARE(above->graphs[g].nodes[n].outputData, e.outputData);
                    QCOMPARE(l.name, e.name);
                    QCOMPARE(l.children, e.children);
                    QCOMPARE(l.matchedPath, e.matchedPath);
                    QCOMPARE(l.overflowLevel, e.overflowLevel);
                    QCOMPARE(l.precisionIndex, e.precisionIndex);
                }
            }
            const auto eagerModels = visDbGraphModels(*eager);
            const auto lazyModels = visDbGraphModels(*lazy);
            QCOMPARE(lazyModels.size(), eagerModels.size());
            for (size_t m = 0; m < lazyModels.size(); ++m) {
                const Graph &lg = *lazyModels[m].root(), &eg = *eagerModels[m].root();
                QCOMPARE(visDbAttr(lazyModels[m], kVisRowsFileAttr), file);
                QCOMPARE(visDbAttr(eagerModels[m], kVisRowsFileAttr), QString());
                QCOMPARE(lg.edges, eg.edges);
                QCOMPARE(lg.groups, eg.groups);
                QCOMPARE(lg.nodes.size(), eg.nodes.size());
                for (size_t n = 0; n < lg.nodes.size(); ++n) {
                    const GraphNode &ln = lg.nodes[n], &en = eg.nodes[n];
                    QCOMPARE(ln.name, en.name);
                    QCOMPARE(ln.attrs, en.attrs);
                    QVERIFY(ln.inputDescs.empty() && ln.outputDescs.empty());
                    QVERIFY(!visDbRowsKey(eg, en).isValid()); // the eager node holds its rows
                    const VisDbRowsKey rowsKey = visDbRowsKey(lg, ln);
                    QVERIFY(rowsKey.isValid());
                    const auto fetched = readVisDbNodeRows(rowsKey);
                    QVERIFY2(fetched.ok(), qPrintable(fetched.errorText()));
                    QCOMPARE(fetched->inputs, en.inputDescs);
                    QCOMPARE(fetched->outputs, en.outputDescs);
                    rows += int(en.inputDescs.size() + en.outputDescs.size());
                }
            }
        }
        QVERIFY(rows > 100);
        VisDbRowsKey missing;
        missing.file = kCorpus + QLatin1Char('/') + graphs.value(graphs.keys().front()).toObject().value(QStringLiteral("file")).toString();
        missing.source = QStringLiteral("NPU");
        missing.nodeName = QStringLiteral("No.such.node");
        const auto none = readVisDbNodeRows(missing);
        QVERIFY(!none.ok());
        QVERIFY2(none.errorText().contains(QLatin1String("No.such.node")), qPrintable(none.errorText()));
    }

    // The start node and the number of error nodes are answered when the graph is read (on
    // the reading thread), not by a pass over every node where the model list and the first
    // view ask (the GUI thread): the same answers as a scan of the nodes' levels.
    void startAndErrorsAnsweredAtRead()
    {
        const QJsonObject graphs = expectedGraphs();
        int starts = 0;
        for (const QString &key : graphs.keys()) {
            const auto db = visdb::readVisDb(kCorpus + QLatin1Char('/') + graphs.value(key).toObject().value(QStringLiteral("file")).toString());
            QVERIFY(db.ok());
            for (const GraphModel &m : visDbGraphModels(*db)) {
                const Graph &g = *m.root();
                int critical = -1, error = -1, errors = 0;
                for (size_t n = 0; n < g.nodes.size(); ++n) {
                    const GraphAttr *o = g.nodes[n].attr(QString::fromLatin1(kVisOverflowAttr));
                    const GraphAttr *p = g.nodes[n].attr(QString::fromLatin1(kVisPrecisionLevelAttr));
                    auto earlier = [&](int best) { return best < 0 || g.nodes[n].id < g.nodes[size_t(best)].id; };
                    if (o && o->value == QLatin1String("critical") && earlier(critical))
                        critical = int(n);
                    if (p && p->value == QLatin1String("error")) {
                        ++errors;
                        if (earlier(error))
                            error = int(n);
                    }
                }
                const int start = critical >= 0 ? critical : error;
                QCOMPARE(visDbAttr(m, kVisStartAttr), QString::number(start));
                QCOMPARE(visDbAttr(m, kVisErrorNodesAttr), QString::number(errors));
                QCOMPARE(visDbStartNode(g), NodeId{start});
                starts += start >= 0;
            }
        }
        QVERIFY(starts > 0);
    }

    void cliSectionMatchesTheDatabases()
    {
        const VisDbSection section = visDbSection(kCorpus + QStringLiteral("/graph"), kCorpus + QStringLiteral("/graph"));
        const QJsonObject graphs = expectedGraphs();
        QCOMPARE(section.readable, graphs.size());
        QCOMPARE(section.json.size(), graphs.size());
        for (const QJsonValue &v : section.json) {
            const QJsonObject entry = v.toObject();
            QString key;
            for (const QString &k : graphs.keys())
                if (graphs.value(k).toObject().value(QStringLiteral("file")).toString() == QStringLiteral("graph/") + entry.value(QStringLiteral("file")).toString())
                    key = k;
            QVERIFY2(!key.isEmpty(), qPrintable(entry.value(QStringLiteral("file")).toString()));
            const QJsonObject want = graphs.value(key).toObject();
            int critical = 0, high = 0;
            for (const QJsonValue &o : want.value(QStringLiteral("overflow_nodes")).toArray())
                (o.toObject().value(QStringLiteral("level")).toString() == QLatin1String("critical") ? critical : high) += 1;
            int gotCritical = 0, gotHigh = 0, nodes = 0;
            for (const QJsonValue &g : entry.value(QStringLiteral("graphs")).toArray()) {
                const QJsonObject levels = g.toObject().value(QStringLiteral("levels")).toObject();
                gotCritical += levels.value(QStringLiteral("critical")).toInt();
                gotHigh += levels.value(QStringLiteral("high")).toInt();
                nodes += g.toObject().value(QStringLiteral("nodes")).toInt();
            }
            QCOMPARE(gotCritical, critical);
            QCOMPARE(gotHigh, high);
            int wantNodes = 0;
            for (const QJsonValue &n : want.value(QStringLiteral("nodes")).toObject())
                wantNodes += n.toInt();
            QCOMPARE(nodes, wantNodes);
        }
    }

    /// A database is listed by what it is: build (with overflow check) or compare (statistics or
    /// tensors), the runs it was made from (tensor dumps record them) or its folder, side, step
    /// and rank, node count, its finding; the time stamp of msprobe's file name last. The oracle
    /// is expected.json (the config Python's sqlite3 read, the producer's command line).
    void modelsListedByWhatTheyAre_data()
    {
        QTest::addColumn<QString>("key");
        for (const QString &key : expectedGraphs().keys())
            QTest::addRow("%s", qPrintable(key)) << key;
    }
    void modelsListedByWhatTheyAre()
    {
        QFETCH(QString, key);
        const QJsonObject want = expectedGraphs().value(key).toObject();
        const QJsonObject config = want.value(QStringLiteral("config")).toObject();
        const auto db = visdb::readVisDb(kCorpus + QLatin1Char('/') + want.value(QStringLiteral("file")).toString());
        QVERIFY(db.ok());
        const auto models = visDbGraphModels(*db);
        QString kind;
        if (config.value(QStringLiteral("graph_type")).toString() == QLatin1String("compare"))
            kind = config.value(QStringLiteral("task")).toString() == QLatin1String("summary") ? QStringLiteral("compare (statistics)")
                                                                                            : QStringLiteral("compare (tensors)");
        else
            kind = config.value(QStringLiteral("overflow_check")).toInt() ? QStringLiteral("build with overflow check") : QStringLiteral("build");
        const auto [npu, bench] = producerRuns(key);
        // dump_data_dir names the runs only where tensors were dumped
        const QString name = key.contains(QLatin1String("tensor")) ? npu.section(QLatin1Char('/'), -1) + QStringLiteral(" vs ") + bench.section(QLatin1Char('/'), -1)
                                                                   : key;
        const QString file = QFileInfo(want.value(QStringLiteral("file")).toString()).fileName(); // build_20261124152127.vis.db
        const QString digits = file.section(QLatin1Char('_'), 1).section(QLatin1Char('.'), 0, 0);
        const QString when = QStringLiteral("%1-%2-%3 %4:%5:%6").arg(digits.mid(0, 4), digits.mid(4, 2), digits.mid(6, 2), digits.mid(8, 2),
                                                                     digits.mid(10, 2), digits.mid(12, 2));
        // error band of a compare database (tb_config.node_colors)
        double errorLo = 2, errorHi = 2;
        for (const QJsonValue &band : config.value(QStringLiteral("node_colors")).toObject())
            if (band.toObject().value(QStringLiteral("accuracy_level")).toString() == QLatin1String("error")) {
                errorLo = band.toObject().value(QStringLiteral("value")).toArray().at(0).toDouble();
                errorHi = band.toObject().value(QStringLiteral("value")).toArray().at(1).toDouble();
            }
        int allErrors = 0;
        for (const GraphModel &m : models) {
            const QString title = visDbModelTitle(m);
            QVERIFY2(title.startsWith(kind + QStringLiteral(" \u00b7 ") + name + QStringLiteral(" \u00b7 ") + m.modelName + QStringLiteral(" \u00b7 ")
                                      + QStringLiteral("%1 node(s)").arg(m.nodeCount())),
                     qPrintable(title));
            QVERIFY2(title.endsWith(QStringLiteral(" \u2014 ") + when), qPrintable(title));
            const int step = m.modelName.section(QLatin1Char(' '), 1, 1).mid(4).toInt(), rank = m.modelName.section(QLatin1Char(' '), 2, 2).mid(4).toInt();
            QString critical;
            for (const QJsonValue &v : want.value(QStringLiteral("overflow_nodes")).toArray()) {
                const QJsonObject o = v.toObject();
                if (o.value(QStringLiteral("step")).toInt() == step && o.value(QStringLiteral("rank")).toInt() == rank
                    && o.value(QStringLiteral("level")).toString() == QLatin1String("critical"))
                    critical = o.value(QStringLiteral("node")).toString();
            }
            QCOMPARE(title.contains(QStringLiteral("critical: ") + critical), !critical.isEmpty());
            if (kind.startsWith(QLatin1String("compare")) && m.modelName.startsWith(QLatin1String("NPU"))) {
                int errors = 0; // of the nodes drawn (the Apis_Between_Modules groups are groups only)
                const QJsonObject perNode = want.value(QStringLiteral("npu_precision_index")).toObject().value(QStringLiteral("step%1/rank%2").arg(step).arg(rank)).toObject();
                for (auto it = perNode.begin(); it != perNode.end(); ++it)
                    errors += !it.key().startsWith(QLatin1String("Apis_Between_Modules.")) && it.value().toDouble() >= errorLo && it.value().toDouble() <= errorHi;
                QVERIFY2(errors ? title.contains(QStringLiteral(" \u00b7 %1 error node(s)").arg(errors)) : !title.contains(QLatin1String("error node")),
                         qPrintable(title));
                allErrors += errors;
            }
        }
    }

    /// A database opens on its earliest finding: the overflow database on the designed first
    /// anomaly (expected.json: step 1, rank 1, Torch.exp; rank 0's all_reduce is marked critical
    /// too, later in the step); step 0 has none and showed every node white.
    void opensOnTheEarliestFinding()
    {
        const QJsonObject c = runcorpus::caseById(QStringLiteral("overflow_statistics_mix"));
        const QJsonObject first = c.value(QStringLiteral("designed")).toObject().value(QStringLiteral("run_first_anomaly")).toObject();
        const auto db = visdb::readVisDb(kCorpus + QLatin1Char('/')
                                         + expectedGraphs().value(QStringLiteral("build_overflow_statistics_mix")).toObject().value(QStringLiteral("file")).toString());
        QVERIFY(db.ok());
        const auto models = visDbGraphModels(*db);
        const GraphModel &m = models[size_t(visDbFirstModel(models))];
        QCOMPARE(m.modelName, QStringLiteral("NPU step%1 rank%2").arg(first.value(QStringLiteral("step")).toInt()).arg(first.value(QStringLiteral("rank")).toInt()));
        const NodeId start = visDbStartNode(*m.root());
        QCOMPARE(m.root()->node(start).attr(QString::fromLatin1(kVisNodeAttr))->value, first.value(QStringLiteral("op")).toString());
        QVERIFY(!isVisDbCompare(m));
    }

    /// The nodes of a database link to the operators of the open NPU run (the -tp run of the
    /// producer's command): in every NPU graph, exactly the nodes whose node_name is an entry of
    /// that step and rank's dump.json, each to that entry; the Bench side links nothing.
    void nodesLinkToTheOpenDump_data()
    {
        QTest::addColumn<QString>("key");
        for (const QString &key : expectedGraphs().keys())
            QTest::addRow("%s", qPrintable(key)) << key;
    }
    void nodesLinkToTheOpenDump()
    {
        QFETCH(QString, key);
        const auto db = visdb::readVisDb(kCorpus + QLatin1Char('/') + expectedGraphs().value(key).toObject().value(QStringLiteral("file")).toString());
        QVERIFY(db.ok());
        const QString run = kCorpus + QLatin1Char('/') + producerRuns(key).first;
        auto index = buildIndex(run);
        QVERIFY(index);
        int linked = 0;
        for (const GraphModel &m : visDbGraphModels(*db)) {
            const DumpMapping mapping = mapVisDbGraph(m, **index);
            if (!m.modelName.startsWith(QLatin1String("NPU"))) {
                QVERIFY(mapping.nodeOps.empty());
                continue;
            }
            QVERIFY(!mapping.nodeOps.empty());
            const QString scope = QStringLiteral("%1/%2").arg(m.modelName.section(QLatin1Char(' '), 1, 1), m.modelName.section(QLatin1Char(' '), 2, 2));
            const QJsonObject entries = runcorpus::readDumpJson(run + QLatin1Char('/') + scope + QStringLiteral("/dump.json")).value(QStringLiteral("data")).toObject();
            const Graph &g = *m.root();
            for (size_t n = 0; n < g.nodes.size(); ++n) {
                const QString name = g.nodes[n].attr(QString::fromLatin1(kVisNodeAttr))->value;
                const auto &ops = mapping.nodeOps[0][n];
                QCOMPARE(ops.size(), size_t(entries.contains(name) ? 1 : 0));
                if (ops.empty())
                    continue;
                const OpRecord &op = (*index)->ops[size_t(ops.front())];
                QCOMPARE(op.relPath.toString(), scope + QLatin1Char('/') + name);
                QCOMPARE(mapping.opNode[size_t(ops.front())].node, NodeId{int(n)});
                ++linked;
            }
        }
        QVERIFY(linked >= 4 * 15);
    }

    /// The statistics a node's row holds are the ones dump.json recorded (msprobe copies them as
    /// strings, "inf" included): Torch.exp's output on the overflowing rank.
    void rowStatisticsAreTheDumps()
    {
        const auto db = visdb::readVisDb(kCorpus + QLatin1Char('/')
                                         + expectedGraphs().value(QStringLiteral("build_overflow_statistics_mix")).toObject().value(QStringLiteral("file")).toString());
        QVERIFY(db.ok());
        const QJsonObject data = runcorpus::readDumpJson(runcorpus::runDir(QStringLiteral("overflow_statistics_mix")) + QStringLiteral("/step1/rank1/dump.json"))
                                     .value(QStringLiteral("data")).toObject();
        int checked = 0;
        for (const GraphModel &m : visDbGraphModels(*db)) {
            if (m.modelName != QLatin1String("NPU step1 rank1"))
                continue;
            for (const GraphNode &n : m.root()->nodes) {
                const QString name = n.attr(QString::fromLatin1(kVisNodeAttr))->value;
                const QJsonArray outputs = data.value(name).toObject().value(QStringLiteral("output")).toArray();
                for (const GraphTensorDesc &row : n.outputDescs) {
                    const int i = row.name.section(QLatin1Char('.'), -1).toInt();
                    if (!row.name.startsWith(name + QStringLiteral(".output.")) || i >= outputs.size() || !outputs[i].isObject())
                        continue;
                    const RecordedStats r = visDbRowStats(row);
                    const QJsonObject leaf = outputs[i].toObject();
                    if (leaf.value(QStringLiteral("type")).toString() != QLatin1String("torch.Tensor"))
                        continue;
                    const std::pair<const char *, double> want[] = {{"Max", r.max}, {"Min", r.min}, {"Mean", r.mean}, {"Norm", r.norm}};
                    QCOMPARE(int(r.present), 15);
                    for (const auto &[key, got] : want) {
                        const double w = runcorpus::statistic(leaf, QLatin1String(key));
                        QVERIFY2(std::isnan(w) ? std::isnan(got) : got == w, qPrintable(row.name + QLatin1Char(' ') + QLatin1String(key)));
                    }
                    checked += name == QLatin1String("Torch.exp.0.forward") && std::isinf(r.max);
                    ++checked;
                }
            }
        }
        QVERIFY(checked >= 10);
    }

    void badDatabases()
    {
        QTemporaryDir dir;
        const QString garbage = dir.filePath(QStringLiteral("garbage.vis.db"));
        QFile f(garbage);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a database");
        f.close();
        auto r = visdb::readVisDb(garbage);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().kind, ErrorKind::Corrupt);
        QCOMPARE(r.error().file, garbage);
        QVERIFY2(r.error().message.contains(QLatin1String("not an SQLite database")), qPrintable(r.errorText()));

        // A real SQLite database that is not msprobe's.
        const QString other = dir.filePath(QStringLiteral("other.vis.db"));
        {
            auto db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("maker"));
            db.setDatabaseName(other);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("CREATE TABLE t (x INTEGER)")));
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("maker"));
        r = visdb::readVisDb(other);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.contains(QLatin1String("without msprobe's tb_nodes table")), qPrintable(r.errorText()));

        r = visdb::readVisDb(dir.filePath(QStringLiteral("missing.vis.db")));
        QCOMPARE(r.error().kind, ErrorKind::NotFound);
        QVERIFY(visdb::findVisDbFiles(dir.path()).size() == 2);
    }
};

QTEST_GUILESS_MAIN(TestVisDb)
#include "tst_visdb.moc"
