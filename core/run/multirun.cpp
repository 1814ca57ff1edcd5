#include "multirun.h"

#include "compare/comparematch.h"
#include "runcompare.h"

#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <numeric>

namespace ds {

QString runPhaseName(RunPhase p)
{
    switch (p) {
    case RunPhase::Forward: return QStringLiteral("forward");
    case RunPhase::Backward: return QStringLiteral("backward");
    case RunPhase::Optimizer: return QStringLiteral("optimizer");
    }
    return {};
}

bool RunSetRow::complete() const
{
    return std::none_of(cls.begin(), cls.end(), [](int c) { return c < 0; });
}

int RunSetRow::classes() const
{
    QSet<int> seen;
    for (int c : cls)
        if (c >= 0)
            seen.insert(c);
    return int(seen.size());
}

QString RunSetResult::sameWords(CompareMode mode)
{
    return mode == CompareMode::Summary ? QStringLiteral("identical statistics") : QStringLiteral("bit-identical");
}

namespace {

bool isBackward(const QString &op)
{
    return op.contains(QLatin1String(".backward")) || op.contains(QLatin1String(".parameters_grad"));
}

/// The forward entry of a backward one: "X.N.backward" -> "X.N.forward",
/// "Module.a.B.backward.0" -> "Module.a.B.forward.0"; empty when there is none.
QString forwardOf(const QString &op)
{
    QString f = op;
    if (f.endsWith(QLatin1String(".backward")))
        return f.chopped(9) + QLatin1String(".forward");
    const qsizetype at = f.lastIndexOf(QLatin1String(".backward."));
    if (at >= 0)
        return f.replace(at, 10, QStringLiteral(".forward."));
    return {};
}

/// One row of one pair's comparison.
struct PairRow
{
    RunSetRow row; // metadata (cls unused)
    bool matched = false, compared = false, identical = false;
};

struct Pending
{
    std::mutex mutex;
    std::vector<PairRow> rows;
    std::vector<CompareMode> modes;
    RunSetPair pair;
};

void collectScope(const ScopeCompare &s, const CompareOptions &options, Pending &p)
{
    const DumpIndex &npu = *s.npu;
    int lastBackward = -1;
    for (size_t i = 0; i < npu.ops.size(); ++i)
        if (isBackward(opMatchKey(npu.ops[i])))
            lastBackward = int(i);
    std::vector<PairRow> rows;
    rows.reserve(s.result.rows.size());
    int position = 0;
    qint64 identical = 0, differing = 0, notCompared = 0;
    for (const CompareRow &r : s.result.rows) {
        PairRow pr;
        RunSetRow &m = pr.row;
        m.scope = s.id;
        m.step = s.summary.step;
        m.rank = s.summary.rank;
        m.stepNumber = s.summary.stepNumber;
        m.rankNumber = s.summary.rankNumber;
        m.position = position++;
        m.op = opMatchKey(npu.ops[size_t(r.npu.op)]);
        m.name = r.npuName;
        m.io = r.io;
        m.phase = isBackward(m.op) ? RunPhase::Backward
                  : lastBackward >= 0 && r.npu.op > lastBackward ? RunPhase::Optimizer
                                                                 : RunPhase::Forward;
        pr.matched = r.bench.op >= 0;
        pr.compared = r.compared();
        pr.identical = pr.matched && pr.compared && r.identical;
        (pr.identical ? identical : !pr.compared ? notCompared : differing) += 1;
        rows.push_back(std::move(pr));
    }
    std::lock_guard lock(p.mutex);
    p.pair.rows += qint64(rows.size());
    p.pair.identical += identical;
    p.pair.differing += differing;
    p.pair.notCompared += notCompared;
    p.pair.benchOnly += qint64(s.result.benchOnly.size());
    if (!s.summary.npu || !s.summary.bench)
        p.pair.benchOnly += 1; // a scope on one side only: never "the same"
    p.modes.push_back(scopeReportMode(s.result, options));
    std::move(rows.begin(), rows.end(), std::back_inserter(p.rows));
}

bool setOrder(const RunSetRow &x, const RunSetRow &y)
{
    return std::tie(x.stepNumber, x.step, x.position, x.rankNumber, x.rank, x.scope)
           < std::tie(y.stepNumber, y.step, y.position, y.rankNumber, y.rank, y.scope);
}

std::vector<std::vector<int>> groupsOf(const RunSetRow &row)
{
    std::map<int, std::vector<int>> by;
    for (size_t r = 0; r < row.cls.size(); ++r)
        if (row.cls[r] >= 0)
            by[row.cls[r]].push_back(int(r));
    std::vector<std::vector<int>> out;
    for (auto &[c, runs] : by)
        out.push_back(std::move(runs));
    return out;
}

int find(std::vector<int> &parent, int x)
{
    while (parent[size_t(x)] != x)
        x = parent[size_t(x)] = parent[size_t(parent[size_t(x)])];
    return x;
}

QJsonValue rowJson(const RunSetRow &r)
{
    return QJsonObject{{QStringLiteral("scope"), r.scope},
                       {QStringLiteral("step"), r.stepNumber},
                       {QStringLiteral("rank"), r.rankNumber},
                       {QStringLiteral("op"), r.op},
                       {QStringLiteral("row"), r.name},
                       {QStringLiteral("io"), ioKindName(r.io)},
                       {QStringLiteral("phase"), runPhaseName(r.phase)}};
}

QJsonArray intsJson(const std::vector<int> &v)
{
    QJsonArray a;
    for (int x : v)
        a.append(x);
    return a;
}

QJsonValue findingJson(const std::optional<RunSetFinding> &f)
{
    if (!f)
        return QJsonValue::Null;
    QJsonObject o = rowJson(f->row).toObject();
    o.insert(QStringLiteral("runs"), intsJson(f->runs));
    QJsonArray groups;
    for (const auto &g : f->groups)
        groups.append(intsJson(g));
    o.insert(QStringLiteral("groups"), groups);
    o.insert(QStringLiteral("between_steps"), f->betweenSteps);
    return o;
}

QString runsText(const std::vector<int> &runs)
{
    QStringList parts;
    for (int r : runs)
        parts << QString::number(r + 1);
    return parts.join(QStringLiteral(", "));
}

QString whereText(const RunSetRow &r)
{
    QStringList at;
    if (!r.step.isEmpty())
        at << QStringLiteral("step ") + (r.stepNumber >= 0 ? QString::number(r.stepNumber) : r.step);
    if (!r.rank.isEmpty())
        at << QStringLiteral("rank ") + (r.rankNumber >= 0 ? QString::number(r.rankNumber) : r.rank);
    at << r.op;
    return at.join(QStringLiteral(", ")) + QStringLiteral(" (row ") + r.name + QLatin1Char(')');
}

bool agreed(const RunSetRow *r) { return r && r->complete() && r->classes() == 1; }

/// The first module parameter row (set order) that differs between the runs at step s+1 while at
/// step s the same row and the parameter's gradient agreed: the update between the steps.
std::optional<RunSetFinding> updateBetweenSteps(const std::vector<RunSetRow> &rows, int n)
{
    const auto key = [](qint64 step, const QString &rank, const QString &name) -> QString {
        return QString::number(step) + QLatin1Char('/') + rank + QLatin1Char('\n') + name;
    };
    QHash<QString, const RunSetRow *> at;
    for (const RunSetRow &r : rows)
        if (r.stepNumber >= 0)
            at.insert(key(r.stepNumber, r.rank, r.name), &r);
    static const QLatin1String params(".parameters."), forward(".forward.");
    for (const RunSetRow &r : rows) {
        const qsizetype p = r.name.lastIndexOf(params), f = r.name.indexOf(forward);
        if (r.stepNumber < 1 || p < 0 || f < 0 || f > p || !r.complete() || r.classes() < 2)
            continue;
        if (!agreed(at.value(key(r.stepNumber - 1, r.rank, r.name))))
            continue;
        // its gradient of the step before: "<module>.parameters_grad.<k>.<parameter>"
        const QString module = r.name.left(f), parameter = r.name.mid(p + params.size());
        const RunSetRow *grad = nullptr;
        for (const RunSetRow &g : rows)
            if (g.stepNumber == r.stepNumber - 1 && g.rank == r.rank && g.name.startsWith(module + QLatin1String(".parameters_grad."))
                && g.name.endsWith(QLatin1Char('.') + parameter)) {
                grad = &g;
                break;
            }
        if (!agreed(grad))
            continue;
        RunSetFinding finding{r, {}, groupsOf(r), true};
        for (int k = 0; k < n; ++k)
            if (r.cls[size_t(k)] != r.cls[0])
                finding.runs.push_back(k);
        return finding;
    }
    return std::nullopt;
}

} // namespace

RunSetResult compareRunSet(const std::vector<RunSetMember> &runs, const CompareOptions &options, const JobControl *job)
{
    RunSetResult result;
    const int n = int(runs.size());
    for (const RunSetMember &m : runs)
        result.paths.push_back(m.path);
    std::vector<std::pair<int, int>> pairs;
    for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b)
            pairs.emplace_back(a, b);
    std::vector<std::vector<PairRow>> pairRows(pairs.size());
    std::vector<CompareMode> allModes;
    for (size_t k = 0; k < pairs.size(); ++k) {
        const auto [a, b] = pairs[k];
        Pending p;
        p.pair.a = a;
        p.pair.b = b;
        JobControl sub;
        if (job) {
            sub.cancelFlag = job->cancelFlag;
            sub.progress = [job, k, total = pairs.size()](int permille) { job->report(int((k * 1000 + size_t(permille)) / total)); };
        }
        compareRuns(*runs[size_t(a)].tree, *runs[size_t(a)].run, *runs[size_t(b)].tree, *runs[size_t(b)].run, options,
                    job ? &sub : nullptr, [&](size_t, const ScopePair &, ScopeCompare &s) { collectScope(s, options, p); });
        if (job && job->cancelled()) {
            result.cancelled = true;
            return result;
        }
        std::sort(p.rows.begin(), p.rows.end(), [](const PairRow &x, const PairRow &y) { return setOrder(x.row, y.row); });
        p.pair.mode = bestReportMode(p.modes);
        p.pair.same = p.pair.rows > 0 && p.pair.identical == p.pair.rows && p.pair.benchOnly == 0;
        for (const PairRow &r : p.rows)
            if (!r.identical) {
                p.pair.firstDifference = r.row;
                break;
            }
        allModes.push_back(p.pair.mode);
        result.pairs.push_back(std::move(p.pair));
        pairRows[k] = std::move(p.rows);
    }
    result.mode = bestReportMode(allModes);

    // Rows across the runs by scope and name, with a union-find of the runs per row.
    QHash<QString, size_t> byKey;
    std::vector<std::vector<int>> parent;
    std::vector<std::vector<char>> present, compared;
    for (size_t k = 0; k < pairs.size(); ++k) {
        const auto [a, b] = pairs[k];
        for (const PairRow &r : pairRows[k]) {
            const QString key = r.row.scope + QLatin1Char('\n') + r.row.name;
            auto it = byKey.find(key);
            if (it == byKey.end()) {
                it = byKey.insert(key, result.rows.size());
                result.rows.push_back(r.row);
                std::vector<int> p(static_cast<size_t>(n));
                std::iota(p.begin(), p.end(), 0);
                parent.push_back(std::move(p));
                present.emplace_back(size_t(n), 0);
                compared.emplace_back(size_t(n), 0);
            }
            const size_t i = *it;
            present[i][size_t(a)] = 1;
            if (r.matched)
                present[i][size_t(b)] = 1;
            if (r.compared) {
                compared[i][size_t(a)] = 1;
                compared[i][size_t(b)] = 1;
            }
            if (r.identical) {
                const int x = find(parent[i], a), y = find(parent[i], b);
                parent[i][size_t(std::max(x, y))] = std::min(x, y);
            }
        }
    }
    for (size_t i = 0; i < result.rows.size(); ++i) {
        RunSetRow &row = result.rows[i];
        row.cls.assign(size_t(n), -1);
        for (int r = 0; r < n; ++r)
            if (present[i][size_t(r)] && compared[i][size_t(r)])
                row.cls[size_t(r)] = find(parent[i], r);
    }
    std::stable_sort(result.rows.begin(), result.rows.end(), setOrder);
    findRunSetAnswers(result);
    return result;
}

void findRunSetAnswers(RunSetResult &result)
{
    const int n = int(result.paths.size());
    // runs the same in every row: the pairs that are, joined
    std::vector<int> parent(static_cast<size_t>(n));
    std::iota(parent.begin(), parent.end(), 0);
    for (const RunSetPair &p : result.pairs)
        if (p.same) {
            const int x = find(parent, p.a), y = find(parent, p.b);
            parent[size_t(std::max(x, y))] = std::min(x, y);
        }
    std::map<int, std::vector<int>> groups;
    for (int r = 0; r < n; ++r)
        groups[find(parent, r)].push_back(r);
    result.sameGroups.clear();
    for (auto &[root, runs] : groups)
        if (runs.size() > 1)
            result.sameGroups.push_back(runs);

    result.departure.reset();
    for (const RunSetRow &row : result.rows) {
        if (!row.complete() || row.classes() < 2)
            continue;
        auto gs = groupsOf(row);
        const auto major = std::max_element(gs.begin(), gs.end(), [](const auto &x, const auto &y) { return x.size() < y.size(); });
        if (2 * major->size() <= size_t(n))
            continue; // no strict majority to depart from
        RunSetFinding f{row, {}, gs};
        for (int r = 0; r < n; ++r)
            if (std::find(major->begin(), major->end(), r) == major->end())
                f.runs.push_back(r);
        result.departure = std::move(f);
        break;
    }

    // operators by scope: do all their recorded inputs agree (with the forward entry's for a
    // backward one: a backward computes from what its forward saved)?
    // A communication op (Distributed.*) computes from every rank's input: its inputs agree only
    // when they agree on every rank of the step.
    QHash<QString, int> inputsAgree; // "<scope>\n<op>" -> 1 all complete and agreeing, 0 not, absent: no input row
    QHash<QString, int> collectiveAgree; // "<step>\n<op>" of Distributed.* ops, over the ranks
    const auto note = [](QHash<QString, int> &h, const QString &key, int agree) {
        auto it = h.find(key);
        if (it == h.end())
            h.insert(key, agree);
        else
            *it = *it && agree;
    };
    const auto isCollective = [](const QString &op) { return op.startsWith(QLatin1String("Distributed.")); };
    for (const RunSetRow &row : result.rows) {
        if (row.io == IoKind::Output)
            continue;
        const int agree = row.complete() && row.classes() == 1 ? 1 : 0;
        note(inputsAgree, row.scope + QLatin1Char('\n') + row.op, agree);
        if (isCollective(row.op))
            note(collectiveAgree, row.step + QLatin1Char('\n') + row.op, agree);
    }
    for (auto &f : result.nondeterministic)
        f.reset();
    for (const RunSetRow &row : result.rows) {
        auto &slot = result.nondeterministic[size_t(row.phase)];
        if (slot || row.io != IoKind::Output || !row.complete() || row.classes() < 2)
            continue;
        const auto own = inputsAgree.constFind(row.scope + QLatin1Char('\n') + row.op);
        if (own == inputsAgree.cend() || !*own)
            continue;
        if (isCollective(row.op) && !collectiveAgree.value(row.step + QLatin1Char('\n') + row.op, 1))
            continue;
        if (const QString fwd = forwardOf(row.op); !fwd.isEmpty()) {
            const auto saved = inputsAgree.constFind(row.scope + QLatin1Char('\n') + fwd);
            if (saved != inputsAgree.cend() && !*saved)
                continue;
        }
        RunSetFinding f{row, {}, groupsOf(row)};
        for (int r = 0; r < n; ++r)
            if (row.cls[size_t(r)] != row.cls[0])
                f.runs.push_back(r);
        slot = std::move(f);
    }
    if (!result.nondeterministic[size_t(RunPhase::Optimizer)])
        result.nondeterministic[size_t(RunPhase::Optimizer)] = updateBetweenSteps(result.rows, n);
}

std::vector<RunSetOp> runSetMatrix(const RunSetResult &result)
{
    const size_t n = result.paths.size();
    std::vector<RunSetOp> ops;
    QHash<QString, size_t> at;
    for (const RunSetRow &row : result.rows) {
        const QString key = row.scope + QLatin1Char('\n') + row.op;
        auto it = at.find(key);
        if (it == at.end()) {
            it = at.insert(key, ops.size());
            ops.push_back({row.scope, row.op, row.stepNumber, row.rankNumber, row.phase, std::vector<char>(n, 1), row.position});
        }
        RunSetOp &op = ops[*it];
        const auto gs = groupsOf(row);
        auto major = std::max_element(gs.begin(), gs.end(), [](const auto &x, const auto &y) { return x.size() < y.size(); });
        if (major != gs.end() && 2 * major->size() <= n) // no strict majority: run 0's class
            major = std::find_if(gs.begin(), gs.end(), [](const auto &g) { return g.front() == 0; });
        for (size_t r = 0; r < n; ++r)
            if (row.cls[r] < 0 || major == gs.end() || std::find(major->begin(), major->end(), int(r)) == major->end())
                op.agree[r] = 0;
    }
    std::stable_sort(ops.begin(), ops.end(), [](const RunSetOp &x, const RunSetOp &y) {
        return std::tie(x.stepNumber, x.rankNumber, x.scope, x.position) < std::tie(y.stepNumber, y.rankNumber, y.scope, y.position);
    });
    return ops;
}

Result<QStringList> runFoldersUnder(const QString &path, const JobControl *job)
{
    auto found = discoverRuns(path, job);
    if (!found)
        return found.error();
    QStringList out;
    for (const RunInfo &r : found->runs)
        out << (r.relPath.isEmpty() ? found->walk.openedPath : found->walk.openedPath + QLatin1Char('/') + r.relPath);
    return out;
}

Result<RunSetResult> compareRunPaths(const QStringList &paths, const CompareOptions &options, const JobControl *job)
{
    std::deque<RunTree> trees; // stable addresses
    std::vector<RunSetMember> members;
    static const RunInfo empty;
    for (const QString &path : paths) {
        if (!QFileInfo::exists(path))
            return Result<RunSetResult>::failure(ErrorKind::NotFound, path, QStringLiteral("no such file or directory"));
        auto found = discoverRuns(path, nullptr);
        if (!found)
            return found.error().within(path);
        trees.push_back(std::move(*found));
        const RunTree &tree = trees.back();
        if (tree.runs.size() > 1)
            return Result<RunSetResult>::failure(ErrorKind::Usage, path,
                                                 QStringLiteral("holds %1 runs; name each run folder").arg(tree.runs.size()));
        members.push_back({tree.walk.openedPath, &tree, tree.runs.empty() ? &empty : &tree.runs.front()});
    }
    RunSetResult result = compareRunSet(members, options, job);
    if (result.cancelled)
        return Cancelled{};
    return result;
}

QByteArray RunSetResult::toJson() const
{
    QJsonObject o;
    QJsonArray runs;
    for (size_t i = 0; i < paths.size(); ++i)
        runs.append(QJsonObject{{QStringLiteral("index"), int(i)}, {QStringLiteral("path"), paths[i]}});
    o.insert(QStringLiteral("runs"), runs);
    o.insert(QStringLiteral("mode"), compareModeName(mode));
    QJsonArray ps;
    for (const RunSetPair &p : pairs) {
        QJsonObject j{{QStringLiteral("a"), p.a},
                      {QStringLiteral("b"), p.b},
                      {QStringLiteral("mode"), compareModeName(p.mode)},
                      {QStringLiteral("rows"), p.rows},
                      {QStringLiteral("identical_rows"), p.identical},
                      {QStringLiteral("differing_rows"), p.differing},
                      {QStringLiteral("not_compared"), p.notCompared},
                      {QStringLiteral("unmatched"), p.benchOnly},
                      {QStringLiteral("same"), p.same},
                      {QStringLiteral("bit_identical"), p.same && p.mode != CompareMode::Summary}};
        j.insert(QStringLiteral("first_difference"), p.firstDifference ? rowJson(*p.firstDifference) : QJsonValue::Null);
        ps.append(j);
    }
    o.insert(QStringLiteral("pairs"), ps);
    QJsonArray same;
    for (const auto &g : sameGroups)
        same.append(intsJson(g));
    o.insert(QStringLiteral("same_groups"), same);
    o.insert(QStringLiteral("departure"), findingJson(departure));
    QJsonObject nd;
    for (size_t p = 0; p < nondeterministic.size(); ++p)
        nd.insert(runPhaseName(RunPhase(p)), findingJson(nondeterministic[p]));
    o.insert(QStringLiteral("nondeterministic"), nd);
    QJsonArray ops;
    for (const RunSetOp &op : runSetMatrix(*this)) {
        QJsonArray agree;
        for (char a : op.agree)
            agree.append(bool(a));
        ops.append(QJsonObject{{QStringLiteral("scope"), op.scope}, {QStringLiteral("op"), op.op},
                               {QStringLiteral("phase"), runPhaseName(op.phase)}, {QStringLiteral("agree"), agree}});
    }
    o.insert(QStringLiteral("ops"), ops);
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

QString RunSetResult::text() const
{
    QString t;
    for (size_t i = 0; i < paths.size(); ++i)
        t += QStringLiteral("run %1: %2\n").arg(i + 1).arg(paths[i]);
    t += QStringLiteral("mode:  %1\n\npairs:\n").arg(compareModeName(mode));
    for (const RunSetPair &p : pairs) {
        t += QStringLiteral("  %1-%2: ").arg(p.a + 1).arg(p.b + 1);
        if (p.same)
            t += QStringLiteral("%1 (%2 rows)\n").arg(sameWords(p.mode)).arg(p.rows);
        else
            t += QStringLiteral("%1 of %2 rows differ, %3 not compared, %4 unmatched%5\n")
                     .arg(p.differing).arg(p.rows).arg(p.notCompared).arg(p.benchOnly)
                     .arg(p.firstDifference ? QStringLiteral("; first: ") + whereText(*p.firstDifference) : QString());
    }
    t += QLatin1Char('\n');
    for (const auto &g : sameGroups)
        t += QStringLiteral("runs %1 are %2\n").arg(runsText(g), sameWords(mode));
    if (departure)
        t += QStringLiteral("departs first: run %1 at %2; majority: runs %3\n")
                 .arg(runsText(departure->runs), whereText(departure->row),
                      runsText(*std::max_element(departure->groups.begin(), departure->groups.end(),
                                                 [](const auto &x, const auto &y) { return x.size() < y.size(); })));
    else
        t += QStringLiteral("departs first: no run departs from a majority\n");
    t += QStringLiteral("first operator whose inputs agree and an output differs:\n");
    for (size_t p = 0; p < nondeterministic.size(); ++p) {
        const auto &f = nondeterministic[p];
        t += QStringLiteral("  %1: ").arg(runPhaseName(RunPhase(p)), -9);
        if (!f) {
            t += QStringLiteral("none\n");
            continue;
        }
        QStringList groups;
        for (const auto &g : f->groups)
            groups << QLatin1Char('{') + runsText(g) + QLatin1Char('}');
        t += QStringLiteral("%1%2; runs agree as %3\n")
                 .arg(f->betweenSteps ? QStringLiteral("updated differently before ") : QString(), whereText(f->row),
                      groups.join(QLatin1Char(' ')));
    }
    return t;
}

} // namespace ds
