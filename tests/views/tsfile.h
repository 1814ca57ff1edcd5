#pragma once
// The committed Chinese translation read as a file: a view test's expected zh_CN text comes from
// translations/dumpscope_zh_CN.ts, not from the code under test.
#include <QFile>
#include <QString>
#include <QXmlStreamReader>

/// The finished translation of `source` in `context` (empty when missing or unfinished).
inline QString tsTranslation(const QString &context, const QString &source)
{
    QFile ts(QStringLiteral(DUMPSCOPE_SOURCE_DIR "/translations/dumpscope_zh_CN.ts"));
    if (!ts.open(QIODevice::ReadOnly))
        return {};
    QXmlStreamReader xml(&ts);
    QString name, src;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement())
            continue;
        if (xml.name() == QLatin1String("name"))
            name = xml.readElementText();
        else if (xml.name() == QLatin1String("source"))
            src = xml.readElementText();
        else if (xml.name() == QLatin1String("translation") && name == context && src == source
                 && xml.attributes().value(QLatin1String("type")).isEmpty())
            return xml.readElementText();
    }
    return {};
}
