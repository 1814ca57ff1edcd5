#include "mappingcsv.h"

#include <QFile>

namespace ds::cann {

QHash<QString, QString> readMappingCsv(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return readMappingCsv(file);
}

QHash<QString, QString> readMappingCsv(QIODevice &file)
{
    QHash<QString, QString> map;
    constexpr qint64 kMaxLine = 1 << 16;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine(kMaxLine).trimmed();
        const QList<QByteArray> fields = line.split(',');
        if (fields.size() != 2)
            continue;
        const QString shortName = QString::fromUtf8(fields[0].trimmed());
        const QString original = QString::fromUtf8(fields[1].trimmed());
        if (!shortName.isEmpty() && !original.isEmpty())
            map.insert(shortName, original);
    }
    return map;
}

} // namespace ds::cann
