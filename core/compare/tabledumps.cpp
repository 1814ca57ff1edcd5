// The dumps beside an msprobe compare table (tabledumps.h): a compare JSON that names them, or
// msprobe dump folders near the table, each checked against the table's own values.
#include "tabledumps.h"

#include "dump/dumpindex.h"
#include "index/buildindex.h"
#include "util/cancel.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace ds {

namespace {

constexpr int kLevelsUp = 4;        ///< folders above the table's own that are searched
constexpr int kDepthBelow = 5;      ///< dumps/<run>/step<N>/rank<R> below a searched folder, and one more level
constexpr int kMaxFolders = 2000;   ///< folders looked at in all before the search gives up (said in a note)
/// A folder with more subfolders than this is a large tree (a scratch or home folder, a dataset),
/// not a compare output beside its dumps: it is not descended into (said in a note; issue 35).
constexpr int kMaxSubfolders = 200;
constexpr qint64 kMaxCompareJson = 1 << 20;
// A candidate is indexed only when its dump.json could be this table's: msprobe writes about
// one table row per dump.json entry, and an entry is a few hundred bytes like a row, so a
// dump.json many times the table's size (an xlsx compresses ~10x) is some other, bigger dump.
// Without this, a table saved beside a 20 GiB run indexed that run before opening (issue 35).
constexpr qint64 kCandidateBytesPerTableByte = 64;
constexpr qint64 kCandidateBytesFloor = qint64(64) << 20;
constexpr qint64 kSearchBytes = qint64(2) << 30; ///< dump.json bytes indexed in all, then the search stops

/// How one candidate dump fits one side of the table.
struct Fit
{
    int checked = 0;   ///< rows whose recorded values were compared
    int missing = 0;   ///< rows the dump does not hold
    int differ = 0;    ///< rows whose values differ from the table's
    bool full() const { return checked > 0 && missing == 0 && differ == 0; }
};

struct Candidate
{
    QString path;
    std::shared_ptr<const DumpIndex> index;
    Fit npu, bench;
    int npuWords = 0, benchWords = 0; ///< role words in the folder names (npu; bench, base, gpu, ...)
    int shared = 0;                   ///< words its path shares with the table's
    bool modeFits = false;            ///< its dump.json's task gives the table's mode (msprobeTaskMode)
    int rank(bool npu) const { return (modeFits ? 100 : 0) + (npu ? npuWords : benchWords); }
};

bool sameNumber(double a, double b)
{
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    if (a == b)
        return true;
    if (std::isinf(a) || std::isinf(b))
        return false;
    return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); // xlsx keeps 15-17 digits
}

/// Compares a row's side with the dump's tensor: the statistics the table holds, or its CRC.
void fit(Fit &f, const DumpIndex &dump, size_t ownOps, const DumpIndex::TensorRef &ref,
         const std::array<MetricValue, kStatCount> &stats, const QString &checksum)
{
    if (ref.op < 0)
        return;
    if (size_t(ref.op) >= ownOps) { // added from the table: the dump has no such tensor
        ++f.missing;
        return;
    }
    const TensorRecord &t = dump.tensor(ref);
    const RecordedStats r = t.recorded();
    const double recorded[] = {r.max, r.min, r.mean, r.norm};
    const RecordedStats::Field fields[] = {RecordedStats::Max, RecordedStats::Min, RecordedStats::Mean, RecordedStats::Norm};
    bool compared = false, same = true;
    for (size_t k = 0; k < kStatCount; ++k) {
        const MetricValue &v = stats[k];
        if (!(v.isNumber() || v.state == MetricValue::State::Nan) || !r.has(fields[k]))
            continue;
        compared = true;
        same = same && sameNumber(v.value, recorded[k]);
    }
    if (!checksum.isEmpty() && checksum != QLatin1String("N/A") && !t.checksum().isEmpty()) {
        compared = true;
        same = same && checksum.compare(t.checksum(), Qt::CaseInsensitive) == 0;
    }
    if (!compared)
        return; // a value leaf (int, str) or a record without statistics: says nothing
    ++f.checked;
    if (!same)
        ++f.differ;
}

QSet<QString> words(const QString &path)
{
    static const QRegularExpression split(QStringLiteral("[/_\\-. ]+"));
    QSet<QString> out;
    for (const QString &w : path.toLower().split(split, Qt::SkipEmptyParts))
        out.insert(w);
    return out;
}

int roleWords(const QSet<QString> &w, bool npu)
{
    static const QStringList bench = {QStringLiteral("bench"), QStringLiteral("base"), QStringLiteral("baseline"),
                                      QStringLiteral("gpu"), QStringLiteral("golden"), QStringLiteral("cpu"),
                                      QStringLiteral("standard"), QStringLiteral("ref")};
    int n = 0;
    for (const QString &b : bench)
        if (w.contains(b))
            n += npu ? -1 : 1;
    if (w.contains(QStringLiteral("npu")))
        n += npu ? 1 : -1;
    return n;
}

/// Folders holding a dump.json in the table's scope, below `root` (depth-limited; hidden
/// folders and symbolic links are not followed; `skip` was searched already).
void collect(const QString &root, const QString &skip, const DumpLevels &levels, int depth, int &budget,
             QStringList &out, QStringList &large)
{
    if (budget <= 0)
        return;
    --budget;
    const QDir dir(root);
    if (QFileInfo::exists(dir.filePath(QStringLiteral("dump.json")))) {
        static const QRegularExpression step(QStringLiteral("^step\\d+$"));
        const QStringList parts = QDir::cleanPath(root).split(QLatin1Char('/'), Qt::SkipEmptyParts);
        const QString leaf = parts.value(parts.size() - 1);
        const QString parent = parts.value(parts.size() - 2);
        const bool rankOk = levels.rank.isEmpty() || leaf == levels.rank;
        const bool stepOk = levels.step.isEmpty() || !step.match(parent).hasMatch() || parent == levels.step;
        if (rankOk && stepOk)
            out << QDir::cleanPath(root);
        return;
    }
    if (depth <= 0)
        return;
    const QFileInfoList subs = dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Name);
    if (subs.size() > kMaxSubfolders) {
        large << QDir::cleanPath(root);
        return;
    }
    for (const QFileInfo &s : subs)
        if (s.absoluteFilePath() != skip)
            collect(s.absoluteFilePath(), QString(), levels, depth - 1, budget, out, large);
}

/// The folder of one side named by a compare JSON (a dump.json file, a rank folder or a folder
/// of step/rank folders), in the table's scope.
QString sideFolder(const QString &base, const QString &named, const DumpLevels &levels)
{
    QFileInfo info(QDir(base).absoluteFilePath(named));
    if (!info.exists())
        return {};
    QString dir = info.isFile() ? info.absolutePath() : info.absoluteFilePath();
    if (QFileInfo::exists(QDir(dir).filePath(QStringLiteral("dump.json"))))
        return QDir::cleanPath(dir);
    for (const QString &sub : {QString(levels.step + QLatin1Char('/') + levels.rank), levels.rank})
        if (!levels.rank.isEmpty() && QFileInfo::exists(QDir(dir).filePath(sub + QStringLiteral("/dump.json"))))
            return QDir::cleanPath(QDir(dir).filePath(sub));
    return {};
}

class Finder
{
public:
    Finder(const TextTable &table, const JobControl *job) : m_table(table), m_job(job)
    {
        m_levels = compareTableLevels(table.path);
        if (auto plain = openedTableFrom(table))
            m_mode = plain->result->mode;
        m_tableDir = QFileInfo(table.path).absolutePath();
    }

    TableDumps run()
    {
        TableDumps out;
        if (fromCompareJson(out))
            return out;
        const QString home = QDir::cleanPath(QDir::homePath());
        QString dir = m_tableDir, searched, stoppedAt;
        int budget = kMaxFolders;
        QStringList large;
        for (int up = 0; up <= kLevelsUp && !(m_job && m_job->cancelled()); ++up) {
            const QString clean = QDir::cleanPath(dir);
            if (QDir(clean).isRoot() || clean == home)
                break;
            QStringList folders;
            collect(clean, searched, m_levels, kDepthBelow, budget, folders, large);
            std::vector<Candidate> candidates;
            for (const QString &f : std::as_const(folders))
                if (!m_tried.contains(f) && affordable(f, out))
                    candidates.push_back(judge(f));
            if (pick(candidates, clean, out))
                return out;
            if (!folders.isEmpty()) { // the nearest folder holding dumps: those beside the table, or none
                stoppedAt = clean;
                break;
            }
            searched = clean;
            dir = QFileInfo(clean).absolutePath();
        }
        if (!stoppedAt.isEmpty())
            out.notes << QStringLiteral("the search stopped at %1, the nearest folder holding msprobe dumps of the table's scope: "
                                        "none of them holds the table's rows with its values").arg(stoppedAt);
        for (const QString &l : std::as_const(large))
            out.notes << QStringLiteral("%1 was not searched: more than %2 folders in it").arg(l).arg(kMaxSubfolders);
        if (budget <= 0)
            out.notes << QStringLiteral("the search stopped after %1 folders").arg(kMaxFolders);
        if (m_bytesLeft <= 0)
            out.notes << QStringLiteral("the search stopped after indexing %1 MiB of dump.json files").arg(kSearchBytes >> 20);
        out.how = QStringLiteral("no dumps found beside the table (a compare JSON with npu_path and bench_path, or msprobe "
                                 "dump folders%1 holding its rows with its values, in its folder or up to %2 folders above "
                                 "it); give them with --npu PATH --bench PATH (the GUI: open the two dumps and use "
                                 "Analysis \u2192 Compare with\u2026)")
                      .arg(m_levels.rank.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(scopeText()))
                      .arg(kLevelsUp);
        return out;
    }

private:
    /// Whether the dump in `folder` is small enough to be the table's and fits what is left of
    /// the search's budget; a dump skipped for its size is named in the notes.
    bool affordable(const QString &folder, TableDumps &out)
    {
        const qint64 size = QFileInfo(QDir(folder).filePath(QStringLiteral("dump.json"))).size();
        const qint64 limit = std::max(kCandidateBytesFloor, kCandidateBytesPerTableByte * QFileInfo(m_table.path).size());
        if (size > limit) {
            out.notes << QStringLiteral("%1 was not read: its dump.json (%2 MiB) is far larger than this table's dumps can be")
                             .arg(folder).arg(size >> 20);
            return false;
        }
        if (m_bytesLeft <= 0)
            return false;
        m_bytesLeft -= size;
        return true;
    }

    QString scopeText() const
    {
        QStringList s;
        for (const QString *l : {&m_levels.step, &m_levels.rank})
            if (!l->isEmpty())
                s << *l;
        return s.join(QLatin1Char('/'));
    }

    Candidate judge(const QString &folder)
    {
        m_tried.insert(folder);
        Candidate c;
        c.path = folder;
        auto built = buildIndex(folder, m_job);
        if (!built || (*built)->ops.empty())
            return c;
        c.index = *built;
        c.modeFits = msprobeTaskMode(*c.index, *c.index) == m_mode;
        auto linked = openedTableFrom(m_table, c.index, c.index);
        if (!linked)
            return c;
        const size_t own = c.index->ops.size();
        for (const CompareRow &row : linked->result->rows) {
            fit(c.npu, *linked->npu, own, row.npu, row.npuStats, row.npuChecksum);
            if (row.bench.op >= 0)
                fit(c.bench, *linked->bench, own, row.bench, row.benchStats, row.benchChecksum);
        }
        return c;
    }

    bool fromCompareJson(TableDumps &out)
    {
        for (const QString &dir : {m_tableDir, QFileInfo(m_tableDir).absolutePath()}) {
            const QFileInfoList files = QDir(dir).entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
            for (const QFileInfo &f : files) {
                if (f.size() > kMaxCompareJson)
                    continue;
                QFile file(f.absoluteFilePath());
                if (!file.open(QIODevice::ReadOnly))
                    continue;
                const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
                if (!o.value(QStringLiteral("npu_path")).isString() || !o.value(QStringLiteral("bench_path")).isString())
                    continue;
                const QString npu = sideFolder(f.absolutePath(), o.value(QStringLiteral("npu_path")).toString(), m_levels);
                const QString bench = sideFolder(f.absolutePath(), o.value(QStringLiteral("bench_path")).toString(), m_levels);
                if (npu.isEmpty() || bench.isEmpty()) {
                    out.notes << QStringLiteral("%1 names dumps that are not there (npu_path %2, bench_path %3)")
                                     .arg(f.fileName(), o.value(QStringLiteral("npu_path")).toString(),
                                          o.value(QStringLiteral("bench_path")).toString());
                    continue;
                }
                Candidate n = judge(npu), b = npu == bench ? n : judge(bench);
                if (!n.index || !b.index || !n.npu.full() || !b.bench.full()) {
                    out.notes << QStringLiteral("%1 names %2 and %3, but their values are not the table's").arg(f.fileName(), npu, bench);
                    continue;
                }
                out.npu = n.index;
                out.bench = b.index;
                out.how = QStringLiteral("named by the compare JSON %1 (npu_path, bench_path)").arg(f.absoluteFilePath());
                return true;
            }
        }
        return false;
    }

    bool pick(std::vector<Candidate> &candidates, const QString &root, TableDumps &out)
    {
        const QSet<QString> tableWords = words(QDir(root).relativeFilePath(m_table.path));
        for (Candidate &c : candidates) {
            const QSet<QString> w = words(QDir(root).relativeFilePath(c.path));
            c.npuWords = roleWords(w, true);
            c.benchWords = roleWords(w, false);
            c.shared = int(QSet<QString>(w).intersect(tableWords).size());
        }
        auto best = [&](bool npu, const Candidate *other) -> std::vector<const Candidate *> {
            std::vector<const Candidate *> fits;
            for (const Candidate &c : candidates)
                if (c.index && (npu ? c.npu : c.bench).full() && &c != other)
                    fits.push_back(&c);
            std::stable_sort(fits.begin(), fits.end(), [npu](const Candidate *a, const Candidate *b) {
                return a->rank(npu) != b->rank(npu) ? a->rank(npu) > b->rank(npu) : a->shared > b->shared;
            });
            return fits;
        };
        std::vector<const Candidate *> npuFits = best(true, nullptr);
        if (npuFits.empty())
            return false;
        const Candidate *npu = npuFits.front();
        std::vector<const Candidate *> benchFits = best(false, npu);
        if (benchFits.empty()) {
            if (!npu->bench.full())
                return false;
            benchFits = {npu}; // the table compares a dump with itself
        }
        const Candidate *bench = benchFits.front();
        auto rel = [&](const Candidate *c) { return QDir(root).relativeFilePath(c->path); };
        // dumps the task and the role words do not tell apart (the path's words chose)
        auto ties = [&](const std::vector<const Candidate *> &fits, const Candidate *chosen, const char *side) {
            const bool npuSide = side[0] == 'N';
            QStringList others;
            for (const Candidate *c : fits)
                if (c != chosen && c->rank(npuSide) == chosen->rank(npuSide))
                    others << rel(c);
            if (!others.isEmpty())
                out.notes << QStringLiteral("%1 dump: %2 hold the same values too; chosen %3 by the words its path shares with the table's")
                                 .arg(QLatin1String(side), others.join(QStringLiteral(", ")), rel(chosen));
        };
        ties(npuFits, npu, "NPU");
        ties(benchFits, bench, "bench");
        out.npu = npu->index;
        out.bench = bench->index;
        out.how = QStringLiteral("found beside the table in %1: %2 holds every NPU row with the table's values, %3 every bench row")
                      .arg(root, rel(npu), rel(bench));
        return true;
    }

    const TextTable &m_table;
    const JobControl *m_job;
    DumpLevels m_levels;
    CompareMode m_mode = CompareMode::None;
    QString m_tableDir;
    QSet<QString> m_tried;
    qint64 m_bytesLeft = kSearchBytes;
};

} // namespace

TableDumps findTableDumps(const TextTable &table, const JobControl *job)
{
    return Finder(table, job).run();
}

Result<OpenedTable> openCompareTableWithDumps(const QString &path, std::shared_ptr<const DumpIndex> npu,
                                              std::shared_ptr<const DumpIndex> bench, const JobControl *job)
{
    auto table = path.endsWith(QLatin1String(".xlsx"), Qt::CaseInsensitive) ? readXlsxTable(path) : readCsvTable(path);
    if (!table)
        return table.error();
    QString how;
    QStringList notes;
    if (npu && bench) {
        how = QStringLiteral("given: %1 and %2").arg(npu->openedPath, bench->openedPath);
    } else {
        // a table that does not open says so without searching first
        if (auto plain = openedTableFrom(*table); !plain)
            return plain.error();
        TableDumps found = findTableDumps(*table, job);
        npu = found.npu;
        bench = found.bench;
        how = found.how;
        notes = found.notes;
    }
    auto opened = openedTableFrom(*table, npu, bench);
    if (!opened)
        return opened;
    auto result = std::make_shared<CompareResult>(*opened->result);
    result->tableDumps = how;
    for (const QString &n : std::as_const(notes))
        result->warnings << n;
    opened->result = std::move(result);
    return opened;
}

} // namespace ds
