#pragma once

#include "util/error.h"

#include <QJsonObject>
#include <QString>

namespace ds {

/// Every threshold of compare.md as a named, editable value (§13). The defaults are the
/// spec's: msprobe "Accuracy Reached or Not" (§4), the msaccucmp "normal" profile (§9), the
/// msprobe highlight rules (§7) and the summary warning (§5). Saved with a GUI session.
struct CompareThresholds
{
    QString profile = QStringLiteral("dumpscope");

    // §4 Accuracy Reached or Not: No if (cos < accCosine and MaxAbsErr > accMaxAbs),
    // cos < accCosineHard or MaxAbsErr > accMaxAbsHard.
    double accCosine = 0.99, accMaxAbs = 0.001, accCosineHard = 0.9, accMaxAbsHard = 1.0;

    // §9 msaccucmp "normal": a row crossing any of these is flagged (a warning in DumpScope).
    double cosineMin = 0.99, relEuclidMax = 0.05, klMax = 0.005, rmseMax = 1.0, meanRelErrMax = 1.0;

    // §7 highlight rules.
    double redMaxAbs = 1e10;        ///< R2: |MaxAbsErr| above this is an error
    double redInputRatio = 0.9;     ///< R3: an input One Thousandth ratio above this ...
    double redOutputRatio = 0.6;    ///< ... and an output ratio below this is an error
    double yellowGrowth = 10;       ///< Y1: output MaxAbsErr >= this × input (both > 1)
    double yellowRatioDrop = 0.1;   ///< Y2: input − output One Thousandth ratio above this
    double yellowCosineDrop = 0.1;  ///< Y4: input − output cosine above this
    double summaryRedRelErr = 0.5;  ///< R4: summary output Max relative error (fraction) above this

    // §5 summary mode: |diff| / (|max(N, B)| + 1e-10) above this for any statistic warns.
    double summaryWarning = 0.5;
    // Summary mode, DumpScope: an operator whose inputs are identical on both sides and one of
    // whose output statistics differs by more than this (|N - B| / max(|N|, |B|)) warns: the
    // operator itself makes the difference (a communication op receiving another rank's value).
    double summaryNewDiff = 0.01;

    bool operator==(const CompareThresholds &) const = default;

    QJsonObject toJson() const;
    /// Missing keys keep their defaults; a key with a non-number value is an error.
    static Result<CompareThresholds> fromJson(const QJsonObject &o);
    static Result<CompareThresholds> load(const QString &path);
    /// Atomic write (QSaveFile); returns an error message, empty on success.
    QString save(const QString &path) const;
};

} // namespace ds
