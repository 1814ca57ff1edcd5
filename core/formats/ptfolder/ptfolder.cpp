#include "ptfolder.h"

#include "formats/torch/ptfile.h"
#include "io/mappedfile.h"
#include "tensor/dtype.h"

#include <QCollator>
#include <QDir>

#include <algorithm>

namespace ds::ptfolder {

namespace {

/// The IoKind of a category word of msprobe's tensor file names; false for other words.
bool categoryOf(QStringView word, IoKind &io)
{
    if (word == u"input" || word == u"input_args" || word == u"input_kwargs" || word == u"kwargs") {
        io = IoKind::Input;
        return true;
    }
    if (word == u"output") {
        io = IoKind::Output;
        return true;
    }
    if (word == u"parameters" || word == u"parameters_grad") {
        io = IoKind::Parameter;
        return true;
    }
    return false;
}

} // namespace

PtName splitPtName(const QString &fileName)
{
    PtName n;
    n.op = fileName.endsWith(QLatin1String(".pt"), Qt::CaseInsensitive) ? fileName.chopped(3) : fileName;
    const QStringList words = n.op.split(QLatin1Char('.'));
    for (qsizetype w = words.size(); w-- > 1;) {
        IoKind io = IoKind::Output;
        if (!categoryOf(words[w], io))
            continue;
        n.grouped = true;
        n.io = io;
        n.tensor = words.mid(w).join(QLatin1Char('.'));
        n.op = words.mid(0, w).join(QLatin1Char('.'));
        break;
    }
    return n;
}

void addPtFile(IndexPart &part, QHash<QString, size_t> &groupOf, const QString &rel, const QString &fileName,
               const std::byte *data, std::uint64_t size, const SharedLevels &levels, std::uint64_t order)
{
    auto tensors = readPtTensors(data, size);
    if (!tensors) {
        part.errors.push_back(tensors.error().about(rel));
        return;
    }
    if (tensors->empty()) {
        part.errors.push_back({rel, QStringLiteral("the file holds no tensor"), 0});
        return;
    }
    const PtName name = splitPtName(fileName);
    const QString dir = rel.left(rel.size() - fileName.size());
    const QString opPath = name.grouped ? dir + name.op : rel;
    auto it = groupOf.constFind(opPath);
    if (it == groupOf.constEnd()) {
        OpRecord op;
        op.relPath = opPath;
        op.levels = levels;
        op.opName = name.op;
        const qsizetype dot = name.op.indexOf(QLatin1Char('.'));
        if (name.grouped && dot > 0)
            op.opType = name.op.left(dot);
        op.timestamp = order;
        it = groupOf.insert(opPath, part.ops.size());
        part.ops.push_back(std::move(op));
    }
    OpRecord &op = part.ops[*it];
    const bool lone = tensors->size() == 1;
    for (const PtTensor &pt : *tensors) {
        TensorFields t;
        t.io = name.grouped ? name.io : IoKind::Output;
        t.index = std::uint32_t(op.count(t.io));
        if (name.grouped)
            t.name = lone ? name.tensor : name.tensor + QLatin1Char('.') + pt.path;
        else
            t.name = lone ? name.op : pt.path;
        if (t.name.isEmpty())
            t.name = name.op;
        t.location = rel;
        t.value = lone ? QString() : pt.path; // the key path inside the file (ptfolderreader loads by it)
        t.typeName = dataTypeName(pt.dataType);
        t.dataType = pt.dataType;
        t.shape = pt.shape;
        t.size = pt.elementCount() * pt.itemSize();
        t.storage = TensorStorage::PtFile;
        op.tensors.push_back(TensorRecord(t));
    }
    op.extra().fileSize += size;
}

Result<IndexPart> indexDir(const QString &rootDir, const QString &relDir, const DumpLevels &levels, const JobControl *job,
                           const QStringList &only)
{
    using R = Result<IndexPart>;
    const QString prefix = relDir.isEmpty() ? QString() : relDir + QLatin1Char('/');
    const QDir dir(relDir.isEmpty() ? rootDir : rootDir + QLatin1Char('/') + relDir);
    if (!dir.exists())
        return R::failure(QStringLiteral("%1: no such directory").arg(dir.path()));
    QStringList files = only.isEmpty() ? dir.entryList({QStringLiteral("*.pt")}, QDir::Files | QDir::Hidden) : only;
    QCollator natural;
    natural.setNumericMode(true);
    std::sort(files.begin(), files.end(), [&](const QString &a, const QString &b) { return natural.compare(a, b) < 0; });

    const SharedLevels sharedLevels(levels);
    IndexPart part;
    QHash<QString, size_t> groupOf;
    for (qsizetype i = 0; i < files.size(); ++i) {
        if (job && job->cancelled())
            return Cancelled{};
        if (job && (i & 63) == 0)
            job->report(int(1000 * i / files.size()));
        const QString rel = prefix + files[i];
        auto mapped = MappedFile::open(dir.filePath(files[i]));
        if (!mapped) {
            part.errors.push_back(mapped.error().about(rel));
            continue;
        }
        addPtFile(part, groupOf, rel, files[i], (*mapped)->data(), (*mapped)->size(), sharedLevels, std::uint64_t(i));
    }
    if (job)
        job->report(1000);
    return part;
}

} // namespace ds::ptfolder
