#include "usermapping.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <algorithm>

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

bool isYaml(const QString &fileName)
{
    return fileName.endsWith(QLatin1String(".yaml"), Qt::CaseInsensitive)
           || fileName.endsWith(QLatin1String(".yml"), Qt::CaseInsensitive);
}

/// A YAML scalar as parseYaml reads it back: quoted when unquote() would change it or YAML
/// would not take it as a plain string.
QString yamlScalar(const QString &s)
{
    static const QString special = QStringLiteral("#-\"'&*!|>%@`[]{},?");
    if (s.isEmpty() || unquote(s) != s || special.contains(s.front()) || s.contains(QLatin1Char(':')))
        return QLatin1Char('"') + s + QLatin1Char('"');
    return s;
}

bool namesRow(const QString &name, const QString &op)
{
    return name == op || (name.size() > op.size() + 1 && name.startsWith(op) && name.at(op.size()) == QLatin1Char('.'));
}

} // namespace

void UserMapping::assign(const QStringList &npu, const QStringList &bench)
{
    if (npu.isEmpty() || bench.isEmpty())
        return;
    std::erase_if(names, [&](const auto &e) {
        return std::any_of(npu.begin(), npu.end(), [&](const QString &op) { return namesRow(e.first, op); });
    });
    std::erase_if(groups, [&](const Group &g) {
        return std::any_of(npu.begin(), npu.end(), [&](const QString &op) { return g.npu.contains(op); });
    });
    if (npu.size() == 1 && bench.size() == 1)
        names.emplace_back(npu.front(), bench.front());
    else
        groups.push_back({npu, bench});
}

void UserMapping::removeEntry(size_t i)
{
    if (i < names.size())
        names.erase(names.begin() + qsizetype(i));
    else if (i - names.size() < groups.size())
        groups.erase(groups.begin() + qsizetype(i - names.size()));
}

bool UserMapping::mentionsNpu(const QString &op) const
{
    return std::any_of(names.begin(), names.end(), [&](const auto &e) { return namesRow(e.first, op); })
           || std::any_of(groups.begin(), groups.end(), [&](const Group &g) { return g.npu.contains(op); });
}

Result<QByteArray> UserMapping::serialize(const QString &fileName) const
{
    using B = Result<QByteArray>;
    if (isYaml(fileName)) {
        if (!groups.empty())
            return B::failure(QStringLiteral("%1: YAML mapping files hold only `npu name: bench name` lines; "
                                             "save the N:M groups as JSON").arg(fileName));
        QByteArray text = "# DumpScope user mapping: NPU operator or row name: bench name\n";
        for (const auto &[n, b] : names)
            text += (yamlScalar(n) + QStringLiteral(": ") + yamlScalar(b)).toUtf8() + '\n';
        // Names holding ": " in the key, " #", line breaks or quotes on both ends of a quoted
        // scalar do not survive the line format: check by reading the text back.
        const R back = parseYaml(text, fileName);
        if (!back || back->names != names) {
            for (size_t i = 0; back && i < names.size(); ++i)
                if (i >= back->names.size() || back->names[i] != names[i])
                    return B::failure(QStringLiteral("%1: \"%2: %3\" cannot be written as a YAML line; save as JSON")
                                          .arg(fileName, names[i].first, names[i].second));
            return B::failure(QStringLiteral("%1: the mapping cannot be written as YAML; save as JSON").arg(fileName));
        }
        return text;
    }
    QJsonObject map;
    for (const auto &[n, b] : names)
        map.insert(n, b); // a repeated NPU name: the last one wins, as in matching
    QJsonArray list;
    for (const Group &g : groups)
        list.append(QJsonObject{{QStringLiteral("npu"), QJsonArray::fromStringList(g.npu)},
                                {QStringLiteral("bench"), QJsonArray::fromStringList(g.bench)}});
    return QJsonDocument(QJsonObject{{QStringLiteral("map"), map}, {QStringLiteral("groups"), list}}).toJson(QJsonDocument::Indented);
}

Result<bool> UserMapping::save(const QString &path) const
{
    const auto text = serialize(path);
    if (!text)
        return Result<bool>::failure(text.error());
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(*text) != text->size() || !f.commit())
        return Result<bool>::failure(QStringLiteral("mapping file %1: %2").arg(path, f.errorString()));
    return true;
}

R UserMapping::parse(const QByteArray &text, const QString &fileName, MappingKind kind)
{
    R r = R::failure(QString());
    if (kind == MappingKind::Flat)
        r = isYaml(fileName) ? parseYaml(text, fileName) : parseJson(text, fileName);
    else if (kind != MappingKind::Auto || isYaml(fileName)) {
        r = parseMsprobeYaml(text, fileName, kind);
        // DumpScope's own YAML writer (serialize) quotes for its line format, which is not
        // always YAML ("\"dq\"": x): text YAML refuses is read as that format when it can be
        if (!r && kind == MappingKind::Auto && r.errorText().contains(QLatin1String("not valid YAML"))) {
            R lines = parseYaml(text, fileName);
            if (lines)
                r = std::move(lines);
        }
    }
    else
        r = parseJson(text, fileName);
    if (r)
        r->fileName = fileName;
    return r;
}

R UserMapping::load(const QString &path, MappingKind kind)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return R::failure(QStringLiteral("mapping file %1: %2").arg(path, f.errorString()));
    return parse(f.readAll(), path, kind);
}

} // namespace ds
