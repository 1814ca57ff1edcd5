#include "problems.h"

namespace ds {

std::vector<Problem> opProblems(const DumpIndex &index, int op)
{
    std::vector<Problem> out;
    const OpRecord &rec = index.ops[size_t(op)];
    for (const QString &w : rec.warnings()) {
        Problem p;
        p.severity = Problem::Severity::Warning;
        p.file = rec.dataFile.isEmpty() ? rec.relPath : rec.dataFile;
        if (!rec.dataFile.isEmpty())
            p.entry = rec.headerOpName().isEmpty() ? rec.opName.toString() : rec.headerOpName();
        p.message = w;
        p.op = op;
        out.push_back(std::move(p));
    }
    return out;
}

std::vector<Problem> indexProblems(const DumpIndex &index)
{
    std::vector<Problem> out;
    for (const auto &e : index.errors)
        out.push_back({Problem::Severity::Error, e.file, QString(), e.message, -1});
    for (size_t o = 0; o < index.ops.size(); ++o)
        if (!index.ops[o].warnings().isEmpty()) {
            auto w = opProblems(index, int(o));
            out.insert(out.end(), std::make_move_iterator(w.begin()), std::make_move_iterator(w.end()));
        }
    return out;
}

QString problemText(const Problem &p)
{
    return p.entry.isEmpty() ? QStringLiteral("%1: %2").arg(p.file, p.message) : QStringLiteral("%1 (%2): %3").arg(p.file, p.entry, p.message);
}

} // namespace ds
