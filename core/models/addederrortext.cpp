#include "addederrortext.h"

#include "compare/compare.h"
#include "dump/dumpindex.h"

#include <QCoreApplication>
#include <QStringList>
#include <cmath>

namespace ds::AddedErrorText {

QString value(double v, bool signedValue)
{
    if (std::isnan(v))
        return QStringLiteral("?");
    const QString sign = signedValue && v > 0 ? QStringLiteral("+") : v < 0 ? QStringLiteral("\u2212") : QString();
    if (std::isinf(v))
        return sign + QStringLiteral("inf");
    return sign + QString::number(std::fabs(v), 'g', 3);
}

QString inputs(AddedInputs a)
{
    switch (a) {
    case AddedInputs::None: return QCoreApplication::translate("ds::AddedErrorText", "no inputs compared");
    case AddedInputs::Agree: return QCoreApplication::translate("ds::AddedErrorText", "its inputs agree");
    case AddedInputs::ParameterDiffers: return QCoreApplication::translate("ds::AddedErrorText", "only a parameter differs (weight, bias)");
    case AddedInputs::Differ: return QCoreApplication::translate("ds::AddedErrorText", "a data input differs");
    }
    return {};
}

QString toolTip(const DumpIndex &npu, const CompareResult &result, const AddedError &e)
{
    const auto rowName = [&](int row) {
        return row >= 0 && size_t(row) < result.rows.size() ? result.rows[size_t(row)].npuName : QString();
    };
    QStringList lines;
    lines << QCoreApplication::translate("ds::AddedErrorText", "Error added by %1: %2").arg(opMatchKey(npu.ops[size_t(e.op)]), value(e.added));
    QString out = QCoreApplication::translate("ds::AddedErrorText", "Output relative error: %1").arg(value(e.outputRelErr, false));
    if (const QString r = rowName(e.worstOutputRow); !r.isEmpty())
        out += QStringLiteral(" (%1)").arg(r);
    lines << out;
    QString in = QCoreApplication::translate("ds::AddedErrorText", "Largest input relative error: %1").arg(value(e.inputRelErr, false));
    if (const QString r = rowName(e.worstInputRow); !r.isEmpty())
        in += QStringLiteral(" (%1)").arg(r);
    lines << in;
    lines << QCoreApplication::translate("ds::AddedErrorText", "Inputs: %1 (%2)").arg(inputs(e.inputs), addedInputsName(e.inputs));
    if (e.basis == CompareMode::Summary)
        lines << QCoreApplication::translate("ds::AddedErrorText", "From the recorded norms (statistics): a lower bound of the element-wise error.");
    if (!e.known())
        lines << QCoreApplication::translate("ds::AddedErrorText", "No number: %1").arg(e.note);
    return lines.join(QLatin1Char('\n'));
}

QString explanation()
{
    return QCoreApplication::translate("ds::AddedErrorText", "Error the operator adds: the relative error of its output (||NPU \u2212 bench|| / ||bench||) minus the "
              "largest relative error of its inputs and parameters; negative: it shrinks the error it was given "
              "(docs/COMPARE.md \"Error added per operator\")");
}

} // namespace ds::AddedErrorText
