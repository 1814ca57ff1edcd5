#include "comparethresholds.h"

#include <QFile>
#include <QJsonDocument>
#include <QSaveFile>

#include <utility>

namespace ds {

namespace {

/// The numeric fields with their JSON names, for both directions.
template<typename T, typename Fn>
void forEachField(T &t, Fn &&fn)
{
    const std::pair<const char *, decltype(&t.accCosine)> fields[] = {
        {"acc_cosine", &t.accCosine}, {"acc_max_abs", &t.accMaxAbs},
        {"acc_cosine_hard", &t.accCosineHard}, {"acc_max_abs_hard", &t.accMaxAbsHard},
        {"cosine_min", &t.cosineMin}, {"rel_euclid_max", &t.relEuclidMax}, {"kl_max", &t.klMax},
        {"rmse_max", &t.rmseMax}, {"mean_rel_err_max", &t.meanRelErrMax},
        {"red_max_abs", &t.redMaxAbs}, {"red_input_ratio", &t.redInputRatio},
        {"red_output_ratio", &t.redOutputRatio}, {"yellow_growth", &t.yellowGrowth},
        {"yellow_ratio_drop", &t.yellowRatioDrop}, {"yellow_cosine_drop", &t.yellowCosineDrop},
        {"summary_red_rel_err", &t.summaryRedRelErr}, {"summary_warning", &t.summaryWarning},
        {"summary_new_diff", &t.summaryNewDiff},
    };
    for (const auto &[name, ptr] : fields)
        fn(QLatin1String(name), *ptr);
}

} // namespace

QJsonObject CompareThresholds::toJson() const
{
    QJsonObject o{{QStringLiteral("profile"), profile}};
    forEachField(*this, [&](QLatin1String name, const double &v) { o.insert(name, v); });
    return o;
}

Result<CompareThresholds> CompareThresholds::fromJson(const QJsonObject &o)
{
    CompareThresholds t;
    QString error;
    if (o.contains(QLatin1String("profile")))
        t.profile = o.value(QLatin1String("profile")).toString();
    forEachField(t, [&](QLatin1String name, double &v) {
        if (!o.contains(name))
            return;
        if (!o.value(name).isDouble() && error.isEmpty())
            error = QStringLiteral("threshold \"%1\" is not a number").arg(name);
        else
            v = o.value(name).toDouble();
    });
    if (!error.isEmpty())
        return Result<CompareThresholds>::failure(error);
    return t;
}

Result<CompareThresholds> CompareThresholds::load(const QString &path)
{
    using R = Result<CompareThresholds>;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return R::failure(QStringLiteral("%1: %2").arg(path, f.errorString()));
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject())
        return R::failure(QStringLiteral("%1: not a JSON object (%2 at offset %3)").arg(path, pe.errorString()).arg(pe.offset));
    auto t = fromJson(doc.object());
    if (!t)
        return R::failure(t.error().about(path));
    return t;
}

QString CompareThresholds::save(const QString &path) const
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return QStringLiteral("%1: %2").arg(path, f.errorString());
    f.write(QJsonDocument(toJson()).toJson());
    if (!f.commit())
        return QStringLiteral("%1: %2").arg(path, f.errorString());
    return {};
}

} // namespace ds
