// The .vis.db reader and graph builder against the code they replaced (branch h39-visdb2):
// readVisDb (SQLite's C API) gives the same VisDatabase, field by field, as the Qt SQL read it
// replaced, and visDbGraphModels (node-index hierarchy, one name index, edges by index) the
// same Graph (nodes, names, types, ids, attributes, edges, groups; only the nodes' inputs are
// no longer filled) as the per-node path strings and double QHash it replaced, on every
// committed database. The references below are that code, kept
// verbatim here as the oracle (rows are left out of the graph reference: their parser did not
// change, and tst_visdb::rowsAreWhatMsprobeWrote checks them against msprobe's JSON).
// Also: opening a database writes nothing in its folder, and a truncated one is an error
// naming the file.
#include "dumpgraph/visdbgraph.h"
#include "formats/visdb/visdb.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <map>

using namespace ds;
using visdb::VisColor;
using visdb::VisDatabase;
using visdb::VisGraph;
using visdb::VisNode;

namespace {

// ---- the Qt SQL reader (core/formats/visdb/visdb.cpp before h39-visdb2) ----

/// One Qt SQL connection for the life of a read, with a name no other read uses (connections
/// belong to the thread that made them; reads run on any worker thread).
class Connection
{
public:
    explicit Connection(const QString &path)
    {
        static std::atomic<int> counter{0};
        m_name = QStringLiteral("dumpscope-visdb-%1").arg(counter.fetch_add(1));
        auto db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        // immutable=1: SQLite neither locks nor creates -wal/-shm files; the dump stays untouched.
        QUrl url = QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath());
        url.setQuery(QStringLiteral("immutable=1"));
        db.setDatabaseName(url.toString(QUrl::FullyEncoded));
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_OPEN_URI"));
        m_ok = db.open();
        if (!m_ok)
            m_error = db.lastError().text();
    }
    ~Connection()
    {
        {
            auto db = QSqlDatabase::database(m_name, false);
            db.close();
        }
        QSqlDatabase::removeDatabase(m_name);
    }
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    bool ok() const { return m_ok; }
    const QString &error() const { return m_error; }
    QSqlDatabase db() const { return QSqlDatabase::database(m_name, false); }

private:
    QString m_name, m_error;
    bool m_ok = false;
};

/// The strings of a JSON array (sub_nodes, matched_node_link), as QJsonDocument gives them: a
/// value that is not a string is "", anything but an array gives none. Read by RapidJSON (a
/// million nodes' arrays, most of them "[]").
QStringList jsonStrings(const QString &text)
{
    QStringList out;
    if (text.size() <= 2)
        return out; // "", "[]": no element
    const QByteArray utf8 = text.toUtf8();
    rapidjson::Document doc;
    doc.Parse(utf8.constData(), size_t(utf8.size()));
    if (doc.HasParseError() || !doc.IsArray())
        return out;
    out.reserve(qsizetype(doc.Size()));
    for (const auto &v : doc.GetArray())
        out << (v.IsString() ? QString::fromUtf8(v.GetString(), qsizetype(v.GetStringLength())) : QString());
    return out;
}

std::vector<int> jsonInts(const QString &text)
{
    std::vector<int> out;
    const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8());
    for (const QJsonValue &v : doc.array())
        out.push_back(v.toInt());
    return out;
}

std::vector<VisColor> colorBands(const QString &text)
{
    std::vector<VisColor> out;
    const QJsonObject bands = QJsonDocument::fromJson(text.toUtf8()).object();
    for (auto it = bands.begin(); it != bands.end(); ++it) {
        const QJsonObject band = it.value().toObject();
        VisColor c;
        c.color = it.key();
        c.level = band.value(QStringLiteral("accuracy_level")).toString();
        const QJsonArray range = band.value(QStringLiteral("value")).toArray();
        if (range.size() == 2) {
            c.lo = range[0].toDouble();
            c.hi = range[1].toDouble();
            c.hasRange = true;
        }
        out.push_back(std::move(c));
    }
    std::sort(out.begin(), out.end(), [](const VisColor &a, const VisColor &b) {
        return a.hasRange != b.hasRange ? a.hasRange : a.lo < b.lo;
    });
    return out;
}

bool hasTable(const QSqlDatabase &db, const QString &table) { return db.tables().contains(table); }

/// True when `table` has `column` (dump_data_dir is not in every msprobe version's schema).
bool hasColumn(const QSqlDatabase &db, const QString &table, const QString &column)
{
    return db.record(table).contains(column);
}


// ---- the path-string graph builder (core/dumpgraph/visdbgraph.cpp before h39-visdb2) ----

constexpr int kApiGroupType = 9;

/// A node name as one component of a graph node name ('/' separates the groups).
QString component(const QString &name) { return QString(name).replace(QLatin1Char('/'), QChar(0x2215)); }

GraphModel pathStringConvert(const visdb::VisDatabase &db, const visdb::VisGraph &vg, const QString &runs)
{
    GraphModel model;
    model.file = db.file;
    model.stage = QString::fromLatin1(kVisDbStage);
    model.modelName = QStringLiteral("%1 step%2 rank%3").arg(vg.source).arg(vg.step).arg(vg.rank);
    QHash<QString, int> byName;
    for (size_t i = 0; i < vg.nodes.size(); ++i)
        byName.insert(vg.nodes[i].name, int(i));
    // Group path of every node: the chain of its ancestors below the root, memoised; a cycle
    // or an unknown parent ends the chain.
    std::vector<QString> scope(vg.nodes.size());
    std::vector<char> state(vg.nodes.size(), 0);
    auto scopeOf = [&](int i, auto &&self) -> QString {
        if (state[size_t(i)] != 0)
            return scope[size_t(i)];
        state[size_t(i)] = 1;
        const QString &parent = vg.nodes[size_t(i)].parent;
        const int p = byName.value(parent, -1);
        if (p >= 0 && parent != vg.root) {
            const QString outer = self(p, self);
            scope[size_t(i)] = (outer.isEmpty() ? QString() : outer + QLatin1Char('/')) + component(parent);
        }
        state[size_t(i)] = 2;
        return scope[size_t(i)];
    };
    Graph g;
    g.name = model.modelName;
    g.attrs = {{QString::fromLatin1(kVisGraphTypeAttr), QStringLiteral("s"), db.graphType},
               {QString::fromLatin1(kVisOverflowCheckAttr), QStringLiteral("b"), db.overflowCheck ? QStringLiteral("true") : QStringLiteral("false")},
               {QString::fromLatin1(kVisRankAttr), QStringLiteral("i"), QString::number(vg.rank)},
               {QString::fromLatin1(kVisRowsFileAttr), QStringLiteral("s"), db.rowsDeferred ? db.file : QString()},
               {QString::fromLatin1(kVisRunsAttr), QStringLiteral("s"), runs},
               {QString::fromLatin1(kVisSourceAttr), QStringLiteral("s"), vg.source},
               {QString::fromLatin1(kVisStepAttr), QStringLiteral("i"), QString::number(vg.step)},
               {QString::fromLatin1(kVisTaskAttr), QStringLiteral("s"), db.task}};
    std::vector<int> nodeOf(vg.nodes.size(), -1); // database node -> graph node (-1: a group only)
    for (size_t i = 0; i < vg.nodes.size(); ++i) {
        const visdb::VisNode &vn = vg.nodes[i];
        if (vn.name == vg.root || vn.nodeType == kApiGroupType)
            continue;
        const QString outer = scopeOf(int(i), scopeOf);
        QString own = component(vn.name);
        if (!vn.children.isEmpty())
            own += QLatin1Char('/') + component(vn.name);
        GraphNode n;
        n.name = outer.isEmpty() ? own : outer + QLatin1Char('/') + own;
        n.type = vn.nodeType == 0 ? QStringLiteral("Module") : vn.name.section(QLatin1Char('.'), 0, -3);
        n.id = vn.order;
        n.attrs.push_back({QString::fromLatin1(kVisNodeAttr), QStringLiteral("s"), vn.name});
        if (vn.precisionIndex) {
            n.attrs.push_back({QString::fromLatin1(kVisPrecisionAttr), QStringLiteral("f"), QString::number(*vn.precisionIndex)});
            n.attrs.push_back({QString::fromLatin1(kVisPrecisionLevelAttr), QStringLiteral("s"), visdb::precisionLevel(db, *vn.precisionIndex)});
        }
        if (!vn.overflowLevel.isEmpty())
            n.attrs.push_back({QString::fromLatin1(kVisOverflowAttr), QStringLiteral("s"), vn.overflowLevel});
        if (db.graphType == QLatin1String("compare"))
            n.attrs.push_back({QString::fromLatin1(kVisMatchedAttr), QStringLiteral("s"),
                               vn.matchedPath.isEmpty() ? QString() : vn.matchedPath.back()});
        std::sort(n.attrs.begin(), n.attrs.end(), [](const GraphAttr &a, const GraphAttr &b) { return a.key < b.key; });
        nodeOf[i] = int(g.nodes.size());
        g.nodes.push_back(std::move(n));
    }
    // Chain the members of every parent in node_order: from the last node of one member (a
    // node, or a whole child group) to the first node of the next.
    struct Span { int first = -1, last = -1, order = 0; };
    std::vector<Span> span(vg.nodes.size());
    auto spanOf = [&](int i, auto &&self, int depth) -> Span {
        Span s{nodeOf[size_t(i)], nodeOf[size_t(i)], vg.nodes[size_t(i)].order};
        if (depth > 256)
            return s;
        for (const QString &child : vg.nodes[size_t(i)].children) {
            const int c = byName.value(child, -1);
            if (c < 0 || c == i)
                continue;
            const Span cs = self(c, self, depth + 1);
            if (cs.first >= 0 && (s.first < 0 || g.nodes[size_t(cs.first)].id < g.nodes[size_t(s.first)].id))
                s.first = cs.first;
            if (cs.last >= 0 && (s.last < 0 || g.nodes[size_t(cs.last)].id > g.nodes[size_t(s.last)].id))
                s.last = cs.last;
        }
        return s;
    };
    for (size_t i = 0; i < vg.nodes.size(); ++i) {
        std::vector<Span> members;
        for (const QString &child : vg.nodes[i].children) {
            const int c = byName.value(child, -1);
            if (c >= 0 && size_t(c) != i)
                members.push_back(spanOf(c, spanOf, 0));
        }
        if (nodeOf[i] >= 0 && !vg.nodes[i].children.isEmpty())
            members.push_back({nodeOf[i], nodeOf[i], vg.nodes[i].order}); // the module's own node
        members.erase(std::remove_if(members.begin(), members.end(), [](const Span &s) { return s.first < 0; }), members.end());
        std::sort(members.begin(), members.end(), [&](const Span &a, const Span &b) {
            return g.nodes[size_t(a.first)].id < g.nodes[size_t(b.first)].id;
        });
        for (size_t m = 1; m < members.size(); ++m)
            g.nodes[size_t(members[m].first)].inputs << g.nodes[size_t(members[m - 1].last)].name + QStringLiteral(":0");
    }
    g.build();
    // What the model list and the first view ask of every node, answered here on the reading
    // thread: a pass over a million nodes on the GUI thread stalled it (setGraphs, 0.8-1 s).
    const NodeId start = visDbStartNode(g);
    const NodeStatusColumn verdicts = visDbStatus(g, NodeStatusRole::CompareVerdict);
    g.attrs.push_back({QString::fromLatin1(kVisStartAttr), QStringLiteral("i"), QString::number(start.value)});
    g.attrs.push_back({QString::fromLatin1(kVisErrorNodesAttr), QStringLiteral("i"),
                       QString::number(std::count(verdicts.values.begin(), verdicts.values.end(), 3.0))});
    std::sort(g.attrs.begin(), g.attrs.end(), [](const GraphAttr &a, const GraphAttr &b) { return a.key < b.key; });
    model.graphs.push_back(std::move(g));
    return model;
}


/// The database's run names as visDbGraphModels makes them (not changed by h39-visdb2).
QString runsOf(const visdb::VisDatabase &db, const std::vector<GraphModel> &models)
{
    return models.empty() ? QString() : visDbAttr(models.front(), kVisRunsAttr);
}

} // namespace

namespace {

Result<visdb::VisDatabase> qtSqlRead(const QString &path, const visdb::VisDbRead &read)
{
    QFile probe(path);
    if (!probe.exists())
        return Error(ErrorKind::NotFound, path, QCoreApplication::translate("VisDb", "no such file"));
    if (!probe.open(QIODevice::ReadOnly))
        return Error(ErrorKind::Access, path, QCoreApplication::translate("VisDb", "cannot open: %1").arg(probe.errorString()));
    if (probe.read(16) != QByteArray("SQLite format 3\0", 16))
        return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "not an SQLite database (msprobe graph databases are .vis.db SQLite files)"));
    probe.close();

    Connection connection(path);
    if (!connection.ok())
        return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "SQLite cannot open it: %1").arg(connection.error()));
    QSqlDatabase db = connection.db();
    for (const QString &table : {QStringLiteral("tb_nodes"), QStringLiteral("tb_config")})
        if (!hasTable(db, table))
            return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "an SQLite database without msprobe's %1 table").arg(table));

    VisDatabase out;
    out.file = path;
    QSqlQuery config(db);
    if (!config.exec(QStringLiteral("SELECT graph_type, task, overflow_check, node_colors, rank_list, step_list FROM tb_config")))
        return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "cannot read tb_config: %1").arg(config.lastError().text()));
    if (config.next()) {
        out.graphType = config.value(0).toString();
        out.task = config.value(1).toString();
        out.overflowCheck = config.value(2).toInt() != 0;
        out.colors = colorBands(config.value(3).toString());
        out.ranks = jsonInts(config.value(4).toString());
        out.steps = jsonInts(config.value(5).toString());
    }
    if (hasTable(db, QStringLiteral("tb_stack"))) {
        QSqlQuery stacks(db);
        if (stacks.exec(QStringLiteral("SELECT COUNT(*) FROM tb_stack")) && stacks.next())
            out.stackCount = stacks.value(0).toInt();
    }

    if (read.rowsUpTo < std::numeric_limits<qint64>::max()) {
        QSqlQuery count(db);
        if (!count.exec(QStringLiteral("SELECT COUNT(*) FROM tb_nodes")) || !count.next())
            return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "cannot read tb_nodes: %1").arg(count.lastError().text()));
        out.rowsDeferred = count.value(0).toLongLong() > read.rowsUpTo;
    }
    QSqlQuery nodes(db);
    nodes.setForwardOnly(true);
    // In msprobe's index3 (step, rank, data_source, node_order) order, so SQLite walks the index
    // instead of sorting every row with its data (graphs are put NPU first below).
    if (!nodes.exec(QStringLiteral(
            "SELECT data_source, step, rank, node_order, node_name, node_type, up_node, sub_nodes, precision_index, "
            "overflow_level, %1, %2, %3 "
            "FROM tb_nodes ORDER BY step, rank, data_source, node_order")
                        .arg(out.rowsDeferred ? QStringLiteral("0, %1, '', 0").arg(out.graphType == QLatin1String("compare") ? QStringLiteral("matched_node_link")
                                                                                                                          : QStringLiteral("'[]'"))
                                              : QStringLiteral("micro_step_id, matched_node_link, stack_id, is_distributed"),
                             out.rowsDeferred ? QStringLiteral("'', ''") : QStringLiteral("input_data, output_data"),
                             hasColumn(db, QStringLiteral("tb_nodes"), QStringLiteral("dump_data_dir")) ? QStringLiteral("dump_data_dir")
                                                                                                        : QStringLiteral("''"))))
        return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "cannot read tb_nodes: %1").arg(nodes.lastError().text()));
    std::map<std::tuple<int, int, int>, size_t> graphOf; // (NPU first, step, rank) -> graphs index
    std::vector<VisGraph> graphs;
    while (nodes.next()) {
        const QString source = nodes.value(0).toString();
        const int step = nodes.value(1).toInt(), rank = nodes.value(2).toInt();
        const auto key = std::make_tuple(source == QLatin1String("NPU") ? 0 : 1, step, rank);
        auto [it, added] = graphOf.try_emplace(key, graphs.size());
        if (added)
            graphs.push_back(VisGraph{source, step, rank, {}, {}, {}});
        VisGraph &g = graphs[it->second];
        VisNode n;
        n.order = nodes.value(3).toInt();
        n.name = nodes.value(4).toString();
        n.nodeType = nodes.value(5).toInt();
        n.parent = nodes.value(6).toString();
        n.children = jsonStrings(nodes.value(7).toString());
        if (!nodes.value(8).isNull())
            n.precisionIndex = nodes.value(8).toDouble();
        n.overflowLevel = nodes.value(9).toString();
        n.microStep = nodes.value(10).toInt();
        n.matchedPath = jsonStrings(nodes.value(11).toString());
        n.stackId = nodes.value(12).toString();
        n.distributed = nodes.value(13).toInt() != 0;
        n.inputData = nodes.value(14).toString();
        n.outputData = nodes.value(15).toString();
        if (g.dumpDataDir.isEmpty())
            g.dumpDataDir = nodes.value(16).toString();
        if (n.parent.isEmpty())
            g.root = n.name;
        g.nodes.push_back(std::move(n));
    }
    for (auto &[key, index] : graphOf)
        out.graphs.push_back(std::move(graphs[index]));
    return out;
}


const QString kGraphs = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_real/graph");

/// The committed databases, and those DS_VISDB_REFERENCE_EXTRA names (':'-separated; e.g. a
/// bench/gen_vis_db.py database, to compare a bigger tree by hand).
QStringList corpusDatabases()
{
    QStringList files = visdb::findVisDbFiles(kGraphs);
    files << qEnvironmentVariable("DS_VISDB_REFERENCE_EXTRA").split(QLatin1Char(':'), Qt::SkipEmptyParts);
    return files;
}

/// Every file of a folder with its bytes: what a read must leave as it was.
std::map<QString, QByteArray> folderFiles(const QString &dir)
{
    std::map<QString, QByteArray> out;
    for (const QFileInfo &f : QDir(dir).entryInfoList(QDir::Files | QDir::Hidden | QDir::System, QDir::Name)) {
        QFile file(f.absoluteFilePath());
        out[f.fileName()] = file.open(QIODevice::ReadOnly) ? QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256) : QByteArray();
    }
    return out;
}

void compareNodes(const VisNode &got, const VisNode &want)
{
    QCOMPARE(got.name, want.name);
    QCOMPARE(got.nodeType, want.nodeType);
    QCOMPARE(got.parent, want.parent);
    QCOMPARE(got.children, want.children);
    QCOMPARE(got.order, want.order);
    QCOMPARE(got.microStep, want.microStep);
    QCOMPARE(got.precisionIndex, want.precisionIndex);
    QCOMPARE(got.overflowLevel, want.overflowLevel);
    QCOMPARE(got.matchedPath, want.matchedPath);
    QCOMPARE(got.stackId, want.stackId);
    QCOMPARE(got.distributed, want.distributed);
    QCOMPARE(got.inputData, want.inputData);
    QCOMPARE(got.outputData, want.outputData);
}

} // namespace

class TestVisDbReference : public QObject
{
    Q_OBJECT
private slots:
    void sameDatabaseAsQtSql_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("rowsUpTo");
        const QStringList files = corpusDatabases();
        QVERIFY(files.size() >= 3);
        for (const QString &f : files) {
            QTest::addRow("%s eager", qPrintable(QFileInfo(f).fileName())) << f << std::numeric_limits<qint64>::max();
            QTest::addRow("%s deferred", qPrintable(QFileInfo(f).fileName())) << f << qint64(0);
        }
    }
    void sameDatabaseAsQtSql()
    {
        QFETCH(QString, file);
        QFETCH(qint64, rowsUpTo);
        const auto got = visdb::readVisDb(file, nullptr, {rowsUpTo});
        const auto want = qtSqlRead(file, {rowsUpTo});
        QVERIFY2(got.ok(), qPrintable(got.errorText()));
        QVERIFY2(want.ok(), qPrintable(want.errorText()));
        QCOMPARE(got->graphType, want->graphType);
        QCOMPARE(got->task, want->task);
        QCOMPARE(got->overflowCheck, want->overflowCheck);
        QCOMPARE(got->steps, want->steps);
        QCOMPARE(got->ranks, want->ranks);
        QCOMPARE(got->stackCount, want->stackCount);
        QCOMPARE(got->rowsDeferred, want->rowsDeferred);
        QCOMPARE(got->colors.size(), want->colors.size());
        for (size_t c = 0; c < got->colors.size(); ++c) {
            QCOMPARE(got->colors[c].color, want->colors[c].color);
            QCOMPARE(got->colors[c].level, want->colors[c].level);
            QCOMPARE(got->colors[c].lo, want->colors[c].lo);
            QCOMPARE(got->colors[c].hi, want->colors[c].hi);
        }
        QCOMPARE(got->graphs.size(), want->graphs.size());
        size_t nodes = 0;
        for (size_t g = 0; g < got->graphs.size(); ++g) {
            const VisGraph &a = got->graphs[g], &b = want->graphs[g];
            QCOMPARE(a.source, b.source);
            QCOMPARE(a.step, b.step);
            QCOMPARE(a.rank, b.rank);
            QCOMPARE(a.root, b.root);
            QCOMPARE(a.dumpDataDir, b.dumpDataDir);
            QCOMPARE(a.nodes.size(), b.nodes.size());
            for (size_t n = 0; n < a.nodes.size(); ++n) {
                compareNodes(a.nodes[n], b.nodes[n]);
                if (QTest::currentTestFailed())
                    QFAIL(qPrintable(QStringLiteral("graph %1 node %2").arg(g).arg(n)));
            }
            nodes += a.nodes.size();
        }
        QVERIFY(nodes >= 10);
    }

    void sameGraphsAsPathStrings_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString &f : corpusDatabases())
            QTest::addRow("%s", qPrintable(QFileInfo(f).fileName())) << f;
    }
    void sameGraphsAsPathStrings()
    {
        QFETCH(QString, file);
        sameGraphsAsPathStringsIn(file);
    }

    // A bench/gen_vis_db.py database of 100,101 nodes: big enough for the two-thread build
    // (nodes made in two halves, the chain beside the name index and groups).
    void generatedDatabaseSameGraphsAsPathStrings()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("g100k.vis.db"));
        QProcess gen;
        gen.start(QStringLiteral("python3"), {QStringLiteral(DUMPSCOPE_SOURCE_DIR "/bench/gen_vis_db.py"), QStringLiteral("--layers"),
                                              QStringLiteral("100"), file});
        QVERIFY2(gen.waitForFinished(120000) && gen.exitCode() == 0, gen.readAllStandardError().constData());
        sameGraphsAsPathStringsIn(file);
    }

private:
    void sameGraphsAsPathStringsIn(const QString &file)
    {
        const auto db = visdb::readVisDb(file, nullptr, {0}); // rows deferred: the tree only
        QVERIFY2(db.ok(), qPrintable(db.errorText()));
        const std::vector<GraphModel> models = visDbGraphModels(*db);
        QCOMPARE(models.size(), db->graphs.size());
        for (size_t m = 0; m < models.size(); ++m) {
            const GraphModel want = pathStringConvert(*db, db->graphs[m], runsOf(*db, models));
            const GraphModel &got = models[m];
            QCOMPARE(got.modelName, want.modelName);
            QCOMPARE(got.file, want.file);
            QCOMPARE(got.stage, want.stage);
            QCOMPARE(got.graphs.size(), size_t(1));
            const Graph &a = got.graphs[0], &b = want.graphs[0];
            QCOMPARE(a.name, b.name);
            QCOMPARE(a.attrs, b.attrs);
            QCOMPARE(a.nodes.size(), b.nodes.size());
            for (size_t n = 0; n < a.nodes.size(); ++n) {
                QCOMPARE(a.nodes[n].name, b.nodes[n].name);
                QCOMPARE(a.nodes[n].type, b.nodes[n].type);
                QCOMPARE(a.nodes[n].id, b.nodes[n].id);
                QCOMPARE(a.nodes[n].attrs, b.nodes[n].attrs);
                QCOMPARE(a.nodes[n].group, b.nodes[n].group);
                QVERIFY(a.nodes[n].inputs.isEmpty()); // the chain is in edges, made by node index
                GraphNode withInputs = a.nodes[n];
                withInputs.inputs = b.nodes[n].inputs;
                QVERIFY(withInputs == b.nodes[n]);
            }
            QCOMPARE(a.edges, b.edges);
            QCOMPARE(a.groups, b.groups);
            QCOMPARE(a.topGroups, b.topGroups);
            QCOMPARE(a.topNodes, b.topNodes);
            QCOMPARE(a.unresolvedInputs, b.unresolvedInputs);
            for (size_t n = 0; n < a.nodes.size(); ++n)
                QCOMPARE(a.findNode(a.nodes[n].name), b.findNode(b.nodes[n].name));
            QCOMPARE(visDbStatus(a, NodeStatusRole::CompareVerdict).values.size(), a.nodes.size());
        }
    }

private slots:

    // Opening a database (eager, deferred, a node's rows on demand) writes nothing in its
    // folder: no -journal, -wal or -shm file, no byte changed. The copy is put in WAL mode, as
    // msprobe writes its databases (an ordinary read-only open would then create -wal/-shm).
    void openingWritesNothingInTheFolder()
    {
        for (const QString &source : corpusDatabases()) {
            QTemporaryDir dir;
            const QString file = dir.filePath(QFileInfo(source).fileName());
            QVERIFY(QFile::copy(source, file));
            QVERIFY(QFile::setPermissions(file, QFile::ReadOwner | QFile::WriteOwner));
            {
                auto db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("wal"));
                db.setDatabaseName(file);
                QVERIFY(db.open());
                QSqlQuery q(db);
                QVERIFY(q.exec(QStringLiteral("PRAGMA journal_mode=WAL")) && q.next());
                QCOMPARE(q.value(0).toString(), QStringLiteral("wal"));
                q.finish();
                db.close();
            }
            QSqlDatabase::removeDatabase(QStringLiteral("wal"));
            const auto before = folderFiles(dir.path());
            QCOMPARE(before.size(), size_t(1)); // the database alone
            const auto eager = visdb::readVisDb(file);
            QVERIFY2(eager.ok(), qPrintable(eager.errorText()));
            QCOMPARE(folderFiles(dir.path()), before);
            const auto deferred = visdb::readVisDb(file, nullptr, {0});
            QVERIFY2(deferred.ok(), qPrintable(deferred.errorText()));
            const visdb::VisGraph &g = deferred->graphs.front();
            const auto rows = visdb::readVisNodeData(file, g.source, g.step, g.rank, g.nodes.back().order, g.nodes.back().name);
            QVERIFY2(rows.ok(), qPrintable(rows.errorText()));
            QCOMPARE(rows->inputData, eager->graphs.front().nodes.back().inputData);
            QCOMPARE(folderFiles(dir.path()), before);
        }
    }

    // A database cut short (a copy interrupted mid-way): an error naming the file, no crash.
    void truncatedDatabaseIsAnError()
    {
        QTemporaryDir dir;
        for (const QString &source : corpusDatabases()) {
            QFile in(source);
            QVERIFY(in.open(QIODevice::ReadOnly));
            const QByteArray bytes = in.readAll();
            for (const qsizetype keep : {qsizetype(100), qsizetype(4096), bytes.size() / 2}) {
                const QString file = dir.filePath(QStringLiteral("cut%1_%2").arg(keep).arg(QFileInfo(source).fileName()));
                QFile out(file);
                QVERIFY(out.open(QIODevice::WriteOnly));
                out.write(bytes.left(keep));
                out.close();
                const auto r = visdb::readVisDb(file);
                QVERIFY2(!r.ok(), qPrintable(file));
                QCOMPARE(r.error().file, file);
                QCOMPARE(r.error().kind, ErrorKind::Corrupt);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestVisDbReference)
#include "tst_visdbreference.moc"
