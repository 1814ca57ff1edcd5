#include "tensorvaluesmodel.h"

#include "io/pagerelease.h"
#include "util/parallel.h"

#include <QRegularExpression>
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace ds {

// ---------------------------------------------------------------------------------------------
// Element classes and text

ValueClass classifyValue(Elem e, double v)
{
    if (std::isnan(v))
        return ValueClass::NaN;
    if (std::isinf(v))
        return v > 0 ? ValueClass::PosInf : ValueClass::NegInf;
    const double limit = saturationLimit(e);
    return limit > 0 && std::fabs(v) == limit ? ValueClass::Saturated : ValueClass::Normal;
}

namespace {

/// Real and imaginary part of a complex element.
std::pair<double, double> complexParts(Elem e, const std::byte *data, size_t i)
{
    switch (e) {
    case Elem::C32: {
        std::uint16_t p[2];
        std::memcpy(p, data + i * 4, 4);
        return {halfToDouble(p[0]), halfToDouble(p[1])};
    }
    case Elem::C64: {
        float p[2];
        std::memcpy(p, data + i * 8, 8);
        return {double(p[0]), double(p[1])};
    }
    case Elem::C128: {
        double p[2];
        std::memcpy(p, data + i * 16, 16);
        return {p[0], p[1]};
    }
    default: return {elemToDouble(e, data, i), 0.0};
    }
}

QString number(double v, char format, int precision)
{
    if (std::isnan(v))
        return QStringLiteral("nan");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, format, precision);
}

/// Severity used when a block holds several classes: NaN > +Inf > -Inf > Saturated > Normal.
int severity(ValueClass c)
{
    switch (c) {
    case ValueClass::NaN: return 4;
    case ValueClass::PosInf: return 3;
    case ValueClass::NegInf: return 2;
    case ValueClass::Saturated: return 1;
    case ValueClass::Normal: break;
    }
    return 0;
}

} // namespace

ValueClass classifyElement(Elem e, const std::byte *data, size_t i)
{
    if (!isComplex(e))
        return classifyValue(e, elemToDouble(e, data, i));
    const auto [re, im] = complexParts(e, data, i);
    if (std::isnan(re) || std::isnan(im))
        return ValueClass::NaN;
    if (std::isinf(re) || std::isinf(im))
        return ValueClass::PosInf;
    const double limit = saturationLimit(e);
    return limit > 0 && (std::fabs(re) == limit || std::fabs(im) == limit) ? ValueClass::Saturated : ValueClass::Normal;
}

QString formatElement(Elem e, const std::byte *data, size_t i, char format, int precision)
{
    switch (e) {
    case Elem::None: return {};
    case Elem::Bool: return elemToDouble(e, data, i) != 0 ? QStringLiteral("True") : QStringLiteral("False");
    case Elem::I64: {
        std::int64_t v;
        std::memcpy(&v, data + i * 8, 8);
        return QString::number(qlonglong(v));
    }
    case Elem::U64: {
        std::uint64_t v;
        std::memcpy(&v, data + i * 8, 8);
        return QString::number(qulonglong(v));
    }
    case Elem::I8: case Elem::U8: case Elem::I16: case Elem::U16: case Elem::I32: case Elem::U32:
        return QString::number(qlonglong(elemToDouble(e, data, i)));
    case Elem::C32: case Elem::C64: case Elem::C128: {
        const auto [re, im] = complexParts(e, data, i);
        const bool minus = std::signbit(im) && !std::isnan(im);
        return number(re, format, precision) + (minus ? QLatin1Char('-') : QLatin1Char('+'))
             + number(std::fabs(im), format, precision) + QLatin1Char('j');
    }
    default: return number(elemToDouble(e, data, i), format, precision);
    }
}

// ---------------------------------------------------------------------------------------------
// Slices

TensorSlice::TensorSlice(Shape shape, int rowDim, int colDim, std::vector<std::uint64_t> fixed)
    : m_shape(std::move(shape))
{
    const int r = rank();
    if (r == 0) {
        rowDim = colDim = -1;
    } else if (r == 1) {
        rowDim = 0;
        colDim = -1;
    } else if (rowDim < 0 || rowDim >= r || colDim < 0 || colDim >= r || rowDim == colDim) {
        rowDim = r - 2;
        colDim = r - 1;
    }
    m_rowDim = rowDim;
    m_colDim = colDim;
    fixed.resize(size_t(r), 0);
    std::vector<std::uint64_t> stride(size_t(r), 1);
    for (int d = r - 2; d >= 0; --d)
        stride[size_t(d)] = stride[size_t(d) + 1] * m_shape[size_t(d) + 1];
    bool empty = false;
    for (int d = 0; d < r; ++d) {
        const auto n = m_shape[size_t(d)];
        empty = empty || n == 0;
        auto &f = fixed[size_t(d)];
        if (d == rowDim || d == colDim || n == 0)
            f = 0;
        else
            f = std::min(f, n - 1);
        m_base += f * stride[size_t(d)];
    }
    m_fixed = std::move(fixed);
    m_rows = rowDim >= 0 ? m_shape[size_t(rowDim)] : 1;
    m_cols = colDim >= 0 ? m_shape[size_t(colDim)] : 1;
    m_rowStride = rowDim >= 0 ? stride[size_t(rowDim)] : 0;
    m_colStride = colDim >= 0 ? stride[size_t(colDim)] : 0;
    if (empty)
        m_rows = m_cols = 0;
}

std::vector<std::uint64_t> TensorSlice::ndIndex(std::uint64_t row, std::uint64_t col) const
{
    auto idx = m_fixed;
    if (m_rowDim >= 0)
        idx[size_t(m_rowDim)] = row;
    if (m_colDim >= 0)
        idx[size_t(m_colDim)] = col;
    return idx;
}

bool TensorSlice::contains(const std::vector<std::uint64_t> &ndIndex) const
{
    if (ndIndex.size() != m_shape.size())
        return false;
    for (size_t d = 0; d < ndIndex.size(); ++d)
        if (ndIndex[d] >= m_shape[d])
            return false;
    return true;
}

Shape displayShape(const LoadedTensor &t)
{
    const auto count = elementCount(t.shape);
    if (!count || *count != t.view.count)
        return {std::uint64_t(t.view.count)};
    return t.shape;
}

QString ndIndexToString(const std::vector<std::uint64_t> &index)
{
    QStringList parts;
    for (auto i : index)
        parts << QString::number(i);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString sliceRangeToString(const TensorSlice &s, std::uint64_t row0, std::uint64_t row1, std::uint64_t col0, std::uint64_t col1)
{
    auto range = [](std::uint64_t a, std::uint64_t b) {
        return b <= a + 1 ? QString::number(a) : QStringLiteral("%1:%2").arg(a).arg(b);
    };
    QStringList parts;
    for (int d = 0; d < s.rank(); ++d) {
        if (d == s.rowDim())
            parts << range(row0, row1);
        else if (d == s.colDim())
            parts << range(col0, col1);
        else
            parts << QString::number(s.fixed()[size_t(d)]);
    }
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

bool parseNdIndex(const QString &text, const Shape &shape, std::vector<std::uint64_t> &index)
{
    index.clear();
    QString t = text.trimmed();
    static const QRegularExpression brackets(QStringLiteral("[\\[\\]()]"));
    static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
    t.remove(brackets);
    const QStringList parts = t.split(separators, Qt::SkipEmptyParts);
    if (size_t(parts.size()) != shape.size())
        return false;
    std::vector<std::uint64_t> out;
    out.reserve(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
        bool ok = false;
        const qlonglong v = parts[qsizetype(d)].toLongLong(&ok);
        if (!ok)
            return false;
        const auto n = shape[d];
        if (v >= 0) {
            if (std::uint64_t(v) >= n)
                return false;
            out.push_back(std::uint64_t(v));
        } else {
            const auto back = std::uint64_t(-(v + 1)) + 1; // -v without overflow
            if (back > n)
                return false;
            out.push_back(n - back);
        }
    }
    index = std::move(out);
    return true;
}

// ---------------------------------------------------------------------------------------------
// Downsampling

namespace {

struct BlockAcc
{
    double sum = 0;
    std::uint64_t finite = 0, special = 0;
    int worst = 0;
    ValueClass cls = ValueClass::Normal;

    void add(double v, ValueClass c)
    {
        if (c == ValueClass::Normal) {
            sum += v;
            ++finite;
            return;
        }
        if (c == ValueClass::Saturated) {
            sum += v;
            ++finite;
        }
        ++special;
        if (const int s = severity(c); s > worst) {
            worst = s;
            cls = c;
        }
    }
};

/// Decoded value and class of every code of an 8/16-bit kind.
struct CodeTable
{
    std::vector<double> value;
    std::vector<ValueClass> cls;

    explicit CodeTable(Elem e)
    {
        const size_t n = elemBytes(e) == 1 ? 256 : 65536;
        value.resize(n);
        cls.resize(n);
        for (size_t c = 0; c < n; ++c) {
            std::byte raw[2];
            const auto code = std::uint16_t(c);
            std::memcpy(raw, &code, 2);
            value[c] = elemToDouble(e, raw, 0);
            cls[c] = classifyValue(e, value[c]);
        }
    }
};

/// `sample(flatIndex, a)` adds one element to the accumulator. The slice is walked as lines
/// along its smaller stride (rows of a plain slice, columns of a transposed one), so memory is
/// read in order; blocks of lines are spread over all cores.
template<typename Sample>
bool downsampleWith(const Sample &sample, const TensorView &view, const TensorSlice &s, SliceBlocks &out, const JobControl *job)
{
    const bool rowLines = s.colStride() <= s.rowStride() || s.rows() == 1;
    // "a" runs across lines, "b" along them.
    const std::uint64_t nA = rowLines ? s.rows() : s.cols(), nB = rowLines ? s.cols() : s.rows();
    const std::uint64_t bA = rowLines ? out.blockRows : out.blockCols, bB = rowLines ? out.blockCols : out.blockRows;
    const std::uint64_t strideA = rowLines ? s.rowStride() : s.colStride(), strideB = rowLines ? s.colStride() : s.rowStride();
    const int blocksA = rowLines ? out.rows : out.cols, blocksB = rowLines ? out.cols : out.rows;
    const std::uint64_t base = s.flatIndex(0, 0);
    const size_t elemSize = elemBytes(view.elem);
    const bool release = view.count * elemSize >= (size_t(1) << 20); // small tensors: not worth a system call
    std::atomic<int> done{0};
    return parallelChunks(size_t(blocksA), 1, [&](size_t, size_t first, size_t last) {
        std::vector<BlockAcc> acc(static_cast<size_t>(blocksB));
        for (size_t ba = first; ba < last; ++ba) {
            std::fill(acc.begin(), acc.end(), BlockAcc{});
            const std::uint64_t a0 = ba * bA, a1 = std::min(nA, a0 + bA);
            std::uint64_t work = 0;
            for (std::uint64_t a = a0; a < a1; ++a) {
                const std::uint64_t lineBase = base + a * strideA;
                for (int bb = 0; bb < blocksB; ++bb) {
                    BlockAcc &acc1 = acc[size_t(bb)];
                    const std::uint64_t b0 = std::uint64_t(bb) * bB, b1 = std::min(nB, b0 + bB);
                    for (std::uint64_t x = b0; x < b1; ++x)
                        sample(size_t(lineBase + x * strideB), acc1);
                    work += b1 - b0;
                    if (work >= (1u << 16)) {
                        work = 0;
                        if (job && job->cancelled())
                            return false;
                    }
                }
            }
            // Lines run along the smaller stride, so a block of lines spans a stretch of the
            // tensor no other block reads (but for a shared edge page): hand its pages back
            // when they are a mapped file's; the heatmap keeps only the block means.
            if (release && a1 > a0 && nB > 0) {
                const std::uint64_t lo = base + a0 * strideA, hi = base + (a1 - 1) * strideA + (nB - 1) * strideB;
                releaseMappedPages(view.data + lo * elemSize, size_t(hi - lo + 1) * elemSize);
            }
            for (int bb = 0; bb < blocksB; ++bb) {
                const BlockAcc &r = acc[size_t(bb)];
                const size_t o = rowLines ? out.at(int(ba), bb) : out.at(bb, int(ba));
                out.mean[o] = r.finite ? r.sum / double(r.finite) : std::numeric_limits<double>::quiet_NaN();
                out.cls[o] = std::uint8_t(r.cls);
                out.special[o] = r.special;
            }
            if (job) {
                if (job->cancelled())
                    return false;
                job->report(int(std::int64_t(done.fetch_add(1) + 1) * 1000 / blocksA));
            }
        }
        return true;
    });
}

template<typename T>
double loadAs(const std::byte *data, size_t i)
{
    T v;
    std::memcpy(&v, data + i * sizeof(T), sizeof(T));
    return double(v);
}

} // namespace

bool downsampleSlice(const TensorView &view, const TensorSlice &s, int maxSide, SliceBlocks &out, const JobControl *job)
{
    out = SliceBlocks{};
    out.slice = s;
    const std::uint64_t R = s.rows(), C = s.cols();
    if (R == 0 || C == 0 || view.elem == Elem::None || !view.data || s.flatIndex(R - 1, C - 1) >= view.count)
        return true;
    const auto side = std::uint64_t(std::max(1, maxSide));
    out.blockRows = (R + side - 1) / side;
    out.blockCols = (C + side - 1) / side;
    out.rows = int((R + out.blockRows - 1) / out.blockRows);
    out.cols = int((C + out.blockCols - 1) / out.blockCols);
    const size_t cells = size_t(out.rows) * size_t(out.cols);
    out.mean.assign(cells, std::numeric_limits<double>::quiet_NaN());
    out.cls.assign(cells, 0);
    out.special.assign(cells, 0);

    const Elem e = view.elem;
    const std::byte *data = view.data;
    const double limit = saturationLimit(e);
    auto real = [&](auto load) {
        return downsampleWith([data, limit, load](size_t i, BlockAcc &a) {
            const double v = load(data, i);
            if (std::isnan(v))
                a.add(v, ValueClass::NaN);
            else if (std::isinf(v))
                a.add(v, v > 0 ? ValueClass::PosInf : ValueClass::NegInf);
            else
                a.add(v, limit > 0 && std::fabs(v) == limit ? ValueClass::Saturated : ValueClass::Normal);
        }, view, s, out, job);
    };
    bool ok;
    if (isComplex(e)) {
        ok = downsampleWith([e, data](size_t i, BlockAcc &a) { a.add(elemToDouble(e, data, i), classifyElement(e, data, i)); },
                            view, s, out, job);
    } else if (elemBytes(e) <= 2) {
        const CodeTable table(e);
        if (elemBytes(e) == 1)
            ok = downsampleWith([&table, data](size_t i, BlockAcc &a) {
                const auto code = size_t(std::uint8_t(data[i]));
                a.add(table.value[code], table.cls[code]);
            }, view, s, out, job);
        else
            ok = downsampleWith([&table, data](size_t i, BlockAcc &a) {
                std::uint16_t code;
                std::memcpy(&code, data + 2 * i, 2);
                a.add(table.value[code], table.cls[code]);
            }, view, s, out, job);
    } else {
        switch (e) {
        case Elem::F32: ok = real(loadAs<float>); break;
        case Elem::F64: ok = real(loadAs<double>); break;
        case Elem::I32: ok = real(loadAs<std::int32_t>); break;
        case Elem::U32: ok = real(loadAs<std::uint32_t>); break;
        case Elem::I64: ok = real(loadAs<std::int64_t>); break;
        case Elem::U64: ok = real(loadAs<std::uint64_t>); break;
        default: ok = real([e](const std::byte *d, size_t i) { return elemToDouble(e, d, i); });
        }
    }
    if (!ok)
        return false;
    for (double m : out.mean) {
        if (std::isfinite(m)) {
            out.min = std::isnan(out.min) ? m : std::min(out.min, m);
            out.max = std::isnan(out.max) ? m : std::max(out.max, m);
        }
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// Model

TensorValuesModel::TensorValuesModel(QObject *parent) : QAbstractTableModel(parent) {}

TensorValuesModel::~TensorValuesModel() = default;

void TensorValuesModel::setTensor(std::shared_ptr<const LoadedTensor> tensor)
{
    beginResetModel();
    m_tensor = std::move(tensor);
    m_slice = TensorSlice::defaultFor(m_tensor ? displayShape(*m_tensor) : Shape{});
    m_pageRow = m_pageCol = 0;
    endResetModel();
    emit sliceChanged();
    emit pageChanged();
}

void TensorValuesModel::setSlice(int rowDim, int colDim, std::vector<std::uint64_t> fixedIndex)
{
    TensorSlice s(m_slice.shape(), rowDim, colDim, std::move(fixedIndex));
    if (s == m_slice)
        return;
    const bool sameDims = s.rowDim() == m_slice.rowDim() && s.colDim() == m_slice.colDim();
    if (sameDims) { // same extents: keep the page, selection and scroll position
        m_slice = std::move(s);
        const int rc = rowCount(), cc = columnCount();
        if (rc > 0 && cc > 0)
            emit dataChanged(index(0, 0), index(rc - 1, cc - 1));
        emit sliceChanged();
        return;
    }
    beginResetModel();
    m_slice = std::move(s);
    m_pageRow = m_pageCol = 0;
    endResetModel();
    emit sliceChanged();
    emit pageChanged();
}

void TensorValuesModel::setPage(std::uint64_t rowStart, std::uint64_t colStart)
{
    const std::uint64_t R = totalRows(), C = totalCols();
    rowStart = R ? std::min(rowStart, R - 1) : 0;
    colStart = C ? std::min(colStart, C - 1) : 0;
    if (rowStart == m_pageRow && colStart == m_pageCol)
        return;
    beginResetModel();
    m_pageRow = rowStart;
    m_pageCol = colStart;
    endResetModel();
    emit pageChanged();
}

void TensorValuesModel::setNumberFormat(char format, int precision)
{
    if (format == m_format && precision == m_precision)
        return;
    m_format = format;
    m_precision = precision;
    const int rc = rowCount(), cc = columnCount();
    if (rc > 0 && cc > 0)
        emit dataChanged(index(0, 0), index(rc - 1, cc - 1), {Qt::DisplayRole, Qt::ToolTipRole});
}

bool TensorValuesModel::cell(const QModelIndex &index, std::uint64_t &row, std::uint64_t &col) const
{
    if (!m_tensor || !index.isValid() || index.model() != this)
        return false;
    row = m_pageRow + std::uint64_t(index.row());
    col = m_pageCol + std::uint64_t(index.column());
    return row < m_slice.rows() && col < m_slice.cols() && m_slice.flatIndex(row, col) < m_tensor->view.count;
}

std::vector<std::uint64_t> TensorValuesModel::indexOf(const QModelIndex &index) const
{
    std::uint64_t row, col;
    if (!cell(index, row, col))
        return {};
    return m_slice.ndIndex(row, col);
}

QModelIndex TensorValuesModel::locate(const std::vector<std::uint64_t> &ndIndex)
{
    if (!m_tensor || !m_slice.contains(ndIndex) || m_slice.elementCount() == 0)
        return {};
    setSlice(m_slice.rowDim(), m_slice.colDim(), ndIndex); // the fixed dims follow ndIndex
    const std::uint64_t row = m_slice.rowDim() >= 0 ? ndIndex[size_t(m_slice.rowDim())] : 0;
    const std::uint64_t col = m_slice.colDim() >= 0 ? ndIndex[size_t(m_slice.colDim())] : 0;
    std::uint64_t pageRow = m_pageRow, pageCol = m_pageCol;
    if (row < m_pageRow || row >= m_pageRow + kPageRows)
        pageRow = row / kPageRows * kPageRows;
    if (col < m_pageCol || col >= m_pageCol + kPageCols)
        pageCol = col / kPageCols * kPageCols;
    setPage(pageRow, pageCol);
    return index(int(row - m_pageRow), int(col - m_pageCol));
}

int TensorValuesModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_tensor)
        return 0;
    const std::uint64_t R = m_slice.rows();
    return R > m_pageRow ? int(std::min(kPageRows, R - m_pageRow)) : 0;
}

int TensorValuesModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_tensor)
        return 0;
    const std::uint64_t C = m_slice.cols();
    return C > m_pageCol ? int(std::min(kPageCols, C - m_pageCol)) : 0;
}

QVariant TensorValuesModel::data(const QModelIndex &index, int role) const
{
    std::uint64_t row, col;
    if (!cell(index, row, col))
        return {};
    const TensorView &v = m_tensor->view;
    const auto flat = size_t(m_slice.flatIndex(row, col));
    switch (role) {
    case Qt::DisplayRole: return formatElement(v.elem, v.data, flat, m_format, m_precision);
    case ValueRole: return elemToDouble(v.elem, v.data, flat);
    case ClassRole: return int(classifyElement(v.elem, v.data, flat));
    case FlatIndexRole: return qulonglong(flat);
    case Qt::TextAlignmentRole: return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole: {
        QString tip = tr("%1 = %2").arg(ndIndexToString(m_slice.ndIndex(row, col)), formatElement(v.elem, v.data, flat, 'g', 17));
        switch (classifyElement(v.elem, v.data, flat)) {
        case ValueClass::NaN: tip += tr(" (NaN)"); break;
        case ValueClass::PosInf: tip += tr(" (+Inf)"); break;
        case ValueClass::NegInf: tip += tr(" (-Inf)"); break;
        case ValueClass::Saturated: tip += tr(" (saturated: the largest finite value of the type)"); break;
        case ValueClass::Normal: break;
        }
        return QString(tip + QLatin1Char('\n') + tr("flat index %1").arg(qulonglong(flat)));
    }
    default: return {};
    }
}

QVariant TensorValuesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (!m_tensor || section < 0)
        return {};
    const bool horizontal = orientation == Qt::Horizontal;
    const int dim = horizontal ? m_slice.colDim() : m_slice.rowDim();
    const std::uint64_t abs = (horizontal ? m_pageCol : m_pageRow) + std::uint64_t(section);
    switch (role) {
    case Qt::DisplayRole:
        if (dim < 0)
            return horizontal ? tr("value") : QString();
        return QString::number(abs);
    case Qt::ToolTipRole:
        if (dim < 0)
            return {};
        return tr("index %1 along dim %2").arg(abs).arg(dim);
    case Qt::TextAlignmentRole:
        return horizontal ? int(Qt::AlignCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    default: return {};
    }
}

} // namespace ds
