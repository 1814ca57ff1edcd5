// msprobe's monitor CSVs and anomaly files (monitor.h). Writers followed: v1
// pytorch/monitor/data_writers.py CSVWriterWithAD.write_csv (header vpp_stage,name,step
// [,micro_step],<ops>; the name "vpp:name[:micro]" split on ':'; values rounded, NaN as "nan"),
// v2 core/monitor_v2/writer.py CSVWriterV2 (vpp_stage,step,<row keys>), anomalies
// core/monitor/anomaly_processor.py (GradAnomalyData, AnomalyDataWriter, AnomalyAnalyse).
#include "monitor.h"

#include "util/csvrecords.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

namespace ds::monitor {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// {prefix}_{a}-{b}.csv (v1) and {slug}_step{a}-{b}.csv (v2)
const QRegularExpression &v1Name()
{
    static const QRegularExpression re(QStringLiteral(R"(^(.+)_(\d+)-(\d+)\.csv$)"));
    return re;
}
const QRegularExpression &v2Name()
{
    static const QRegularExpression re(QStringLiteral(R"(^(.+)_step(\d+)-(\d+)\.csv$)"));
    return re;
}
// {Mon DD_HH-MM-SS}-rank{R}-{uuid} (MonitorConst.OUTPUT_DIR_PATTERN) and rank_{R}
int rankOfFolder(const QString &folder)
{
    static const QRegularExpression v1(QStringLiteral(R"(-rank(\d{1,5})-)")), v2(QStringLiteral(R"(^rank_(\d{1,5})$)"));
    if (auto m = v1.match(folder); m.hasMatch())
        return m.captured(1).toInt();
    if (auto m = v2.match(folder); m.hasMatch())
        return m.captured(1).toInt();
    return -1;
}

bool parseNumber(const QString &cell, double &out)
{
    const QString c = cell.trimmed();
    if (c.isEmpty() || c.compare(u"nan", Qt::CaseInsensitive) == 0) {
        out = kNaN;
        return true;
    }
    if (c == u"inf" || c == u"Infinity") {
        out = std::numeric_limits<double>::infinity();
        return true;
    }
    if (c == u"-inf" || c == u"-Infinity") {
        out = -std::numeric_limits<double>::infinity();
        return true;
    }
    if (c == u"True" || c == u"False") {
        out = c == u"True" ? 1 : 0;
        return true;
    }
    bool ok = false;
    out = c.toDouble(&ok);
    return ok;
}

bool parseInt(const QString &cell, std::int64_t &out)
{
    bool ok = false;
    out = cell.trimmed().toLongLong(&ok);
    if (!ok) { // pandas writes a float column's integers as "3.0"
        const double d = cell.trimmed().toDouble(&ok);
        ok = ok && std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9e15;
        out = ok ? std::int64_t(d) : 0;
    }
    return ok;
}

} // namespace

QString rowMetric(const MonitorTable &t, const MonitorRow &r)
{
    return t.version == Version::V2 && !r.scope.isEmpty() ? t.metric + QLatin1Char('/') + r.scope : t.metric;
}

QString Anomaly::module() const
{
    const QStringList parts = tagName.section(QLatin1Char('/'), 0, 0).split(QLatin1Char(':'));
    return parts.size() >= 2 ? parts[1] : parts.value(0);
}

QString Anomaly::kind() const { return tagName.section(QLatin1Char('/'), -1); }

QString Anomaly::stat() const
{
    static const QRegularExpression re(QStringLiteral(R"(in \('[^']*', '([^']*)'\))"));
    const auto m = re.match(message);
    return m.hasMatch() ? m.captured(1) : QString();
}

int Anomaly::trainStage() const
{
    const QString k = kind();
    if (k == u"actv")
        return 0;
    if (k == u"actv_grad" || k == u"pre_grad" || k == u"post_grad" || k == u"acc_grad")
        return 1;
    if (k == u"exp_avg" || k == u"exp_avg_sq")
        return 2;
    return -1;
}

bool anomalyBefore(const Anomaly &a, const Anomaly &b)
{
    auto key = [](const Anomaly &x, int stageOfFirst) {
        const bool forward = stageOfFirst == 0;
        return std::tuple(x.step, x.microStep, x.trainStage(), forward ? x.vppStage : -x.vppStage, forward ? x.ppStage : -x.ppStage, x.callId);
    };
    // __lt__ picks the vpp/pp direction by the left operand's stage; the stages are equal by then
    return key(a, a.trainStage()) < key(b, a.trainStage());
}

QString metricOfKind(const QString &kind)
{
    if (kind == u"pre_grad")
        return QStringLiteral("grad_unreduced");
    if (kind == u"post_grad")
        return QStringLiteral("grad_reduced");
    return kind;
}

Result<MonitorTable> parseMonitorCsv(QByteArrayView bytes, const QString &file)
{
    using R = Result<MonitorTable>;
    auto csv = parseCsvRecords(bytes, file);
    if (!csv)
        return R::failure(csv.error());
    MonitorTable t;
    t.file = file;
    t.header = csv->header;
    for (QString &h : t.header)
        h = h.trimmed();
    const QString fileName = file.section(QLatin1Char('/'), -1);
    const QString folder = file.section(QLatin1Char('/'), -2, -2);
    const int vpp = int(t.header.indexOf(QStringLiteral("vpp_stage"))), step = int(t.header.indexOf(QStringLiteral("step")));
    int name = int(t.header.indexOf(QStringLiteral("name")));
    const int moduleName = int(t.header.indexOf(QStringLiteral("module_name")));
    const int scope = int(t.header.indexOf(QStringLiteral("scope")));
    const int micro = int(t.header.indexOf(QStringLiteral("micro_step")));
    if (vpp == 0 && name == 1 && step == 2) {
        t.version = Version::V1;
    } else if (vpp == 0 && step == 1 && moduleName >= 0) {
        t.version = Version::V2;
        name = moduleName;
    } else {
        return R::failure(ErrorKind::Unsupported, file,
                          QStringLiteral("line 1: not a monitor CSV of msprobe (the header starts \"%1\"; expected "
                                         "\"vpp_stage,name,step,...\" (TrainerMon) or \"vpp_stage,step,module_name,...\" (monitor v2))")
                              .arg(t.header.mid(0, 4).join(QLatin1Char(','))));
    }
    if (const auto m = (t.version == Version::V2 ? v2Name() : v1Name()).match(fileName); m.hasMatch()) {
        t.metric = m.captured(1);
        t.firstStep = m.captured(2).toLongLong();
        t.lastStep = m.captured(3).toLongLong();
    } else {
        t.metric = QFileInfo(fileName).completeBaseName();
    }
    t.rank = rankOfFolder(folder);
    std::vector<int> statCols, textCols;
    for (int c = 0; c < t.header.size(); ++c) {
        if (c == vpp || c == step || c == name || c == scope || c == micro)
            continue;
        const QString &h = t.header[c];
        if (h == u"shape" || h == u"dtype" || h == u"id" || h == u"name" || h == u"module_name") {
            textCols.push_back(c);
            t.textStats << h;
        } else {
            statCols.push_back(c);
            t.stats << h;
        }
    }
    for (size_t r = 0; r < csv->rows.size(); ++r) {
        const QStringList &cells = csv->rows[r];
        const int line = csv->lines[r];
        if (cells.size() != t.header.size()) {
            t.errors.push_back(Error(ErrorKind::Corrupt, file, QStringLiteral("line %1: %2 fields where the header has %3 (a truncated or garbled row; left out)")
                                                                   .arg(line).arg(cells.size()).arg(t.header.size())));
            continue;
        }
        MonitorRow row;
        row.line = line;
        std::int64_t v = 0;
        auto bad = [&](int c, const QString &what) {
            t.errors.push_back(Error(ErrorKind::Corrupt, file, QStringLiteral("line %1, column %2 (%3): \"%4\" %5").arg(line).arg(c + 1).arg(t.header[c], cells[c], what)));
        };
        if (!parseInt(cells[vpp], v)) {
            bad(vpp, QStringLiteral("is not a whole number (row left out)"));
            continue;
        }
        row.vppStage = int(v);
        if (!parseInt(cells[step], row.step)) {
            bad(step, QStringLiteral("is not a whole number (row left out)"));
            continue;
        }
        if (micro >= 0) {
            if (!parseInt(cells[micro], v)) {
                bad(micro, QStringLiteral("is not a whole number (row left out)"));
                continue;
            }
            row.microStep = int(v);
        }
        row.name = cells[name];
        if (scope >= 0)
            row.scope = cells[scope];
        for (int c : statCols) {
            double d = kNaN;
            if (!parseNumber(cells[c], d))
                bad(c, QStringLiteral("is not a number (shown as empty)"));
            row.values.push_back(d);
        }
        for (int c : textCols)
            row.text << cells[c];
        t.rows.push_back(std::move(row));
    }
    return t;
}

Result<AnomalyFile> parseAnomalyJson(QByteArrayView bytes, const QString &file)
{
    using R = Result<AnomalyFile>;
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes.toByteArray(), &pe);
    if (pe.error != QJsonParseError::NoError) {
        const QByteArrayView head = bytes.first(std::min<qsizetype>(pe.offset, bytes.size()));
        const int line = int(head.count('\n')) + 1;
        const qsizetype lastNl = head.toByteArray().lastIndexOf('\n');
        const qsizetype column = pe.offset - (lastNl + 1) + 1;
        return R::failure(ErrorKind::Corrupt, file, QStringLiteral("line %1, column %2: not JSON (%3)").arg(line).arg(column).arg(pe.errorString()));
    }
    if (!doc.isObject())
        return R::failure(ErrorKind::Corrupt, file, QStringLiteral("not an anomaly file: the JSON is not an object of anomalies"));
    AnomalyFile out;
    // QJsonObject sorts its keys; msprobe's order of the file is the order of the text
    const QJsonObject obj = doc.object();
    QStringList keys;
    {
        // the keys in text order: each top-level key is followed by ": {"
        static const QRegularExpression keyRe(QStringLiteral(R"re("((?:[^"\\]|\\.)*)"\s*:\s*\{)re"));
        const QString text = QString::fromUtf8(bytes.toByteArray());
        std::set<QString> seen;
        for (auto it = keyRe.globalMatch(text); it.hasNext();) {
            const QString k = QJsonDocument::fromJson("[\"" + it.next().captured(1).toUtf8() + "\"]").array().at(0).toString();
            if (obj.contains(k) && obj.value(k).isObject() && seen.insert(k).second)
                keys << k;
        }
        for (const QString &k : obj.keys())
            if (!seen.count(k))
                keys << k;
    }
    for (const QString &k : keys) {
        const QJsonValue v = obj.value(k);
        if (!v.isObject()) {
            out.errors.push_back(Error(ErrorKind::Corrupt, file, QStringLiteral("entry \"%1\": not an object (left out)").arg(k)));
            continue;
        }
        const QJsonObject o = v.toObject();
        QStringList missing;
        for (const char *f : {"rank", "step"})
            if (!o.value(QLatin1String(f)).isDouble())
                missing << QLatin1String(f);
        if (!missing.isEmpty()) {
            out.errors.push_back(Error(ErrorKind::Corrupt, file, QStringLiteral("entry \"%1\": no number %2 (left out)").arg(k, missing.join(QStringLiteral(", ")))));
            continue;
        }
        Anomaly a;
        a.key = k;
        a.file = file;
        a.rank = o.value(QStringLiteral("rank")).toInt();
        a.step = std::int64_t(o.value(QStringLiteral("step")).toDouble());
        a.microStep = o.value(QStringLiteral("micro_step")).toInt();
        a.ppStage = o.value(QStringLiteral("pp_stage")).toInt();
        a.vppStage = o.value(QStringLiteral("vpp_stage")).toInt();
        a.callId = o.value(QStringLiteral("call_id")).toInt();
        a.tagName = o.value(QStringLiteral("tag_name")).toString();
        a.message = o.value(QStringLiteral("message")).toString();
        out.anomalies.push_back(std::move(a));
    }
    return out;
}

std::vector<std::pair<QString, QStringList>> MonitorDocument::metrics() const
{
    std::vector<std::pair<QString, QStringList>> out;
    for (const MonitorTable &t : tables)
        for (const MonitorRow &r : t.rows) {
            const QString m = rowMetric(t, r);
            auto it = std::find_if(out.begin(), out.end(), [&](const auto &p) { return p.first == m; });
            if (it == out.end())
                out.emplace_back(m, t.stats);
            else
                for (const QString &s : t.stats)
                    if (!it->second.contains(s))
                        it->second << s;
        }
    return out;
}

std::vector<int> MonitorDocument::ranks() const
{
    std::set<int> r;
    for (const MonitorTable &t : tables)
        r.insert(t.rank);
    for (const Anomaly &a : anomalies)
        r.insert(a.rank);
    return {r.begin(), r.end()};
}

namespace {

Result<QByteArray> readAll(const QString &path, const QString &shown)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return Result<QByteArray>::failure(ErrorKind::Access, shown, f.errorString());
    if (f.size() > (qint64(1) << 30))
        return Result<QByteArray>::failure(ErrorKind::Unsupported, shown, QStringLiteral("%1 bytes: larger than the 1 GiB read of a monitor file").arg(f.size()));
    return f.readAll();
}

bool isMonitorCsvName(const QString &n) { return v1Name().match(n).hasMatch() || v2Name().match(n).hasMatch(); }

} // namespace

bool looksLikeMonitor(const QString &path)
{
    const QFileInfo fi(path);
    if (fi.isFile())
        return (isMonitorCsvName(fi.fileName()) && rankOfFolder(fi.dir().dirName()) >= 0) || fi.fileName() == u"anomaly.json"
            || fi.fileName() == u"anomaly_analyse.json";
    if (!fi.isDir())
        return false;
    // a rank folder holding a CSV named as the monitor names them (a bounded listing)
    const auto monitorRankFolder = [](const QDir &d) {
        if (rankOfFolder(d.dirName()) < 0)
            return false;
        const QStringList csvs = d.entryList({QStringLiteral("*.csv")}, QDir::Files);
        return std::any_of(csvs.begin(), csvs.end(), isMonitorCsvName);
    };
    const QDir d(path);
    if (monitorRankFolder(d))
        return true;
    if (d.exists(QStringLiteral("anomaly_detected/")) || d.exists(QStringLiteral("anomaly_analyse.json")))
        return true;
    const QStringList subs = d.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    return std::any_of(subs.begin(), subs.end(), [&](const QString &sub) { return monitorRankFolder(QDir(d.filePath(sub))); });
}

Result<MonitorDocument> openMonitor(const QString &path)
{
    using R = Result<MonitorDocument>;
    const QFileInfo fi(path);
    if (!fi.exists())
        return R::failure(ErrorKind::NotFound, path, QStringLiteral("no such file or folder"));
    MonitorDocument doc;
    doc.root = fi.isDir() ? fi.absoluteFilePath() : fi.absolutePath();
    const QDir root(doc.root);
    QStringList csvs, anomalyFiles, analyseFiles; // relative to root
    auto visit = [&](const QString &rel, const QString &name) {
        if (name == u"anomaly.json")
            anomalyFiles << rel;
        else if (name == u"anomaly_analyse.json")
            analyseFiles << rel;
        else if (isMonitorCsvName(name) && rankOfFolder(rel.section(QLatin1Char('/'), -2, -2)) >= 0)
            csvs << rel;
    };
    if (fi.isFile()) {
        // a lone file keeps its folder in its shown name, for the rank
        doc.root = fi.dir().absolutePath() + QStringLiteral("/..");
        doc.root = QDir::cleanPath(doc.root);
        const QString rel = fi.dir().dirName() + QLatin1Char('/') + fi.fileName();
        visit(rel, fi.fileName());
    } else {
        std::function<void(const QString &, int)> walk = [&](const QString &rel, int depth) {
            const QDir d(rel.isEmpty() ? doc.root : root.filePath(rel));
            for (const QString &n : d.entryList(QDir::Files, QDir::Name))
                visit(rel.isEmpty() ? n : rel + QLatin1Char('/') + n, n);
            if (depth < 3)
                for (const QString &s : d.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
                    walk(rel.isEmpty() ? s : rel + QLatin1Char('/') + s, depth + 1);
        };
        walk(QString(), 0);
    }
    const QDir base(doc.root);
    for (const QString &rel : csvs) {
        auto bytes = readAll(base.filePath(rel), rel);
        if (!bytes) {
            doc.errors.push_back(bytes.error());
            continue;
        }
        auto t = parseMonitorCsv(*bytes, rel);
        if (!t) {
            doc.errors.push_back(t.error());
            continue;
        }
        doc.errors.insert(doc.errors.end(), t->errors.begin(), t->errors.end());
        doc.tables.push_back(std::move(*t));
    }
    for (const auto &[files, target] : {std::pair{&anomalyFiles, &doc.anomalies}, std::pair{&analyseFiles, &doc.analysed}}) {
        for (const QString &rel : *files) {
            auto bytes = readAll(base.filePath(rel), rel);
            if (!bytes) {
                doc.errors.push_back(bytes.error());
                continue;
            }
            auto a = parseAnomalyJson(*bytes, rel);
            if (!a) {
                doc.errors.push_back(a.error());
                continue;
            }
            doc.errors.insert(doc.errors.end(), a->errors.begin(), a->errors.end());
            target->insert(target->end(), a->anomalies.begin(), a->anomalies.end());
        }
    }
    std::stable_sort(doc.anomalies.begin(), doc.anomalies.end(), anomalyBefore);
    if (doc.tables.empty() && doc.anomalies.empty() && doc.analysed.empty() && doc.errors.empty())
        return R::failure(ErrorKind::NotFound, path,
                          QStringLiteral("no monitor output here: looked for {time}-rank{R}-{uuid}/{metric}_{a}-{b}.csv, "
                                         "rank_{R}/{name}_step{a}-{b}.csv, anomaly_detected/rank{R}/anomaly.json and anomaly_analyse.json"));
    if (fi.isFile() && doc.tables.empty() && doc.anomalies.empty() && doc.analysed.empty())
        return R::failure(doc.errors.front());
    return doc;
}

std::vector<TrendPoint> trendPoints(const MonitorDocument &doc, const QString &metric, const QString &stat)
{
    // (rank, step, module) -> value of the last micro step
    std::map<std::tuple<int, std::int64_t, QString>, std::pair<int, double>> cells;
    for (const MonitorTable &t : doc.tables) {
        const int col = int(t.stats.indexOf(stat));
        if (col < 0)
            continue;
        for (const MonitorRow &r : t.rows) {
            if (rowMetric(t, r) != metric)
                continue;
            auto [it, fresh] = cells.try_emplace({t.rank, r.step, r.name}, r.microStep, r.values[size_t(col)]);
            if (!fresh && r.microStep >= it->second.first)
                it->second = {r.microStep, r.values[size_t(col)]};
        }
    }
    std::vector<TrendPoint> out;
    out.reserve(cells.size());
    for (const auto &[key, v] : cells) {
        TrendPoint p;
        std::tie(p.rank, p.step, p.module) = key;
        p.value = v.second;
        for (const Anomaly &a : doc.anomalies) {
            if (a.rank != p.rank || a.step != p.step || a.module() != p.module)
                continue;
            const QString kindMetric = metricOfKind(a.kind());
            if (kindMetric != metric && !metric.startsWith(kindMetric + QLatin1Char('/')))
                continue;
            p.anomaly = true;
        }
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace ds::monitor
