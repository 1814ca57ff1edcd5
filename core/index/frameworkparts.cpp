#include "frameworkparts.h"

#include "formats/h5/h5dumper.h"
#include "formats/msprobe/msprobereader.h"
#include "formats/npyfolder/npyfolder.h"

#include <QDir>
#include <QRegularExpression>

#include <algorithm>

namespace ds {

namespace {

bool isRankName(const QString &name)
{
    static const QRegularExpression rank(QStringLiteral("^(rank[0-9]*|proc[0-9]+)$"));
    return rank.match(name).hasMatch();
}

bool hasSuffix(const QString &name, const char *suffix) { return name.endsWith(QLatin1String(suffix), Qt::CaseInsensitive); }

} // namespace

DumpLevels frameworkLevels(const QString &absDir)
{
    static const QRegularExpression step(QStringLiteral("^step[0-9]+$"));
    DumpLevels l;
    const QStringList comps = QDir::cleanPath(absDir).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    for (qsizetype i = comps.size() - 1; i >= 0 && i >= comps.size() - 3; --i) {
        if (l.rank.isEmpty() && l.step.isEmpty() && isRankName(comps[i]))
            l.rank = comps[i];
        else if (l.step.isEmpty() && step.match(comps[i]).hasMatch())
            l.step = comps[i];
    }
    return l;
}

DirVerdict classifyDirectory(const QString &absDir, const QString &relDir, QStringList &files)
{
    DirVerdict v;
    auto join = [&](const QString &f) { return relDir.isEmpty() ? f : relDir + QLatin1Char('/') + f; };
    // msprobe.md §1: dump.json (or debug.json) first, then ptdbg's dump.pkl / overflow files.
    if (files.contains(QLatin1String("dump.json")) || files.contains(QLatin1String("debug.json"))) {
        v.wholeDirectory = true;
        v.parts.push_back({FrameworkDir::Kind::Msprobe, relDir, frameworkLevels(absDir)});
        return v;
    }
    const bool anyPkl = std::any_of(files.begin(), files.end(), [](const QString &f) { return f.endsWith(QLatin1String(".pkl")); });
    if (anyPkl && ptdbg::looksLikePtdbgRankDir(absDir)) {
        v.wholeDirectory = true;
        v.parts.push_back({FrameworkDir::Kind::Ptdbg, relDir, frameworkLevels(absDir)});
        return v;
    }
    bool npy = false;
    for (auto it = files.begin(); it != files.end();) {
        if (hasSuffix(*it, ".h5") || hasSuffix(*it, ".hdf5")) {
            DumpLevels levels = frameworkLevels(absDir);
            levels.modelName = *it; // model_npu.h5 and model_gpu.h5 side by side in the tree
            v.parts.push_back({FrameworkDir::Kind::H5File, join(*it), levels});
            it = files.erase(it);
        } else if (ptdbg::isOverflowInfoFile(*it)) {
            v.parts.push_back({FrameworkDir::Kind::PtdbgOverflowInfo, join(*it), frameworkLevels(absDir)});
            it = files.erase(it);
        } else if (hasSuffix(*it, ".npy")) {
            npy = true;
            it = files.erase(it);
        } else {
            ++it;
        }
    }
    if (npy) {
        DumpLevels levels = frameworkLevels(absDir);
        levels.modelName = relDir.section(QLatin1Char('/'), -1); // one node per folder below the opened one
        v.parts.push_back({FrameworkDir::Kind::NpyFolder, relDir, levels});
    }
    return v;
}

Result<FrameworkPart> indexFrameworkDir(const QString &rootDir, const FrameworkDir &dir, const JobControl *job)
{
    switch (dir.kind) {
    case FrameworkDir::Kind::Msprobe: return msprobe::indexRankDir(rootDir, dir.relPath, dir.levels, job);
    case FrameworkDir::Kind::Ptdbg: return ptdbg::indexRankDir(rootDir, dir.relPath, dir.levels, job);
    case FrameworkDir::Kind::PtdbgOverflowInfo: return ptdbg::indexOverflowInfo(rootDir, dir.relPath, dir.levels, job);
    case FrameworkDir::Kind::H5File: return h5dumper::indexFile(rootDir, dir.relPath, dir.levels, job);
    case FrameworkDir::Kind::NpyFolder: return npyfolder::indexDir(rootDir, dir.relPath, dir.levels, job);
    }
    return Result<FrameworkPart>::failure(QStringLiteral("%1: unknown part").arg(dir.relPath));
}

} // namespace ds
