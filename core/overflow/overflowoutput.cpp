// `dumpscope-cli overflow`: the JSON and the plain-text report of an OverflowReport.
#include "overflowpart.h"

#include "dump/levels.h"
#include "formats/readers.h"

#include <QSet>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace ds {

namespace {

using json = nlohmann::ordered_json;
std::string s(const QString &q) { return q.toStdString(); }
json hexOpt(const std::optional<std::uint64_t> &v) { return v ? json(s(hexString(*v))) : json(nullptr); }
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
/// A recorded statistic as msprobe writes it: a number, or the tokens "NaN", "Infinity", "-Infinity".
json token(double v)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "Infinity" : "-Infinity";
    return v;
}

const char *sourceName(CheckSource source)
{
    switch (source) {
    case CheckSource::Data: return "data";
    case CheckSource::Recorded: return "recorded";
    case CheckSource::None: break;
    }
    return "none";
}

json checkJson(const TensorCheck &t)
{
    json j{{"io", s(ioKindName(t.io))}, {"index", t.index}};
    if (!t.name.isEmpty())
        j["name"] = s(t.name);
    j["source"] = sourceName(t.source);
    j["anomalous"] = t.anomalous();
    if (t.ignored)
        j["ignored"] = true; // an ignore rule: NaN/Inf expected here
    if (!t.error.isEmpty())
        j["error"] = s(t.error);
    switch (t.source) {
    case CheckSource::Data:
        j.update({{"count", t.stats.count}, {"min", number(t.stats.min)}, {"max", number(t.stats.max)},
                  {"mean", number(t.stats.mean)}, {"l2norm", number(t.stats.l2norm)}, {"nan", t.stats.nan},
                  {"posinf", t.stats.posinf}, {"neginf", t.stats.neginf}, {"saturated", t.saturated}});
        break;
    case CheckSource::Recorded: {
        json recorded = json::object();
        const RecordedStats &r = t.recorded;
        if (r.has(RecordedStats::Max))
            recorded["max"] = token(r.max);
        if (r.has(RecordedStats::Min))
            recorded["min"] = token(r.min);
        if (r.has(RecordedStats::Mean))
            recorded["mean"] = token(r.mean);
        if (r.has(RecordedStats::Norm))
            recorded["norm"] = token(r.norm);
        j["recorded"] = recorded;
        j["saturated"] = t.saturated; // 1: Max or Min equals the dtype's finite extreme
        break;
    }
    case CheckSource::None: break;
    }
    j["statistic_overflow"] = t.statisticOverflow;
    return j;
}

json opJson(const DumpIndex &index, const OverflowReport &r, int op)
{
    const auto &rec = index.ops[size_t(op)];
    json inputs = json::array(), outputs = json::array(), parameters = json::array();
    if (auto it = r.checks.find(op); it != r.checks.end())
        for (const auto &t : it->second.tensors)
            (t.io == IoKind::Input ? inputs : t.io == IoKind::Output ? outputs : parameters).push_back(checkJson(t));
    json j{{"file", s(rec.relPath)}, {"op_type", s(rec.opType)},
           {"op_name", s(rec.headerOpName().isEmpty() ? rec.opName.toString() : rec.headerOpName())},
           {"task_id", rec.taskId()}, {"stream_id", rec.streamId()}, {"inputs", inputs}, {"outputs", outputs}};
    if (!parameters.empty())
        j["parameters"] = parameters;
    return j;
}

json statusJson(const OverflowBlock &b)
{
    auto causes = [](const StatusDecoding &d) {
        json a = json::array();
        for (const auto &c : d.causes)
            a.push_back({{"code", c.code}, {"hex", s(hexString(c.code))}, {"known", c.known}, {"en", s(c.english)}, {"zh", s(c.chinese)}});
        return a;
    };
    json status = json::array();
    for (auto w : b.status)
        status.push_back(w);
    json j{{"status", b.status.front()}, {"status_words", status}, {"status_hex", s(hexString(b.status.front()))},
           {"status_bin", s(binaryString(b.status.front()))}, {"overflow", b.decoding.overflow},
           {"causes", causes(b.decoding)}, {"status_warning", s(b.decoding.warning)},
           {"status_documented", b.statusDocumented}};
    if (!b.statusDocumented) {
        json bits = json::array();
        for (auto bit : setBits(b.status.front()))
            bits.push_back(s(hexString(bit)));
        j["status_note"] = s(b.undocumentedNote());
        j["status_bits"] = bits;
        j["ai_core_hint"] = causes(b.aiCoreHint);
    }
    return j;
}

json findingRef(const DumpIndex &index, const ScopeScan &scan, int at)
{
    if (at < 0)
        return nullptr;
    const SoftwareFinding &f = scan.findings[size_t(at)];
    const OpRecord &op = index.ops[size_t(f.op)];
    return {{"file", s(op.relPath)}, {"op_name", s(op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName())},
            {"level", s(overflowLevelName(f.level))}, {"reason", s(f.reason)}};
}

json scopeJson(const DumpIndex &index, const ScopeScan &scan)
{
    const DumpLevels &l = *scan.scope.levels;
    json j{{"scope", s(scan.scope.label())}};
    for (const auto &[key, value] : {std::pair{"step", &l.step}, {"rank", &l.rank}, {"device", &l.device}, {"data_index", &l.dataIndex}})
        if (!value->isEmpty())
            j[key] = s(*value);
    j.update({{"ops", scan.scope.end - scan.scope.begin}, {"findings", scan.findings.size()},
              {"first_anomaly", findingRef(index, scan, scan.first)},
              {"first_is_communication", scan.firstIsCommunication(index)},
              {"first_producer", findingRef(index, scan, scan.producer)},
              {"statistic_overflow_before", findingRef(index, scan, scan.precursor)},
              {"cancelled", scan.cancelled}});
    return j;
}


QString opTitle(const OpRecord &op) { return op.headerOpName().isEmpty() ? op.opName.toString() : op.headerOpName(); }

QByteArray toCbor(const json &j)
{
    const std::vector<std::uint8_t> bytes = json::to_cbor(j);
    return QByteArray(reinterpret_cast<const char *>(bytes.data()), qsizetype(bytes.size()));
}

/// The JSON value in `b` (discarded when `b` holds none: checked when decoding a part).
json fromCbor(const QByteArray &b) { return json::from_cbor(b.begin(), b.end(), true, false); }

/// The text lines of an operator's tensor checks.
QString checksText(const OverflowReport &r, int op, const QString &indent)
{
    QString out;
    auto num = [](double v) { return std::isfinite(v) ? QString::number(v, 'g', 6) : QStringLiteral("-"); };
    auto tok = [](double v) {
        return std::isnan(v) ? QStringLiteral("NaN") : std::isinf(v) ? (v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf")) : QString::number(v, 'g', 6);
    };
    const auto it = r.checks.find(op);
    if (it == r.checks.end())
        return out;
    for (const auto &t : it->second.tensors) {
        QString line = indent + t.label();
        switch (t.source) {
        case CheckSource::Data:
            line += QStringLiteral("  min %1  max %2  mean %3  nan %4  +inf %5  -inf %6  saturated %7")
                        .arg(num(t.stats.min), num(t.stats.max), num(t.stats.mean))
                        .arg(t.stats.nan).arg(t.stats.posinf).arg(t.stats.neginf).arg(t.saturated);
            break;
        case CheckSource::Recorded: {
            const RecordedStats &rs = t.recorded;
            line += QStringLiteral("  recorded:");
            for (const auto &[name, field, v] : {std::tuple{"max", RecordedStats::Max, rs.max}, {"min", RecordedStats::Min, rs.min},
                                                 {"mean", RecordedStats::Mean, rs.mean}, {"norm", RecordedStats::Norm, rs.norm}})
                line += QStringLiteral(" %1 %2").arg(QLatin1String(name), rs.has(field) ? tok(v) : QStringLiteral("-"));
            if (t.saturated)
                line += QStringLiteral("  (saturated)");
            break;
        }
        case CheckSource::None:
            line += t.error.isEmpty() ? QStringLiteral("  no data and no recorded statistics") : QString();
            break;
        }
        if (t.anomalous())
            line += QStringLiteral("  <- abnormal");
        else if (t.statisticOverflow)
            line += QStringLiteral("  <- statistic overflow");
        if (t.ignored)
            line += QStringLiteral("  (NaN/Inf expected here: ignore rule)");
        if (!t.error.isEmpty())
            line += QStringLiteral("  error: %1").arg(t.error);
        out += line + QLatin1Char('\n');
    }
    return out;
}

/// An OpDebug record's JSON object ("first" marks false: the merge sets them).
json recordJson(const DumpIndex &index, const OverflowReport &r, const OverflowEntry &e)
{
    const auto &op = index.ops[size_t(e.op)];
    json blocks = json::array();
    for (const auto &l : e.links) {
        const OverflowBlock &b = *l.block;
        json jb{{"kind", s(b.kindName())}, {"model_id", b.modelId}, {"stream_id", b.streamId}, {"task_id", b.taskId},
                {"task_type", b.taskType}, {"pc_start", hexOpt(b.pcStart)}, {"para_base", hexOpt(b.paraBase)},
                {"kernel_code", hexOpt(b.kernelCode)}, {"block_idx", b.blockIdx ? json(*b.blockIdx) : json(nullptr)}};
        jb.update(statusJson(b));
        jb.update({{"linked_op", l.op >= 0 ? json(s(index.ops[size_t(l.op)].relPath)) : json(nullptr)}, {"link_note", s(l.note)}});
        for (const auto &[name, v] : {std::pair{"context_id", b.contextId}, {"thread_id", b.threadId}, {"core_id", b.coreId},
                                      {"cpu_id", b.cpuId}, {"channel_id", b.channelId}})
            if (v)
                jb[name] = *v;
        if (b.srcAddr)
            jb["src_addr"] = s(hexString(*b.srcAddr));
        if (b.dstAddr)
            jb["dst_addr"] = s(hexString(*b.dstAddr));
        if (l.op >= 0)
            jb["op"] = opJson(index, r, l.op);
        blocks.push_back(std::move(jb));
    }
    json warnings = json::array();
    for (const auto &w : e.record.warnings)
        warnings.push_back(s(w));
    if (!e.error.isEmpty())
        warnings.push_back(s(e.error));
    return {{"file", s(op.relPath)}, {"device", s(op.levels->device)}, {"data_index", s(op.levels->dataIndex)},
            {"timestamp", op.timestamp},
            {"layout", e.record.layout == OpDebugRecord::Layout::Magic ? "magic" : "legacy"},
            {"version", e.record.version ? json(*e.record.version) : json(nullptr)},
            {"first", false}, {"first_overall", false}, {"error", s(e.error)},
            {"blocks", blocks}, {"warnings", warnings}};
}

/// An OpDebug record's lines of the text report below the line naming it.
QString recordText(const DumpIndex &index, const OverflowReport &r, const OverflowEntry &e)
{
    QString out;
    if (!e.error.isEmpty())
        out += QStringLiteral("  error: %1\n").arg(e.error);
    for (const auto &w : e.record.warnings)
        out += QStringLiteral("  warning: %1\n").arg(w);
    for (const auto &l : e.links) {
        const OverflowBlock &b = *l.block;
        out += QStringLiteral("  %1: model %2 stream %3 task %4 type %5").arg(b.kindName()).arg(b.modelId).arg(b.streamId).arg(b.taskId).arg(b.taskType);
        if (b.pcStart)
            out += QStringLiteral(" pc_start %1 para_base %2").arg(hexString(*b.pcStart), hexString(b.paraBase.value_or(0)));
        if (b.kernelCode)
            out += QStringLiteral(" kernel_code %1 block_idx %2").arg(hexString(*b.kernelCode)).arg(b.blockIdx.value_or(0));
        out += QStringLiteral("\n    status %1 = %2 = %3\n").arg(b.status.front()).arg(hexString(b.status.front()), binaryString(b.status.front()));
        for (size_t w = 1; w < b.status.size(); ++w)
            out += QStringLiteral("    status word %1 = %2\n").arg(w).arg(hexString(b.status[w]));
        for (const auto &c : b.decoding.causes)
            out += QStringLiteral("    - %1 %2 / %3\n").arg(hexString(c.code), c.english, c.chinese);
        if (!b.statusDocumented) {
            QStringList bits;
            for (auto bit : setBits(b.status.front()))
                bits << hexString(bit);
            out += QStringLiteral("    %1\n    set bits: %2\n").arg(b.undocumentedNote(), bits.isEmpty() ? QStringLiteral("none") : bits.join(QStringLiteral(", ")));
            for (const auto &c : b.aiCoreHint.causes)
                out += QStringLiteral("    hint (AI Core reading): %1 %2 / %3\n").arg(hexString(c.code), c.english, c.chinese);
        }
        if (!b.decoding.warning.isEmpty())
            out += QStringLiteral("    warning: %1\n").arg(b.decoding.warning);
        if (l.op >= 0) {
            const auto &rec = index.ops[size_t(l.op)];
            out += QStringLiteral("    operator: %1 %2 (%3)\n").arg(rec.opType, opTitle(rec), rec.relPath);
            out += checksText(r, l.op, QStringLiteral("      "));
        }
        out += QStringLiteral("    link: %1\n").arg(l.note);
    }
    return out;
}

/// One scope's scan as the merge needs it.
OverflowPart::Scan scanPart(const DumpIndex &index, const OverflowReport &r, const ScopeScan &scan)
{
    OverflowPart::Scan p;
    p.levels = *scan.scope.levels;
    json j = scopeJson(index, scan);
    j["scope"] = "";
    p.json = toCbor(j);
    json findings = json::array();
    for (const auto &f : scan.findings) {
        json fj = opJson(index, r, f.op);
        fj["scope"] = "";
        fj["level"] = s(overflowLevelName(f.level));
        fj["reason"] = s(f.reason);
        fj["statistic_overflow"] = f.statisticOverflow;
        fj["nan_check"] = f.nanCheck; // judged from msprobe nan_check's is_nan register flag
        if (!f.origins.empty()) { // abnormal inputs no operator of the scope produced (inputorigin.h)
            json origins = json::array();
            auto opt = [](const QString &q) { return q.isEmpty() ? json() : json(s(q)); };
            for (const InputOrigin &o : f.origins)
                origins.push_back({{"tensor", s(o.tensor)}, {"parameter", opt(o.parameter)}, {"module", opt(o.module)},
                                   {"previous_scope", opt(o.previousScope)},
                                   {"written_by", o.writer.isEmpty() ? json() : json{{"op", s(o.writer)}, {"tensor", s(o.writerTensor)}}},
                                   {"last_seen_normal", o.lastNormal.isEmpty() ? json() : json{{"op", s(o.lastNormal)}, {"tensor", s(o.lastNormalTensor)}}},
                                   {"text", s(o.text)}});
            fj["origins"] = std::move(origins);
        }
        findings.push_back(std::move(fj));
    }
    p.findings = toCbor(findings);
    p.findingCount = qint32(scan.findings.size());
    p.hasFirst = scan.first >= 0;
    p.firstIsCommunication = scan.firstIsCommunication(index);
    p.cancelled = scan.cancelled;
    if (const SoftwareFinding *f = scan.firstAnomaly()) {
        p.headLine = QStringLiteral("first anomaly %1 [%2]%3\n")
                         .arg(opTitle(index.ops[size_t(f->op)]), overflowLevelName(f->level),
                              p.firstIsCommunication ? QStringLiteral(" (a communication op: its NaN/Inf may come from another rank)") : QString());
        p.firstTitle = opTitle(index.ops[size_t(f->op)]);
        p.firstLevel = overflowLevelName(f->level);
    } else {
        p.headLine = QStringLiteral("no NaN/Inf/saturated values\n");
    }
    for (size_t i = 0; i < scan.findings.size(); ++i) {
        const SoftwareFinding &f = scan.findings[i];
        const QString level = f.level != OverflowLevel::None ? overflowLevelName(f.level) : QStringLiteral("statistic overflow");
        p.body += QStringLiteral("  [%1] %2: %3\n").arg(level, index.ops[size_t(f.op)].relPath, f.reason);
        if (int(i) == scan.first || int(i) == scan.precursor)
            p.body += checksText(r, f.op, QStringLiteral("      "));
    }
    if (scan.precursor >= 0 && scan.first >= 0)
        p.body += QStringLiteral("  note: %1's outputs already had an overflowing statistic before the first NaN/Inf value\n")
                      .arg(opTitle(index.ops[size_t(scan.findings[size_t(scan.precursor)].op)]));
    if (scan.producer >= 0)
        p.producer = index.ops[size_t(scan.findings[size_t(scan.producer)].op)].relPath;
    return p;
}

/// Execution order of two operators given by their levels, timestamps and paths (DumpIndex::finalize).
bool executedBefore(const DumpLevels &la, std::uint64_t ta, const QString &pa, const DumpLevels &lb, std::uint64_t tb, const QString &pb)
{
    if (levelsBefore(la, lb))
        return true;
    if (levelsBefore(lb, la))
        return false;
    if (ta != tb)
        return ta < tb;
    return pa < pb;
}

constexpr quint32 kOverflowMagic = 0x44534f31; // "DSO1"

} // namespace

OverflowPart overflowPart(const DumpIndex &index, const OverflowReport &r)
{
    OverflowPart part;
    for (FormatId f : index.sourceFormats())
        part.formats.push_back(qint32(f));
    QSet<QString> runs;
    const DumpLevels *last = nullptr;
    for (const OpRecord &op : index.ops)
        if (&*op.levels != last) {
            last = &*op.levels;
            runs.insert(op.levels->run);
        }
    part.runs = QStringList(runs.begin(), runs.end());
    part.runs.sort();
    for (const auto &e : r.records) {
        const OpRecord &op = index.ops[size_t(e.op)];
        part.records.push_back({*op.levels, op.relPath, op.timestamp, toCbor(recordJson(index, r, e)), recordText(index, r, e)});
    }
    for (const ScopeScan &scan : r.scopes)
        part.scans.push_back(scanPart(index, r, scan));
    part.errors = index.errors;
    part.cancelled = r.cancelled;
    return part;
}

OverflowDocument mergeOverflow(std::vector<OverflowPart> parts, const QString &openedPath, bool scanRequested)
{
    OverflowDocument doc;
    doc.path = openedPath;
    std::vector<std::vector<qint32>> formats;
    QSet<QString> runs;
    for (OverflowPart &p : parts) {
        formats.push_back(p.formats);
        for (const QString &r : std::as_const(p.runs))
            runs.insert(r);
        std::move(p.records.begin(), p.records.end(), std::back_inserter(doc.records));
        std::move(p.scans.begin(), p.scans.end(), std::back_inserter(doc.scans));
        doc.errors.insert(doc.errors.end(), p.errors.begin(), p.errors.end());
        doc.cancelled = doc.cancelled || p.cancelled;
    }
    doc.severalRuns = runs.size() > 1;
    const bool severalFormats = unitedFormats(formats).size() > 1;
    doc.errors = mergedErrors(std::move(doc.errors));
    doc.scanned = scanRequested && !doc.cancelled;

    // Records: device, data_index, timestamp, file name (§8); then execution order.
    for (auto &e : doc.records)
        e.levels = wholeTreeLevels(e.levels, doc.severalRuns, severalFormats);
    std::sort(doc.records.begin(), doc.records.end(), [](const OverflowPart::Record &a, const OverflowPart::Record &b) {
        if (int c = compareLevel(a.levels.device, b.levels.device))
            return c < 0;
        if (int c = compareLevel(a.levels.dataIndex, b.levels.dataIndex))
            return c < 0;
        if (a.timestamp != b.timestamp)
            return a.timestamp < b.timestamp;
        const QString fa = a.relPath.section(QLatin1Char('/'), -1), fb = b.relPath.section(QLatin1Char('/'), -1);
        if (fa != fb)
            return fa < fb;
        return executedBefore(a.levels, a.timestamp, a.relPath, b.levels, b.timestamp, b.relPath);
    });
    OverflowPart::Record *overall = nullptr;
    for (size_t i = 0; i < doc.records.size(); ++i) {
        auto &e = doc.records[i];
        if (i == 0 || e.levels.device != doc.records[i - 1].levels.device)
            e.firstOnDevice = true;
        if (!overall) {
            overall = &e;
            continue;
        }
        const int c = compareLevel(e.levels.dataIndex, overall->levels.dataIndex);
        if (c < 0 || (c == 0 && e.timestamp < overall->timestamp))
            overall = &e;
    }
    if (overall)
        overall->firstOverall = true;

    // Scans: execution order of their levels; labels; the dump's first anomaly (firstScopeOf).
    for (auto &scan : doc.scans)
        scan.levels = wholeTreeLevels(scan.levels, doc.severalRuns, severalFormats);
    std::stable_sort(doc.scans.begin(), doc.scans.end(),
                     [](const OverflowPart::Scan &a, const OverflowPart::Scan &b) { return levelsBefore(a.levels, b.levels); });
    for (auto &scan : doc.scans) {
        OverflowScope scope;
        scope.levels = SharedLevels(scan.levels);
        scan.label = scope.label();
        doc.findings += scan.findingCount;
    }
    for (size_t i = 0; i < doc.scans.size(); ++i) {
        const OverflowPart::Scan &scan = doc.scans[i];
        if (!scan.hasFirst)
            continue;
        if (doc.firstScan < 0) {
            doc.firstScan = int(i);
            continue;
        }
        // Later scopes only compete within the same step (everything but rank and device equal).
        const DumpLevels &a = doc.scans[size_t(doc.firstScan)].levels, &b = scan.levels;
        if (a.part != b.part || a.time != b.time || a.step != b.step || a.modelName != b.modelName || a.modelId != b.modelId
            || a.dataIndex != b.dataIndex)
            break;
        if (doc.scans[size_t(doc.firstScan)].firstIsCommunication && !scan.firstIsCommunication) {
            doc.firstScan = int(i);
            break;
        }
    }
    return doc;
}

QByteArray overflowJson(const OverflowDocument &doc)
{
    json records = json::array();
    json first = json::object();
    json overall = nullptr;
    for (const auto &e : doc.records) {
        json j = fromCbor(e.json);
        j["first"] = e.firstOnDevice;
        j["first_overall"] = e.firstOverall;
        records.push_back(std::move(j));
        if (e.firstOnDevice)
            first[s(e.levels.device)] = s(e.relPath);
        if (e.firstOverall)
            overall = s(e.relPath);
    }
    json findings = json::array(), scopes = json::array();
    for (const auto &scan : doc.scans) {
        for (json &f : fromCbor(scan.findings)) {
            f["scope"] = s(scan.label);
            findings.push_back(std::move(f));
        }
        json j = fromCbor(scan.json);
        j["scope"] = s(scan.label);
        scopes.push_back(std::move(j));
    }
    json firstAnomaly = nullptr, firstProducer = nullptr;
    if (doc.firstScan >= 0) {
        const auto &scan = doc.scans[size_t(doc.firstScan)];
        firstAnomaly = fromCbor(scan.json)["first_anomaly"];
        firstAnomaly["scope"] = s(scan.label);
        if (!scan.producer.isEmpty())
            firstProducer = s(scan.producer);
    }
    json errors = json::array();
    for (const auto &e : doc.errors)
        errors.push_back({{"file", s(e.file)}, {"message", s(e.message)}});
    json out{{"path", s(doc.path)},
             {"first", doc.firstJson.isEmpty() ? json() : json::parse(doc.firstJson.toStdString())},
             {"records", records},
             {"first_overflow", first},
             {"first_overflow_overall", overall},
             {"software", {{"scanned", doc.scanned},
                           {"findings", findings},
                           {"first_producer", firstProducer},
                           {"first_anomaly", firstAnomaly},
                           {"scopes", scopes}}},
             {"errors", errors}};
    if (doc.severalRuns) // "first" is the first run's; every run's own answer
        out["first_by_run"] = doc.firstByRunJson.isEmpty() ? json::object() : json::parse(doc.firstByRunJson.toStdString());
    if (doc.records.empty())
        out["note"] = "no overflow records found (if overflow detection was on, this SoC may not emit them)";
    return QByteArray::fromStdString(out.dump(2)) + '\n';
}

QString overflowText(const OverflowDocument &doc)
{
    QString out;
    // The answer first (run/firstoverflow.h); the records and the scan below are what each source says.
    out += doc.firstText;
    const QSet<QString> answerRecords(doc.firstRecords.begin(), doc.firstRecords.end());
    out += QStringLiteral("%1 OpDebug record(s)\n").arg(doc.records.size());
    for (const auto &e : doc.records) {
        QString mark;
        if (answerRecords.contains(e.relPath))
            mark = QStringLiteral("   <== first overflow");
        else if (e.firstOverall)
            mark = QStringLiteral("   <== earliest OpDebug record");
        else if (e.firstOnDevice)
            mark = QStringLiteral("   <== earliest OpDebug record on device %1").arg(e.levels.device);
        out += QStringLiteral("\n%1%2\n").arg(e.relPath, mark);
        out += e.text;
    }
    if (doc.records.empty())
        out += QStringLiteral("no overflow records found (if overflow detection was on, this SoC may not emit them)\n");
    if (!doc.scanned && !doc.cancelled)
        return out;
    out += QStringLiteral("\nsoftware scan%1: %2 finding(s) in %3 scope(s)\n")
               .arg(doc.cancelled ? QStringLiteral(" (cancelled)") : QString()).arg(doc.findings).arg(doc.scans.size());
    for (const auto &scan : doc.scans) {
        if (scan.findingCount == 0)
            continue;
        if (doc.scans.size() > 1 || !scan.label.isEmpty())
            out += QStringLiteral("\n  %1: ").arg(scan.label.isEmpty() ? QStringLiteral("(top level)") : scan.label) + scan.headLine;
        out += scan.body;
    }
    const OverflowPart::Scan *firstScan = doc.firstScan >= 0 ? &doc.scans[size_t(doc.firstScan)] : nullptr;
    if (firstScan)
        out += QStringLiteral("\nsoftware scan's first anomaly: %1%2 [%3]\n")
                   .arg(firstScan->label.isEmpty() ? QString() : firstScan->label + QStringLiteral(": "), firstScan->firstTitle, firstScan->firstLevel);
    out += firstScan && !firstScan->producer.isEmpty() ? QStringLiteral("software scan's first producing operator: %1\n").arg(firstScan->producer)
                                                       : QStringLiteral("the software scan found no operator that produced an overflow\n");
    return out;
}

QByteArray encodeOverflowPart(const OverflowPart &p)
{
    return writePart(kOverflowMagic, [&](QDataStream &s) {
        s << quint32(p.records.size());
        for (const auto &r : p.records) {
            writeLevels(s, r.levels);
            s << r.relPath << quint64(r.timestamp) << r.json << r.text;
        }
        s << quint32(p.scans.size());
        for (const auto &x : p.scans) {
            writeLevels(s, x.levels);
            s << x.json << x.findings << x.findingCount << x.hasFirst << x.firstIsCommunication << x.cancelled << x.headLine
              << x.body << x.firstTitle << x.firstLevel << x.producer;
        }
        writeErrors(s, p.errors);
        s << p.runs << quint32(p.formats.size());
        for (qint32 f : p.formats)
            s << f;
        s << p.cancelled;
    });
}

std::optional<OverflowPart> decodeOverflowPart(const QByteArray &bytes)
{
    OverflowPart p;
    const bool ok = readPart(bytes, kOverflowMagic, [&](QDataStream &s) {
        quint32 n = 0;
        s >> n;
        for (quint32 i = 0; i < n && s.status() == QDataStream::Ok; ++i) { // counts come off the wire
            OverflowPart::Record r;
            quint64 t = 0;
            readLevels(s, r.levels);
            s >> r.relPath >> t >> r.json >> r.text;
            r.timestamp = t;
            p.records.push_back(std::move(r));
        }
        s >> n;
        for (quint32 i = 0; i < n && s.status() == QDataStream::Ok; ++i) {
            OverflowPart::Scan x;
            readLevels(s, x.levels);
            s >> x.json >> x.findings >> x.findingCount >> x.hasFirst >> x.firstIsCommunication >> x.cancelled >> x.headLine >> x.body
                >> x.firstTitle >> x.firstLevel >> x.producer;
            p.scans.push_back(std::move(x));
        }
        readErrors(s, p.errors);
        s >> p.runs >> n;
        for (quint32 i = 0; i < n && s.status() == QDataStream::Ok; ++i) {
            qint32 f = 0;
            s >> f;
            p.formats.push_back(f);
        }
        s >> p.cancelled;
    });
    if (!ok)
        return std::nullopt;
    for (qint32 f : p.formats)
        if (f < 0 || size_t(f) >= dumpReaders().size())
            return std::nullopt;
    for (const auto &r : p.records)
        if (!fromCbor(r.json).is_object())
            return std::nullopt;
    for (const auto &x : p.scans)
        if (!fromCbor(x.json).is_object() || !fromCbor(x.findings).is_array())
            return std::nullopt;
    return p;
}

} // namespace ds
