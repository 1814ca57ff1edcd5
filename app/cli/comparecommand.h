#pragma once

// `dumpscope-cli compare NPU_PATH BENCH_PATH [--mapping FILE] [--fuzzy] [--json] [--csv FILE]
//                       [--xlsx FILE] [--style dumpscope|msprobe] [--fail-on error|warning]
//                       [--thresholds FILE] [--mode tensor|summary|md5] [--no-align]
//                       [--write-mapping FILE|DIR]`
//
// Finds the run under each path (core/run: steps x ranks of scopes; a folder holding several
// runs is refused), then indexes and compares the runs scope by scope (any format buildIndex
// reads; docs/COMPARE.md). Text output: the run-level answer in one line ("runs agree up to
// step N; first divergence: step N+1, rank R, op X"), counts, the first divergence per scope
// and every row that is not a pass; --json prints the JSON report instead (with the `run`
// object); --csv / --xlsx write msprobe 26's table (--style msprobe: only its columns; never
// inside either dump directory); --write-mapping writes the pairing as msprobe's data_mapping
// YAML (never inside a dump directory).
//
// Exit codes: 0 compared; 1 a report could not be written; 2 usage error (bad option value,
// unreadable mapping or thresholds file, report or mapping path inside a dump, a path holding
// several runs, --write-mapping FILE for several scopes); 3 a path does not exist;
// 4 --fail-on given and some row reached that verdict.

#include "compare/comparereport.h"
#include "run/runcompare.h"

#include <QString>
#include <QStringList>
#include <QTemporaryFile>
#include <functional>
#include <memory>
#include <mutex>

namespace ds {

struct CompareCommand
{
    QString npuPath, benchPath;
    QString mappingFile, csvFile, thresholdsFile;
    QString failOn; ///< "", "error" or "warning"
    QString mode;   ///< "", "tensor", "summary" or "md5"
    bool fuzzy = false, json = false, quiet = false;
    QString xlsxFile;
    QString style;  ///< "", "dumpscope" or "msprobe"
    QString mappingKind; ///< --mapping-kind: "" (auto), flat, api, cell, data or layer
    /// --write-mapping: the pairing as msprobe's data_mapping YAML (mappingexport.h); a file for a
    /// compare of one scope, a folder (one data_mapping_<scope>.yaml per scope) for several.
    QString writeMapping;
    bool noAlign = false; ///< --no-align: exact names only (rule 4's structure aligner off)
};

int runCompareCommand(const CompareCommand &c);

/// Where --write-mapping writes: one file per scope pair (`files`, in pair order), and the
/// folder to create (empty for a single file).
struct MappingTarget
{
    QString folder;
    QStringList files;
};
/// The files of --write-mapping `path` for `pairs`: `path` itself for one scope; for a folder
/// (an existing one, or `path` ending in '/') data_mapping_<scope>.yaml per scope. Fails, saying
/// why, for a file when there are several scopes and for a path inside one of `dumpRoots`.
Result<MappingTarget> mappingTargetOf(const QString &path, const std::vector<ScopePair> &pairs, const QStringList &dumpRoots);

/// `dumpscope-cli compare RESULT.csv|RESULT.xlsx [--json] [--npu PATH --bench PATH]
///                       [--csv FILE] [--xlsx FILE] [--style ...] [--fail-on ...]`: opens msprobe's compare
/// table (core/compare/resulttable.h) and reports it as a computed compare is reported (text,
/// JSON, msprobe's CSV/xlsx again). With --npu and --bench (the dumps the table was written
/// from) the rows link to their tensors. Exit codes as runCompareCommand; 1 when the table
/// cannot be read (the error names the file, row and column).
int runCompareTableCommand(const CompareCommand &c, const QString &npuDump, const QString &benchDump);
/// True when `path` is a file DumpScope opens as a compare table (.csv or .xlsx).
bool isCompareTablePath(const QString &path);

/// Operators of a divergence chain the text lists (one per line); the rest are counted
/// ("... and K more"): --json lists every one.
inline constexpr size_t kChainShown = 10;

// The parts below let the distributed compare (distributed.h, issue 17) write exactly what
// runCompareCommand writes from scopes compared in other processes.

/// Checks the options of `c` and loads its mapping and thresholds files into `options`; prints
/// the problem and returns the exit code (2) when one is wrong, else 0.
int compareSetup(const CompareCommand &c, CompareOptions &options, Verdict &failOn, ReportStyle &style);
/// The error text when --csv or --xlsx of `c` would be written inside the dump folder
/// `dumpRoot`, else empty.
QString reportInsideDump(const CompareCommand &c, const QString &dumpRoot);

/// What the reports keep of one compared scope once its indexes are gone.
struct ScopeOutput
{
    ScopeSummary summary;
    CompareMode mode = CompareMode::None;      ///< the columns its rows need (scopeReportMode)
    CompareMode tableMode = CompareMode::None; ///< the columns `csv` and `cells` were rendered in
    int npuOps = 0;
    bool stack = false;                        ///< its NPU dump holds call stacks (the NPU_Stack_Info column)
    QByteArray csv;                            ///< rows in `tableMode`'s columns (with --csv)
    std::vector<std::vector<MsCell>> cells;    ///< the same rows as typed cells (with --xlsx)
    QByteArray json;                           ///< compareJson of the scope (with --json)
    QString divergences, notPass;              ///< text output parts
    QStringList warnings;
    bool crossFramework = false;               ///< names paired through msprobe's MindSpore -> PyTorch table
    bool reached = false;                      ///< some row reached --fail-on
    /// `csv` moved to a ReportSpool (csvAt; -1: in memory above), and `divergences` and
    /// `notPass` (their UTF-8 bytes one after the other at textAt; -1: in memory)
    qint64 csvAt = -1, csvBytes = 0, textAt = -1, divergenceBytes = 0, notPassBytes = 0;
};

/// The CSV and text parts of the scopes compared so far, in a temporary file instead of memory
/// (issue 35, item 3: a run compare kept every scope's rows for the report): memory stays the
/// largest scope plus the summaries. writeCompareReports reads them back in scope order.
class ReportSpool
{
public:
    ReportSpool();
    ~ReportSpool();
    /// Moves `o`'s csv, divergences and notPass (those in memory) to the file (kept in memory
    /// if it cannot be written). Thread-safe (compareRuns reports scopes from several threads).
    void spill(ScopeOutput &o);
    /// Passes `bytes` bytes from `at` to `sink`, a MiB at a time; false when the file cannot be read.
    bool read(qint64 at, qint64 bytes, const std::function<void(const QByteArray &)> &sink) const;

private:
    /// Appends `parts` to the file; their offset, or -1.
    qint64 append(std::initializer_list<QByteArrayView> parts);
    mutable std::mutex m_mutex;
    std::unique_ptr<QTemporaryFile> m_file;
    qint64 m_end = 0;
};
/// One scope's rows of the msprobe table in `mode`'s columns: CSV lines (`csv`) and/or typed
/// cells (`xlsx`); sets the scope result's column set.
void renderScopeTable(ScopeCompare &s, CompareMode mode, ReportStyle style, bool csv, bool xlsx, ScopeOutput &o);
/// The text parts of one scope: its first divergences, and its rows that are not a pass.
void renderScopeText(const ScopeCompare &s, ScopeOutput &o);
/// The text report: the run answer, the counts, then every scope's divergences and rows.
QString compareText(const QString &npuPath, const QString &benchPath, const std::vector<ScopeOutput> &scopes, CompareMode mode,
                    const RunAnswer &answer);
/// Writes the CSV and .xlsx (a header in `mode`'s columns and `style`, then every scope's rows,
/// in scope order) and prints the JSON (--json) or text report of the scopes; returns the exit
/// code (0, 1 when a report cannot be written, 4 when a row reached --fail-on).
int writeCompareReports(const CompareCommand &c, const QString &npuPath, const QString &benchPath, CompareMode mode,
                        ReportStyle style, const std::vector<ScopeOutput> &outputs, CompareJsonSpool *spool = nullptr,
                        const ReportSpool *reports = nullptr);

} // namespace ds
