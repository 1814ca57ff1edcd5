#include "visdb.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

#include <rapidjson/document.h>
#include <sqlite3.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <thread>

namespace ds::visdb {

namespace {

/// One read-only SQLite connection for the life of a read (SQLite's C API: rows come as UTF-8
/// text, without Qt SQL's UTF-16 conversion and a QVariant per column per row). Opened as an
/// immutable URI: SQLite neither locks nor creates -journal, -wal or -shm files (msprobe writes
/// its databases in WAL mode: even an ordinary read-only open would create -wal and -shm beside
/// it, inside the dump folder).
class Connection
{
public:
    explicit Connection(const QString &path)
    {
        QUrl url = QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath());
        url.setQuery(QStringLiteral("immutable=1"));
        const QByteArray uri = url.toString(QUrl::FullyEncoded).toUtf8();
        const int rc = sqlite3_open_v2(uri.constData(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, nullptr);
        if (rc != SQLITE_OK) {
            m_error = m_db ? QString::fromUtf8(sqlite3_errmsg(m_db)) : QString::fromUtf8(sqlite3_errstr(rc));
            sqlite3_close(m_db);
            m_db = nullptr;
        }
    }
    ~Connection() { sqlite3_close(m_db); }
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    bool ok() const { return m_db != nullptr; }
    const QString &error() const { return m_error; }
    sqlite3 *db() const { return m_db; }
    QString lastError() const { return QString::fromUtf8(sqlite3_errmsg(m_db)); }

private:
    sqlite3 *m_db = nullptr;
    QString m_error;
};

/// One prepared statement; step() gives SQLITE_ROW per row, SQLITE_DONE at the end.
class Statement
{
public:
    Statement(const Connection &c, const QString &sql)
    {
        const QByteArray utf8 = sql.toUtf8();
        if (sqlite3_prepare_v2(c.db(), utf8.constData(), int(utf8.size()), &m_stmt, nullptr) != SQLITE_OK) {
            sqlite3_finalize(m_stmt);
            m_stmt = nullptr;
        }
    }
    ~Statement() { sqlite3_finalize(m_stmt); }
    Statement(const Statement &) = delete;
    Statement &operator=(const Statement &) = delete;

    bool ok() const { return m_stmt != nullptr; }
    int step() { return sqlite3_step(m_stmt); }
    bool isNull(int col) const { return sqlite3_column_type(m_stmt, col) == SQLITE_NULL; }
    qint64 integer(int col) const { return sqlite3_column_int64(m_stmt, col); }
    double real(int col) const { return sqlite3_column_double(m_stmt, col); }
    /// The column as UTF-8 text (a view valid until the next step): "" for NULL.
    std::string_view text(int col) const
    {
        const auto *data = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, col));
        return data ? std::string_view(data, size_t(sqlite3_column_bytes(m_stmt, col))) : std::string_view();
    }
    QString string(int col) const { return toQString(text(col)); }
    void bind(int index, qint64 v) { sqlite3_bind_int64(m_stmt, index, v); }
    void bind(int index, const QByteArray &utf8) { sqlite3_bind_text(m_stmt, index, utf8.constData(), int(utf8.size()), SQLITE_TRANSIENT); }

    static QString toQString(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

private:
    sqlite3_stmt *m_stmt = nullptr;
};

/// What went wrong with a statement (the connection's last error).
QString failure(const Connection &c) { return c.lastError(); }

/// The strings of a JSON array (sub_nodes, matched_node_link), as QJsonDocument gives them: a
/// value that is not a string is "", anything but an array gives none. Read by RapidJSON from
/// SQLite's UTF-8 (a million nodes' arrays, most of them "" or "[]").
QStringList jsonStrings(std::string_view text)
{
    QStringList out;
    if (text.size() <= 2)
        return out; // "", "[]": no element
    rapidjson::Document doc;
    doc.Parse(text.data(), text.size());
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

/// The tables of the database, or an error text when SQLite cannot read its schema (a file
/// with SQLite's header whose pages are not a database, a truncated file).
Result<QStringList> tables(const Connection &c, const QString &path)
{
    Statement q(c, QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table'"));
    QStringList out;
    int rc = q.ok() ? q.step() : SQLITE_ERROR;
    for (; rc == SQLITE_ROW; rc = q.step())
        out << q.string(0);
    if (rc != SQLITE_DONE)
        return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "SQLite cannot open it: %1").arg(failure(c)));
    return out;
}

/// True when `table` has `column` (dump_data_dir is not in every msprobe version's schema).
bool hasColumn(const Connection &c, const QString &table, const QString &column)
{
    Statement q(c, QStringLiteral("PRAGMA table_info(%1)").arg(table));
    while (q.ok() && q.step() == SQLITE_ROW)
        if (q.text(1) == column.toStdString())
            return true;
    return false;
}

/// Interns the repeated text of consecutive rows (a node's up_node is most often the one
/// before it's): the same QString instead of one per row.
class LastString
{
public:
    QString get(std::string_view text)
    {
        if (text != std::string_view(m_utf8)) {
            m_utf8.assign(text);
            m_string = Statement::toQString(text);
        }
        return m_string;
    }

private:
    std::string m_utf8;
    QString m_string;
};

/// The nodes of one stretch of the index3 walk (all of it, or one thread's half), graph by
/// graph in the order met: what one walk would have appended to each graph.
struct NodePart
{
    struct Piece
    {
        std::tuple<int, int, int> key; ///< (NPU first, step, rank)
        VisGraph graph;
        bool hasRoot = false; ///< a row without up_node was met (graph.root is the last one's name)
    };
    std::vector<Piece> pieces;
};

/// Reads the rows [offset, offset + limit) of the node query (limit -1: to the end). The first
/// graph met reserves room for `expected` nodes (a big table is most often one graph: its
/// nodes are not moved again as the vector grows, nor when the second half is appended).
Result<NodePart> readNodePart(const Connection &c, const QString &path, const QString &sql, qint64 offset, qint64 limit,
                              const JobControl *job, qint64 expected = 0)
{
    Statement nodes(c, sql);
    if (!nodes.ok())
        return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "cannot read tb_nodes: %1").arg(failure(c)));
    nodes.bind(1, limit);
    nodes.bind(2, offset);
    NodePart part;
    std::map<std::tuple<int, int, int>, size_t> pieceOf;
    LastString sources, parents, overflows;
    std::uint64_t row = 0;
    size_t last = 0;
    int rc = SQLITE_ROW;
    while ((rc = nodes.step()) == SQLITE_ROW) {
        if (job && (++row & 1023) == 0 && job->cancelled())
            return Cancelled{};
        const std::string_view source = nodes.text(0);
        const int step = int(nodes.integer(1)), rank = int(nodes.integer(2));
        const auto key = std::make_tuple(source == "NPU" ? 0 : 1, step, rank);
        if (part.pieces.empty() || key != part.pieces[last].key) { // rows come graph by graph
            auto [it, added] = pieceOf.try_emplace(key, part.pieces.size());
            if (added) {
                part.pieces.push_back({key, VisGraph{sources.get(source), step, rank, {}, {}, {}}, false});
                if (part.pieces.size() == 1 && expected > 0) // at most 4 M: rowids need not be dense
                    part.pieces.back().graph.nodes.reserve(size_t(std::min(expected, qint64(1) << 22)));
            }
            last = it->second;
        }
        NodePart::Piece &piece = part.pieces[last];
        VisGraph &g = piece.graph;
        VisNode n;
        n.order = int(nodes.integer(3));
        n.name = nodes.string(4);
        n.nodeType = int(nodes.integer(5));
        n.parent = parents.get(nodes.text(6));
        n.children = jsonStrings(nodes.text(7));
        if (!nodes.isNull(8))
            n.precisionIndex = nodes.real(8);
        n.overflowLevel = overflows.get(nodes.text(9));
        n.microStep = int(nodes.integer(10));
        n.matchedPath = jsonStrings(nodes.text(11));
        n.stackId = nodes.string(12);
        n.distributed = nodes.integer(13) != 0;
        n.inputData = nodes.string(14);
        n.outputData = nodes.string(15);
        if (g.dumpDataDir.isEmpty())
            g.dumpDataDir = nodes.string(16);
        if (n.parent.isEmpty()) {
            g.root = n.name;
            piece.hasRoot = true;
        }
        g.nodes.push_back(std::move(n));
    }
    if (rc != SQLITE_DONE)
        return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "cannot read tb_nodes: %1").arg(failure(c)));
    return part;
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
    const auto known = tables(connection, path);
    if (!known)
        return known.error();
    for (const QString &table : {QStringLiteral("tb_nodes"), QStringLiteral("tb_config")})
        if (!known->contains(table))
            return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "an SQLite database without msprobe's %1 table").arg(table));

    VisDatabase out;
    out.file = path;
    Statement config(connection, QStringLiteral("SELECT graph_type, task, overflow_check, node_colors, rank_list, step_list FROM tb_config"));
    const int configRow = config.ok() ? config.step() : SQLITE_ERROR;
    if (configRow != SQLITE_ROW && configRow != SQLITE_DONE)
        return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "cannot read tb_config: %1").arg(failure(connection)));
    if (configRow == SQLITE_ROW) {
        out.graphType = config.string(0);
        out.task = config.string(1);
        out.overflowCheck = config.integer(2) != 0;
        out.colors = colorBands(config.string(3));
        out.ranks = jsonInts(config.string(4));
        out.steps = jsonInts(config.string(5));
    }
    if (known->contains(QStringLiteral("tb_stack"))) {
        Statement stacks(connection, QStringLiteral("SELECT COUNT(*) FROM tb_stack"));
        if (stacks.ok() && stacks.step() == SQLITE_ROW)
            out.stackCount = int(stacks.integer(0));
    }

    if (read.rowsUpTo < std::numeric_limits<qint64>::max()) {
        Statement count(connection, QStringLiteral("SELECT COUNT(*) FROM tb_nodes"));
        if (!count.ok() || count.step() != SQLITE_ROW)
            return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "cannot read tb_nodes: %1").arg(failure(connection)));
        out.rowsDeferred = count.integer(0) > read.rowsUpTo;
    }
    // In msprobe's index3 (step, rank, data_source, node_order) order, so SQLite walks the index
    // instead of sorting every row with its data (graphs are put NPU first below).
    const QString sql = QStringLiteral(
            "SELECT data_source, step, rank, node_order, node_name, node_type, up_node, sub_nodes, precision_index, "
            "overflow_level, %1, %2, %3 "
            "FROM tb_nodes ORDER BY step, rank, data_source, node_order LIMIT ? OFFSET ?")
                            .arg(out.rowsDeferred ? QStringLiteral("0, %1, '', 0").arg(out.graphType == QLatin1String("compare") ? QStringLiteral("matched_node_link")
                                                                                                                              : QStringLiteral("'[]'"))
                                                  : QStringLiteral("micro_step_id, matched_node_link, stack_id, is_distributed"),
                                 out.rowsDeferred ? QStringLiteral("'', ''") : QStringLiteral("input_data, output_data"),
                                 hasColumn(connection, QStringLiteral("tb_nodes"), QStringLiteral("dump_data_dir")) ? QStringLiteral("dump_data_dir")
                                                                                                                    : QStringLiteral("''"));
    // A big table is read on two threads, each on its own connection: the first `split` rows of
    // the walk (LIMIT) and the rest (OFFSET: SQLite skips those index entries without fetching
    // their rows), merged in order. Where the split falls changes nothing that is read.
    qint64 split = read.splitAt, rows = 0;
    if (split < 0 && read.twoThreadsFrom < std::numeric_limits<qint64>::max()) {
        Statement size(connection, QStringLiteral("SELECT MAX(rowid) FROM tb_nodes")); // O(log n): about the row count
        rows = size.ok() && size.step() == SQLITE_ROW ? size.integer(0) : 0;
        if (rows >= read.twoThreadsFrom && rows >= 2)
            split = rows / 2;
    }
    std::vector<Result<NodePart>> parts;
    if (split < 0) {
        parts.push_back(readNodePart(connection, path, sql, 0, -1, job));
    } else {
        Result<NodePart> second = Error(ErrorKind::Corrupt, path, QString());
        std::thread thread([&] {
            const Connection own(path);
            second = own.ok() ? readNodePart(own, path, sql, split, -1, job, rows - split)
                              : Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "SQLite cannot open it: %1").arg(own.error()));
        });
        parts.push_back(readNodePart(connection, path, sql, 0, split, job, rows));
        thread.join();
        parts.push_back(std::move(second));
    }
    for (const Result<NodePart> &part : parts)
        if (!part)
            return part.error(); // the first half's error first, as one walk would meet it
    std::map<std::tuple<int, int, int>, size_t> graphOf; // (NPU first, step, rank) -> graphs index
    std::vector<VisGraph> graphs;
    for (Result<NodePart> &part : parts) {
        for (NodePart::Piece &piece : part->pieces) {
            auto [it, added] = graphOf.try_emplace(piece.key, graphs.size());
            if (added) {
                graphs.push_back(std::move(piece.graph));
                continue;
            }
            VisGraph &g = graphs[it->second];
            g.nodes.insert(g.nodes.end(), std::make_move_iterator(piece.graph.nodes.begin()), std::make_move_iterator(piece.graph.nodes.end()));
            if (piece.hasRoot)
                g.root = piece.graph.root;
            if (g.dumpDataDir.isEmpty())
                g.dumpDataDir = piece.graph.dumpDataDir;
        }
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
    // index3 (step, rank, data_source, node_order) finds the row without a scan.
    Statement q(connection, QStringLiteral("SELECT input_data, output_data FROM tb_nodes "
                                           "WHERE step = ? AND rank = ? AND data_source = ? AND node_order = ? AND node_name = ? LIMIT 1"));
    if (!q.ok())
        return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "cannot read tb_nodes: %1").arg(failure(connection)));
    q.bind(1, step);
    q.bind(2, rank);
    q.bind(3, source.toUtf8());
    q.bind(4, nodeOrder);
    q.bind(5, nodeName.toUtf8());
    const int rc = q.step();
    if (rc == SQLITE_DONE)
        return Error(ErrorKind::NotFound, path, QCoreApplication::translate("VisDb", "no node %1 in %2 step%3 rank%4").arg(nodeName, source).arg(step).arg(rank));
    if (rc != SQLITE_ROW)
        return Error(ErrorKind::Corrupt, path, QCoreApplication::translate("VisDb", "cannot read tb_nodes: %1").arg(failure(connection)));
    return VisNodeData{q.string(0), q.string(1)};
}

} // namespace ds::visdb
