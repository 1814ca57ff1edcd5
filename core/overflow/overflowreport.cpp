#include "overflowreport.h"

#include "inputorigin.h"
#include "index/tensorloader.h"
#include "io/pagerelease.h"
#include "tensor/dtype.h"

#include <QHash>
#include <algorithm>
#include <cstring>

namespace ds {

namespace {

QString dirOf(const QString &relPath) { return relPath.contains(QLatin1Char('/')) ? relPath.section(QLatin1Char('/'), 0, -2) : QString(); }

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

} // namespace

int compareLevel(const QString &a, const QString &b)
{
    bool okA = false, okB = false;
    const qulonglong x = a.toULongLong(&okA), y = b.toULongLong(&okB);
    if (okA && okB && x != y)
        return x < y ? -1 : 1;
    return a.compare(b);
}

const SoftwareFinding *OverflowReport::firstAnomaly() const
{
    return firstScope >= 0 ? scopes[size_t(firstScope)].firstAnomaly() : nullptr;
}

int firstScopeOf(const DumpIndex &index, const std::vector<ScopeScan> &scopes)
{
    int chosen = -1;
    for (size_t i = 0; i < scopes.size(); ++i) {
        if (scopes[i].first < 0)
            continue;
        if (chosen < 0) {
            chosen = int(i);
            continue;
        }
        // Later scopes only compete within the same step (everything but rank and device equal).
        const DumpLevels &a = *scopes[size_t(chosen)].scope.levels, &b = *scopes[i].scope.levels;
        if (a.part != b.part || a.time != b.time || a.step != b.step || a.modelName != b.modelName || a.modelId != b.modelId
            || a.dataIndex != b.dataIndex)
            break;
        if (scopes[size_t(chosen)].firstIsCommunication(index) && !scopes[i].firstIsCommunication(index)) {
            chosen = int(i);
            break;
        }
    }
    return chosen;
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
        const QString fx = x.relPath.section(QLatin1Char('/'), -1), fy = y.relPath.section(QLatin1Char('/'), -1);
        if (fx != fy)
            return fx < fy;
        return a.op < b.op; // execution order (as mergeOverflow breaks the tie)
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
        const std::vector<OverflowScope> scopes = overflowScopes(index);
        const double total = std::max<double>(1, double(index.ops.size()));
        for (const OverflowScope &scope : scopes) {
            JobControl part; // progress of the scope mapped into the whole scan
            if (job) {
                part.cancelFlag = job->cancelFlag;
                part.progress = [job, &scope, total](int permille) {
                    job->report(int(1000 * (scope.begin + (scope.end - scope.begin) * permille / 1000.0) / total));
                };
            }
            ScopeScan scan = scanScope(index, scope, &report.checks, job ? &part : nullptr);
            report.findings.insert(report.findings.end(), scan.findings.begin(), scan.findings.end());
            const bool cancelled = scan.cancelled;
            report.scopes.push_back(std::move(scan));
            if (cancelled) {
                report.cancelled = true;
                break;
            }
        }
        // A first anomaly whose inputs were abnormal already: where they came from (the rank's previous step).
        explainFirstAnomalyInputs(index, report);
        report.firstScope = firstScopeOf(index, report.scopes);
        if (report.firstScope >= 0) {
            const ScopeScan &first = report.scopes[size_t(report.firstScope)];
            report.firstProducer = first.producer >= 0 ? first.findings[size_t(first.producer)].op : -1;
        }
        report.scanned = !report.cancelled;
    }
    return report;
}

} // namespace ds
