#pragma once
// Field-by-field comparison of FrameworkParts for round-trip tests (tst_h5isolate, tst_h5dumper).
// QCOMPARE in a helper: callers check QTest::currentTestFailed() afterwards.
#include "dump/indexpart.h"

#include <QTest>

namespace ds::testing {

inline void compareTensors(const TensorRecord &a, const TensorRecord &b)
{
    QCOMPARE(a.shape(), b.shape());
    QCOMPARE(a.originalShape(), b.originalShape());
    QCOMPARE(a.offset(), b.offset());
    QCOMPARE(a.size(), b.size());
    QCOMPARE(a.address(), b.address());
    QCOMPARE(a.originalOpName(), b.originalOpName());
    QCOMPARE(a.name(), b.name());
    QCOMPARE(a.location(), b.location());
    QCOMPARE(a.typeName(), b.typeName());
    QCOMPARE(a.value(), b.value());
    QCOMPARE(a.checksum(), b.checksum());
    QCOMPARE(a.recorded().max, b.recorded().max);
    QCOMPARE(a.recorded().min, b.recorded().min);
    QCOMPARE(a.recorded().mean, b.recorded().mean);
    QCOMPARE(a.recorded().norm, b.recorded().norm);
    QCOMPARE(a.recorded().present, b.recorded().present);
    QCOMPARE(a.index(), b.index());
    QCOMPARE(a.dataType(), b.dataType());
    QCOMPARE(a.format(), b.format());
    QCOMPARE(a.subFormat(), b.subFormat());
    QCOMPARE(a.originalOutputIndex(), b.originalOutputIndex());
    QCOMPARE(a.io(), b.io());
    QCOMPARE(a.storage(), b.storage());
    QCOMPARE(a.complete(), b.complete());
}

inline void compareLevels(const DumpLevels &a, const DumpLevels &b)
{
    QCOMPARE(a.part, b.part);
    QCOMPARE(a.time, b.time);
    QCOMPARE(a.step, b.step);
    QCOMPARE(a.rank, b.rank);
    QCOMPARE(a.device, b.device);
    QCOMPARE(a.modelName, b.modelName);
    QCOMPARE(a.modelId, b.modelId);
    QCOMPARE(a.dataIndex, b.dataIndex);
}

/// Every field of every op, tensor, error and stack; levels only when `withLevels`.
inline void compareParts(const IndexPart &a, const IndexPart &b, bool withLevels)
{
    QCOMPARE(a.ops.size(), b.ops.size());
    for (size_t i = 0; i < a.ops.size(); ++i) {
        const OpRecord &x = a.ops[i], &y = b.ops[i];
        QCOMPARE(x.relPath, y.relPath);
        QCOMPARE(x.dataFile, y.dataFile);
        if (withLevels) {
            compareLevels(*x.levels, *y.levels);
            if (QTest::currentTestFailed())
                return;
        }
        QCOMPARE(x.opType, y.opType);
        QCOMPARE(x.opName, y.opName);
        QCOMPARE(x.headerOpName(), y.headerOpName());
        QCOMPARE(x.mappedFrom(), y.mappedFrom());
        QCOMPARE(x.taskId(), y.taskId());
        QCOMPARE(x.streamId(), y.streamId());
        QCOMPARE(x.timestamp, y.timestamp);
        QCOMPARE(x.version(), y.version());
        QCOMPARE(x.dumpTime(), y.dumpTime());
        QCOMPARE(x.fileSize(), y.fileSize());
        QCOMPARE(x.headerLen(), y.headerLen());
        QCOMPARE(x.warnings(), y.warnings());
        QCOMPARE(x.parent, y.parent);
        QCOMPARE(x.stack, y.stack);
        QCOMPARE(x.source, y.source);
        QCOMPARE(x.opDebug, y.opDebug);
        QCOMPARE(x.container, y.container);
        QCOMPARE(x.tensors.size(), y.tensors.size());
        for (size_t j = 0; j < x.tensors.size(); ++j) {
            compareTensors(x.tensors[j], y.tensors[j]);
            if (QTest::currentTestFailed()) {
                qWarning().noquote() << "tensor" << j << "of" << x.relPath;
                return;
            }
        }
    }
    QCOMPARE(a.errors.size(), b.errors.size());
    for (size_t i = 0; i < a.errors.size(); ++i) {
        QCOMPARE(a.errors[i].file, b.errors[i].file);
        QCOMPARE(a.errors[i].message, b.errors[i].message);
        QCOMPARE(a.errors[i].offset, b.errors[i].offset);
    }
    QCOMPARE(a.stacks, b.stacks);
    QCOMPARE(a.task, b.task);
    QCOMPARE(a.level, b.level);
    QCOMPARE(a.framework, b.framework);
    QCOMPARE(a.dumpDataDir, b.dumpDataDir);
    QCOMPARE(a.parentInferred, b.parentInferred);
}

} // namespace ds::testing
