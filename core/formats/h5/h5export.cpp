// "Export selection as .h5": the checks and the file handling in this process, the copying by
// libhdf5 in a dumpscope-h5worker (h5dumper.h, exportOps).
#include "h5dumper.h"

#include "h5handle.h"
#include "h5isolate.h"
#include "io/pathguard.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QTemporaryFile>

#include <filesystem>
#include <map>

namespace ds::h5dumper {

namespace {

constexpr std::uint64_t kMaxExportAnswer = 1 << 20;

} // namespace

Result<int> exportOps(const DumpIndex &index, const std::vector<int> &ops, const QString &outFile,
                      const ExportOptions &options, const JobControl *job)
{
    using R = Result<int>;
    if (ops.empty())
        return R::failure(QStringLiteral("no operators selected"));
    const QFileInfo out(outFile);
    const QString outPath = QDir::cleanPath(out.absoluteFilePath());
    const QString root = QDir::cleanPath(QFileInfo(index.rootDir).absoluteFilePath());
    if (isInsideDir(outPath, root))
        return R::failure(QStringLiteral("%1: refusing to write inside the opened dump (%2)").arg(outPath, root));
    if (!QFileInfo(out.absolutePath()).isDir())
        return R::failure(QStringLiteral("%1: the directory does not exist").arg(out.absolutePath()));
    if (out.exists() && !options.force)
        return R::failure(QStringLiteral("%1 exists; not overwritten").arg(outPath));

    // Group the selection by source file and check that every target path is unique.
    std::map<QString, QStringList> bySource; // dataFile -> group paths
    QHash<QString, int> targets;
    for (int i : ops) {
        if (i < 0 || size_t(i) >= index.ops.size())
            return R::failure(QStringLiteral("operator %1 does not exist").arg(i));
        const OpRecord &op = index.ops[size_t(i)];
        const bool h5File = op.dataFile.endsWith(QLatin1String(".h5"), Qt::CaseInsensitive)
                            || op.dataFile.endsWith(QLatin1String(".hdf5"), Qt::CaseInsensitive);
        if (!h5File || !op.relPath.startsWith(op.dataFile + QLatin1Char('/')))
            return R::failure(QStringLiteral("%1 is not an operator of a .h5 dump").arg(op.relPath));
        const QString group = op.relPath.mid(op.dataFile.size());
        if (const auto it = targets.constFind(group); it != targets.constEnd()) {
            if (*it == i)
                continue;
            return R::failure(QStringLiteral("%1 and %2 would both be written to %3")
                                  .arg(index.ops[size_t(*it)].relPath, op.relPath, group));
        }
        targets.insert(group, i);
        bySource[op.dataFile].append(group);
    }

    // Reserve a unique temporary name beside the target; the worker truncates and writes it.
    // It is removed here whatever happens to the worker (a crash, a cancel).
    QTemporaryFile tmp(QDir(out.absolutePath()).filePath(QStringLiteral(".%1.XXXXXX.tmp").arg(out.fileName())));
    tmp.setAutoRemove(true);
    if (!tmp.open())
        return R::failure(QStringLiteral("%1: cannot create a temporary file (%2)").arg(out.absolutePath(), tmp.errorString()));
    const QString tmpPath = tmp.fileName();
    tmp.close();

    h5::Request request;
    request.kind = h5::RequestKind::Export;
    request.exportJob.outPath = tmpPath;
    QStringList sources;
    for (const auto &[dataFile, groups] : bySource) {
        request.exportJob.sources.push_back({index.absolute(dataFile), dataFile, groups});
        sources << dataFile;
    }
    const auto answer = h5::runWorker(request, kMaxExportAnswer, job, [](const QByteArray &bytes) {
        const auto a = h5::decodeExportAnswer(bytes);
        return a && a->error.isEmpty();
    });
    if (!answer) {
        if (answer.isCancelled() || (job && job->cancelled()))
            return Cancelled{};
        return R::failure(ErrorKind::ReaderFailed, sources.join(QStringLiteral(", ")), answer.error().message);
    }
    const auto done = h5::decodeExportAnswer(*answer);
    if (!done)
        return R::failure(ErrorKind::ReaderFailed, sources.join(QStringLiteral(", ")),
                          QStringLiteral("the HDF5 reader process sent a garbled answer"));
    if (!done->error.isEmpty())
        return R::failure(done->error);
    if (done->written != targets.size() || !QFileInfo(tmpPath).isFile())
        return R::failure(ErrorKind::ReaderFailed, sources.join(QStringLiteral(", ")),
                          QStringLiteral("the HDF5 reader process sent a garbled answer"));

    if (out.exists() && !options.force)
        return R::failure(QStringLiteral("%1 exists; not overwritten").arg(outPath));
    std::error_code ec;
    std::filesystem::rename(QFile::encodeName(tmpPath).toStdString(), QFile::encodeName(outPath).toStdString(), ec);
    if (ec)
        return R::failure(QStringLiteral("%1: cannot rename the temporary file (%2)").arg(outPath, QString::fromStdString(ec.message())));
    tmp.setAutoRemove(false);
    return int(targets.size());
}

h5::ExportAnswer copyGroupsInProcess(const h5::ExportRequest &request, const JobControl &job)
{
    using A = h5::ExportAnswer;
    h5::silenceErrors();
    qsizetype total = 0;
    for (const auto &src : request.sources)
        total += src.groups.size();
    int written = 0;
    h5::Handle fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
    h5::Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (!fcpl || !fapl)
        return A{QStringLiteral("cannot create HDF5 property lists (%1)").arg(h5::lastError()), 0};
    H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG);
    h5::Handle dst(H5Fcreate(QFile::encodeName(request.outPath).constData(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), H5Fclose);
    if (!dst)
        return A{QStringLiteral("%1: cannot create the HDF5 file (%2)").arg(request.outPath, h5::lastError()), 0};
    h5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    for (const auto &src : request.sources) {
        h5::Handle file = h5::openReadOnly(src.path);
        if (!file)
            return A{QStringLiteral("%1: cannot open (%2)").arg(src.dataFile, h5::lastError()), 0};
        for (const QString &group : src.groups) {
            const QByteArray g = group.toUtf8();
            if (H5Lexists(file.get(), g.constData(), H5P_DEFAULT) <= 0)
                return A{QStringLiteral("%1: %2 no longer exists; reopen the dump").arg(src.dataFile, group), 0};
            if (H5Ocopy(file.get(), g.constData(), dst.get(), g.constData(), H5P_DEFAULT, lcpl.get()) < 0)
                return A{QStringLiteral("%1: copying %2 failed (%3)").arg(src.dataFile, group, h5::lastError()), 0};
            ++written;
            job.report(int(1000 * written / std::max<qsizetype>(total, 1)));
        }
    }
    if (H5Fflush(dst.get(), H5F_SCOPE_GLOBAL) < 0)
        return A{QStringLiteral("%1: writing failed (%2)").arg(request.outPath, h5::lastError()), 0};
    dst.reset();
    return A{QString(), written};
}

} // namespace ds::h5dumper
