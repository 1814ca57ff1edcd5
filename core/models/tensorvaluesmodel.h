#pragma once

#include "index/tensorloader.h"
#include "tensor/shape.h"
#include "tensor/stats.h"

#include <QAbstractTableModel>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace ds {

// ---------------------------------------------------------------------------------------------
// Element classes (shared by the value grid and the heatmap; colours live in views/).

/// What one element holds. Numbers only: delegates and plots map them to colours.
enum class ValueClass : int { Normal = 0, NaN = 1, PosInf = 2, NegInf = 3, Saturated = 4 };

/// Class of a value decoded from kind e (|v| == saturationLimit(e) of tensor/dtype.h is Saturated).
ValueClass classifyValue(Elem e, double v);
/// Class of element i; complex elements look at both parts (NaN if either is NaN, else +Inf if
/// either is infinite, else Saturated if either part sits at the limit).
ValueClass classifyElement(Elem e, const std::byte *data, size_t i);
/// numpy-style text: "1.5", "nan", "-inf", exact integers, "True", and "re+imj" for complex.
/// `format` and `precision` are QString::number's ('g', 8 by default in the grid).
QString formatElement(Elem e, const std::byte *data, size_t i, char format = 'g', int precision = 8);

// ---------------------------------------------------------------------------------------------
// 2-D slices of row-major tensors.

/// Two displayed dims of a row-major tensor and fixed indices for all others. 1-D tensors show
/// one column (colDim -1), 0-D tensors one cell (both -1). A value type: cheap to copy into
/// background jobs.
class TensorSlice
{
public:
    TensorSlice() = default;
    /// Clamps out-of-range fixed indices; invalid or equal dims fall back to the default
    /// (the last two dims, as numpy prints them).
    TensorSlice(Shape shape, int rowDim, int colDim, std::vector<std::uint64_t> fixed = {});
    static TensorSlice defaultFor(const Shape &shape) { return TensorSlice(shape, -1, -1); }

    const Shape &shape() const { return m_shape; }
    int rank() const { return int(m_shape.size()); }
    int rowDim() const { return m_rowDim; }
    int colDim() const { return m_colDim; }
    /// One entry per dim; the entries of the displayed dims are 0.
    const std::vector<std::uint64_t> &fixed() const { return m_fixed; }

    std::uint64_t rows() const { return m_rows; }
    std::uint64_t cols() const { return m_cols; }
    std::uint64_t elementCount() const { return m_rows * m_cols; }
    std::uint64_t rowStride() const { return m_rowStride; }
    std::uint64_t colStride() const { return m_colStride; }
    /// Flat (row-major) element index of slice cell (row, col).
    std::uint64_t flatIndex(std::uint64_t row, std::uint64_t col) const { return m_base + row * m_rowStride + col * m_colStride; }
    /// Full N-D index of slice cell (row, col).
    std::vector<std::uint64_t> ndIndex(std::uint64_t row, std::uint64_t col) const;
    /// True when ndIndex has rank entries, each inside the shape.
    bool contains(const std::vector<std::uint64_t> &ndIndex) const;

    bool operator==(const TensorSlice &) const = default;

private:
    Shape m_shape;
    int m_rowDim = -1, m_colDim = -1;
    std::vector<std::uint64_t> m_fixed;
    std::uint64_t m_rows = 1, m_cols = 1, m_rowStride = 0, m_colStride = 0, m_base = 0;
};

/// The shape the value views index `t` with: its shape, or {count} (flat) when the shape does
/// not match the element count of the view.
Shape displayShape(const LoadedTensor &t);

/// "[3, 5, 7]"; with (row, col) ranges "[3, 0:4, 8:12]" (numpy slice notation, end exclusive).
QString ndIndexToString(const std::vector<std::uint64_t> &index);
QString sliceRangeToString(const TensorSlice &s, std::uint64_t row0, std::uint64_t row1, std::uint64_t col0, std::uint64_t col1);
/// Parses "i, j, k" (brackets, spaces and negative indices from the end allowed) against the
/// shape. Returns false with an empty `index` when the text does not name an element.
bool parseNdIndex(const QString &text, const Shape &shape, std::vector<std::uint64_t> &index);

/// A slice reduced to at most maxSide x maxSide blocks for plotting: the mean of the finite
/// values of each block (NaN when it has none) and the most severe class found in it
/// (NaN > +Inf > -Inf > Saturated > Normal).
struct SliceBlocks
{
    TensorSlice slice;
    std::uint64_t blockRows = 1, blockCols = 1; ///< slice cells per block along each axis
    int rows = 0, cols = 0;                     ///< blocks
    std::vector<double> mean;                   ///< rows * cols, row-major
    std::vector<std::uint8_t> cls;              ///< ValueClass per block
    std::vector<std::uint64_t> special;         ///< NaN + Inf + saturated elements per block
    double min = std::numeric_limits<double>::quiet_NaN(); ///< over the finite block means
    double max = std::numeric_limits<double>::quiet_NaN();

    bool downsampled() const { return blockRows > 1 || blockCols > 1; }
    size_t at(int row, int col) const { return size_t(row) * size_t(cols) + size_t(col); }
};

/// Reads every element of the slice once (all cores). Returns false when cancelled. The view
/// must hold the whole tensor described by slice.shape().
bool downsampleSlice(const TensorView &view, const TensorSlice &slice, int maxSide, SliceBlocks &out,
                     const JobControl *job = nullptr);

// ---------------------------------------------------------------------------------------------

/// The values of one 2-D slice of a loaded tensor, one page (at most kPageRows x kPageCols)
/// at a time. data() decodes the single element asked for from the tensor's mapped or owned
/// bytes: opening a tensor of 10^9 elements costs nothing.
class TensorValuesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    static constexpr std::uint64_t kPageRows = 10000;
    static constexpr std::uint64_t kPageCols = 1000;
    enum Role {
        ValueRole = Qt::UserRole + 1, ///< double (magnitude for complex)
        ClassRole,                    ///< int(ValueClass)
        FlatIndexRole,                ///< qulonglong row-major element index
    };

    explicit TensorValuesModel(QObject *parent = nullptr);
    ~TensorValuesModel() override;

    /// Shows the default slice (last two dims) of `tensor`, page 0. Null clears.
    void setTensor(std::shared_ptr<const LoadedTensor> tensor);
    std::shared_ptr<const LoadedTensor> tensor() const { return m_tensor; }
    /// The shape the model indexes: the tensor's, or {count} when the shape does not match
    /// the element count.
    const Shape &shape() const { return m_slice.shape(); }
    const TensorSlice &slice() const { return m_slice; }

    /// Displayed dims and fixed indices for every dim (rank entries; the displayed dims'
    /// entries are ignored). Goes back to page 0 when the displayed dims change.
    void setSlice(int rowDim, int colDim, std::vector<std::uint64_t> fixedIndex);
    void setSlice(const TensorSlice &slice) { setSlice(slice.rowDim(), slice.colDim(), slice.fixed()); }
    /// Page origin in slice rows/columns (clamped).
    void setPage(std::uint64_t rowStart, std::uint64_t colStart);
    std::uint64_t pageRow() const { return m_pageRow; }
    std::uint64_t pageCol() const { return m_pageCol; }
    std::uint64_t totalRows() const { return m_tensor ? m_slice.rows() : 0; }
    std::uint64_t totalCols() const { return m_tensor ? m_slice.cols() : 0; }

    /// Number text format: QString::number's format and precision ('g', 8).
    void setNumberFormat(char format, int precision);
    char numberFormat() const { return m_format; }
    int precision() const { return m_precision; }

    /// Full N-D index of a cell of the current page; empty when invalid.
    std::vector<std::uint64_t> indexOf(const QModelIndex &index) const;
    /// The cell showing `ndIndex`: switches the fixed indices and the page when needed.
    /// Invalid when the index is not inside the tensor.
    QModelIndex locate(const std::vector<std::uint64_t> &ndIndex);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    /// Displayed dims or fixed indices changed (also after setTensor and locate).
    void sliceChanged();
    /// Page origin changed (also after setTensor, setSlice and locate).
    void pageChanged();

private:
    bool cell(const QModelIndex &index, std::uint64_t &row, std::uint64_t &col) const;

    std::shared_ptr<const LoadedTensor> m_tensor;
    TensorSlice m_slice;
    std::uint64_t m_pageRow = 0, m_pageCol = 0;
    char m_format = 'g';
    int m_precision = 8;
};

} // namespace ds
