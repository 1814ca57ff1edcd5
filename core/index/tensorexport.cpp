#include "tensorexport.h"

#include "io/pathguard.h"

#include <QDir>
#include <QFileInfo>

namespace ds {

QString exportFileName(const DumpIndex &index, const DumpIndex::TensorRef &ref, ExportFormat format)
{
    const QString id = index.tensorId(ref);
    const QString ext = format == ExportFormat::Npy ? QStringLiteral(".npy") : QStringLiteral(".txt");
    // CANN file names are unique on their own; framework operators are virtual paths whose
    // last part repeats across ranks and files (".../rank0/X", "model_npu.h5/conv2d/1").
    if (index.op(ref).source == SourceFormat::Cann)
        return id.section(QLatin1Char('/'), -1) + ext;
    return QString(id).replace(QLatin1Char('/'), QLatin1Char('_')) + ext;
}

ExportResult exportTensor(const DumpIndex &index, const DumpIndex::TensorRef &ref, const ExportRequest &req,
                          const JobControl *job)
{
    ExportResult r;
    r.id = index.tensorId(ref);
    r.dtype = dataTypeName(index.tensor(ref).dataType);
    if (isInsideDir(req.outDir, index.rootDir)) {
        r.error = QStringLiteral("refusing to write into the opened dump directory %1").arg(index.rootDir);
        return r;
    }
    if (!QDir().mkpath(req.outDir)) {
        r.error = QStringLiteral("cannot create %1").arg(req.outDir);
        return r;
    }
    r.file = QDir(req.outDir).filePath(exportFileName(index, ref, req.format));
    auto loaded = loadTensor(index, ref, req.layout, job);
    if (!loaded) {
        r.error = loaded.error();
        return r;
    }
    const auto &t = **loaded;
    r.shape = t.shape;
    const Elem out = exportElem(t.view.elem);
    r.exportedDtype = QString::fromLatin1(elemNumpyDescr(out) ? elemNumpyDescr(out) : "");
    r.error = req.format == ExportFormat::Npy
                  ? writeNpy(r.file, t.view.elem, t.view.data, t.view.count, t.shape, req.write, job)
                  : writeTxt(r.file, t.view.elem, t.view.data, t.view.count, req.write, job);
    return r;
}

} // namespace ds
