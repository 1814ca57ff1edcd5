// Our own .proto schemas (core/formats/cann/dumpdata.proto, core/formats/ge/geir.proto and
// geonnx.proto) against tests/data/upstream_schemas.json, a hand-written table of the public
// upstream definitions (repository, path and commit per schema). Each schema is compiled by
// protoc into a descriptor set, and in both directions every message, field (name, number,
// type, label/oneof) and enum value must match the table, except the upstream fields and values
// the table lists as omitted and the deviations it lists with their reasons. A stale entry
// (an omission or deviation that no longer applies) fails too.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <google/protobuf/descriptor.pb.h>

#include <algorithm>
#include <functional>
#include <map>

namespace {

namespace pb = google::protobuf;

const QString kTable = QStringLiteral(DUMPSCOPE_SOURCE_DIR "/tests/data/upstream_schemas.json");

/// [name, number, type, label] as in the table.
struct Field
{
    QString name;
    int number = 0;
    QString type, label;
    bool operator==(const Field &o) const = default;
    QString text() const { return QStringLiteral("[%1, %2, %3, %4]").arg(name).arg(number).arg(type, label); }
};

struct Schema
{
    std::map<QString, std::vector<Field>> messages;      // by name relative to the package
    std::map<QString, std::map<QString, int>> enums;     // by name relative to the package
};

QString scalarName(pb::FieldDescriptorProto::Type t)
{
    using F = pb::FieldDescriptorProto;
    switch (t) {
    case F::TYPE_DOUBLE: return QStringLiteral("double");
    case F::TYPE_FLOAT: return QStringLiteral("float");
    case F::TYPE_INT64: return QStringLiteral("int64");
    case F::TYPE_UINT64: return QStringLiteral("uint64");
    case F::TYPE_INT32: return QStringLiteral("int32");
    case F::TYPE_FIXED64: return QStringLiteral("fixed64");
    case F::TYPE_FIXED32: return QStringLiteral("fixed32");
    case F::TYPE_BOOL: return QStringLiteral("bool");
    case F::TYPE_STRING: return QStringLiteral("string");
    case F::TYPE_BYTES: return QStringLiteral("bytes");
    case F::TYPE_UINT32: return QStringLiteral("uint32");
    case F::TYPE_SFIXED32: return QStringLiteral("sfixed32");
    case F::TYPE_SFIXED64: return QStringLiteral("sfixed64");
    case F::TYPE_SINT32: return QStringLiteral("sint32");
    case F::TYPE_SINT64: return QStringLiteral("sint64");
    default: return {};
    }
}

/// The facts of one compiled file, names relative to its package; map fields as map<k,v>.
Schema schemaOf(const pb::FileDescriptorProto &file)
{
    Schema s;
    const QString pkg = QLatin1Char('.') + QString::fromStdString(file.package()) + QLatin1Char('.');
    auto rel = [&](const std::string &n) {
        const QString q = QString::fromStdString(n);
        return q.startsWith(pkg) ? q.mid(pkg.size()) : q;
    };
    auto typeOf = [&](const pb::FieldDescriptorProto &f) {
        return f.type_name().empty() ? scalarName(f.type()) : rel(f.type_name());
    };
    std::function<void(const pb::DescriptorProto &, const QString &)> walk = [&](const pb::DescriptorProto &m, const QString &prefix) {
        const QString name = prefix + QString::fromStdString(m.name());
        std::map<QString, const pb::DescriptorProto *> mapEntries;
        for (const auto &n : m.nested_type())
            if (n.options().map_entry())
                mapEntries[name + QLatin1Char('.') + QString::fromStdString(n.name())] = &n;
        auto &fields = s.messages[name];
        for (const auto &f : m.field()) {
            Field x{QString::fromStdString(f.name()), f.number(), typeOf(f), QStringLiteral("optional")};
            if (const auto it = mapEntries.find(x.type); it != mapEntries.end() && it->second->field_size() == 2)
                x.type = QStringLiteral("map<%1,%2>").arg(typeOf(it->second->field(0)), typeOf(it->second->field(1)));
            if (f.label() == pb::FieldDescriptorProto::LABEL_REPEATED)
                x.label = QStringLiteral("repeated");
            else if (f.has_oneof_index())
                x.label = QStringLiteral("oneof:") + QString::fromStdString(m.oneof_decl(f.oneof_index()).name());
            fields.push_back(x);
        }
        for (const auto &e : m.enum_type())
            for (const auto &v : e.value())
                s.enums[name + QLatin1Char('.') + QString::fromStdString(e.name())][QString::fromStdString(v.name())] = v.number();
        for (const auto &n : m.nested_type())
            if (!n.options().map_entry())
                walk(n, name + QLatin1Char('.'));
    };
    for (const auto &m : file.message_type())
        walk(m, {});
    for (const auto &e : file.enum_type())
        for (const auto &v : e.value())
            s.enums[QString::fromStdString(e.name())][QString::fromStdString(v.name())] = v.number();
    return s;
}

QJsonObject table()
{
    QFile f(kTable);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(kTable));
    QJsonParseError error{};
    const auto doc = QJsonDocument::fromJson(f.readAll(), &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("%s: %s", qPrintable(kTable), qPrintable(error.errorString()));
    return doc.object();
}

Field fieldOf(const QJsonValue &v)
{
    const QJsonArray a = v.toArray();
    return {a.at(0).toString(), a.at(1).toInt(), a.at(2).toString(), a.at(3).toString()};
}

} // namespace

class TestSchemas : public QObject
{
    Q_OBJECT

private slots:
    void sourcesAreNamed();
    void schema_data();
    void schema();
};

/// Every schema cites a source with its repository, path and full commit id.
void TestSchemas::sourcesAreNamed()
{
    const QJsonObject t = table();
    const QJsonObject sources = t[QLatin1String("sources")].toObject();
    const QJsonArray schemas = t[QLatin1String("schemas")].toArray();
    QCOMPARE(schemas.size(), 3);
    static const QRegularExpression commit(QStringLiteral("^[0-9a-f]{40}$"));
    for (const auto s : schemas) {
        const QString id = s[QLatin1String("source")].toString();
        QVERIFY2(sources.contains(id), qPrintable(id));
        const QJsonObject src = sources[id].toObject();
        QVERIFY2(!src[QLatin1String("repository")].toString().isEmpty() && !src[QLatin1String("path")].toString().isEmpty(),
                 qPrintable(id));
        QVERIFY2(commit.match(src[QLatin1String("commit")].toString()).hasMatch(), qPrintable(id));
    }
}

void TestSchemas::schema_data()
{
    QTest::addColumn<QJsonObject>("entry");
    for (const auto s : table()[QLatin1String("schemas")].toArray())
        QTest::addRow("%s", qPrintable(s[QLatin1String("file")].toString())) << s.toObject();
}

void TestSchemas::schema()
{
    QFETCH(QJsonObject, entry);
    const QString file = QStringLiteral(DUMPSCOPE_SOURCE_DIR "/") + entry[QLatin1String("file")].toString();
    QVERIFY2(QFile::exists(file), qPrintable(file + QStringLiteral(" is missing (moved? update the table's \"file\")")));

    // Compile our schema as the build does.
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString out = tmp.filePath(QStringLiteral("set.pb"));
    QProcess protoc;
    protoc.start(QStringLiteral(DUMPSCOPE_PROTOC), {QStringLiteral("-I") + QFileInfo(file).absolutePath(),
                                                    QStringLiteral("--descriptor_set_out=") + out, QFileInfo(file).fileName()});
    QVERIFY(protoc.waitForFinished(60000));
    QVERIFY2(protoc.exitCode() == 0, protoc.readAllStandardError().constData());
    QFile setFile(out);
    QVERIFY(setFile.open(QIODevice::ReadOnly));
    const QByteArray bytes = setFile.readAll();
    pb::FileDescriptorSet set;
    QVERIFY(set.ParseFromArray(bytes.constData(), int(bytes.size())));
    QCOMPARE(set.file_size(), 1);
    QCOMPARE(QString::fromStdString(set.file(0).package()), entry[QLatin1String("package")].toString());
    const Schema ours = schemaOf(set.file(0));

    const QJsonObject deviations = entry[QLatin1String("deviations")].toObject();
    const QJsonObject typeDeviations = deviations[QLatin1String("types")].toObject();
    const QJsonObject renamed = deviations[QLatin1String("renamed_types")].toObject();
    const QJsonObject oursOnly = deviations[QLatin1String("ours_only")].toObject();
    QStringList problems;
    int facts = 0;
    QSet<QString> usedDeviations;

    // Messages: every message of the table exists in ours with the upstream fields (or their
    // omission), every field of ours is upstream (or listed as ours only).
    const QJsonObject messages = entry[QLatin1String("messages")].toObject();
    for (auto it = messages.begin(); it != messages.end(); ++it) {
        const QString name = it.key();
        const QJsonObject m = it.value().toObject();
        const QJsonObject omitted = m[QLatin1String("omitted")].toObject();
        const auto found = ours.messages.find(name);
        if (found == ours.messages.end()) {
            problems << QStringLiteral("message %1: in the table, not in our schema").arg(name);
            continue;
        }
        const std::vector<Field> &mine = found->second;
        QSet<QString> upstreamNames;
        for (const auto v : m[QLatin1String("fields")].toArray()) {
            const Field up = fieldOf(v);
            upstreamNames << up.name;
            ++facts;
            const auto same = std::find_if(mine.begin(), mine.end(), [&](const Field &f) { return f.name == up.name; });
            const auto sameNumber = std::find_if(mine.begin(), mine.end(), [&](const Field &f) { return f.number == up.number; });
            if (omitted.contains(up.name)) {
                if (same != mine.end() || sameNumber != mine.end())
                    problems << QStringLiteral("%1.%2: listed as omitted, but our schema has %3")
                                    .arg(name, up.name, (same != mine.end() ? same : sameNumber)->text());
                continue;
            }
            if (same == mine.end()) {
                problems << QStringLiteral("%1.%2: upstream %3, missing in our schema").arg(name, up.name, up.text());
                continue;
            }
            // Our type under its upstream name (renamed types), the upstream type as we declare
            // it on purpose (type deviations).
            Field mineAsUpstream = *same;
            if (renamed.contains(mineAsUpstream.type)) {
                usedDeviations << QStringLiteral("renamed:") + mineAsUpstream.type;
                mineAsUpstream.type = renamed[mineAsUpstream.type].toArray().at(0).toString();
            }
            Field want = up;
            if (const QString key = name + QLatin1Char('.') + up.name; typeDeviations.contains(key)) {
                usedDeviations << QStringLiteral("types:") + key;
                want.type = typeDeviations[key].toArray().at(0).toString();
            }
            if (!(mineAsUpstream == want))
                problems << QStringLiteral("%1.%2: ours %3, upstream %4").arg(name, up.name, same->text(), up.text());
        }
        for (auto o = omitted.begin(); o != omitted.end(); ++o)
            if (!upstreamNames.contains(o.key()))
                problems << QStringLiteral("%1.%2: listed as omitted but not an upstream field").arg(name, o.key());
        for (const Field &f : mine) {
            if (upstreamNames.contains(f.name))
                continue;
            const QString key = name + QLatin1Char('.') + f.name;
            if (oursOnly.contains(key) && fieldOf(oursOnly[key].toArray().at(0)) == f)
                usedDeviations << QStringLiteral("ours:") + key;
            else
                problems << QStringLiteral("%1.%2: ours %3, not upstream").arg(name, f.name, f.text());
        }
    }
    for (const auto &[name, fields] : ours.messages)
        if (!messages.contains(name))
            problems << QStringLiteral("message %1: in our schema, not in the table").arg(name);

    // Enums, by upstream name (renamed ones mapped).
    const QJsonObject enums = entry[QLatin1String("enums")].toObject();
    std::map<QString, QString> upstreamEnumName;
    for (const auto &[name, values] : ours.enums)
        upstreamEnumName[name] = renamed.contains(name) ? renamed[name].toArray().at(0).toString() : name;
    for (const auto &[name, values] : ours.enums) {
        const QString up = upstreamEnumName[name];
        if (!enums.contains(up)) {
            problems << QStringLiteral("enum %1: in our schema, not in the table").arg(name);
            continue;
        }
        if (up != name)
            usedDeviations << QStringLiteral("renamed:") + name;
        const QJsonObject e = enums[up].toObject();
        const QJsonObject omitted = e[QLatin1String("omitted")].toObject();
        std::map<QString, int> upstream;
        for (const auto v : e[QLatin1String("values")].toArray())
            upstream[v.toArray().at(0).toString()] = v.toArray().at(1).toInt();
        for (const auto &[valueName, number] : upstream) {
            ++facts;
            const auto mine = values.find(valueName);
            if (omitted.contains(valueName)) {
                if (mine != values.end())
                    problems << QStringLiteral("%1.%2: listed as omitted, but our schema has it").arg(name, valueName);
                continue;
            }
            if (mine == values.end())
                problems << QStringLiteral("%1.%2 = %3: upstream, missing in our schema").arg(name, valueName).arg(number);
            else if (mine->second != number)
                problems << QStringLiteral("%1.%2: ours %3, upstream %4").arg(name, valueName).arg(mine->second).arg(number);
        }
        for (const auto &[valueName, number] : values)
            if (!upstream.count(valueName))
                problems << QStringLiteral("%1.%2 = %3: ours, not upstream").arg(name, valueName).arg(number);
        for (auto o = omitted.begin(); o != omitted.end(); ++o)
            if (!upstream.count(o.key()))
                problems << QStringLiteral("%1.%2: listed as omitted but not an upstream value").arg(name, o.key());
    }
    for (auto it = enums.begin(); it != enums.end(); ++it) {
        bool declared = false;
        for (const auto &[name, up] : upstreamEnumName)
            declared |= up == it.key();
        if (!declared)
            problems << QStringLiteral("enum %1: in the table, not in our schema").arg(it.key());
    }

    // Every deviation is still needed and gives its reason.
    for (auto it = typeDeviations.begin(); it != typeDeviations.end(); ++it)
        if (!usedDeviations.contains(QStringLiteral("types:") + it.key()))
            problems << QStringLiteral("type deviation %1 applies to nothing").arg(it.key());
    for (auto it = renamed.begin(); it != renamed.end(); ++it)
        if (!usedDeviations.contains(QStringLiteral("renamed:") + it.key()))
            problems << QStringLiteral("renamed type %1 applies to nothing").arg(it.key());
    for (auto it = oursOnly.begin(); it != oursOnly.end(); ++it)
        if (!usedDeviations.contains(QStringLiteral("ours:") + it.key()))
            problems << QStringLiteral("ours-only field %1 applies to nothing").arg(it.key());
    for (const QJsonObject *d : {&typeDeviations, &renamed, &oursOnly})
        for (auto it = d->begin(); it != d->end(); ++it)
            if (it.value().toArray().at(1).toString().size() < 20)
                problems << QStringLiteral("deviation %1 gives no reason").arg(it.key());

    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    // A table emptied by mistake cannot pass: at least the facts of the smallest schema.
    QVERIFY2(facts >= 40, qPrintable(QString::number(facts)));
    qInfo("%s: %d upstream facts checked", qPrintable(entry[QLatin1String("file")].toString()), facts);
}

QTEST_GUILESS_MAIN(TestSchemas)
#include "tst_schemas.moc"
