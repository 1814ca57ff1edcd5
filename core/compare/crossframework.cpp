#include "crossframework.h"

#include "tensor/dtype.h"

#include <QFile>
#include <QHash>

#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace ds {

namespace {

/// The built-in table: "Functional.dense" -> "Functional.linear".
const QHash<QString, QString> &msToPtTable()
{
    static const QHash<QString, QString> table = [] {
        QHash<QString, QString> t;
        QFile f(QStringLiteral(":/dumpscope/ms_to_pt_api.yaml"));
        if (!f.open(QIODevice::ReadOnly))
            return t;
        try {
            const YAML::Node root = YAML::Load(f.readAll().toStdString());
            for (const auto &e : root)
                t.insert(QString::fromStdString(e.first.as<std::string>()), QString::fromStdString(e.second.as<std::string>()));
        } catch (const YAML::Exception &) {
            t.clear();
        }
        return t;
    }();
    return table;
}

} // namespace

QStringList producerFrameworks(const DumpIndex &index)
{
    return index.producerFrameworks;
}

bool isCrossFramework(const DumpIndex &npu, const DumpIndex &bench)
{
    static const QString pt = QStringLiteral("pytorch");
    if (bench.producerFrameworks != QStringList{pt} || npu.producerFrameworks.isEmpty())
        return false;
    return std::all_of(npu.producerFrameworks.begin(), npu.producerFrameworks.end(), [](const QString &f) {
        return f == QLatin1String("mindspore") || f == QLatin1String("mindtorch");
    });
}

bool hashesAfterFloat32Cast(const DumpIndex &index)
{
    return std::any_of(index.producerFrameworks.begin(), index.producerFrameworks.end(), [](const QString &f) {
        return f == QLatin1String("mindspore") || f == QLatin1String("mindtorch");
    });
}

bool castBeforeHash(int dataType)
{
    switch (DataType(dataType)) {
    case DataType::BFloat16: // convert_bf16_to_fp32
    case DataType::Float8E5M2: // MsConst.FP8_TYPE_LIST: cast_to_float_if_fp8
    case DataType::Float8E4M3FN:
    case DataType::HiFloat8: return true;
    default: return false;
    }
}

QString msToPtEntryName(const QString &entry)
{
    const qsizetype first = entry.indexOf(QLatin1Char('.'));
    if (first <= 0)
        return entry; // msprobe's get_api_name needs two tokens
    const qsizetype second = entry.indexOf(QLatin1Char('.'), first + 1);
    const QString api = second < 0 ? entry : entry.left(second);
    const QStringView type = QStringView(entry).left(first);
    QString out = entry;
    if (type == QLatin1String("Mint"))
        return out.replace(QStringLiteral("Mint"), QStringLiteral("Torch"));
    if (type == QLatin1String("MintFunctional"))
        return out.replace(QStringLiteral("MintFunctional"), QStringLiteral("Functional"));
    const auto it = msToPtTable().constFind(api);
    if (it != msToPtTable().cend() && !it->isEmpty())
        return out.replace(api, *it);
    return entry;
}

int msToPtTableSize()
{
    return int(msToPtTable().size());
}

QString crossDtypeKind(const QString &dtype)
{
    static const QHash<QString, QString> kinds = [] {
        QHash<QString, QString> k;
        for (const char *t : {"Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64"}) {
            k.insert(QLatin1String(t), QStringLiteral("int"));
            k.insert(QStringLiteral("torch.") + QString::fromLatin1(t).toLower(), QStringLiteral("int"));
        }
        for (const char *t : {"Float16", "Float32", "Float64", "BFloat16"}) {
            k.insert(QLatin1String(t), QStringLiteral("float"));
            k.insert(QStringLiteral("torch.") + QString::fromLatin1(t).toLower(), QStringLiteral("float"));
        }
        k.insert(QStringLiteral("Bool"), QStringLiteral("bool"));
        k.insert(QStringLiteral("torch.bool"), QStringLiteral("bool"));
        for (const char *t : {"Complex64", "Complex128"}) {
            k.insert(QLatin1String(t), QStringLiteral("complex"));
            k.insert(QStringLiteral("torch.") + QString::fromLatin1(t).toLower(), QStringLiteral("complex"));
        }
        return k;
    }();
    return kinds.value(dtype, dtype);
}

} // namespace ds
