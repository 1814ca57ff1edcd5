#include "comparexlsx.h"

#include <QFile>
#include <QFileInfo>
#include <QUuid>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <xlsxwriter.h>

namespace ds {

namespace {

constexpr lxw_row_t kMaxSheetRows = 1048500; // msprobe's CompareConst.MAX_EXCEL_LENGTH
constexpr int kMaxCellChars = 32767;          // Excel's limit on a cell's text

QByteArray cellText(const QString &s)
{
    return (s.size() > kMaxCellChars ? s.left(kMaxCellChars) : s).toUtf8();
}

} // namespace

QString writeCompareXlsx(const QString &path, const DumpIndex &npu, const DumpIndex &bench, const CompareResult &result,
                         ReportStyle style)
{
    return writeCompareXlsx(path, compareCsvHeader(result.mode, style, reportHasStack(npu)), result.rows.size(),
                            [&](const ReportRowSink &sink) { forEachReportRow(npu, bench, result, style, sink); });
}

QString writeCompareXlsx(const QString &path, const QStringList &columns, size_t rowCount,
                         const std::function<void(const ReportRowSink &)> &rows)
{
    const QFileInfo target(path);
    const QString temp = target.absolutePath() + QStringLiteral("/.%1.%2.tmp")
                                                      .arg(target.fileName(), QUuid::createUuid().toString(QUuid::Id128));
    const QByteArray tempName = QFile::encodeName(temp);
    lxw_workbook_options options{};
    options.constant_memory = LXW_TRUE; // rows are written in order: no workbook in memory
    lxw_workbook *book = workbook_new_opt(tempName.constData(), &options);
    if (!book)
        return QStringLiteral("cannot create %1").arg(temp);
    lxw_format *header = workbook_add_format(book);
    format_set_bold(header);
    format_set_border(header, LXW_BORDER_THIN);
    format_set_align(header, LXW_ALIGN_CENTER);
    format_set_align(header, LXW_ALIGN_VERTICAL_TOP);

    const bool split = rowCount >= kMaxSheetRows;
    lxw_worksheet *sheet = nullptr;
    lxw_row_t row = 0;
    int part = 0;
    lxw_error error = LXW_NO_ERROR;
    auto newSheet = [&] {
        const QByteArray name = split ? QStringLiteral("part_%1").arg(part++).toUtf8() : QByteArrayLiteral("Sheet1");
        sheet = workbook_add_worksheet(book, name.constData());
        row = 0;
        for (qsizetype c = 0; c < columns.size() && sheet; ++c)
            error = std::max(error, worksheet_write_string(sheet, 0, lxw_col_t(c), cellText(columns[c]).constData(), header));
        row = 1;
    };
    // msprobe splits into parts of equal size
    const size_t parts = split ? (rowCount + kMaxSheetRows - 1) / kMaxSheetRows : 1;
    const size_t perPart = (rowCount + parts - 1) / std::max<size_t>(parts, 1);
    size_t written = 0;
    newSheet();
    rows([&](const std::vector<MsCell> &cells) {
        if (!sheet || error != LXW_NO_ERROR)
            return;
        if (split && written > 0 && written % perPart == 0)
            newSheet();
        for (size_t c = 0; c < cells.size(); ++c) {
            const MsCell &cell = cells[c];
            const lxw_col_t col = lxw_col_t(c);
            lxw_error e = LXW_NO_ERROR;
            switch (cell.kind) {
            case MsCell::Kind::Bool: e = worksheet_write_boolean(sheet, row, col, cell.number != 0, nullptr); break;
            case MsCell::Kind::Int:
            case MsCell::Kind::Float:
                if (std::isfinite(cell.number))
                    e = worksheet_write_number(sheet, row, col, cell.number, nullptr);
                else
                    e = worksheet_write_string(sheet, row, col, cellText(cell.pyStr()).constData(), nullptr);
                break;
            case MsCell::Kind::Text:
                if (!cell.text.isEmpty())
                    e = worksheet_write_string(sheet, row, col, cellText(cell.text).constData(), nullptr);
                break;
            }
            error = std::max(error, e);
        }
        ++row;
        ++written;
    });
    const lxw_error closed = workbook_close(book);
    if (!sheet || error != LXW_NO_ERROR || closed != LXW_NO_ERROR) {
        QFile::remove(temp);
        return QStringLiteral("cannot write %1: %2").arg(path, QString::fromUtf8(lxw_strerror(error != LXW_NO_ERROR ? error : closed)));
    }
    if (std::rename(tempName.constData(), QFile::encodeName(target.absoluteFilePath()).constData()) != 0) {
        QFile::remove(temp);
        return QStringLiteral("cannot write %1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)));
    }
    return {};
}

} // namespace ds
