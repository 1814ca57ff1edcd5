#include "firstoverflow.h"

#include "runcompare.h"

#include <QCoreApplication>
#include <nlohmann/json.hpp>

namespace ds {

namespace {

/// The file name of a record path ("a/b/Opdebug.Node_OpDebug.9.3.17..." -> "Opdebug.Node_OpDebug.9.3.17...").
QString fileName(const QString &path) { return path.section(QLatin1Char('/'), -1); }

/// Where `other` (in scope `otherScope`) stands relative to the answer (in `scope`): both are
/// the first of their rule, so the other one comes later.
QString later(const QString &scope, const QString &otherScope, const RunAnswer::First &answer, const RunAnswer::First &other)
{
    if (otherScope == scope)
        return otherScope.isEmpty() ? QCoreApplication::translate("ds::FirstOverflow", "runs later") : QCoreApplication::translate("ds::FirstOverflow", "runs later in %1").arg(otherScope);
    if (other.step != answer.step || other.stepLabel != answer.stepLabel)
        return QCoreApplication::translate("ds::FirstOverflow", "is in a later step (%1)").arg(otherScope);
    return QCoreApplication::translate("ds::FirstOverflow", "is in %1, later on the communication-op clock").arg(otherScope);
}

/// The answer of one source alone: the run's scopes with `first` replaced by that source's.
std::optional<RunAnswer::First> firstOfSource(const std::vector<ScopeSummary> &scopes, bool hardware)
{
    std::vector<ScopeSummary> one = scopes;
    for (ScopeSummary &s : one)
        s.first = hardware ? s.hardware : s.software;
    RunAnswer answer = combineRun(std::move(one), RunAnswerKind::Overflow);
    return answer.first;
}

} // namespace

const char *firstOverflowSourceName(FirstOverflow::Source source)
{
    switch (source) {
    case FirstOverflow::Source::Hardware: return "opdebug";
    case FirstOverflow::Source::Software: return "software";
    case FirstOverflow::Source::Both: break;
    }
    return "both";
}

QString FirstOverflow::line() const
{
    QString what;
    switch (source) {
    case Source::Hardware: what = QCoreApplication::translate("ds::FirstOverflow", "%1 (OpDebug record)").arg(finding.op); break;
    case Source::Software: what = QCoreApplication::translate("ds::FirstOverflow", "%1 (software scan: %2)").arg(finding.op, finding.level); break;
    case Source::Both: what = QCoreApplication::translate("ds::FirstOverflow", "%1 (OpDebug record and software scan: %2)").arg(finding.op, finding.level); break;
    }
    if (!scope.isEmpty())
        what = QCoreApplication::translate("ds::FirstOverflow", "%1 in %2").arg(what, scope);
    if (!run.isEmpty())
        what = QCoreApplication::translate("ds::FirstOverflow", "%1 of run %2").arg(what, run);
    return what;
}

QByteArray FirstOverflow::toJson() const
{
    using json = nlohmann::ordered_json;
    auto str = [](const QString &q) { return q.isEmpty() ? json() : json(q.toStdString()); };
    auto numOrLabel = [&](qint64 n, const QString &label) { return n >= 0 ? json(n) : str(label); };
    json o{{"op", finding.op.toStdString()}, {"file", str(finding.file)}, {"scope", scope.toStdString()},
           {"step", numOrLabel(stepNumber, step)}, {"rank", numOrLabel(rankNumber, rank)}};
    if (!run.isEmpty())
        o["run"] = run.toStdString();
    o["source"] = firstOverflowSourceName(source);
    o["record"] = str(finding.record);
    o["level"] = str(finding.level);
    o["reason"] = finding.reason.toStdString();
    o["note"] = note.toStdString();
    o["line"] = line().toStdString();
    auto one = [&](const std::optional<ScopeFinding> &f, const QString &where, bool hw) {
        if (!f)
            return json();
        json j{{"op", f->op.toStdString()}, {"file", str(f->file)}, {"scope", where.toStdString()}};
        if (hw)
            j["record"] = str(f->record);
        else
            j["level"] = str(f->level);
        return j;
    };
    o["opdebug_first"] = one(hardware, hardwareScope, true);
    o["software_first"] = scanned ? one(software, softwareScope, false) : json();
    o["software_scanned"] = scanned;
    return QByteArray::fromStdString(o.dump());
}

std::optional<FirstOverflow> firstOverflowOf(const RunAnswer &answer, const std::vector<ScopeSummary> &scopes, bool scanned)
{
    if (!answer.first)
        return std::nullopt;
    const RunAnswer::First &at = *answer.first;
    FirstOverflow f;
    f.scope = at.at.scope;
    f.step = at.stepLabel;
    f.stepNumber = at.step;
    f.rank = at.at.rank;
    f.rankNumber = at.at.rankNumber;
    f.finding = at.at.finding;
    f.scanned = scanned;
    for (const ScopeSummary &s : scopes)
        if (s.id == f.scope) {
            f.run = s.run;
            break;
        }
    const bool hw = !f.finding.record.isEmpty(), sw = !f.finding.level.isEmpty();
    f.source = hw && sw ? FirstOverflow::Source::Both : hw ? FirstOverflow::Source::Hardware : FirstOverflow::Source::Software;
    const auto hardware = firstOfSource(scopes, true), software = firstOfSource(scopes, false);
    if (hardware) {
        f.hardware = hardware->at.finding;
        f.hardwareScope = hardware->at.scope;
    }
    if (software) {
        f.software = software->at.finding;
        f.softwareScope = software->at.scope;
    }
    switch (f.source) {
    case FirstOverflow::Source::Both:
        f.note = QCoreApplication::translate("ds::FirstOverflow", "the OpDebug record %1 (hardware) and the software scan (%2) name the same operator")
                     .arg(fileName(f.finding.record), f.finding.level);
        break;
    case FirstOverflow::Source::Software:
        if (hardware) // the records' own first comes later: the software scan saw abnormal values before it
            f.note = QCoreApplication::translate("ds::FirstOverflow", "no OpDebug record names %1; the first OpDebug record (hardware), %2, names %3, which %4")
                         .arg(f.finding.op, fileName(f.hardware->record), f.hardware->op, later(f.scope, f.hardwareScope, at, *hardware));
        break;
    case FirstOverflow::Source::Hardware:
        if (!scanned)
            f.note = QCoreApplication::translate("ds::FirstOverflow", "the software scan was not run: only the OpDebug records were read");
        else if (software)
            f.note = QCoreApplication::translate("ds::FirstOverflow", "the software scan finds no NaN, Inf or saturated value in the tensors of %1; its first anomaly, %2 [%3], %4")
                         .arg(f.finding.op, f.software->op, f.software->level, later(f.scope, f.softwareScope, at, *software));
        else
            f.note = QCoreApplication::translate("ds::FirstOverflow", "the software scan finds no NaN, Inf or saturated value in the tensors of %1 (nor anywhere in the run): "
                        "the overflow stayed inside the operator, or its tensors were not saved")
                         .arg(f.finding.op);
        break;
    }
    return f;
}

std::vector<FirstOverflow> firstOverflows(const std::vector<ScopeSummary> &scopes, bool scanned)
{
    std::vector<FirstOverflow> out;
    for (const auto &[run, list] : scopesByRun(scopes))
        if (auto f = firstOverflowOf(combineRun(list, RunAnswerKind::Overflow), list, scanned))
            out.push_back(std::move(*f));
    return out;
}

std::vector<ScopeSummary> answerOverflow(OverflowDocument &doc, std::vector<ScopeSummary> scopes)
{
    if (!doc.severalRuns)
        for (ScopeSummary &sc : scopes)
            sc.run.clear();
    const std::vector<FirstOverflow> first = firstOverflows(scopes, doc.scanned);
    doc.firstJson = first.empty() ? QByteArray() : first.front().toJson();
    doc.firstByRunJson = "{";
    doc.firstText.clear();
    doc.firstRecords.clear();
    for (const FirstOverflow &f : first) {
        if (doc.firstByRunJson.size() > 1)
            doc.firstByRunJson += ',';
        doc.firstByRunJson += QByteArray::fromStdString(nlohmann::json(f.run.toStdString()).dump()) + ':' + f.toJson();
        doc.firstText += QStringLiteral("first overflow: %1\n").arg(f.line());
        if (!f.finding.file.isEmpty())
            doc.firstText += QStringLiteral("  operator file: %1\n").arg(f.finding.file);
        if (!f.finding.reason.isEmpty())
            doc.firstText += QStringLiteral("  why: %1\n").arg(f.finding.reason);
        if (!f.note.isEmpty())
            doc.firstText += QStringLiteral("  %1\n").arg(f.note);
        if (!f.finding.record.isEmpty())
            doc.firstRecords << f.finding.record;
    }
    doc.firstByRunJson += '}';
    if (!first.empty())
        doc.firstText += QLatin1Char('\n');
    return scopes;
}

OverflowDocument overflowDocument(const DumpIndex &index, const OverflowReport &report)
{
    std::vector<OverflowPart> parts;
    parts.push_back(overflowPart(index, report));
    OverflowDocument doc = mergeOverflow(std::move(parts), index.openedPath, report.scanned || report.cancelled);
    answerOverflow(doc, summarizeOverflow(index, report));
    return doc;
}

} // namespace ds
