#include "overflowreport.h"

#include "index/tensorloader.h"
#include "io/pagerelease.h"
#include "tensor/dtype.h"

#include <QHash>
#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

namespace ds {

namespace {

QString dirOf(const QString &relPath) { return relPath.contains(QLatin1Char('/')) ? relPath.section(QLatin1Char('/'), 0, -2) : QString(); }

/// Numeric-aware "less" for directory level labels.
int compareLevel(const QString &a, const QString &b)
{
    bool okA = false, okB = false;
    const qulonglong x = a.toULongLong(&okA), y = b.toULongLong(&okB);
    if (okA && okB && x != y)
        return x < y ? -1 : 1;
    return a.compare(b);
}

using OpKey = QString; // "<dir>\n<stream>\n<task>"
OpKey key(const QString &dir, std::uint64_t stream, std::uint64_t task)
{
    return dir + QLatin1Char('\n') + QString::number(stream) + QLatin1Char('\n') + QString::number(task);
}

/// Among candidates, the one with the largest timestamp <= t, else the earliest (§7).
int pick(const DumpIndex &index, const std::vector<int> &cands, std::uint64_t t)
{
    int best = -1, earliest = -1;
    for (int c : cands) {
        const auto ts = index.ops[size_t(c)].timestamp;
        if (ts <= t && (best < 0 || ts > index.ops[size_t(best)].timestamp))
            best = c;
        if (earliest < 0 || ts < index.ops[size_t(earliest)].timestamp)
            earliest = c;
    }
    return best >= 0 ? best : earliest;
}

OpCheck checkOp(const DumpIndex &index, int op, const JobControl *job)
{
    OpCheck check;
    const auto &tensors = index.ops[size_t(op)].tensors;
    for (size_t t = 0; t < tensors.size(); ++t) {
        if (tensors[t].io() != IoKind::Input && tensors[t].io() != IoKind::Output)
            continue;
        TensorCheck c;
        c.io = tensors[t].io();
        c.index = tensors[t].index();
        auto loaded = loadTensor(index, {op, int(t)}, LayoutChoice::Logical, job);
        if (!loaded) {
            c.error = loaded.errorText();
        } else {
            computeStats((*loaded)->view, c.stats, job);
            c.saturated = countSaturated((*loaded)->view);
        }
        check.tensors.push_back(std::move(c));
    }
    return check;
}

double maxNorm(const OpCheck &c, IoKind io, bool &any)
{
    double m = 0;
    any = false;
    for (const auto &t : c.tensors)
        if (t.io == io) {
            any = true;
            if (std::isfinite(t.stats.l2norm))
                m = std::max(m, t.stats.l2norm);
        }
    return m;
}

SoftwareFinding classify(int op, const OpCheck &c)
{
    SoftwareFinding f;
    f.op = op;
    const bool in = c.anyInputAnomalous(), out = c.anyOutputAnomalous();
    if (!in && out) {
        f.level = OverflowLevel::Critical;
        f.reason = QStringLiteral("inputs normal, outputs hold NaN/Inf or saturated values: overflow produced here");
    } else if (in && out) {
        f.level = OverflowLevel::High;
        f.reason = QStringLiteral("inputs and outputs abnormal: propagated from upstream");
    } else if (in) {
        f.level = OverflowLevel::Medium;
        f.reason = QStringLiteral("inputs abnormal, outputs normal");
    } else {
        bool hasIn = false, hasOut = false;
        const double normIn = maxNorm(c, IoKind::Input, hasIn), normOut = maxNorm(c, IoKind::Output, hasOut);
        if (hasIn && hasOut && ((normIn > 0 && normOut / normIn > 100) || (normIn == 0 && normOut > 100))) {
            f.level = OverflowLevel::High;
            f.reason = QStringLiteral("numerical mutation: output norm %1 vs input norm %2").arg(normOut, 0, 'g', 6).arg(normIn, 0, 'g', 6);
        }
    }
    return f;
}

} // namespace

bool OpCheck::anyInputAnomalous() const
{
    return std::any_of(tensors.begin(), tensors.end(), [](const TensorCheck &t) { return t.io == IoKind::Input && t.anomalous(); });
}

bool OpCheck::anyOutputAnomalous() const
{
    return std::any_of(tensors.begin(), tensors.end(), [](const TensorCheck &t) { return t.io == IoKind::Output && t.anomalous(); });
}

QString overflowLevelName(OverflowLevel l)
{
    switch (l) {
    case OverflowLevel::Critical: return QStringLiteral("critical");
    case OverflowLevel::High: return QStringLiteral("high");
    case OverflowLevel::Medium: return QStringLiteral("medium");
    case OverflowLevel::None: break;
    }
    return {};
}

bool isOpDebug(const OpRecord &op)
{
    if (op.opDebug)
        return true;
    if (op.headerOpName() != QLatin1String("Node_OpDebug") || op.count(IoKind::Output) != 1 || op.count(IoKind::Input) != 0)
        return false;
    const TensorRecord *out = op.tensor(IoKind::Output, 0);
    return out && out->dataType() == int(DataType::UInt8) && out->size() == 2048;
}

OverflowReport analyzeOverflow(const DumpIndex &index, const OverflowOptions &options, const JobControl *job)
{
    OverflowReport report;
    // Operators by (directory, stream, task) and by (parent directory, stream, task).
    QHash<OpKey, std::vector<int>> byDir, byParent;
    std::vector<int> opDebugs;
    for (size_t o = 0; o < index.ops.size(); ++o) {
        const auto &op = index.ops[o];
        if (isOpDebug(op)) {
            opDebugs.push_back(int(o));
            continue;
        }
        if (op.taskId() < 0)
            continue;
        const QString dir = dirOf(op.relPath);
        const auto stream = std::uint64_t(std::max<std::int64_t>(op.streamId(), 0)), task = std::uint64_t(op.taskId());
        byDir[key(dir, stream, task)].push_back(int(o));
        byParent[key(dirOf(dir), stream, task)].push_back(int(o));
    }

    for (int o : opDebugs) {
        OverflowEntry e;
        e.op = o;
        const auto &op = index.ops[size_t(o)];
        const TensorRecord *out = op.tensor(IoKind::Output, 0);
        const int tensorIdx = out ? int(out - op.tensors.data()) : -1;
        auto loaded = tensorIdx >= 0 ? loadTensor(index, {o, tensorIdx}, LayoutChoice::Raw, job)
                                     : Result<std::shared_ptr<const LoadedTensor>>::failure(QStringLiteral("no output tensor"));
        if (!loaded) {
            e.error = loaded.errorText();
        } else {
            QString error;
            const auto &v = (*loaded)->view;
            if (auto rec = decodeOpDebug(v.data, v.count * elemBytes(v.elem), &error))
                e.record = std::move(*rec);
            else
                e.error = error;
        }
        const QString dir = dirOf(op.relPath);
        for (const OverflowBlock *b : e.record.triggered()) {
            OverflowEntry::Link link;
            link.block = b;
            const auto here = byDir.value(key(dir, b->streamId, b->taskId));
            if (!here.empty()) {
                link.op = pick(index, here, op.timestamp);
                link.note = QStringLiteral("stream %1, task %2 in the same directory").arg(b->streamId).arg(b->taskId);
            } else {
                const auto siblings = byParent.value(key(dirOf(dir), b->streamId, b->taskId));
                if (!siblings.empty()) {
                    link.op = pick(index, siblings, op.timestamp);
                    link.note = QStringLiteral("stream %1, task %2 found in sibling directory %3")
                                    .arg(b->streamId).arg(b->taskId).arg(dirOf(index.ops[size_t(link.op)].relPath));
                } else {
                    link.note = QStringLiteral("operator not found: no dump file with stream %1 and task %2 in this directory or its siblings")
                                    .arg(b->streamId).arg(b->taskId);
                }
            }
            if (link.op >= 0) {
                const QString modelId = index.ops[size_t(link.op)].levels->modelId;
                if (!modelId.isEmpty() && modelId != QString::number(b->modelId))
                    link.note += QStringLiteral("; model_id %1 differs from the directory's %2").arg(b->modelId).arg(modelId);
                if (!report.checks.count(link.op))
                    report.checks[link.op] = checkOp(index, link.op, job);
            }
            e.links.push_back(std::move(link));
        }
        report.records.push_back(std::move(e));
    }

    // Earliest overflow: device, data_index, timestamp, file name (§8).
    auto levels = [&](const OverflowEntry &e) -> const OpRecord & { return index.ops[size_t(e.op)]; };
    std::sort(report.records.begin(), report.records.end(), [&](const OverflowEntry &a, const OverflowEntry &b) {
        const auto &x = levels(a), &y = levels(b);
        if (int c = compareLevel(x.levels->device, y.levels->device))
            return c < 0;
        if (int c = compareLevel(x.levels->dataIndex, y.levels->dataIndex))
            return c < 0;
        if (x.timestamp != y.timestamp)
            return x.timestamp < y.timestamp;
        return x.relPath.section(QLatin1Char('/'), -1) < y.relPath.section(QLatin1Char('/'), -1);
    });
    OverflowEntry *overall = nullptr;
    for (size_t i = 0; i < report.records.size(); ++i) {
        auto &e = report.records[i];
        if (i == 0 || levels(e).levels->device != levels(report.records[i - 1]).levels->device)
            e.firstOnDevice = true;
        if (!overall) {
            overall = &e;
            continue;
        }
        const auto &x = levels(e), &y = levels(*overall);
        const int c = compareLevel(x.levels->dataIndex, y.levels->dataIndex);
        if (c < 0 || (c == 0 && x.timestamp < y.timestamp))
            overall = &e;
    }
    if (overall)
        overall->firstOverall = true;

    if (options.softwareScan) {
        for (size_t o = 0; o < index.ops.size(); ++o) {
            if (job && job->cancelled()) {
                report.cancelled = true;
                break;
            }
            if (isOpDebug(index.ops[o]))
                continue;
            if (!report.checks.count(int(o)))
                report.checks[int(o)] = checkOp(index, int(o), job);
            const SoftwareFinding f = classify(int(o), report.checks[int(o)]);
            if (f.level != OverflowLevel::None) {
                report.findings.push_back(f);
                if (f.level == OverflowLevel::Critical && report.firstProducer < 0)
                    report.firstProducer = f.op;
            }
            if (job)
                job->report(int(1000 * (o + 1) / index.ops.size()));
        }
        report.scanned = !report.cancelled;
    }
    return report;
}

namespace {

using json = nlohmann::ordered_json;
std::string s(const QString &q) { return q.toStdString(); }
json hexOpt(const std::optional<std::uint64_t> &v) { return v ? json(s(hexString(*v))) : json(nullptr); }
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json checkJson(const TensorCheck &t)
{
    json j{{"io", s(ioKindName(t.io))}, {"index", t.index}};
    if (!t.error.isEmpty()) {
        j["error"] = s(t.error);
        return j;
    }
    j.update({{"count", t.stats.count}, {"min", number(t.stats.min)}, {"max", number(t.stats.max)},
              {"mean", number(t.stats.mean)}, {"l2norm", number(t.stats.l2norm)}, {"nan", t.stats.nan},
              {"posinf", t.stats.posinf}, {"neginf", t.stats.neginf}, {"saturated", t.saturated}});
    return j;
}

json opJson(const DumpIndex &index, const OverflowReport &r, int op)
{
    const auto &rec = index.ops[size_t(op)];
    json inputs = json::array(), outputs = json::array();
    if (auto it = r.checks.find(op); it != r.checks.end())
        for (const auto &t : it->second.tensors)
            (t.io == IoKind::Input ? inputs : outputs).push_back(checkJson(t));
    return {{"file", s(rec.relPath)}, {"op_type", s(rec.opType)},
            {"op_name", s(rec.headerOpName().isEmpty() ? rec.opName.toString() : rec.headerOpName())},
            {"task_id", rec.taskId()}, {"stream_id", rec.streamId()}, {"inputs", inputs}, {"outputs", outputs}};
}

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
            json causes = json::array();
            for (const auto &c : b.decoding.causes)
                causes.push_back({{"code", c.code}, {"hex", s(hexString(c.code))}, {"known", c.known},
                                  {"en", s(c.english)}, {"zh", s(c.chinese)}});
            json status = json::array();
            for (auto w : b.status)
                status.push_back(w);
            json jb{{"kind", s(b.kindName())}, {"model_id", b.modelId}, {"stream_id", b.streamId}, {"task_id", b.taskId},
                    {"task_type", b.taskType}, {"pc_start", hexOpt(b.pcStart)}, {"para_base", hexOpt(b.paraBase)},
                    {"kernel_code", hexOpt(b.kernelCode)}, {"block_idx", b.blockIdx ? json(*b.blockIdx) : json(nullptr)},
                    {"status", b.status.front()}, {"status_words", status}, {"status_hex", s(hexString(b.status.front()))},
                    {"status_bin", s(binaryString(b.status.front()))}, {"overflow", b.decoding.overflow},
                    {"causes", causes}, {"status_warning", s(b.decoding.warning)},
                    {"linked_op", l.op >= 0 ? json(s(index.ops[size_t(l.op)].relPath)) : json(nullptr)},
                    {"link_note", s(l.note)}};
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
    json findings = json::array();
    for (const auto &f : r.findings) {
        json j = opJson(index, r, f.op);
        j["level"] = s(overflowLevelName(f.level));
        j["reason"] = s(f.reason);
        findings.push_back(std::move(j));
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
                           {"first_producer", r.firstProducer >= 0 ? json(s(index.ops[size_t(r.firstProducer)].relPath)) : json(nullptr)}}},
             {"errors", errors}};
    if (r.records.empty())
        out["note"] = "no overflow records found (if overflow detection was on, this SoC may not emit them)";
    return QByteArray::fromStdString(out.dump(2)) + '\n';
}

QString overflowText(const DumpIndex &index, const OverflowReport &r)
{
    QString out;
    auto num = [](double v) { return std::isfinite(v) ? QString::number(v, 'g', 6) : QStringLiteral("-"); };
    auto printOp = [&](int op) {
        const auto &rec = index.ops[size_t(op)];
        out += QStringLiteral("    operator: %1 %2 (%3)\n").arg(rec.opType, rec.headerOpName().isEmpty() ? rec.opName.toString() : rec.headerOpName(), rec.relPath);
        if (auto it = r.checks.find(op); it != r.checks.end())
            for (const auto &t : it->second.tensors)
                out += t.error.isEmpty()
                           ? QStringLiteral("      %1.%2  min %3  max %4  mean %5  nan %6  +inf %7  -inf %8  saturated %9\n")
                                 .arg(ioKindName(t.io)).arg(t.index).arg(num(t.stats.min), num(t.stats.max), num(t.stats.mean))
                                 .arg(t.stats.nan).arg(t.stats.posinf).arg(t.stats.neginf).arg(t.saturated)
                           : QStringLiteral("      %1.%2  error: %3\n").arg(ioKindName(t.io)).arg(t.index).arg(t.error);
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
            for (const auto &c : b.decoding.causes)
                out += QStringLiteral("    - %1 %2 / %3\n").arg(hexString(c.code), c.english, c.chinese);
            if (!b.decoding.warning.isEmpty())
                out += QStringLiteral("    warning: %1\n").arg(b.decoding.warning);
            if (l.op >= 0)
                printOp(l.op);
            out += QStringLiteral("    link: %1\n").arg(l.note);
        }
    }
    if (r.records.empty())
        out += QStringLiteral("no overflow records found (if overflow detection was on, this SoC may not emit them)\n");
    if (r.scanned) {
        out += QStringLiteral("\nsoftware scan: %1 finding(s)\n").arg(r.findings.size());
        for (const auto &f : r.findings)
            out += QStringLiteral("  [%1] %2: %3\n").arg(overflowLevelName(f.level), index.ops[size_t(f.op)].relPath, f.reason);
        out += r.firstProducer >= 0 ? QStringLiteral("first producing operator: %1\n").arg(index.ops[size_t(r.firstProducer)].relPath)
                                    : QStringLiteral("no operator produced an overflow\n");
    }
    return out;
}

} // namespace ds
