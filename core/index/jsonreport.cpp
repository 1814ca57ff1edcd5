#include "jsonreport.h"

#include "formats/readers.h"
#include "problems.h"
#include "tensor/dtype.h"
#include "tensor/format.h"

#include <QSet>
#include <cmath>
#include <nlohmann/json.hpp>

namespace ds {

namespace {

using json = nlohmann::ordered_json;

std::string s(const QString &q) { return q.toStdString(); }

json shapeJson(const Shape &shape)
{
    json a = json::array();
    for (auto d : shape)
        a.push_back(d);
    return a;
}

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json errorsJson(const DumpIndex &index)
{
    const QByteArray cbor = errorsCbor(index.errors);
    return json::from_cbor(cbor.begin(), cbor.end());
}

json tensorJson(const DumpIndex &index, const DumpIndex::TensorRef &ref)
{
    const auto &t = index.tensor(ref);
    json j{{"id", s(index.tensorId(ref).toString())},
           {"io", s(ioKindName(t.io()))},
           {"index", t.index()},
           {"dtype", s(dataTypeName(t.dataType()))},
           {"format", s(formatName(t.format()))},
           {"shape", shapeJson(t.shape())},
           {"original_shape", shapeJson(t.originalShape())},
           {"offset", t.offset()},
           {"size", t.size()}};
    if (!t.originalOpName().isEmpty())
        j["original_op"] = s(t.originalOpName());
    if (formatReader(index.op(ref).source).opsAreFiles())
        return j;
    // Framework leaves: where the data is and what the producer recorded.
    static const char *const storage[] = {"payload", "npy", "pt", "h5", "absent", "value"};
    j["name"] = s(t.name());
    j["storage"] = storage[int(t.storage())];
    if (!t.location().isEmpty())
        j["location"] = s(t.location());
    if (!t.typeName().isEmpty())
        j["type"] = s(t.typeName());
    if (!t.isTensor())
        j["value"] = s(t.value());
    if (!t.checksum().isEmpty())
        j["checksum"] = s(t.checksum());
    auto number = [](double v) -> json {
        if (std::isnan(v))
            return "NaN";
        if (std::isinf(v))
            return v > 0 ? "Infinity" : "-Infinity";
        return v;
    };
    json recorded = json::object();
    const RecordedStats r = t.recorded();
    if (r.has(RecordedStats::Max))
        recorded["max"] = number(r.max);
    if (r.has(RecordedStats::Min))
        recorded["min"] = number(r.min);
    if (r.has(RecordedStats::Mean))
        recorded["mean"] = number(r.mean);
    if (r.has(RecordedStats::Norm))
        recorded["norm"] = number(r.norm);
    if (!recorded.empty())
        j["recorded"] = recorded;
    return j;
}

json levelsJson(const DumpLevels &l)
{
    json j{{"time", s(l.time)}, {"device", s(l.device)}, {"model_name", s(l.modelName)},
           {"model_id", s(l.modelId)}, {"data_index", s(l.dataIndex)}};
    for (const auto &[key, value] : {std::pair{"part", &l.part}, std::pair{"step", &l.step}, std::pair{"rank", &l.rank}})
        if (!value->isEmpty())
            j[key] = s(*value);
    return j;
}

QByteArray dump(const json &j) { return QByteArray::fromStdString(j.dump(2)) + '\n'; }

/// The limits of a target as written beside its counts.
void limitsJson(json &j, const HeadroomLimits &l)
{
    j["max_finite"] = l.maxFinite;
    j["min_normal"] = l.minNormal;
    j["min_subnormal"] = l.minSubnormal;
    if (*l.unconfirmed) {
        json u = json::array();
        for (const auto &part : QString::fromLatin1(l.unconfirmed).split(u','))
            u.push_back(s(part));
        j["unconfirmed"] = u;
    }
}

/// Precision headroom from the values (headroom.h): per target its counts, and the dynamic range.
json headroomJson(const Headroom &h)
{
    json j{{"from", "values"}};
    for (const auto &l : headroomLimits()) {
        const HeadroomCounts &c = h.at(l.target);
        json t{{"overflow", c.overflow}, {"underflow", c.underflow}, {"subnormal", c.subnormal}};
        limitsJson(t, l);
        j[l.name] = t;
    }
    j["max_abs"] = number(h.maxAbs);
    j["min_nonzero_abs"] = number(h.minNonzeroAbs);
    j["dynamic_range_log2"] = number(h.dynamicRangeLog2());
    return j;
}

/// What the recorded statistics of a statistics-only leaf tell (headroomFromRecorded): per target
/// overflow / underflow / subnormal as true, false or null (cannot tell).
json recordedHeadroomJson(const RecordedStats &r)
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    const RecordedHeadroom h = headroomFromRecorded(r.has(RecordedStats::Max) ? r.max : nan,
                                                    r.has(RecordedStats::Min) ? r.min : nan,
                                                    r.has(RecordedStats::Norm) ? r.norm : nan);
    auto answer = [](const std::optional<bool> &a) { return a ? json(*a) : json(nullptr); };
    json j{{"from", "statistics"}};
    for (const auto &l : headroomLimits()) {
        const auto &a = h.targets[size_t(l.target)];
        json t{{"overflow", answer(a.overflow)}, {"underflow", answer(a.underflow)}, {"subnormal", answer(a.subnormal)}};
        limitsJson(t, l);
        j[l.name] = t;
    }
    j["max_abs"] = number(h.maxAbs);
    return j;
}

json warningJson(const DumpIndex &index, const Problem &p)
{
    json j{{"file", s(p.file)}};
    if (!p.entry.isEmpty())
        j["entry"] = s(p.entry);
    if (p.op >= 0 && index.ops[size_t(p.op)].relPath != p.file)
        j["op"] = s(index.ops[size_t(p.op)].relPath);
    j["message"] = s(p.message);
    return j;
}

} // namespace

QByteArray errorsCbor(const std::vector<FileError> &errors)
{
    json a = json::array();
    for (const auto &e : errors)
        a.push_back({{"file", s(e.file)}, {"message", s(e.message)}, {"kind", errorKindName(e.kind)}});
    const std::vector<std::uint8_t> bytes = json::to_cbor(a);
    return QByteArray(reinterpret_cast<const char *>(bytes.data()), qsizetype(bytes.size()));
}

QByteArray warningsCbor(const DumpIndex &index, int begin, int end, QStringList *lines)
{
    json a = json::array();
    for (int o = begin; o < end; ++o)
        for (const Problem &p : opProblems(index, o)) {
            a.push_back(warningJson(index, p));
            if (lines)
                *lines << problemText(p);
        }
    const std::vector<std::uint8_t> bytes = json::to_cbor(a);
    return QByteArray(reinterpret_cast<const char *>(bytes.data()), qsizetype(bytes.size()));
}

QByteArray listJson(const DumpIndex &index)
{
    json ops = json::array();
    for (size_t o = 0; o < index.ops.size(); ++o) {
        const auto &op = index.ops[o];
        json inputs = json::array(), outputs = json::array(), parameters = json::array();
        for (size_t t = 0; t < op.tensors.size(); ++t) {
            const DumpIndex::TensorRef ref{int(o), int(t)};
            if (op.tensors[t].io() == IoKind::Input)
                inputs.push_back(tensorJson(index, ref));
            else if (op.tensors[t].io() == IoKind::Output)
                outputs.push_back(tensorJson(index, ref));
            else if (op.tensors[t].io() == IoKind::Parameter)
                parameters.push_back(tensorJson(index, ref));
        }
        json warnings = json::array();
        for (const auto &w : op.warnings())
            warnings.push_back(s(w));
        ops.push_back({{"file", s(op.relPath)},
                       {"op_type", s(op.opType)},
                       {"op_name", s(op.opName)},
                       {"header_op_name", s(op.headerOpName())},
                       {"task_id", op.taskId()},
                       {"stream_id", op.streamId()},
                       {"timestamp", op.timestamp},
                       {"levels", levelsJson(*op.levels)},
                       {"container", op.container == ContainerKind::Legacy ? "legacy" : "big"},
                       {"opdebug", op.opDebug},
                       {"mapped_from", s(op.mappedFrom())},
                       {"inputs", inputs},
                       {"outputs", outputs},
                       {"warnings", warnings}});
        json &added = ops.back();
        added["source"] = s(sourceFormatName(op.source));
        if (!parameters.empty())
            added["parameters"] = parameters;
        if (!op.parent.isEmpty())
            added["parent"] = s(op.parent);
        if (op.stack >= 0 && size_t(op.stack) < index.stacks.size()) {
            json lines = json::array();
            for (const auto &line : index.stacks[size_t(op.stack)])
                lines.push_back(s(line));
            added["stack"] = lines;
        }
    }
    return dump({{"path", s(index.openedPath)}, {"ops", ops}, {"errors", errorsJson(index)}});
}

QByteArray statsJson(const DumpIndex &index, const std::vector<TensorMeasure> &entries)
{
    json tensors = json::array(), errors = json::array();
    for (const auto &e : entries) {
        if (e.error) {
            errors.push_back({{"id", s(e.id.toString())}, {"message", s(e.error->text())}, {"kind", errorKindName(e.error->kind)}});
            const RecordedStats r = index.tensor(e.ref).recorded();
            if (e.error->kind == ErrorKind::NoData && (r.present & (RecordedStats::Max | RecordedStats::Min | RecordedStats::Norm)))
                errors.back()["headroom"] = recordedHeadroomJson(r);
            continue;
        }
        const auto &t = index.tensor(e.ref);
        const auto &st = e.stats;
        json j{{"id", s(e.id.toString())},
               {"dtype", s(dataTypeName(t.dataType()))},
               {"format", s(formatName(t.format()))},
               {"shape", shapeJson(t.shape())},
               {"original_shape", shapeJson(t.originalShape())},
               {"stats_shape", shapeJson(e.shape)},
               {"count", st.count},
               {"min", number(st.min)},
               {"max", number(st.max)},
               {"mean", number(st.mean)},
               {"std", number(st.std)},
               {"l2norm", number(st.l2norm)},
               {"nan", st.nan},
               {"posinf", st.posinf},
               {"neginf", st.neginf},
               {"zero", st.zero}};
        if (st.headroom.valid)
            j["headroom"] = headroomJson(st.headroom);
        if (e.histogram) {
            const auto &h = *e.histogram;
            j["histogram"] = {{"bins", h.counts.size()}, {"range", {h.lo, h.hi}}, {"counts", h.counts},
                              {"nan", h.nan}, {"posinf", h.posinf}, {"neginf", h.neginf}};
        }
        json notes = json::array();
        for (const auto &n : e.notes)
            notes.push_back(s(n));
        j["notes"] = notes;
        json warnings = json::array(); // the inconsistencies of the tensor's file
        for (const Problem &p : opProblems(index, e.ref.op))
            warnings.push_back(warningJson(index, p));
        j["warnings"] = warnings;
        tensors.push_back(std::move(j));
    }
    for (const auto &e : index.errors)
        errors.push_back({{"file", s(e.file)}, {"message", s(e.message)}, {"kind", errorKindName(e.kind)}});
    return dump({{"path", s(index.openedPath)}, {"tensors", tensors}, {"errors", errors}});
}

QByteArray exportJson(const DumpIndex &index, const std::vector<ExportResult> &results)
{
    json written = json::array(), errors = json::array();
    for (const auto &r : results) {
        if (r.error)
            errors.push_back({{"id", s(r.id.toString())}, {"message", s(r.error->text())}, {"kind", errorKindName(r.error->kind)}});
        else
            written.push_back({{"id", s(r.id.toString())}, {"file", s(r.file)}, {"dtype", s(r.dtype)},
                               {"exported_dtype", s(r.exportedDtype)}, {"shape", shapeJson(r.shape)}});
    }
    return dump({{"path", s(index.openedPath)}, {"written", written}, {"errors", errors}});
}

QString statsText(const TensorStats &st)
{
    auto num = [](double v) { return std::isfinite(v) ? QString::number(v, 'g', 17) : QStringLiteral("-"); };
    return QStringLiteral("count: %1\nmin: %2\nmax: %3\nmean: %4\nstd: %5\nl2norm: %6\nnan: %7\n+inf: %8\n-inf: %9\nzero: %10\n")
        .arg(st.count).arg(num(st.min), num(st.max), num(st.mean), num(st.std), num(st.l2norm))
        .arg(st.nan).arg(st.posinf).arg(st.neginf).arg(st.zero)
        + (st.headroom.valid ? headroomText(st.headroom, QString()) : QString());
}

QString headroomText(const Headroom &h, const QString &indent)
{
    auto num = [](double v) { return std::isfinite(v) ? QString::number(v, 'g', 6) : QStringLiteral("-"); };
    QString text = indent + QStringLiteral("headroom (finite values):  overflow  underflow  subnormal\n");
    for (const auto &l : headroomLimits()) {
        const HeadroomCounts &c = h.at(l.target);
        text += indent + QStringLiteral("  %1 %2 %3 %4%5\n")
                             .arg(QString::fromLatin1(l.name), -14)
                             .arg(c.overflow, 9).arg(c.underflow, 10).arg(c.subnormal, 10)
                             .arg(*l.unconfirmed ? QStringLiteral("  (limits unconfirmed)") : QString());
    }
    text += indent + QStringLiteral("  max |x| %1  smallest nonzero |x| %2  dynamic range log2 %3\n")
                         .arg(num(h.maxAbs), num(h.minNonzeroAbs), num(h.dynamicRangeLog2()));
    return text;
}

QString recordedHeadroomText(const RecordedStats &r, const QString &indent)
{
    if (!(r.present & (RecordedStats::Max | RecordedStats::Min | RecordedStats::Norm)))
        return {};
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    const RecordedHeadroom h = headroomFromRecorded(r.has(RecordedStats::Max) ? r.max : nan,
                                                    r.has(RecordedStats::Min) ? r.min : nan,
                                                    r.has(RecordedStats::Norm) ? r.norm : nan);
    auto answer = [](const std::optional<bool> &a) {
        return a ? QString::fromLatin1(*a ? "yes" : "no") : QStringLiteral("cannot tell");
    };
    QString text = indent + QStringLiteral("headroom from the recorded max/min/norm only (no values):\n");
    for (const auto &l : headroomLimits()) {
        const auto &a = h.targets[size_t(l.target)];
        text += indent + QStringLiteral("  %1 overflow %2  underflow %3  subnormal %4\n")
                             .arg(QString::fromLatin1(l.name), -14)
                             .arg(answer(a.overflow), answer(a.underflow), answer(a.subnormal));
    }
    return text;
}

} // namespace ds
