#include "tensorexport.h"

#include "formats/readers.h"
#include "io/pathguard.h"
#include "tensorloader.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace ds {

QString exportFileName(const DumpIndex &index, const DumpIndex::TensorRef &ref, ExportFormat format)
{
    const QString id = index.tensorId(ref).toString();
    const QString ext = format == ExportFormat::Npy ? QStringLiteral(".npy") : QStringLiteral(".txt");
    // CANN file names are unique on their own; framework operators are virtual paths whose
    // last part repeats across ranks and files (".../rank0/X", "model_npu.h5/conv2d/1").
    if (formatReader(index.op(ref).source).opsAreFiles())
        return id.section(QLatin1Char('/'), -1) + ext;
    return QString(id).replace(QLatin1Char('/'), QLatin1Char('_')) + ext;
}

ExportBlock exportBlock(const TensorRecord &t)
{
    switch (t.storage()) {
    case TensorStorage::Absent: return ExportBlock::StatisticsOnly;
    case TensorStorage::Value: return ExportBlock::NotATensor;
    default: return ExportBlock::None;
    }
}

QString ExportCounts::text() const
{
    QString s = QCoreApplication::translate("Export", "%1 of %n selected can be exported", nullptr, total()).arg(exportable);
    QStringList why;
    if (statisticsOnly)
        why << QCoreApplication::translate("Export", "%n statistics only (no values were dumped)", nullptr, statisticsOnly);
    if (notTensors)
        why << QCoreApplication::translate("Export", "%n not a tensor (int, float, None, ... arguments)", nullptr, notTensors);
    if (!why.isEmpty())
        s += QStringLiteral("; ") + why.join(QStringLiteral(", "));
    return s + QLatin1Char('.');
}

ExportResult exportTensor(const DumpIndex &index, const DumpIndex::TensorRef &ref, const ExportRequest &req,
                          const JobControl *job)
{
    ExportResult r;
    r.id = index.tensorId(ref);
    r.dtype = dataTypeName(index.tensor(ref).dataType());
    if (isInsideDir(req.outDir, index.rootDir)) {
        r.error = Error(ErrorKind::Usage, req.outDir, QStringLiteral("refusing to write into the opened dump directory %1").arg(index.rootDir));
        return r;
    }
    r.file = QDir(req.outDir).filePath(exportFileName(index, ref, req.format));
    // Loaded first: a leaf without values (statistics only, not a tensor) or an unreadable one
    // leaves no empty folder behind.
    auto loaded = loadTensor(index, ref, req.layout, job);
    if (!loaded) {
        r.error = loaded.error();
        return r;
    }
    if (!QDir().mkpath(req.outDir)) {
        r.error = Error(ErrorKind::Access, req.outDir, QStringLiteral("cannot create the directory"));
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

namespace {

const OpExporter *exporterOf(const DumpIndex &index, const std::vector<int> &ops)
{
    const OpExporter *exporter = nullptr;
    for (int o : ops) {
        if (o < 0 || size_t(o) >= index.ops.size())
            return nullptr;
        const OpExporter *e = formatReader(index.ops[size_t(o)].source).exporter();
        if (!e || (exporter && e != exporter))
            return nullptr;
        exporter = e;
    }
    return exporter;
}

} // namespace

QString opExportSuffix(const DumpIndex &index, const std::vector<int> &ops)
{
    const OpExporter *e = exporterOf(index, ops);
    return e ? e->fileSuffix() : QString();
}

Result<int> exportOps(const DumpIndex &index, const std::vector<int> &ops, const QString &outFile, bool force,
                      const JobControl *job)
{
    if (ops.empty())
        return Error(ErrorKind::Usage, outFile, QStringLiteral("no operators selected"));
    const OpExporter *e = exporterOf(index, ops);
    if (!e)
        return Error(ErrorKind::Usage, outFile,
                     QStringLiteral("the selected operators cannot be written in their own format (only .h5 dumper operators of one kind can)"));
    return e->exportOps(index, ops, outFile, force, job);
}

} // namespace ds
