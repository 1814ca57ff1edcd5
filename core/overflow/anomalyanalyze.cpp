#include "anomalyanalyze.h"

#include "formats/msprobe/jsonstream.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace ds {

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

/// The strings of array node `i` (other values skipped).
QStringList strings(const msprobe::JsonTree &t, std::uint32_t i)
{
    QStringList out;
    if (!i || t.node(i).kind != msprobe::JsonNode::Array)
        return out;
    for (std::uint32_t c = t.node(i).first; c; c = t.node(c).next)
        if (t.node(c).kind == msprobe::JsonNode::String)
            out << qs(t.text(t.node(c)));
    return out;
}

} // namespace

bool isAnomalyAnalyzeName(const QString &fileName)
{
    static const QRegularExpression re(QStringLiteral("^anomaly_analyze_.*\\.json$"), QRegularExpression::CaseInsensitiveOption);
    return re.match(fileName).hasMatch();
}

Result<std::vector<MsprobeAnomaly>> parseAnomalyAnalyze(const QByteArray &text, const QString &shown)
{
    using R = Result<std::vector<MsprobeAnomaly>>;
    using msprobe::JsonNode;
    msprobe::JsonTree t;
    QString error;
    if (!msprobe::parseJsonText(text.toStdString(), t, &error))
        return R::failure(QStringLiteral("%1: not JSON (%2)").arg(shown, error));
    if (t.empty() || t.root().kind != JsonNode::Object)
        return R::failure(QStringLiteral("%1: not msprobe's overflow_check answer: expected an object of rank_N lists").arg(shown));
    std::vector<MsprobeAnomaly> out;
    for (std::uint32_t r = t.root().first; r; r = t.node(r).next) {
        const JsonNode &rank = t.node(r);
        const QString rankKey = qs(t.key(rank));
        if (rank.kind != JsonNode::Array)
            return R::failure(QStringLiteral("%1: %2 is not a list of anomalies").arg(shown, rankKey));
        for (std::uint32_t e = rank.first; e; e = t.node(e).next) {
            const std::uint32_t name = t.find(e, "op_name");
            if (!name || t.node(name).kind != JsonNode::String)
                return R::failure(QStringLiteral("%1: %2: an anomaly without op_name").arg(shown, rankKey));
            out.push_back({rankKey, qs(t.text(t.node(name))), strings(t, t.find(e, "construct_info")), strings(t, t.find(e, "stack_info"))});
        }
    }
    return out;
}

Result<std::vector<MsprobeAnomaly>> readAnomalyAnalyze(const QString &path)
{
    using R = Result<std::vector<MsprobeAnomaly>>;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return R::failure(QStringLiteral("%1: cannot open (%2)").arg(path, f.errorString()));
    constexpr qint64 kMax = qint64(256) << 20;
    if (f.size() > kMax)
        return R::failure(QStringLiteral("%1: %2 bytes, more than the %3 an overflow_check answer can hold").arg(path).arg(f.size()).arg(kMax));
    return parseAnomalyAnalyze(f.readAll(), path);
}

} // namespace ds
