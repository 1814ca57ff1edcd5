#include "exportwriter.h"

#include "io/pagerelease.h"

#include <QFileInfo>
#include <QSaveFile>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace ds {

namespace {

constexpr size_t kBlock = 1 << 16; // elements converted/formatted per write

/// Hands the source pages already written back to the kernel every 8 MiB (and at the end)
/// when they are a mapped file's (releaseMappedPages): exporting a tensor of many GiB
/// keeps a few MiB of it resident.
class ReleaseBehind
{
public:
    ReleaseBehind(const std::byte *data, size_t elemSize) : m_data(data), m_elemSize(elemSize) {}
    ~ReleaseBehind() { flush(); }
    ReleaseBehind(const ReleaseBehind &) = delete;
    ReleaseBehind &operator=(const ReleaseBehind &) = delete;
    void advance(size_t doneElems)
    {
        m_done = doneElems;
        if ((m_done - m_released) * m_elemSize >= (size_t(8) << 20))
            flush();
    }

private:
    void flush()
    {
        if (m_done > m_released)
            releaseMappedPages(m_data + m_released * m_elemSize, (m_done - m_released) * m_elemSize);
        m_released = m_done;
    }
    const std::byte *m_data;
    size_t m_elemSize;
    size_t m_done = 0, m_released = 0;
};

std::optional<Error> openTarget(QSaveFile &file, const QString &path, const WriteOptions &options)
{
    if (!options.force && QFileInfo::exists(path))
        return Error(ErrorKind::Usage, path, QStringLiteral("already exists (use --force to overwrite)"));
    if (!file.open(QIODevice::WriteOnly))
        return Error(ErrorKind::Access, path, QStringLiteral("cannot write: %1").arg(file.errorString()));
    return {};
}

std::optional<Error> finish(QSaveFile &file, const QString &path, const JobControl *job)
{
    if (job && job->cancelled()) {
        file.cancelWriting();
        file.commit();
        return Error(Cancelled{});
    }
    if (!file.commit())
        return Error(ErrorKind::Access, path, QStringLiteral("cannot write: %1").arg(file.errorString()));
    return {};
}

/// Appends `n` values starting at element `i` converted to the export kind.
void appendConverted(QByteArray &buf, Elem elem, const std::byte *data, size_t i, size_t n)
{
    const Elem out = exportElem(elem);
    if (out == elem) {
        buf.append(reinterpret_cast<const char *>(data + i * elemBytes(elem)), qsizetype(n * elemBytes(elem)));
        return;
    }
    if (elem == Elem::C32) {
        for (size_t k = i; k < i + n; ++k) {
            std::uint16_t p[2];
            std::memcpy(p, data + k * 4, 4);
            const float c[2] = {float(halfToDouble(p[0])), float(halfToDouble(p[1]))};
            buf.append(reinterpret_cast<const char *>(c), 8);
        }
        return;
    }
    for (size_t k = i; k < i + n; ++k) {
        const float f = float(elemToDouble(elem, data, k)); // exact: every source value fits in float32
        buf.append(reinterpret_cast<const char *>(&f), 4);
    }
}

void appendNumber(QByteArray &line, double v, const char *fmt)
{
    if (std::isnan(v)) {
        line += "nan";
    } else if (std::isinf(v)) {
        line += v > 0 ? "inf" : "-inf";
    } else {
        char tmp[64];
        const int n = std::snprintf(tmp, sizeof tmp, fmt, v);
        line.append(tmp, n);
    }
}

} // namespace

QByteArray npyHeader(const char *descr, const Shape &shape)
{
    QByteArray dims;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i)
            dims += ", ";
        dims += QByteArray::number(qulonglong(shape[i]));
    }
    if (shape.size() == 1)
        dims += ',';
    QByteArray dict = "{'descr': '" + QByteArray(descr) + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    // magic(6) + version(2) + header_len(2) + dict + padding + '\n' is a multiple of 64.
    const qsizetype unpadded = 10 + dict.size() + 1;
    dict += QByteArray((64 - unpadded % 64) % 64, ' ');
    dict += '\n';
    QByteArray out("\x93NUMPY\x01\x00", 8);
    const auto len = std::uint16_t(dict.size());
    out += char(len & 0xFF);
    out += char(len >> 8);
    return out + dict;
}

std::optional<Error> writeNpy(const QString &path, Elem elem, const std::byte *data, size_t count, const Shape &shape,
                 const WriteOptions &options, const JobControl *job)
{
    const char *descr = elemNumpyDescr(exportElem(elem));
    if (!descr)
        return Error(ErrorKind::Unsupported, path, QStringLiteral("this data type cannot be exported"));
    QSaveFile file(path);
    if (auto err = openTarget(file, path, options))
        return err;
    file.write(npyHeader(descr, shape));
    QByteArray buf;
    ReleaseBehind behind(data, elemBytes(elem));
    for (size_t i = 0; i < count && !(job && job->cancelled()); i += kBlock) {
        const size_t n = std::min(kBlock, count - i);
        buf.clear();
        appendConverted(buf, elem, data, i, n);
        file.write(buf);
        behind.advance(i + n);
        if (job)
            job->report(int(1000 * (i + n) / count));
    }
    return finish(file, path, job);
}

std::optional<Error> writeTxt(const QString &path, Elem elem, const std::byte *data, size_t count, const WriteOptions &options,
                 const JobControl *job)
{
    if (elem == Elem::None)
        return Error(ErrorKind::Unsupported, path, QStringLiteral("this data type cannot be exported"));
    QSaveFile file(path);
    if (auto err = openTarget(file, path, options))
        return err;
    const QByteArray fmt = "%." + QByteArray::number(std::clamp(options.txtPrecision, 0, 40)) + 'e';
    const bool complex = isComplex(elem);
    QByteArray buf;
    ReleaseBehind behind(data, elemBytes(elem));
    for (size_t i = 0; i < count && !(job && job->cancelled()); i += kBlock) {
        const size_t n = std::min(kBlock, count - i);
        buf.clear();
        for (size_t k = i; k < i + n; ++k) {
            if (complex) {
                double re, im;
                if (elem == Elem::C64) {
                    float p[2];
                    std::memcpy(p, data + k * 8, 8);
                    re = p[0]; im = p[1];
                } else if (elem == Elem::C128) {
                    std::memcpy(&re, data + k * 16, 8);
                    std::memcpy(&im, data + k * 16 + 8, 8);
                } else {
                    std::uint16_t p[2];
                    std::memcpy(p, data + k * 4, 4);
                    re = halfToDouble(p[0]); im = halfToDouble(p[1]);
                }
                buf += " (";
                appendNumber(buf, re, fmt.constData());
                buf += '+';
                appendNumber(buf, im, fmt.constData());
                buf += "j)\n";
            } else {
                appendNumber(buf, elemToDouble(elem, data, k), fmt.constData());
                buf += '\n';
            }
        }
        file.write(buf);
        behind.advance(i + n);
        if (job)
            job->report(int(1000 * (i + n) / count));
    }
    return finish(file, path, job);
}

} // namespace ds
