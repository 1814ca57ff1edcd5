#include "visdb.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QUrl>

#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>

namespace ds::visdb {

namespace {

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

} // namespace

bool looksLikeVisDb(const QString &path)
{
    if (path.endsWith(QLatin1String(".vis.db"), Qt::CaseInsensitive))
        return true;
    if (!path.endsWith(QLatin1String(".db"), Qt::CaseInsensitive))
        return false;
    QFile f(path);
    return f.open(QIODevice::ReadOnly) && f.read(16) == QByteArray("SQLite format 3\0", 16);
}

QStringList findVisDbFiles(const QString &path)
{
    const QFileInfo info(path);
    if (!info.isDir())
        return info.isFile() && looksLikeVisDb(path) ? QStringList{info.absoluteFilePath()} : QStringList{};
    QStringList out;
    std::function<void(const QDir &, int)> walk = [&](const QDir &dir, int depth) {
        for (const QFileInfo &f : dir.entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Name)) {
            if (f.isDir()) {
                if (depth < 8)
                    walk(QDir(f.absoluteFilePath()), depth + 1);
            } else if (f.fileName().endsWith(QLatin1String(".vis.db"), Qt::CaseInsensitive)) {
                out << f.absoluteFilePath();
            }
        }
    };
    walk(QDir(info.absoluteFilePath()), 0);
    out.sort();
    return out;
}

QString precisionLevel(const VisDatabase &db, double index)
{
    for (const VisColor &c : db.colors)
        if (c.hasRange && index >= c.lo && index <= c.hi)
            return c.level;
    return {};
}

Result<VisDatabase> readVisDb(const QString &path, const JobControl *job, const VisDbRead &read)
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
    std::uint64_t row = 0;
    while (nodes.next()) {
        if (job && (++row & 1023) == 0 && job->cancelled())
            return Cancelled{};
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

Result<VisNodeData> readVisNodeData(const QString &path, const QString &source, int step, int rank, int nodeOrder,
                                    const QString &nodeName)
{
    Connection connection(path);
    if (!connection.ok())
        return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "SQLite cannot open it: %1").arg(connection.error()));
    QSqlQuery q(connection.db());
    q.setForwardOnly(true);
    // index3 (step, rank, data_source, node_order) finds the row without a scan.
    q.prepare(QStringLiteral("SELECT input_data, output_data FROM tb_nodes "
                             "WHERE step = ? AND rank = ? AND data_source = ? AND node_order = ? AND node_name = ? LIMIT 1"));
    q.addBindValue(step);
    q.addBindValue(rank);
    q.addBindValue(source);
    q.addBindValue(nodeOrder);
    q.addBindValue(nodeName);
    if (!q.exec())
        return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "cannot read tb_nodes: %1").arg(q.lastError().text()));
    if (!q.next())
        return Error(ErrorKind::NotFound, path, QCoreApplication::translate("VisDb", "no node %1 in %2 step%3 rank%4").arg(nodeName, source).arg(step).arg(rank));
    return VisNodeData{q.value(0).toString(), q.value(1).toString()};
}

} // namespace ds::visdb
