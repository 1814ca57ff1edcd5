#pragma once

#include <QString>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ds {

/// Why a row is not (fully) comparable (compare.md §11).
enum class ReasonCode : std::uint8_t {
    UnmatchedBench, NpuOnly, FusedAway, NoTask, MissingFile, ReadError, ShapeMismatch,
    FormatUnconverted, DtypeMismatch, Empty, Scalar0d, Len1, AllZero, InfNanPos, Quantized,
    AippInput, NotSupportedBool, SizeMismatch,
};
/// "UNMATCHED_BENCH", "SHAPE_MISMATCH", ... (the spec's codes).
QString reasonCodeName(ReasonCode r);
/// The English text of §11 ("No bench data matched", ...).
QString reasonCodeText(ReasonCode r);

/// DumpScope's own verdict. None: nothing was compared (unmatched, missing data, empty).
enum class Verdict : std::uint8_t { None, Pass, Warning, Error };
QString verdictName(Verdict v); ///< "none", "pass", "warning", "error"
/// Parses verdictName(); false for other text.
bool parseVerdict(const QString &text, Verdict &out);

/// How the bench side of a row was found (§10.4).
enum class MatchSource : std::uint8_t { None, Exact, Fuzzy, Mapping, User, Aligned };
QString matchSourceName(MatchSource s); ///< "", "exact", "fuzzy", "mapping", "user", "aligned"

/// What a row compares (§1): the tensors, recorded statistics, checksums or leaf values.
enum class CompareMode : std::uint8_t { None, Tensor, Summary, Md5, Value };
QString compareModeName(CompareMode m); ///< "none", "tensor", "summary", "md5", "value"

/// One metric cell: a number, or one of msprobe's placeholder strings.
struct MetricValue
{
    enum class State : std::uint8_t {
        Value,          ///< value holds the number
        Nan,            ///< "Nan" (undefined, e.g. cosine of an all-zero side)
        Unsupported,    ///< "unsupported" (no data, 0-d, length 1)
        NotAvailable,   ///< "N/A" (unmatched, Inf/NaN positions differ)
        ShapeUnmatched, ///< "shape unmatched"
    };
    double value = std::numeric_limits<double>::quiet_NaN();
    State state = State::NotAvailable;

    static MetricValue of(double v) { return {v, std::isnan(v) ? State::Nan : State::Value}; }
    static MetricValue of(State s) { return {std::numeric_limits<double>::quiet_NaN(), s}; }
    bool isNumber() const { return state == State::Value; }
    bool operator==(const MetricValue &o) const
    {
        return state == o.state && (state != State::Value || value == o.value);
    }
};

} // namespace ds
