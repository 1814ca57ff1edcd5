// msprobe's precheck tables and failed-API tensors as a document (precheck.h).
#include "precheck.h"

#include "formats/torch/ptloader.h"
#include "tensor/dtype.h"
#include "util/csvrecords.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <map>

namespace ds::precheck {

QString statusWord(Status s)
{
    switch (s) {
    case Status::None: return {};
    case Status::Pass: return QStringLiteral("pass");
    case Status::Warning: return QStringLiteral("warning");
    case Status::Error: return QStringLiteral("error");
    case Status::Skip: return QStringLiteral("SKIP");
    case Status::Unknown: return QStringLiteral("?");
    }
    return {};
}

Status parseStatus(const QString &cell)
{
    const QString w = cell.trimmed().toLower();
    if (w.isEmpty())
        return Status::None;
    if (w == u"pass" || w == u"true")
        return Status::Pass;
    if (w == u"warning")
        return Status::Warning;
    if (w == u"error" || w == u"false")
        return Status::Error;
    if (w == u"skip")
        return Status::Skip;
    return Status::Unknown;
}

Status worse(Status a, Status b)
{
    auto rank = [](Status s) {
        switch (s) {
        case Status::None: return 0;
        case Status::Skip: return 1;
        case Status::Pass: return 2;
        case Status::Warning: return 3;
        case Status::Error:
        case Status::Unknown: return 4;
        }
        return 0;
    };
    return rank(a) >= rank(b) ? a : b;
}

QString tableKindName(TableKind kind)
{
    switch (kind) {
    case TableKind::Result: return QStringLiteral("accuracy_checking_result");
    case TableKind::Details: return QStringLiteral("accuracy_checking_details");
    case TableKind::PrecisionResult: return QStringLiteral("api_precision_compare_result");
    case TableKind::PrecisionDetails: return QStringLiteral("api_precision_compare_details");
    }
    return {};
}

int PrecheckTable::count(Status s) const
{
    return int(std::count_if(rows.begin(), rows.end(), [s](const PrecheckRow &r) { return r.status == s; }));
}

bool isPrecheckTableName(const QString &fileName)
{
    static const QRegularExpression re(QStringLiteral(R"(^(accuracy_checking|api_precision_compare)_(result|details)_.*\.csv$)"));
    return re.match(fileName).hasMatch();
}

namespace {

// Which of msprobe's tables a header is: the first column and the verdict column decide
// ("API name" is the acc_check result's spelling, "API Name" every other table's).
std::optional<TableKind> kindOfHeader(const QStringList &h)
{
    if (h.isEmpty())
        return std::nullopt;
    const QString first = h.front().trimmed();
    if (first == u"API name")
        return TableKind::Result;
    if (first != u"API Name")
        return std::nullopt;
    if (h.contains(QStringLiteral("比对结果")) || h.contains(QStringLiteral("比对算法")))
        return TableKind::PrecisionDetails;
    if (h.contains(QStringLiteral("Status")) || h.contains(QStringLiteral("Bench Dtype")))
        return TableKind::Details;
    if (h.contains(QStringLiteral("Forward Test Success")))
        return TableKind::PrecisionResult;
    return std::nullopt;
}

// "Tensor.__mul__.7.forward.output.0" -> {"Tensor.__mul__.7", "forward.output.0"}
std::pair<QString, QString> splitOutputName(const QString &name)
{
    for (const auto dir : {QLatin1String(".forward."), QLatin1String(".backward.")}) {
        const qsizetype at = name.lastIndexOf(dir);
        if (at > 0)
            return {name.left(at), name.mid(at + 1)};
    }
    return {name, QString()};
}

} // namespace

Result<PrecheckTable> parsePrecheckTable(QByteArrayView bytes, const QString &file)
{
    using R = Result<PrecheckTable>;
    auto csv = parseCsvRecords(bytes, file);
    if (!csv)
        return R::failure(csv.error());
    PrecheckTable t;
    t.file = file;
    t.header = csv->header;
    for (QString &h : t.header)
        h = h.trimmed();
    const auto kind = kindOfHeader(t.header);
    if (!kind)
        return R::failure(ErrorKind::Unsupported, file,
                          QStringLiteral("line 1: not a table of msprobe's acc_check or api_precision_compare (the header starts \"%1\"; "
                                         "expected \"API name,Forward Test Success,...\" or \"API Name,...\")")
                              .arg(t.header.mid(0, 4).join(QLatin1Char(','))));
    t.kind = *kind;
    QStringList missing;
    for (const ColumnInfo &c : tableColumns(t.kind))
        if (c.required && t.column(QString::fromUtf8(c.name)) < 0)
            missing << QString::fromUtf8(c.name);
    if (!missing.isEmpty())
        return R::failure(ErrorKind::Corrupt, file,
                          QStringLiteral("line 1: the column(s) %1 of an %2 table are missing").arg(missing.join(QStringLiteral(", ")), tableKindName(t.kind)));
    for (qsizetype i = 0; i < t.header.size(); ++i)
        if (!columnInfo(t.kind, t.header[i]))
            t.errors.push_back(Error(ErrorKind::Unsupported, file,
                                     QStringLiteral("line 1, column %1 (%2): not a column msprobe writes in %3; its cells are shown as they are")
                                         .arg(i + 1).arg(t.header[i], tableKindName(t.kind))));

    const bool resultKind = t.kind == TableKind::Result || t.kind == TableKind::PrecisionResult;
    const int nameCol = 0;
    const int fwdCol = t.column(QStringLiteral("Forward Test Success")), bwdCol = t.column(QStringLiteral("Backward Test Success"));
    const int statusCol = t.kind == TableKind::Details ? t.column(QStringLiteral("Status"))
                        : t.kind == TableKind::PrecisionDetails ? t.column(QStringLiteral("比对结果")) : -1;
    // a result row may stop after Backward Test Success (compare.py write_summary_csv appends
    // Message only to SKIP rows); every other row has the header's width
    const int minFields = resultKind ? std::max(fwdCol, bwdCol) + 1 : int(t.header.size());
    for (size_t r = 0; r < csv->rows.size(); ++r) {
        const QStringList &cells = csv->rows[r];
        const int line = csv->lines[r];
        if (cells.size() < minFields || cells.size() > t.header.size()) {
            t.errors.push_back(Error(ErrorKind::Corrupt, file,
                                     QStringLiteral("line %1: %2 fields where the header has %3 (a truncated or garbled row; left out)")
                                         .arg(line).arg(cells.size()).arg(t.header.size())));
            continue;
        }
        PrecheckRow row;
        row.line = line;
        row.cells = cells;
        while (row.cells.size() < t.header.size())
            row.cells << QString();
        const QString name = row.cells[nameCol].trimmed();
        if (name.isEmpty()) {
            t.errors.push_back(Error(ErrorKind::Corrupt, file, QStringLiteral("line %1, column 1 (%2): no API name (row left out)").arg(line).arg(t.header[nameCol])));
            continue;
        }
        auto status = [&](int col) {
            const Status s = parseStatus(row.cells[col]);
            if (s == Status::Unknown)
                t.errors.push_back(Error(ErrorKind::Corrupt, file,
                                         QStringLiteral("line %1, column %2 (%3): \"%4\" is not pass, warning, error or SKIP")
                                             .arg(line).arg(col + 1).arg(t.header[col], row.cells[col])));
            return s;
        };
        if (resultKind) {
            row.api = name;
            row.forward = status(fwdCol);
            row.backward = status(bwdCol);
            row.status = worse(row.forward, row.backward);
        } else {
            std::tie(row.api, row.output) = splitOutputName(name);
            row.status = status(statusCol);
        }
        t.rows.push_back(std::move(row));
    }
    return t;
}

Result<PrecheckTable> readPrecheckTable(const QString &path, const QString &shownName)
{
    using R = Result<PrecheckTable>;
    QFile f(path);
    if (!f.exists())
        return R::failure(ErrorKind::NotFound, shownName, QStringLiteral("no such file"));
    if (!f.open(QIODevice::ReadOnly))
        return R::failure(ErrorKind::Access, shownName, f.errorString());
    if (f.size() > (qint64(1) << 30))
        return R::failure(ErrorKind::Unsupported, shownName, QStringLiteral("%1 bytes: larger than the 1 GiB read of a table").arg(f.size()));
    const QByteArray bytes = f.readAll();
    if (f.error() != QFileDevice::NoError)
        return R::failure(ErrorKind::Access, shownName, f.errorString());
    return parsePrecheckTable(bytes, shownName);
}

std::vector<FailedPair> findFailedPairs(const QString &dir, const QString &shownPrefix)
{
    // {api}.{forward|backward}.{input.{i} | output.{bench|device}.{i}}.pt (acc_check.py:193-203)
    static const QRegularExpression re(QStringLiteral(R"(^(.+)\.(forward|backward)\.(input|output\.bench|output\.device)\.(\d+)\.pt$)"));
    std::map<std::tuple<QString, QString, int>, FailedPair> pairs;
    std::map<std::pair<QString, QString>, std::map<int, QString>> inputs;
    std::vector<QString> order; // API order of first appearance (file names sort by API)
    const QDir root(dir);
    QStringList folders;
    for (const QFileInfo &fi : root.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        if (fi.fileName().startsWith(u"ut_error_data"))
            folders << fi.fileName();
        else
            for (const QFileInfo &sub : QDir(fi.filePath()).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
                if (sub.fileName().startsWith(u"ut_error_data"))
                    folders << fi.fileName() + QLatin1Char('/') + sub.fileName();
    }
    for (const QString &folder : folders) {
        for (const QString &name : QDir(root.filePath(folder)).entryList({QStringLiteral("*.pt")}, QDir::Files, QDir::Name)) {
            const auto m = re.match(name);
            if (!m.hasMatch())
                continue;
            const QString rel = shownPrefix + folder + QLatin1Char('/') + name;
            const QString api = m.captured(1), dirn = m.captured(2), what = m.captured(3);
            const int index = m.captured(4).toInt();
            if (what == u"input") {
                inputs[{api, dirn}][index] = rel;
                continue;
            }
            FailedPair &p = pairs[{api, dirn, index}];
            p.api = api;
            p.direction = dirn;
            p.index = index;
            (what == u"output.bench" ? p.benchFile : p.deviceFile) = rel;
        }
    }
    std::vector<FailedPair> out;
    for (auto &[key, p] : pairs) {
        for (const auto &[i, file] : inputs[{p.api, p.direction}])
            p.inputFiles << file;
        out.push_back(std::move(p));
    }
    return out;
}

bool looksLikePrecheck(const QString &path)
{
    const QFileInfo fi(path);
    if (fi.isFile())
        return isPrecheckTableName(fi.fileName());
    if (!fi.isDir())
        return false;
    const QDir d(path);
    if (!d.entryList({QStringLiteral("accuracy_checking_*.csv"), QStringLiteral("api_precision_compare_*.csv")}, QDir::Files).isEmpty())
        return true;
    return !d.entryList({QStringLiteral("ut_error_data*")}, QDir::Dirs).isEmpty();
}

Result<PrecheckDocument> openPrecheck(const QString &path)
{
    using R = Result<PrecheckDocument>;
    const QFileInfo fi(path);
    if (!fi.exists())
        return R::failure(ErrorKind::NotFound, path, QStringLiteral("no such file or folder"));
    PrecheckDocument doc;
    QStringList files; // relative to root
    if (fi.isFile()) {
        doc.root = fi.absolutePath();
        files << fi.fileName();
    } else {
        doc.root = fi.absoluteFilePath();
        const QDir d(doc.root);
        for (const QString &n : d.entryList(QDir::Files, QDir::Name))
            if (isPrecheckTableName(n))
                files << n;
        for (const QString &sub : d.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            for (const QString &n : QDir(d.filePath(sub)).entryList(QDir::Files, QDir::Name))
                if (isPrecheckTableName(n))
                    files << sub + QLatin1Char('/') + n;
    }
    const QDir root(doc.root);
    for (const QString &rel : files) {
        auto t = readPrecheckTable(root.filePath(rel), rel);
        if (!t) {
            doc.errors.push_back(t.error());
            continue;
        }
        doc.errors.insert(doc.errors.end(), t->errors.begin(), t->errors.end());
        doc.tables.push_back(std::move(*t));
    }
    // the result table before the details, as msprobe's docs read them
    std::stable_sort(doc.tables.begin(), doc.tables.end(), [](const PrecheckTable &a, const PrecheckTable &b) { return a.kind < b.kind; });
    doc.failed = findFailedPairs(doc.root);
    if (doc.tables.empty() && doc.failed.empty() && doc.errors.empty())
        return R::failure(ErrorKind::NotFound, path,
                          QStringLiteral("no precheck results here: looked for accuracy_checking_{result,details}_*.csv, "
                                         "api_precision_compare_{result,details}_*.csv and ut_error_data*/ folders"));
    if (fi.isFile() && doc.tables.empty())
        return R::failure(doc.errors.front());
    return doc;
}

Result<PairComparison> compareFailedPair(const QString &root, const FailedPair &pair, const JobControl *job)
{
    using R = Result<PairComparison>;
    if (pair.benchFile.isEmpty() || pair.deviceFile.isEmpty())
        return R::failure(ErrorKind::NotFound, pair.benchFile.isEmpty() ? pair.deviceFile : pair.benchFile,
                          QStringLiteral("the %1 output of %2 was not saved beside it").arg(pair.benchFile.isEmpty() ? QStringLiteral("bench") : QStringLiteral("device"), pair.api));
    auto bench = loadPtFile(root, pair.benchFile, job);
    if (!bench)
        return R::failure(bench.error());
    auto device = loadPtFile(root, pair.deviceFile, job);
    if (!device)
        return R::failure(device.error());
    PairComparison c;
    c.benchType = (*bench)->dataType;
    c.deviceType = (*device)->dataType;
    c.benchShape = (*bench)->shape;
    c.deviceShape = (*device)->shape;
    if ((*bench)->view.count != (*device)->view.count)
        return R::failure(ErrorKind::Unsupported, pair.deviceFile,
                          QStringLiteral("%1 elements where the bench %2 has %3: not comparable element by element")
                              .arg((*device)->view.count).arg(pair.benchFile).arg((*bench)->view.count));
    if (!computePairMetrics((*device)->view, (*bench)->view, c.metrics, {}, job))
        return Cancelled{};
    if (!computePairDetail((*device)->view, (*bench)->view, {}, c.detail, job))
        return Cancelled{};
    for (ElementDiff &d : c.detail.worst)
        d.position = unravelIndex(d.index, c.deviceShape);
    const TensorView &dv = (*device)->view, &bv = (*bench)->view;
    if (dv.count <= kMaxErrorTensorElements) {
        auto err = std::make_shared<LoadedTensor>();
        err->owned.resize(dv.count * sizeof(float));
        err->view = TensorView{Elem::F32, err->owned.data(), dv.count};
        err->shape = c.deviceShape;
        err->dataType = int(DataType::Float32);
        auto *e = reinterpret_cast<float *>(err->owned.data());
        for (size_t i = 0; i < dv.count; ++i)
            e[i] = float(std::fabs(elemToDouble(dv.elem, dv.data, i) - elemToDouble(bv.elem, bv.data, i)));
        c.absError = std::move(err);
    }
    return c;
}

} // namespace ds::precheck
