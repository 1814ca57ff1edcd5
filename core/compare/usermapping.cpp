#include "usermapping.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace ds {

namespace {

using R = Result<UserMapping>;

QString unquote(QString s)
{
    s = s.trimmed();
    if (s.size() >= 2 && (s.front() == QLatin1Char('"') || s.front() == QLatin1Char('\'')) && s.back() == s.front())
        s = s.mid(1, s.size() - 2);
    return s;
}

R parseYaml(const QByteArray &text, const QString &fileName)
{
    UserMapping m;
    const QStringList lines = QString::fromUtf8(text).split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < lines.size(); ++i) {
        QString line = lines[i];
        if (line.trimmed().startsWith(QLatin1Char('#')) || line.trimmed().isEmpty() || line.trimmed() == QLatin1String("---"))
            continue;
        const qsizetype hash = line.indexOf(QLatin1String(" #"));
        if (hash >= 0)
            line.truncate(hash);
        // names hold no ": " (msprobe names use '.', CANN names '/'), so split at the first one
        const qsizetype colon = line.indexOf(QLatin1String(": "));
        const QString npu = colon > 0 ? unquote(line.left(colon)) : QString();
        const QString bench = colon > 0 ? unquote(line.mid(colon + 2)) : QString();
        if (npu.isEmpty() || bench.isEmpty() || line.startsWith(QLatin1Char(' ')) || line.startsWith(QLatin1Char('-')))
            return R::failure(QStringLiteral("%1:%2: expected `npu name: bench name` (only that YAML subset is read)")
                                  .arg(fileName).arg(i + 1));
        m.names.emplace_back(npu, bench);
    }
    return m;
}

QStringList stringList(const QJsonValue &v)
{
    QStringList out;
    if (v.isString())
        out << v.toString();
    for (const auto &e : v.toArray())
        out << e.toString();
    out.removeAll(QString());
    return out;
}

R parseJson(const QByteArray &text, const QString &fileName)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &pe);
    if (pe.error != QJsonParseError::NoError)
        return R::failure(QStringLiteral("%1: invalid JSON: %2 at offset %3").arg(fileName, pe.errorString()).arg(pe.offset));
    UserMapping m;
    auto bad = [&](const QString &what) { return R::failure(QStringLiteral("%1: %2").arg(fileName, what)); };
    if (doc.isArray()) {
        for (const auto &e : doc.array()) {
            const QJsonObject o = e.toObject();
            const QString npu = o.value(QLatin1String("npu_key")).toString(), bench = o.value(QLatin1String("bench_key")).toString();
            if (npu.isEmpty() || bench.isEmpty())
                return bad(QStringLiteral("every array entry needs string \"npu_key\" and \"bench_key\""));
            m.names.emplace_back(npu, bench);
        }
        return m;
    }
    const QJsonObject root = doc.object();
    const bool structured = root.contains(QLatin1String("map")) || root.contains(QLatin1String("groups"));
    const QJsonObject map = structured ? root.value(QLatin1String("map")).toObject() : root;
    for (auto it = map.begin(); it != map.end(); ++it) {
        if (structured || it.key() != QLatin1String("version")) {
            if (!it.value().isString() || it.value().toString().isEmpty())
                return bad(QStringLiteral("the value of \"%1\" is not a bench name").arg(it.key()));
            m.names.emplace_back(it.key(), it.value().toString());
        }
    }
    for (const auto &g : root.value(QLatin1String("groups")).toArray()) {
        UserMapping::Group group{stringList(g.toObject().value(QLatin1String("npu"))),
                                 stringList(g.toObject().value(QLatin1String("bench")))};
        if (group.npu.isEmpty() || group.bench.isEmpty())
            return bad(QStringLiteral("every group needs non-empty \"npu\" and \"bench\" name lists"));
        m.groups.push_back(std::move(group));
    }
    return m;
}

} // namespace

R UserMapping::parse(const QByteArray &text, const QString &fileName)
{
    const bool yaml = fileName.endsWith(QLatin1String(".yaml"), Qt::CaseInsensitive)
                      || fileName.endsWith(QLatin1String(".yml"), Qt::CaseInsensitive);
    return yaml ? parseYaml(text, fileName) : parseJson(text, fileName);
}

R UserMapping::load(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return R::failure(QStringLiteral("mapping file %1: %2").arg(path, f.errorString()));
    return parse(f.readAll(), path);
}

} // namespace ds
