#include "buildindex.h"

#include "dump/levels.h"
#include "formats/readers.h"
#include "util/parallel.h"
#include "util/prefault.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMap>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <map>
#include <mutex>
#include <sys/stat.h>
#include <unordered_map>

namespace ds {

namespace {

QString join(const QString &a, const QString &b) { return a.isEmpty() ? b : a + QLatin1Char('/') + b; }

QString notDumpFileNameText() { return QStringLiteral("not a dump file name"); }

/// The readers in the order they are asked about a directory (ClaimOrder, then list order).
std::vector<FormatId> claimOrder()
{
    const auto &readers = dumpReaders();
    std::vector<FormatId> order;
    for (size_t i = 0; i < readers.size(); ++i)
        order.push_back(FormatId(i));
    std::stable_sort(order.begin(), order.end(), [&](FormatId a, FormatId b) {
        return formatReader(a).claimOrder() < formatReader(b).claimOrder();
    });
    return order;
}

/// Walks the tree once, directory by directory, and collects what the readers claim.
class Walker
{
public:
    Walker(QString root, const JobControl *job) : m_root(std::move(root)), m_job(job), m_order(claimOrder()) {}

    std::vector<Claim> claims;
    std::vector<FileError> errors;

    void walk(const QString &relDir, int depth)
    {
        if (m_job && m_job->cancelled())
            return;
        const QString absDir = relDir.isEmpty() ? m_root : m_root + QLatin1Char('/') + relDir;
        DIR *dir = ::opendir(QFile::encodeName(absDir).constData());
        if (!dir) {
            const int err = errno;
            errors.push_back(Error(relDir.isEmpty() ? QStringLiteral(".") : relDir,
                                   QStringLiteral("cannot read directory: %1").arg(QString::fromLocal8Bit(std::strerror(err))),
                                   0, err == ENOENT ? ErrorKind::NotFound : ErrorKind::Access));
            return;
        }
        QStringList files, dirs;
        while (const dirent *e = ::readdir(dir)) {
            const char *n = e->d_name;
            if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0)))
                continue;
            const QString name = QFile::decodeName(n);
            unsigned char type = e->d_type;
            if (type == DT_UNKNOWN || type == DT_LNK) {
                struct stat st{};
                const QByteArray full = QFile::encodeName(absDir + QLatin1Char('/') + name);
                // Symlinked directories are not followed (no loops); symlinked files are.
                if (type == DT_LNK ? ::stat(full.constData(), &st) != 0 : ::lstat(full.constData(), &st) != 0) {
                    if (type == DT_LNK)
                        errors.push_back(Error(join(relDir, name), QStringLiteral("broken symbolic link"), 0, ErrorKind::NotFound));
                    continue;
                }
                type = S_ISREG(st.st_mode) ? DT_REG : (S_ISDIR(st.st_mode) && e->d_type != DT_LNK ? DT_DIR : DT_UNKNOWN);
            }
            if (type == DT_DIR)
                dirs << name;
            else if (type == DT_REG)
                files << name;
        }
        ::closedir(dir);
        // Files stay in directory order: finalize() sorts the ops, nothing depends on the
        // order of the claims.
        std::sort(dirs.begin(), dirs.end());
        if (offer(DirListing{m_root, absDir, relDir, files}))
            return; // a rank directory: below it are only its tensor files
        for (const QString &d : std::as_const(dirs)) {
            if (depth < kMaxDepth)
                walk(join(relDir, d), depth + 1);
            else
                errors.push_back(Error(join(relDir, d), QStringLiteral("not read: more than %1 nested directories").arg(kMaxDepth),
                                       0, ErrorKind::Unsupported));
        }
    }

    void addSingleFile(const QString &name) { offer(DirListing{m_root, m_root, {}, {name}}); }

private:
    static constexpr int kMaxDepth = 32;

    /// Offers a directory to the readers; true when one took all of it.
    bool offer(DirListing listing)
    {
        for (FormatId f : m_order) {
            const size_t first = claims.size();
            const bool whole = formatReader(f).claim(listing, claims);
            for (size_t i = first; i < claims.size(); ++i)
                claims[i].format = f;
            if (whole)
                return true;
        }
        return false;
    }

    QString m_root;
    const JobControl *m_job;
    std::vector<FormatId> m_order;
};

/// Overall progress of claims indexed in parallel, each weighted by its files.
class ClaimProgress
{
public:
    ClaimProgress(const std::vector<Claim> &claims, const JobControl *job) : m_job(job), m_done(claims.size())
    {
        for (const Claim &c : claims)
            m_total += weight(c);
    }
    static std::uint64_t weight(const Claim &c) { return std::max<std::uint64_t>(1, std::uint64_t(c.files.size())); }

    /// A claim reports `permille` of its own work.
    void report(size_t claim, std::uint64_t claimWeight, int permille)
    {
        if (!m_job || m_total == 0)
            return;
        const std::uint64_t now = claimWeight * std::uint64_t(std::clamp(permille, 0, 1000));
        const std::uint64_t before = m_done[claim].exchange(now);
        const std::uint64_t sum = m_sum.fetch_add(now - std::min(now, before)) + (now - std::min(now, before));
        const int overall = int(std::min<std::uint64_t>(1000, sum / m_total));
        if (overall != m_last.exchange(overall))
            m_job->report(overall);
    }

private:
    const JobControl *m_job;
    std::vector<std::atomic<std::uint64_t>> m_done;
    std::atomic<std::uint64_t> m_sum{0};
    std::uint64_t m_total = 0;
    std::atomic<int> m_last{-1};
};

} // namespace

Result<TreeWalk> walkTree(const QString &path, const JobControl *job)
{
    const QFileInfo info(path);
    if (!info.exists())
        return Error(ErrorKind::NotFound, path, QStringLiteral("no such file or directory"));
    TreeWalk tree;
    tree.openedPath = info.absoluteFilePath();
    tree.singleFile = !info.isDir();
    tree.rootDir = tree.singleFile ? info.absolutePath() : QDir::cleanPath(info.absoluteFilePath());
    Walker walker(tree.rootDir, job);
    if (tree.singleFile)
        walker.addSingleFile(info.fileName());
    else
        walker.walk({}, 0);
    tree.claims = std::move(walker.claims);
    tree.errors = std::move(walker.errors);
    tree.cancelled = job && job->cancelled();
    tree.runs.reserve(tree.claims.size());
    for (const Claim &c : tree.claims)
        tree.runs.push_back(runRootOf(c.relPath, c.levels));
    return tree;
}

std::shared_ptr<DumpIndex> indexClaims(const TreeWalk &walk, const std::vector<size_t> &which, const JobControl *job,
                                       const IndexBatchSink &sink, IndexLabels labels, const IndexOpsSink &live)
{
    auto index = std::make_shared<DumpIndex>();
    index->openedPath = walk.openedPath;
    index->rootDir = walk.rootDir;
    const bool all = which.empty();
    if (all)
        index->errors = walk.errors;
    std::vector<const Claim *> claims;
    if (all)
        for (const Claim &c : walk.claims)
            claims.push_back(&c);
    else
        for (size_t i : which)
            if (i < walk.claims.size())
                claims.push_back(&walk.claims[i]);
    std::vector<Claim> weights; // ClaimProgress weighs claims by their files
    weights.reserve(claims.size());
    for (const Claim *c : claims)
        weights.push_back(Claim{c->format, {}, {}, c->files, {}});
    ClaimProgress progress(weights, job);
    std::mutex mutex;
    // The ops of every part, joined once at the end: appending them one part at a time regrows
    // (moves and page-faults) the whole index per part.
    struct PartOps
    {
        std::vector<OpRecord> ops;
        const QString *run;
    };
    std::vector<PartOps> partOps;
    // run -> framework -> (its first claim in walk order, that claim's folder): the first, not
    // the first to finish, so the message is the same on every run and in every merge order
    std::map<QString, QMap<QString, std::pair<size_t, QString>>> frameworksOfRun;
    std::vector<FormatId> formats; // of the ops (as DumpIndex::sourceFormats, without a pass over them)
    const bool finished = parallelChunks(claims.size(), 1, [&](size_t c, size_t, size_t) {
        const Claim &claim = *claims[c];
        const QString *run = &walk.runs[size_t(claims[c] - walk.claims.data())];
        const std::uint64_t w = ClaimProgress::weight(claim);
        JobControl sub;
        sub.cancelFlag = job ? job->cancelFlag : nullptr;
        sub.progress = [&, c, w](int permille) { progress.report(c, w, permille); };
        size_t shown = 0; // operators the reader delivered to `live` while it read
        if (live)
            sub.opsRead = [&live, &claim, &shown](const OpRecord *ops, size_t count) {
                shown += count;
                live(claim.format, ops, count);
            };
        auto part = formatReader(claim.format).index(index->rootDir, claim, &sub);
        progress.report(c, w, 1000);
        if (part && !part->framework.isEmpty()) { // the tree and the inspector say which framework a part came from
            std::unordered_map<const DumpLevels *, SharedLevels> withFramework; // ops of a directory share levels
            for (OpRecord &op : part->ops) {
                auto [it, added] = withFramework.try_emplace(&*op.levels);
                if (added) {
                    DumpLevels l = *op.levels;
                    l.framework = part->framework;
                    it->second = SharedLevels(std::move(l));
                }
                op.levels = it->second;
            }
        }
        std::lock_guard lock(mutex);
        if (!part) {
            if (!part.isCancelled())
                index->errors.push_back(part.error().file.isEmpty()
                                            ? part.error().about(claim.relPath.isEmpty() ? QStringLiteral(".") : claim.relPath)
                                            : part.error());
            return !(job && job->cancelled());
        }
        index->otherFiles += part->otherFiles;
        if (!part->framework.isEmpty() && !part->ops.empty()) {
            auto &seen = frameworksOfRun[*run];
            const size_t order = size_t(claims[c] - walk.claims.data());
            auto it = seen.find(part->framework);
            if (it == seen.end() || order < it.value().first)
                seen.insert(part->framework, {order, claim.relPath.isEmpty() ? QStringLiteral(".") : claim.relPath});
        }
        if (!part->task.isEmpty() && !part->ops.empty() && !index->producerTasks.contains(part->task)) {
            index->producerTasks.append(part->task);
            index->producerTasks.sort();
        }
        if (!part->framework.isEmpty() && !part->ops.empty() && !index->producerFrameworks.contains(part->framework)) {
            index->producerFrameworks.append(part->framework);
            index->producerFrameworks.sort();
        }
        const int stackBase = int(index->stacks.size());
        for (OpRecord &op : part->ops) {
            op.source = claim.format;
            if (op.stack >= 0)
                op.stack += stackBase;
        }
        std::move(part->stacks.begin(), part->stacks.end(), std::back_inserter(index->stacks));
        if (live && part->ops.size() > shown) // the rest of the part (all of it for most readers)
            live(claim.format, part->ops.data() + shown, part->ops.size() - shown);
        if (sink && (!part->ops.empty() || !part->errors.empty()))
            sink(part->ops, part->errors);
        if (!part->ops.empty()) {
            if (std::find(formats.begin(), formats.end(), claim.format) == formats.end())
                formats.push_back(claim.format);
            partOps.push_back({std::move(part->ops), run});
        }
        std::move(part->errors.begin(), part->errors.end(), std::back_inserter(index->errors));
        return !(job && job->cancelled());
    });
    // Parts in the order of their levels (a part is usually one directory's ops, already in
    // execution order): finalize then mostly finds the ops in place instead of moving each
    // one again. It still computes the order itself.
    std::stable_sort(partOps.begin(), partOps.end(), [](const PartOps &a, const PartOps &b) {
        return levelsBefore(*a.ops.front().levels, *b.ops.front().levels);
    });
    size_t total = 0;
    for (const PartOps &p : partOps)
        total += p.ops.size();
    // A folder holding several runs shows each under its own node, named by its folder
    // relative to the opened one ("." for the opened folder itself).
    const bool severalRuns = labels == IndexLabels::Always
                             || std::any_of(partOps.begin(), partOps.end(), [&](const PartOps &p) { return *p.run != *partOps.front().run; });
    std::vector<const QString *> opRuns; // the run of every op, in index->ops order
    if (severalRuns) {
        opRuns.reserve(total);
        for (const PartOps &p : partOps)
            opRuns.insert(opRuns.end(), p.ops.size(), p.run);
    }
    if (partOps.size() == 1) {
        index->ops = std::move(partOps.front().ops);
    } else {
        // Moved and freed part by part on all cores, into ops made in prefaulted memory.
        reservePrefaulted(index->ops, total);
        index->ops.resize(total);
        std::vector<size_t> offset{0};
        for (const PartOps &p : partOps)
            offset.push_back(offset.back() + p.ops.size());
        parallelChunks(partOps.size(), 1, [&](size_t i, size_t, size_t) {
            std::move(partOps[i].ops.begin(), partOps[i].ops.end(), index->ops.begin() + std::ptrdiff_t(offset[i]));
            partOps[i].ops = {};
            return true;
        });
    }
    partOps.clear();
    if (severalRuns) {
        std::unordered_map<const DumpLevels *, SharedLevels> withRun;
        for (size_t i = 0; i < index->ops.size(); ++i) {
            OpRecord &op = index->ops[i];
            auto [it, added] = withRun.try_emplace(&*op.levels);
            if (added) {
                DumpLevels l = *op.levels;
                l.run = opRuns[i]->isEmpty() ? QStringLiteral(".") : *opRuns[i];
                it->second = SharedLevels(std::move(l));
            }
            op.levels = it->second;
        }
    }
    // One run folder holding dumps of several frameworks (a PyTorch rank beside a MindSpore
    // one): it loads, but its steps and ranks mix two trainings; say so, naming a folder of each.
    for (const auto &[run, frameworks] : frameworksOfRun)
        if (frameworks.size() > 1) {
            QStringList where;
            for (auto it = frameworks.cbegin(); it != frameworks.cend(); ++it)
                where << QStringLiteral("%1 (%2)").arg(it.key(), it.value().second);
            index->errors.push_back({ErrorKind::Unsupported, run.isEmpty() ? QStringLiteral(".") : run,
                                     QStringLiteral("one run folder holds dumps of several frameworks: %1; each is read, "
                                                    "but their steps and ranks are shown as one run")
                                         .arg(where.join(QStringLiteral(", ")))});
        }
    index->cancelled = walk.cancelled || !finished || (job && job->cancelled());
    // A folder holding several formats shows each under its own node.
    if (formats.size() > 1 || labels == IndexLabels::Always) {
        // Ops of one directory share their levels: give each shared set its part once.
        std::unordered_map<const DumpLevels *, SharedLevels> withPart;
        for (OpRecord &op : index->ops) {
            auto [it, added] = withPart.try_emplace(&*op.levels);
            if (added) {
                DumpLevels l = *op.levels;
                l.part = sourceFormatName(op.source);
                it->second = SharedLevels(std::move(l));
            }
            op.levels = it->second;
        }
    }
    if (all && walk.singleFile && index->otherFiles == 1)
        index->errors.push_back(Error(QFileInfo(walk.openedPath).fileName(), notDumpFileNameText(), 0,
                                      ErrorKind::Unsupported));
    index->finalize();
    return index;
}

bool isNotDumpFileName(const FileError &error)
{
    return error.kind == ErrorKind::Unsupported && error.message == notDumpFileNameText();
}

bool recognisedNothing(std::uint64_t ops, const std::vector<FileError> &errors)
{
    return ops == 0 && (errors.empty() || (errors.size() == 1 && isNotDumpFileName(errors.front())));
}

QString nothingRecognisedMessage(const QString &openedPath, bool singleFile, std::optional<std::uint64_t> otherFiles)
{
    QStringList formats;
    for (const DumpReader *reader : dumpReaders())
        formats << reader->description();
    QString what;
    const int count = otherFiles ? int(std::min<std::uint64_t>(*otherFiles, INT_MAX)) : 0;
    if (singleFile)
        what = QCoreApplication::translate("ds::DumpIndex", "Nothing recognised here: %1 is no file DumpScope reads.").arg(openedPath);
    else if (!otherFiles)
        what = QCoreApplication::translate("ds::DumpIndex", "Nothing recognised here: %1 holds no file DumpScope reads.").arg(openedPath);
    else if (*otherFiles == 0)
        what = QCoreApplication::translate("ds::DumpIndex", "Nothing recognised here: %1 holds no files.").arg(openedPath);
    else
        what = QCoreApplication::translate("ds::DumpIndex", "Nothing recognised here: none of the %n file(s) in %1 is one DumpScope reads.",
                                           nullptr, count)
                   .arg(openedPath);
    return what + QLatin1Char(' ')
           + QCoreApplication::translate("ds::DumpIndex", "Looked for: %1; and graph files (GE ge_proto_*/ge_onnx_*, msprobe *.vis.db), "
                                                          "which the Graph tab and `dumpscope-cli graph` open.")
                 .arg(formats.join(QStringLiteral("; ")));
}

Result<std::shared_ptr<DumpIndex>> buildIndex(const QString &path, const JobControl *job, const IndexBatchSink &sink,
                                              const IndexOpsSink &live)
{
    auto walk = walkTree(path, job);
    if (!walk)
        return walk.error();
    return indexClaims(*walk, {}, job, sink, IndexLabels::Auto, live);
}

} // namespace ds
