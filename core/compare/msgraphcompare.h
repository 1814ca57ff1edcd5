#pragma once

// msprobe's MindSpore graph compare (python/msprobe/mindspore/compare/ms_graph_compare.py,
// `msprobe compare` on two MindSpore kernel dump trees): per rank and step, tensors paired by
// "{op name}.{task id}.{io}.{slot}" and their n-th occurrence, outer join sorted by that key;
// statistics mode (statistic.csv) or npy mode (.npy files). The rows keep msprobe's columns.

#include "dump/dumpindex.h"
#include "util/cancel.h"

#include <QStringList>
#include <vector>

namespace ds {

enum class MsGraphMode : std::uint8_t { Statistics, Npy };

struct MsGraphSide
{
    int op = -1, tensor = -1;    ///< into the side's index; -1 when the other side only
    QString name;                ///< statistics: the compare key; npy: the tensor file
    QString dtype, shape;        ///< shape as msprobe prints it: "[3,4]"
    double max = 0, min = 0, mean = 0, norm = 0; ///< as float32 (msprobe's np.float32)
    QString csvFile;             ///< statistics mode: the side's statistic.csv
    bool present() const { return op >= 0; }
};

struct MsGraphRow
{
    QString key;                 ///< "{op name}.{task}.{io}.{slot}"
    int localIndex = 0;          ///< occurrence of the key, in time order
    MsGraphSide npu, bench;
    QString accuracy;            ///< "Yes", "No" or "" (not compared)
    QString errorMessage;
    bool compared = false;
    // Statistics mode: NPU - bench per statistic, and |diff / bench| * 100 as msprobe's text.
    double diff[4] = {0, 0, 0, 0};
    QString relative[4];
    // Npy mode: Cosine, EucDist, MaxAbsErr, MaxRelativeErr, One / Five Thousandth Err Ratio.
    double metrics[6] = {0, 0, 0, 0, 0, 0};
};

struct MsGraphScope
{
    qint64 rank = -1, step = -1;
    MsGraphMode mode = MsGraphMode::Statistics;
    std::vector<MsGraphRow> rows;
};

/// msprobe's table for every (rank, step) both indexes hold, rank then step ascending. A scope
/// whose sides differ in mode (statistics vs tensors) is left out, as msprobe does.
std::vector<MsGraphScope> compareMsGraph(const DumpIndex &npu, const DumpIndex &bench, const JobControl *job = nullptr);

/// The header of msprobe's CSV for `mode`.
QStringList msGraphHeader(MsGraphMode mode);
/// One row's cells in msGraphHeader's order (numbers in shortest round-trip form).
QStringList msGraphCells(const MsGraphRow &row, MsGraphMode mode);

/// True when the index holds MindSpore kernel dump operators.
bool isMsKernelIndex(const DumpIndex &index);

} // namespace ds
