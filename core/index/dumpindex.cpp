#include "dumpindex.h"

#include "formats/cann/dumpfile.h"
#include "formats/cann/dumpname.h"
#include "formats/cann/mappingcsv.h"
#include "frameworkparts.h"
#include "util/parallel.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <mutex>
#include <numeric>
#include <sys/stat.h>

namespace ds {

namespace {

bool allDigits(const QString &s)
{
    return !s.isEmpty() && std::all_of(s.begin(), s.end(), [](QChar c) { return c.isDigit() && c.unicode() < 128; });
}

/// A regular file found by the walk, with what is known about its directory. Whether its name
/// is a dump name is decided later, on the worker threads.
struct Candidate
{
    QString relPath;      // relative to rootDir
    QString mappedName;   // from mapping.csv, for numeric names
    std::shared_ptr<const DumpLevels> levels;
};

class Walker
{
public:
    Walker(QString root, const JobControl *job) : m_root(std::move(root)), m_job(job) {}

    std::vector<Candidate> candidates;
    std::vector<FrameworkDir> frameworkParts;
    std::vector<FileError> errors;

    void walk(const QString &relDir, int depth)
    {
        if (m_job && m_job->cancelled())
            return;
        const QString absDir = relDir.isEmpty() ? m_root : m_root + QLatin1Char('/') + relDir;
        DIR *dir = ::opendir(QFile::encodeName(absDir).constData());
        if (!dir) {
            errors.push_back({relDir.isEmpty() ? QStringLiteral(".") : relDir,
                              QStringLiteral("cannot read directory: %1").arg(QString::fromLocal8Bit(std::strerror(errno)))});
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
                        errors.push_back({join(relDir, name), QStringLiteral("broken symbolic link")});
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
        // order of the candidates.
        std::sort(dirs.begin(), dirs.end());
        const DirVerdict verdict = classifyDirectory(absDir, relDir, files);
        frameworkParts.insert(frameworkParts.end(), verdict.parts.begin(), verdict.parts.end());
        if (verdict.wholeDirectory)
            return; // an msprobe/ptdbg rank directory: below it are only its tensor files
        addFiles(relDir, absDir, files);
        for (const QString &d : std::as_const(dirs)) {
            if (depth < kMaxDepth)
                walk(join(relDir, d), depth + 1);
            else
                errors.push_back({join(relDir, d), QStringLiteral("not read: more than %1 nested directories").arg(kMaxDepth)});
        }
    }

    void addSingleFile(const QString &name)
    {
        QStringList files{name};
        const DirVerdict verdict = classifyDirectory(m_root, {}, files);
        frameworkParts.insert(frameworkParts.end(), verdict.parts.begin(), verdict.parts.end());
        if (!verdict.wholeDirectory)
            addFiles({}, m_root, files);
    }

private:
    static constexpr int kMaxDepth = 32;

    static QString join(const QString &a, const QString &b) { return a.isEmpty() ? b : a + QLatin1Char('/') + b; }

    void addFiles(const QString &relDir, const QString &absDir, const QStringList &files)
    {
        if (files.isEmpty())
            return;
        QHash<QString, QString> mapping;
        if (files.contains(QLatin1String("mapping.csv")))
            mapping = cann::readMappingCsv(absDir + QLatin1String("/mapping.csv"));
        const auto levels = std::make_shared<const DumpLevels>(levelsFor(absDir, relDir));
        for (const QString &f : files)
            candidates.push_back({join(relDir, f), cann::isNumericName(f) ? mapping.value(f) : QString(), levels});
    }

    DumpLevels levelsFor(const QString &absDir, const QString &relDir) const
    {
        QStringList comps = QDir::cleanPath(absDir).split(QLatin1Char('/'), Qt::SkipEmptyParts);
        const qsizetype relCount = relDir.isEmpty() ? 0 : relDir.count(QLatin1Char('/')) + 1;
        // Use the absolute path when a time directory is close above; else only what is below the root.
        for (qsizetype i = comps.size() - 1; i >= 0 && i >= comps.size() - 6; --i)
            if (comps[i].size() == 14 && allDigits(comps[i]))
                return classifyLevels(comps.mid(i));
        return classifyLevels(comps.mid(comps.size() - relCount));
    }

    QString m_root;
    const JobControl *m_job;
};

OpRecord makeOp(const Candidate &c, const cann::DumpName &name, cann::ParsedDump &&parsed)
{
    OpRecord op;
    op.relPath = c.relPath;
    op.levels = SharedLevels(c.levels);
    op.opType = name.opType;
    op.opName = name.opName;
    op.taskId = name.taskId;
    op.streamId = name.streamId;
    op.timestamp = name.timestamp;
    op.opDebug = name.opDebug;
    op.mappedFrom = c.mappedName;
    op.container = parsed.container;
    op.version = parsed.version;
    op.headerOpName = parsed.opName;
    op.dumpTime = parsed.dumpTime;
    op.headerLen = parsed.headerLen;
    op.tensors = std::move(parsed.tensors);
    op.warnings = std::move(parsed.warnings);
    if (!name.warning.isEmpty())
        op.warnings << name.warning;
    return op;
}

/// Parses one candidate into an op or an error. Returns false when its name is not a dump
/// name (the file is skipped and counted apart).
bool indexOne(const QString &root, const Candidate &c, std::vector<OpRecord> &ops, std::vector<FileError> &errors)
{
    const QString baseName = c.relPath.mid(c.relPath.lastIndexOf(QLatin1Char('/')) + 1);
    std::optional<cann::DumpName> name;
    QString nameNote;
    if (cann::isNumericName(baseName)) {
        if (!c.mappedName.isEmpty())
            name = cann::parseDumpName(c.mappedName);
        if (!name) {
            // Unmapped numeric file: still identify it from the header's op_name.
            name = cann::DumpName{};
            name->opType = QStringLiteral("?");
            nameNote = c.mappedName.isEmpty() ? QStringLiteral("numeric file name without a mapping.csv row")
                                              : QStringLiteral("mapping.csv name does not parse: %1").arg(c.mappedName);
        }
    } else {
        name = cann::parseDumpName(baseName);
        if (!name)
            return false;
    }
    const QString path = root + QLatin1Char('/') + c.relPath;
    auto parsed = cann::parseDumpFile(path);
    if (!parsed) {
        errors.push_back({c.relPath, parsed.error()});
        return true;
    }
    std::uint64_t fileSize = 0;
    OpRecord op = makeOp(c, *name, std::move(parsed.value()));
    if (op.opName.isEmpty())
        op.opName = cann::sanitizeName(op.headerOpName);
    if (!nameNote.isEmpty())
        op.warnings << nameNote;
    struct stat st{};
    if (::stat(QFile::encodeName(path).constData(), &st) == 0)
        fileSize = std::uint64_t(st.st_size);
    op.fileSize = fileSize;
    ops.push_back(std::move(op));
    return true;
}

int compareNumericAware(const QString &a, const QString &b)
{
    const bool na = allDigits(a), nb = allDigits(b);
    if (na && nb && a.size() != b.size())
        return a.size() < b.size() ? -1 : 1; // numeric order without overflow
    return a.compare(b);
}

/// Execution order, first part: the directory levels (numeric-aware).
bool levelsBefore(const DumpLevels &a, const DumpLevels &b)
{
    const QString *la[] = {&a.part, &a.time, &a.step, &a.rank, &a.device, &a.modelName, &a.modelId, &a.dataIndex};
    const QString *lb[] = {&b.part, &b.time, &b.step, &b.rank, &b.device, &b.modelName, &b.modelId, &b.dataIndex};
    for (int i = 0; i < 8; ++i)
        if (int c = compareNumericAware(*la[i], *lb[i]))
            return c < 0;
    return false;
}

bool sameLevels(const DumpLevels &a, const DumpLevels &b)
{
    return a.part == b.part && a.time == b.time && a.step == b.step && a.rank == b.rank && a.device == b.device
           && a.modelName == b.modelName && a.modelId == b.modelId && a.dataIndex == b.dataIndex;
}

/// Execution order of ops: levels, then timestamp, then relative path. All the files of a
/// directory share their levels, so the levels are ranked once per distinct directory and the
/// sort compares integers (and paths only on equal timestamps). Returns the permutation.
std::vector<size_t> executionOrder(const std::vector<OpRecord> &ops)
{
    // Distinct level tuples; consecutive ops usually come from the same directory.
    std::vector<size_t> levelId(ops.size());
    std::vector<const DumpLevels *> distinct;
    QHash<QString, size_t> idByKey;
    for (size_t i = 0; i < ops.size(); ++i) {
        const DumpLevels &l = *ops[i].levels;
        if (i > 0 && sameLevels(l, *ops[i - 1].levels)) {
            levelId[i] = levelId[i - 1];
            continue;
        }
        const QChar sep(0);
        const QString key = l.part + sep + l.time + sep + l.step + sep + l.rank + sep + l.device + sep + l.modelName
                            + sep + l.modelId + sep + l.dataIndex;
        auto it = idByKey.find(key);
        if (it == idByKey.end()) {
            it = idByKey.insert(key, distinct.size());
            distinct.push_back(&l);
        }
        levelId[i] = *it;
    }
    std::vector<size_t> byLevels(distinct.size());
    std::iota(byLevels.begin(), byLevels.end(), size_t(0));
    std::sort(byLevels.begin(), byLevels.end(),
              [&](size_t a, size_t b) { return levelsBefore(*distinct[a], *distinct[b]); });
    std::vector<size_t> rank(distinct.size());
    for (size_t r = 0; r < byLevels.size(); ++r)
        rank[byLevels[r]] = r;

    std::vector<size_t> order(ops.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const size_t ra = rank[levelId[a]], rb = rank[levelId[b]];
        if (ra != rb)
            return ra < rb;
        if (ops[a].timestamp != ops[b].timestamp)
            return ops[a].timestamp < ops[b].timestamp;
        return ops[a].relPath < ops[b].relPath;
    });
    return order;
}

} // namespace

DumpLevels classifyLevels(const QStringList &components)
{
    DumpLevels l;
    qsizetype i = 0;
    if (i < components.size() && components[i].size() == 14 && allDigits(components[i]))
        l.time = components[i++];
    if (i < components.size() && allDigits(components[i]))
        l.device = components[i++];
    QStringList ints;
    for (; i < components.size(); ++i) {
        if (allDigits(components[i]))
            ints << components[i];
        else if (l.modelName.isEmpty() && ints.isEmpty())
            l.modelName = components[i];
    }
    if (!ints.isEmpty())
        l.modelId = ints[0];
    if (ints.size() > 1)
        l.dataIndex = ints[1];
    return l;
}

void DumpIndex::finalize()
{
    const std::vector<size_t> order = executionOrder(ops);
    std::vector<OpRecord> sorted;
    sorted.reserve(ops.size());
    for (size_t i : order)
        sorted.push_back(std::move(ops[i]));
    ops = std::move(sorted);
    std::sort(errors.begin(), errors.end(), [](const FileError &a, const FileError &b) { return a.file < b.file; });
    m_byPath.clear();
    m_byPath.reserve(qsizetype(ops.size()));
    for (size_t i = 0; i < ops.size(); ++i)
        m_byPath.insert(ops[i].relPath, int(i));
}

QString DumpIndex::absolutePath(const OpRecord &op) const { return absolute(op.dataFile.isEmpty() ? op.relPath : op.dataFile); }

QString DumpIndex::absolute(const QString &relPath) const { return rootDir + QLatin1Char('/') + relPath; }

int DumpIndex::opIndex(const QString &relPath) const { return m_byPath.value(relPath, -1); }

QString DumpIndex::tensorId(const TensorRef &ref) const
{
    const auto &t = tensor(ref);
    return op(ref).relPath + QLatin1Char('.') + ioKindName(t.io) + QLatin1Char('.') + QString::number(t.index);
}

std::optional<DumpIndex::TensorRef> DumpIndex::findTensor(const QString &id) const
{
    // <relPath>.<kind>.<index>: split from the right, the path itself contains dots.
    const qsizetype dot2 = id.lastIndexOf(QLatin1Char('.'));
    if (dot2 <= 0)
        return std::nullopt;
    const qsizetype dot1 = id.lastIndexOf(QLatin1Char('.'), dot2 - 1);
    if (dot1 <= 0)
        return std::nullopt;
    bool ok = false;
    const uint index = id.mid(dot2 + 1).toUInt(&ok);
    if (!ok)
        return std::nullopt;
    const QString kind = id.mid(dot1 + 1, dot2 - dot1 - 1);
    const int o = opIndex(id.left(dot1));
    if (o < 0)
        return std::nullopt;
    const auto &tensors = ops[size_t(o)].tensors;
    for (size_t t = 0; t < tensors.size(); ++t)
        if (tensors[t].index == index && ioKindName(tensors[t].io) == kind)
            return TensorRef{o, int(t)};
    return std::nullopt;
}

std::uint64_t DumpIndex::tensorCount(bool inputsAndOutputsOnly) const
{
    std::uint64_t n = 0;
    for (const auto &op : ops)
        for (const auto &t : op.tensors)
            n += !inputsAndOutputsOnly || (t.isTensor() && t.io != IoKind::Buffer && t.io != IoKind::Workspace);
    return n;
}

std::vector<SourceFormat> DumpIndex::sourceFormats() const
{
    std::vector<SourceFormat> found;
    for (const auto &op : ops)
        if (std::find(found.begin(), found.end(), op.source) == found.end())
            found.push_back(op.source);
    std::sort(found.begin(), found.end());
    return found;
}

std::uint64_t DumpIndex::payloadBytes() const
{
    std::uint64_t n = 0;
    for (const auto &op : ops)
        for (const auto &t : op.tensors)
            n += t.dataBytes();
    return n;
}

Result<std::shared_ptr<DumpIndex>> buildIndex(const QString &path, const JobControl *job, const IndexBatchSink &sink)
{
    using R = Result<std::shared_ptr<DumpIndex>>;
    const QFileInfo info(path);
    if (!info.exists())
        return R::failure(QStringLiteral("%1: no such file or directory").arg(path));
    auto index = std::make_shared<DumpIndex>();
    index->openedPath = info.absoluteFilePath();
    const bool single = !info.isDir();
    index->rootDir = single ? info.absolutePath() : QDir::cleanPath(info.absoluteFilePath());

    Walker walker(index->rootDir, job);
    if (single)
        walker.addSingleFile(info.fileName());
    else
        walker.walk({}, 0);
    index->errors = std::move(walker.errors);

    const auto &cands = walker.candidates;
    index->ops.reserve(cands.size());
    std::mutex mutex;
    std::atomic<size_t> done{0};
    std::atomic<std::uint64_t> notDumpNames{0};
    std::atomic<int> lastReported{-1};
    const size_t chunk = std::clamp<size_t>(cands.size() / (8 * workerCount()) + 1, 16, 2048);
    const bool finished = parallelChunks(cands.size(), chunk, [&](size_t, size_t b, size_t e) {
        std::vector<OpRecord> ops;
        std::vector<FileError> errors;
        ops.reserve(e - b);
        for (size_t i = b; i < e; ++i)
            if (!indexOne(index->rootDir, cands[i], ops, errors))
                ++notDumpNames;
        {
            std::lock_guard lock(mutex);
            if (sink && (!ops.empty() || !errors.empty())) // a chunk may hold only non-dump files
                sink(ops, errors);
            std::move(ops.begin(), ops.end(), std::back_inserter(index->ops));
            std::move(errors.begin(), errors.end(), std::back_inserter(index->errors));
        }
        const size_t d = done.fetch_add(e - b) + (e - b);
        const int permille = int(1000 * d / cands.size());
        if (job && permille != lastReported.exchange(permille))
            job->report(permille);
        return !(job && job->cancelled());
    });
    bool partsFinished = true;
    if (finished && !walker.frameworkParts.empty()) {
        const auto &parts = walker.frameworkParts;
        partsFinished = parallelChunks(parts.size(), 1, [&](size_t, size_t b, size_t e) {
            for (size_t i = b; i < e; ++i) {
                auto part = indexFrameworkDir(index->rootDir, parts[i], job);
                std::lock_guard lock(mutex);
                if (!part) {
                    index->errors.push_back({parts[i].relPath.isEmpty() ? QStringLiteral(".") : parts[i].relPath, part.error()});
                    continue;
                }
                const int stackBase = int(index->stacks.size());
                for (OpRecord &op : part->ops)
                    if (op.stack >= 0)
                        op.stack += stackBase;
                std::move(part->stacks.begin(), part->stacks.end(), std::back_inserter(index->stacks));
                if (sink && (!part->ops.empty() || !part->errors.empty()))
                    sink(part->ops, part->errors);
                std::move(part->ops.begin(), part->ops.end(), std::back_inserter(index->ops));
                std::move(part->errors.begin(), part->errors.end(), std::back_inserter(index->errors));
            }
            return !(job && job->cancelled());
        });
    }
    index->cancelled = !finished || !partsFinished || (job && job->cancelled());
    index->otherFiles = notDumpNames;
    // A folder holding several formats shows each under its own node.
    const auto formats = index->sourceFormats();
    if (formats.size() > 1) {
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
    if (single && notDumpNames == 1)
        index->errors.push_back({info.fileName(), QStringLiteral("not a dump file name")});
    index->finalize();
    return index;
}

} // namespace ds
