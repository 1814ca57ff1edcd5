#pragma once
// The tests' own CSV splitter (RFC 4180 quoting as pandas writes it: quoted fields may hold
// commas, doubled quotes and line breaks), written apart from core/util/csvrecords so that the
// CSVs msprobe and the oracles write are read by a second implementation and not by the code
// under test. Shared by tst_mskernel, tst_compareview and the cross-framework tests.
#include <QByteArray>
#include <QFile>
#include <QList>
#include <QString>
#include <QStringList>

#include <vector>

namespace testcsv {

/// CSV records, each a list of fields; a last line without a line break is a record too.
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

/// The records of a CSV file (empty when it cannot be read).
inline QList<QStringList> readFile(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const std::vector<QStringList> rows = records(f.readAll());
    return QList<QStringList>(rows.begin(), rows.end());
}

} // namespace testcsv
