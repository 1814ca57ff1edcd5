#include "h5dumper.h"

#include "h5handle.h"
#include "h5isolate.h"
#include "dump/partstream.h"
#include "tensor/dtype.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QRegularExpression>

#include <algorithm>
#include <limits>
#include <optional>

namespace ds::h5dumper {

namespace {

constexpr int kMaxRank = 8;                 // h5-dumper.md §7: cap the rank at 8
constexpr hssize_t kMaxValueElements = 4096; // non-tensor values read while indexing
constexpr hssize_t kMaxAttrElements = 64;
constexpr int kSaveTensor = 0;

QByteArray utf8(const QString &s) { return s.toUtf8(); }

/// Python-like text of a double: 1.0, 0.5, 1e-05, inf, nan.
QString doubleText(double v)
{
    QString s = QString::number(v, 'g', QLocale::FloatingPointShortest);
    if (s == QLatin1String("inf") || s == QLatin1String("-inf") || s == QLatin1String("nan"))
        return s;
    if (!s.contains(QLatin1Char('.')) && !s.contains(QLatin1Char('e')))
        s += QStringLiteral(".0");
    return s;
}

/// The integer or float type a dataset stores (the base type of an enum).
struct StoredType
{
    H5T_class_t cls = H5T_NO_CLASS;
    size_t size = 0;
    bool isSigned = true;
    bool enumeration = false;
    bool bigEndian = false;
};

std::optional<StoredType> storedType(hid_t type)
{
    StoredType st;
    h5::Handle base;
    hid_t t = type;
    if (H5Tget_class(type) == H5T_ENUM) {
        base = h5::Handle(H5Tget_super(type), H5Tclose);
        if (!base)
            return std::nullopt;
        t = base.get();
        st.enumeration = true;
    }
    st.cls = H5Tget_class(t);
    if (st.cls != H5T_INTEGER && st.cls != H5T_FLOAT)
        return std::nullopt;
    st.size = H5Tget_size(t);
    st.bigEndian = H5Tget_order(t) == H5T_ORDER_BE;
    if (st.cls == H5T_INTEGER)
        st.isSigned = H5Tget_sign(t) == H5T_SGN_2;
    return st;
}

/// Our DataType for a stored HDF5 number type; -1 if there is none.
int dataTypeFromStored(const StoredType &st)
{
    using enum DataType;
    if (st.cls == H5T_FLOAT)
        return st.size == 2 ? int(Float16) : st.size == 4 ? int(Float32) : st.size == 8 ? int(Float64) : -1;
    switch (st.size) {
    case 1: return int(st.isSigned ? Int8 : UInt8);
    case 2: return int(st.isSigned ? Int16 : UInt16);
    case 4: return int(st.isSigned ? Int32 : UInt32);
    case 8: return int(st.isSigned ? Int64 : UInt64);
    default: return -1;
    }
}

std::optional<std::vector<std::int64_t>> readIntAttr(hid_t obj, const char *name)
{
    if (H5Aexists(obj, name) <= 0)
        return std::nullopt;
    h5::Handle attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
    if (!attr)
        return std::nullopt;
    h5::Handle space(H5Aget_space(attr.get()), H5Sclose);
    h5::Handle type(H5Aget_type(attr.get()), H5Tclose);
    const hssize_t n = space ? H5Sget_simple_extent_npoints(space.get()) : -1;
    if (n < 0 || n > kMaxAttrElements || !type)
        return std::nullopt;
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls != H5T_INTEGER && cls != H5T_FLOAT)
        return std::nullopt;
    std::vector<std::int64_t> v(static_cast<size_t>(n));
    if (n && H5Aread(attr.get(), H5T_NATIVE_INT64, v.data()) < 0)
        return std::nullopt;
    return v;
}

std::optional<std::int64_t> readIntScalarAttr(hid_t obj, const char *name)
{
    const auto v = readIntAttr(obj, name);
    if (!v || v->size() != 1)
        return std::nullopt;
    return v->front();
}

/// Element texts of a small numeric dataset.
std::optional<QStringList> readValueTexts(hid_t ds, const StoredType &st, hssize_t n)
{
    QStringList out;
    if (n == 0)
        return out;
    if (st.enumeration)
        return std::nullopt;
    if (st.cls == H5T_FLOAT) {
        std::vector<double> v(static_cast<size_t>(n));
        if (H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
            return std::nullopt;
        for (double d : v)
            out << doubleText(d);
    } else if (!st.isSigned && st.size == 8) {
        std::vector<std::uint64_t> v(static_cast<size_t>(n));
        if (H5Dread(ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
            return std::nullopt;
        for (auto x : v)
            out << QString::number(x);
    } else {
        std::vector<std::int64_t> v(static_cast<size_t>(n));
        if (H5Dread(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
            return std::nullopt;
        for (auto x : v)
            out << QString::number(x);
    }
    return out;
}

QString memoryFormatName(qlonglong v)
{
    static const char *const names[] = {"Contiguous", "Preserve", "ChannelsLast", "ChannelsLast3d"};
    if (v >= 0 && v < 4)
        return QStringLiteral("%1 (%2)").arg(QLatin1String(names[v])).arg(v);
    return QString::number(v);
}

/// The value text of a non-tensor leaf (h5-dumper.md §4).
QString valueText(int saveType, const QStringList &elems, bool scalar, const StoredType &st, hid_t ds)
{
    const auto boolText = [](const QString &e) { return e == QLatin1String("0") ? QStringLiteral("False") : QStringLiteral("True"); };
    if (saveType == 18) { // TENSOR_OPTS: everything is in the attributes
        const auto dev = readIntScalarAttr(ds, "DeviceType");
        const auto dt = readIntScalarAttr(ds, "DataType");
        const auto rg = readIntScalarAttr(ds, "RequiresGrad");
        QStringList parts;
        if (dev)
            parts << QStringLiteral("device=%1").arg(deviceTypeName(int(*dev)));
        if (dt)
            parts << QStringLiteral("dtype=%1").arg(dataTypeCodeName(int(*dt)));
        if (rg)
            parts << QStringLiteral("requires_grad=%1").arg(*rg ? QStringLiteral("True") : QStringLiteral("False"));
        return parts.join(QStringLiteral(", "));
    }
    if (scalar && elems.size() == 1) {
        const QString &e = elems.front();
        switch (saveType) {
        case 4: return boolText(e);                                                    // BOOL
        case 7: case 10: return st.cls == H5T_INTEGER && st.size == 1 ? boolText(e) : e; // (OPT_)SCALAR
        case 14: return dataTypeCodeName(e.toInt());                                   // ScalarType
        case 17: return memoryFormatName(e.toLongLong());                              // OPT_MEM_FMT
        default: return e;
        }
    }
    if (saveType == 15 && elems.size() == 2) // PAIR
        return QStringLiteral("(%1, %2)").arg(elems[0], elems[1]);
    return QLatin1Char('[') + elems.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString typeNameForSave(int saveType)
{
    switch (saveType) {
    case 2: return QStringLiteral("int[] (VEC_I64)");
    case 3: return QStringLiteral("int (I64)");
    case 4: return QStringLiteral("bool (BOOL)");
    case 5: return QStringLiteral("float (DOUBLE)");
    case 6: return QStringLiteral("float? (OPT_DOUBLE)");
    case 7: return QStringLiteral("Scalar (SCALAR)");
    case 9: return QStringLiteral("int? (OPT_INT64)");
    case 10: return QStringLiteral("Scalar? (OPT_SCALAR)");
    case 13: return QStringLiteral("size_t (SIZE)");
    case 14: return QStringLiteral("ScalarType");
    case 15: return QStringLiteral("pair (PAIR)");
    case 16: return QStringLiteral("long[] (AR_LONG_INT)");
    case 17: return QStringLiteral("MemoryFormat (OPT_MEM_FMT)");
    case 18: return QStringLiteral("TensorOptions (TENSOR_OPTS)");
    default: return saveTypeName(saveType);
    }
}

struct Indexer
{
    QString relPath;
    IndexPart part;
    std::uint64_t fileSize = 0;

    void error(const QString &objPath, const QString &what)
    {
        part.errors.push_back({relPath, QStringLiteral("%1: %2").arg(objPath, what), 0});
    }

    /// Opens a hard link's target; soft and external links are reported and not followed.
    h5::Handle openChild(hid_t parent, const QString &name, const QString &path, H5I_type_t &kind)
    {
        const QByteArray n = utf8(name);
        H5L_info_t linfo;
        if (H5Lget_info(parent, n.constData(), &linfo, H5P_DEFAULT) < 0) {
            error(path, QStringLiteral("cannot read the link (%1)").arg(h5::lastError()));
            return {};
        }
        if (linfo.type != H5L_TYPE_HARD) {
            error(path, QStringLiteral("is a soft or external link; links are not followed"));
            return {};
        }
        h5::Handle obj(H5Oopen(parent, n.constData(), H5P_DEFAULT), H5Oclose);
        if (!obj) {
            error(path, QStringLiteral("cannot open (%1)").arg(h5::lastError()));
            return {};
        }
        kind = H5Iget_type(obj.get());
        return obj;
    }

    /// Adds the leaf to `op`; false (with an error) when the object is skipped.
    bool leaf(hid_t ds, const QString &path, const QString &name, IoKind io, std::uint32_t index, OpRecord &op)
    {
        h5::Handle space(H5Dget_space(ds), H5Sclose);
        h5::Handle type(H5Dget_type(ds), H5Tclose);
        if (!space || !type) {
            error(path, QStringLiteral("cannot read the dataspace or type (%1)").arg(h5::lastError()));
            return false;
        }
        const H5S_class_t spaceClass = H5Sget_simple_extent_type(space.get());
        const int rank = H5Sget_simple_extent_ndims(space.get());
        if (rank < 0 || rank > kMaxRank) {
            error(path, QStringLiteral("rank %1 is not supported (at most %2)").arg(rank).arg(kMaxRank));
            return false;
        }
        hsize_t dims[kMaxRank] = {};
        H5Sget_simple_extent_dims(space.get(), dims, nullptr);
        const auto st = storedType(type.get());
        const auto saveType = readIntScalarAttr(ds, "Type");
        const int save = saveType ? int(*saveType) : -1;

        TensorFields t;
        t.io = io;
        t.index = index;
        t.name = name;
        t.location = path;
        if (save == kSaveTensor || save < 0) {
            if (!st) {
                error(path, QStringLiteral("the dataset type is not a number type; skipped"));
                return false;
            }
            int dt = dataTypeFromStored(*st);
            if (dt < 0) {
                error(path, QStringLiteral("%1-byte numbers are not supported").arg(st->size));
                return false;
            }
            Shape shape;
            if (spaceClass == H5S_NULL)
                shape = {0};
            for (int i = 0; i < rank; ++i)
                shape.push_back(dims[i]);
            const auto code = readIntScalarAttr(ds, "DataType");
            const auto device = readIntScalarAttr(ds, "DeviceType");
            const auto format = readIntScalarAttr(ds, "FormatType");
            const auto stride = readIntAttr(ds, "Stride");
            QString typeName = dataTypeName(dt);
            if (code) {
                const int fromCode = dataTypeFromCode(int(*code));
                const QString codeName = dataTypeCodeName(int(*code));
                if (fromCode == int(DataType::UInt8) && dt == int(DataType::Int8)) {
                    dt = fromCode; // Byte is written with a signed 8-bit file type
                    typeName = codeName;
                } else if (fromCode == int(DataType::Bool) && (dt == int(DataType::Int8) || dt == int(DataType::UInt8))) {
                    dt = fromCode;
                    typeName = codeName;
                } else if (fromCode == int(DataType::Float16) && dt == int(DataType::Float32)) {
                    typeName = QStringLiteral("float16 (stored as float32)");
                    if (device && *device == 0)
                        op.extra().warnings << QStringLiteral("%1: CPU float16 tensor written as float32 by the dumper (writer bug); "
                                                      "the values are unreliable").arg(path);
                } else if (fromCode == dt) {
                    typeName = codeName;
                } else {
                    op.extra().warnings << QStringLiteral("%1: DataType attribute says %2 but the dataset stores %3")
                                       .arg(path, codeName, dataTypeName(dt));
                }
            }
            if (st->enumeration && dt == int(DataType::Int8))
                dt = int(DataType::Bool); // h5py writes numpy bool as an int8 enum {FALSE, TRUE}
            if (save < 0) {
                typeName = QStringLiteral("unknown (no Type attribute): %1").arg(typeName);
                // Absent, or present but not one integer (a string, an array): say which.
                if (H5Aexists(ds, "Type") > 0)
                    op.addWarning(QStringLiteral("%1: the Type attribute is not an integer; shown as a tensor").arg(path));
                else
                    op.addWarning(QStringLiteral("%1: no Type attribute; shown as a tensor").arg(path));
            }
            if (stride && !shape.empty()) {
                // C-order strides; where they pass 64 bits (huge, unallocated datasets) no
                // recorded stride can match: -1 there.
                std::vector<std::int64_t> cOrder(shape.size());
                std::int64_t s = 1;
                bool overflow = false;
                for (size_t i = shape.size(); i-- > 0;) {
                    cOrder[i] = overflow ? -1 : s;
                    const std::uint64_t dim = std::max<std::uint64_t>(shape[i], 1);
                    overflow = overflow || dim > std::uint64_t(std::numeric_limits<std::int64_t>::max())
                               || __builtin_mul_overflow(s, std::int64_t(dim), &s);
                }
                if (*stride != cOrder) {
                    QStringList parts;
                    for (auto v : *stride)
                        parts << QString::number(v);
                    op.extra().warnings << QStringLiteral("%1: Stride [%2] is not the C-order stride of the shape; read as C order")
                                       .arg(path, parts.join(QStringLiteral(", ")));
                }
            }
            t.storage = TensorStorage::H5Dataset;
            t.dataType = dt;
            t.typeName = typeName;
            t.format = format ? int(*format) : 2;
            t.originalShape = shape;
            t.size = elementCount(shape).value_or(0) * st->size;
            t.shape = std::move(shape);
            op.tensors.push_back(TensorRecord(t));
            return true;
        }
        // Non-tensor value.
        t.storage = TensorStorage::Value;
        t.typeName = typeNameForSave(save);
        const hssize_t n = H5Sget_simple_extent_npoints(space.get());
        if (save == 18) {
            t.value = valueText(save, {}, true, StoredType{}, ds);
        } else if (!st) {
            t.value = QStringLiteral("(not a number type)");
        } else if (n > kMaxValueElements) {
            t.value = QStringLiteral("[%1 values]").arg(n);
        } else if (st->size == 0 || st->size > 16) {
            error(path, QStringLiteral("the value's number type is %1 bytes wide; not read").arg(st->size));
            return false;
        } else if (const std::uint64_t stored = H5Dget_storage_size(ds); stored > fileSize) {
            // A damaged layout message: libhdf5 would allocate (and fill) what it claims.
            error(path, QStringLiteral("the value's storage (%1 bytes) is larger than the file (%2 bytes); not read")
                            .arg(stored).arg(fileSize));
            return false;
        } else if (const auto elems = readValueTexts(ds, *st, n)) {
            t.value = valueText(save, *elems, rank == 0, *st, ds);
        } else {
            error(path, QStringLiteral("cannot read the value (%1)").arg(h5::lastError()));
            return false;
        }
        op.tensors.push_back(TensorRecord(t));
        return true;
    }

    /// `/{op}/{seq}/{input|output}`: datasets and list groups.
    void direction(hid_t group, const QString &path, IoKind io, OpRecord &op)
    {
        std::uint32_t index = 0;
        for (const QString &arg : h5::linkNames(group)) {
            const QString argPath = path + QLatin1Char('/') + arg;
            H5I_type_t kind = H5I_BADID;
            h5::Handle obj = openChild(group, arg, argPath, kind);
            if (!obj)
                continue;
            if (kind == H5I_DATASET) {
                index += leaf(obj.get(), argPath, arg, io, index, op) ? 1 : 0;
                continue;
            }
            if (kind != H5I_GROUP) {
                error(argPath, QStringLiteral("expected a dataset or a list group"));
                continue;
            }
            // List argument: members {arg}_{i}, in numeric order of i.
            std::vector<std::pair<std::int64_t, QString>> members;
            const QString prefix = arg + QLatin1Char('_');
            for (const QString &m : h5::linkNames(obj.get())) {
                bool ok = false;
                const std::int64_t i = m.startsWith(prefix) ? m.mid(prefix.size()).toLongLong(&ok) : -1;
                members.emplace_back(ok ? i : std::numeric_limits<std::int64_t>::max(), m);
            }
            std::stable_sort(members.begin(), members.end());
            for (const auto &[i, m] : members) {
                const QString memberPath = argPath + QLatin1Char('/') + m;
                H5I_type_t memberKind = H5I_BADID;
                h5::Handle member = openChild(obj.get(), m, memberPath, memberKind);
                if (!member)
                    continue;
                if (memberKind != H5I_DATASET) {
                    error(memberPath, QStringLiteral("expected a dataset inside the list argument %1").arg(arg));
                    continue;
                }
                const QString leafName = i != std::numeric_limits<std::int64_t>::max()
                                             ? arg + QLatin1Char('.') + QString::number(i)
                                             : arg + QLatin1Char('.') + m;
                index += leaf(member.get(), memberPath, leafName, io, index, op) ? 1 : 0;
            }
        }
    }
};

const char kSignature[] = "\x89HDF\r\n\x1a\n";

/// The largest index a worker may send (an encoded IndexPart; decodePart checks it further).
constexpr std::uint64_t kMaxIndexAnswer = 1ull << 30;

/// The part of a file whose isolated indexing failed: one error naming the file.
IndexPart failedPart(const QString &relPath, const QString &why)
{
    IndexPart part;
    part.framework = QStringLiteral("pytorch");
    part.errors.push_back(Error(ErrorKind::ReaderFailed, relPath, why));
    return part;
}

} // namespace

int dataTypeFromCode(int code)
{
    using enum DataType;
    switch (code) {
    case 1: return int(Float32);
    case 2: return int(UInt8);
    case 3: return int(Int8);
    case 5: return int(Int16);
    case 6: return int(Int32);
    case 7: return int(Int64);
    case 9: return int(Bool);
    case 10: return int(Float16);
    case 11: return int(Float64);
    default: return -1;
    }
}

QString dataTypeCodeName(int code)
{
    const int t = dataTypeFromCode(code);
    return t < 0 ? QStringLiteral("code %1").arg(code) : dataTypeName(t);
}

QString deviceTypeName(int code)
{
    return code == 0 ? QStringLiteral("CPU") : code == 1 ? QStringLiteral("CUDA") : QStringLiteral("NPU");
}

QString saveTypeName(int code)
{
    static const char *const names[] = {"TENSOR", "VEC_TENSOR", "VEC_I64", "I64", "BOOL", "DOUBLE", "OPT_DOUBLE",
                                        "SCALAR", "TYPE_AND_SIZE", "OPT_INT64", "OPT_SCALAR", "VEC_VEC_I64",
                                        "GEOMETRY", "SIZE", "ScalarType", "PAIR", "AR_LONG_INT", "OPT_MEM_FMT",
                                        "TENSOR_OPTS"};
    if (code >= 0 && code < int(std::size(names)))
        return QLatin1String(names[code]);
    return QStringLiteral("SaveType %1").arg(code);
}

bool looksLikeHdf5(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return false;
    const qint64 size = f.size();
    for (qint64 offset = 0; offset + 8 <= size; offset = offset ? offset * 2 : 512) {
        if (!f.seek(offset))
            return false;
        if (f.read(8) == QByteArray(kSignature, 8))
            return true;
    }
    return false;
}

Result<IndexPart> indexFile(const QString &rootDir, const QString &relPath, const DumpLevels &levels,
                                const JobControl *job)
{
    h5::Request request;
    request.kind = h5::RequestKind::Index;
    request.index = {rootDir, relPath};
    const QString garbled = QCoreApplication::translate("H5Isolate", "the HDF5 reader process sent an incomplete or garbled result");
    auto part = h5::runWithRetry(job, [&](h5::Worker &worker) -> Result<IndexPart> {
        if (auto e = worker.start(request))
            return *e;
        const auto bytes = worker.answer(kMaxIndexAnswer);
        if (!bytes)
            return bytes.error();
        auto decoded = decodePart(*bytes);
        if (!decoded)
            return Error(ErrorKind::ReaderFailed, QString(), garbled);
        // A worker that met a damaged object is not used again.
        if (auto e = worker.finish(decoded->errors.empty()))
            return *e;
        return std::move(*decoded);
    });
    if (job && job->cancelled())
        return Cancelled{};
    if (!part)
        return failedPart(relPath, part.error().message);
    const SharedLevels sharedLevels(levels);
    for (OpRecord &op : part->ops)
        op.levels = sharedLevels;
    return std::move(*part);
}

Result<IndexPart> indexFileInProcess(const QString &rootDir, const QString &relPath, const DumpLevels &levels,
                                         const JobControl *job)
{
    h5::silenceErrors();
    Indexer ix;
    ix.relPath = relPath;
    const SharedLevels sharedLevels(levels);
    ix.part.framework = QStringLiteral("pytorch");
    const QString path = rootDir + QLatin1Char('/') + relPath;
    const QFileInfo info(path);
    if (!info.isFile()) {
        ix.part.errors.push_back({relPath, QStringLiteral("no such file"), 0});
        return std::move(ix.part);
    }
    if (!looksLikeHdf5(path)) {
        ix.part.errors.push_back({relPath, QStringLiteral("not an HDF5 file (no HDF5 signature at offset 0, 512, 1024, ...)"), 0});
        return std::move(ix.part);
    }
    h5::Handle file = h5::openReadOnly(path);
    if (!file) {
        ix.part.errors.push_back({relPath, QStringLiteral("cannot open the HDF5 file (%1)").arg(h5::lastError()), 0});
        return std::move(ix.part);
    }
    h5::Handle root(H5Gopen2(file.get(), "/", H5P_DEFAULT), H5Gclose);
    if (!root) {
        ix.part.errors.push_back({relPath, QStringLiteral("cannot open the root group (%1)").arg(h5::lastError()), 0});
        return std::move(ix.part);
    }
    const std::uint64_t fileSize = std::uint64_t(info.size());
    ix.fileSize = fileSize;
    std::vector<std::pair<std::int64_t, size_t>> order; // (seqId, index into part.ops)
    const QStringList opNames = h5::linkNames(root.get());
    for (qsizetype oi = 0; oi < opNames.size(); ++oi) {
        if (job && job->cancelled())
            return Cancelled{};
        if (job)
            job->report(int(1000 * oi / opNames.size()));
        const QString &opName = opNames[oi];
        const QString opPath = QLatin1Char('/') + opName;
        H5I_type_t kind = H5I_BADID;
        h5::Handle opGroup = ix.openChild(root.get(), opName, opPath, kind);
        if (!opGroup)
            continue;
        if (kind != H5I_GROUP) {
            ix.error(opPath, QStringLiteral("expected an operator group, found a dataset"));
            continue;
        }
        static const QRegularExpression seqRe(QStringLiteral("^-?[0-9]{1,18}$"));
        for (const QString &seq : h5::linkNames(opGroup.get())) {
            const QString seqPath = opPath + QLatin1Char('/') + seq;
            if (!seqRe.match(seq).hasMatch()) {
                ix.error(seqPath, QStringLiteral("expected a numbered call group (seqId)"));
                continue;
            }
            h5::Handle seqGroup = ix.openChild(opGroup.get(), seq, seqPath, kind);
            if (!seqGroup)
                continue;
            if (kind != H5I_GROUP) {
                ix.error(seqPath, QStringLiteral("expected a call group, found a dataset"));
                continue;
            }
            const std::int64_t seqId = seq.toLongLong();
            OpRecord op;
            op.relPath = relPath + seqPath;
            op.dataFile = relPath;
            op.levels = sharedLevels;
            op.opType = opName;
            op.opName = opName;
            op.extra().headerOpName = opName;
            op.timestamp = seqId < 0 ? 0 : std::uint64_t(seqId);
            op.extra().fileSize = fileSize;
            if (seqId < 0)
                op.addWarning(QStringLiteral("seqId %1: recorded without a sequence number (inputs only)").arg(seqId));
            for (const QString &dir : h5::linkNames(seqGroup.get())) {
                const QString dirPath = seqPath + QLatin1Char('/') + dir;
                const bool isInput = dir == QLatin1String("input");
                if (!isInput && dir != QLatin1String("output")) {
                    ix.error(dirPath, QStringLiteral("expected 'input' or 'output'"));
                    continue;
                }
                h5::Handle dirGroup = ix.openChild(seqGroup.get(), dir, dirPath, kind);
                if (!dirGroup)
                    continue;
                if (kind != H5I_GROUP) {
                    ix.error(dirPath, QStringLiteral("expected a group of arguments, found a dataset"));
                    continue;
                }
                ix.direction(dirGroup.get(), dirPath, isInput ? IoKind::Input : IoKind::Output, op);
            }
            std::stable_sort(op.tensors.begin(), op.tensors.end(),
                             [](const TensorRecord &a, const TensorRecord &b) { return a.io() < b.io(); });
            order.emplace_back(seqId, ix.part.ops.size());
            ix.part.ops.push_back(std::move(op));
        }
    }
    std::stable_sort(order.begin(), order.end(), [&](const auto &a, const auto &b) {
        return a.first != b.first ? a.first < b.first : ix.part.ops[a.second].opName < ix.part.ops[b.second].opName;
    });
    std::vector<OpRecord> sorted;
    sorted.reserve(order.size());
    for (const auto &o : order)
        sorted.push_back(std::move(ix.part.ops[o.second]));
    ix.part.ops = std::move(sorted);
    if (job)
        job->report(1000);
    return std::move(ix.part);
}

} // namespace ds::h5dumper
