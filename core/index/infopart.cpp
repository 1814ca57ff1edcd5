#include "infopart.h"

#include "dump/levels.h"
#include "formats/readers.h"
#include "jsonreport.h"
#include "util/parallel.h"

#include <QIODevice>
#include <QSet>
#include <algorithm>
#include <tuple>
#include <nlohmann/json.hpp>

namespace ds {

namespace {

using json = nlohmann::ordered_json;
std::string s(const QString &q) { return q.toStdString(); }

constexpr quint32 kInfoMagic = 0x44534931; // "DSI1"

/// A JSON array from CBOR; an empty array for bytes that are not one (checked when decoding).
json fromCbor(const QByteArray &b)
{
    json j = json::from_cbor(b.begin(), b.end(), true, false);
    return j.is_discarded() || !j.is_array() ? json::array() : j;
}

bool isCborArray(const QByteArray &b)
{
    const json j = json::from_cbor(b.begin(), b.end(), true, false);
    return !j.is_discarded() && j.is_array();
}

QByteArray toCbor(const json &j)
{
    const std::vector<std::uint8_t> bytes = json::to_cbor(j);
    return QByteArray(reinterpret_cast<const char *>(bytes.data()), qsizetype(bytes.size()));
}

template<typename T>
void writeList(QDataStream &s, const std::vector<T> &list, const std::function<void(QDataStream &, const T &)> &one)
{
    s << quint32(list.size());
    for (const T &x : list)
        one(s, x);
}

/// Reads items one by one while the stream holds them (the count comes off the wire).
template<typename T>
void readList(QDataStream &s, std::vector<T> &list, const std::function<void(QDataStream &, T &)> &one)
{
    quint32 n = 0;
    s >> n;
    for (quint32 i = 0; i < n && s.status() == QDataStream::Ok; ++i) {
        T x{};
        one(s, x);
        list.push_back(std::move(x));
    }
}

} // namespace

void writeLevels(QDataStream &s, const DumpLevels &l)
{
    s << l.part << l.run << l.time << l.step << l.rank << l.device << l.modelName << l.modelId << l.dataIndex;
}

void readLevels(QDataStream &s, DumpLevels &l)
{
    s >> l.part >> l.run >> l.time >> l.step >> l.rank >> l.device >> l.modelName >> l.modelId >> l.dataIndex;
}

void writeErrors(QDataStream &s, const std::vector<FileError> &errors)
{
    writeList<FileError>(s, errors, [](QDataStream &d, const FileError &e) {
        d << e.file << e.message << quint64(e.offset) << quint8(e.kind);
    });
}

void readErrors(QDataStream &s, std::vector<FileError> &errors)
{
    readList<FileError>(s, errors, [](QDataStream &d, FileError &e) {
        quint64 offset = 0;
        quint8 kind = 0;
        d >> e.file >> e.message >> offset >> kind;
        e.offset = offset;
        e.kind = ErrorKind(kind);
    });
}

std::vector<FileError> mergedErrors(std::vector<FileError> errors)
{
    auto key = [](const FileError &e) { return std::tuple(e.file, e.message, int(e.kind), e.offset); };
    std::sort(errors.begin(), errors.end(), [&](const FileError &a, const FileError &b) { return key(a) < key(b); });
    errors.erase(std::unique(errors.begin(), errors.end(), [&](const FileError &a, const FileError &b) { return key(a) == key(b); }),
                 errors.end());
    return errors;
}

DumpLevels wholeTreeLevels(DumpLevels levels, bool severalRuns, bool severalFormats)
{
    if (!severalRuns)
        levels.run.clear();
    if (!severalFormats && !isJitModeName(levels.part)) // a jit split's graph/pynative stay
        levels.part.clear();
    return levels;
}

std::vector<qint32> unitedFormats(const std::vector<std::vector<qint32>> &lists)
{
    std::vector<qint32> out;
    for (const auto &l : lists)
        out.insert(out.end(), l.begin(), l.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

QString errorsText(const std::vector<FileError> &errors)
{
    if (errors.empty())
        return {};
    QString out = QStringLiteral("\n%1 file(s) could not be read:\n").arg(errors.size());
    for (const auto &e : errors)
        out += QStringLiteral("  %1: %2\n").arg(e.file, e.message);
    return out;
}

QByteArray writePart(quint32 magic, const std::function<void(QDataStream &)> &fill)
{
    QByteArray b;
    QDataStream s(&b, QIODevice::WriteOnly);
    s.setVersion(QDataStream::Qt_6_4);
    s << magic;
    fill(s);
    return b;
}

bool readPart(const QByteArray &bytes, quint32 magic, const std::function<void(QDataStream &)> &read)
{
    QDataStream s(bytes);
    s.setVersion(QDataStream::Qt_6_4);
    quint32 m = 0;
    s >> m;
    if (m != magic)
        return false;
    read(s);
    return s.status() == QDataStream::Ok && s.atEnd();
}

InfoPart infoPart(const DumpIndex &index)
{
    InfoPart part;
    // Groups: runs of operators with the same levels (a scope directory, a rank's dump.json).
    std::vector<std::pair<size_t, size_t>> ranges;
    for (size_t o = 0; o < index.ops.size();) {
        size_t e = o + 1;
        while (e < index.ops.size() && sameLevels(*index.ops[e].levels, *index.ops[o].levels))
            ++e;
        ranges.emplace_back(o, e);
        o = e;
    }
    // Each group's warnings and counts on all cores: a whole run is millions of operators.
    struct Counts
    {
        std::vector<FormatId> formats;
        quint64 opDebug = 0, tensors = 0, bytes = 0;
    };
    std::vector<Counts> counts(ranges.size());
    part.groups.resize(ranges.size());
    parallelChunks(ranges.size(), 1, [&](size_t i, size_t, size_t) {
        const auto [o, e] = ranges[i];
        InfoPart::Group &g = part.groups[i];
        g.levels = *index.ops[o].levels;
        g.warnings = warningsCbor(index, int(o), int(e), &g.warningLines);
        Counts &c = counts[i];
        for (size_t k = o; k < e; ++k) {
            const OpRecord &op = index.ops[k];
            c.opDebug += op.opDebug;
            if (std::find(c.formats.begin(), c.formats.end(), op.source) == c.formats.end())
                c.formats.push_back(op.source);
        }
        std::tie(c.tensors, c.bytes) = index.tensorCountAndBytes(o, e);
        return true;
    });
    std::vector<FormatId> formats;
    QSet<QString> runs;
    for (size_t i = 0; i < ranges.size(); ++i) {
        runs.insert(part.groups[i].levels.run);
        for (FormatId f : counts[i].formats)
            if (std::find(formats.begin(), formats.end(), f) == formats.end())
                formats.push_back(f);
        part.opDebug += counts[i].opDebug;
        part.tensors += counts[i].tensors;
        part.bytes += counts[i].bytes;
    }
    std::sort(formats.begin(), formats.end()); // as DumpIndex::sourceFormats
    for (FormatId f : formats)
        part.formats.push_back(qint32(f));
    part.runs = QStringList(runs.begin(), runs.end());
    part.runs.sort();
    part.ops = index.ops.size();
    part.otherFiles = index.otherFiles;
    part.errors = index.errors;
    part.cancelled = index.cancelled;
    return part;
}

InfoDocument mergeInfo(std::vector<InfoPart> parts, const QString &openedPath)
{
    InfoDocument doc;
    doc.path = openedPath;
    std::vector<std::vector<qint32>> formats;
    QSet<QString> runs;
    std::vector<InfoPart::Group *> groups;
    for (InfoPart &p : parts) {
        formats.push_back(p.formats);
        for (const QString &r : std::as_const(p.runs))
            runs.insert(r);
        for (InfoPart::Group &g : p.groups)
            groups.push_back(&g);
        doc.ops += p.ops;
        doc.tensors += p.tensors;
        doc.bytes += p.bytes;
        doc.opDebug += p.opDebug;
        doc.otherFiles += p.otherFiles;
        doc.cancelled = doc.cancelled || p.cancelled;
        doc.errors.insert(doc.errors.end(), p.errors.begin(), p.errors.end());
    }
    doc.formats = unitedFormats(formats);
    doc.errors = mergedErrors(std::move(doc.errors));
    // Execution order of the groups: their levels as the whole tree labels them (levelsBefore).
    const bool severalRuns = runs.size() > 1, severalFormats = doc.formats.size() > 1;
    for (InfoPart::Group *g : groups)
        g->levels = wholeTreeLevels(g->levels, severalRuns, severalFormats);
    std::stable_sort(groups.begin(), groups.end(),
                     [](const InfoPart::Group *a, const InfoPart::Group *b) { return levelsBefore(a->levels, b->levels); });
    json warnings = json::array();
    for (const InfoPart::Group *g : groups) {
        doc.levels.push_back(g->levels);
        for (auto &w : fromCbor(g->warnings))
            warnings.push_back(std::move(w));
        doc.warningLines += g->warningLines;
    }
    doc.warnings = toCbor(warnings);
    return doc;
}

QByteArray infoJson(const InfoDocument &doc)
{
    QSet<QString> devices, times, models, dataIndexes, steps, ranks;
    for (const DumpLevels &l : doc.levels) {
        steps.insert(l.step);
        ranks.insert(l.rank);
        devices.insert(l.device);
        times.insert(l.time);
        models.insert(l.modelName);
        dataIndexes.insert(l.dataIndex);
    }
    auto sorted = [](const QSet<QString> &set) {
        QStringList l(set.begin(), set.end());
        l.removeAll(QString());
        l.sort();
        json a = json::array();
        for (const auto &x : l)
            a.push_back(s(x));
        return a;
    };
    json formats = json::array();
    for (qint32 f : doc.formats)
        formats.push_back(s(sourceFormatName(FormatId(f))));
    const QByteArray errors = errorsCbor(doc.errors);
    json j{{"path", s(doc.path)},
           {"formats", formats},
           {"files", doc.ops + doc.errors.size()},
           {"ops", doc.ops},
           {"opdebug_files", doc.opDebug},
           {"tensors", doc.tensors},
           {"bytes", doc.bytes},
           {"times", sorted(times)},
           {"devices", sorted(devices)},
           {"model_names", sorted(models)},
           {"data_indexes", sorted(dataIndexes)},
           {"steps", sorted(steps)},
           {"ranks", sorted(ranks)},
           {"other_files", doc.otherFiles},
           {"errors", doc.errors.size()},
           {"error_files", fromCbor(errors)}};
    json warnings = fromCbor(doc.warnings);
    j["warnings"] = warnings.size();
    j["warning_files"] = std::move(warnings);
    j["cancelled"] = doc.cancelled;
    return QByteArray::fromStdString(j.dump(2)) + '\n';
}

QByteArray infoJson(const DumpIndex &index)
{
    std::vector<InfoPart> parts;
    parts.push_back(infoPart(index));
    return infoJson(mergeInfo(std::move(parts), index.openedPath));
}

QByteArray encodeInfoPart(const InfoPart &p)
{
    return writePart(kInfoMagic, [&](QDataStream &s) {
        writeList<InfoPart::Group>(s, p.groups, [](QDataStream &d, const InfoPart::Group &g) {
            writeLevels(d, g.levels);
            d << g.warnings << g.warningLines;
        });
        writeList<qint32>(s, p.formats, [](QDataStream &d, const qint32 &f) { d << f; });
        s << p.runs << p.ops << p.tensors << p.bytes << p.opDebug << p.otherFiles << p.cancelled;
        writeErrors(s, p.errors);
    });
}

std::optional<InfoPart> decodeInfoPart(const QByteArray &bytes)
{
    InfoPart p;
    const bool ok = readPart(bytes, kInfoMagic, [&](QDataStream &s) {
        readList<InfoPart::Group>(s, p.groups, [](QDataStream &d, InfoPart::Group &g) {
            readLevels(d, g.levels);
            d >> g.warnings >> g.warningLines;
        });
        readList<qint32>(s, p.formats, [](QDataStream &d, qint32 &f) { d >> f; });
        s >> p.runs >> p.ops >> p.tensors >> p.bytes >> p.opDebug >> p.otherFiles >> p.cancelled;
        readErrors(s, p.errors);
    });
    if (!ok)
        return std::nullopt;
    for (qint32 f : p.formats)
        if (f < 0 || size_t(f) >= dumpReaders().size())
            return std::nullopt;
    for (const InfoPart::Group &g : p.groups)
        if (!isCborArray(g.warnings))
            return std::nullopt;
    return p;
}

} // namespace ds
