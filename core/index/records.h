#pragma once

#include "tensor/shape.h"
#include "util/error.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

namespace ds {

enum class IoKind : std::uint8_t { Input, Output, Buffer, Workspace };
/// "input", "output", "buffer", "workspace" (the words used in tensor ids).
QString ioKindName(IoKind k);

/// One tensor of an operator file: where its bytes are and how to read them.
struct TensorRecord
{
    IoKind io = IoKind::Input;
    std::uint32_t index = 0;   ///< position among the tensors of the same IoKind
    int dataType = 0;          ///< DataType value (proto numbering)
    int format = 2;            ///< raw ge::Format value
    int subFormat = 0;
    Shape shape, originalShape;
    std::uint64_t offset = 0;  ///< absolute byte offset of the payload in the file
    std::uint64_t size = 0;    ///< payload bytes
    bool complete = true;      ///< payload lies completely inside the file
    QString originalOpName;
    int originalOutputIndex = -1;
    std::uint64_t address = 0;
};

enum class ContainerKind : std::uint8_t { BigDump, Legacy };

/// The directory levels of §2 (empty when a level is absent).
struct DumpLevels
{
    QString time, device, modelName, modelId, dataIndex;
};

/// One operator dump file.
struct OpRecord
{
    QString relPath;          ///< relative to the index root, '/' separated (tensor id prefix)
    DumpLevels levels;
    QString opType, opName;   ///< from the (possibly mapped) file name, sanitised
    QString headerOpName;     ///< DumpData.op_name: the full, unsanitised name
    QString mappedFrom;       ///< original file name from mapping.csv for numeric names
    std::int64_t taskId = -1, streamId = -1;
    std::uint64_t timestamp = 0;
    bool opDebug = false;
    ContainerKind container = ContainerKind::BigDump;
    QString version;
    std::uint64_t dumpTime = 0, fileSize = 0, headerLen = 0;
    std::vector<TensorRecord> tensors; ///< inputs, outputs, buffers, workspaces
    QStringList warnings;

    int count(IoKind k) const;
    const TensorRecord *tensor(IoKind k, std::uint32_t index) const;
};

} // namespace ds
