#pragma once
// What the dump.json reader tests (tst_fastjson, tst_dumpjsonsplit) compare two readings by:
// every field of every record, warning and error, one line each.
#include "dump/indexpart.h"

#include <QStringList>

inline QStringList describe(const ds::IndexPart &part, bool complete)
{
    QStringList out;
    out << QStringLiteral("complete=%1 task=%2 level=%3 framework=%4 dir=%5")
               .arg(complete)
               .arg(part.task, part.level, part.framework, part.dumpDataDir);
    auto num = [](double v) { return QString::number(v, 'g', 17); };
    for (const ds::OpRecord &op : part.ops) {
        out << QStringLiteral("op %1 | %2 | %3 | %4 | %5 | %6")
                   .arg(op.relPath.toString(), op.opName.toString(), op.opType.toString(), op.dataFile.toString())
                   .arg(op.timestamp)
                   .arg(op.warnings().join(QLatin1String(" / ")));
        for (const ds::TensorRecord &t : op.tensors) {
            const ds::RecordedStats st = t.recorded();
            QStringList shape;
            for (std::uint64_t d : t.shape())
                shape << QString::number(d);
            out << QStringLiteral("  %1 | %2 | %3 | [%4] | io=%5 #%6 | dt=%7 st=%8 | %9 %10 %11 %12 %13 | %14 | %15")
                       .arg(t.name(), t.typeName(), t.value(), shape.join(QLatin1Char(',')))
                       .arg(int(t.io()))
                       .arg(t.index())
                       .arg(t.dataType())
                       .arg(int(t.storage()))
                       .arg(int(st.present))
                       .arg(num(st.max), num(st.min), num(st.mean), num(st.norm), t.checksum(), t.location());
        }
    }
    for (const ds::FileError &e : part.errors)
        out << QStringLiteral("error %1: %2 @%3").arg(e.file, e.message).arg(e.offset);
    return out;
}
