#include "mskernelreader.h"

#include "dump/levels.h"
#include "formats/cann/mappingcsv.h"
#include "formats/npy/npyheader.h"
#include "formats/npy/npyloader.h"
#include "io/mappedfile.h"
#include "statisticcsv.h"
#include "tensor/dtype.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <map>

namespace ds {

namespace mindspore {

namespace {

const QString kStatistic = QStringLiteral("statistic.csv");
const QString kMapping = QStringLiteral("mapping.csv");

bool isKernelRankDir(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^rank_[0-9]+$"));
    return re.match(name).hasMatch();
}

std::optional<int> dataTypeFromName(const QString &name)
{
    for (int t = 0; t <= int(DataType::Float4E1M2); ++t)
        if (name.compare(QLatin1String(dataTypeInfo(t).name), Qt::CaseInsensitive) == 0)
            return t;
    return std::nullopt;
}

/// One tensor found in the folder, from statistic.csv and/or a .npy file.
struct Entry
{
    QString opType, opName;
    std::int64_t taskId = 0, streamId = 0;
    std::uint64_t timestamp = 0;
    TensorFields t;
    bool hasFile = false;
};

/// The key msprobe pairs tensors by (op name, task, io, slot), here also within a folder to
/// attach a .npy to its statistic.csv row.
QString entryKey(const QString &opName, std::int64_t task, IoKind io, std::uint32_t slot)
{
    return opName + QLatin1Char('.') + QString::number(task) + QLatin1Char('.') + ioKindName(io) + QLatin1Char('.')
           + QString::number(slot);
}

QString typeText(const QString &recorded, int stored)
{
    const auto t = dataTypeFromName(recorded);
    if (t && *t != stored)
        return QStringLiteral("%1 (stored as %2)").arg(recorded, dataTypeName(stored));
    return recorded.isEmpty() ? dataTypeName(stored) : recorded;
}

} // namespace

std::optional<DumpLevels> kernelDirLevels(const QString &dirPath)
{
    const QStringList c = QDir::cleanPath(dirPath).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    if (c.size() < 4)
        return std::nullopt;
    const qsizetype n = c.size();
    if (!allDigits(c[n - 1]) || !allDigits(c[n - 2]) || !isKernelRankDir(c[n - 4]))
        return std::nullopt;
    DumpLevels l;
    l.rank = c[n - 4];
    l.modelName = c[n - 3];
    l.modelId = c[n - 2];
    l.step = c[n - 1];
    return l;
}

Result<IndexPart> indexIterationDir(const QString &rootDir, const QString &relDir, const DumpLevels &levels,
                                    const JobControl *job)
{
    using R = Result<IndexPart>;
    const QString prefix = relDir.isEmpty() ? QString() : relDir + QLatin1Char('/');
    const QDir dir(relDir.isEmpty() ? rootDir : rootDir + QLatin1Char('/') + relDir);
    if (!dir.exists())
        return R::failure(QStringLiteral("%1: no such directory").arg(dir.path()));
    IndexPart part;
    part.framework = QStringLiteral("mindspore");
    part.level = QStringLiteral("L2");

    // statistic.csv: one entry per row, in the order MindSpore wrote them.
    std::vector<Entry> entries;
    QHash<QString, std::vector<size_t>> byKey; // entryKey -> entries in order
    bool statistics = false;
    if (dir.exists(kStatistic)) {
        statistics = true;
        QFile f(dir.filePath(kStatistic));
        if (!f.open(QIODevice::ReadOnly)) {
            part.errors.push_back({ErrorKind::Access, prefix + kStatistic, f.errorString()});
        } else {
            const StatisticCsv csv = parseStatisticCsv(f.readAll(), prefix + kStatistic);
            part.errors.insert(part.errors.end(), csv.errors.begin(), csv.errors.end());
            for (const StatRow &r : csv.rows) {
                Entry e;
                e.opType = r.opType;
                e.opName = r.opName;
                e.taskId = r.taskId;
                e.streamId = r.streamId;
                e.timestamp = r.timestamp;
                e.t.io = r.io;
                e.t.index = r.slot;
                e.t.name = ioKindName(r.io) + QLatin1Char('.') + QString::number(r.slot);
                e.t.shape = r.shape;
                e.t.originalShape = r.shape;
                e.t.dataType = dataTypeFromName(r.dataType).value_or(int(DataType::Undefined));
                e.t.typeName = r.dataType;
                e.t.size = r.dataSize;
                e.t.recorded = r.stats;
                e.t.checksum = r.md5;
                e.t.storage = TensorStorage::Absent;
                e.t.format = 2;
                byKey[entryKey(r.opName, r.taskId, r.io, r.slot)].push_back(entries.size());
                entries.push_back(std::move(e));
            }
        }
    }
    QHash<QString, qsizetype> used; // entryKey -> .npy files attached so far

    // .npy files: attached to their row when statistic.csv has one, else entries of their own.
    const QHash<QString, QString> mapping = dir.exists(kMapping) ? cann::readMappingCsv(dir.filePath(kMapping)) : QHash<QString, QString>{};
    QStringList files = dir.entryList({QStringLiteral("*.npy")}, QDir::Files | QDir::Hidden, QDir::Name);
    struct NpyEntry
    {
        KernelFileName name;
        QString file;
    };
    std::vector<NpyEntry> npys;
    for (const QString &file : files) {
        QString name = file;
        if (auto it = mapping.constFind(file); it != mapping.constEnd())
            name = *it;
        else if (auto it2 = mapping.constFind(file.chopped(4)); it2 != mapping.constEnd())
            name = *it2;
        if (!name.endsWith(QLatin1String(".npy")))
            name += QStringLiteral(".npy");
        auto k = parseKernelFileName(name);
        if (!k) {
            part.errors.push_back({prefix + file, QStringLiteral("not a MindSpore kernel tensor name "
                                                                 "({op_type}.{op_name}.{task}.{stream}.{timestamp}"
                                                                 ".{input|output}.{slot}.{format}[.{dtype}].npy); file left out")});
            continue;
        }
        npys.push_back({*k, file});
    }
    std::stable_sort(npys.begin(), npys.end(), [](const NpyEntry &a, const NpyEntry &b) { return a.name.timestamp < b.name.timestamp; });
    for (size_t i = 0; i < npys.size(); ++i) {
        if (job && job->cancelled())
            return Cancelled{};
        const KernelFileName &k = npys[i].name;
        const QString rel = prefix + npys[i].file;
        auto mapped = MappedFile::open(dir.filePath(npys[i].file));
        if (!mapped) {
            part.errors.push_back(mapped.error().about(rel));
            continue;
        }
        const auto header = npy::parseNpyHeader((*mapped)->data(), (*mapped)->size());
        if (!header) {
            part.errors.push_back(header.error().about(rel));
            continue;
        }
        const QString key = entryKey(k.opName, k.taskId, k.io, k.slot);
        Entry *e = nullptr;
        if (const auto it = byKey.constFind(key); it != byKey.constEnd() && used.value(key) < qsizetype(it->size()))
            e = &entries[(*it)[size_t(used[key]++)]];
        if (!e) {
            entries.push_back({});
            e = &entries.back();
            e->opType = k.opType;
            e->opName = k.opName;
            e->taskId = k.taskId;
            e->streamId = k.streamId;
            e->timestamp = k.timestamp;
            e->t.io = k.io;
            e->t.index = k.slot;
            e->t.name = ioKindName(k.io) + QLatin1Char('.') + QString::number(k.slot);
            e->t.typeName = k.dtype;
        }
        e->hasFile = true;
        e->t.location = rel;
        e->t.storage = TensorStorage::NpyFile;
        e->t.shape = header->shape;
        e->t.originalShape = header->shape;
        e->t.dataType = header->dataType;
        e->t.offset = header->dataOffset;
        e->t.size = header->dataBytes;
        e->t.typeName = typeText(e->t.typeName.isEmpty() ? k.dtype : e->t.typeName, header->dataType);
    }
    if (!statistics)
        part.task = QStringLiteral("tensor");
    else
        part.task = npys.empty() ? QStringLiteral("statistics") : QStringLiteral("full");

    // The execution order of the graph, beside the net folder: rank_{id}/execution_order/.
    QHash<QString, int> execPos; // op name ('/' -> '_') -> position
    QHash<QString, QString> fullNames;
    {
        const QString graph = levels.modelId;
        QDir rankDir(dir);
        if (rankDir.cdUp() && rankDir.cdUp() && rankDir.cdUp()) {
            const QString orderFile = rankDir.filePath(QStringLiteral("execution_order/ms_execution_order_graph_%1.csv").arg(graph));
            QFile f(orderFile);
            if (f.open(QIODevice::ReadOnly)) {
                const QStringList names = parseExecutionOrder(f.read(64 << 20));
                for (qsizetype i = 0; i < names.size(); ++i) {
                    QString flat = names[i];
                    flat.replace(QLatin1Char('/'), QLatin1Char('_'));
                    if (!execPos.contains(flat)) {
                        execPos.insert(flat, int(i));
                        fullNames.insert(flat, names[i]);
                    }
                }
            }
        }
    }

    // Kernels: consecutive entries of one op name, task and stream; a repeated io/slot starts
    // the next execution of the same kernel.
    const SharedLevels sharedLevels(levels);
    struct Kernel
    {
        OpRecord op;
        int occurrence = 0;
        int exec = -1;
    };
    std::vector<Kernel> kernels;
    QHash<QString, int> occurrences;
    for (Entry &e : entries) {
        Kernel *cur = kernels.empty() ? nullptr : &kernels.back();
        const bool same = cur && cur->op.opName == e.opName && cur->op.opType == e.opType && cur->op.taskId() == e.taskId
                          && cur->op.streamId() == e.streamId && !cur->op.tensor(e.t.io, e.t.index);
        if (!same) {
            Kernel k;
            k.op.relPath = prefix + QStringLiteral("%1.%2.%3.%4.%5").arg(e.opType, e.opName).arg(e.taskId).arg(e.streamId).arg(e.timestamp);
            k.op.levels = sharedLevels;
            k.op.opType = e.opType;
            k.op.opName = e.opName;
            k.op.timestamp = e.timestamp;
            k.op.extra().taskId = e.taskId;
            k.op.extra().streamId = e.streamId;
            k.op.parent = kernelScope(e.opName, fullNames.value(e.opName));
            k.occurrence = occurrences[e.opName]++;
            k.exec = execPos.value(e.opName, -1);
            kernels.push_back(std::move(k));
            cur = &kernels.back();
        }
        if (e.hasFile)
            cur->op.extra().fileSize += e.t.size;
        cur->op.tensors.push_back(TensorRecord(e.t));
    }
    if (!execPos.isEmpty()) {
        // The n-th execution of every kernel in the graph's order, then the (n+1)-th: loops keep
        // their interleaving. Kernels the order does not list go after, by time.
        std::stable_sort(kernels.begin(), kernels.end(), [](const Kernel &a, const Kernel &b) {
            const bool ka = a.exec >= 0, kb = b.exec >= 0;
            if (ka != kb)
                return ka;
            if (!ka)
                return a.op.timestamp < b.op.timestamp;
            return a.occurrence != b.occurrence ? a.occurrence < b.occurrence : a.exec < b.exec;
        });
    } else {
        std::stable_sort(kernels.begin(), kernels.end(), [](const Kernel &a, const Kernel &b) { return a.op.timestamp < b.op.timestamp; });
    }
    part.ops.reserve(kernels.size());
    for (Kernel &k : kernels) {
        std::stable_sort(k.op.tensors.begin(), k.op.tensors.end(), [](const TensorRecord &a, const TensorRecord &b) {
            return a.io() != b.io() ? a.io() < b.io() : a.index() < b.index();
        });
        part.ops.push_back(std::move(k.op));
    }
    return part;
}

} // namespace mindspore

bool MsKernelReader::claim(DirListing &dir, std::vector<Claim> &claims) const
{
    const QString name = dir.relDir.isEmpty() ? QDir(dir.absDir).dirName() : dir.relDir.section(QLatin1Char('/'), -1);
    // rank_{id}/execution_order and rank_{id}/graphs are read by the iteration claims (or not at all).
    if (name == QLatin1String("execution_order") || name == QLatin1String("graphs") || name == QLatin1String(".dump_metadata")) {
        QDir up(dir.absDir);
        if (up.cdUp() && mindspore::isKernelRankDir(up.dirName()) && (up.exists(QStringLiteral("execution_order")) || up.exists(QStringLiteral("graphs")))) {
            dir.files.clear();
            return true;
        }
    }
    auto levels = mindspore::kernelDirLevels(dir.absDir);
    const bool hasStat = dir.files.contains(mindspore::kStatistic);
    if (!levels && hasStat) {
        QFile f(dir.absDir + QLatin1Char('/') + mindspore::kStatistic);
        if (f.open(QIODevice::ReadOnly) && mindspore::looksLikeStatisticCsv(f.read(64)))
            levels = frameworkLevels(dir.absDir);
    }
    if (!levels)
        return false;
    const bool anyNpy = std::any_of(dir.files.begin(), dir.files.end(), [](const QString &f) { return f.endsWith(QLatin1String(".npy")); });
    if (!hasStat && !anyNpy)
        return false;
    claims.push_back({{}, dir.relDir, *levels, {}, {}});
    dir.files.clear();
    return true;
}

Result<IndexPart> MsKernelReader::index(const QString &rootDir, const Claim &claim, const JobControl *job) const
{
    return mindspore::indexIterationDir(rootDir, claim.relPath, claim.levels, job);
}

Result<LoadedTensorPtr> MsKernelReader::load(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                             LayoutChoice, const JobControl *job) const
{
    if (rec.storage() == TensorStorage::NpyFile)
        return loadNpyTensor(index, rec, job);
    return Error(ErrorKind::NoData, op.relPath, QStringLiteral("%1: only statistics were dumped (statistic.csv)").arg(rec.name()));
}

} // namespace ds
