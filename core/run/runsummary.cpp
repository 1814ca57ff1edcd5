#include "runsummary.h"

#include "compare/comparetypes.h"
#include "dump/levels.h"
#include "steporder.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <tuple>

namespace ds {

namespace {

QString shown(qint64 number, const QString &label) { return number >= 0 ? QString::number(number) : label; }

/// "No bench data matched 3, Data file missing 1" from reason-code counts (the spec's texts).
QString reasonCounts(const std::map<QString, qint64> &by)
{
    std::vector<std::pair<qint64, QString>> items;
    for (const auto &[code, n] : by) {
        QString text = code;
        for (int r = 0; r <= int(ReasonCode::SizeMismatch); ++r)
            if (reasonCodeName(ReasonCode(r)) == code)
                text = reasonCodeText(ReasonCode(r));
        if (code == QLatin1String("NOT_COMPARED"))
            text = QCoreApplication::translate("RunAnswer", "not comparable");
        items.emplace_back(n, text);
    }
    std::stable_sort(items.begin(), items.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    QStringList parts;
    for (const auto &[n, text] : items)
        parts << QStringLiteral("%1 %2").arg(text).arg(n);
    return parts.join(QStringLiteral(", "));
}

QJsonObject findingJson(const ScopeFinding &f)
{
    QJsonObject o{{QStringLiteral("op"), f.op}, {QStringLiteral("row"), f.row.isEmpty() ? QJsonValue() : QJsonValue(f.row)},
                  {QStringLiteral("reason"), f.reason}, {QStringLiteral("position"), f.position},
                  {QStringLiteral("inputs_agree"), f.inputsAgree}};
    for (const auto &[key, value] : {std::pair{"file", &f.file}, {"record", &f.record}, {"level", &f.level}})
        if (!value->isEmpty())
            o.insert(QLatin1String(key), *value);
    return o;
}

std::optional<ScopeFinding> findingFromJson(const QJsonValue &v)
{
    if (!v.isObject())
        return std::nullopt;
    const QJsonObject o = v.toObject();
    if (!o.value(QStringLiteral("op")).isString())
        return std::nullopt;
    ScopeFinding f;
    f.op = o.value(QStringLiteral("op")).toString();
    f.row = o.value(QStringLiteral("row")).toString();
    f.reason = o.value(QStringLiteral("reason")).toString();
    f.position = o.value(QStringLiteral("position")).toInt(-1);
    f.inputsAgree = o.value(QStringLiteral("inputs_agree")).toBool(true);
    f.file = o.value(QStringLiteral("file")).toString();
    f.record = o.value(QStringLiteral("record")).toString();
    f.level = o.value(QStringLiteral("level")).toString();
    return f;
}

} // namespace

QJsonObject ScopeSummary::toJson() const
{
    QJsonObject o{{QStringLiteral("run"), run},
                  {QStringLiteral("scope"), id},
                  {QStringLiteral("step"), step},
                  {QStringLiteral("rank"), rank},
                  {QStringLiteral("step_number"), stepNumber},
                  {QStringLiteral("rank_number"), rankNumber},
                  {QStringLiteral("npu"), npu},
                  {QStringLiteral("bench"), bench},
                  {QStringLiteral("ops"), ops},
                  {QStringLiteral("rows"), rows},
                  {QStringLiteral("pass"), pass},
                  {QStringLiteral("warning"), warning},
                  {QStringLiteral("error"), error},
                  {QStringLiteral("not_compared"), notCompared},
                  {QStringLiteral("bench_only"), benchOnly},
                  {QStringLiteral("anomalies"), anomalies}};
    QJsonObject by;
    for (const auto &[code, n] : notComparedBy)
        by.insert(code, n);
    o.insert(QStringLiteral("not_compared_by"), by);
    o.insert(QStringLiteral("first"), first ? QJsonValue(findingJson(*first)) : QJsonValue());
    if (hardware)
        o.insert(QStringLiteral("hardware"), findingJson(*hardware));
    if (software)
        o.insert(QStringLiteral("software"), findingJson(*software));
    QJsonArray c;
    for (const CommOp &op : comm)
        c.append(op.toJson());
    o.insert(QStringLiteral("comm"), c);
    return o;
}

std::optional<ScopeSummary> ScopeSummary::fromJson(const QJsonObject &o)
{
    if (!o.value(QStringLiteral("scope")).isString())
        return std::nullopt;
    ScopeSummary s;
    s.run = o.value(QStringLiteral("run")).toString();
    s.id = o.value(QStringLiteral("scope")).toString();
    s.step = o.value(QStringLiteral("step")).toString();
    s.rank = o.value(QStringLiteral("rank")).toString();
    s.stepNumber = o.value(QStringLiteral("step_number")).toInteger(-1);
    s.rankNumber = o.value(QStringLiteral("rank_number")).toInteger(-1);
    s.npu = o.value(QStringLiteral("npu")).toBool(true);
    s.bench = o.value(QStringLiteral("bench")).toBool(true);
    s.ops = o.value(QStringLiteral("ops")).toInt();
    s.rows = o.value(QStringLiteral("rows")).toInteger();
    s.pass = o.value(QStringLiteral("pass")).toInteger();
    s.warning = o.value(QStringLiteral("warning")).toInteger();
    s.error = o.value(QStringLiteral("error")).toInteger();
    s.notCompared = o.value(QStringLiteral("not_compared")).toInteger();
    const QJsonObject by = o.value(QStringLiteral("not_compared_by")).toObject();
    for (auto it = by.begin(); it != by.end(); ++it)
        s.notComparedBy[it.key()] = it.value().toInteger();
    s.benchOnly = o.value(QStringLiteral("bench_only")).toInteger();
    s.anomalies = o.value(QStringLiteral("anomalies")).toInteger();
    s.first = findingFromJson(o.value(QStringLiteral("first")));
    s.hardware = findingFromJson(o.value(QStringLiteral("hardware")));
    s.software = findingFromJson(o.value(QStringLiteral("software")));
    for (const QJsonValue &v : o.value(QStringLiteral("comm")).toArray()) {
        auto c = CommOp::fromJson(v.toObject());
        if (!c)
            return std::nullopt;
        s.comm.push_back(std::move(*c));
    }
    return s;
}

void sortScopes(std::vector<ScopeSummary> &scopes)
{
    std::sort(scopes.begin(), scopes.end(), [](const ScopeSummary &a, const ScopeSummary &b) {
        if (int c = compareStepRank(a, b))
            return c < 0;
        if (a.run != b.run)
            return a.run < b.run;
        return a.id < b.id;
    });
}

std::map<QString, std::vector<ScopeSummary>> scopesByRun(std::vector<ScopeSummary> scopes)
{
    std::map<QString, std::vector<ScopeSummary>> out;
    for (ScopeSummary &s : scopes)
        out[s.run].push_back(std::move(s));
    return out;
}

RunAnswer combineRun(std::vector<ScopeSummary> scopes, RunAnswerKind kind)
{
    RunAnswer answer;
    answer.kind = kind;
    sortScopes(scopes);
    // Steps, and the scopes of each (consecutive after sorting).
    std::vector<std::pair<size_t, size_t>> ranges;
    for (size_t i = 0; i < scopes.size();) {
        size_t e = i;
        while (e < scopes.size() && scopes[e].stepNumber == scopes[i].stepNumber && scopes[e].step == scopes[i].step)
            ++e;
        RunAnswer::Step st;
        st.number = scopes[i].stepNumber;
        st.label = scopes[i].step;
        for (size_t k = i; k < e; ++k) {
            const ScopeSummary &s = scopes[k];
            ++st.scopes;
            st.missing += !(s.npu && s.bench);
            st.pass += s.pass;
            st.warning += s.warning;
            st.error += s.error;
            st.notCompared += s.notCompared;
            for (const auto &[code, n] : s.notComparedBy)
                st.notComparedBy[code] += n;
            st.anomalies += s.anomalies;
            if (s.first)
                st.divergedRanks.push_back(s.rankNumber);
        }
        answer.steps.push_back(std::move(st));
        ranges.emplace_back(i, e);
        i = e;
    }
    size_t firstStep = answer.steps.size();
    for (size_t k = 0; k < answer.steps.size() && firstStep == answer.steps.size(); ++k)
        if (!answer.steps[k].divergedRanks.empty())
            firstStep = k;
    if (firstStep == answer.steps.size()) {
        if (!answer.steps.empty()) {
            answer.agreeUpTo = answer.steps.back().number;
            answer.agreeUpToLabel = answer.steps.back().label;
        }
        return answer;
    }
    if (firstStep > 0) {
        answer.agreeUpTo = answer.steps[firstStep - 1].number;
        answer.agreeUpToLabel = answer.steps[firstStep - 1].label;
    }
    // The clock of that step: every scope's communication ops. Scopes without a rank number
    // get distinct negative keys in their (sorted) order.
    const auto [b, e] = ranges[firstStep];
    std::vector<std::pair<qint64, std::vector<CommOp>>> clockInput;
    std::vector<qint64> keys;
    for (size_t k = b; k < e; ++k) {
        const qint64 key = scopes[k].rankNumber >= 0 ? scopes[k].rankNumber : -1 - qint64(k - b);
        keys.push_back(key);
        clockInput.emplace_back(key, scopes[k].comm);
    }
    const StepClock clock(clockInput);
    RunAnswer::First first;
    first.step = answer.steps[firstStep].number;
    first.stepLabel = answer.steps[firstStep].label;
    first.clockConsistent = clock.consistent();
    for (size_t k = b; k < e; ++k) {
        const ScopeSummary &s = scopes[k];
        RunAnswer::RankFinding r;
        r.scope = s.id;
        r.rank = s.rank;
        r.rankNumber = s.rankNumber;
        r.found = s.first.has_value();
        if (r.found) {
            r.finding = *s.first;
            r.clock = clock.position(keys[k - b], s.first->position);
        }
        first.ranks.push_back(std::move(r));
    }
    // Earliest on the clock; on a tie the lowest rank (the ranks are in rank order).
    const RunAnswer::RankFinding *best = nullptr;
    for (const auto &r : first.ranks)
        if (r.found && (!best || r.clock.before(best->clock)))
            best = &r;
    first.at = *best;
    for (const auto &r : first.ranks)
        if (r.found && r.clock.sameTime(best->clock))
            first.tiedRanks.push_back(r.rankNumber);
    answer.first = std::move(first);
    return answer;
}

QString RunAnswer::line() const
{
    const bool compare = kind == RunAnswerKind::Compare;
    if (steps.empty())
        return compare ? QCoreApplication::translate("RunAnswer", "no scope was compared") : QCoreApplication::translate("RunAnswer", "no scope was checked");
    // what a compare did not compare: said, never counted as agreement
    qint64 rows = 0, notCompared = 0;
    std::map<QString, qint64> by;
    for (const Step &st : steps) {
        rows += st.pass + st.warning + st.error + st.notCompared;
        notCompared += st.notCompared;
        for (const auto &[code, n] : st.notComparedBy)
            by[code] += n;
    }
    const QString uncompared = compare && notCompared > 0
                                   ? QCoreApplication::translate("RunAnswer", "%1 of %2 rows not compared: %3")
                                         .arg(notCompared).arg(rows).arg(reasonCounts(by))
                                   : QString();
    if (!first) {
        const bool unnamed = steps.size() == 1 && steps.front().number < 0 && steps.front().label.isEmpty();
        const QString range = unnamed ? QString()
                              : steps.size() == 1 ? QCoreApplication::translate("RunAnswer", "step %1").arg(shown(steps.front().number, steps.front().label))
                                                  : QCoreApplication::translate("RunAnswer", "steps %1 to %2").arg(shown(steps.front().number, steps.front().label),
                                                                                                       shown(steps.back().number, steps.back().label));
        if (!compare)
            return unnamed ? QCoreApplication::translate("RunAnswer", "no anomaly") : QCoreApplication::translate("RunAnswer", "no anomaly in any step (%1)").arg(range);
        if (notCompared == 0)
            return unnamed ? QCoreApplication::translate("RunAnswer", "no divergence")
                           : QCoreApplication::translate("RunAnswer", "runs agree on every compared step (%1)").arg(range);
        if (notCompared == rows)
            return (unnamed ? QCoreApplication::translate("RunAnswer", "nothing was compared")
                            : QCoreApplication::translate("RunAnswer", "nothing was compared (%1)").arg(range))
                   + QStringLiteral("; ") + uncompared;
        return (unnamed ? QCoreApplication::translate("RunAnswer", "no divergence in the compared rows")
                        : QCoreApplication::translate("RunAnswer", "runs agree on every compared row (%1)").arg(range))
               + QStringLiteral("; ") + uncompared;
    }
    QStringList where;
    const QString step = shown(first->step, first->stepLabel);
    if (!step.isEmpty())
        where << QCoreApplication::translate("RunAnswer", "step %1").arg(step);
    const QString rank = shown(first->at.rankNumber, first->at.rank);
    if (!rank.isEmpty())
        where << QCoreApplication::translate("RunAnswer", "rank %1").arg(rank);
    where << QCoreApplication::translate("RunAnswer", "op %1").arg(first->at.finding.op);
    const QString at = where.join(QStringLiteral(", "));
    QString head;
    if (agreeUpTo || !agreeUpToLabel.isEmpty()) {
        const QString upTo = shown(agreeUpTo.value_or(-1), agreeUpToLabel);
        head = compare ? QCoreApplication::translate("RunAnswer", "runs agree up to step %1").arg(upTo) : QCoreApplication::translate("RunAnswer", "no anomaly up to step %1").arg(upTo);
    } else if (!step.isEmpty() && steps.size() > 1) {
        head = compare ? QCoreApplication::translate("RunAnswer", "runs differ from step %1 on").arg(step) : QCoreApplication::translate("RunAnswer", "anomaly from step %1 on").arg(step);
    }
    const QString tail = compare ? QCoreApplication::translate("RunAnswer", "first divergence: %1").arg(at) : QCoreApplication::translate("RunAnswer", "first anomaly: %1").arg(at);
    QString line = head.isEmpty() ? tail : head + QStringLiteral("; ") + tail;
    if (!uncompared.isEmpty())
        line += QStringLiteral("; ") + uncompared;
    return line;
}

QByteArray RunAnswer::toJson(const std::vector<ScopeSummary> &scopesIn) const
{
    using json = nlohmann::ordered_json;
    const bool compare = kind == RunAnswerKind::Compare;
    auto str = [](const QString &q) { return json(q.toStdString()); };
    auto numOrLabel = [&](qint64 n, const QString &label) { return n >= 0 ? json(n) : label.isEmpty() ? json() : str(label); };
    auto clockJson = [&](const ClockPosition &c) {
        const char *relation = c.commCount == 0 ? "none" : c.commIndex < 0 ? "after" : c.phase == 1 ? "at" : "before";
        return json{{"relation", relation},
                    {"comm_index", c.commIndex >= 0 ? json(c.commIndex) : json()},
                    {"comm_op", c.commOp.isEmpty() ? json() : str(c.commOp)},
                    {"comm_count", c.commCount},
                    {"layer", c.layer},
                    {"offset", c.offset}};
    };
    auto finding = [&](json &o, const ScopeFinding &f) {
        o["op"] = str(f.op);
        o["row"] = f.row.isEmpty() ? json() : str(f.row);
        o["reason"] = str(f.reason);
    };
    json stepArray = json::array();
    for (const Step &st : steps) {
        json o{{"step", numOrLabel(st.number, st.label)}};
        if (compare) {
            o["pass"] = st.pass;
            o["warning"] = st.warning;
            o["error"] = st.error;
            o["not_compared"] = st.notCompared;
            json by = json::object();
            for (const auto &[code, n] : st.notComparedBy)
                by[code.toStdString()] = n;
            o["not_compared_by"] = by;
        } else {
            o["anomalies"] = st.anomalies;
        }
        o["scopes"] = st.scopes;
        if (compare)
            o["scopes_on_one_side"] = st.missing;
        o[compare ? "diverged_ranks" : "anomalous_ranks"] = st.divergedRanks;
        stepArray.push_back(std::move(o));
    }
    json firstJson;
    if (first) {
        firstJson = json{{"step", numOrLabel(first->step, first->stepLabel)}, {"rank", numOrLabel(first->at.rankNumber, first->at.rank)}};
        finding(firstJson, first->at.finding);
        firstJson["scope"] = str(first->at.scope);
        firstJson["where"] = str(first->at.clock.describe());
        firstJson["clock"] = clockJson(first->at.clock);
        if (compare)
            firstJson["inputs_agree"] = first->at.finding.inputsAgree;
        firstJson["tied_ranks"] = first->tiedRanks;
        firstJson["clock_consistent"] = first->clockConsistent;
        json ranks = json::array();
        for (const RankFinding &r : first->ranks) {
            json o{{"rank", numOrLabel(r.rankNumber, r.rank)}, {"scope", str(r.scope)}};
            if (!r.found) {
                o["op"] = json();
                o["reason"] = compare ? "no divergence in this step" : "no anomaly in this step";
                ranks.push_back(std::move(o));
                continue;
            }
            finding(o, r.finding);
            o["where"] = str(r.clock.describe());
            o["clock"] = clockJson(r.clock);
            if (compare)
                o["inputs_agree"] = r.finding.inputsAgree;
            o["position"] = r.finding.position;
            ranks.push_back(std::move(o));
        }
        firstJson["ranks"] = ranks;
    }
    std::vector<ScopeSummary> sorted = scopesIn;
    sortScopes(sorted);
    json scopeArray = json::array();
    for (const ScopeSummary &sc : sorted) {
        json o{{"scope", str(sc.id)}, {"step", numOrLabel(sc.stepNumber, sc.step)}, {"rank", numOrLabel(sc.rankNumber, sc.rank)}};
        if (compare) {
            o["npu"] = sc.npu;
            o["bench"] = sc.bench;
            o["rows"] = sc.rows;
            o["pass"] = sc.pass;
            o["warning"] = sc.warning;
            o["error"] = sc.error;
            o["not_compared"] = sc.notCompared;
            json by = json::object();
            for (const auto &[code, n] : sc.notComparedBy)
                by[code.toStdString()] = n;
            o["not_compared_by"] = by;
            o["bench_only"] = sc.benchOnly;
        } else {
            o["anomalies"] = sc.anomalies;
        }
        o["ops"] = sc.ops;
        o["comm_ops"] = sc.comm.size();
        json f;
        if (sc.first) {
            f = json::object();
            finding(f, *sc.first);
            f["position"] = sc.first->position;
        }
        o[compare ? "first_divergence" : "first_anomaly"] = f;
        scopeArray.push_back(std::move(o));
    }
    json o{{"kind", compare ? "compare" : "overflow"}, {"answer", str(line())}};
    o[compare ? "agree_up_to_step" : "no_anomaly_up_to_step"] =
        agreeUpTo || !agreeUpToLabel.isEmpty() ? numOrLabel(agreeUpTo.value_or(-1), agreeUpToLabel) : json();
    o[compare ? "first_divergence" : "first_anomaly"] = firstJson;
    o["steps"] = stepArray;
    o["scopes"] = scopeArray;
    return QByteArray::fromStdString(o.dump());
}

} // namespace ds
