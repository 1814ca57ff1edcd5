#include "runtree.h"

#include "dump/dumpname.h"
#include "dump/levels.h"
#include "steporder.h"
#include "formats/readers.h"

#include <QFileInfo>
#include <QHash>
#include <QSet>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace ds {

QString scopeStepLabel(const DumpLevels &l) { return !l.step.isEmpty() ? l.step : l.dataIndex; }
QString scopeRankLabel(const DumpLevels &l) { return !l.rank.isEmpty() ? l.rank : l.device; }

qint64 levelNumber(const QString &value, bool rankLevel)
{
    if (value.isEmpty() || value.startsWith(QLatin1String("proc")) || value.startsWith(QLatin1String("pid")))
        return -1;
    qsizetype digits = value.size();
    while (digits > 0 && value[digits - 1].isDigit() && value[digits - 1].unicode() < 128)
        --digits;
    if (digits == value.size())
        return rankLevel && value == QLatin1String("rank") ? 0 : -1;
    bool ok = false;
    const qint64 n = value.mid(digits).toLongLong(&ok);
    return ok ? n : -1;
}

const RunScope *RunInfo::scope(const QString &id) const
{
    for (const RunScope &s : scopes)
        if (s.id == id)
            return &s;
    return nullptr;
}

const RunInfo *RunTree::run(const QString &relPath) const
{
    for (const RunInfo &r : runs)
        if (r.relPath == relPath)
            return &r;
    return nullptr;
}

namespace {

/// False for claims of the reader that takes every leftover file (CANN) when none of its files
/// has a dump file name: a README beside the runs is not a run.
bool holdsDumps(const Claim &c)
{
    const DumpReader &reader = formatReader(c.format);
    if (!reader.opsAreFiles() || c.files.isEmpty())
        return true;
    return std::any_of(c.files.begin(), c.files.end(), [](const QString &f) {
        const QString base = f.mid(f.lastIndexOf(QLatin1Char('/')) + 1);
        return cann::isNumericName(base) || cann::parseDumpName(base).has_value();
    });
}

bool scopeBefore(const RunScope &a, const RunScope &b)
{
    if (int c = compareStepRank(a, b))
        return c < 0;
    return a.id < b.id;
}

/// Scopes in step, rank order; the run's distinct steps and ranks.
void finishRun(RunInfo &run)
{
    std::sort(run.scopes.begin(), run.scopes.end(), scopeBefore);
    for (const RunScope &s : run.scopes) {
        if (std::find(run.steps.begin(), run.steps.end(), s.stepNumber) == run.steps.end())
            run.steps.push_back(s.stepNumber);
        if (std::find(run.ranks.begin(), run.ranks.end(), s.rankNumber) == run.ranks.end())
            run.ranks.push_back(s.rankNumber);
    }
    std::sort(run.steps.begin(), run.steps.end());
    std::sort(run.ranks.begin(), run.ranks.end());
}

} // namespace

Result<RunTree> discoverRuns(const QString &path, const JobControl *job)
{
    auto walk = walkTree(path, job);
    if (!walk)
        return walk.error();
    return runsOfWalk(std::move(*walk));
}

RunTree runsOfWalk(TreeWalk walk)
{
    RunTree tree;
    tree.walk = std::move(walk);
    std::map<QString, RunInfo> runs;
    std::map<QString, std::map<QString, RunScope>> scopes; // run -> id -> scope
    for (size_t i = 0; i < tree.walk.claims.size(); ++i) {
        const Claim &c = tree.walk.claims[i];
        if (!holdsDumps(c))
            continue;
        const QString &runPath = tree.walk.runs[i];
        RunInfo &run = runs[runPath];
        run.relPath = runPath;
        const QString format = formatReader(c.format).name();
        if (!run.formats.contains(format))
            run.formats << format;
        const QString id = scopeIdOf(c.levels);
        RunScope &s = scopes[runPath][id];
        if (s.claims.empty()) {
            s.id = id;
            s.step = scopeStepLabel(c.levels);
            s.rank = scopeRankLabel(c.levels);
            s.stepNumber = levelNumber(s.step);
            s.rankNumber = levelNumber(s.rank, true);
        }
        s.claims.push_back(i);
        if (!s.dirs.contains(c.relPath))
            s.dirs << c.relPath;
        if (!s.formats.contains(format))
            s.formats << format;
    }
    for (auto &[runPath, run] : runs) {
        run.name = runPath.isEmpty() ? QFileInfo(tree.walk.rootDir).fileName() : runPath.section(QLatin1Char('/'), -1);
        for (auto &[id, s] : scopes[runPath]) {
            std::sort(s.dirs.begin(), s.dirs.end());
            run.scopes.push_back(std::move(s));
        }
        finishRun(run);
        tree.runs.push_back(std::move(run));
    }
    return tree;
}

std::vector<RunInfo> mergeRuns(const std::vector<std::vector<RunInfo>> &lists)
{
    std::map<QString, RunInfo> runs;
    std::map<QString, QSet<QString>> scopeIds; // per run: the ids in m.scopes (m.scope() is linear)
    for (const auto &list : lists)
        for (const RunInfo &r : list) {
            auto [it, added] = runs.try_emplace(r.relPath);
            RunInfo &m = it->second;
            QSet<QString> &ids = scopeIds[r.relPath];
            if (added) {
                m.relPath = r.relPath;
                m.name = r.name;
            }
            for (const QString &f : r.formats)
                if (!m.formats.contains(f))
                    m.formats << f;
            for (const RunScope &s : r.scopes)
                if (!ids.contains(s.id)) {
                    ids.insert(s.id);
                    RunScope copy;
                    copy.id = s.id;
                    copy.step = s.step;
                    copy.rank = s.rank;
                    copy.stepNumber = s.stepNumber;
                    copy.rankNumber = s.rankNumber;
                    copy.formats = s.formats;
                    m.scopes.push_back(std::move(copy));
                }
        }
    std::vector<RunInfo> out;
    for (auto &[relPath, run] : runs) {
        run.steps.clear();
        run.ranks.clear();
        finishRun(run);
        out.push_back(std::move(run));
    }
    return out;
}

std::shared_ptr<DumpIndex> indexScope(const RunTree &tree, const RunScope &scope, const JobControl *job)
{
    if (scope.claims.empty()) { // indexClaims reads every claim for an empty list
        auto empty = std::make_shared<DumpIndex>();
        empty->openedPath = tree.walk.openedPath;
        empty->rootDir = tree.walk.rootDir;
        empty->finalize();
        return empty;
    }
    return indexClaims(tree.walk, scope.claims, job);
}

std::vector<std::pair<QString, std::vector<int>>> opsByScope(const DumpIndex &index)
{
    std::vector<std::pair<QString, std::vector<int>>> out;
    QHash<QString, size_t> at;
    const DumpLevels *last = nullptr;
    size_t lastScope = 0;
    for (size_t o = 0; o < index.ops.size(); ++o) {
        const DumpLevels &l = *index.ops[o].levels;
        if (&l != last) { // the ops of one directory share their levels
            QString id = scopeIdOf(l);
            if (!l.run.isEmpty())
                id = l.run + QLatin1Char(':') + id;
            auto it = at.find(id);
            if (it == at.end()) {
                it = at.insert(id, out.size());
                out.emplace_back(id, std::vector<int>{});
            }
            lastScope = *it;
            last = &l;
        }
        out[lastScope].second.push_back(int(o));
    }
    return out;
}

std::shared_ptr<DumpIndex> runSubIndex(const DumpIndex &index, const QString &runLevel)
{
    auto sub = std::make_shared<DumpIndex>();
    sub->openedPath = index.openedPath;
    sub->rootDir = index.rootDir;
    sub->stacks = index.stacks;
    sub->producerTasks = index.producerTasks;
    sub->producerFrameworks = index.producerFrameworks;
    sub->otherFiles = index.otherFiles;
    sub->cancelled = index.cancelled;
    std::unordered_map<const DumpLevels *, SharedLevels> withoutRun;
    for (const OpRecord &op : index.ops) {
        if (op.levels->run != runLevel)
            continue;
        sub->ops.push_back(op);
        auto [it, added] = withoutRun.try_emplace(&*op.levels);
        if (added) {
            DumpLevels l = *op.levels;
            l.run.clear();
            it->second = SharedLevels(std::move(l));
        }
        sub->ops.back().levels = it->second;
    }
    const QString prefix = runLevel == QLatin1String(".") ? QString() : runLevel + QLatin1Char('/');
    for (const FileError &e : index.errors)
        if (prefix.isEmpty() || e.file.startsWith(prefix))
            sub->errors.push_back(e);
    sub->finalize();
    return sub;
}

} // namespace ds
