#pragma once
// What the cross-framework tests (tst_compare_crossframework, tst_layermapping) share: the
// samples/msprobe_crossframework folder, its dumps indexed, its files read, and a CSV splitter of
// the tests' own (testcsv.h).
#include "index/buildindex.h"
#include "testcsv.h"

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

using testcsv::records;

} // namespace crossframework
