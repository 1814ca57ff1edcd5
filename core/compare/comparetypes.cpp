#include "comparetypes.h"

namespace ds {

namespace {

struct ReasonInfo
{
    const char *code, *text;
};

constexpr ReasonInfo kReasons[] = {
    {"UNMATCHED_BENCH", "No bench data matched"},
    {"NPU_ONLY", "Operator exists only on NPU"},
    {"FUSED_AWAY", "Fused into another operator; intermediate result not available"},
    {"NO_TASK", "No dump expected"},
    {"MISSING_FILE", "Data file missing"},
    {"READ_ERROR", "Read failed"},
    {"SHAPE_MISMATCH", "Shape mismatch"},
    {"FORMAT_UNCONVERTED", "Device format not converted"},
    {"DTYPE_MISMATCH", "Dtype mismatch"},
    {"EMPTY", "Empty tensor"},
    {"SCALAR_0D", "Cosine/EucDist/ratios not defined for 0-d"},
    {"LEN1", "Cosine not defined for length 1"},
    {"ALL_ZERO", "All data is zero in NPU/Bench; cosine NaN"},
    {"INF_NAN_POS", "Position of inf or nan differs"},
    {"QUANTIZED", "Quantized operator; dequantization needed"},
    {"AIPP_INPUT", "Input preprocessed by AIPP; compare unreliable"},
    {"NOT_SUPPORTED_BOOL", "Algorithm does not support Boolean"},
    {"SIZE_MISMATCH", "Data size inconsistent"},
};

} // namespace

QString reasonCodeName(ReasonCode r) { return QLatin1String(kReasons[size_t(r)].code); }

QString reasonCodeText(ReasonCode r) { return QLatin1String(kReasons[size_t(r)].text); }

QString verdictName(Verdict v)
{
    switch (v) {
    case Verdict::None: return QStringLiteral("none");
    case Verdict::Pass: return QStringLiteral("pass");
    case Verdict::Warning: return QStringLiteral("warning");
    case Verdict::Error: return QStringLiteral("error");
    }
    return {};
}

bool parseVerdict(const QString &text, Verdict &out)
{
    for (Verdict v : {Verdict::None, Verdict::Pass, Verdict::Warning, Verdict::Error})
        if (verdictName(v) == text) {
            out = v;
            return true;
        }
    return false;
}

QString matchSourceName(MatchSource s)
{
    switch (s) {
    case MatchSource::None: return {};
    case MatchSource::Exact: return QStringLiteral("exact");
    case MatchSource::Fuzzy: return QStringLiteral("fuzzy");
    case MatchSource::Mapping: return QStringLiteral("mapping");
    case MatchSource::User: return QStringLiteral("user");
    case MatchSource::Aligned: return QStringLiteral("aligned");
    }
    return {};
}

QString compareModeName(CompareMode m)
{
    switch (m) {
    case CompareMode::None: return QStringLiteral("none");
    case CompareMode::Tensor: return QStringLiteral("tensor");
    case CompareMode::Summary: return QStringLiteral("summary");
    case CompareMode::Md5: return QStringLiteral("md5");
    case CompareMode::Value: return QStringLiteral("value");
    }
    return {};
}

} // namespace ds
