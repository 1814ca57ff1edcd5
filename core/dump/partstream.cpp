#include "partstream.h"

#include "util/checkedstream.h"

#include <QDataStream>
#include <QIODevice>

#include <algorithm>

namespace ds {

namespace {

constexpr quint32 kMagic = 0x44535046; // "DSPF"
constexpr quint16 kVersion = 2;

template<typename E>
void putEnum(QDataStream &s, E e) { s << quint8(e); }

template<typename E>
void getEnum(QDataStream &s, E &e)
{
    quint8 v = 0;
    s >> v;
    e = E(v);
}

void putShape(QDataStream &s, const Shape &shape)
{
    s << quint32(shape.size());
    for (auto d : shape)
        s << quint64(d);
}

bool getShape(QDataStream &s, Shape &shape)
{
    quint32 n = 0;
    if (!getCheckedCount(s, n, 8))
        return false;
    shape.clear();
    for (quint32 i = 0; i < n; ++i) {
        quint64 d = 0;
        s >> d;
        shape.push_back(d);
    }
    return s.status() == QDataStream::Ok;
}

void putTensor(QDataStream &s, const TensorRecord &rec)
{
    const TensorFields t = rec.fields();
    putShape(s, t.shape);
    putShape(s, t.originalShape);
    s << quint64(t.offset) << quint64(t.size) << quint64(t.address) << t.originalOpName << t.name << t.location
      << t.typeName << t.value << t.checksum;
    s << t.recorded.max << t.recorded.min << t.recorded.mean << t.recorded.norm << quint8(t.recorded.present | (t.recorded.integral << 4)) << t.recorded.numericChecksum;
    s << quint32(t.index) << qint32(t.dataType) << qint32(t.format) << qint32(t.subFormat) << qint32(t.originalOutputIndex);
    putEnum(s, t.io);
    putEnum(s, t.storage);
    s << t.complete;
}

bool getTensor(QDataStream &s, TensorRecord &rec)
{
    TensorFields t;
    if (!getShape(s, t.shape) || !getShape(s, t.originalShape))
        return false;
    quint64 offset = 0, size = 0, address = 0;
    s >> offset >> size >> address >> t.originalOpName >> t.name >> t.location >> t.typeName >> t.value >> t.checksum;
    t.offset = offset;
    t.size = size;
    t.address = address;
    quint8 present = 0;
    s >> t.recorded.max >> t.recorded.min >> t.recorded.mean >> t.recorded.norm >> present >> t.recorded.numericChecksum;
    t.recorded.present = present & 0xF;
    t.recorded.integral = present >> 4;
    quint32 index = 0;
    qint32 dataType = 0, format = 0, subFormat = 0, originalOutputIndex = 0;
    s >> index >> dataType >> format >> subFormat >> originalOutputIndex;
    t.index = index;
    t.dataType = dataType;
    t.format = format;
    t.subFormat = subFormat;
    t.originalOutputIndex = originalOutputIndex;
    getEnum(s, t.io);
    getEnum(s, t.storage);
    s >> t.complete;
    if (s.status() != QDataStream::Ok)
        return false;
    rec = TensorRecord(t);
    return true;
}

void putOp(QDataStream &s, const OpRecord &op)
{
    s << op.relPath.toString() << op.dataFile.toString() << op.opType.toString() << op.opName.toString() << op.headerOpName()
      << op.mappedFrom();
    s << qint64(op.taskId()) << qint64(op.streamId()) << quint64(op.timestamp) << op.version();
    s << quint64(op.dumpTime()) << quint64(op.fileSize()) << quint64(op.headerLen());
    s << quint32(op.tensors.size());
    for (const TensorRecord &t : op.tensors)
        putTensor(s, t);
    putStringList(s, op.warnings());
    s << op.parent.toString() << qint32(op.stack);
    putEnum(s, op.source);
    s << op.opDebug;
    putEnum(s, op.container);
    putEnum(s, op.nanCheck);
}

bool getOp(QDataStream &s, OpRecord &op)
{
    QString relPath, dataFile, opType, opName, parent;
    OpExtra x;
    s >> relPath >> dataFile >> opType >> opName >> x.headerOpName >> x.mappedFrom;
    qint64 taskId = 0, streamId = 0;
    quint64 timestamp = 0, dumpTime = 0, fileSize = 0, headerLen = 0;
    s >> taskId >> streamId >> timestamp >> x.version >> dumpTime >> fileSize >> headerLen;
    op.relPath = relPath;
    op.dataFile = dataFile;
    op.opType = opType;
    op.opName = opName;
    x.taskId = taskId;
    x.streamId = streamId;
    op.timestamp = timestamp;
    x.dumpTime = dumpTime;
    x.fileSize = fileSize;
    x.headerLen = headerLen;
    quint32 n = 0;
    if (!getCheckedCount(s, n, 64))
        return false;
    for (quint32 i = 0; i < n; ++i) {
        TensorRecord t;
        if (!getTensor(s, t))
            return false;
        op.tensors.push_back(std::move(t));
    }
    if (!getStringList(s, x.warnings))
        return false;
    qint32 stack = -1;
    s >> parent >> stack;
    op.parent = parent;
    op.stack = stack;
    getEnum(s, op.source);
    s >> op.opDebug;
    getEnum(s, op.container);
    getEnum(s, op.nanCheck);
    if (x.taskId != -1 || x.streamId != -1 || x.dumpTime || x.fileSize || x.headerLen || !x.headerOpName.isEmpty()
        || !x.mappedFrom.isEmpty() || !x.version.isEmpty() || !x.warnings.isEmpty())
        op.extra() = std::move(x);
    return s.status() == QDataStream::Ok;
}

} // namespace

QByteArray encodePart(const IndexPart &part)
{
    QByteArray bytes;
    QDataStream s(&bytes, QIODevice::WriteOnly);
    s.setVersion(QDataStream::Qt_6_0);
    s << kMagic << kVersion;
    s << quint32(part.ops.size());
    for (const OpRecord &op : part.ops)
        putOp(s, op);
    s << quint32(part.errors.size());
    for (const FileError &e : part.errors)
        s << e.file << e.message << quint64(e.offset);
    s << quint32(part.stacks.size());
    for (const QStringList &stack : part.stacks)
        putStringList(s, stack);
    s << part.task << part.level << part.framework << part.dumpDataDir;
    s << quint32(part.parentInferred.size());
    for (int i : part.parentInferred)
        s << qint32(i);
    return bytes;
}

std::optional<IndexPart> decodePart(const QByteArray &bytes)
{
    QDataStream s(bytes);
    s.setVersion(QDataStream::Qt_6_0);
    quint32 magic = 0;
    quint16 version = 0;
    s >> magic >> version;
    if (s.status() != QDataStream::Ok || magic != kMagic || version != kVersion)
        return std::nullopt;
    IndexPart part;
    quint32 n = 0;
    if (!getCheckedCount(s, n, 64))
        return std::nullopt;
    for (quint32 i = 0; i < n; ++i) {
        OpRecord op;
        if (!getOp(s, op))
            return std::nullopt;
        part.ops.push_back(std::move(op));
    }
    if (!getCheckedCount(s, n, 16))
        return std::nullopt;
    for (quint32 i = 0; i < n; ++i) {
        FileError e;
        quint64 offset = 0;
        s >> e.file >> e.message >> offset;
        e.offset = offset;
        part.errors.push_back(std::move(e));
    }
    if (!getCheckedCount(s, n, 4))
        return std::nullopt;
    for (quint32 i = 0; i < n; ++i) {
        QStringList stack;
        if (!getStringList(s, stack))
            return std::nullopt;
        part.stacks.push_back(std::move(stack));
    }
    s >> part.task >> part.level >> part.framework >> part.dumpDataDir;
    if (!getCheckedCount(s, n, 4))
        return std::nullopt;
    for (quint32 i = 0; i < n; ++i) {
        qint32 v = 0;
        s >> v;
        part.parentInferred.push_back(v);
    }
    if (s.status() != QDataStream::Ok || !s.atEnd())
        return std::nullopt;
    return part;
}

} // namespace ds
