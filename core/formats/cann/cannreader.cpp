#include "cannreader.h"

#include "dump/dumpname.h"
#include "dump/levels.h"
#include "dumpfile.h"
#include "io/pagerelease.h"
#include "mappingcsv.h"
#include "tensor/format.h"
#include "tensor/layout.h"
#include "util/parallel.h"

#include <QDir>
#include <QFile>
#include <QHash>

#include <sys/stat.h>

namespace ds {

namespace {

/// The file names of one directory's mapping.csv (numeric name -> original name, §3.4).
struct MappingNames final : ClaimData
{
    QHash<QString, QString> names;
};

/// The CANN levels of a directory: from the absolute path when a time directory is close
/// above (the opened folder may be below it), else from what lies below the root.
DumpLevels levelsFor(const QString &absDir, const QString &relDir)
{
    QStringList comps = QDir::cleanPath(absDir).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    const qsizetype relCount = relDir.isEmpty() ? 0 : relDir.count(QLatin1Char('/')) + 1;
    for (qsizetype i = comps.size() - 1; i >= 0 && i >= comps.size() - 6; --i)
        if (comps[i].size() == 14 && allDigits(comps[i]))
            return classifyLevels(comps.mid(i));
    return classifyLevels(comps.mid(comps.size() - relCount));
}

OpRecord makeOp(const QString &relPath, const QString &mappedName, const SharedLevels &levels, FormatId format,
                const cann::DumpName &name, cann::ParsedDump &&parsed, LeafPool &leaves)
{
    OpRecord op;
    op.relPath = relPath;
    op.levels = levels;
    op.source = format;
    op.opType = name.opType;
    op.opName = name.opName;
    OpExtra &x = op.extra();
    x.taskId = name.taskId;
    x.streamId = name.streamId;
    op.timestamp = name.timestamp;
    op.opDebug = name.opDebug;
    x.mappedFrom = mappedName;
    op.container = parsed.container;
    x.version = parsed.version;
    x.headerOpName = parsed.opName;
    x.dumpTime = parsed.dumpTime;
    x.headerLen = parsed.headerLen;
    op.tensors.reserve(parsed.tensors.size());
    for (const TensorFields &t : parsed.tensors)
        op.tensors.push_back(leaves.make(t));
    x.warnings = std::move(parsed.warnings);
    if (!name.warning.isEmpty())
        x.warnings << name.warning;
    return op;
}

/// Parses one file into an op or an error. Returns false when its name is not a dump name
/// (the file is skipped and counted apart).
bool indexOne(const QString &root, const QString &relPath, const QString &mappedName, const SharedLevels &levels,
              FormatId format, IndexPart &part, LeafPool &leaves)
{
    const QString baseName = relPath.mid(relPath.lastIndexOf(QLatin1Char('/')) + 1);
    std::optional<cann::DumpName> name;
    QString nameNote;
    if (cann::isNumericName(baseName)) {
        if (!mappedName.isEmpty())
            name = cann::parseDumpName(mappedName);
        if (!name) {
            // Unmapped numeric file: still identify it from the header's op_name.
            name = cann::DumpName{};
            name->opType = QStringLiteral("?");
            nameNote = mappedName.isEmpty() ? QStringLiteral("numeric file name without a mapping.csv row")
                                            : QStringLiteral("mapping.csv name does not parse: %1").arg(mappedName);
        }
    } else {
        name = cann::parseDumpName(baseName);
        if (!name)
            return false;
    }
    const QString path = root + QLatin1Char('/') + relPath;
    auto parsed = cann::parseDumpFile(path);
    if (!parsed) {
        part.errors.push_back(parsed.error().about(relPath));
        return true;
    }
    OpRecord op = makeOp(relPath, mappedName, levels, format, *name, std::move(parsed.value()), leaves);
    if (op.opName.isEmpty())
        op.opName = cann::sanitizeName(op.headerOpName());
    if (!nameNote.isEmpty())
        op.addWarning(nameNote);
    struct stat st{};
    if (::stat(QFile::encodeName(path).constData(), &st) == 0)
        op.extra().fileSize = std::uint64_t(st.st_size);
    part.ops.push_back(std::move(op));
    return true;
}

} // namespace

bool CannReader::claim(DirListing &dir, std::vector<Claim> &claims) const
{
    if (dir.files.isEmpty())
        return false;
    std::shared_ptr<MappingNames> mapping;
    if (dir.files.contains(QLatin1String("mapping.csv"))) {
        mapping = std::make_shared<MappingNames>();
        mapping->names = cann::readMappingCsv(dir.absDir + QLatin1String("/mapping.csv"));
    }
    const DumpLevels levels = levelsFor(dir.absDir, dir.relDir);
    // Batches small enough to spread a big directory over every worker, big enough that a
    // tree of 10^5 files is not 10^5 claims.
    const qsizetype n = dir.files.size();
    const qsizetype batch = std::clamp<qsizetype>(n / (8 * qsizetype(workerCount())) + 1, 16, 2048);
    for (qsizetype b = 0; b < n; b += batch) {
        Claim c;
        c.relPath = dir.relDir;
        c.levels = levels;
        c.data = mapping;
        for (qsizetype i = b; i < std::min(n, b + batch); ++i)
            c.files << dir.relPath(dir.files[i]);
        claims.push_back(std::move(c));
    }
    dir.files.clear();
    return false;
}

Result<IndexPart> CannReader::index(const QString &rootDir, const Claim &claim, const JobControl *job) const
{
    IndexPart part;
    const auto *mapping = static_cast<const MappingNames *>(claim.data.get());
    const SharedLevels levels(claim.levels);
    part.ops.reserve(size_t(claim.files.size()));
    LeafPool leaves;
    for (const QString &relPath : claim.files) {
        if (job && job->cancelled())
            return Cancelled{};
        const QString base = relPath.mid(relPath.lastIndexOf(QLatin1Char('/')) + 1);
        const QString mapped = mapping && cann::isNumericName(base) ? mapping->names.value(base) : QString();
        if (!indexOne(rootDir, relPath, mapped, levels, claim.format, part, leaves))
            ++part.otherFiles;
    }
    return part;
}

Result<LoadedTensorPtr> CannReader::load(const DumpIndex &index, const OpRecord &op, const TensorRecord &rec,
                                         LayoutChoice layout, const JobControl *job) const
{
    auto mapped = MappedFile::open(index.absolutePath(op));
    if (!mapped)
        return mapped.error().about(op.relPath);
    auto t = std::make_shared<LoadedTensor>();
    t->file = *mapped;
    t->dataType = rec.dataType();
    if (t->file->size() != op.fileSize())
        return Error(ErrorKind::Changed, op.relPath,
                     QStringLiteral("changed since it was indexed (size %1, was %2); reopen the dump")
                         .arg(t->file->size()).arg(op.fileSize()));
    if (!rec.complete() || !t->file->contains(rec.offset(), rec.size()))
        return Error(ErrorKind::Truncated, op.relPath, QStringLiteral("the tensor lies outside the file"));

    const auto &info = dataTypeInfo(rec.dataType());
    const std::byte *bytes = t->file->data() + rec.offset();
    Elem elem = info.elem;
    Shape shape = rec.shape();
    const std::optional<std::uint64_t> counted = elementCount(shape); // nullopt: dynamic or overflowing
    std::uint64_t count = counted.value_or(0);
    const bool rawBytes = elem == Elem::None || !counted;
    // storedBytes() is 0 when the byte count overflows 64 bits: such a shape never fits.
    const std::uint64_t needed = rawBytes ? 0 : storedBytes(DataType(rec.dataType()), count);
    if (rawBytes) {
        if (elem == Elem::None)
            t->notes << QStringLiteral("data type %1 is not decoded; showing raw bytes").arg(dataTypeName(rec.dataType()));
        else if (hasDynamicDim(shape))
            t->notes << QStringLiteral("dynamic shape %1; showing raw bytes").arg(shapeToString(shape));
        else
            t->notes << QStringLiteral("shape %1 has more elements than 64 bits can count; showing raw bytes").arg(shapeToString(shape));
        elem = Elem::U8;
        shape = {rec.size()};
        count = rec.size();
    } else if (needed > rec.size() || (count != 0 && needed == 0)) {
        const std::uint64_t fit = info.bits ? rec.size() * 8 / std::uint64_t(info.bits) : 0;
        t->notes << QStringLiteral("payload holds %1 of %2 elements; showing them flat").arg(fit).arg(count);
        count = fit;
        shape = {count};
    }
    if (!info.verified)
        t->notes << QStringLiteral("the %1 decoder is unverified against hardware").arg(dataTypeName(rec.dataType()));

    if (info.packing != Packing::None && !rawBytes) {
        t->owned.resize(count);
        unpackElements(info.packing, bytes, count, t->owned.data());
        bytes = t->owned.data();
    }

    if (layout == LayoutChoice::Logical && isConvertibleFormat(rec.format()) && shape == rec.shape()) {
        auto plan = planLayout(rec.format(), rec.subFormat(), DataType(rec.dataType()), rec.shape(), rec.originalShape());
        if (!plan) {
            t->notes << QStringLiteral("layout %1 not converted: %2").arg(formatName(rec.format()), plan.error().text());
        } else if (plan->deviceCount != count) {
            t->notes << QStringLiteral("layout %1 not converted: element count differs").arg(formatName(rec.format()));
        } else {
            std::vector<std::byte> host(plan->hostCount * elemBytes(elem));
            convertLayout(*plan, bytes, host.data(), elemBytes(elem));
            t->owned = std::move(host);
            bytes = t->owned.data();
            count = plan->hostCount;
            shape = plan->hostShape;
            t->converted = true;
        }
    }
    // Unpacked or converted: the view reads the owned copy, the mapped payload is done with.
    if (!t->owned.empty())
        releaseMappedPages(t->file->data() + rec.offset(), size_t(rec.size()));
    if (job && job->cancelled())
        return Cancelled{};
    t->view = TensorView{elem, bytes, size_t(count)};
    t->shape = std::move(shape);
    return LoadedTensorPtr(std::move(t));
}

} // namespace ds
