#include "levels.h"

#include <QDir>
#include <QRegularExpression>

#include <algorithm>

namespace ds {

bool allDigits(const QString &s)
{
    return !s.isEmpty() && std::all_of(s.begin(), s.end(), [](QChar c) { return c.isDigit() && c.unicode() < 128; });
}

DumpLevels classifyLevels(const QStringList &components)
{
    DumpLevels l;
    qsizetype i = 0;
    if (i < components.size() && components[i].size() == 14 && allDigits(components[i]))
        l.time = components[i++];
    if (i < components.size() && allDigits(components[i]))
        l.device = components[i++];
    QStringList ints;
    for (; i < components.size(); ++i) {
        if (allDigits(components[i]))
            ints << components[i];
        else if (l.modelName.isEmpty() && ints.isEmpty())
            l.modelName = components[i];
    }
    if (!ints.isEmpty())
        l.modelId = ints[0];
    if (ints.size() > 1)
        l.dataIndex = ints[1];
    return l;
}

bool isRankDirName(const QString &name)
{
    static const QRegularExpression rank(QStringLiteral("^(rank[0-9]*|rank_[0-9]+|proc[0-9]+|pid[0-9]+)$"));
    return rank.match(name).hasMatch();
}

DumpLevels frameworkLevels(const QString &absDir)
{
    static const QRegularExpression step(QStringLiteral("^step_?[0-9]+$"));
    DumpLevels l;
    const QStringList comps = QDir::cleanPath(absDir).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    qsizetype stepAt = -1;
    for (qsizetype i = comps.size() - 1; i >= 0 && i >= comps.size() - 3; --i) {
        if (l.rank.isEmpty() && l.step.isEmpty() && isRankDirName(comps[i]))
            l.rank = comps[i];
        else if (l.step.isEmpty() && step.match(comps[i]).hasMatch()) {
            l.step = comps[i];
            stepAt = i;
        }
    }
    // MindSpore's jit split (msprobe core/dump/service.py): dump_path/{graph,pynative}/step{N}/...
    if (stepAt > 0 && isJitModeName(comps[stepAt - 1]))
        l.part = comps[stepAt - 1];
    return l;
}

bool isJitModeName(const QString &name)
{
    return name == QLatin1String("graph") || name == QLatin1String("pynative");
}

int compareNumericAware(const QString &a, const QString &b)
{
    const bool na = allDigits(a), nb = allDigits(b);
    if (na && nb && a.size() != b.size())
        return a.size() < b.size() ? -1 : 1; // numeric order without overflow
    return a.compare(b);
}

bool levelsBefore(const DumpLevels &a, const DumpLevels &b)
{
    const QString *la[] = {&a.part, &a.run, &a.time, &a.step, &a.rank, &a.device, &a.modelName, &a.modelId, &a.dataIndex};
    const QString *lb[] = {&b.part, &b.run, &b.time, &b.step, &b.rank, &b.device, &b.modelName, &b.modelId, &b.dataIndex};
    for (int i = 0; i < 9; ++i)
        if (int c = compareNumericAware(*la[i], *lb[i]))
            return c < 0;
    return false;
}

bool sameLevels(const DumpLevels &a, const DumpLevels &b)
{
    return &a == &b
           || (a.part == b.part && a.run == b.run && a.time == b.time && a.step == b.step && a.rank == b.rank
               && a.device == b.device && a.modelName == b.modelName && a.modelId == b.modelId && a.dataIndex == b.dataIndex);
}

QString runRootOf(const QString &relPath, const DumpLevels &levels)
{
    const QStringList comps = relPath.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    qsizetype cut = -1;
    if (!levels.step.isEmpty() || !levels.rank.isEmpty()) {
        // step{N}/rank{R}, possibly with one folder between or a file below (frameworkLevels).
        for (qsizetype i = comps.size() - 1; i >= 0 && i >= comps.size() - 4; --i)
            if ((!levels.step.isEmpty() && comps[i] == levels.step) || (!levels.rank.isEmpty() && comps[i] == levels.rank))
                cut = i;
    } else if (!levels.time.isEmpty()) {
        cut = comps.lastIndexOf(levels.time);
    }
    // A jit split's graph/ and pynative/ are two parts of one run.
    if (cut > 0 && isJitModeName(levels.part) && comps[cut - 1] == levels.part)
        --cut;
    if (cut <= 0)
        return {};
    return comps.mid(0, cut).join(QLatin1Char('/'));
}

QString scopeIdOf(const DumpLevels &l)
{
    QStringList parts;
    if (!l.step.isEmpty())
        parts << l.step;
    if (!l.rank.isEmpty())
        parts << l.rank;
    if (!l.device.isEmpty())
        parts << QStringLiteral("device") + l.device;
    if (!l.dataIndex.isEmpty())
        parts << QStringLiteral("iteration") + l.dataIndex;
    return parts.join(QLatin1Char('/'));
}

} // namespace ds
