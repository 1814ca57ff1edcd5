// compare --write-mapping: the pairing of a scope as msprobe's data_mapping YAML.
#include "mappingexport.h"

#include "comparematch.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>

namespace ds {

namespace {

/// A YAML scalar: plain when it is a name made of the characters msprobe and CANN names use
/// (PyYAML and yaml-cpp read it back as that string), else double-quoted.
QString scalar(const QString &s)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z_][A-Za-z0-9_./\\-]*$"));
    if (plain.match(s).hasMatch() && s != QLatin1String("null") && s != QLatin1String("true") && s != QLatin1String("false"))
        return s;
    QString q = s;
    q.replace(QLatin1Char('\\'), QLatin1String("\\\\")).replace(QLatin1Char('"'), QLatin1String("\\\""));
    q.replace(QLatin1Char('\n'), QLatin1String("\\n")).replace(QLatin1Char('\t'), QLatin1String("\\t"));
    return QLatin1Char('"') + q + QLatin1Char('"');
}

} // namespace

std::vector<QString> msprobeCompareEntryNames(const DumpIndex &index)
{
    std::vector<QString> out;
    out.reserve(index.ops.size());
    QHash<QString, int> backwardCount; // (scope, name without counter) -> backward entries so far
    for (const OpRecord &op : index.ops) {
        QString name = opMatchKey(op);
        QStringList parts = name.split(QLatin1Char('.'));
        const qsizetype n = parts.size();
        // "<op>.<N>.backward" (API) or "<module>.backward.<N>" (Module/Cell), as msprobe splits them
        const bool api = n > 2 && parts[n - 1] == QLatin1String("backward");
        const bool module = n > 2 && parts[n - 2] == QLatin1String("backward");
        if (api || module) {
            const QString key = scopeKey(*op.levels) + QLatin1Char('\n') + parts.mid(0, n - 2).join(QLatin1Char('.'));
            const int order = backwardCount.value(key, 0);
            backwardCount.insert(key, order + 1);
            QString &counter = api ? parts[n - 2] : parts[n - 1];
            bool digits = !counter.isEmpty();
            for (const QChar c : std::as_const(counter))
                digits = digits && c.isDigit();
            if (digits) {
                counter = QString::number(order);
                name = parts.join(QLatin1Char('.'));
            }
        }
        out.push_back(std::move(name));
    }
    return out;
}

QByteArray dataMappingYaml(const DumpIndex &bench, const CompareResult &result, const QString &about)
{
    // a row the file does not list pairs by its own name: DumpScope with the bench's row names,
    // msprobe with the bench's compare names
    const std::vector<QString> keys = msprobeCompareEntryNames(bench);
    QSet<QString> benchRows;
    for (size_t o = 0; o < bench.ops.size(); ++o) {
        const OpRecord &op = bench.ops[o];
        for (const int t : rowTensors(op)) {
            const QString tensor = tensorMatchKey(op, op.tensors[size_t(t)]);
            benchRows.insert(opMatchKey(op) + QLatin1Char('.') + tensor);
            benchRows.insert(keys[o] + QLatin1Char('.') + tensor);
        }
    }
    QString body;
    int entries = 0;
    for (const CompareRow &row : result.rows) {
        if (row.npuName.isEmpty())
            continue;
        QString target;
        if (row.bench.op >= 0) {
            const OpRecord &op = bench.op(row.bench);
            const QString tensor = QLatin1Char('.') + tensorMatchKey(op, op.tensors[size_t(row.bench.tensor)]);
            target = keys[size_t(row.bench.op)] + tensor;
            if (target == row.npuName && opMatchKey(op) + tensor == row.npuName)
                continue;
        } else if (benchRows.contains(row.npuName)) {
            target = QString(kNoCounterpart);
        } else {
            continue;
        }
        body += scalar(row.npuName) + QStringLiteral(": ") + scalar(target) + QLatin1Char('\n');
        ++entries;
    }
    QString text = QStringLiteral("# msprobe data_mapping (NPU row name: bench row name), written by dumpscope-cli compare "
                                  "--write-mapping\n"
                                  "# %1\n"
                                  "# Lists the pairs whose names differ; N/A: the NPU row pairs with no bench row. Rows not "
                                  "listed pair by their own name.\n"
                                  "# Review and edit it, then pass it to `msprobe compare -dm FILE` (one rank at a time) or "
                                  "`dumpscope-cli compare --mapping FILE`.\n")
                       .arg(about);
    text += entries == 0 ? QStringLiteral("{}\n") : body;
    return text.toUtf8();
}

} // namespace ds
