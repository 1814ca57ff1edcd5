#include "anomalyanalyze.h"

#include "formats/msprobe/jsonstream.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <map>

namespace ds {

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

/// The strings of array node `i` (other values skipped).
QStringList strings(const msprobe::JsonTree &t, std::uint32_t i)
{
    QStringList out;
    if (!i || t.node(i).kind != msprobe::JsonNode::Array)
        return out;
    for (std::uint32_t c = t.node(i).first; c; c = t.node(c).next)
        if (t.node(c).kind == msprobe::JsonNode::String)
            out << qs(t.text(t.node(c)));
    return out;
}

constexpr int kLevelsUp = 4;      ///< folders above the file's own that are searched
constexpr int kDepthBelow = 4;    ///< dumps/<run>/step<N> below a searched folder, and one more level
constexpr int kMaxFolders = 20000;
constexpr qint64 kMaxDumpJson = qint64(256) << 20; ///< a rank's dump.json read whole to check it
constexpr qint64 kSearchBytes = qint64(1) << 30;   ///< dump.json bytes read in all

/// Folders below `root` holding rank*/dump.json (overflow_check's -i), nearest first by depth.
void collect(const QString &root, const QString &skip, int depth, int &budget, QStringList &out)
{
    if (budget-- <= 0)
        return;
    const QDir dir(root);
    const QFileInfoList subs = dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Name);
    for (const QFileInfo &s : subs)
        if (s.fileName().startsWith(QLatin1String("rank")) && QFileInfo::exists(s.absoluteFilePath() + QStringLiteral("/dump.json"))) {
            out << QDir::cleanPath(root);
            return;
        }
    if (depth <= 0)
        return;
    for (const QFileInfo &s : subs)
        if (s.absoluteFilePath() != skip && !s.fileName().startsWith(QLatin1Char('.')))
            collect(s.absoluteFilePath(), QString(), depth - 1, budget, out);
}

QSet<QString> words(const QString &path)
{
    static const QRegularExpression split(QStringLiteral("[/_.\\-]+"));
    const QStringList parts = path.toLower().split(split, Qt::SkipEmptyParts);
    return QSet<QString>(parts.begin(), parts.end());
}

/// Whether `folder` is the -i folder of `anomalies`: every listed rank's dump.json entry equals
/// the data_info msprobe copied. `bytesLeft` is spent on the dump.json files read.
bool fits(const QString &folder, const std::vector<MsprobeAnomaly> &anomalies, qint64 &bytesLeft, QStringList &notes)
{
    std::map<QString, std::vector<const MsprobeAnomaly *>> byRank;
    for (const MsprobeAnomaly &a : anomalies)
        byRank[a.rank].push_back(&a);
    for (const auto &[rank, list] : byRank) {
        QString sub = rank;
        sub.remove(QLatin1Char('_')); // rank_1 -> rank1
        QFile f(QDir(folder).filePath(sub + QStringLiteral("/dump.json")));
        if (!f.exists() && rank == QLatin1String("rank_0")) // a single rank: overflow_check reads rank/ or proc*/ as rank 0
            for (const QString &alt : QDir(folder).entryList({QStringLiteral("rank"), QStringLiteral("proc*")}, QDir::Dirs))
                f.setFileName(QDir(folder).filePath(alt + QStringLiteral("/dump.json")));
        if (!f.exists())
            return false;
        if (f.size() > kMaxDumpJson || f.size() > bytesLeft) {
            notes << QStringLiteral("%1: %2 MiB, not read to check it").arg(f.fileName()).arg(f.size() >> 20);
            return false;
        }
        if (!f.open(QIODevice::ReadOnly))
            return false;
        bytesLeft -= f.size();
        msprobe::JsonTree t;
        QString error;
        if (!msprobe::parseJsonText(f.readAll().toStdString(), t, &error) || t.empty())
            return false;
        const std::uint32_t data = t.find(0, "data");
        for (const MsprobeAnomaly *a : list) {
            const std::uint32_t entry = data ? t.find(data, a->opName.toStdString()) : 0;
            if (!entry || a->data.empty())
                return false;
            for (const auto &[key, value] : a->data) {
                const std::uint32_t m = t.find(entry, key);
                std::string ours;
                if (m)
                    t.serialize(m, ours);
                if (!m || ours != value)
                    return false;
            }
        }
    }
    return !byRank.empty();
}

} // namespace

AnomalyDump findAnomalyDump(const QString &file, const std::vector<MsprobeAnomaly> &anomalies)
{
    AnomalyDump out;
    const QString home = QDir::cleanPath(QDir::homePath());
    const QString fileDir = QFileInfo(file).absolutePath();
    const QSet<QString> fileWords = words(QFileInfo(file).absoluteFilePath());
    QString dir = fileDir, searched;
    int budget = kMaxFolders;
    qint64 bytesLeft = kSearchBytes;
    for (int up = 0; up <= kLevelsUp && !anomalies.empty(); ++up) {
        const QString clean = QDir::cleanPath(dir);
        if (QDir(clean).isRoot() || clean == home)
            break;
        QStringList folders, fitting;
        collect(clean, searched, kDepthBelow, budget, folders);
        for (const QString &f : std::as_const(folders))
            if (fits(f, anomalies, bytesLeft, out.notes))
                fitting << f;
        if (!fitting.isEmpty()) {
            // the folder sharing most words with the file's path (overflow_check/<run>/step1 <-> dumps/<run>/step1)
            // (more shared words, then fewer words of its own: optnan_statistics_mix before optnan_dumped_statistics_mix)
            const auto shared = [&](const QString &f) {
                const QSet<QString> w = words(f.mid(clean.size()));
                const int common = int((QSet<QString>(w) & fileWords).size());
                return common * 1000 - int(w.size() - common);
            };
            std::stable_sort(fitting.begin(), fitting.end(), [&](const QString &a, const QString &b) { return shared(a) > shared(b); });
            out.path = fitting.front();
            out.how = QStringLiteral("found beside the file: %1 holds every op it names with the same data").arg(out.path);
            for (qsizetype i = 1; i < fitting.size(); ++i)
                out.notes << QStringLiteral("%1 fits too (%2 was taken: its path is closer to the file's)").arg(fitting[i], out.path);
            return out;
        }
        searched = clean;
        dir = QFileInfo(clean).absolutePath();
    }
    if (budget <= 0)
        out.notes << QStringLiteral("the search stopped after %1 folders").arg(kMaxFolders);
    out.how = anomalies.empty()
                  ? QStringLiteral("the file names no op, so its dump cannot be told; give it with --npu DUMP")
                  : QStringLiteral("no dump found beside the file (a folder of rank*/dump.json whose entries hold the ops it "
                                   "names with the same data, in its folder or up to %1 folders above it); give it with --npu DUMP")
                        .arg(kLevelsUp);
    return out;
}

bool isAnomalyAnalyzeName(const QString &fileName)
{
    static const QRegularExpression re(QStringLiteral("^anomaly_analyze_.*\\.json$"), QRegularExpression::CaseInsensitiveOption);
    return re.match(fileName).hasMatch();
}

Result<std::vector<MsprobeAnomaly>> parseAnomalyAnalyze(const QByteArray &text, const QString &shown)
{
    using R = Result<std::vector<MsprobeAnomaly>>;
    using msprobe::JsonNode;
    msprobe::JsonTree t;
    QString error;
    if (!msprobe::parseJsonText(text.toStdString(), t, &error))
        return R::failure(QStringLiteral("%1: not JSON (%2)").arg(shown, error));
    if (t.empty() || t.root().kind != JsonNode::Object)
        return R::failure(QStringLiteral("%1: not msprobe's overflow_check answer: expected an object of rank_N lists").arg(shown));
    std::vector<MsprobeAnomaly> out;
    for (std::uint32_t r = t.root().first; r; r = t.node(r).next) {
        const JsonNode &rank = t.node(r);
        const QString rankKey = qs(t.key(rank));
        if (rank.kind != JsonNode::Array)
            return R::failure(QStringLiteral("%1: %2 is not a list of anomalies").arg(shown, rankKey));
        for (std::uint32_t e = rank.first; e; e = t.node(e).next) {
            const std::uint32_t name = t.find(e, "op_name");
            if (!name || t.node(name).kind != JsonNode::String)
                return R::failure(QStringLiteral("%1: %2: an anomaly without op_name").arg(shown, rankKey));
            MsprobeAnomaly a{rankKey, qs(t.text(t.node(name))), strings(t, t.find(e, "construct_info")), strings(t, t.find(e, "stack_info")), {}};
            if (const std::uint32_t info = t.find(e, "data_info"); info && t.node(info).kind == JsonNode::Object)
                for (std::uint32_t m = t.node(info).first; m; m = t.node(m).next) {
                    std::string value;
                    t.serialize(m, value);
                    a.data.emplace_back(std::string(t.key(t.node(m))), std::move(value));
                }
            out.push_back(std::move(a));
        }
    }
    return out;
}

Result<std::vector<MsprobeAnomaly>> readAnomalyAnalyze(const QString &path)
{
    using R = Result<std::vector<MsprobeAnomaly>>;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return R::failure(QStringLiteral("%1: cannot open (%2)").arg(path, f.errorString()));
    constexpr qint64 kMax = qint64(256) << 20;
    if (f.size() > kMax)
        return R::failure(QStringLiteral("%1: %2 bytes, more than the %3 an overflow_check answer can hold").arg(path).arg(f.size()).arg(kMax));
    return parseAnomalyAnalyze(f.readAll(), path);
}

} // namespace ds
