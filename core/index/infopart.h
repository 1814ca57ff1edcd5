#pragma once

// `dumpscope-cli info` in two steps (issue 17), like overflowpart.h: the part one index
// contributes (counts, level values, warnings per distinct set of directory levels, errors) and
// the one merge that gives the report of any set of parts' union. The CLI merges the one part of
// the whole tree; under mpirun rank 0 merges every process's part: the same code writes both.

#include "dump/dumpindex.h"

#include <QByteArray>
#include <QDataStream>
#include <functional>
#include <optional>

namespace ds {

struct InfoPart
{
    /// The operators of one distinct set of directory levels (all contiguous in execution order).
    struct Group
    {
        DumpLevels levels;
        QByteArray warnings;      ///< their warnings' JSON objects (CBOR array), execution order
        QStringList warningLines; ///< the same as text (problemText)
    };
    std::vector<Group> groups;    ///< execution order
    std::vector<qint32> formats;  ///< FormatId of its operators (distinct)
    QStringList runs;             ///< DumpLevels::run of its operators (distinct)
    quint64 ops = 0, tensors = 0, bytes = 0, opDebug = 0, otherFiles = 0;
    std::vector<FileError> errors; ///< files that could not be read (walk and index)
    bool cancelled = false;
};

/// The part of `index` (the whole tree, or some of its scopes indexed with IndexLabels::Always).
InfoPart infoPart(const DumpIndex &index);

struct InfoDocument
{
    QString path;
    std::vector<qint32> formats;          ///< reader-list order
    quint64 ops = 0, tensors = 0, bytes = 0, opDebug = 0, otherFiles = 0;
    std::vector<DumpLevels> levels;       ///< the distinct levels in execution order
    QByteArray warnings;                  ///< CBOR array, execution order
    QStringList warningLines;
    std::vector<FileError> errors;
    bool cancelled = false;
};
InfoDocument mergeInfo(std::vector<InfoPart> parts, const QString &openedPath);

/// The JSON of `dumpscope-cli info --json` without the runs (README "JSON output").
QByteArray infoJson(const InfoDocument &doc);

QByteArray encodeInfoPart(const InfoPart &part);
std::optional<InfoPart> decodeInfoPart(const QByteArray &bytes);

// Shared by the parts of the reports (overflowpart.h).
void writeLevels(QDataStream &s, const DumpLevels &l);
void readLevels(QDataStream &s, DumpLevels &l);
void writeErrors(QDataStream &s, const std::vector<FileError> &errors);
void readErrors(QDataStream &s, std::vector<FileError> &errors);
/// Errors sorted by file, then message (exact duplicates, seen by several processes, once).
std::vector<FileError> mergedErrors(std::vector<FileError> errors);
/// `levels` as the whole tree labels them: run and part only when it has several runs / formats.
DumpLevels wholeTreeLevels(DumpLevels levels, bool severalRuns, bool severalFormats);
/// Distinct values of `parts`' lists, sorted (formats: reader-list order).
std::vector<qint32> unitedFormats(const std::vector<std::vector<qint32>> &lists);
/// "file: message" lines of the text reports' closing list ("" when none).
QString errorsText(const std::vector<FileError> &errors);
/// QDataStream framing of the parts: a magic and version, the checked read of a message.
QByteArray writePart(quint32 magic, const std::function<void(QDataStream &)> &fill);
bool readPart(const QByteArray &bytes, quint32 magic, const std::function<void(QDataStream &)> &read);

} // namespace ds
