#pragma once
// What the cross-framework tests (tst_compare_crossframework, tst_layermapping) share: the
// samples/msprobe_crossframework folder, its dumps indexed, its files read, and a CSV splitter of
// the tests' own (written apart from core/util/csvrecords, so that msprobe's CSVs are read by a
// second implementation and not by the code under test).
#include "index/buildindex.h"

#include <QFile>
#include <QStringList>

#include <memory>
#include <vector>

namespace crossframework {

inline const QString kDir = QStringLiteral(DUMPSCOPE_SAMPLES "/msprobe_crossframework/");

inline std::shared_ptr<ds::DumpIndex> open(const QString &path)
{
    auto r = ds::buildIndex(kDir + path);
    return r ? *r : nullptr;
}

inline QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// CSV records (quoted fields may hold commas, quotes and line breaks), each a list of fields.
inline std::vector<QStringList> records(const QByteArray &csv)
{
    std::vector<QStringList> out;
    QStringList rec;
    QString field;
    bool quoted = false;
    const QString text = QString::fromUtf8(csv);
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) {
                field += c;
                ++i;
            } else if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            rec << field;
            field.clear();
        } else if (c == QLatin1Char('\n')) {
            rec << field;
            field.clear();
            out.push_back(rec);
            rec.clear();
        } else if (c != QLatin1Char('\r')) {
            field += c;
        }
    }
    if (!field.isEmpty() || !rec.isEmpty())
        out.push_back(rec << field);
    return out;
}

} // namespace crossframework
