#include "gegraphreader.h"

#include "formats/ge/geconvert.h"
#include "formats/ge/geir.pb.h"
#include "formats/ge/geonnx.pb.h"
#include "formats/ge/getextfastparser.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <google/protobuf/arena.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <memory>
#include <string_view>

namespace ds::ge {

namespace pb = dumpscope::ge;
namespace ox = dumpscope::onnx;

namespace {

using detail::num;
using detail::qs;

/// Collects the parser's messages: warnings (unknown fields) are counted, errors kept.
class CountingCollector : public google::protobuf::io::ErrorCollector
{
public:
    void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string &message) override
    {
        if (m_errorLine < 0) {
            m_errorLine = line + 1;
            m_errorColumn = column + 1;
            m_error = qs(message);
        }
    }
    void AddWarning(int line, google::protobuf::io::ColumnNumber column, const std::string &message) override
    {
        ++m_warnings;
        if (m_messages.size() < 50)
            m_messages << QStringLiteral("line %1:%2: %3").arg(line + 1).arg(column + 1).arg(qs(message));
    }
    int m_warnings = 0;
    QStringList m_messages;
    int m_errorLine = -1, m_errorColumn = -1;
    QString m_error;
};

struct ParseOutcome
{
    int warnings = 0;
    QStringList messages;
};

/// Deepest `{` / `<` / `[` nesting accepted (real GE dumps nest a few levels). The text parser
/// recurses once per nested message or list, known or skipped as unknown, and skipping has no
/// depth limit, so deeper input would overflow the stack: it is refused before parsing.
constexpr int kMaxNesting = 100;

/// Finds where the nesting (outside strings and comments) first exceeds kMaxNesting.
bool nestingTooDeep(const QByteArray &text, int *line, int *column)
{
    int depth = 0, ln = 1, col = 0;
    char quote = 0;
    bool comment = false, escaped = false;
    for (const char c : text) {
        ++col;
        if (c == '\n') { // strings and comments end at the line end
            ++ln;
            col = 0;
            comment = false;
            quote = 0;
            continue;
        }
        if (comment)
            continue;
        if (quote) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == quote)
                quote = 0;
            continue;
        }
        if (c == '#') {
            comment = true;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '{' || c == '<' || c == '[') { // `[` nests lists of (skipped) values
            if (++depth > kMaxNesting) {
                *line = ln;
                *column = col;
                return true;
            }
        } else if (c == '}' || c == '>' || c == ']') {
            --depth; // unbalanced input is the parser's to report
        }
    }
    return false;
}

/// Runs the text-format parser. Unknown enum names (newer data types) cannot be tolerated by
/// the parser itself, so they are replaced by unused numbers and the parse is retried;
/// `unknownEnums` maps those numbers back to the names.
template<typename Message>
Result<ParseOutcome> parseText(const QByteArray &text, const QString &fileLabel, Message *message,
                                    QHash<int, QString> *unknownEnums)
{
    static const QRegularExpression unknownEnum(QStringLiteral("^Unknown enumeration value of \"([A-Za-z0-9_]+)\""));
    if (int line = 0, column = 0; nestingTooDeep(text, &line, &column))
        return Result<ParseOutcome>::failure(
            QStringLiteral("%1:%2:%3: messages nested deeper than %4 levels").arg(fileLabel).arg(line).arg(column).arg(kMaxNesting));
    QByteArray work = text;
    for (int attempt = 0;; ++attempt) {
        CountingCollector collector;
        google::protobuf::TextFormat::Parser parser;
        parser.AllowUnknownField(true);
        parser.AllowUnknownExtension(true);
        parser.AllowPartialMessage(true);
        parser.RecordErrorsTo(&collector);
        message->Clear();
        google::protobuf::io::ArrayInputStream in(work.constData(), int(work.size()));
        if (parser.Parse(&in, message))
            return ParseOutcome{collector.m_warnings, collector.m_messages};
        const auto m = unknownEnum.match(collector.m_error);
        if (!m.hasMatch() || attempt >= 64 || !unknownEnums) {
            return Result<ParseOutcome>::failure(
                QStringLiteral("%1:%2:%3: %4").arg(fileLabel).arg(collector.m_errorLine).arg(collector.m_errorColumn).arg(collector.m_error));
        }
        // Replace `: NAME` (a field value, never text inside quotes) by a private number.
        const QByteArray name = m.captured(1).toUtf8();
        const int value = 100000 + int(unknownEnums->size());
        unknownEnums->insert(value, m.captured(1));
        QByteArray replaced;
        replaced.reserve(work.size());
        qsizetype from = 0;
        for (qsizetype at = work.indexOf(name); at >= 0; at = work.indexOf(name, at + name.size())) {
            qsizetype before = at - 1;
            while (before >= 0 && (work[before] == ' ' || work[before] == '\t'))
                --before;
            const qsizetype end = at + name.size();
            const bool wordEnd = end >= work.size() || !(std::isalnum(uchar(work[end])) || work[end] == '_');
            if (before >= 0 && work[before] == ':' && wordEnd) {
                replaced += work.mid(from, at - from);
                replaced += QByteArray::number(value);
                from = end;
            }
        }
        replaced += work.mid(from);
        if (replaced == work)
            return Result<ParseOutcome>::failure(
                QStringLiteral("%1:%2:%3: %4").arg(fileLabel).arg(collector.m_errorLine).arg(collector.m_errorColumn).arg(collector.m_error));
        work = std::move(replaced);
    }
}


QString fileLabelOf(const QString &path) { return QFileInfo(path).fileName(); }

} // namespace

std::optional<GraphFileName> parseGraphFileName(const QString &fileName)
{
    static const QRegularExpression re(QStringLiteral("^ge_(proto|onnx)_(\\d+)_(?:graph_(\\d+)_)?(.+)\\.(txt|pbtxt)$"));
    const auto m = re.match(fileName);
    if (!m.hasMatch())
        return std::nullopt;
    GraphFileName n;
    n.kind = m.captured(1) == QLatin1String("onnx") ? GraphFileKind::GeOnnx : GraphFileKind::GeProto;
    n.index = m.captured(2).toLongLong();
    n.indexDigits = int(m.captured(2).size());
    n.graphId = m.captured(3);
    n.suffix = m.captured(4);
    n.extension = m.captured(5);
    return n;
}

QStringList findGraphFiles(const QString &path)
{
    const QFileInfo info(path);
    if (info.isFile() && parseGraphFileName(info.fileName()))
        return {info.absoluteFilePath()};
    const QStringList filters{QStringLiteral("ge_proto_*"), QStringLiteral("ge_onnx_*")};
    auto collect = [&](const QString &dir, bool recursive) {
        QStringList files;
        QDirIterator it(dir, filters, QDir::Files, recursive ? QDirIterator::Subdirectories : QDirIterator::NoIteratorFlags);
        while (it.hasNext()) {
            const QString f = it.next();
            if (parseGraphFileName(QFileInfo(f).fileName()))
                files << QFileInfo(f).absoluteFilePath();
        }
        return files;
    };
    const QString dir = info.isDir() ? info.absoluteFilePath() : info.absolutePath();
    QStringList files = collect(dir, true);
    if (files.isEmpty()) {
        // Next to the opened directory: its parent and the parent's {pid}_{deviceid} folders.
        // Next to the opened directory: its parent, the parent's other sub-directories and
        // their {pid}_{deviceid} folders (e.g. dump/ opened, graphs in ../dump_graph/123_0/).
        const QDir parent = QFileInfo(dir).dir();
        if (parent.absolutePath() != dir) {
            files = collect(parent.absolutePath(), false);
            static const QRegularExpression pidDev(QStringLiteral("^\\d+_\\d+$"));
            for (const QString &sub : parent.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
                const QString subPath = parent.absoluteFilePath(sub);
                if (subPath == dir)
                    continue;
                files += collect(subPath, false);
                for (const QString &sub2 : QDir(subPath).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
                    if (pidDev.match(sub2).hasMatch())
                        files += collect(subPath + QLatin1Char('/') + sub2, false);
            }
        }
    }
    std::sort(files.begin(), files.end(), [](const QString &a, const QString &b) {
        const auto na = parseGraphFileName(QFileInfo(a).fileName()), nb = parseGraphFileName(QFileInfo(b).fileName());
        if (na->index != nb->index)
            return na->index < nb->index;
        if (na->kind != nb->kind) // ge_proto before the ge_onnx form of the same graph
            return na->kind == ge::GraphFileKind::GeProto;
        return a < b;
    });
    files.removeDuplicates();
    return files;
}

Result<GraphModel> parseGeProtoText(const QByteArray &text, const QString &fileLabel, GeTextReader reader, qsizetype splitAt,
                                    bool *splitAdopted)
{
    if (splitAdopted)
        *splitAdopted = false;
    // The fast reader converts the top-level graphs' ops as it reads them; the message (on an
    // arena) keeps only the rest: names, graph inputs and outputs, attributes.
    google::protobuf::Arena arena;
    pb::ModelDef *model = nullptr;
    std::vector<std::vector<GraphNode>> nodes;
    ParseOutcome parsed;
    QHash<int, QString> unknownEnums;
    if (reader != GeTextReader::TextFormat) {
        model = google::protobuf::Arena::CreateMessage<pb::ModelDef>(&arena);
        detail::FastParseStop stop;
        if (!detail::parseGeProtoTextDirect(text, model, &nodes, &stop, &unknownEnums, splitAt, splitAdopted)) {
            if (reader == GeTextReader::FastOnly)
                return Result<GraphModel>::failure(QStringLiteral("%1:%2:%3: outside the fast reader's subset: %4")
                                                       .arg(fileLabel).arg(stop.line).arg(stop.column).arg(stop.reason));
            model = nullptr; // partial: TextFormat reads the file again from the start
            nodes.clear();
            unknownEnums.clear();
        }
    }
    std::unique_ptr<pb::ModelDef> slow;
    if (!model) {
        slow = std::make_unique<pb::ModelDef>();
        model = slow.get();
        auto r = parseText(text, fileLabel, model, &unknownEnums);
        if (!r)
            return Result<GraphModel>::failure(r.error());
        parsed = *r;
    }
    GraphModel out;
    out.modelName = qs(model->name());
    out.unknownFields = parsed.warnings + int(unknownEnums.size());
    out.warnings = parsed.messages;
    for (auto it = unknownEnums.cbegin(); it != unknownEnums.cend(); ++it)
        out.warnings << QStringLiteral("unknown enumeration value %1").arg(it.value());
    out.graphs.reserve(size_t(model->graph_size()));
    for (int g = 0; g < model->graph_size(); ++g)
        out.graphs.push_back(detail::convertGraph(model->graph(g), &unknownEnums,
                                                  size_t(g) < nodes.size() ? std::move(nodes[size_t(g)]) : std::vector<GraphNode>{}));
    return out;
}

namespace {

QString onnxAttrText(const ox::AttributeProto &a)
{
    QStringList parts;
    for (float f : a.floats())
        parts << num(f);
    for (auto i : a.ints())
        parts << QString::number(i);
    for (const auto &s : a.strings())
        parts << QLatin1Char('"') + qs(s) + QLatin1Char('"');
    if (!parts.isEmpty() || a.type() == ox::AttributeProto::FLOATS || a.type() == ox::AttributeProto::INTS
        || a.type() == ox::AttributeProto::STRINGS)
        return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
    switch (a.type()) {
    case ox::AttributeProto::FLOAT: return num(a.f());
    case ox::AttributeProto::INT: return QString::number(a.i());
    case ox::AttributeProto::GRAPH: return QStringLiteral("graph %1").arg(qs(a.g().name()));
    case ox::AttributeProto::TENSOR: return QStringLiteral("tensor %1").arg(qs(a.t().name()));
    default: break;
    }
    if (!a.s().empty())
        return qs(a.s());
    if (a.i() != 0)
        return QString::number(a.i());
    if (a.f() != 0)
        return num(a.f());
    return QString();
}

/// "input_desc_shape:2" -> (true, "shape", 2) for GE's per-tensor ONNX attributes.
bool descAttr(const QString &name, bool *isInput, QString *what, int *index)
{
    static const QRegularExpression re(QStringLiteral("^(input|output)_desc_([a-z_]+):(\\d+)$"));
    const auto m = re.match(name);
    if (!m.hasMatch())
        return false;
    *isInput = m.captured(1) == QLatin1String("input");
    *what = m.captured(2);
    *index = m.captured(3).toInt();
    return true;
}

} // namespace

Result<GraphModel> parseGeOnnxText(const QByteArray &text, const QString &fileLabel)
{
    ox::ModelProto model;
    auto parsed = parseText(text, fileLabel, &model, nullptr);
    if (!parsed)
        return Result<GraphModel>::failure(parsed.error());
    GraphModel out;
    out.reducedFidelity = true;
    out.unknownFields = parsed->warnings;
    out.warnings = parsed->messages;
    Graph g;
    g.name = qs(model.graph().name());
    out.modelName = g.name;
    for (const auto &v : model.graph().input())
        g.inputs << qs(v.name());
    for (const auto &v : model.graph().output())
        g.outputs << qs(v.name());
    for (const auto &node : model.graph().node()) {
        GraphNode n;
        n.name = qs(node.name());
        n.type = qs(node.op_type());
        if (n.type.startsWith(QLatin1String("ge:")))
            n.type = n.type.mid(3);
        for (const auto &s : node.input())
            n.inputs << qs(s);
        for (const auto &a : node.attribute()) {
            const QString name = qs(a.name());
            bool isInput = false;
            QString what;
            int index = 0;
            if (descAttr(name, &isInput, &what, &index) && index < 4096) {
                auto &descs = isInput ? n.inputDescs : n.outputDescs;
                if (descs.size() <= size_t(index))
                    descs.resize(size_t(index) + 1);
                GraphTensorDesc &d = descs[size_t(index)];
                if (what == QLatin1String("dtype")) {
                    d.dtypeName = qs(a.s());
                    d.dtype = pb::DataType_IsValid(int(a.i())) && a.s().empty() ? int(a.i()) : 0;
                    pb::DataType v;
                    if (pb::DataType_Parse(a.s(), &v))
                        d.dtype = int(v);
                } else if (what == QLatin1String("shape")) {
                    d.shape.assign(a.ints().begin(), a.ints().end());
                } else if (what == QLatin1String("origin_shape")) {
                    d.originShape.assign(a.ints().begin(), a.ints().end());
                    d.hasOriginShape = true;
                } else if (what == QLatin1String("layout")) {
                    d.layout = qs(a.s());
                } else if (what == QLatin1String("origin_layout")) {
                    d.originFormat = qs(a.s());
                } else if (what == QLatin1String("size")) {
                    d.size = a.i();
                }
                continue;
            }
            const QString value = onnxAttrText(a);
            if (name == QLatin1String("id"))
                n.id = a.i();
            else if (name == QLatin1String("stream_id"))
                n.streamId = a.i();
            else if (name == QLatin1String("_no_task"))
                n.noTask = a.i() != 0 || value == QLatin1String("true") || value == QLatin1String("1");
            else if (name == QLatin1String("_datadump_original_op_names"))
                for (const auto &s : a.strings())
                    if (!s.empty())
                        n.originalOpNames << qs(s);
            n.attrs.push_back({name, QString(), value});
        }
        std::sort(n.attrs.begin(), n.attrs.end(), [](const GraphAttr &x, const GraphAttr &y) { return x.key < y.key; });
        g.nodes.push_back(std::move(n));
    }
    g.build();
    out.graphs.push_back(std::move(g));
    out.warnings << QStringLiteral("%1: read from ONNX text: reduced fidelity").arg(fileLabel);
    return out;
}

Result<GraphModel> readGraphFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Result<GraphModel>::failure(QStringLiteral("%1: cannot open: %2").arg(path, file.errorString()));
    QByteArray text;
    const qint64 size = file.size();
    if (size == 0)
        return Result<GraphModel>::failure(QStringLiteral("%1: empty file (0 bytes)").arg(path));
    if (size > 0 && size < (qint64(1) << 31) - 1) {
        if (const uchar *mapped = file.map(0, size))
            text = QByteArray::fromRawData(reinterpret_cast<const char *>(mapped), qsizetype(size));
    }
    if (text.isNull())
        text = file.readAll();
    const QString label = fileLabelOf(path);
    const auto name = parseGraphFileName(label);
    Result<GraphModel> r = name && name->kind == GraphFileKind::GeOnnx ? parseGeOnnxText(text, label)
                                                                        : parseGeProtoText(text, label);
    if (r) {
        r->file = path;
        if (name) {
            r->stage = name->suffix;
            r->fileIndex = name->index;
        }
    }
    return r;
}

QString cppDataTypeName(qint64 value)
{
    static const char *const names[] = {
        "DT_FLOAT", "DT_FLOAT16", "DT_INT8", "DT_INT32", "DT_UINT8", nullptr, "DT_INT16", "DT_UINT16",
        "DT_UINT32", "DT_INT64", "DT_UINT64", "DT_DOUBLE", "DT_BOOL", "DT_STRING", "DT_DUAL_SUB_INT8",
        "DT_DUAL_SUB_UINT8", "DT_COMPLEX64", "DT_COMPLEX128", "DT_QINT8", "DT_QINT16", "DT_QINT32",
        "DT_QUINT8", "DT_QUINT16", "DT_RESOURCE", "DT_STRING_REF", "DT_DUAL", "DT_VARIANT", "DT_BF16",
        "DT_UNDEFINED", "DT_INT4", "DT_UINT1", "DT_INT2", "DT_UINT2", "DT_COMPLEX32", "DT_HIFLOAT8",
        "DT_FLOAT8_E5M2", "DT_FLOAT8_E4M3FN", "DT_FLOAT8_E8M0", "DT_FLOAT6_E3M2", "DT_FLOAT6_E2M3",
        "DT_FLOAT4_E2M1", "DT_FLOAT4_E1M2", "DT_HIFLOAT4",
    };
    if (value >= 0 && value < qint64(std::size(names)) && names[value])
        return QLatin1String(names[value]);
    return QStringLiteral("DT(%1)").arg(value);
}

} // namespace ds::ge
