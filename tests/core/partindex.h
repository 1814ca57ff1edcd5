#pragma once
// What the reader tests that index one part by hand share (tst_h5dumper, tst_npyread): the part
// made an index as buildIndex() makes it, a loaded tensor's bytes, a manifest's shape.
#include "dump/dumpindex.h"
#include "formats/readers.h"
#include "index/tensorloader.h"
#include "tensor/dtype.h"

#include <QByteArray>
#include <QJsonArray>
#include <QString>

#include <memory>

namespace ds::testing {

/// A shape as the manifests write it (a JSON array of numbers).
inline Shape shapeOf(const QJsonArray &a)
{
    Shape s;
    for (const auto &v : a)
        s.push_back(std::uint64_t(v.toDouble()));
    return s;
}

/// The bytes of a loaded tensor's values.
inline QByteArray loadedBytes(const LoadedTensor &t)
{
    return QByteArray(reinterpret_cast<const char *>(t.view.data), qsizetype(t.view.count * elemBytes(t.view.elem)));
}

/// An index of one part, as buildIndex() makes it: its ops attributed to the reader `format`
/// ("h5", "npy").
inline std::shared_ptr<DumpIndex> indexOfPart(const QString &root, IndexPart part, QStringView format)
{
    auto index = std::make_shared<DumpIndex>();
    index->rootDir = root;
    for (OpRecord &op : part.ops)
        op.source = *sourceFormatByName(format);
    index->ops = std::move(part.ops);
    index->errors = std::move(part.errors);
    index->finalize();
    return index;
}

} // namespace ds::testing
