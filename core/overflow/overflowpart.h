#pragma once

// `dumpscope-cli overflow` in two steps (issue 17): the part of the report one index contributes
// (rendered per OpDebug record and per scanned scope, with the keys that order them in the whole
// tree), and the one merge that turns any set of parts into the report of their union. The CLI
// builds one part of the whole tree and merges it; under mpirun every process builds the part of
// the scopes it owns and rank 0 merges them: both paths write through mergeOverflow(), so that
// they cannot drift. A part holds no tensor and no index, only rendered text, JSON and levels;
// encodeOverflowPart() makes it a message.

#include "index/infopart.h"
#include "overflowreport.h"

#include <QByteArray>
#include <optional>

namespace ds {

struct OverflowPart
{
    /// One OpDebug record: its sort keys (overflow.md §8) and its rendered report.
    struct Record
    {
        DumpLevels levels;     ///< its directory's levels (execution order breaks ties)
        QString relPath;
        std::uint64_t timestamp = 0;
        QByteArray json;       ///< the record's JSON object (CBOR), "first"/"first_overall" still false
        QString text;          ///< its lines of the text report below the line naming it
        // set by the merge
        bool firstOnDevice = false, firstOverall = false;
    };
    /// The software scan of one scope (one distinct set of directory levels).
    struct Scan
    {
        DumpLevels levels;
        QByteArray json;       ///< the scope's JSON object (CBOR), "scope" still empty
        QByteArray findings;   ///< its findings' JSON objects (CBOR array), "scope" still empty
        qint32 findingCount = 0;
        bool hasFirst = false, firstIsCommunication = false, cancelled = false;
        QString headLine;      ///< text: what follows "<label>: " ("first anomaly X [critical]\n")
        QString body;          ///< text: its finding lines
        QString firstTitle, firstLevel; ///< its first anomaly's operator and level
        QString producer;      ///< its first critical operator's file, "" none
        // set by the merge
        QString label;
    };
    std::vector<Record> records;
    std::vector<Scan> scans;
    std::vector<FileError> errors; ///< files that could not be read (walk and index)
    QStringList runs;              ///< DumpLevels::run of its operators (distinct)
    std::vector<qint32> formats;   ///< FormatId of its operators (distinct)
    bool cancelled = false;
};

/// The part of `report` (analyzeOverflow over `index`, which may hold only some scopes of a
/// tree; indexed with IndexLabels::Always when so) that the merge needs.
OverflowPart overflowPart(const DumpIndex &index, const OverflowReport &report);

/// Parts merged into the report of their union: records in the order of overflow.md §8 with the
/// first-per-device and first-overall marks, scans in execution order with their labels, the
/// dump's first anomaly (firstScopeOf's rule), errors sorted by file (duplicates once).
struct OverflowDocument
{
    QString path;
    std::vector<OverflowPart::Record> records;
    std::vector<OverflowPart::Scan> scans;
    int firstScan = -1;
    std::vector<FileError> errors;
    qint64 findings = 0;
    bool scanned = false, cancelled = false;
    bool severalRuns = false; ///< the operators come from several runs (levels.run is kept)
    /// The one first overflow of every run (run/firstoverflow.h answerOverflow sets these from
    /// the parts' scope summaries): the JSON's `first` (the first run's) and `first_by_run`
    /// (several runs), the text's "first overflow:" block, the records it names ("<== first overflow").
    QByteArray firstJson, firstByRunJson;
    QString firstText;
    QStringList firstRecords;
};
OverflowDocument mergeOverflow(std::vector<OverflowPart> parts, const QString &openedPath, bool scanRequested);

QByteArray overflowJson(const OverflowDocument &doc);
QString overflowText(const OverflowDocument &doc);


QByteArray encodeOverflowPart(const OverflowPart &part);
std::optional<OverflowPart> decodeOverflowPart(const QByteArray &bytes);

} // namespace ds
