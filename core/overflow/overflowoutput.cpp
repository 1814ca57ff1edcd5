// `dumpscope-cli overflow`: the JSON and the plain-text report of an OverflowReport.
#include "overflowreport.h"

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

} // namespace

QByteArray overflowJson(const DumpIndex &index, const OverflowReport &r)
{
    json records = json::array();
    json first = json::object();
    json overall = nullptr;
    for (const auto &e : r.records) {
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
        records.push_back({{"file", s(op.relPath)}, {"device", s(op.levels->device)}, {"data_index", s(op.levels->dataIndex)},
                           {"timestamp", op.timestamp},
                           {"layout", e.record.layout == OpDebugRecord::Layout::Magic ? "magic" : "legacy"},
                           {"version", e.record.version ? json(*e.record.version) : json(nullptr)},
                           {"first", e.firstOnDevice}, {"first_overall", e.firstOverall}, {"error", s(e.error)},
                           {"blocks", blocks}, {"warnings", warnings}});
        if (e.firstOnDevice)
            first[s(op.levels->device)] = s(op.relPath);
        if (e.firstOverall)
            overall = s(op.relPath);
    }
    json findings = json::array(), scopes = json::array();
    for (const auto &scan : r.scopes) {
        for (const auto &f : scan.findings) {
            json j = opJson(index, r, f.op);
            j["scope"] = s(scan.scope.label());
            j["level"] = s(overflowLevelName(f.level));
            j["reason"] = s(f.reason);
            j["statistic_overflow"] = f.statisticOverflow;
            findings.push_back(std::move(j));
        }
        scopes.push_back(scopeJson(index, scan));
    }
    json firstAnomaly = nullptr;
    if (r.firstScope >= 0) {
        const ScopeScan &scan = r.scopes[size_t(r.firstScope)];
        firstAnomaly = findingRef(index, scan, scan.first);
        firstAnomaly["scope"] = s(scan.scope.label());
    }
    json errors = json::array();
    for (const auto &e : index.errors)
        errors.push_back({{"file", s(e.file)}, {"message", s(e.message)}});
    json out{{"path", s(index.openedPath)},
             {"records", records},
             {"first_overflow", first},
             {"first_overflow_overall", overall},
             {"software", {{"scanned", r.scanned},
                           {"findings", findings},
                           {"first_producer", r.firstProducer >= 0 ? json(s(index.ops[size_t(r.firstProducer)].relPath)) : json(nullptr)},
                           {"first_anomaly", firstAnomaly},
                           {"scopes", scopes}}},
             {"errors", errors}};
    if (r.records.empty())
        out["note"] = "no overflow records found (if overflow detection was on, this SoC may not emit them)";
    return QByteArray::fromStdString(out.dump(2)) + '\n';
}

QString overflowText(const DumpIndex &index, const OverflowReport &r)
{
    QString out;
    auto num = [](double v) { return std::isfinite(v) ? QString::number(v, 'g', 6) : QStringLiteral("-"); };
    auto tok = [](double v) {
        return std::isnan(v) ? QStringLiteral("NaN") : std::isinf(v) ? (v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf")) : QString::number(v, 'g', 6);
    };
    auto printChecks = [&](int op, const QString &indent) {
        const auto it = r.checks.find(op);
        if (it == r.checks.end())
            return;
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
    };
    out += QStringLiteral("%1 OpDebug record(s)\n").arg(r.records.size());
    for (const auto &e : r.records) {
        const auto &op = index.ops[size_t(e.op)];
        out += QStringLiteral("\n%1%2\n").arg(op.relPath, e.firstOverall ? QStringLiteral("   <== first overflow")
                                                          : e.firstOnDevice ? QStringLiteral("   <== first on device %1").arg(op.levels->device)
                                                                            : QString());
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
                printChecks(l.op, QStringLiteral("      "));
            }
            out += QStringLiteral("    link: %1\n").arg(l.note);
        }
    }
    if (r.records.empty())
        out += QStringLiteral("no overflow records found (if overflow detection was on, this SoC may not emit them)\n");
    if (!r.scanned && !r.cancelled)
        return out;
    out += QStringLiteral("\nsoftware scan%1: %2 finding(s) in %3 scope(s)\n")
               .arg(r.cancelled ? QStringLiteral(" (cancelled)") : QString()).arg(r.findings.size()).arg(r.scopes.size());
    for (const auto &scan : r.scopes) {
        if (scan.findings.empty())
            continue;
        const QString label = scan.scope.label();
        if (r.scopes.size() > 1 || !label.isEmpty()) {
            out += QStringLiteral("\n  %1: ").arg(label.isEmpty() ? QStringLiteral("(top level)") : label);
            if (const SoftwareFinding *f = scan.firstAnomaly())
                out += QStringLiteral("first anomaly %1 [%2]%3\n")
                           .arg(opTitle(index.ops[size_t(f->op)]), overflowLevelName(f->level),
                                scan.firstIsCommunication(index) ? QStringLiteral(" (a communication op: its NaN/Inf may come from another rank)") : QString());
            else
                out += QStringLiteral("no NaN/Inf/saturated values\n");
        }
        for (size_t i = 0; i < scan.findings.size(); ++i) {
            const SoftwareFinding &f = scan.findings[i];
            const QString level = f.level != OverflowLevel::None ? overflowLevelName(f.level) : QStringLiteral("statistic overflow");
            out += QStringLiteral("  [%1] %2: %3\n").arg(level, index.ops[size_t(f.op)].relPath, f.reason);
            if (int(i) == scan.first || int(i) == scan.precursor)
                printChecks(f.op, QStringLiteral("      "));
        }
        if (scan.precursor >= 0 && scan.first >= 0)
            out += QStringLiteral("  note: %1's outputs already had an overflowing statistic before the first NaN/Inf value\n")
                       .arg(opTitle(index.ops[size_t(scan.findings[size_t(scan.precursor)].op)]));
    }
    if (const SoftwareFinding *f = r.firstAnomaly()) {
        const ScopeScan &scan = r.scopes[size_t(r.firstScope)];
        const QString where = scan.scope.label();
        out += QStringLiteral("\nfirst anomaly: %1%2 [%3]\n")
                   .arg(where.isEmpty() ? QString() : where + QStringLiteral(": "), opTitle(index.ops[size_t(f->op)]), overflowLevelName(f->level));
    }
    out += r.firstProducer >= 0 ? QStringLiteral("first producing operator: %1\n").arg(index.ops[size_t(r.firstProducer)].relPath)
                                : QStringLiteral("no operator produced an overflow\n");
    return out;
}

} // namespace ds
