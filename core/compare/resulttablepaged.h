#pragma once
// msprobe's compare tables too large to hold as cells (issue 35, item 5: msprobe refuses a table
// over 1 GiB; DumpScope opens twice that). One pass over the mapped CSV file makes an index of
// row offsets (8 bytes per row) and checks the whole file as parseCsvTable does (the same errors,
// naming the file, the line and the column), reading the Result (or MindSpore's "Accuracy Reached
// or Not") and Bench Name cells of each row on the way for the counts, without building cells.
// Rows are parsed when asked for (a table model's page). readCsvTable uses it too (the rows
// materialized), so every CSV table is read by this one parser.

#include "compare/comparetypes.h"
#include "resulttable.h"
#include "util/error.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <array>
#include <memory>
#include <vector>

class QFile;

namespace ds {

struct JobControl;

/// Tables at least this large are opened paged (the CLI's summary, the GUI's paged rows); smaller
/// ones are opened as a whole comparison (openedTableFrom). DS_PAGED_TABLE_BYTES overrides it.
qint64 pagedTableThreshold();

class PagedCsvTable
{
public:
    /// Maps and indexes a CSV file. Errors are parseCsvTable's (file, line, column). With
    /// `headRows` > 0 only the first rows are indexed (a first screen while the whole file is):
    /// complete() is false, errors after them are not seen and the counts are theirs.
    static Result<std::shared_ptr<const PagedCsvTable>> open(const QString &path, const JobControl *job = nullptr,
                                                             qint64 headRows = 0);
    /// The same over bytes in memory (kept by the table).
    static Result<std::shared_ptr<const PagedCsvTable>> fromBytes(QByteArray bytes, const QString &path);
    ~PagedCsvTable();
    PagedCsvTable(const PagedCsvTable &) = delete;
    PagedCsvTable &operator=(const PagedCsvTable &) = delete;

    const QString &path() const { return m_path; }
    const QStringList &header() const { return m_header; }
    qint64 rowCount() const { return qint64(m_offsets.size()); }
    qint64 fileBytes() const { return m_size; }
    /// Every row was indexed (open() without headRows).
    bool complete() const { return m_complete; }
    /// The file line (1-based) row `r` starts on.
    int line(qint64 r) const;
    /// The cells of row `r` (0-based, header excluded), parsed from the file now.
    QStringList row(qint64 r) const;
    /// Every row as cells (a small table's path: openedTableFrom).
    TextTable toTextTable() const;

    /// Per row, as openedTableFrom gives it: the verdict (None for a row without a bench
    /// match) and whether the bench name matched.
    Verdict verdict(qint64 r) const { return Verdict(m_flags[size_t(r)] & 3); }
    bool matched(qint64 r) const { return m_flags[size_t(r)] & 4; }
    /// Rows per verdict (index: Verdict).
    const std::array<qint64, 4> &verdictCounts() const { return m_counts; }
    /// Column indexes (-1: not in the header).
    int resultColumn() const { return m_resultCol; }
    /// openedTableFrom's error for the first Result cell that is not one (empty: none).
    const QString &resultError() const { return m_resultError; }

private:
    PagedCsvTable() = default;
    Result<bool> index(const JobControl *job, qint64 headRows = 0);

    QString m_path;
    std::unique_ptr<QFile> m_file;
    QByteArray m_owned;
    const char *m_data = nullptr;
    qint64 m_size = 0;
    qint64 m_begin = 0; ///< after the UTF-8 BOM
    QStringList m_header;
    std::vector<quint64> m_offsets;   ///< byte offset of each row's first byte
    std::vector<quint8> m_flags;      ///< verdict (bits 0-1), bench matched (bit 2)
    std::vector<std::pair<qint64, int>> m_lineShift; ///< (first row, line - row - 2) where it changes
    std::array<qint64, 4> m_counts{};
    int m_resultCol = -1, m_accuracyCol = -1, m_benchCol = -1;
    QString m_resultError;
    bool m_complete = true;
};

/// An msprobe compare table read paged.
struct PagedCompareTable
{
    std::shared_ptr<const PagedCsvTable> table;
    CompareMode mode = CompareMode::None; ///< from the header, as openedTableFrom finds it
};

/// Reads a .csv table paged (PagedCsvTable::open) and checks it is an msprobe compare table as
/// openedTableFrom does (its header, the first row's cells, each row's Result), with
/// openedTableFrom's errors.
Result<PagedCompareTable> openPagedCompareTable(const QString &path, const JobControl *job = nullptr);

/// Rows that are not a pass listed by the summaries below (the rest are counted).
inline constexpr qint64 kPagedNotPassListed = 20;

/// The summary `dumpscope-cli compare TABLE.csv` gives a paged table: its mode, rows per
/// verdict and the first rows that are not a pass (with their line), in the text report's words.
/// The dumps are not searched and the first divergence is not traced (docs/COMPARE.md).
QString pagedTableText(const PagedCompareTable &t);
/// The same as JSON: {"table", "paged": true, "mode", "summary": {...}, "not_pass": [...],
/// "not_pass_total"} (the summary's keys are the compare JSON's).
QByteArray pagedTableJson(const PagedCompareTable &t);

} // namespace ds
