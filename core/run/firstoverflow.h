#pragma once

// The one answer to "where is the first overflow" (issue 30). Two sources report overflows:
// the OpDebug records (the hardware's overflow flag, linked to the operator whose task raised
// it) and the software scan (operators with NaN, Inf or saturated values among their tensors).
// They can name different operators, and the status bar, "First Overflow", the Overflow
// panel's star, the Runs tab and `dumpscope-cli overflow` must all give the same one:
//
//   In each scope (one step of one rank; a CANN dump's iteration of one device) the earliest
//   operator in execution order that either source names (summarizeOverflow); across the
//   scopes of a run the run-level rule (combineRun): the earliest step, inside it the earliest
//   on the communication-op clock, the lowest rank on a tie. When both sources name that
//   operator the answer says so; when they disagree it names what the other source says and
//   why that comes later (README "Overflow").
//
// Everything here works on ScopeSummary alone, so a distributed `overflow` (parts made by
// several processes, merged on rank 0) gives the same answer as one process or the GUI.

#include "overflow/overflowpart.h"
#include "runsummary.h"

#include <QByteArray>
#include <optional>
#include <vector>

namespace ds {

struct FirstOverflow
{
    enum class Source : std::uint8_t {
        Hardware, ///< an OpDebug record names it; the software scan finds nothing on it
        Software, ///< the software scan finds it; no OpDebug record names it
        Both,     ///< both sources name it
    };
    QString run;          ///< ScopeSummary::run ("" for a dump of one run)
    QString scope;        ///< scope id ("step1/rank1", "device0/iteration0", "" for a flat folder)
    QString step, rank;   ///< labels
    qint64 stepNumber = -1, rankNumber = -1;
    ScopeFinding finding; ///< the operator: op, file, record, level, reason
    Source source = Source::Software;
    /// The first of each source alone, by the same rule (null: that source has nothing).
    std::optional<ScopeFinding> hardware, software;
    QString hardwareScope, softwareScope;
    bool scanned = true;  ///< the software scan ran
    /// When the sources disagree: what the other one names and why it is not first; when they
    /// agree, that they do; empty when only one source reports anything.
    QString note;

    /// "resnet/layer2/block0/conv2/Conv2D (software scan: critical) in device0/iteration0".
    QString line() const;
    /// The `first` object of `dumpscope-cli overflow --json` (README), compact.
    QByteArray toJson() const;
    bool operator==(const FirstOverflow &) const = default;
};

/// "opdebug", "software", "both".
const char *firstOverflowSourceName(FirstOverflow::Source source);

/// The first overflow of one run from its scope summaries (summarizeOverflow) and their
/// combined answer (combineRun(scopes, RunAnswerKind::Overflow)); null when the run has none.
std::optional<FirstOverflow> firstOverflowOf(const RunAnswer &answer, const std::vector<ScopeSummary> &scopes, bool scanned);
/// The first overflow of every run among `scopes` (grouped by ScopeSummary::run, in run-name
/// order); runs without an overflow are left out.
std::vector<FirstOverflow> firstOverflows(const std::vector<ScopeSummary> &scopes, bool scanned);

/// The answers of `doc` from the scope summaries of its parts (summarizeOverflow of each part's
/// index): its first* fields, rendered. Returns the summaries as the reports use them: without
/// run names when the document holds one run (a part indexed alone names its run).
std::vector<ScopeSummary> answerOverflow(OverflowDocument &doc, std::vector<ScopeSummary> scopes);
/// One index's document with its answer, as `dumpscope-cli overflow` writes it (overflowJson /
/// overflowText of it).
OverflowDocument overflowDocument(const DumpIndex &index, const OverflowReport &report);

} // namespace ds
