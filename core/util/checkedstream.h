#pragma once
// Reading counts and string lists from a QDataStream whose bytes may be damaged: the part
// cache (dump/partstream) and the HDF5 worker's frames (formats/h5/h5protocol) both read them.

#include <QDataStream>
#include <QIODevice>
#include <QStringList>

#include <algorithm>

namespace ds {

/// A count read from the stream that can be right: each element takes at least `minBytes` of
/// what is left. QDataStream's own container reading reserves the count it reads: check first.
inline bool getCheckedCount(QDataStream &s, quint32 &n, qint64 minBytes)
{
    s >> n;
    return s.status() == QDataStream::Ok && qint64(n) <= s.device()->bytesAvailable() / std::max<qint64>(minBytes, 1);
}

inline void putStringList(QDataStream &s, const QStringList &list)
{
    s << quint32(list.size());
    for (const QString &x : list)
        s << x;
}

/// The list written by putStringList; false (and a partial list) when the stream is damaged.
inline bool getStringList(QDataStream &s, QStringList &list)
{
    quint32 n = 0;
    if (!getCheckedCount(s, n, 4))
        return false;
    list.clear();
    for (quint32 i = 0; i < n && s.status() == QDataStream::Ok; ++i) {
        QString x;
        s >> x;
        list.append(std::move(x));
    }
    return s.status() == QDataStream::Ok;
}

} // namespace ds
