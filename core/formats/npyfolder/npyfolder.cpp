#include "npyfolder.h"

#include "dump/dumpname.h"
#include "formats/npy/npyheader.h"
#include "io/mappedfile.h"
#include "tensor/dtype.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <optional>

namespace ds::npyfolder {

namespace {

constexpr std::uint64_t kMaxValueStrings = 1000; ///< unicode arrays: strings shown in the value text
constexpr qsizetype kMaxValueChars = 64 * 1024;

/// "float32" -> Float32, using the names of tensor/dtype.h (case-insensitive).
std::optional<int> dataTypeFromName(const QString &name)
{
    for (int t = 0; t <= int(DataType::Float4E1M2); ++t)
        if (name.compare(QLatin1String(dataTypeInfo(t).name), Qt::CaseInsensitive) == 0)
            return t;
    return std::nullopt;
}

/// The recorded dtype text of a tensor: the stored type, or "bfloat16 (stored as float32)" when
/// the file name records another original type.
QString typeText(const npy::NpyHeader &h, std::optional<int> original)
{
    if (h.voidPair && h.dataType != int(DataType::BFloat16))
        return QStringLiteral("void16 ('|V2', shown as uint16; possibly bfloat16)");
    if (original && *original != h.dataType)
        return QStringLiteral("%1 (stored as %2)").arg(dataTypeName(*original), dataTypeName(h.dataType));
    return dataTypeName(h.dataType);
}

/// Unicode arrays are shown as text: ['a', 'bc'] (at most kMaxValueStrings strings).
QString unicodeValue(const std::byte *data, const npy::NpyHeader &h)
{
    const std::uint32_t chars = h.itemSize / 4;
    const std::uint64_t shown = std::min(h.elementCount, kMaxValueStrings);
    const QStringList strings = npy::decodeNpyUnicode(data + h.dataOffset, shown, chars, h.byteSwap);
    if (h.shape.empty())
        return strings.value(0);
    QString out = QStringLiteral("[");
    for (qsizetype i = 0; i < strings.size(); ++i) {
        if (i)
            out += QStringLiteral(", ");
        out += QLatin1Char('\'') + strings[i] + QLatin1Char('\'');
        if (out.size() > kMaxValueChars)
            break;
    }
    if (shown < h.elementCount || out.size() > kMaxValueChars)
        out = out.left(kMaxValueChars) + QStringLiteral(", ... (%1 strings)").arg(h.elementCount);
    return out + QLatin1Char(']');
}

/// Fills the tensor fields that come from the header.
void fillFromHeader(TensorFields &t, const npy::NpyHeader &h, const std::byte *data, std::optional<int> original)
{
    t.dataType = h.dataType;
    t.format = 2; // ND: .npy holds host-layout data
    t.shape = h.shape;
    t.originalShape = h.shape;
    t.offset = h.dataOffset;
    t.size = h.dataBytes;
    t.storage = TensorStorage::NpyFile;
    if (h.unicode) {
        t.storage = TensorStorage::Value;
        t.typeName = QStringLiteral("str ('%1')").arg(h.descr);
        t.value = unicodeValue(data, h);
    } else {
        t.typeName = typeText(h, original);
    }
}

struct Converted
{
    QString base; ///< the dump name before ".{input|output}.{n}"
    IoKind io = IoKind::Input;
    std::uint32_t index = 0;
    std::optional<int> originalType;
    cann::DumpName name;
};

/// msaccucmp / MindSpore conversion output: `{dump name}.{input|output}.{n}[.{format}[.{dtype}]].npy`.
std::optional<Converted> parseConverted(const QString &fileName)
{
    static const QRegularExpression suffix(QStringLiteral("\\.(input|output)\\.([0-9]+)((?:\\.[^.]+)*)\\.npy$"));
    const auto m = suffix.match(fileName);
    if (!m.hasMatch())
        return std::nullopt;
    Converted c;
    c.base = fileName.left(m.capturedStart());
    auto name = cann::parseDumpName(c.base);
    if (!name)
        return std::nullopt;
    c.name = *name;
    c.io = m.capturedView(1) == QLatin1String("input") ? IoKind::Input : IoKind::Output;
    bool ok = false;
    c.index = m.captured(2).toUInt(&ok);
    if (!ok)
        return std::nullopt;
    // MindSpore adds ".{format}" and optionally ".{original dtype}".
    const QStringList extra = m.captured(3).split(QLatin1Char('.'), Qt::SkipEmptyParts);
    if (extra.size() >= 2)
        c.originalType = dataTypeFromName(extra.back());
    return c;
}

/// MindSpore `{name}_{dtype}_{count}.npy`.
struct Loose
{
    QString name;
    std::optional<int> originalType;
    std::uint64_t count = 0;
};

Loose parseLoose(const QString &fileName)
{
    Loose l;
    l.name = fileName.chopped(4);
    static const QRegularExpression ms(QStringLiteral("^(.+)_([A-Za-z0-9]+)_([0-9]+)$"));
    if (const auto m = ms.match(l.name); m.hasMatch()) {
        if (const auto t = dataTypeFromName(m.captured(2))) {
            l.originalType = t;
            l.count = m.captured(3).toULongLong();
            l.name = m.captured(1);
        }
    }
    return l;
}

} // namespace

Result<IndexPart> indexDir(const QString &rootDir, const QString &relDir, const DumpLevels &levels,
                               const JobControl *job, const NpyFolderOptions &options)
{
    using R = Result<IndexPart>;
    const QString prefix = relDir.isEmpty() ? QString() : relDir + QLatin1Char('/');
    const SharedLevels sharedLevels(levels);
    const QDir dir(relDir.isEmpty() ? rootDir : rootDir + QLatin1Char('/') + relDir);
    if (!dir.exists())
        return R::failure(QStringLiteral("%1: no such directory").arg(dir.path()));
    const QStringList files = dir.entryList({QStringLiteral("*.npy")}, QDir::Files | QDir::Hidden, QDir::Name);

    npy::NpyParseOptions parseOptions;
    parseOptions.v2AsBfloat16 = options.v2AsBfloat16;
    IndexPart part;
    QHash<QString, size_t> groupOf; // dump name -> index into part.ops
    for (qsizetype i = 0; i < files.size(); ++i) {
        if (job && job->cancelled())
            return Cancelled{};
        if (job && (i & 63) == 0)
            job->report(int(1000 * i / files.size()));
        const QString &fileName = files[i];
        const QString rel = prefix + fileName;
        auto mapped = MappedFile::open(dir.filePath(fileName));
        if (!mapped) {
            part.errors.push_back(mapped.error().about(rel));
            continue;
        }
        const auto header = npy::parseNpyHeader((*mapped)->data(), (*mapped)->size(), parseOptions);
        if (!header) {
            part.errors.push_back(header.error().about(rel));
            continue;
        }
        const std::byte *data = (*mapped)->data();

        TensorFields t;
        t.location = rel;
        if (const auto conv = parseConverted(fileName)) {
            fillFromHeader(t, *header, data, conv->originalType);
            t.io = conv->io;
            t.index = conv->index;
            t.name = ioKindName(conv->io) + QLatin1Char('.') + QString::number(conv->index);
            auto it = groupOf.constFind(conv->base);
            if (it == groupOf.constEnd()) {
                OpRecord op;
                op.relPath = prefix + conv->base;
                op.levels = sharedLevels;
                op.opType = conv->name.opType;
                op.opName = conv->name.opName;
                op.extra().taskId = conv->name.taskId;
                op.extra().streamId = conv->name.streamId;
                op.timestamp = conv->name.timestamp;
                op.opDebug = conv->name.opDebug;
                if (!conv->name.warning.isEmpty())
                    op.addWarning(QStringLiteral("file name: %1").arg(conv->name.warning));
                it = groupOf.insert(conv->base, part.ops.size());
                part.ops.push_back(std::move(op));
            }
            OpRecord &op = part.ops[*it];
            if (const TensorRecord *other = op.tensor(t.io, t.index)) {
                part.errors.push_back({rel, QStringLiteral("%1 %2 of %3 is already read from %4; file ignored")
                                                .arg(ioKindName(t.io)).arg(t.index).arg(op.relPath, other->location()), 0});
                continue;
            }
            op.extra().fileSize += (*mapped)->size();
            op.tensors.push_back(TensorRecord(t));
        } else {
            const Loose loose = parseLoose(fileName);
            fillFromHeader(t, *header, data, loose.originalType);
            t.io = IoKind::Output;
            t.index = 0;
            t.name = fileName.chopped(4);
            OpRecord op;
            op.relPath = rel;
            op.levels = sharedLevels;
            op.opName = loose.name;
            op.timestamp = loose.count;
            op.extra().fileSize = (*mapped)->size();
            op.tensors.push_back(TensorRecord(t));
            part.ops.push_back(std::move(op));
        }
    }

    for (OpRecord &op : part.ops) {
        std::stable_sort(op.tensors.begin(), op.tensors.end(), [](const TensorRecord &a, const TensorRecord &b) {
            return a.io() != b.io() ? a.io() < b.io() : a.index() < b.index();
        });
        for (IoKind io : {IoKind::Input, IoKind::Output}) {
            std::uint32_t highest = 0;
            int n = 0;
            for (const auto &t : op.tensors)
                if (t.io() == io) {
                    highest = std::max(highest, t.index());
                    ++n;
                }
            if (n && highest + 1 != std::uint32_t(n))
                op.addWarning(QStringLiteral("%1 files: %2 of indices 0..%3 present").arg(ioKindName(io)).arg(n).arg(highest));
        }
        for (const auto &t : op.tensors)
            if (t.storage() == TensorStorage::NpyFile && t.dataType() == int(DataType::UInt16) && t.typeName().startsWith(QLatin1String("void16")))
                op.addWarning(QStringLiteral("%1: '|V2' items are shown as uint16; they may be bfloat16").arg(t.location()));
    }
    std::stable_sort(part.ops.begin(), part.ops.end(), [](const OpRecord &a, const OpRecord &b) {
        return a.timestamp != b.timestamp ? a.timestamp < b.timestamp : a.relPath < b.relPath;
    });
    if (job)
        job->report(1000);
    return part;
}

bool looksLikeNpyFolder(const QString &dirPath)
{
    QDir dir(dirPath);
    if (!dir.exists())
        return false;
    const QStringList markers{QStringLiteral("dump.json"), QStringLiteral("*dump.pkl")};
    if (!dir.entryList(markers, QDir::Files).isEmpty())
        return false;
    QDir parent(dir);
    if (parent.cdUp() && !parent.entryList(markers, QDir::Files).isEmpty())
        return false;
    const QStringList files = dir.entryList({QStringLiteral("*.npy")}, QDir::Files | QDir::Hidden, QDir::Name);
    for (qsizetype i = 0; i < files.size() && i < 8; ++i) {
        QFile f(dir.filePath(files[i]));
        if (f.open(QIODevice::ReadOnly) && f.read(6) == QByteArray("\x93NUMPY", 6))
            return true;
    }
    return false;
}

} // namespace ds::npyfolder
