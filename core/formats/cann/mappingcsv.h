#pragma once

#include <QHash>
#include <QString>

class QIODevice;

namespace ds::cann {

/// Reads a header-less two-column mapping.csv (short name -> original file name, §3.4).
/// Rows without exactly two fields are ignored. Missing or unreadable files give an empty map.
QHash<QString, QString> readMappingCsv(const QString &path);

/// The same from an open device (reads to its end).
QHash<QString, QString> readMappingCsv(QIODevice &device);

} // namespace ds::cann
