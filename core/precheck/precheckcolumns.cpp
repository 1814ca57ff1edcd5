// The columns of msprobe's precheck tables, their meaning and threshold (precheck.h). Names:
// msprobe pytorch/api_accuracy_checker/compare/compare_utils.py (DETAIL_TEST_ROWS,
// ApiPrecisionCompareColumn) and compare.py (write_csv_title); meanings and thresholds:
// docs/en/accuracy_checker/pytorch_accuracy_checker_instruct.md, "Pre-check Result Description",
// "API Pre-check Metrics", "Small Value Range" and "Pre-check Result Comparison".
#include "precheck.h"

#include <QtGlobal>

namespace ds::precheck {

namespace {

#define DS_TR(text) QT_TRANSLATE_NOOP("ds::precheck", text)

const char *const kVerdict = DS_TR("pass, warning or error; SKIP: the API was not run (Message says why); empty: no backward output");

std::vector<ColumnInfo> resultColumns()
{
    return {
        {"API name", DS_TR("the API: type, name and call number"), "", true},
        {"Forward Test Success", DS_TR("the worst Status of the API's forward outputs in the details table"), kVerdict, true},
        {"Backward Test Success", DS_TR("the worst Status of the API's backward outputs in the details table"), kVerdict, true},
        {"Message", DS_TR("why the API was skipped; msprobe leaves it out of rows that were run"), ""},
        {"Traceback callstack info", DS_TR("where the API was called (only with stack information)"), ""},
    };
}

std::vector<ColumnInfo> detailsColumns()
{
    return {
        {"API Name", DS_TR("the API and the output of the row: {api}.{forward|backward}.output.{i}"), "", true},
        {"Bench Dtype", DS_TR("data type of the bench (CPU) output"), ""},
        {"DEVICE Dtype", DS_TR("data type of the device (NPU or GPU) output"), ""},
        {"Shape", DS_TR("shape of the output"), ""},
        {"余弦相似度", DS_TR("cosine similarity of device and bench"), DS_TR("error when at most 0.99")},
        {"最大绝对误差", DS_TR("largest |device - bench|"), DS_TR("pass when below 0.001 (the other checks are then skipped)")},
        {"双百指标", DS_TR("dual-100: share of elements whose relative error is below 1%"), DS_TR("float16/bfloat16: error when more than 1% of the elements exceed 1%")},
        {"双千指标", DS_TR("dual-1000: share of elements whose relative error is below 0.1%"), DS_TR("float16/bfloat16: warning when more than 0.1% exceed 0.1%; float32/float64: error")},
        {"双万指标", DS_TR("dual-10000: share of elements whose relative error is below 0.01%"), DS_TR("float32/float64: warning when more than 0.01% exceed 0.01%")},
        {"二进制一致错误率", DS_TR("binary consistency: share of elements that are not bit-identical (bool, int and builtin outputs)"), DS_TR("error when not 0")},
        {"误差均衡性", DS_TR("error balance: whether the device errs to one side"), DS_TR("judged in api_precision_compare: error when the NPU/GPU ratio exceeds 2")},
        {"均方根误差", DS_TR("root mean square error"), DS_TR("judged in api_precision_compare (ratio to the GPU's)")},
        {"小值域错误占比", DS_TR("share of small values (|bench| below 2^-14 float32, 2^-11 float16, 2^-8 bfloat16) whose absolute error exceeds 2^-30 float32, 2^-16 float16/bfloat16"), DS_TR("judged in api_precision_compare (ratio to the GPU's)")},
        {"相对误差最大值", DS_TR("largest relative error"), DS_TR("judged in api_precision_compare (ratio to the GPU's)")},
        {"相对误差平均值", DS_TR("mean relative error"), DS_TR("judged in api_precision_compare (ratio to the GPU's)")},
        {"inf/nan错误率", DS_TR("share of elements whose inf/nan does not match the bench (absolute threshold standard)"), DS_TR("error when not 0")},
        {"相对误差错误率", DS_TR("share of normal values whose relative error exceeds the API's threshold (absolute threshold standard)"), DS_TR("error when not 0")},
        {"绝对误差错误率", DS_TR("share of small values whose absolute error exceeds the threshold (absolute threshold standard)"), DS_TR("error when not 0")},
        {"ULP误差最大值", DS_TR("largest error in units in the last place"), ""},
        {"ULP误差平均值", DS_TR("mean error in units in the last place"), DS_TR("float32: pass when below 64")},
        {"ULP误差大于阈值占比", DS_TR("share of elements whose ULP error exceeds 1 (float16/bfloat16) or 32 (float32)"), DS_TR("pass when below 0.001 (float16/bfloat16) or 0.05 (float32), or below the GPU's")},
        {"Status", DS_TR("the verdict of the output: cosine, then max absolute error, then dual-100/1000/10000"), kVerdict, true},
        {"Message", DS_TR("which check decided the Status"), ""},
    };
}

std::vector<ColumnInfo> precisionDetailsColumns()
{
    const char *ratio = DS_TR("NPU value / GPU value of the metric");
    return {
        {"API Name", DS_TR("the API and the output of the row"), "", true},
        {"小值域错误比值", ratio, ""},
        {"小值域判定结果", DS_TR("small value error ratio verdict"), DS_TR("pass when the ratio is at most 2, else error")},
        {"均方根误差比值", ratio, ""},
        {"均方根误差判定结果", DS_TR("RMSE ratio verdict"), DS_TR("pass when the ratio is at most 2/1.5/1.2 (L0/L1/L2 APIs), else error")},
        {"相对误差最大值比值", ratio, ""},
        {"相对误差最大值判定结果", DS_TR("max relative error ratio verdict"), DS_TR("pass when the ratio is at most 10/5/2 (L0/L1/L2 APIs), else error")},
        {"相对误差平均值比值", ratio, ""},
        {"相对误差平均值判定结果", DS_TR("mean relative error ratio verdict"), DS_TR("pass when the ratio is at most 2/1.5/1.2 (L0/L1/L2 APIs), else error")},
        {"误差均衡性比值", ratio, ""},
        {"误差均衡性判定结果", DS_TR("error balance ratio verdict"), DS_TR("pass when the ratio is at most 2, else error")},
        {"inf/nan错误率", DS_TR("share of elements whose inf/nan does not match"), ""},
        {"inf/nan判定结果", DS_TR("inf/nan verdict"), DS_TR("pass when 0, else error")},
        {"相对误差错误率", DS_TR("share of normal values over the relative error threshold"), ""},
        {"相对误差判定结果", DS_TR("relative error verdict"), DS_TR("pass when 0, else error")},
        {"绝对误差错误率", DS_TR("share of small values over the absolute error threshold"), ""},
        {"绝对误差判定结果", DS_TR("absolute error verdict"), DS_TR("pass when 0, else error")},
        {"二进制一致错误率", DS_TR("share of elements that are not bit-identical"), ""},
        {"二进制一致错误率判定结果", DS_TR("binary consistency verdict"), DS_TR("pass when 0, else error")},
        {"ULP误差平均值", DS_TR("mean ULP error of the NPU"), ""},
        {"ULP误差大于阈值占比", DS_TR("NPU share of elements over the ULP threshold (1 float16/bfloat16, 32 float32)"), ""},
        {"ULP误差大于阈值占比比值", ratio, ""},
        {"ULP误差判定结果", DS_TR("ULP verdict"), DS_TR("float16/bfloat16: pass when the share is below 0.001 or below the GPU's; float32: also when the mean is below 64 or the share below 0.05")},
        {"双千指标", DS_TR("dual-1000 metric (conv1d, conv2d)"), ""},
        {"双千指标判定结果", DS_TR("dual-1000 verdict"), DS_TR("pass when above 0.999, else error")},
        {"比对结果", DS_TR("the verdict of the output: error if any standard is error, warning if any is warning"), kVerdict, true},
        {"比对算法", DS_TR("the standard applied: benchmark, binary consistency, absolute threshold, ULP or dual-1000"), ""},
        {"Message", DS_TR("the metrics that failed"), ""},
    };
}

std::vector<ColumnInfo> precisionResultColumns()
{
    return {
        {"API Name", DS_TR("the API"), "", true},
        {"Forward Test Success", DS_TR("the worst 比对结果 of the API's forward outputs"), kVerdict, true},
        {"Backward Test Success", DS_TR("the worst 比对结果 of the API's backward outputs"), kVerdict, true},
        {"Message", DS_TR("the outputs and metrics that failed"), ""},
    };
}

#undef DS_TR

} // namespace

const std::vector<ColumnInfo> &tableColumns(TableKind kind)
{
    static const std::vector<ColumnInfo> result = resultColumns(), details = detailsColumns(),
                                         precisionResult = precisionResultColumns(),
                                         precisionDetails = precisionDetailsColumns();
    switch (kind) {
    case TableKind::Result: return result;
    case TableKind::Details: return details;
    case TableKind::PrecisionResult: return precisionResult;
    case TableKind::PrecisionDetails: return precisionDetails;
    }
    return result;
}

const ColumnInfo *columnInfo(TableKind kind, const QString &name)
{
    for (const ColumnInfo &c : tableColumns(kind))
        if (name == QString::fromUtf8(c.name))
            return &c;
    return nullptr;
}

} // namespace ds::precheck
