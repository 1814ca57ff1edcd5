#include "scancommand.h"

#include "formats/readers.h"
#include "index/buildindex.h"
#include "run/firstoverflow.h"
#include "run/runcompare.h"
#include "run/streamedinfo.h"
#include "util/keepfreed.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QSet>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <unistd.h>
#include <vector>

namespace ds {

namespace {

/// The command ends the process: the index of a whole run (millions of records) is left to the
/// operating system instead of being freed record by record (about 0.1 s of a 2 s `info` of 8
/// ranks x 160 MB, docs/PERFORMANCE.md).
void keepUntilExit(DumpIndex &&index)
{
#if defined(__SANITIZE_ADDRESS__)
    // LeakSanitizer cannot follow the packed text handles (util/packedtext.h) into their
    // arenas and would report those: under it the index is freed as usual.
    const DumpIndex freed = std::move(index);
#else
    static auto *kept = new std::vector<std::unique_ptr<DumpIndex>>;
    kept->push_back(std::make_unique<DumpIndex>(std::move(index)));
#endif
}

// Exit codes (README "Exit codes").
enum Exit { Ok = 0, Failed = 1, NoPath = 3 };

void out(const QByteArray &text) { std::fwrite(text.constData(), 1, size_t(text.size()), stdout); }
void out(const QString &text) { out(text.toUtf8()); }
void err(const QString &text) { std::fprintf(stderr, "%s\n", qPrintable(text)); }

constexpr quint32 kScanMagic = 0x44535331; // "DSS1"

/// `json` (an object) with `key: value` inserted after the key `after` (at the end when absent).
QByteArray withKey(const QByteArray &json, const char *key, const QByteArray &value, const char *after)
{
    using ordered = nlohmann::ordered_json;
    const ordered in = ordered::parse(json.toStdString());
    ordered outJson;
    bool inserted = false;
    for (const auto &[k, v] : in.items()) {
        outJson[k] = v;
        if (k == after) {
            outJson[key] = ordered::parse(value.toStdString());
            inserted = true;
        }
    }
    if (!inserted)
        outJson[key] = ordered::parse(value.toStdString());
    return QByteArray::fromStdString(outJson.dump(2)) + '\n';
}

/// "0, 1, 2, 3, 7" as "0-3, 7"; -1 (no such level) as "-".
QString numberList(const std::vector<qint64> &numbers)
{
    QStringList parts;
    for (size_t i = 0; i < numbers.size();) {
        size_t e = i;
        while (numbers[i] >= 0 && e + 1 < numbers.size() && numbers[e + 1] == numbers[e] + 1)
            ++e;
        if (numbers[i] < 0)
            parts << QStringLiteral("-");
        else if (e > i)
            parts << QStringLiteral("%1-%2").arg(numbers[i]).arg(numbers[e]);
        else
            for (size_t k = i; k <= e; ++k)
                parts << QString::number(numbers[k]);
        i = e + 1;
    }
    return parts.join(QStringLiteral(", "));
}

int writeInfo(const ScanCommand &c, std::vector<ScanPart> &parts, const QString &openedPath)
{
    std::vector<InfoPart> infos;
    std::vector<std::vector<RunInfo>> runLists;
    for (ScanPart &p : parts) {
        infos.push_back(std::move(p.info));
        runLists.push_back(std::move(p.runs));
    }
    const InfoDocument doc = mergeInfo(std::move(infos), openedPath);
    const std::vector<RunInfo> runs = mergeRuns(runLists);
    if (c.json) {
        out(withKey(infoJson(doc), "runs", runsJson(runs), "ranks"));
        return Ok;
    }
    QStringList devices, steps, ranks;
    for (const DumpLevels &l : doc.levels)
        for (auto [list, value] : {std::pair{&devices, &l.device}, std::pair{&steps, &l.step}, std::pair{&ranks, &l.rank}})
            if (!value->isEmpty() && !list->contains(*value))
                *list << *value;
    QStringList formats;
    for (qint32 f : doc.formats)
        formats << formatReader(FormatId(f)).description();
    auto joined = [](const QStringList &l) { return l.isEmpty() ? QStringLiteral("-") : l.join(QStringLiteral(", ")); };
    out(QStringLiteral("path:      %1\nformat:    %2\noperators: %3\ntensors:   %4\npayload:   %5 bytes\n")
            .arg(doc.path, !formats.isEmpty()                      ? formats.join(QStringLiteral("; "))
                           : recognisedNothing(doc.ops, doc.errors) ? QStringLiteral("nothing recognised here (see below)")
                                                                    : QStringLiteral("no readable dump file"))
            .arg(doc.ops).arg(doc.tensors).arg(doc.bytes));
    if (!steps.isEmpty() || !ranks.isEmpty())
        out(QStringLiteral("steps:     %1\nranks:     %2\n").arg(joined(steps), joined(ranks)));
    const QStringList &warnings = doc.warningLines;
    out(QStringLiteral("devices:   %1\nbad files: %2\nwarnings:  %3\n").arg(joined(devices)).arg(doc.errors.size()).arg(warnings.size()));
    if (runs.size() > 1 || (runs.size() == 1 && runs.front().multiScope())) {
        out(QStringLiteral("runs:      %1\n").arg(runs.size()));
        for (const RunInfo &r : runs)
            out(QStringLiteral("  %1  %2  steps %3, ranks %4 (%5 scopes)\n")
                    .arg(r.relPath.isEmpty() ? QStringLiteral(".") : r.relPath, r.formats.join(QLatin1Char(',')),
                         numberList(r.steps), numberList(r.ranks))
                    .arg(r.scopes.size()));
    }
    out(errorsText(doc.errors));
    if (!warnings.empty()) {
        // Files that were read but whose content is inconsistent (README "info").
        constexpr qsizetype kShown = 50;
        out(QStringLiteral("\n%1 warning(s) about files that were read:\n").arg(warnings.size()));
        for (qsizetype i = 0; i < warnings.size() && i < kShown; ++i)
            out(QStringLiteral("  %1\n").arg(warnings[i]));
        if (warnings.size() > kShown)
            out(QStringLiteral("  ... and %1 more (info --json lists them all)\n").arg(warnings.size() - kShown));
    }
    return Ok;
}

/// Under the answer line: where each rank's own first anomaly is on the clock.
QString rankLines(const RunAnswer &answer)
{
    QString lines;
    if (answer.first)
        for (const RunAnswer::RankFinding &r : answer.first->ranks)
            if (r.found && !r.scope.isEmpty())
                lines += QStringLiteral("  %1: %2, %3%4\n").arg(r.scope, r.finding.op, r.clock.describe(),
                                                               r.scope == answer.first->at.scope ? QStringLiteral("  <- first") : QString());
    return lines;
}

int writeOverflow(const ScanCommand &c, std::vector<ScanPart> &parts, const QString &openedPath)
{
    std::vector<OverflowPart> reports;
    std::vector<ScopeSummary> scopes;
    for (ScanPart &p : parts) {
        reports.push_back(std::move(p.overflow));
        std::move(p.scopes.begin(), p.scopes.end(), std::back_inserter(scopes));
    }
    OverflowDocument doc = mergeOverflow(std::move(reports), openedPath, c.scan);
    // The one answer of each run (run/firstoverflow.h): the JSON's `first`, the text's
    // "first overflow:" line and the record it marks.
    scopes = answerOverflow(doc, std::move(scopes));
    // The run-level first anomaly: per scope, then across ranks on the communication-op clock.
    // A folder of several runs gets one answer per run (their steps and ranks are not one clock).
    if (doc.severalRuns) {
        nlohmann::ordered_json answers = nlohmann::ordered_json::array();
        QString head;
        for (auto &[run, list] : scopesByRun(std::move(scopes))) {
            const RunAnswer answer = combineRun(list, RunAnswerKind::Overflow);
            const nlohmann::ordered_json fields = nlohmann::ordered_json::parse(answer.toJson(list).toStdString());
            nlohmann::ordered_json one = nlohmann::ordered_json::object();
            one["name"] = run.toStdString();
            for (auto it = fields.begin(); it != fields.end(); ++it)
                one[it.key()] = it.value();
            answers.push_back(std::move(one));
            head += QStringLiteral("run %1: %2").arg(run, answer.line()) + QLatin1Char('\n') + rankLines(answer);
        }
        if (c.json) {
            out(withKey(overflowJson(doc), "run_answers", QByteArray::fromStdString(answers.dump()), ""));
            return Ok;
        }
        out(head + QLatin1Char('\n') + overflowText(doc));
        out(errorsText(doc.errors));
        return Ok;
    }
    const RunAnswer answer = combineRun(scopes, RunAnswerKind::Overflow);
    if (c.json) {
        out(withKey(overflowJson(doc), "run", answer.toJson(scopes), ""));
        return Ok;
    }
    const QString head = answer.line() + QLatin1Char('\n') + rankLines(answer);
    out(head + QLatin1Char('\n') + overflowText(doc));
    out(errorsText(doc.errors));
    return Ok;
}

} // namespace

ScanPart scanPart(const ScanCommand &c, const DumpIndex &index, const RunTree &runs, const JobControl *job)
{
    ScanPart part;
    if (c.kind == ScanCommand::Kind::Info) {
        part.info = infoPart(index);
        part.runs = runs.runs;
        for (RunInfo &r : part.runs)
            for (RunScope &s : r.scopes) { // what the merge and the reports use
                s.dirs.clear();
                s.claims.clear();
            }
        return part;
    }
    OverflowOptions options;
    options.softwareScan = c.scan;
    const OverflowReport report = analyzeOverflow(index, options, job);
    part.overflow = overflowPart(index, report);
    part.scopes = summarizeOverflow(index, report);
    return part;
}

QByteArray encodeScanPart(const ScanCommand &c, const ScanPart &p)
{
    return writePart(kScanMagic, [&](QDataStream &s) {
        s << quint8(c.kind);
        if (c.kind == ScanCommand::Kind::Info) {
            s << encodeInfoPart(p.info) << quint32(p.runs.size());
            for (const RunInfo &r : p.runs) {
                s << r.relPath << r.name << r.formats << quint32(r.scopes.size());
                for (const RunScope &x : r.scopes)
                    s << x.id << x.step << x.rank << x.stepNumber << x.rankNumber << x.formats;
            }
            return;
        }
        QList<QByteArray> scopes;
        for (const ScopeSummary &x : p.scopes)
            scopes << QJsonDocument(x.toJson()).toJson(QJsonDocument::Compact);
        s << encodeOverflowPart(p.overflow) << scopes;
    });
}

std::optional<ScanPart> decodeScanPart(const ScanCommand &c, const QByteArray &bytes)
{
    ScanPart p;
    bool valid = true;
    const bool ok = readPart(bytes, kScanMagic, [&](QDataStream &s) {
        quint8 kind = 0;
        QByteArray inner;
        s >> kind >> inner;
        if (kind != quint8(c.kind)) {
            s.setStatus(QDataStream::ReadCorruptData);
            return;
        }
        if (c.kind == ScanCommand::Kind::Info) {
            const auto info = decodeInfoPart(inner);
            valid = info.has_value();
            if (info)
                p.info = *info;
            quint32 n = 0;
            s >> n;
            for (quint32 i = 0; i < n && s.status() == QDataStream::Ok; ++i) { // counts come off the wire
                RunInfo r;
                quint32 m = 0;
                s >> r.relPath >> r.name >> r.formats >> m;
                for (quint32 k = 0; k < m && s.status() == QDataStream::Ok; ++k) {
                    RunScope x;
                    s >> x.id >> x.step >> x.rank >> x.stepNumber >> x.rankNumber >> x.formats;
                    r.scopes.push_back(std::move(x));
                }
                p.runs.push_back(std::move(r));
            }
            return;
        }
        const auto overflow = decodeOverflowPart(inner);
        valid = overflow.has_value();
        if (overflow)
            p.overflow = *overflow;
        QList<QByteArray> scopes;
        s >> scopes;
        for (const QByteArray &b : std::as_const(scopes)) {
            const auto sum = ScopeSummary::fromJson(QJsonDocument::fromJson(b).object());
            valid = valid && sum.has_value();
            if (sum)
                p.scopes.push_back(*sum);
        }
    });
    if (!ok || !valid)
        return std::nullopt;
    return p;
}

int writeScanReport(const ScanCommand &c, std::vector<ScanPart> parts, const QString &openedPath)
{
    // Nothing recognised at PATH: the report (empty) and, on stderr, what was looked for; exit 1.
    std::uint64_t ops = 0, otherFiles = 0;
    std::vector<FileError> errors;
    for (const ScanPart &p : parts) {
        const bool info = c.kind == ScanCommand::Kind::Info;
        ops += info ? p.info.ops : p.overflow.formats.size();
        otherFiles += p.info.otherFiles;
        const std::vector<FileError> &e = info ? p.info.errors : p.overflow.errors;
        errors.insert(errors.end(), e.begin(), e.end());
    }
    const bool nothing = recognisedNothing(ops, mergedErrors(std::move(errors)));
    const int code = c.kind == ScanCommand::Kind::Info ? writeInfo(c, parts, openedPath) : writeOverflow(c, parts, openedPath);
    if (!nothing || code != Ok)
        return code;
    const QFileInfo opened(openedPath);
    err(nothingRecognisedMessage(openedPath, !opened.isDir(),
                                 c.kind == ScanCommand::Kind::Info ? std::optional<std::uint64_t>(otherFiles) : std::nullopt));
    return Failed;
}

int runScanCommand(const ScanCommand &c)
{
    const bool progress = !c.quiet && !c.json && isatty(fileno(stderr));
    JobControl job;
    if (progress)
        job.progress = [](int permille) { std::fprintf(stderr, "\rindexing %5.1f%%", permille / 10.0); };
    auto walk = walkTree(c.path, &job);
    if (!walk) {
        err(walk.errorText());
        return NoPath;
    }
    if (c.kind == ScanCommand::Kind::Info) {
        // A run of many scopes: a batch of scopes at a time, their operators dropped once
        // counted (run/streamedinfo.h); the same report as the whole index below.
        RunTree runs = runsOfWalk(std::move(*walk));
        size_t scopes = 0;
        for (const RunInfo &r : runs.runs)
            scopes += r.scopes.size();
        if (scopes > kInfoStreamAbove)
            keepFreedMemory(); // each batch's index reuses the last one's freed memory (5-8 % less CPU at 1,024 x 20)
        std::optional<std::vector<InfoPart>> infos;
        if (scopes > kInfoStreamAbove)
            infos = streamedInfoParts(runs, &job);
        if (infos) {
            if (progress)
                std::fprintf(stderr, "\r                 \r");
            std::vector<ScanPart> parts(infos->size());
            for (size_t i = 0; i < infos->size(); ++i)
                parts[i].info = std::move((*infos)[i]);
            parts.front().runs = std::move(runs.runs);
            for (RunInfo &r : parts.front().runs)
                for (RunScope &x : r.scopes) { // as scanPart()
                    x.dirs.clear();
                    x.claims.clear();
                }
            return writeScanReport(c, std::move(parts), runs.walk.openedPath);
        }
        walk = std::move(runs.walk);
        runs.runs.clear();
    }
    auto index = indexClaims(*walk, {}, &job);
    const RunTree runs = c.kind == ScanCommand::Kind::Info ? runsOfWalk(std::move(*walk)) : RunTree{};
    if (progress) {
        std::fprintf(stderr, "\r                 \r");
        job.progress = [](int permille) { std::fprintf(stderr, "\rscanning %5.1f%%", permille / 10.0); };
    }
    std::vector<ScanPart> parts;
    parts.push_back(scanPart(c, *index, runs, &job));
    if (progress)
        std::fprintf(stderr, "\r                 \r");
    const int code = writeScanReport(c, std::move(parts), index->openedPath);
    keepUntilExit(std::move(*index));
    return code;
}

} // namespace ds
