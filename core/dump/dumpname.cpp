#include "dumpname.h"

#include <QRegularExpression>
#include <QStringList>

namespace ds::cann {

namespace {

bool allDigits(QStringView s)
{
    if (s.isEmpty())
        return false;
    for (QChar c : s)
        if (c < QLatin1Char('0') || c > QLatin1Char('9'))
            return false;
    return true;
}

} // namespace

bool isNumericName(const QString &baseName) { return allDigits(baseName); }

QString sanitizeName(QString name)
{
    for (QChar &c : name)
        if (c == QLatin1Char('.') || c == QLatin1Char('/') || c == QLatin1Char('\\') || c == QLatin1Char(' '))
            c = QLatin1Char('_');
    return name;
}

std::optional<DumpName> parseDumpName(const QString &baseName)
{
    DumpName out;
    QString name = baseName;
    if (name.endsWith(QLatin1String(".csv"))) {
        out.statsCsv = true;
        name.chop(4);
    }
    static const QRegularExpression conversion(
        QStringLiteral("\\.(input|output)\\.[0-9]+(\\..*)?\\.(npy|json|bin|txt)$"));
    if (const auto m = conversion.match(name); m.hasMatch()) {
        out.converted = true;
        name.truncate(m.capturedStart());
    }
    const QStringList tok = name.split(QLatin1Char('.'));
    if (tok.size() < 3)
        return std::nullopt;
    // Right-most 16-digit token at index >= 2 is the timestamp.
    qsizetype t = -1;
    for (qsizetype i = tok.size() - 1; i >= 2; --i)
        if (tok[i].size() == 16 && allDigits(tok[i])) {
            t = i;
            break;
        }
    if (t < 0) {
        for (qsizetype i = tok.size() - 1; i >= 2; --i)
            if (tok[i].size() >= 13 && tok[i].size() <= 19 && allDigits(tok[i])) {
                t = i;
                out.warning = QStringLiteral("timestamp is not 16 digits");
                break;
            }
    }
    if (t < 0)
        return std::nullopt;
    bool ok = false;
    out.timestamp = tok[t].toULongLong(&ok);
    if (!ok)
        return std::nullopt;

    const qsizetype after = tok.size() - 1 - t;
    for (qsizetype i = t + 1; i < tok.size(); ++i)
        if (!allDigits(tok[i]))
            return std::nullopt;
    if (after == 4) {
        out.ffts = true;
        out.taskType = tok[t + 1].toInt();
        out.contextId = tok[t + 2].toInt();
        out.threadId = tok[t + 3].toInt();
        out.deviceId = tok[t + 4].toInt();
    } else if (after != 0) {
        out.warning = QStringLiteral("%1 unexpected numeric fields after the timestamp").arg(after);
    }

    // Up to two numeric tokens before the timestamp, never consuming tok[0] or tok[1].
    qsizetype firstNumeric = t;
    while (firstNumeric - 1 >= 2 && t - (firstNumeric - 1) <= 2 && allDigits(tok[firstNumeric - 1]))
        --firstNumeric;
    const qsizetype ids = t - firstNumeric;
    if (ids == 2) {
        out.taskId = tok[firstNumeric].toLongLong();
        out.streamId = tok[firstNumeric + 1].toLongLong();
    } else if (ids == 1) {
        out.taskId = tok[firstNumeric].toLongLong();
    }
    out.opType = tok[0];
    out.opName = tok.mid(1, firstNumeric - 1).join(QLatin1Char('.'));
    if (out.opType.isEmpty() || out.opName.isEmpty())
        return std::nullopt;
    out.opDebug = out.opType.compare(QLatin1String("opdebug"), Qt::CaseInsensitive) == 0
                  && out.opName.compare(QLatin1String("node_opdebug"), Qt::CaseInsensitive) == 0;
    return out;
}

} // namespace ds::cann
