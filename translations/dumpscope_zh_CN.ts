<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>CommClock</name>
        <message>
            <source>no communication op in the step</source>
            <translation>该步没有通信算子</translation>
        </message>
        <message>
            <source>after the last communication op (#%1 %2)</source>
            <translation>在最后一个通信算子之后（#%1 %2）</translation>
        </message>
        <message>
            <source>at communication op #%1 (%2)</source>
            <translation>在通信算子 #%1 处（%2）</translation>
        </message>
        <message>
            <source>before communication op #%1 (%2)</source>
            <translation>在通信算子 #%1 之前（%2）</translation>
        </message>
    </context>
    <context>
        <name>GraphHierarchy</name>
        <message>
            <source>calls %1–%2 of %3</source>
            <translation>第 %1–%2 次调用（共 %3 次）</translation>
        </message>
    </context>
    <context>
        <name>H5Isolate</name>
        <message>
            <source>the HDF5 reader process sent an incomplete or garbled result</source>
            <translation>HDF5 读取进程返回的结果不完整或已损坏</translation>
        </message>
        <message>
            <source>HDF5 library failed while reading this file (exit code %1); the file is probably damaged</source>
            <translation>HDF5 库读取此文件时失败（退出码 %1）；文件可能已损坏</translation>
        </message>
        <message>
            <source>the HDF5 reader process made no progress for %1 s and was stopped; the file is probably damaged</source>
            <translation>HDF5 读取进程 %1 秒内没有任何进展，已被停止；文件可能已损坏</translation>
        </message>
        <message>
            <source>HDF5 library crashed while reading this file (%1); the file is probably damaged</source>
            <translation>HDF5 库读取此文件时崩溃（%1）；文件可能已损坏</translation>
        </message>
        <message>
            <source>cannot start the HDF5 reader process: %1 was not found (looked for %2)</source>
            <translation>无法启动 HDF5 读取进程：未找到 %1（查找位置：%2）</translation>
        </message>
        <message>
            <source>cannot start the HDF5 reader process %1 (%2)</source>
            <translation>无法启动 HDF5 读取进程 %1（%2）</translation>
        </message>
    </context>
    <context>
        <name>QObject</name>
        <message>
            <source>Property</source>
            <translation>属性</translation>
        </message>
        <message>
            <source>Value</source>
            <translation>值</translation>
        </message>
        <message>
            <source>element counts differ (%1 vs %2): no element-wise detail</source>
            <translation>元素个数不同（%1 对 %2）：无逐元素详情</translation>
        </message>
        <message>
            <source>The tensors are too large for the error heatmap.</source>
            <translation>张量过大，无法显示误差热力图。</translation>
        </message>
    </context>
    <context>
        <name>RunAnswer</name>
        <message>
            <source>no scope was compared</source>
            <translation>没有比对任何作用域</translation>
        </message>
        <message>
            <source>no scope was checked</source>
            <translation>没有检查任何作用域</translation>
        </message>
        <message>
            <source>no divergence</source>
            <translation>没有分歧</translation>
        </message>
        <message>
            <source>no anomaly</source>
            <translation>没有异常</translation>
        </message>
        <message>
            <source>step %1</source>
            <translation>step %1</translation>
        </message>
        <message>
            <source>steps %1 to %2</source>
            <translation>step %1 至 %2</translation>
        </message>
        <message>
            <source>runs agree on every compared step (%1)</source>
            <translation>两次运行在所有比对的 step 上一致（%1）</translation>
        </message>
        <message>
            <source>no anomaly in any step (%1)</source>
            <translation>所有 step 均无异常（%1）</translation>
        </message>
        <message>
            <source>rank %1</source>
            <translation>rank %1</translation>
        </message>
        <message>
            <source>op %1</source>
            <translation>算子 %1</translation>
        </message>
        <message>
            <source>runs agree up to step %1</source>
            <translation>两次运行直到 step %1 一致</translation>
        </message>
        <message>
            <source>no anomaly up to step %1</source>
            <translation>直到 step %1 无异常</translation>
        </message>
        <message>
            <source>runs differ from step %1 on</source>
            <translation>两次运行从 step %1 起不一致</translation>
        </message>
        <message>
            <source>anomaly from step %1 on</source>
            <translation>从 step %1 起出现异常</translation>
        </message>
        <message>
            <source>first divergence: %1</source>
            <translation>首个分歧：%1</translation>
        </message>
        <message>
            <source>first anomaly: %1</source>
            <translation>首个异常：%1</translation>
        </message>
        <message>
            <source>not comparable</source>
            <translation>无法比对</translation>
        </message>
        <message>
            <source>%1 of %2 rows not compared: %3</source>
            <translation>%2 行中有 %1 行未比对：%3</translation>
        </message>
        <message>
            <source>nothing was compared</source>
            <translation>没有比对任何行</translation>
        </message>
        <message>
            <source>nothing was compared (%1)</source>
            <translation>没有比对任何行（%1）</translation>
        </message>
        <message>
            <source>no divergence in the compared rows</source>
            <translation>已比对的行中没有分歧</translation>
        </message>
        <message>
            <source>runs agree on every compared row (%1)</source>
            <translation>两次运行在所有已比对的行上一致（%1）</translation>
        </message>
    </context>
    <context>
        <name>RunCompare</name>
        <message>
            <source>inputs agree, outputs differ</source>
            <translation>输入一致，输出不一致</translation>
        </message>
        <message>
            <source>inputs already differ</source>
            <translation>输入已不一致</translation>
        </message>
        <message>
            <source>a parameter differs at its first use</source>
            <translation>一个参数在首次使用时即不一致</translation>
        </message>
        <message>
            <source>parameter %1 differs at its first use</source>
            <translation>参数 %1 在首次使用时即不一致</translation>
        </message>
        <message>
            <source>overflow record %1</source>
            <translation>溢出记录 %1</translation>
        </message>
        <message>
            <source>overflow record %1: %2</source>
            <translation>溢出记录 %1：%2</translation>
        </message>
        <message>
            <source>overflow record %1: no triggered block</source>
            <translation>溢出记录 %1：没有被触发的块</translation>
        </message>
    </context>
    <context>
        <name>ScopeProbe</name>
        <message numerus="yes">
            <source>%n tensor file(s)</source>
            <translation>
                <numerusform>%n 个张量文件</numerusform>
            </translation>
        </message>
        <message>
            <source>no tensor files</source>
            <translation>没有张量文件</translation>
        </message>
        <message>
            <source>cannot read %1</source>
            <translation>无法读取 %1</translation>
        </message>
    </context>
    <context>
        <name>Trend</name>
        <message>
            <source>Verdict (0 pass, 1 warning, 2 error)</source>
            <translation>判定（0 通过，1 警告，2 错误）</translation>
        </message>
        <message>
            <source>Norm relative error</source>
            <translation>范数相对误差</translation>
        </message>
        <message>
            <source>Max absolute error</source>
            <translation>最大绝对误差</translation>
        </message>
        <message>
            <source>1 − cosine</source>
            <translation>1 − 余弦相似度</translation>
        </message>
        <message>
            <source>Norm (recorded)</source>
            <translation>范数（记录值）</translation>
        </message>
        <message>
            <source>Max (recorded)</source>
            <translation>最大值（记录值）</translation>
        </message>
        <message>
            <source>Outputs with NaN/Inf (recorded)</source>
            <translation>含 NaN/Inf 的输出数（记录值）</translation>
        </message>
        <message>
            <source>Fraction that underflows in %1 (values read)</source>
            <translation>在 %1 中下溢的比例（读取数值）</translation>
        </message>
        <message>
            <source>msprobe Result (0 pass, 1 warning, 2 error)</source>
            <translation>msprobe Result（0 通过，1 警告，2 错误）</translation>
        </message>
    </context>
    <context>
        <name>VisDb</name>
        <message>
            <source>no node %1 in %2 step%3 rank%4</source>
            <translation>%2 step%3 rank%4 中没有节点 %1</translation>
        </message>
        <message>
            <source>no such file</source>
            <translation>文件不存在</translation>
        </message>
        <message>
            <source>cannot open: %1</source>
            <translation>无法打开：%1</translation>
        </message>
        <message>
            <source>not an SQLite database (msprobe graph databases are .vis.db SQLite files)</source>
            <translation>不是 SQLite 数据库（msprobe 的图数据库是 .vis.db SQLite 文件）</translation>
        </message>
        <message>
            <source>SQLite cannot open it: %1</source>
            <translation>SQLite 无法打开：%1</translation>
        </message>
        <message>
            <source>an SQLite database without msprobe's %1 table</source>
            <translation>SQLite 数据库中没有 msprobe 的 %1 表</translation>
        </message>
        <message>
            <source>cannot read tb_config: %1</source>
            <translation>无法读取 tb_config：%1</translation>
        </message>
        <message>
            <source>cannot read tb_nodes: %1</source>
            <translation>无法读取 tb_nodes：%1</translation>
        </message>
        <message>
            <source>statistics</source>
            <translation>统计量</translation>
        </message>
        <message>
            <source>tensors</source>
            <translation>张量</translation>
        </message>
        <message>
            <source>compare (%1)</source>
            <translation>比对（%1）</translation>
        </message>
        <message>
            <source>build with overflow check</source>
            <translation>构图（含溢出检测）</translation>
        </message>
        <message>
            <source>build</source>
            <translation>构图</translation>
        </message>
        <message numerus="yes">
            <source>%n node(s)</source>
            <translation>
                <numerusform>%n 个节点</numerusform>
            </translation>
        </message>
        <message>
            <source>critical: %1</source>
            <translation>严重：%1</translation>
        </message>
        <message numerus="yes">
            <source>%n error node(s)</source>
            <translation>
                <numerusform>%n 个错误节点</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ds::AddedErrorPanel</name>
        <message>
            <source>No operator adds error (output error above its inputs&apos;).</source>
            <translation>没有算子引入误差（输出误差未超过其输入误差）。</translation>
        </message>
        <message>
            <source>Ops that add the most error:</source>
            <translation>引入误差最多的算子：</translation>
        </message>
        <message numerus="yes">
            <source>%n more</source>
            <translation>
                <numerusform>另外 %n 个</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ds::AddedErrorText</name>
        <message>
            <source>no inputs compared</source>
            <translation>没有已比对的输入</translation>
        </message>
        <message>
            <source>its inputs agree</source>
            <translation>输入一致</translation>
        </message>
        <message>
            <source>only a parameter differs (weight, bias)</source>
            <translation>仅参数不同（权重、偏置）</translation>
        </message>
        <message>
            <source>a data input differs</source>
            <translation>数据输入已不同</translation>
        </message>
        <message>
            <source>Error added by %1: %2</source>
            <translation>%1 引入的误差：%2</translation>
        </message>
        <message>
            <source>Output relative error: %1</source>
            <translation>输出相对误差：%1</translation>
        </message>
        <message>
            <source>Largest input relative error: %1</source>
            <translation>最大输入相对误差：%1</translation>
        </message>
        <message>
            <source>Inputs: %1 (%2)</source>
            <translation>输入：%1（%2）</translation>
        </message>
        <message>
            <source>From the recorded norms (statistics): a lower bound of the element-wise error.</source>
            <translation>由记录的范数（统计量）得出：逐元素误差的下界。</translation>
        </message>
        <message>
            <source>No number: %1</source>
            <translation>无数值：%1</translation>
        </message>
        <message>
            <source>Error the operator adds: the relative error of its output (||NPU − bench|| / ||bench||) minus the largest relative error of its inputs and parameters; negative: it shrinks the error it was given (docs/COMPARE.md &quot;Error added per operator&quot;)</source>
            <translation>算子引入的误差：其输出的相对误差（||NPU − 标杆|| / ||标杆||）减去其输入和参数中最大的相对误差；为负表示它缩小了传入的误差（见 docs/COMPARE.md“Error added per operator”）</translation>
        </message>
    </context>
    <context>
        <name>ds::BenchOperatorChooser</name>
        <message>
            <source>Map to bench operator</source>
            <translation>映射到标杆算子</translation>
        </message>
        <message>
            <source>Compare %1 with the bench operator(s) chosen below. Several NPU or bench operators make an N:M group: the inputs of the first compare with the inputs of the first, the outputs of the last with the outputs of the last.</source>
            <translation>将 %1 与下面选择的标杆算子比对。多个 NPU 或标杆算子构成 N:M 组：第一个的输入与第一个的输入比对，最后一个的输出与最后一个的输出比对。</translation>
        </message>
        <message>
            <source>Map</source>
            <translation>映射</translation>
        </message>
    </context>
    <context>
        <name>ds::BenchOperatorModel</name>
        <message>
            <source>matched</source>
            <translation>已匹配</translation>
        </message>
        <message>
            <source>%1 of %2 tensors matched</source>
            <translation>%2 个张量中 %1 个已匹配</translation>
        </message>
        <message>
            <source>fused away</source>
            <translation>已被融合</translation>
        </message>
        <message>
            <source>unmatched</source>
            <translation>未匹配</translation>
        </message>
        <message>
            <source>%1 (%2): no NPU operator is compared with it. Drop NPU rows here to map them.</source>
            <translation>%1（%2）：没有 NPU 算子与其比对。将 NPU 行拖放到此处即可建立映射。</translation>
        </message>
        <message>
            <source>%1 (%2) is compared with %3.</source>
            <translation>%1（%2）与 %3 比对。</translation>
        </message>
        <message>
            <source>Bench operator</source>
            <translation>标杆算子</translation>
        </message>
        <message>
            <source>Type</source>
            <translation>类型</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>状态</translation>
        </message>
        <message>
            <source>Compared with (NPU)</source>
            <translation>比对对象（NPU）</translation>
        </message>
    </context>
    <context>
        <name>ds::BenchOperatorsPanel</name>
        <message>
            <source>Drop NPU rows of the comparison on a bench operator to compare them with it. Dropped on one of several selected operators, they map to all of them (an N:M group).</source>
            <translation>将比对表中的 NPU 行拖放到标杆算子上即可与其比对。拖放到多个已选算子之一时，会映射到全部已选算子（N:M 组）。</translation>
        </message>
        <message>
            <source>Filter bench operators…</source>
            <translation>筛选标杆算子…</translation>
        </message>
        <message>
            <source>Unmatched only</source>
            <translation>仅显示未匹配</translation>
        </message>
        <message>
            <source>Hide the bench operators whose tensors all have an NPU counterpart</source>
            <translation>隐藏所有张量均有 NPU 对应项的标杆算子</translation>
        </message>
        <message>
            <source>The bench operators appear here after a comparison.</source>
            <translation>比对完成后，标杆算子显示在此处。</translation>
        </message>
        <message>
            <source>%1 bench operators: %2 unmatched, %3 partly matched, %4 fused away.</source>
            <translation>%1 个标杆算子：%2 个未匹配，%3 个部分匹配，%4 个已被融合。</translation>
        </message>
    </context>
    <context>
        <name>ds::CannDump</name>
        <message>
            <source>%1: shape %2 has a dynamic (negative) dimension; its %3 bytes are shown raw</source>
            <translation>%1：形状 %2 含动态（负数）维度；其 %3 字节按原始字节显示</translation>
        </message>
        <message>
            <source>%1: shape %2 x %3 needs more bytes than 64 bits can count, far larger than its %4-byte payload; the payload is shown raw</source>
            <translation>%1：形状 %2 × %3 所需字节数超出 64 位可表示范围，远大于其 %4 字节的数据；数据按原始字节显示</translation>
        </message>
        <message>
            <source>%1: shape %2 x %3 needs %4 bytes, far larger than its %5-byte payload (the whole file has %6 bytes); only the payload is shown, flat</source>
            <translation>%1：形状 %2 × %3 需要 %4 字节，远大于其 %5 字节的数据（整个文件只有 %6 字节）；仅按一维显示已有数据</translation>
        </message>
        <message>
            <source>%1: shape %2 x %3 is %4 bytes but the header declares size %5</source>
            <translation>%1：形状 %2 × %3 为 %4 字节，但文件头声明的大小为 %5</translation>
        </message>
        <message>
            <source>%1 bytes after the declared sizes: the header and the tensors end at byte %2, the file has %3 bytes</source>
            <translation>声明的大小之后还有 %1 字节：文件头和张量在第 %2 字节处结束，而文件有 %3 字节</translation>
        </message>
    </context>
    <context>
        <name>ds::CompareTableModel</name>
        <message>
            <source>(top level)</source>
            <translation>（顶层）</translation>
        </message>
        <message>
            <source>%1: only in the bench: %2</source>
            <translation>%1：仅标杆侧有：%2</translation>
        </message>
        <message>
            <source>%1: only on the NPU: %2</source>
            <translation>%1：仅 NPU 侧有：%2</translation>
        </message>
        <message>
            <source>%1: bench %2 vs NPU %3</source>
            <translation>%1：标杆 %2 对 NPU %3</translation>
        </message>
        <message>
            <source>%1: numerically equal</source>
            <translation>%1：数值一致</translation>
        </message>
        <message>
            <source>%1: numerically different</source>
            <translation>%1：数值不同</translation>
        </message>
        <message>
            <source>%1: outputs not compared</source>
            <translation>%1：输出未比对</translation>
        </message>
        <message>
            <source>%1 · bench only</source>
            <translation>%1 · 仅标杆侧</translation>
        </message>
        <message>
            <source>bench only</source>
            <translation>仅标杆侧</translation>
        </message>
        <message>
            <source>Only the bench has this row: nothing on the NPU side of its structure region pairs with it.</source>
            <translation>只有标杆侧有此行：其结构区域的 NPU 侧没有可与之配对的行。</translation>
        </message>
        <message>
            <source>%1 · NPU only</source>
            <translation>%1 · 仅 NPU 侧</translation>
        </message>
        <message>
            <source>NPU only</source>
            <translation>仅 NPU 侧</translation>
        </message>
        <message>
            <source>Only the NPU has this row: nothing on the bench side of its structure region pairs with it.</source>
            <translation>只有 NPU 侧有此行：其结构区域的标杆侧没有可与之配对的行。</translation>
        </message>
        <message>
            <source>Where the two op streams differ in structure (an aligned compare, docs/COMPARE.md rule 4): the enclosing module, the operators each side runs there, and whether the region&apos;s outputs agree</source>
            <translation>两侧算子流在结构上不同的位置（按结构对齐的比对，docs/COMPARE.md 规则 4）：所在模块、两侧在此执行的算子，以及该区域的输出是否一致</translation>
        </message>
        <message>
            <source>Structure region</source>
            <translation>结构区域</translation>
        </message>
        <message>
            <source>%1 (first divergence)</source>
            <translation>%1（首个分歧）</translation>
        </message>
        <message>
            <source>Verdict</source>
            <translation>结论</translation>
        </message>
        <message>
            <source>NPU tensor</source>
            <translation>NPU 张量</translation>
        </message>
        <message>
            <source>Bench tensor</source>
            <translation>标杆张量</translation>
        </message>
        <message>
            <source>Not compared because</source>
            <translation>未比对原因</translation>
        </message>
        <message>
            <source>Paired by the user mapping.</source>
            <translation>由用户映射配对。</translation>
        </message>
        <message>
            <source>first divergence: parameter differs</source>
            <translation>首个分歧：参数不一致</translation>
        </message>
        <message>
            <source>first divergence: input differs</source>
            <translation>首个分歧：输入不一致</translation>
        </message>
        <message>
            <source>msprobe: %1</source>
            <translation>msprobe：%1</translation>
        </message>
        <message>
            <source>msprobe Result</source>
            <translation>msprobe 结果</translation>
        </message>
        <message>
            <source>pass</source>
            <translation>通过</translation>
        </message>
        <message>
            <source>warning</source>
            <translation>警告</translation>
        </message>
        <message>
            <source>error</source>
            <translation>错误</translation>
        </message>
        <message>
            <source>not compared</source>
            <translation>未比对</translation>
        </message>
        <message>
            <source>msprobe: the dtypes differ (%1 vs %2), an error on every such row</source>
            <translation>msprobe：数据类型不同（%1 对 %2），msprobe 把每个这样的行都判为 error</translation>
        </message>
        <message>
            <source>msprobe: requires_grad differs (%1 vs %2)</source>
            <translation>msprobe：requires_grad 不同（%1 对 %2）</translation>
        </message>
        <message>
            <source>msprobe: the shapes differ (%1 vs %2)</source>
            <translation>msprobe：形状不同（%1 对 %2）</translation>
        </message>
        <message>
            <source>msprobe: the NPU max or min is NaN/Inf while the bench's are finite</source>
            <translation>msprobe：NPU 的最大值或最小值为 NaN/Inf，而标杆的为有限值</translation>
        </message>
        <message>
            <source>msprobe's operator rule: the inputs' One Thousandth Err Ratio is above 0.9 and this first output's below 0.1</source>
            <translation>msprobe 的算子规则：输入的千分之一误差比例高于 0.9，而第一个输出的低于 0.1</translation>
        </message>
        <message>
            <source>msprobe: a non-tensor argument differs</source>
            <translation>msprobe：某个非张量参数不同</translation>
        </message>
        <message>
            <source>msprobe's operator rule: the inputs' cosine is above 0.9 and this first output's more than 0.1 lower</source>
            <translation>msprobe 的算子规则：输入的余弦相似度高于 0.9，而第一个输出的低 0.1 以上</translation>
        </message>
        <message>
            <source>msprobe's statistics rule: the inputs' NormRelativeErr is below 10 % and this output's above 50 %</source>
            <translation>msprobe 的统计量规则：输入的 NormRelativeErr 低于 10 %，而此输出的高于 50 %</translation>
        </message>
        <message>
            <source>msprobe's statistics rule: this output's NormRelativeErr is over 10 times the inputs' (over 10 % when theirs is 0)</source>
            <translation>msprobe 的统计量规则：此输出的 NormRelativeErr 超过输入的 10 倍（输入的为 0 时超过 10 %）</translation>
        </message>
        <message>
            <source>msprobe: the CRC-32 values differ</source>
            <translation>msprobe：CRC-32 值不同</translation>
        </message>
        <message>
            <source>msprobe: one side has no CRC-32</source>
            <translation>msprobe：一侧没有 CRC-32</translation>
        </message>
        <message>
            <source>msprobe does not check a row's values against thresholds (only dtype, shape, requires_grad, NaN/Inf and its input-vs-output rules)</source>
            <translation>msprobe 不按阈值检查每一行的数值（只检查数据类型、形状、requires_grad、NaN/Inf 以及输入与输出之间的规则）</translation>
        </message>
        <message>
            <source>msprobe's statistics rules flag only a NormRelativeErr growing from the inputs to an output</source>
            <translation>msprobe 的统计量规则只标记从输入到输出增大的 NormRelativeErr</translation>
        </message>
        <message>
            <source>msprobe's checkers find nothing on this row</source>
            <translation>msprobe 的检查器在此行没有发现问题</translation>
        </message>
        <message>
            <source>DumpScope did not compare the row (%1)</source>
            <translation>DumpScope 未比对此行（%1）</translation>
        </message>
        <message>
            <source>no comparable data</source>
            <translation>没有可比对的数据</translation>
        </message>
        <message>
            <source>DumpScope judges float16/bfloat16 against float32 by the values, which pass its thresholds</source>
            <translation>DumpScope 按数值判断 float16/bfloat16 与 float32 的比对，数值在其阈值之内</translation>
        </message>
        <message>
            <source>DumpScope: the values pass its thresholds</source>
            <translation>DumpScope：数值在其阈值之内</translation>
        </message>
        <message>
            <source>DumpScope: %1 (%2)</source>
            <translation>DumpScope：%1（%2）</translation>
        </message>
        <message>
            <source>DumpScope: %1</source>
            <translation>DumpScope：%1</translation>
        </message>
        <message>
            <source>(a %1 for msprobe)</source>
            <translation>（msprobe 判为 %1）</translation>
        </message>
        <message>
            <source>parameter differs</source>
            <translation>参数不一致</translation>
        </message>
        <message>
            <source>input dtype differs</source>
            <translation>输入数据类型不同</translation>
        </message>
        <message>
            <source>input differs</source>
            <translation>输入不一致</translation>
        </message>
        <message>
            <source>output differs</source>
            <translation>输出不一致</translation>
        </message>
        <message>
            <source>a parameter</source>
            <translation>某个参数</translation>
        </message>
        <message>
            <source>parameter %1</source>
            <translation>参数 %1</translation>
        </message>
        <message>
            <source>%1 differs at its first use: its values are not identical (MaxAbsErr %2)</source>
            <translation>%1 在首次使用时已不一致：数值不完全相同（MaxAbsErr %2）</translation>
        </message>
        <message>
            <source>%1 differs at its first use: its CRC-32 differs</source>
            <translation>%1 在首次使用时已不一致：CRC-32 不同</translation>
        </message>
        <message>
            <source>%1 differs at its first use: its recorded statistics differ</source>
            <translation>%1 在首次使用时已不一致：记录的统计量不同</translation>
        </message>
        <message>
            <source>the input's dtype already differs (%1 vs %2)</source>
            <translation>输入的数据类型已经不同（%1 对 %2）</translation>
        </message>
        <message>
            <source>an input already differs</source>
            <translation>输入已不一致</translation>
        </message>
        <message>
            <source>its inputs agree, this output differs</source>
            <translation>其输入一致，此输出不一致</translation>
        </message>
        <message>
            <source>%1 · first divergence: %2</source>
            <translation>%1 · 首个分歧：%2</translation>
        </message>
        <message>
            <source>DumpScope's verdict: %1</source>
            <translation>DumpScope 结论：%1</translation>
        </message>
        <message>
            <source>First divergence: %1</source>
            <translation>首个分歧：%1</translation>
        </message>
        <message>
            <source>msprobe's Result: %1</source>
            <translation>msprobe 结果：%1</translation>
        </message>
        <message>
            <source>none</source>
            <translation>无</translation>
        </message>
        <message>
            <source>DumpScope's own verdict: every row judged by its values against the thresholds (Thresholds…) and the rules between an operator's inputs and outputs (docs/COMPARE.md)</source>
            <translation>DumpScope 自己的结论：每一行按其数值对照阈值（阈值…）以及算子输入与输出之间的规则判断（docs/COMPARE.md）</translation>
        </message>
        <message>
            <source>msprobe 26's Result, as msprobe's CSV has it: each API judged by dtype, shape, requires_grad, NaN/Inf and its rules between inputs and outputs; the Err_message is in the cell's tooltip</source>
            <translation>msprobe 26 的 Result，与 msprobe 的 CSV 相同：每个 API 按数据类型、形状、requires_grad、NaN/Inf 以及输入与输出之间的规则判断；Err_message 见单元格的提示</translation>
        </message>
        <message>
            <source>Where DumpScope's verdict and msprobe's Result disagree: the rule of each side that decided it</source>
            <translation>DumpScope 结论与 msprobe 结果不一致时：双方各自起决定作用的规则</translation>
        </message>
        <message>
            <source>Why DumpScope did not compare the row (or compared only part of it)</source>
            <translation>DumpScope 未比对此行（或只比对了一部分）的原因</translation>
        </message>
        <message>
            <source>DumpScope verdict</source>
            <translation>DumpScope 结论</translation>
        </message>
        <message>
            <source>Why the verdicts differ</source>
            <translation>结论为何不同</translation>
        </message>
        <message>
            <source>a recorded statistic differs by more than %1 % of the larger value</source>
            <translation>某个记录的统计量相差超过较大值的 %1 %</translation>
        </message>
        <message>
            <source>Shown on the operator&apos;s output rows; not in the CSV export (msprobe&apos;s columns).</source>
            <translation>显示在算子的输出行上；不写入 CSV 导出（msprobe 的列）。</translation>
        </message>
        <message>
            <source>Added error</source>
            <translation>引入误差</translation>
        </message>
    </context>
    <context>
        <name>ds::CompareView</name>
        <message>
            <source>Structural differences only</source>
            <translation>仅结构差异</translation>
        </message>
        <message>
            <source>The rows inside the structure regions of an aligned compare: operators only one side runs, or runs each side computes differently (the Structure region column names each)</source>
            <translation>按结构对齐的比对中位于结构区域内的行：只有一侧执行的算子，或两侧以不同方式计算的算子序列（“结构区域”列给出各自的区域）</translation>
        </message>
        <message>
            <source>NPU only, structure region %1</source>
            <translation>仅 NPU 侧，结构区域 %1</translation>
        </message>
        <message>
            <source>Structure region %1</source>
            <translation>结构区域 %1</translation>
        </message>
        <message>
            <source>Only the bench has %1: %2</source>
            <translation>只有标杆侧有 %1：%2</translation>
        </message>
        <message numerus="yes">
            <source>The op streams do not line up by name and were aligned by structure: %n region(s) differ in structure (%1 numerically equal), e.g. %2. “Structural differences only” lists their rows.</source>
            <translation>
                <numerusform>两侧算子流按名称无法对齐，已按结构对齐：%n 个区域结构不同（其中 %1 个数值一致），例如 %2。“仅结构差异”列出这些行。</numerusform>
            </translation>
        </message>
        <message>
            <source>Use Analysis → Compare with… to compare the selected dump with a bench dump.</source>
            <translation>使用“分析 → 与…比对”将所选 dump 与标杆 dump 比对。</translation>
        </message>
        <message>
            <source>Filter by tensor name…</source>
            <translation>按张量名称过滤…</translation>
        </message>
        <message>
            <source>All rows</source>
            <translation>所有行</translation>
        </message>
        <message>
            <source>Warnings and errors</source>
            <translation>警告和错误</translation>
        </message>
        <message>
            <source>Errors</source>
            <translation>错误</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Thresholds…</source>
            <translation>阈值…</translation>
        </message>
        <message>
            <source>Edit the thresholds of the verdicts (kept for later sessions)</source>
            <translation>编辑结论的阈值（在以后的会话中保留）</translation>
        </message>
        <message>
            <source>Export CSV…</source>
            <translation>导出 CSV…</translation>
        </message>
        <message>
            <source>NPU</source>
            <translation>NPU</translation>
        </message>
        <message>
            <source>Bench</source>
            <translation>标杆</translation>
        </message>
        <message>
            <source>NPU − bench</source>
            <translation>NPU − 标杆</translation>
        </message>
        <message>
            <source>Max</source>
            <translation>最大值</translation>
        </message>
        <message>
            <source>Min</source>
            <translation>最小值</translation>
        </message>
        <message>
            <source>Mean</source>
            <translation>均值</translation>
        </message>
        <message>
            <source>L2 norm</source>
            <translation>L2 范数</translation>
        </message>
        <message>
            <source>NaN / Inf</source>
            <translation>NaN / Inf</translation>
        </message>
        <message>
            <source>value</source>
            <translation>值</translation>
        </message>
        <message>
            <source>count</source>
            <translation>计数</translation>
        </message>
        <message>
            <source>|NPU − bench|</source>
            <translation>|NPU − 标杆|</translation>
        </message>
        <message>
            <source>Index</source>
            <translation>索引</translation>
        </message>
        <message>
            <source>Abs error</source>
            <translation>绝对误差</translation>
        </message>
        <message>
            <source>Rel error</source>
            <translation>相对误差</translation>
        </message>
        <message>
            <source>Histograms</source>
            <translation>直方图</translation>
        </message>
        <message>
            <source>Worst elements</source>
            <translation>误差最大的元素</translation>
        </message>
        <message>
            <source>Error heatmap</source>
            <translation>误差热力图</translation>
        </message>
        <message>
            <source>Select a row to see both tensors.</source>
            <translation>选择一行以查看两侧张量。</translation>
        </message>
        <message>
            <source>Comparing %1 with %2…</source>
            <translation>正在比对 %1 与 %2…</translation>
        </message>
        <message>
            <source>Cannot compare: %1</source>
            <translation>无法比对：%1</translation>
        </message>
        <message>
            <source>Reading msprobe&apos;s compare table %1…</source>
            <translation>正在读取 msprobe 的比对表 %1…</translation>
        </message>
        <message>
            <source>Cannot open the compare table: %1</source>
            <translation>无法打开比对表：%1</translation>
        </message>
        <message>
            <source>Reading msprobe&apos;s compare table %1 (%2 MiB): its first rows come first, then every row is indexed…</source>
            <translation>正在读取 msprobe 的比对表 %1（%2 MiB）：先显示最前面的行，再为所有行建立索引…</translation>
        </message>
        <message>
            <source>Only the rows that are not a pass</source>
            <translation>仅显示未通过（非 pass）的行</translation>
        </message>
        <message>
            <source>Rows whose Result is warning or error (read from the whole table)</source>
            <translation>Result 为 warning 或 error 的行（读自整张表）</translation>
        </message>
        <message>
            <source>%1: the first %2 rows of msprobe&apos;s compare table (%3 MiB) while the rest is read…</source>
            <translation>%1：msprobe 比对表（%3 MiB）的前 %2 行，其余部分正在读取…</translation>
        </message>
        <message>
            <source>%1: %2 rows of msprobe&apos;s compare table (%3 MiB, %4 mode) read paged: pass %5, warning %6, error %7, not compared %8. A table of %9 MiB or more shows msprobe&apos;s cells as the file holds them; its dumps are not searched and its first divergence is not traced (dumpscope-cli compare TABLE.csv gives the same counts).</source>
            <translation>%1：msprobe 比对表的 %2 行（%3 MiB，%4 模式），分页读取：pass %5，warning %6，error %7，未比对 %8。%9 MiB 及以上的表按文件原样显示 msprobe 的单元格；不查找其 dump，也不追踪首个分歧点（dumpscope-cli compare TABLE.csv 给出相同的计数）。</translation>
        </message>
        <message numerus="yes">
            <source>msprobe&apos;s compare table %1: %n row(s) read, not computed. The verdicts are msprobe&apos;s Result; select a row for its values, or open the two dumps and use Analysis → Compare with… for DumpScope&apos;s own verdict and the tensors side by side.</source>
            <translation>
                <numerusform>msprobe 的比对表 %1：读取了 %n 行（并非计算所得）。判定即 msprobe 的 Result；选中一行可查看其数值，或打开两个 dump 并使用“分析 → 与…比对”获得 DumpScope 自己的判定，并并排查看张量。</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>msprobe&apos;s compare table %1: %n row(s) read, not computed; the verdicts are msprobe&apos;s Result. Its dumps: NPU %2, bench %3 (%4). Select a row for both tensors side by side and the error heatmap; open the two dumps and use Analysis → Compare with… for DumpScope&apos;s own verdict.</source>
            <translation>
                <numerusform>msprobe 的比对表 %1：读取了 %n 行（并非计算所得），判定即 msprobe 的 Result。其 dump：NPU %2，标杆 %3（%4）。选中一行可并排查看两个张量及误差热力图；打开两个 dump 并使用“分析 → 与…比对”可获得 DumpScope 自己的判定。</numerusform>
            </translation>
        </message>
        <message>
            <source>Its dumps: %1</source>
            <translation>其 dump：%1</translation>
        </message>
        <message>
            <source>%1 vs %2: %3 rows — %4 pass, %5 warning, %6 error, %7 not compared; %8 bench tensors without an NPU row.</source>
            <translation>%1 对 %2：%3 行 —— %4 通过，%5 警告，%6 错误，%7 未比对；%8 个标杆张量没有对应的 NPU 行。</translation>
        </message>
        <message>
            <source>Cancelled. </source>
            <translation>已取消。</translation>
        </message>
        <message>
            <source>No operator diverges.</source>
            <translation>没有算子出现分歧。</translation>
        </message>
        <message>
            <source>Compare thresholds</source>
            <translation>比对阈值</translation>
        </message>
        <message>
            <source>The names and meanings are those of docs/COMPARE.md (msprobe and msaccucmp thresholds).</source>
            <translation>名称和含义见 docs/COMPARE.md（msprobe 与 msaccucmp 的阈值）。</translation>
        </message>
        <message>
            <source>Export comparison</source>
            <translation>导出比对结果</translation>
        </message>
        <message>
            <source>CSV files (*.csv)</source>
            <translation>CSV 文件 (*.csv)</translation>
        </message>
        <message>
            <source>DumpScope does not write into an opened dump directory; choose another folder.</source>
            <translation>DumpScope 不会写入已打开的 dump 目录；请选择其他文件夹。</translation>
        </message>
        <message>
            <source>Cannot write %1: %2</source>
            <translation>无法写入 %1：%2</translation>
        </message>
        <message>
            <source>No bench tensor for %1.</source>
            <translation>%1 没有对应的标杆张量。</translation>
        </message>
        <message>
            <source>Loading %1 and %2…</source>
            <translation>正在加载 %1 和 %2…</translation>
        </message>
        <message>
            <source>bench</source>
            <translation>标杆</translation>
        </message>
        <message>
            <source>%1 vs %2: %3, %4 elements equal, %5 NaN/Inf mismatches.</source>
            <translation>%1 对 %2：%3，%4 个元素相等，%5 处 NaN/Inf 不一致。</translation>
        </message>
        <message>
            <source>%1 vs %2: %3</source>
            <translation>%1 对 %2：%3</translation>
        </message>
        <message>
            <source>(no bench tensor)</source>
            <translation>（无标杆张量）</translation>
        </message>
        <message>
            <source>Rows without bench tensor</source>
            <translation>无标杆张量的行</translation>
        </message>
        <message>
            <source>Bench operators</source>
            <translation>标杆算子</translation>
        </message>
        <message>
            <source>Mapping</source>
            <translation>映射</translation>
        </message>
        <message>
            <source>Map to bench operator…</source>
            <translation>映射到标杆算子…</translation>
        </message>
        <message>
            <source>Applying the mapping was cancelled; the rows are those of the previous mapping.</source>
            <translation>应用映射已取消；各行仍为之前映射的结果。</translation>
        </message>
        <message>
            <source>Applying the mapping: comparing the re-matched rows…</source>
            <translation>正在应用映射：比对重新匹配的行…</translation>
        </message>
        <message>
            <source>Map %1 to bench operator…</source>
            <translation>将 %1 映射到标杆算子…</translation>
        </message>
        <message numerus="yes">
            <source>%n operator(s)</source>
            <translation>
                <numerusform>%n 个算子</numerusform>
            </translation>
        </message>
        <message>
            <source>Remove the mapping of %1</source>
            <translation>移除 %1 的映射</translation>
        </message>
        <message>
            <source>Show %1 among the bench operators</source>
            <translation>在标杆算子中显示 %1</translation>
        </message>
        <message>
            <source>%1 lies inside an opened dump directory; DumpScope never writes there.</source>
            <translation>%1 位于已打开的 dump 目录内；DumpScope 从不向其中写入。</translation>
        </message>
        <message>
            <source>JSON mapping (*.json)</source>
            <translation>JSON 映射（*.json）</translation>
        </message>
        <message>
            <source>YAML mapping, names only (*.yaml *.yml)</source>
            <translation>YAML 映射，仅名称（*.yaml *.yml）</translation>
        </message>
        <message>
            <source>Save mapping</source>
            <translation>保存映射</translation>
        </message>
        <message>
            <source>Load mapping</source>
            <translation>加载映射</translation>
        </message>
        <message>
            <source>Mapping files (*.json *.yaml *.yml);;All files (*)</source>
            <translation>映射文件（*.json *.yaml *.yml）;;所有文件（*）</translation>
        </message>
        <message>
            <source>Absolute error |NPU − bench|</source>
            <translation>绝对误差 |NPU − 标杆|</translation>
        </message>
        <message>
            <source>Relative error |NPU − bench| / |bench|</source>
            <translation>相对误差 |NPU − 标杆| / |标杆|</translation>
        </message>
        <message>
            <source>Relative error: 0 where both values are 0, Inf where only the bench value is 0</source>
            <translation>相对误差：两侧均为 0 时为 0，仅标杆值为 0 时为 Inf</translation>
        </message>
        <message>
            <source>Save the rows with msprobe 26's columns (Result, Err_message), then DumpScope's</source>
            <translation>按 msprobe 26 的列（Result、Err_message）保存各行，其后是 DumpScope 自己的列</translation>
        </message>
        <message>
            <source>its inputs agree, an output differs</source>
            <translation>输入一致，输出不一致</translation>
        </message>
        <message>
            <source>an input already differs</source>
            <translation>输入已不一致</translation>
        </message>
        <message>
            <source>a parameter differs at its first use</source>
            <translation>某个参数在首次使用时即不一致</translation>
        </message>
        <message>
            <source>parameter %1 (named from the call stack) differs at its first use</source>
            <translation>参数 %1（名称取自调用栈）在首次使用时即不一致</translation>
        </message>
        <message>
            <source>parameter %1 differs at its first use</source>
            <translation>参数 %1 在首次使用时即不一致</translation>
        </message>
        <message>
            <source>%1 in %2</source>
            <translation>%1（位于 %2）</translation>
        </message>
        <message numerus="yes">
            <source>First divergence: %1: %2 (%n operator(s) after it disagree too).</source>
            <translation>
                <numerusform>首个分歧：%1：%2（其后还有 %n 个算子也不一致）。</numerusform>
            </translation>
        </message>
        <message>
            <source>Run: %1</source>
            <translation>运行：%1</translation>
        </message>
        <message>
            <source>Rows where the verdicts differ</source>
            <translation>两个结论不同的行</translation>
        </message>
        <message>
            <source>Selected row</source>
            <translation>选中的行</translation>
        </message>
        <message>
            <source>Statistics</source>
            <translation>统计量</translation>
        </message>
        <message>
            <source>DumpScope verdict: %1 pass, %2 warning, %3 error, %4 not compared.</source>
            <translation>DumpScope 结论：%1 通过，%2 警告，%3 错误，%4 未比对。</translation>
        </message>
        <message>
            <source>msprobe Result: %1 pass, %2 warning, %3 error</source>
            <translation>msprobe 结果：%1 pass，%2 warning，%3 error</translation>
        </message>
        <message>
            <source>%1 without a Result</source>
            <translation>%1 行没有结果</translation>
        </message>
        <message numerus="yes">
            <source>differs from DumpScope's verdict on %n row(s).</source>
            <translation>
                <numerusform>与 DumpScope 结论不同的有 %n 行。</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n row(s) of %1 vs %2</source>
            <translation>
                <numerusform>%1 对 %2 的 %n 行</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n bench tensor(s) without an NPU row</source>
            <translation>
                <numerusform>%n 个标杆张量没有对应的 NPU 行</numerusform>
            </translation>
        </message>
        <message>
            <source>NPU: %1
Bench: %2</source>
            <translation>NPU：%1
标杆：%2</translation>
        </message>
        <message>
            <source>%1 (no bench tensor)</source>
            <translation>%1（无标杆张量）</translation>
        </message>
        <message>
            <source>%1 vs %2</source>
            <translation>%1 对 %2</translation>
        </message>
        <message>
            <source>DumpScope verdict: %1 · msprobe Result: %2</source>
            <translation>DumpScope 结论：%1 · msprobe 结果：%2</translation>
        </message>
        <message>
            <source>none</source>
            <translation>无</translation>
        </message>
        <message>
            <source>first divergence: %1</source>
            <translation>首个分歧：%1</translation>
        </message>
        <message>
            <source>They differ: %1</source>
            <translation>二者不同：%1</translation>
        </message>
        <message>
            <source>No element-wise detail: %1</source>
            <translation>没有逐元素细节：%1</translation>
        </message>
        <message>
            <source>%1 of %2 elements exactly equal, %3 NaN/Inf mismatches.</source>
            <translation>%2 个元素中 %1 个完全相等，%3 处 NaN/Inf 不一致。</translation>
        </message>
        <message>
            <source>Cosine %1, MaxAbsErr %2, MaxRelativeErr %3; </source>
            <translation>余弦相似度 %1，MaxAbsErr %2，MaxRelativeErr %3；</translation>
        </message>
        <message>
            <source>The NPU dump of the comparison was closed. Analysis → Compare with… compares an open dump.</source>
            <translation>此比对的 NPU dump 已关闭。“分析 → 与…比对”可比对已打开的 dump。</translation>
        </message>
        <message>
            <source>Error added by %1: %2 (output %3, largest input %4; %5)</source>
            <translation>%1 引入的误差：%2（输出 %3，最大输入 %4；%5）</translation>
        </message>
    </context>
    <context>
        <name>ds::DumpTreeModel</name>
    <message>
        <source>reading…</source>
        <translation>正在读取…</translation>
    </message>
    <message>
        <source>not read (expand to read)</source>
        <translation>未读取（展开以读取）</translation>
    </message>
    <message>
        <source>%1 in %2 of %3 scopes read</source>
        <translation>%1，已读取 %3 个作用域中的 %2 个</translation>
    </message>
        <message>
            <source>Files that could not be read</source>
            <translation>无法读取的文件</translation>
        </message>
        <message>
            <source>time %1</source>
            <translation>时间 %1</translation>
        </message>
        <message>
            <source>device %1</source>
            <translation>设备 %1</translation>
        </message>
        <message>
            <source>model %1</source>
            <translation>模型 %1</translation>
        </message>
        <message>
            <source>model id %1</source>
            <translation>模型 ID %1</translation>
        </message>
        <message>
            <source>step %1</source>
            <translation>迭代 %1</translation>
        </message>
        <message numerus="yes">
            <source>%n op(s)</source>
            <translation>
                <numerusform>%n 个算子</numerusform>
            </translation>
        </message>
        <message>
            <source>Name</source>
            <translation>名称</translation>
        </message>
        <message>
            <source>Operators</source>
            <translation>算子</translation>
        </message>
        <message>
            <source>Size</source>
            <translation>大小</translation>
        </message>
        <message>
            <source>Details</source>
            <translation>详情</translation>
        </message>
        <message>
            <source> (statistics only)</source>
            <translation>（仅统计量）</translation>
        </message>
        <message>
            <source>Run in %1</source>
            <translation>运行目录 %1</translation>
        </message>
        <message>
            <source>Written by: %1</source>
            <translation>写入者：%1</translation>
        </message>
    </context>
    <context>
        <name>ds::ExportDialog</name>
        <message>
            <source>Export tensors</source>
            <translation>导出张量</translation>
        </message>
        <message>
            <source>NumPy array (.npy)</source>
            <translation>NumPy 数组（.npy）</translation>
        </message>
        <message>
            <source>Text, one value per line (.txt)</source>
            <translation>文本，每行一个值（.txt）</translation>
        </message>
        <message>
            <source>Logical (ND, converted from private layouts)</source>
            <translation>逻辑格式（ND，由私有格式转换而来）</translation>
        </message>
        <message>
            <source>Raw device layout</source>
            <translation>原始设备格式</translation>
        </message>
        <message>
            <source>Digits after the decimal point in .txt files (numpy.savetxt uses 18)</source>
            <translation>.txt 文件中小数点后的位数（numpy.savetxt 使用 18 位）</translation>
        </message>
        <message>
            <source>Browse…</source>
            <translation>浏览…</translation>
        </message>
        <message>
            <source>Overwrite existing files</source>
            <translation>覆盖已有文件</translation>
        </message>
        <message numerus="yes">
            <source>%n tensor(s) selected.</source>
            <translation>
                <numerusform>已选择 %n 个张量。</numerusform>
            </translation>
        </message>
        <message>
            <source>Format:</source>
            <translation>文件格式：</translation>
        </message>
        <message>
            <source>Layout:</source>
            <translation>数据格式：</translation>
        </message>
        <message>
            <source>Text precision:</source>
            <translation>文本精度：</translation>
        </message>
        <message>
            <source>Target folder:</source>
            <translation>目标目录：</translation>
        </message>
        <message>
            <source>Export</source>
            <translation>导出</translation>
        </message>
        <message>
            <source>Export to folder</source>
            <translation>导出到目录</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Exporting…</source>
            <translation>正在导出…</translation>
        </message>
        <message>
            <source>wrote %1 (%2, %3)</source>
            <translation>已写入 %1（%2，%3）</translation>
        </message>
        <message>
            <source>FAILED %1: %2</source>
            <translation>失败 %1：%2</translation>
        </message>
        <message>
            <source>%1 of %2 tensor(s) written%3.</source>
            <translation>已写入 %1/%2 个张量%3。</translation>
        </message>
        <message>
            <source> (cancelled)</source>
            <translation> (已取消)</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>HDF5 dumper file, whole operators (.h5)</source>
            <translation>HDF5 dumper 文件，整个算子（.h5）</translation>
        </message>
        <message>
            <source>A new .h5 file in the target folder with each selected operator's /{op}/{seqid} group</source>
            <translation>在目标文件夹中新建 .h5 文件，包含每个所选算子的 /{op}/{seqid} 组</translation>
        </message>
        <message>
            <source>File name:</source>
            <translation>文件名：</translation>
        </message>
        <message numerus="yes">
            <source>%n operator(s) selected.</source>
            <translation>
                <numerusform>已选择 %n 个算子。</numerusform>
            </translation>
        </message>
        <message>
            <source>Writing %1…</source>
            <translation>正在写入 %1…</translation>
        </message>
        <message numerus="yes">
            <source>wrote %1: %n operator(s)</source>
            <translation>
                <numerusform>已写入 %1：%n 个算子</numerusform>
            </translation>
        </message>
        <message>
            <source>Nothing to export: no selected leaf has values. Select tensors of a dump that saved them (msprobe task tensor, CANN, .npy, .pt, .h5).</source>
            <translation>没有可导出的内容：所选叶节点均无数值。请选择保存了数值的 dump 中的张量（msprobe task tensor、CANN、.npy、.pt、.h5）。</translation>
        </message>
        <message numerus="yes">
            <source>%n tensor(s) will be exported.</source>
            <translation>
                <numerusform>将导出 %n 个张量。</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ds::FirstStepsDialog</name>
        <message>
            <source>First Steps</source>
            <translation>入门</translation>
        </message>
        <message>
            <source>These steps are also in README.md (The GUI → First steps); the command line is described there too.</source>
            <translation>这些步骤也写在 README.md（The GUI → First steps）中；命令行的用法也在那里说明。</translation>
        </message>
        <message>
            <source>Open a dump</source>
            <translation>打开 dump</translation>
        </message>
        <message>
            <source>File → Open Dump Folder… (Ctrl+O), Open Dump File… or Open Recent, drop a folder on the window, or start dumpscope PATH. To try it, open the bundled sample samples/cann/model_dump.</source>
            <translation>文件 → 打开 Dump 目录…（Ctrl+O）、打开 Dump 文件…或最近打开，把文件夹拖到窗口上，或运行 dumpscope PATH。想先试一试，可打开自带的样例 samples/cann/model_dump。</translation>
        </message>
        <message>
            <source>Browse</source>
            <translation>浏览</translation>
        </message>
        <message>
            <source>The dump tree (left) fills while the folder is indexed in the background, and the window opens on the first operator. Files that could not be read are listed under "Files that could not be read" and in the Problems dock.</source>
            <translation>文件夹在后台建立索引时，左侧的 Dump 树随之填充，窗口打开后选中第一个算子。无法读取的文件列在“无法读取的文件”下和“问题”面板中。</translation>
        </message>
        <message>
            <source>Look at a tensor</source>
            <translation>查看张量</translation>
        </message>
        <message>
            <source>Click an operator or a tensor: the Operators tab lists the operators of its level, the tensor inspector (right) shows its metadata, statistics and histogram, and its Values and Heatmap tabs show the elements.</source>
            <translation>单击算子或张量：“算子”标签页列出其所在层级的算子，右侧的张量检查器显示其元数据、统计量和直方图，其“数值”和“热力图”标签页显示各个元素。</translation>
        </message>
        <message>
            <source>Find overflows</source>
            <translation>查找溢出</translation>
        </message>
        <message>
            <source>Analysis → Go to First Overflow (Ctrl+F1) selects the first overflow of the open dumps; the Overflow tab lists every record and finding.</source>
            <translation>分析 → 转到首个溢出（Ctrl+F1）选中已打开 dump 中的首个溢出；“溢出”标签页列出所有记录和发现。</translation>
        </message>
        <message>
            <source>Compare with a bench run</source>
            <translation>与标杆运行比对</translation>
        </message>
        <message>
            <source>Analysis → Compare with… (Ctrl+Shift+C) compares the selected NPU dump with a GPU/CPU dump; the Compare tab pins the first divergence on top.</source>
            <translation>分析 → 与…比对（Ctrl+Shift+C）将选中的 NPU dump 与 GPU/CPU dump 比对；“比对”标签页把第一个分歧固定在顶部。</translation>
        </message>
        <message>
            <source>Export and copy</source>
            <translation>导出与复制</translation>
        </message>
        <message>
            <source>File → Export Tensors… (Ctrl+E) writes the selected tensors to .npy or .txt; right-click an item in the tree, the operator table or the graph to copy its name or path, export it, compare it or show it in the graph.</source>
            <translation>文件 → 导出张量…（Ctrl+E）把选中的张量写成 .npy 或 .txt；在 Dump 树、算子表或图中右键单击某一项，可复制其名称或路径、导出、比对或在图中显示。</translation>
        </message>
        <message>
            <source>Find your way</source>
            <translation>快速定位</translation>
        </message>
        <message>
            <source>Ctrl+F goes to the search box of the current view; the View menu lists every panel and tab (Ctrl+1 to Ctrl+6), and View → Reset Layout brings back the default layout.</source>
            <translation>Ctrl+F 跳到当前视图的搜索框；“视图”菜单列出所有面板和标签页（Ctrl+1 到 Ctrl+6），视图 → 重置布局可恢复默认布局。</translation>
        </message>
    </context>
    <context>
        <name>ds::GraphCompareView</name>
        <message>
            <source>pass</source>
            <translation>通过</translation>
        </message>
        <message>
            <source>warning</source>
            <translation>警告</translation>
        </message>
        <message>
            <source>unmatched</source>
            <translation>未匹配</translation>
        </message>
        <message>
            <source>error</source>
            <translation>错误</translation>
        </message>
        <message>
            <source>Keep aligned</source>
            <translation>保持对齐</translation>
        </message>
        <message>
            <source>Moving one side moves the other so that matched nodes stay side by side</source>
            <translation>移动一侧时另一侧随之移动，使匹配的节点保持并排</translation>
        </message>
        <message>
            <source>NPU: %1</source>
            <translation>NPU：%1</translation>
        </message>
        <message>
            <source>Bench: %1</source>
            <translation>标杆：%1</translation>
        </message>
        <message>
            <source>Pairing %1: now click the bench node it corresponds to (Esc cancels).</source>
            <translation>正在配对 %1：请点击与之对应的标杆节点（Esc 取消）。</translation>
        </message>
        <message>
            <source>%1 NPU and %2 bench nodes matched; unmatched: %3 NPU, %4 bench (magenta). Click an unmatched NPU node, then a bench node, to pair them.</source>
            <translation>已匹配 %1 个 NPU 节点和 %2 个标杆节点；未匹配：NPU %3 个，标杆 %4 个（品红色）。先点击一个未匹配的 NPU 节点，再点击一个标杆节点，即可将二者配对。</translation>
        </message>
        <message>
            <source>Paired %1 with %2; comparing again…</source>
            <translation>已将 %1 与 %2 配对；正在重新比对…</translation>
        </message>
    </context>
    <context>
        <name>ds::GraphPanel</name>
        <message>
            <source>Underflows in %1</source>
            <translation>%1 下溢比例</translation>
        </message>
        <message>
            <source>none</source>
            <translation>无</translation>
        </message>
        <message>
            <source>&lt; 0.1 %</source>
            <translation>&lt; 0.1 %</translation>
        </message>
        <message>
            <source>0.1 – 1 %</source>
            <translation>0.1 – 1 %</translation>
        </message>
        <message>
            <source>≥ 1 %</source>
            <translation>≥ 1 %</translation>
        </message>
        <message>
            <source>Underflows in %1:</source>
            <translation>%1 下溢比例：</translation>
        </message>
        <message>
            <source>The fraction of each operator&apos;s output values (finite ones) that would become zero in %1: 0 &lt; |x| &lt; half its smallest subnormal. Uncoloured: no values were read (statistics-only outputs cannot tell underflow). Groups show the largest fraction of their operators.</source>
            <translation>各算子输出值（有限值）中在 %1 下会变为零的比例：0 &lt; |x| &lt; 其最小次正规数的一半。未着色：未读取数值（仅有统计量的输出无法判断下溢）。分组显示其算子中的最大比例。</translation>
        </message>
        <message>
            <source>Find operator by name or type…</source>
            <translation>按名称或类型查找算子…</translation>
        </message>
        <message>
            <source>Type part of an operator name or type; Enter jumps to the next match</source>
            <translation>输入算子名称或类型的一部分；按 Enter 跳转到下一个匹配项</translation>
        </message>
        <message>
            <source>Show the whole graph (key 0)</source>
            <translation>显示整个图（按键 0）</translation>
        </message>
        <message>
            <source>Open a dump to see its computation graph.</source>
            <translation>打开 Dump 数据以查看其计算图。</translation>
        </message>
        <message>
            <source>No readable graph file: %1</source>
            <translation>没有可读取的图文件：%1</translation>
        </message>
        <message>
            <source>No computation graph for this dump.</source>
            <translation>该 Dump 没有计算图。</translation>
        </message>
        <message numerus="yes">
            <source>%1 — %2 (%n op(s))</source>
            <translation>
                <numerusform>%1 — %2（%n 个算子）</numerusform>
            </translation>
        </message>
        <message>
            <source>%1 holds no graph.</source>
            <translation>%1 中不包含图。</translation>
        </message>
        <message>
            <source>Mapping dump files onto %1…</source>
            <translation>正在将 Dump 文件映射到 %1…</translation>
        </message>
        <message numerus="yes">
            <source>%1: %n operator(s)</source>
            <translation>
                <numerusform>%1：%n 个算子</numerusform>
            </translation>
        </message>
        <message>
            <source>read from ONNX text (reduced fidelity)</source>
            <translation>读取自 ONNX 文本（保真度降低）</translation>
        </message>
        <message>
            <source>medium</source>
            <translation>中</translation>
        </message>
        <message>
            <source>high</source>
            <translation>高</translation>
        </message>
        <message>
            <source>critical: produced here</source>
            <translation>严重：在此产生</translation>
        </message>
        <message>
            <source>named by an OpDebug record</source>
            <translation>由 OpDebug 记录指明</translation>
        </message>
        <message>
            <source>Overflow:</source>
            <translation>溢出：</translation>
        </message>
        <message>
            <source>cycle edge</source>
            <translation>环路边</translation>
        </message>
        <message>
            <source>none in this graph</source>
            <translation>本图中无溢出</translation>
        </message>
        <message>
            <source>%1+ matches</source>
            <translation>%1+ 个匹配项</translation>
        </message>
        <message numerus="yes">
            <source>%n match(es)</source>
            <translation>
                <numerusform>%n 个匹配项</numerusform>
            </translation>
        </message>
        <message>
            <source>%1 of %2</source>
            <translation>%1 / %2</translation>
        </message>
        <message>
            <source>%1 (%2)</source>
            <translation>%1（%2）</translation>
        </message>
        <message>
            <source>%1 (%2): no dump data for this node.</source>
            <translation>%1（%2）：该节点没有 Dump 数据。</translation>
        </message>
        <message numerus="yes">
            <source>%1 (%2): %n dump file(s).</source>
            <translation>
                <numerusform>%1（%2）：%n 个 Dump 文件。</numerusform>
            </translation>
        </message>
        <message>
            <source>The root graph of the model or one of its sub-graphs (double-click a node that calls a sub-graph to open it)</source>
            <translation>模型的根图或其子图之一（双击调用子图的节点即可打开）</translation>
        </message>
        <message>
            <source>Overflow</source>
            <translation>溢出</translation>
        </message>
        <message>
            <source>NaN / Inf in outputs</source>
            <translation>输出中的 NaN / Inf</translation>
        </message>
        <message>
            <source>Max |output|</source>
            <translation>最大 |输出|</translation>
        </message>
        <message>
            <source>What the node colours show. Statistics overlays read the output tensors of the operators in this graph in the background.</source>
            <translation>节点颜色所表示的内容。统计量叠加会在后台读取本图中算子的输出张量。</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Stop computing statistics (colours shown so far stay)</source>
            <translation>停止计算统计量（已显示的颜色保留）</translation>
        </message>
        <message>
            <source>Colour by:</source>
            <translation>着色依据：</translation>
        </message>
        <message>
            <source>%1 (root graph)</source>
            <translation>%1（根图）</translation>
        </message>
        <message>
            <source>sub-graph %1</source>
            <translation>子图 %1</translation>
        </message>
        <message>
            <source>statistics 0 of %1</source>
            <translation>统计量 0 / %1</translation>
        </message>
        <message>
            <source>statistics %1 of %2</source>
            <translation>统计量 %1 / %2</translation>
        </message>
        <message>
            <source>Groups show the worst mark of their operators.</source>
            <translation>分组显示其算子中最严重的标记。</translation>
        </message>
        <message>
            <source>all outputs finite</source>
            <translation>所有输出均为有限值</translation>
        </message>
        <message>
            <source>outputs could not be read</source>
            <translation>无法读取输出</translation>
        </message>
        <message>
            <source>NaN or Inf in an output</source>
            <translation>输出中含 NaN 或 Inf</translation>
        </message>
        <message>
            <source>NaN / Inf:</source>
            <translation>NaN / Inf：</translation>
        </message>
        <message>
            <source>Groups show the worst of their operators (NaN/Inf over unreadable over finite).</source>
            <translation>分组显示其算子中最差的状态（NaN/Inf 优先于无法读取，无法读取优先于有限值）。</translation>
        </message>
        <message>
            <source>&lt; 1</source>
            <translation>&lt; 1</translation>
        </message>
        <message>
            <source>1 – 100</source>
            <translation>1 – 100</translation>
        </message>
        <message>
            <source>100 – 10⁴</source>
            <translation>100 – 10⁴</translation>
        </message>
        <message>
            <source>10⁴ – 65504</source>
            <translation>10⁴ – 65504</translation>
        </message>
        <message>
            <source>≥ 65504 (float16 max) or NaN/Inf</source>
            <translation>≥ 65504（float16 最大值）或 NaN/Inf</translation>
        </message>
        <message>
            <source>Max |output|:</source>
            <translation>最大 |输出|：</translation>
        </message>
        <message>
            <source>Groups show the largest magnitude of their operators.</source>
            <translation>分组显示其算子中的最大幅值。</translation>
        </message>
        <message>
            <source>computing…</source>
            <translation>计算中…</translation>
        </message>
        <message>
            <source>Dotted border: no dump data. Dashed edge: control edge. Purple edge: drawn against the flow to break a cycle between boxes.</source>
            <translation>点线边框：无 dump 数据。虚线边：控制边。紫色边：为打破方框间的环而逆向绘制。</translation>
        </message>
        <message>
            <source>Module hierarchy of the framework dump in %1 (construct.json)</source>
            <translation>%1 中框架 dump 的模块层级（construct.json）</translation>
        </message>
        <message>
            <source>Compare verdict</source>
            <translation>比对结论</translation>
        </message>
        <message>
            <source>pass</source>
            <translation>通过</translation>
        </message>
        <message>
            <source>warning</source>
            <translation>警告</translation>
        </message>
        <message>
            <source>error</source>
            <translation>错误</translation>
        </message>
        <message>
            <source>Compare:</source>
            <translation>比对：</translation>
        </message>
        <message>
            <source>Groups show the worst verdict of their operators' compared tensors.</source>
            <translation>分组显示其算子已比对张量中最差的结论。</translation>
        </message>
        <message>
            <source>Compare: cosine</source>
            <translation>比对：余弦相似度</translation>
        </message>
        <message>
            <source>Compare: max absolute error</source>
            <translation>比对：最大绝对误差</translation>
        </message>
        <message>
            <source>Compare: max relative error</source>
            <translation>比对：最大相对误差</translation>
        </message>
        <message>
            <source>≥ 0.9999</source>
            <translation>≥ 0.9999</translation>
        </message>
        <message>
            <source>0.999 – 0.9999</source>
            <translation>0.999 – 0.9999</translation>
        </message>
        <message>
            <source>0.99 – 0.999</source>
            <translation>0.99 – 0.999</translation>
        </message>
        <message>
            <source>&lt; 0.99 or NaN</source>
            <translation>&lt; 0.99 或 NaN</translation>
        </message>
        <message>
            <source>Lowest cosine:</source>
            <translation>最低余弦相似度：</translation>
        </message>
        <message>
            <source>Groups show the lowest cosine similarity of their operators' compared tensors (msprobe flags &lt; 0.99).</source>
            <translation>分组显示其算子所比对张量的最低余弦相似度（msprobe 将 &lt; 0.99 标为异常）。</translation>
        </message>
        <message>
            <source>&lt; 10⁻⁴</source>
            <translation>&lt; 10⁻⁴</translation>
        </message>
        <message>
            <source>10⁻⁴ – 10⁻²</source>
            <translation>10⁻⁴ – 10⁻²</translation>
        </message>
        <message>
            <source>10⁻² – 1</source>
            <translation>10⁻² – 1</translation>
        </message>
        <message>
            <source>≥ 1 or NaN</source>
            <translation>≥ 1 或 NaN</translation>
        </message>
        <message>
            <source>Max absolute error:</source>
            <translation>最大绝对误差：</translation>
        </message>
        <message>
            <source>Max relative error:</source>
            <translation>最大相对误差：</translation>
        </message>
        <message>
            <source>Groups show the largest error of their operators' compared tensors.</source>
            <translation>分组显示其算子所比对张量的最大误差。</translation>
        </message>
        <message>
            <source>The graph shown: graph files found for the dump (best computation-graph candidate first) or the module graphs of a framework dump</source>
            <translation>显示的图：为该 dump 找到的图文件（最佳计算图候选在前），或框架 dump 的模块图</translation>
        </message>
        <message>
            <source>Start</source>
            <translation>起点</translation>
        </message>
        <message>
            <source>Back to where the graph starts: the data entry, or the first overflow or divergence (key Home)</source>
            <translation>回到图的起点：数据入口，或首个溢出、首个分歧处（Home 键）</translation>
        </message>
        <message>
            <source>Fit all</source>
            <translation>全部显示</translation>
        </message>
        <message>
            <source>Side by side</source>
            <translation>并排对比</translation>
        </message>
        <message>
            <source>The bench dump has no graph to show beside this one</source>
            <translation>标杆 dump 没有可与之并排显示的图</translation>
        </message>
        <message>
            <source>Show the NPU and bench graphs side by side, matched nodes aligned</source>
            <translation>并排显示 NPU 图和标杆图，匹配的节点对齐</translation>
        </message>
        <message>
            <source>Reading the graph files…</source>
            <translation>正在读取图文件…</translation>
        </message>
        <message>
            <source>Looking for graph files for %1…</source>
            <translation>正在为 %1 查找图文件…</translation>
        </message>
        <message>
            <source>No GE graph files (ge_proto_*.txt, ge_onnx_*.pbtxt) in or next to %1. Dump them with DUMP_GE_GRAPH=2, or add their folder with File → Add Graph Folder.</source>
            <translation>%1 中及其旁边没有 GE 图文件（ge_proto_*.txt、ge_onnx_*.pbtxt）。请用 DUMP_GE_GRAPH=2 导出，或通过“文件 → 添加图文件夹”添加其所在文件夹。</translation>
        </message>
        <message>
            <source>forward and backward apart, groups are modules, parameters sit in their module, edges show the call order (the dump records no data flow)</source>
            <translation>前向与反向分开，分组为模块，参数位于所属模块中，连线表示调用顺序（dump 不记录数据流）</translation>
        </message>
        <message>
            <source>Double-click a group (▸) to open or close it; stacked boxes are folded crowds of siblings with the same name pattern.</source>
            <translation>双击分组（▸）可展开或折叠；叠放的方框是名称模式相同的同级节点折叠而成。</translation>
        </message>
        <message>
            <source>No dump is open: the graph is shown without dump data. Open the dump to link its operators.</source>
            <translation>未打开 dump：图中不含 dump 数据。打开 dump 以关联其算子。</translation>
        </message>
        <message numerus="yes">
            <source>Not linked: no model_name folder of the dump is named like this graph (%1); %n dump operator(s) open.</source>
            <translation>
                <numerusform>未关联：dump 中没有与此图同名的 model_name 文件夹（%1）；已打开 %n 个 dump 算子。</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Linked: %1 of %n dump operator(s) map to graph nodes; %2 of %3 nodes have dump data (dotted border: none).</source>
            <translation>
                <numerusform>已关联：%n 个 dump 算子中有 %1 个对应到图节点；%3 个节点中有 %2 个有 dump 数据（虚线边框：无）。</numerusform>
            </translation>
        </message>
        <message>
            <source>Model folder: %1.</source>
            <translation>模型文件夹：%1。</translation>
        </message>
        <message numerus="yes">
            <source>%n other operator(s) of the dump belong to other model folders or graphs.</source>
            <translation>
                <numerusform>dump 中另有 %n 个算子属于其他模型文件夹或图。</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n graph file(s) could not be read.</source>
            <translation>
                <numerusform>%n 个图文件无法读取。</numerusform>
            </translation>
        </message>
        <message>
            <source>Both sides: the worst verdict of each node's compared tensors; unmatched: its tensors found no counterpart on the other side. Groups show their worst member.</source>
            <translation>两侧：每个节点所比对张量中最差的判定；未匹配：其张量在另一侧没有对应项。分组显示其最差的成员。</translation>
        </message>
        <message>
            <source>msprobe graph database %1: %2</source>
            <translation>msprobe 图数据库 %1：%2</translation>
        </message>
        <message>
            <source>msprobe graph database: the colours are the levels msprobe stored; select a node to see its inputs and outputs.</source>
            <translation>msprobe 图数据库：颜色是 msprobe 存储的级别；选择一个节点可查看其输入和输出。</translation>
        </message>
        <message>
            <source>The overflow levels msprobe's graph_visualize stored (-oc). Groups show their worst member.</source>
            <translation>msprobe 的 graph_visualize 存储的溢出级别（-oc）。分组显示其最差的成员。</translation>
        </message>
        <message>
            <source>msprobe's precision levels of the compare graph. Groups show their worst member.</source>
            <translation>msprobe 比对图的精度级别。分组显示其最差的成员。</translation>
        </message>
        <message>
            <source>The module hierarchy of %1 is drawn when this tab is shown.</source>
            <translation>%1 的模块层级在显示此标签页时绘制。</translation>
        </message>
        <message>
            <source>%1 in %2</source>
            <translation>%1（位于 %2）</translation>
        </message>
        <message>
            <source>msprobe graph database: the colours are the levels msprobe stored.</source>
            <translation>msprobe 图数据库：颜色是 msprobe 存储的级别。</translation>
        </message>
        <message>
            <source>%1 of %2 nodes are operators of the open dump: click one to show its tensors.</source>
            <translation>%2 个节点中有 %1 个是已打开 dump 的算子：点击节点可显示其张量。</translation>
        </message>
        <message>
            <source>Click a node to see the statistics msprobe recorded for its inputs and outputs.</source>
            <translation>点击节点可查看 msprobe 为其输入和输出记录的统计量。</translation>
        </message>
        <message>
            <source>%1 (%2): the statistics msprobe recorded are shown in the inspector.</source>
            <translation>%1（%2）：msprobe 记录的统计量显示在检查器中。</translation>
        </message>
        <message>
            <source>Name scopes of the MindSpore kernel dump in %1</source>
            <translation>%1 中 MindSpore 算子级 dump 的名称作用域</translation>
        </message>
        <message>
            <source>groups are the kernels&apos; name scopes (Default: forward, Gradients: backward), edges show the execution order (the dump records no data flow)</source>
            <translation>分组为算子的名称作用域（Default：前向，Gradients：反向），边表示执行顺序（dump 不记录数据流）</translation>
        </message>
        <message>
            <source>Compare: error added</source>
            <translation>比对：引入误差</translation>
        </message>
        <message>
            <source>≤ 0: adds none</source>
            <translation>≤ 0：未引入</translation>
        </message>
        <message>
            <source>0 – 10⁻³</source>
            <translation>0 – 10⁻³</translation>
        </message>
        <message>
            <source>10⁻³ – 10⁻²</source>
            <translation>10⁻³ – 10⁻²</translation>
        </message>
        <message>
            <source>≥ 10⁻²</source>
            <translation>≥ 10⁻²</translation>
        </message>
        <message>
            <source>Error added:</source>
            <translation>引入误差：</translation>
        </message>
        <message>
            <source>The error each operator adds: its output&apos;s relative error minus the largest relative error of its inputs and parameters (docs/COMPARE.md). Uncoloured: not known (a row not compared, md5). Groups show the largest of their operators.</source>
            <translation>每个算子引入的误差：其输出的相对误差减去其输入和参数中最大的相对误差（docs/COMPARE.md）。未着色：未知（有行未比对、md5）。分组显示其算子中的最大值。</translation>
        </message>
    </context>
    <context>
        <name>ds::GraphView</name>
        <message>
            <source>Inputs and outputs: reading them from the graph database…</source>
            <translation>输入与输出：正在从图数据库读取…</translation>
        </message>
        <message>
            <source>Inputs and outputs: cannot read them: %1</source>
            <translation>输入与输出：无法读取：%1</translation>
        </message>
        <message>
            <source>Control edge: %1 → %2</source>
            <translation>控制边：%1 → %2</translation>
        </message>
        <message>
            <source>%1:%2 → %3 (input %4)</source>
            <translation>%1:%2 → %3（输入 %4）</translation>
        </message>
        <message>
            <source>Tensor: %1 %2 %3</source>
            <translation>张量：%1 %2 %3</translation>
        </message>
        <message>
            <source>Tensor: output %1 has no descriptor in the graph</source>
            <translation>张量：输出 %1 在图中没有描述信息</translation>
        </message>
        <message numerus="yes">
            <source>%n more edge(s) between these boxes</source>
            <translation>
                <numerusform>这两个框之间还有 %n 条边</numerusform>
            </translation>
        </message>
        <message>
            <source>Part of a cycle: drawn upward</source>
            <translation>属于环路：向上绘制</translation>
        </message>
        <message>
            <source>%1
Type: %2</source>
            <translation>%1
类型：%2</translation>
        </message>
        <message>
            <source>Output %1: %2 %3</source>
            <translation>输出 %1：%2 %3</translation>
        </message>
        <message numerus="yes">
            <source>%1
%n operator(s); double-click to %2</source>
            <translation>
                <numerusform>%1
%n 个算子；双击可%2</numerusform>
            </translation>
        </message>
        <message>
            <source>open</source>
            <translation>展开</translation>
        </message>
        <message>
            <source>close</source>
            <translation>折叠</translation>
        </message>
        <message>
            <source>Laying out the graph…</source>
            <translation>正在对图进行布局…</translation>
        </message>
        <message numerus="yes">
            <source>%n op(s)</source>
            <translation>
                <numerusform>%n 个算子</numerusform>
            </translation>
        </message>
        <message>
            <source>Laying out…</source>
            <translation>正在布局…</translation>
        </message>
        <message>
            <source>Call order: %1 → %2 (msprobe records no data flow)</source>
            <translation>调用顺序：%1 → %2（msprobe 不记录数据流）</translation>
        </message>
        <message numerus="yes">
            <source>%1
%n sibling(s) sharing this name pattern, folded into one box; double-click to %2</source>
            <translation>
                <numerusform>%1
名称模式相同的 %n 个同级节点折叠为一个方框；双击可%2</numerusform>
            </translation>
        </message>
        <message>
            <source>×%1 %2</source>
            <translation>×%1 %2</translation>
        </message>
        <message numerus="yes">
            <source>×%1, %n op(s)</source>
            <translation>
                <numerusform>×%1，共 %n 个算子</numerusform>
            </translation>
        </message>
        <message>
            <source>No computation graph. Open a dump whose folder (or its parent) holds GE graph files (ge_proto_*.txt), or add the graph folder with File → Add Graph Folder.</source>
            <translation>没有计算图。请打开其文件夹（或上级文件夹）包含 GE 图文件（ge_proto_*.txt）的 dump，或通过“文件 → 添加图文件夹”添加图文件夹。</translation>
        </message>
        <message>
            <source>%1: %2</source>
            <translation>%1：%2</translation>
        </message>
    </context>
    <context>
        <name>ds::HeadroomTable</name>
        <message>
            <source>largest finite %1, smallest normal %2, smallest subnormal %3</source>
            <translation>最大有限值 %1，最小正规数 %2，最小次正规数 %3</translation>
        </message>
        <message>
            <source>Limits derived from the HiFloat8 layout of the CANN documentation, not confirmed on hardware.</source>
            <translation>界限由 CANN 文档中的 HiFloat8 布局推出，未在硬件上确认。</translation>
        </message>
        <message>
            <source>* hifloat8: limits from the CANN documentation&apos;s layout, not confirmed on hardware.</source>
            <translation>* hifloat8：界限来自 CANN 文档中的布局，未在硬件上确认。</translation>
        </message>
        <message>
            <source>Target type</source>
            <translation>目标类型</translation>
        </message>
        <message>
            <source>Overflow</source>
            <translation>上溢</translation>
        </message>
        <message>
            <source>Underflow</source>
            <translation>下溢</translation>
        </message>
        <message>
            <source>Subnormal</source>
            <translation>次正规</translation>
        </message>
        <message>
            <source>Limits</source>
            <translation>界限</translation>
        </message>
        <message>
            <source>Finite values with |x| greater than the largest finite value of the type</source>
            <translation>|x| 大于该类型最大有限值的有限值</translation>
        </message>
        <message>
            <source>largest finite value / smallest normal / smallest subnormal of the type</source>
            <translation>该类型的最大有限值 / 最小正规数 / 最小次正规数</translation>
        </message>
        <message>
            <source>Nonzero values with |x| below half the smallest subnormal: they become zero</source>
            <translation>|x| 小于最小次正规数一半的非零值：它们变为零</translation>
        </message>
        <message>
            <source>Values with half the smallest subnormal ≤ |x| &lt; the smallest normal: they keep fewer significant bits</source>
            <translation>最小次正规数的一半 ≤ |x| &lt; 最小正规数的值：它们保留的有效位更少</translation>
        </message>
        <message>
            <source>Select a floating-point tensor to see how its values would fare in narrower types.</source>
            <translation>选择一个浮点张量，查看其数值在更窄的类型中会怎样。</translation>
        </message>
        <message>
            <source>Only real floating-point tensors have a precision headroom.</source>
            <translation>只有实数浮点张量才有精度余量。</translation>
        </message>
        <message>
            <source>Counts of the %1 finite values (NaN and ±Inf are not counted).</source>
            <translation>在 %1 个有限值中的计数（NaN 与 ±Inf 不计入）。</translation>
        </message>
        <message>
            <source>Dynamic range: log2(max |x| / smallest nonzero |x|) = %1 (max |x| %2, smallest nonzero |x| %3).</source>
            <translation>动态范围：log2(最大 |x| / 最小非零 |x|) = %1（最大 |x| %2，最小非零 |x| %3）。</translation>
        </message>
        <message>
            <source>Dynamic range: none (no nonzero finite value).</source>
            <translation>动态范围：无（没有非零有限值）。</translation>
        </message>
        <message>
            <source>Choose a row to shade that type&apos;s ranges over the histogram (Summary tab).</source>
            <translation>选择一行，即在直方图（摘要页）上为该类型的各区间着色。</translation>
        </message>
        <message>
            <source>No values and no max, min or norm were recorded: nothing can be said about the precision headroom.</source>
            <translation>既没有数值，也没有记录最大值、最小值或范数：无法判断精度余量。</translation>
        </message>
        <message>
            <source>yes</source>
            <translation>是</translation>
        </message>
        <message>
            <source>no</source>
            <translation>否</translation>
        </message>
        <message>
            <source>cannot tell</source>
            <translation>无法判断</translation>
        </message>
        <message>
            <source>No values were dumped: only the recorded max, min and norm are known. Overflow follows from them (a recorded max or min beyond the type&apos;s range is one; max |x| or the norm within it rules it out). Underflow and subnormal values cannot be told unless every value has one sign (then the smallest |x| is the recorded min or max); counts need the values (dump with task tensor).</source>
            <translation>未转储数值：只知道记录的最大值、最小值和范数。上溢可由它们判断（记录的最大值或最小值超出该类型的范围即为上溢；最大 |x| 或范数在范围内则可排除）。下溢和次正规值无法判断，除非所有值同号（此时最小 |x| 即记录的最小值或最大值）；计数需要数值（以 task tensor 转储）。</translation>
        </message>
    </context>
    <context>
        <name>ds::HeatmapWidget</name>
        <message>
            <source>Jet</source>
            <translation>Jet</translation>
        </message>
        <message>
            <source>Polar (centred on 0)</source>
            <translation>Polar（以 0 为中心）</translation>
        </message>
        <message>
            <source>Colour gradient; Polar uses a range symmetric around zero</source>
            <translation>颜色渐变；Polar 使用以 0 为中心的对称范围</translation>
        </message>
        <message>
            <source>Export PNG…</source>
            <translation>导出 PNG…</translation>
        </message>
        <message>
            <source>Gradient:</source>
            <translation>渐变：</translation>
        </message>
        <message>
            <source>Computing the heatmap… %1%</source>
            <translation>正在计算热力图… %1%</translation>
        </message>
        <message>
            <source>Computing the heatmap…</source>
            <translation>正在计算热力图…</translation>
        </message>
        <message>
            <source>The slice is empty.</source>
            <translation>切片为空。</translation>
        </message>
        <message>
            <source>dim %1 (columns)</source>
            <translation>维度 %1（列）</translation>
        </message>
        <message>
            <source>dim %1 (rows)</source>
            <translation>维度 %1（行）</translation>
        </message>
        <message>
            <source>block mean</source>
            <translation>块均值</translation>
        </message>
        <message>
            <source>value</source>
            <translation>值</translation>
        </message>
        <message>
            <source>%1 × %2 slice %3 in %4 × %5 cells of %6 × %7 elements (mean of the finite values).</source>
            <translation>%1 × %2 切片 %3，以 %4 × %5 个单元格显示，每格 %6 × %7 个元素（取有限值的均值）。</translation>
        </message>
        <message>
            <source>%1 × %2 slice %3.</source>
            <translation>%1 × %2 切片 %3。</translation>
        </message>
        <message>
            <source>%1 NaN/Inf/saturated marked.</source>
            <translation>已标记 %1 个 NaN/Inf/饱和值。</translation>
        </message>
        <message>
            <source>%1 = %2</source>
            <translation>%1 = %2</translation>
        </message>
        <message>
            <source> (NaN)</source>
            <translation> (NaN)</translation>
        </message>
        <message>
            <source> (+Inf)</source>
            <translation> (+Inf)</translation>
        </message>
        <message>
            <source> (-Inf)</source>
            <translation> (-Inf)</translation>
        </message>
        <message>
            <source> (saturated)</source>
            <translation> (饱和)</translation>
        </message>
        <message>
            <source>%1: mean %2</source>
            <translation>%1：均值 %2</translation>
        </message>
        <message>
            <source>— (no finite value)</source>
            <translation>—（无有限值）</translation>
        </message>
        <message>
            <source>, %1 NaN/Inf/saturated</source>
            <translation>，%1 个 NaN/Inf/饱和值</translation>
        </message>
        <message>
            <source>Export heatmap</source>
            <translation>导出热力图</translation>
        </message>
        <message>
            <source>PNG image (*.png)</source>
            <translation>PNG 图像 (*.png)</translation>
        </message>
        <message>
            <source>Could not write %1</source>
            <translation>无法写入 %1</translation>
        </message>
    </context>
    <context>
        <name>ds::HistogramWidget</name>
        <message>
            <source>Shade the ranges where the values would underflow, be subnormal or overflow in a narrower type</source>
            <translation>为数值在更窄类型中会下溢、成为次正规数或上溢的区间着色</translation>
        </message>
        <message>
            <source>none</source>
            <translation>无</translation>
        </message>
        <message>
            <source>Shade the ranges of:</source>
            <translation>着色区间：</translation>
        </message>
        <message>
            <source>overflow, |x| &gt; %1: %2</source>
            <translation>上溢，|x| &gt; %1：%2</translation>
        </message>
        <message>
            <source>subnormal, %1 ≤ |x| &lt; %2: %3</source>
            <translation>次正规，%1 ≤ |x| &lt; %2：%3</translation>
        </message>
        <message>
            <source>become zero, 0 &lt; |x| &lt; %1: %2</source>
            <translation>变为零，0 &lt; |x| &lt; %1：%2</translation>
        </message>
        <message>
            <source>Unshaded values are normal in %1; a band narrower than a pixel shows as a line.</source>
            <translation>未着色的值在 %1 中为正规数；窄于一个像素的区间显示为一条线。</translation>
        </message>
        <message>
            <source>value</source>
            <translation>值</translation>
        </message>
        <message>
            <source>count</source>
            <translation>计数</translation>
        </message>
        <message>
            <source>bins: </source>
            <translation>分箱数: </translation>
        </message>
        <message>
            <source>log count</source>
            <translation>对数计数</translation>
        </message>
        <message>
            <source>range</source>
            <translation>范围</translation>
        </message>
        <message>
            <source>Use a fixed range instead of the data's min and max</source>
            <translation>使用固定范围，而不是数据的最小值和最大值</translation>
        </message>
        <message>
            <source>Export plot...</source>
            <translation>导出图表...</translation>
        </message>
        <message>
            <source>NaN: %1
+Inf: %2
-Inf: %3
zero: %4
out of range: %5</source>
            <translation>NaN：%1
+Inf：%2
-Inf：%3
零值：%4
超出范围：%5</translation>
        </message>
        <message>
            <source>bin [%1, %2%3: %4 values</source>
            <translation>分箱 [%1, %2%3：%4 个值</translation>
        </message>
        <message>
            <source>Export histogram</source>
            <translation>导出直方图</translation>
        </message>
        <message>
            <source>PNG image (*.png);;PDF document (*.pdf)</source>
            <translation>PNG 图像 (*.png);;PDF 文档 (*.pdf)</translation>
        </message>
        <message>
            <source>Could not write %1</source>
            <translation>无法写入 %1</translation>
        </message>
        <message>
            <source>Select a tensor to see the histogram of its values.</source>
            <translation>选择一个张量以查看其数值直方图。</translation>
        </message>
        <message>
            <source>max</source>
            <translation>最大值</translation>
        </message>
        <message>
            <source>min</source>
            <translation>最小值</translation>
        </message>
        <message>
            <source>mean</source>
            <translation>均值</translation>
        </message>
        <message>
            <source>L2 norm</source>
            <translation>L2 范数</translation>
        </message>
        <message>
            <source>Recorded statistics:</source>
            <translation>记录的统计量：</translation>
        </message>
    </context>
    <context>
        <name>ds::MainWindow</name>
    <message>
        <source>This run has more than %1 scopes and was opened scope by scope: no operator index of the whole run is kept to compare. Compare it with the command line (dumpscope-cli compare NPU_RUN BENCH_RUN, or under mpirun), which compares it scope pair by scope pair, or open one step&apos;s folder here to compare that step.</source>
        <translation>此运行的作用域超过 %1 个，已按作用域逐个打开：未保留整个运行的算子索引用于比对。请使用命令行比对（dumpscope-cli compare NPU_RUN BENCH_RUN，或在 mpirun 下运行），它按作用域对逐对比对；或在此打开某一步的文件夹，比对该步。</translation>
    </message>
    <message>
        <source>Opened scope by scope: the operators of %1 of %2 scopes read (select or expand a scope to read it).</source>
        <translation>已按作用域逐个打开：已读取 %2 个作用域中 %1 个的算子（选中或展开某个作用域即读取它）。</translation>
    </message>
    <message numerus="yes">
        <source>%n unreadable file(s) in them: see Problems.</source>
        <translation>
            <numerusform>其中有 %n 个无法读取的文件：见“问题”面板。</numerusform>
        </translation>
    </message>
    <message>
        <source>Reading this scope&apos;s operators… This run is opened scope by scope (too many scopes to read at once): a scope&apos;s operators and graph are read when it is selected or expanded.</source>
        <translation>正在读取此作用域的算子… 此运行的作用域太多，无法一次读取，已按作用域逐个打开：选中或展开某个作用域时读取其算子和图。</translation>
    </message>
    <message>
        <source>This item holds %1 scopes (%2 read). This run is opened scope by scope (too many scopes to read at once), so the operator table and the graph show one scope at a time: select a scope (a rank of a step) in the dump tree.</source>
        <translation>此项包含 %1 个作用域（已读取 %2 个）。此运行的作用域太多，无法一次读取，已按作用域逐个打开，因此算子表和图每次只显示一个作用域：请在转储树中选中一个作用域（某一步的某个 rank）。</translation>
    </message>
    <message>
        <source>No operators were read in this scope (unreadable files are listed in the Problems panel).</source>
        <translation>此作用域中未读取到算子（无法读取的文件列在“问题”面板中）。</translation>
    </message>
    <message>
        <source>%1 (%2: %3 of %4 scopes read, one per step; the other ranks are not read)</source>
        <translation>%1（%2：已读取 %4 个作用域中的 %3 个，每步一个；其他 rank 未读取）</translation>
    </message>
        <message>
            <source>Selected %1, where the monitor&apos;s %2 anomaly of step %3, rank %4 is.</source>
            <translation>已选中 %1，即监控在 step %3、rank %4 上 %2 异常所在之处。</translation>
        </message>
        <message>
            <source>No open dump holds module %1 at step %2, rank %3: open the dump of that step (File → Open) with module entries (level L0 or mix), then double-click the anomaly again.</source>
            <translation>打开的 dump 中没有 step %2、rank %3 上的模块 %1：请打开该 step 的、含模块条目（L0 或 mix 级别）的 dump（文件 → 打开），然后再次双击该异常。</translation>
        </message>
        <message>
            <source>msprobe monitor output %1</source>
            <translation>msprobe 监控输出 %1</translation>
        </message>
        <message>
            <source>Selected %1 of %2 in the open dump.</source>
            <translation>已在打开的 dump 中选中 %2 的 %1。</translation>
        </message>
        <message>
            <source>%1 of %2%3 is in no open dump: open the dump msprobe read (File → Open), then double-click the rank again.</source>
            <translation>打开的 dump 中没有 %2%3 的 %1：请打开 msprobe 读取的 dump（文件 → 打开），然后再次双击该 rank。</translation>
        </message>
        <message>
            <source>msprobe Answer</source>
            <translation>msprobe 结论</translation>
        </message>
        <message>
            <source>Opened msprobe's answer %1 (msprobe Answer tab).</source>
            <translation>已打开 msprobe 的结论 %1（msprobe 结论页）。</translation>
        </message>
        <message>
            <source>Monitor</source>
            <translation>训练监控</translation>
        </message>
        <message>
            <source>Precheck</source>
            <translation>精度预检</translation>
        </message>
        <message>
            <source>DumpScope</source>
            <translation>DumpScope</translation>
        </message>
        <message>
            <source>Dump tree</source>
            <translation>Dump 树</translation>
        </message>
        <message>
            <source>Operators</source>
            <translation>算子</translation>
        </message>
        <message>
            <source>Tensor inspector</source>
            <translation>张量检查器</translation>
        </message>
        <message>
            <source>Problems</source>
            <translation>问题</translation>
        </message>
        <message>
            <source>Open a dump directory to begin (File → Open, or drop a folder here).</source>
            <translation>打开 Dump 目录以开始（文件 → 打开 Dump 目录，或将目录拖放到此处）。</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Indexing %1…</source>
            <translation>正在索引 %1…</translation>
        </message>
        <message>
            <source>Indexing %1… %2 operators so far</source>
            <translation>正在索引 %1… 已读取 %2 个算子</translation>
        </message>
        <message>
            <source>Cannot open</source>
            <translation>无法打开</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <translation>文件(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;Open Dump Folder…</source>
            <translation>打开 Dump 目录(&amp;O)…</translation>
        </message>
        <message>
            <source>Open dump folder</source>
            <translation>打开 Dump 目录</translation>
        </message>
        <message>
            <source>Open Dump &amp;File…</source>
            <translation>打开 Dump 文件(&amp;F)…</translation>
        </message>
        <message>
            <source>Open dump file</source>
            <translation>打开 Dump 文件</translation>
        </message>
        <message>
            <source>&amp;Export Tensors…</source>
            <translation>导出张量(&amp;E)…</translation>
        </message>
        <message>
            <source>Export the selected tensors to .npy or .txt</source>
            <translation>将选中的张量导出为 .npy 或 .txt</translation>
        </message>
        <message>
            <source>Open &amp;Recent</source>
            <translation>最近打开(&amp;R)</translation>
        </message>
        <message>
            <source>&amp;Settings…</source>
            <translation>设置(&amp;S)…</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>退出(&amp;Q)</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>帮助(&amp;H)</translation>
        </message>
        <message>
            <source>&amp;About DumpScope</source>
            <translation>关于 DumpScope(&amp;A)</translation>
        </message>
        <message>
            <source>About DumpScope</source>
            <translation>关于 DumpScope</translation>
        </message>
        <message>
            <source>&lt;b&gt;DumpScope %1&lt;/b&gt;&lt;p&gt;A workbench for Ascend NPU dump data: operator tensors, layouts, statistics and overflow records.&lt;/p&gt;</source>
            <translation>&lt;b&gt;DumpScope %1&lt;/b&gt;&lt;p&gt;面向昇腾 NPU Dump 数据的分析工作台：算子张量、数据格式、统计信息和溢出记录。&lt;/p&gt;</translation>
        </message>
        <message>
            <source>Main</source>
            <translation>主工具栏</translation>
        </message>
        <message>
            <source>Export tensors</source>
            <translation>导出张量</translation>
        </message>
        <message>
            <source>Select tensors or operators in the dump tree or the operator table first.</source>
            <translation>请先在 Dump 树或算子表中选择张量或算子。</translation>
        </message>
        <message numerus="yes">
            <source>%n operator(s)</source>
            <translation>
                <numerusform>%n 个算子</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n unreadable file(s)</source>
            <translation>
                <numerusform>%n 个无法读取的文件</numerusform>
            </translation>
        </message>
        <message>
            <source>Indexing cancelled: %1 indexed so far.</source>
            <translation>索引已取消：目前已索引 %1。</translation>
        </message>
        <message>
            <source>Indexed %1.</source>
            <translation>已索引 %1。</translation>
        </message>
        <message>
            <source>Overflow</source>
            <translation>溢出</translation>
        </message>
        <message>
            <source>&amp;Analysis</source>
            <translation>分析(&amp;A)</translation>
        </message>
        <message>
            <source>Go to &amp;First Overflow</source>
            <translation>转到首个溢出(&amp;F)</translation>
        </message>
        <message>
            <source>Select the earliest overflow record (or the first operator that produced NaN/Inf) and show its operator</source>
            <translation>选中最早的溢出记录（或首个产生 NaN/Inf 的算子），并显示其对应的算子</translation>
        </message>
        <message>
            <source>No overflow found in the open dumps.</source>
            <translation>在已打开的 Dump 数据中未发现溢出。</translation>
        </message>
        <message>
            <source>Open Dump Folder</source>
            <translation>打开 Dump 目录</translation>
        </message>
        <message>
            <source>Export Tensors</source>
            <translation>导出张量</translation>
        </message>
        <message>
            <source>First Overflow</source>
            <translation>首个溢出</translation>
        </message>
        <message>
            <source>%1, %2</source>
            <translation>%1，%2</translation>
        </message>
        <message numerus="yes">
            <source>%n overflow record(s)</source>
            <translation>
                <numerusform>%n 条溢出记录</numerusform>
            </translation>
        </message>
        <message>
            <source>Graph</source>
            <translation>图</translation>
        </message>
        <message>
            <source>Compare</source>
            <translation>比对</translation>
        </message>
        <message>
            <source>&amp;Compare with…</source>
            <translation>与…比对(&amp;C)</translation>
        </message>
        <message>
            <source>Compare the selected (NPU) dump with a bench dump (GPU/CPU) and find the first divergence</source>
            <translation>将所选（NPU）dump 与标杆 dump（GPU/CPU）比对并找出首个分歧</translation>
        </message>
        <message>
            <source>Open the NPU dump first and wait until it is indexed; then compare it with a bench dump.</source>
            <translation>请先打开 NPU dump 并等待索引完成，然后再与标杆 dump 比对。</translation>
        </message>
        <message>
            <source>Bench dump (GPU/CPU) to compare %1 with</source>
            <translation>与 %1 比对的标杆 dump（GPU/CPU）</translation>
        </message>
        <message>
            <source>Add &amp;Graph Folder…</source>
            <translation>添加图文件夹(&amp;G)…</translation>
        </message>
        <message>
            <source>Folder with GE graph files (ge_proto_*.txt)</source>
            <translation>包含 GE 图文件（ge_proto_*.txt）的文件夹</translation>
        </message>
        <message>
            <source>GE writes its graph files into the training job's working directory: add that folder to link its graphs to the open dumps</source>
            <translation>GE 会把图文件写入训练任务的工作目录：添加该文件夹即可将其中的图关联到已打开的 dump</translation>
        </message>
        <message>
            <source>Graph folder %1 added: its graphs are linked to the open dump (Graph tab).</source>
            <translation>已添加图文件夹 %1：其中的图已关联到打开的 dump（见“图”标签页）。</translation>
        </message>
        <message>
            <source>Graph folder %1 added: open the dump to link its operators to the graph.</source>
            <translation>已添加图文件夹 %1：打开 dump 即可将其算子关联到图。</translation>
        </message>
        <message numerus="yes">
            <source>%n file warning(s): see Problems.</source>
            <translation>
                <numerusform>%n 个文件警告：见“问题”列表。</numerusform>
            </translation>
        </message>
        <message>
            <source>Unreadable: %1</source>
            <translation>无法读取：%1</translation>
        </message>
        <message>
            <source>Read with a warning: %1</source>
            <translation>已读取，但有警告：%1</translation>
        </message>
        <message numerus="yes">
            <source>… and %n more warning(s) (dumpscope-cli info --json lists them all)</source>
            <translation>
                <numerusform>……还有 %n 个警告（dumpscope-cli info --json 会列出全部）</numerusform>
            </translation>
        </message>
        <message>
            <source>critical</source>
            <translation>严重</translation>
        </message>
        <message>
            <source>high</source>
            <translation>高</translation>
        </message>
        <message>
            <source>medium</source>
            <translation>中</translation>
        </message>
        <message>
            <source>%1 (%2)</source>
            <translation>%1（%2）</translation>
        </message>
        <message>
            <source>%1 (%2) in %3</source>
            <translation>%1（%2），位于 %3</translation>
        </message>
        <message>
            <source>first overflow produced by %1</source>
            <translation>首个溢出产生于 %1</translation>
        </message>
        <message>
            <source>first anomaly at %1</source>
            <translation>首个异常位于 %1</translation>
        </message>
        <message>
            <source>no overflow found</source>
            <translation>未发现溢出</translation>
        </message>
        <message>
            <source>Runs</source>
            <translation>运行</translation>
        </message>
        <message>
            <source>Trends</source>
            <translation>趋势</translation>
        </message>
        <message>
            <source>The run-level answer of the last comparison (Runs tab)</source>
            <translation>最近一次比对的运行级结论（“运行”标签页）</translation>
        </message>
        <message>
            <source>%1 compared with its bench run — %2</source>
            <translation>%1 与标杆运行比对 —— %2</translation>
        </message>
        <message>
            <source>Run: %1</source>
            <translation>运行：%1</translation>
        </message>
        <message>
            <source>Copy &amp;Name</source>
            <translation>复制名称(&amp;N)</translation>
        </message>
        <message>
            <source>Copy &amp;Tensor ID</source>
            <translation>复制张量 ID(&amp;T)</translation>
        </message>
        <message>
            <source>Copy &amp;Path</source>
            <translation>复制路径(&amp;P)</translation>
        </message>
        <message numerus="yes">
            <source>&amp;Export %n Tensor(s)…</source>
            <translation>
                <numerusform>导出 %n 个张量(&amp;E)…</numerusform>
            </translation>
        </message>
        <message>
            <source>Compare this dump (NPU) with a bench dump (GPU/CPU)</source>
            <translation>将此 dump（NPU）与标杆 dump（GPU/CPU）比对</translation>
        </message>
        <message>
            <source>Show in &amp;Operators</source>
            <translation>在算子表中显示(&amp;O)</translation>
        </message>
        <message>
            <source>Show in &amp;Graph</source>
            <translation>在图中显示(&amp;G)</translation>
        </message>
        <message>
            <source>&amp;View</source>
            <translation>视图(&amp;V)</translation>
        </message>
        <message>
            <source>&amp;Find…</source>
            <translation>查找(&amp;F)…</translation>
        </message>
        <message>
            <source>Go to the search box of the current view (the graph's search on the Graph tab, else the operator filter)</source>
            <translation>跳到当前视图的搜索框（在“图”标签页为图的搜索框，否则为算子过滤框）</translation>
        </message>
        <message>
            <source>&amp;Reset Layout</source>
            <translation>重置布局(&amp;R)</translation>
        </message>
        <message>
            <source>Bring back the default docks, toolbar and sizes</source>
            <translation>恢复默认的停靠面板、工具栏和尺寸</translation>
        </message>
        <message>
            <source>&amp;First Steps</source>
            <translation>入门(&amp;F)</translation>
        </message>
        <message>
            <source>About &amp;Qt</source>
            <translation>关于 &amp;Qt</translation>
        </message>
        <message>
            <source>Nothing to export: %1</source>
            <translation>没有可导出的内容：%1</translation>
        </message>
        <message>
            <source>&amp;Close Dump</source>
            <translation>关闭 Dump(&amp;C)</translation>
        </message>
        <message>
            <source>C&amp;lose Dump</source>
            <translation>关闭此 Dump(&amp;L)</translation>
        </message>
        <message>
            <source>%1: msprobe&apos;s rows and Result on the Compare tab. Next: select a row, or filter above.</source>
            <translation>%1：比对页上是 msprobe 的各行及 Result。下一步：选择一行，或在上方筛选。</translation>
        </message>
        <message>
            <source>Opened msprobe&apos;s API precheck results %1 (Precheck tab).</source>
            <translation>已打开 msprobe API 预检结果 %1（“精度预检”标签页）。</translation>
        </message>
        <message>
            <source>Opened msprobe&apos;s monitor output %1 (Monitor tab).</source>
            <translation>已打开 msprobe 训练监控输出 %1（“训练监控”标签页）。</translation>
        </message>
        <message>
            <source>Close this dump; the other open dumps stay</source>
            <translation>关闭此 Dump；其他已打开的 Dump 保留</translation>
        </message>
        <message>
            <source>Close the dump of the selected tree item; the other open dumps stay</source>
            <translation>关闭所选树节点所属的 dump；其他已打开的 dump 保留</translation>
        </message>
        <message>
            <source>Select the first overflow (the earlier of the OpDebug records and the software scan, as the status bar names it) and show its operator</source>
            <translation>选中首个溢出（OpDebug 记录与软件扫描中更早的一个，与状态栏所示一致）并显示其算子</translation>
        </message>
        <message>
            <source>Closed %1.</source>
            <translation>已关闭 %1。</translation>
        </message>
        <message>
            <source>Run Set</source>
            <translation>运行集</translation>
        </message>
        <message>
            <source>Compare &amp;Runs…</source>
            <translation>比较多次运行(&amp;R)…</translation>
        </message>
        <message>
            <source>Compare three or more runs of the same training with each other: identical runs, the run that departs first, nondeterministic operators (Run Set tab)</source>
            <translation>将同一训练的三次或更多次运行两两比较：完全一致的运行、最先偏离多数的运行、非确定性算子（运行集标签页）</translation>
        </message>
        <message>
            <source>Folder holding three or more runs</source>
            <translation>包含三次或更多次运行的文件夹</translation>
        </message>
    <message>
        <source>(no rank)</source>
        <translation>（无 rank）</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>rank %1</translation>
    </message>
    <message>
        <source>Compare: %1</source>
        <translation>比对：%1</translation>
    </message>
    <message>
        <source>nothing compared</source>
        <translation>没有比对任何内容</translation>
    </message>
    <message>
        <source>Run (%1 of %2 scope pairs): %3</source>
        <translation>运行（%2 个作用域对中的 %1 个）：%3</translation>
    </message>
    <message>
        <source>Looking for the first overflow scope by scope: %1 of %2 scopes scanned…</source>
        <translation>正在按作用域逐个查找第一个溢出：已扫描 %2 个作用域中的 %1 个…</translation>
    </message>
    <message>
        <source>Overflow scan: %1</source>
        <translation>溢出扫描：%1</translation>
    </message>
    <message>
        <source>No overflow found in %1 scopes.</source>
        <translation>在 %1 个作用域中未发现溢出。</translation>
    </message>
    <message>
        <source>First overflow: %1</source>
        <translation>第一个溢出：%1</translation>
    </message>
    </context>
    <context>
        <name>ds::MappingPanel</name>
        <message>
            <source>NPU operator</source>
            <translation>NPU 算子</translation>
        </message>
        <message>
            <source>Bench operator</source>
            <translation>标杆算子</translation>
        </message>
        <message>
            <source>Kind</source>
            <translation>类型</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>移除</translation>
        </message>
        <message>
            <source>Remove the selected entries; their rows are matched again</source>
            <translation>移除所选条目；其对应行将重新匹配</translation>
        </message>
        <message>
            <source>Load mapping…</source>
            <translation>加载映射…</translation>
        </message>
        <message>
            <source>Replace the mapping by a YAML or JSON mapping file</source>
            <translation>用 YAML 或 JSON 映射文件替换当前映射</translation>
        </message>
        <message>
            <source>Save mapping…</source>
            <translation>保存映射…</translation>
        </message>
        <message>
            <source>Write the mapping as JSON (names and N:M groups) or YAML (names only), readable by dumpscope-cli compare --mapping</source>
            <translation>将映射写为 JSON（名称及 N:M 组）或 YAML（仅名称），可供 dumpscope-cli compare --mapping 读取</translation>
        </message>
        <message>
            <source>Clear</source>
            <translation>清空</translation>
        </message>
        <message>
            <source>Remove every entry</source>
            <translation>移除所有条目</translation>
        </message>
        <message>
            <source>1:1</source>
            <translation>1:1</translation>
        </message>
        <message>
            <source>group %1:%2</source>
            <translation>%1:%2 组</translation>
        </message>
        <message>
            <source>No user mapping. Drag NPU rows onto a bench operator (or use “Map to bench operator…” in the rows' context menu), or load a mapping file.</source>
            <translation>没有用户映射。将 NPU 行拖到标杆算子上（或使用行右键菜单中的“映射到标杆算子…”），或加载映射文件。</translation>
        </message>
        <message numerus="yes">
            <source>%n entry(ies)</source>
            <translation>
                <numerusform>%n 个条目</numerusform>
            </translation>
        </message>
        <message>
            <source>(changed since %1)</source>
            <translation>（自 %1 以来已更改）</translation>
        </message>
        <message>
            <source>(as in %1)</source>
            <translation>（与 %1 相同）</translation>
        </message>
        <message>
            <source>(not saved)</source>
            <translation>（未保存）</translation>
        </message>
    </context>
    <context>
        <name>ds::OpTableModel</name>
        <message>
            <source>Op type</source>
            <translation>算子类型</translation>
        </message>
        <message>
            <source>Op name</source>
            <translation>算子名称</translation>
        </message>
        <message>
            <source>Task</source>
            <translation>任务</translation>
        </message>
        <message>
            <source>Stream</source>
            <translation>流</translation>
        </message>
        <message>
            <source>Timestamp</source>
            <translation>时间戳</translation>
        </message>
        <message>
            <source>Inputs</source>
            <translation>输入</translation>
        </message>
        <message>
            <source>Outputs</source>
            <translation>输出</translation>
        </message>
        <message>
            <source>Data types</source>
            <translation>数据类型</translation>
        </message>
        <message>
            <source>Shapes</source>
            <translation>形状</translation>
        </message>
        <message>
            <source>Out min</source>
            <translation>输出最小值</translation>
        </message>
        <message>
            <source>Out max</source>
            <translation>输出最大值</translation>
        </message>
        <message>
            <source>Out mean</source>
            <translation>输出均值</translation>
        </message>
        <message>
            <source>NaN</source>
            <translation>NaN</translation>
        </message>
        <message>
            <source>Inf</source>
            <translation>Inf</translation>
        </message>
    </context>
    <context>
        <name>ds::OpTablePanel</name>
        <message>
            <source>Filter by op name or type</source>
            <translation>按算子名称或类型过滤</translation>
        </message>
        <message>
            <source>Regex</source>
            <translation>正则表达式</translation>
        </message>
        <message>
            <source>Show one op type only</source>
            <translation>仅显示一种算子类型</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>Copy the selected rows as tab-separated text (Ctrl+C)</source>
            <translation>将选中的行复制为制表符分隔的文本（Ctrl+C）</translation>
        </message>
        <message>
            <source>Export CSV…</source>
            <translation>导出 CSV…</translation>
        </message>
        <message>
            <source>Export table</source>
            <translation>导出表格</translation>
        </message>
        <message>
            <source>CSV files (*.csv)</source>
            <translation>CSV 文件 (*.csv)</translation>
        </message>
        <message>
            <source>All op types</source>
            <translation>所有算子类型</translation>
        </message>
        <message>
            <source>%1 of %2 operators</source>
            <translation>%1 / %2 个算子</translation>
        </message>
    </context>
    <context>
        <name>ds::Overflow</name>
        <message>
            <source>meaning not documented for this unit (%1): its status bits are shown raw; the AI Core reading is only a hint</source>
            <translation>该单元（%1）的含义没有文档说明：其状态位按原始值显示；按 AI Core 表的解读仅供参考</translation>
        </message>
        <message>
            <source>cannot load (%1); judged from the recorded statistics</source>
            <translation>无法加载（%1）；根据记录的统计量判断</translation>
        </message>
        <message>
            <source>inputs normal, outputs hold NaN/Inf or saturated values: overflow produced here</source>
            <translation>输入正常，输出含 NaN/Inf 或饱和值：溢出在此产生</translation>
        </message>
        <message>
            <source>inputs and outputs abnormal: propagated from upstream</source>
            <translation>输入和输出均异常：由上游传播而来</translation>
        </message>
        <message>
            <source>inputs abnormal, outputs normal</source>
            <translation>输入异常，输出正常</translation>
        </message>
        <message>
            <source>nan_check: the NPU overflow register was set during this call (is_nan 1), the first call of the step to set it: NaN/Inf arose here (or a process overflow: an intermediate value overflowed though the outputs may be finite)</source>
            <translation>nan_check：此次调用期间 NPU 溢出寄存器被置位（is_nan 为 1），且是本 step 中第一个置位的调用：NaN/Inf 在此产生（或为过程溢出：中间值溢出，输出可能仍为有限值）</translation>
        </message>
        <message>
            <source>nan_check: the NPU overflow register was set during this call (is_nan 1), after an earlier call set it: likely propagated from upstream</source>
            <translation>nan_check：此次调用期间 NPU 溢出寄存器被置位（is_nan 为 1），此前已有调用置位：很可能由上游传播而来</translation>
        </message>
        <message>
            <source>numerical mutation: output norm %1 vs input norm %2</source>
            <translation>数值突变：输出范数 %1，输入范数 %2</translation>
        </message>
        <message>
            <source>%1: values finite (max %2, min %3) but the recorded %4 overflowed to %5: the values are near the range limit of %6</source>
            <translation>%1：数值有限（最大值 %2，最小值 %3），但记录的 %4 已溢出为 %5：数值已接近 %6 的表示范围上限</translation>
        </message>
        <message>
            <source>statistic overflow: %1</source>
            <translation>统计量溢出：%1</translation>
        </message>
        <message>
            <source>abnormal</source>
            <translation>异常</translation>
        </message>
        <message>
            <source>%1 (%2, parameter of %3)</source>
            <translation>%1（%2，%3 的参数）</translation>
        </message>
        <message>
            <source>%1 was already %2 when %3 began (no operator before it in this step produced it)</source>
            <translation>%1 在 %3 开始时已经是 %2（本 step 中它之前没有算子产生它）</translation>
        </message>
        <message>
            <source>no earlier step of this rank is in the dump</source>
            <translation>dump 中没有该 rank 更早的 step</translation>
        </message>
        <message>
            <source>written in %1 by %2 (its %3 has the same shape, dtype and statistics)</source>
            <translation>由 %1 中的 %2 写入（其 %3 的形状、数据类型和统计量相同）</translation>
        </message>
        <message>
            <source>last seen normal in %1 at %2 %3: it changed between the two steps outside the dump (e.g. the optimizer step, when it is not dumped)</source>
            <translation>最后一次正常出现于 %1 的 %2 %3：它在两个 step 之间、dump 之外发生了变化（例如未被 dump 的优化器更新）</translation>
        </message>
        <message>
            <source>not found in %1 with these values or with finite ones</source>
            <translation>在 %1 中既未找到相同数值，也未找到有限数值</translation>
        </message>
    </context>
    <context>
        <name>ds::OverflowPanel</name>
        <message>
            <source>critical: produced here</source>
            <translation>严重：在此产生</translation>
        </message>
        <message>
            <source>high</source>
            <translation>高</translation>
        </message>
        <message>
            <source>medium</source>
            <translation>中</translation>
        </message>
        <message>
            <source>Record / operator</source>
            <translation>记录 / 算子</translation>
        </message>
        <message>
            <source>Kind</source>
            <translation>类型</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>状态</translation>
        </message>
        <message>
            <source>Linked operator</source>
            <translation>关联算子</translation>
        </message>
        <message>
            <source>Select an overflow record or a finding to see its decoded causes and operator.</source>
            <translation>选择一条溢出记录或一项扫描发现，查看解码出的原因及对应算子。</translation>
        </message>
        <message>
            <source>Show operator</source>
            <translation>显示算子</translation>
        </message>
        <message>
            <source>Select the linked operator in the dump tree, operator table and inspector</source>
            <translation>在 Dump 树、算子表和检查器中选中关联的算子</translation>
        </message>
        <message>
            <source>Cancel scan</source>
            <translation>取消扫描</translation>
        </message>
        <message>
            <source>Open a dump: its OpDebug records are decoded and every operator is scanned for NaN, Inf and saturated values.</source>
            <translation>请打开 Dump 数据：将解码其中的 OpDebug 记录，并扫描每个算子中的 NaN、Inf 和饱和值。</translation>
        </message>
        <message>
            <source>Scanning %1 for overflows…</source>
            <translation>正在扫描 %1 中的溢出…</translation>
        </message>
        <message numerus="yes">
            <source>Scan cancelled: %n OpDebug record(s) decoded; the software scan is incomplete.</source>
            <translation>
                <numerusform>扫描已取消：已解码 %n 条 OpDebug 记录；软件扫描未完成。</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n OpDebug record(s), </source>
            <translation>
                <numerusform>%n 条 OpDebug 记录，</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n software finding(s).</source>
            <translation>
                <numerusform>%n 项软件扫描发现。</numerusform>
            </translation>
        </message>
        <message>
            <source>OpDebug records (%1)</source>
            <translation>OpDebug 记录（%1）</translation>
        </message>
        <message>
            <source>no overflow records found (if overflow detection was on, this SoC may not emit them)</source>
            <translation>未找到溢出记录（如果已开启溢出检测，则可能是该 SoC 不生成此类记录）</translation>
        </message>
        <message>
            <source>not found</source>
            <translation>未找到</translation>
        </message>
        <message>
            <source>★ first overflow: %1</source>
            <translation>★ 首个溢出：%1</translation>
        </message>
        <message>
            <source>★ first on device %1: %2</source>
            <translation>★ 设备 %1 上的首个溢出：%2</translation>
        </message>
        <message>
            <source>Software scan (%1 findings)</source>
            <translation>软件扫描（%1 项发现）</translation>
        </message>
        <message>
            <source>Operator:</source>
            <translation>算子：</translation>
        </message>
        <message>
            <source>Tensor</source>
            <translation>张量</translation>
        </message>
        <message>
            <source>Min</source>
            <translation>最小值</translation>
        </message>
        <message>
            <source>Max</source>
            <translation>最大值</translation>
        </message>
        <message>
            <source>Mean</source>
            <translation>均值</translation>
        </message>
        <message>
            <source>Saturated</source>
            <translation>饱和值</translation>
        </message>
        <message>
            <source>Inputs are already abnormal: the overflow was probably propagated from upstream.</source>
            <translation>输入已经异常：溢出很可能是从上游传播而来。</translation>
        </message>
        <message>
            <source>Inputs are normal and outputs are extreme: the pattern of a genuine overflow in this operator.</source>
            <translation>输入正常而输出出现极端值：这是该算子本身发生溢出的典型特征。</translation>
        </message>
        <message>
            <source>device %1, step %2, timestamp %3, %4 layout</source>
            <translation>设备 %1，迭代 %2，时间戳 %3，记录格式：%4</translation>
        </message>
        <message>
            <source>0x5A5A5A5A (version %1)</source>
            <translation>0x5A5A5A5A（版本 %1）</translation>
        </message>
        <message>
            <source>legacy 2048-byte</source>
            <translation>旧版 2048 字节</translation>
        </message>
        <message>
            <source>This is the first overflow (smallest step, then earliest timestamp).</source>
            <translation>这是首个溢出（迭代最小，其次时间戳最早）。</translation>
        </message>
        <message>
            <source>status</source>
            <translation>状态</translation>
        </message>
        <message>
            <source>status word %1</source>
            <translation>状态字 %1</translation>
        </message>
        <message>
            <source>Decoded causes:</source>
            <translation>解码出的原因：</translation>
        </message>
        <message>
            <source>no documented meaning for this record kind; raw status shown above</source>
            <translation>该记录类型没有文档说明的含义；上方显示的是原始状态值</translation>
        </message>
        <message>
            <source>Link:</source>
            <translation>关联：</translation>
        </message>
        <message>
            <source>Scan all tensors</source>
            <translation>扫描全部张量</translation>
        </message>
        <message>
            <source>Read every tensor of the dump and classify operators by NaN/Inf/saturated values (large dumps are not scanned automatically)</source>
            <translation>读取该 Dump 的每个张量，按 NaN/Inf/饱和值对算子分级（大型 Dump 不会自动扫描）</translation>
        </message>
        <message>
            <source>Software scan (cancelled)</source>
            <translation>软件扫描（已取消）</translation>
        </message>
        <message>
            <source>Software scan (not run for this large dump: use “Scan all tensors”)</source>
            <translation>软件扫描（大型 Dump 未自动运行：请使用“扫描全部张量”）</translation>
        </message>
        <message>
            <source>statistic overflow</source>
            <translation>统计量溢出</translation>
        </message>
        <message numerus="yes">
            <source>no NaN, Inf or saturated values in %n scope(s)</source>
            <translation>
                <numerusform>%n 个范围内均无 NaN、Inf 或饱和值</numerusform>
            </translation>
        </message>
        <message>
            <source>%1: first anomaly %2</source>
            <translation>%1：首个异常 %2</translation>
        </message>
        <message>
            <source>The first anomaly of this scope is a communication operator: its NaN/Inf may have been produced on another rank.</source>
            <translation>该范围的首个异常是通信算子：其 NaN/Inf 可能产生于其他 rank。</translation>
        </message>
        <message>
            <source>★ first anomaly: %1</source>
            <translation>★ 首个异常：%1</translation>
        </message>
        <message>
            <source>No tensor data was saved: the statistics below are the ones the dump recorded.</source>
            <translation>未保存张量数据：以下统计量为 dump 中记录的值。</translation>
        </message>
        <message>
            <source>Norm</source>
            <translation>范数</translation>
        </message>
        <message>
            <source>NaN/Inf expected here (ignore rule)</source>
            <translation>此处出现 NaN/Inf 属正常（忽略规则）</translation>
        </message>
        <message>
            <source>no data and no recorded statistics</source>
            <translation>既无数据也无记录的统计量</translation>
        </message>
        <message>
            <source>recorded</source>
            <translation>记录值</translation>
        </message>
        <message>
            <source>yes</source>
            <translation>是</translation>
        </message>
        <message>
            <source>no</source>
            <translation>否</translation>
        </message>
        <message>
            <source>The output values are finite, but their recorded Norm or Mean overflowed: the values are close to the limit of their data type, the usual step before an overflow.</source>
            <translation>输出数值有限，但记录的范数或均值已溢出：数值已接近其数据类型的上限，通常是溢出的前一步。</translation>
        </message>
        <message>
            <source>Meaning not documented for this unit (%1): the status bits are shown raw.</source>
            <translation>该单元（%1）的含义没有文档说明：状态位按原始值显示。</translation>
        </message>
        <message>
            <source>Set bits: %1</source>
            <translation>置位的位：%1</translation>
        </message>
        <message>
            <source>none</source>
            <translation>无</translation>
        </message>
        <message>
            <source>Hint, the AI Core reading of the same bits:</source>
            <translation>提示：按 AI Core 表对相同位的解读：</translation>
        </message>
        <message>
            <source>(unconfirmed for %1 units)</source>
            <translation>（对 %1 单元未经确认）</translation>
        </message>
        <message>
            <source>Scope: %1</source>
            <translation>范围：%1</translation>
        </message>
        <message>
            <source>The first operator of this scope, in execution order, with NaN, Inf or saturated values.</source>
            <translation>按执行顺序，该范围内首个含 NaN、Inf 或饱和值的算子。</translation>
        </message>
        <message>
            <source>It is a communication operator: its NaN/Inf may have been produced on another rank.</source>
            <translation>这是通信算子：其 NaN/Inf 可能产生于其他 rank。</translation>
        </message>
        <message>
            <source>Before it, %1 produced finite values whose recorded Norm or Mean overflowed.</source>
            <translation>在它之前，%1 产生的数值有限，但其记录的范数或均值已溢出。</translation>
        </message>
        <message numerus="yes">
            <source>… and %n more finding(s) in this scope</source>
            <translation>
                <numerusform>…… 此范围内还有 %n 个发现</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n software finding(s)</source>
            <translation>
                <numerusform>%n 个软件扫描发现</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source> in %n dump(s).</source>
            <translation>
                <numerusform>，共 %n 个 dump。</numerusform>
            </translation>
        </message>
        <message>
            <source>Why: %1</source>
            <translation>原因：%1</translation>
        </message>
        <message>
            <source>Operator file: %1</source>
            <translation>算子文件：%1</translation>
        </message>
        <message>
            <source>First overflow: %1</source>
            <translation>首个溢出：%1</translation>
        </message>
        <message>
            <source>(in %1)</source>
            <translation>（位于 %1）</translation>
        </message>
        <message>
            <source>No overflow found in the open dumps.</source>
            <translation>在已打开的 Dump 数据中未发现溢出。</translation>
        </message>
        <message>
            <source>No OpDebug record in the open dumps; not every dump was scanned for NaN/Inf (Overflow tab: Scan all tensors).</source>
            <translation>已打开的 dump 中没有 OpDebug 记录；并非每个 dump 都已扫描 NaN/Inf（溢出标签页：扫描全部张量）。</translation>
        </message>
        <message>
            <source>earliest OpDebug record: %1</source>
            <translation>最早的 OpDebug 记录：%1</translation>
        </message>
        <message>
            <source>earliest on device %1: %2</source>
            <translation>设备 %1 上最早：%2</translation>
        </message>
        <message>
            <source>This is the first overflow: %1.</source>
            <translation>这是首个溢出：%1。</translation>
        </message>
        <message>
            <source>The earliest OpDebug record (smallest step, then earliest timestamp).</source>
            <translation>最早的 OpDebug 记录（先按最小 step，再按最早时间戳）。</translation>
        </message>
        <message>
            <source>The first overflow is %1.</source>
            <translation>首个溢出是 %1。</translation>
        </message>
    </context>
    <context>
        <name>ds::Producer</name>
        <message>
            <source>MindSpore kernel dump</source>
            <translation>MindSpore 算子级 dump</translation>
        </message>
    </context>
    <context>
        <name>ds::RunGridModel</name>
        <message>
            <source>(none)</source>
            <translation>（无）</translation>
        </message>
        <message>
            <source>no bench scope</source>
            <translation>标杆侧无此作用域</translation>
        </message>
        <message>
            <source>bench only</source>
            <translation>仅标杆侧</translation>
        </message>
        <message>
            <source>✖ first: %1</source>
            <translation>✖ 首个：%1</translation>
        </message>
        <message>
            <source>✖ %1</source>
            <translation>✖ %1</translation>
        </message>
        <message numerus="yes">
            <source>✔ agrees (%n row(s))</source>
            <translation>
                <numerusform>✔ 一致（%n 行）</numerusform>
            </translation>
        </message>
        <message>
            <source>⚠ first anomaly: %1</source>
            <translation>⚠ 首个异常：%1</translation>
        </message>
        <message>
            <source>⚠ %1</source>
            <translation>⚠ %1</translation>
        </message>
        <message numerus="yes">
            <source>%n op(s)</source>
            <translation>
                <numerusform>%n 个算子</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n unreadable</source>
            <translation>
                <numerusform>%n 个不可读</numerusform>
            </translation>
        </message>
        <message>
            <source>No scope at this step and rank.</source>
            <translation>该 step 与 rank 下没有作用域。</translation>
        </message>
        <message>
            <source>Scope %1</source>
            <translation>作用域 %1</translation>
        </message>
        <message>
            <source>(whole run)</source>
            <translation>（整个运行）</translation>
        </message>
        <message>
            <source>Folder: %1</source>
            <translation>目录：%1</translation>
        </message>
        <message numerus="yes">
            <source>%1 in %n file(s)</source>
            <translation>
                <numerusform>%1，共 %n 个文件</numerusform>
            </translation>
        </message>
        <message>
            <source>Framework: %1, task: %2, level: %3</source>
            <translation>框架：%1，任务：%2，级别：%3</translation>
        </message>
        <message>
            <source>Dumped: %1</source>
            <translation>已采集：%1</translation>
        </message>
        <message numerus="yes">
            <source>Indexed: %n operator(s)</source>
            <translation>
                <numerusform>已索引：%n 个算子</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>, %n unreadable file(s)</source>
            <translation>
                <numerusform>，%n 个不可读文件</numerusform>
            </translation>
        </message>
        <message>
            <source>Compared: %1 rows — %2 pass, %3 warning, %4 error, %5 not compared</source>
            <translation>已比对：%1 行 —— %2 通过，%3 警告，%4 错误，%5 未比对</translation>
        </message>
        <message>
            <source>First divergence of this scope: %1 (%2): %3</source>
            <translation>本作用域的首个分歧：%1（%2）：%3</translation>
        </message>
        <message>
            <source>The run's first divergence.</source>
            <translation>整个运行的首个分歧。</translation>
        </message>
        <message>
            <source>First anomaly of this scope: %1: %2</source>
            <translation>本作用域的首个异常：%1：%2</translation>
        </message>
        <message>
            <source>The run's first anomaly.</source>
            <translation>整个运行的首个异常。</translation>
        </message>
        <message>
            <source>all ranks</source>
            <translation>所有 rank</translation>
        </message>
        <message>
            <source>all steps</source>
            <translation>所有 step</translation>
        </message>
        <message>
            <source>rank %1</source>
            <translation>rank %1</translation>
        </message>
        <message>
            <source>step %1</source>
            <translation>step %1</translation>
        </message>
    </context>
    <context>
        <name>ds::RunsPanel</name>
    <message>
        <source>Sizes and contents of all %1 scopes read; a scope&apos;s operators are read when it is selected or expanded in the dump tree.</source>
        <translation>已读取全部 %1 个作用域的大小和内容；作用域的算子在转储树中选中或展开时读取。</translation>
    </message>
        <message>
            <source>The runs of the open dumps: a run is the folder above its step/rank (or time/device) folders</source>
            <translation>已打开数据中的运行：运行是其 step/rank（或 time/device）目录的上级目录</translation>
        </message>
        <message>
            <source>read</source>
            <translation>已读取</translation>
        </message>
        <message>
            <source>agrees</source>
            <translation>一致</translation>
        </message>
        <message>
            <source>diverges</source>
            <translation>分歧</translation>
        </message>
        <message>
            <source>first divergence</source>
            <translation>首个分歧</translation>
        </message>
        <message>
            <source>one side only</source>
            <translation>仅一侧存在</translation>
        </message>
        <message>
            <source>unreadable files</source>
            <translation>不可读文件</translation>
        </message>
        <message>
            <source>overflow anomaly</source>
            <translation>溢出异常</translation>
        </message>
        <message>
            <source>Run:</source>
            <translation>运行：</translation>
        </message>
        <message>
            <source>Looking for runs in %1…</source>
            <translation>正在 %1 中查找运行…</translation>
        </message>
        <message>
            <source>All scopes read.</source>
            <translation>所有作用域已读取。</translation>
        </message>
        <message>
            <source>Reading scope details… %1 of %2</source>
            <translation>正在读取作用域详情… %1 / %2</translation>
        </message>
        <message>
            <source>No run found.</source>
            <translation>未找到运行。</translation>
        </message>
        <message>
            <source>%1 × %2 (%3 scopes, %4) in %5</source>
            <translation>%1 × %2（%3 个作用域，%4），位于 %5</translation>
        </message>
        <message numerus="yes">
            <source>%Ln step(s)</source>
            <translation>
                <numerusform>%Ln 个 step</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%Ln rank(s)</source>
            <translation>
                <numerusform>%Ln 个 rank</numerusform>
            </translation>
        </message>
        <message>
            <source>%1: %2, %3</source>
            <translation>%1：%2，%3</translation>
        </message>
        <message>
            <source>%1: none in this step</source>
            <translation>%1：本 step 无</translation>
        </message>
        <message>
            <source>&lt;b&gt;Compare:&lt;/b&gt; not compared yet (Analysis → Compare with… compares this run with a bench run).</source>
            <translation>&lt;b&gt;比对：&lt;/b&gt;尚未比对（分析 → 比对… 将此运行与标杆运行比对）。</translation>
        </message>
        <message>
            <source>&lt;b&gt;Compare:&lt;/b&gt; %1</source>
            <translation>&lt;b&gt;比对：&lt;/b&gt;%1</translation>
        </message>
        <message>
            <source>&lt;b&gt;Overflow:&lt;/b&gt; not checked yet.</source>
            <translation>&lt;b&gt;溢出：&lt;/b&gt;尚未检查。</translation>
        </message>
        <message>
            <source>&lt;b&gt;Overflow:&lt;/b&gt; %1</source>
            <translation>&lt;b&gt;溢出：&lt;/b&gt;%1</translation>
        </message>
        <message>
            <source>No run found in %1.</source>
            <translation>在 %1 中未找到运行。</translation>
        </message>
    <message>
        <source>Cancel compare</source>
        <translation>取消比对</translation>
    </message>
    <message>
        <source>Stop comparing this run with its bench run (the scope pairs compared so far stay shown)</source>
        <translation>停止将此运行与其标杆运行比对（已比对的作用域对仍会显示）</translation>
    </message>
    <message numerus="yes">
        <source>… and %Ln more rank(s) of this step (their cells in the grid)</source>
        <translation>
            <numerusform>…… 以及该步骤的另外 %Ln 个 rank（见网格中的对应单元格）</numerusform>
        </translation>
    </message>
    <message>
        <source>no run %1 in the NPU dump</source>
        <translation>NPU 数据中没有运行 %1</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>bench path: %1</source>
        <translation>标杆路径：%1</translation>
    </message>
    <message>
        <source>bench path %1 holds %2 runs (%3); compare one run folder with another</source>
        <translation>标杆路径 %1 包含 %2 个运行（%3）；请将一个运行目录与另一个运行目录比对</translation>
    </message>
    <message>
        <source>comparing with %1: walking the bench run…</source>
        <translation>正在与 %1 比对：正在遍历标杆运行…</translation>
    </message>
    <message>
        <source>comparing with %1 scope pair by scope pair: %2 of %3 compared…</source>
        <translation>正在按作用域对逐对与 %1 比对：已比对 %3 个中的 %2 个…</translation>
    </message>
    <message>
        <source>compare with %1 cancelled after %2 of %3 scope pairs; the answer covers those only</source>
        <translation>与 %1 的比对在 %3 个作用域对中的 %2 个之后被取消；结论仅涵盖这些作用域对</translation>
    </message>
    <message>
        <source>compare with %1 failed: %2</source>
        <translation>与 %1 的比对失败：%2</translation>
    </message>
    </context>
    <context>
        <name>ds::RunSetMatrixModel</name>
        <message>
            <source>%1: the first operator where a run departs from the majority</source>
            <translation>%1：有运行最先偏离多数的算子</translation>
        </message>
        <message>
            <source>Run %1 agrees with the majority in every row of %2</source>
            <translation>运行 %1 在 %2 的每一行都与多数一致</translation>
        </message>
        <message>
            <source>Run %1 differs from the majority in %2</source>
            <translation>运行 %1 在 %2 中与多数不同</translation>
        </message>
        <message>
            <source>Run %1 does not hold %2</source>
            <translation>运行 %1 中没有 %2</translation>
        </message>
        <message>
            <source>Run %1</source>
            <translation>运行 %1</translation>
        </message>
        <message>
            <source>Step</source>
            <translation>步</translation>
        </message>
        <message>
            <source>Rank</source>
            <translation>卡</translation>
        </message>
        <message>
            <source>Operator</source>
            <translation>算子</translation>
        </message>
        <message>
            <source>Phase</source>
            <translation>阶段</translation>
        </message>
    </context>
    <context>
        <name>ds::RunSetPanel</name>
        <message>
            <source>forward</source>
            <translation>前向</translation>
        </message>
        <message>
            <source>backward</source>
            <translation>反向</translation>
        </message>
        <message>
            <source>optimizer</source>
            <translation>优化器</translation>
        </message>
        <message>
            <source>step %1</source>
            <translation>第 %1 步</translation>
        </message>
        <message>
            <source>rank %1</source>
            <translation>rank %1</translation>
        </message>
        <message>
            <source>%1 (row %2)</source>
            <translation>%1（行 %2）</translation>
        </message>
        <message>
            <source>identical statistics</source>
            <translation>统计量相同</translation>
        </message>
        <message>
            <source>bit-identical</source>
            <translation>逐位相同</translation>
        </message>
        <message>
            <source>run %1: %2</source>
            <translation>运行 %1：%2</translation>
        </message>
        <message>
            <source>mode:  %1</source>
            <translation>模式：%1</translation>
        </message>
        <message>
            <source>pairs:</source>
            <translation>两两比较：</translation>
        </message>
        <message>
            <source>%1 (%2 rows)</source>
            <translation>%1（%2 行）</translation>
        </message>
        <message>
            <source>%1 of %2 rows differ, %3 not compared, %4 unmatched</source>
            <translation>%2 行中 %1 行不同，%3 行未比较，%4 行未匹配</translation>
        </message>
        <message>
            <source>; first: %1</source>
            <translation>；第一处：%1</translation>
        </message>
        <message>
            <source>runs %1 are %2</source>
            <translation>运行 %1 %2</translation>
        </message>
        <message>
            <source>departs first: run %1 at %2; majority: runs %3</source>
            <translation>最先偏离：运行 %1，位于 %2；多数：运行 %3</translation>
        </message>
        <message>
            <source>departs first: no run departs from a majority</source>
            <translation>最先偏离：没有运行偏离多数</translation>
        </message>
        <message>
            <source>first operator whose inputs agree and an output differs:</source>
            <translation>输入一致而输出不同的第一个算子：</translation>
        </message>
        <message>
            <source>none</source>
            <translation>无</translation>
        </message>
        <message>
            <source>updated differently before %1; runs agree as %2</source>
            <translation>在 %1 之前更新不同；运行按 %2 分组一致</translation>
        </message>
        <message>
            <source>%1; runs agree as %2</source>
            <translation>%1；运行按 %2 分组一致</translation>
        </message>
        <message>
            <source>Analysis → Compare Runs… compares three or more runs of the same training with each other.</source>
            <translation>分析 → 比较多次运行… 将同一训练的三次或更多次运行两两比较。</translation>
        </message>
        <message numerus="yes">
            <source>Comparing %n runs with each other…</source>
            <translation>
                <numerusform>正在将 %n 次运行两两比较…</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>A run set needs three or more runs (%n given); compare two runs with Compare with…</source>
            <translation>
                <numerusform>运行集需要三次或更多次运行（给出了 %n 次）；两次运行请用“比较…”</numerusform>
            </translation>
        </message>
        <message>
            <source>Looking for runs in %1…</source>
            <translation>正在 %1 中查找运行…</translation>
        </message>
        <message numerus="yes">
            <source>%1 holds %n run(s); a run set needs three or more run folders</source>
            <translation>
                <numerusform>%1 包含 %n 次运行；运行集需要三个或更多运行文件夹</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n runs compared with each other (%1 mode)</source>
            <translation>
                <numerusform>已将 %n 次运行两两比较（%1 模式）</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ds::SettingsDialog</name>
        <message>
            <source>Settings</source>
            <translation>设置</translation>
        </message>
        <message>
            <source>System default</source>
            <translation>系统默认</translation>
        </message>
        <message>
            <source>Logarithmic count axis</source>
            <translation>计数轴使用对数刻度</translation>
        </message>
        <message>
            <source>Language:</source>
            <translation>语言：</translation>
        </message>
        <message>
            <source>The language changes at the next start.</source>
            <translation>语言将在下次启动时生效。</translation>
        </message>
        <message>
            <source>Histogram bins:</source>
            <translation>直方图分箱数：</translation>
        </message>
    </context>
    <context>
        <name>ds::SliceSelector</name>
        <message>
            <source>The tensor dimension shown down the rows</source>
            <translation>沿行方向显示的张量维度</translation>
        </message>
        <message>
            <source>The tensor dimension shown across the columns</source>
            <translation>沿列方向显示的张量维度</translation>
        </message>
        <message>
            <source>Fixed indices:</source>
            <translation>固定索引：</translation>
        </message>
        <message>
            <source>Rows:</source>
            <translation>行：</translation>
        </message>
        <message>
            <source>Columns:</source>
            <translation>列：</translation>
        </message>
        <message>
            <source>dim %1 (size %2)</source>
            <translation>维度 %1（大小 %2）</translation>
        </message>
        <message>
            <source>dim %1 (size %2):</source>
            <translation>维度 %1（大小 %2）：</translation>
        </message>
        <message>
            <source>Index along dim %1: 0 to %2</source>
            <translation>沿维度 %1 的索引：0 到 %2</translation>
        </message>
        <message>
            <source>— (scalar)</source>
            <translation>—（标量）</translation>
        </message>
        <message>
            <source>— (1-D tensor)</source>
            <translation>—（一维张量）</translation>
        </message>
    </context>
    <context>
        <name>ds::TensorInspector</name>
        <message>
            <source>reading the node&apos;s rows from the graph database…</source>
            <translation>正在从图数据库读取该节点的行…</translation>
        </message>
        <message>
            <source>Rows</source>
            <translation>行</translation>
        </message>
        <message>
            <source>cannot read them: %1</source>
            <translation>无法读取：%1</translation>
        </message>
        <message>
            <source>Headroom</source>
            <translation>精度余量</translation>
        </message>
        <message>
            <source>How the values would fare in float16, bfloat16, float8 and hifloat8</source>
            <translation>数值在 float16、bfloat16、float8 和 hifloat8 中会怎样</translation>
        </message>
        <message>
            <source>Select a tensor in the dump tree.</source>
            <translation>请在 Dump 树中选择一个张量。</translation>
        </message>
        <message>
            <source>Raw device layout</source>
            <translation>原始设备格式</translation>
        </message>
        <message>
            <source>Show the bytes in the device's private layout instead of converting to ND</source>
            <translation>按设备私有格式显示原始字节，而不转换为 ND 格式</translation>
        </message>
        <message>
            <source>Summary</source>
            <translation>概要</translation>
        </message>
        <message>
            <source>Loading…</source>
            <translation>正在加载…</translation>
        </message>
        <message>
            <source>Cannot show this tensor: %1</source>
            <translation>无法显示该张量：%1</translation>
        </message>
        <message>
            <source>Loaded in %1 ms, statistics in %2 ms.</source>
            <translation>加载耗时 %1 ms，统计耗时 %2 ms。</translation>
        </message>
        <message>
            <source>Tensor</source>
            <translation>张量</translation>
        </message>
        <message>
            <source>Data type</source>
            <translation>数据类型</translation>
        </message>
        <message>
            <source>Device format</source>
            <translation>设备格式</translation>
        </message>
        <message>
            <source>Device shape</source>
            <translation>设备形状</translation>
        </message>
        <message>
            <source>Logical shape</source>
            <translation>逻辑形状</translation>
        </message>
        <message>
            <source>Sub-format (groups)</source>
            <translation>子格式（分组数）</translation>
        </message>
        <message>
            <source>Operator</source>
            <translation>算子</translation>
        </message>
        <message>
            <source>Operator type</source>
            <translation>算子类型</translation>
        </message>
        <message>
            <source>Original operator</source>
            <translation>原始算子</translation>
        </message>
        <message>
            <source>Task / stream</source>
            <translation>任务 / 流</translation>
        </message>
        <message>
            <source>Timestamp</source>
            <translation>时间戳</translation>
        </message>
        <message>
            <source>File</source>
            <translation>文件</translation>
        </message>
        <message>
            <source>Byte offset / size</source>
            <translation>字节偏移 / 大小</translation>
        </message>
        <message>
            <source>Mapped name</source>
            <translation>映射名称</translation>
        </message>
        <message>
            <source>Warning</source>
            <translation>警告</translation>
        </message>
        <message>
            <source>Elements</source>
            <translation>元素数</translation>
        </message>
        <message>
            <source>Min</source>
            <translation>最小值</translation>
        </message>
        <message>
            <source>Max</source>
            <translation>最大值</translation>
        </message>
        <message>
            <source>Mean</source>
            <translation>均值</translation>
        </message>
        <message>
            <source>Std</source>
            <translation>标准差</translation>
        </message>
        <message>
            <source>L2 norm</source>
            <translation>L2 范数</translation>
        </message>
        <message>
            <source>NaN</source>
            <translation>NaN</translation>
        </message>
        <message>
            <source>+Inf</source>
            <translation>+Inf</translation>
        </message>
        <message>
            <source>-Inf</source>
            <translation>-Inf</translation>
        </message>
        <message>
            <source>Zeros</source>
            <translation>零值数</translation>
        </message>
        <message>
            <source>Shape shown</source>
            <translation>显示的形状</translation>
        </message>
        <message>
            <source>Values</source>
            <translation>数值</translation>
        </message>
        <message>
            <source>Heatmap</source>
            <translation>热力图</translation>
        </message>
        <message>
            <source>Copy statistics</source>
            <translation>复制统计信息</translation>
        </message>
        <message>
            <source>Copy the tensor id and its statistics as text</source>
            <translation>将张量 ID 及其统计信息复制为文本</translation>
        </message>
        <message>
            <source>Computing statistics…</source>
            <translation>正在计算统计信息…</translation>
        </message>
        <message>
            <source>No tensor data was saved for this leaf; the details show the statistics the dump recorded.</source>
            <translation>此叶节点未保存张量数据；详情中显示的是 dump 记录的统计量。</translation>
        </message>
        <message>
            <source>This leaf is a %1 value, not a tensor.</source>
            <translation>此叶节点是 %1 值，不是张量。</translation>
        </message>
        <message>
            <source>Leaf</source>
            <translation>叶节点</translation>
        </message>
        <message>
            <source>Recorded type</source>
            <translation>记录的类型</translation>
        </message>
        <message>
            <source>Shape</source>
            <translation>形状</translation>
        </message>
        <message>
            <source>Value</source>
            <translation>值</translation>
        </message>
        <message>
            <source>Format</source>
            <translation>格式</translation>
        </message>
        <message>
            <source>Step / rank</source>
            <translation>step / rank</translation>
        </message>
        <message>
            <source>Parent module</source>
            <translation>父模块</translation>
        </message>
        <message>
            <source>Record file</source>
            <translation>记录文件</translation>
        </message>
        <message>
            <source>Tensor file</source>
            <translation>张量文件</translation>
        </message>
        <message>
            <source>Dataset</source>
            <translation>数据集</translation>
        </message>
        <message>
            <source>none saved (statistics only)</source>
            <translation>未保存（仅统计量）</translation>
        </message>
        <message>
            <source>Recorded max</source>
            <translation>记录的最大值</translation>
        </message>
        <message>
            <source>Recorded min</source>
            <translation>记录的最小值</translation>
        </message>
        <message>
            <source>Recorded mean</source>
            <translation>记录的均值</translation>
        </message>
        <message>
            <source>Recorded L2 norm</source>
            <translation>记录的 L2 范数</translation>
        </message>
        <message>
            <source>Recorded checksum</source>
            <translation>记录的校验和</translation>
        </message>
        <message>
            <source>Call stack</source>
            <translation>调用栈</translation>
        </message>
        <message>
            <source>No values were dumped for this tensor (msprobe task: statistics): no histogram.</source>
            <translation>此张量未 dump 数值（msprobe task: statistics）：无直方图。</translation>
        </message>
        <message>
            <source>No values were dumped for this tensor: no histogram.</source>
            <translation>此张量未 dump 数值：无直方图。</translation>
        </message>
        <message>
            <source>recorded by the dump (no values)</source>
            <translation>dump 记录的值（无数值）</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>来源</translation>
        </message>
        <message>
            <source>An msprobe graph database node: the statistics msprobe recorded (open its dump for the tensors).</source>
            <translation>msprobe 图数据库节点：msprobe 记录的统计量（打开其 dump 可查看张量）。</translation>
        </message>
        <message>
            <source>Node</source>
            <translation>节点</translation>
        </message>
        <message>
            <source>Node type</source>
            <translation>节点类型</translation>
        </message>
        <message>
            <source>Graph</source>
            <translation>图</translation>
        </message>
        <message>
            <source>Overflow level</source>
            <translation>溢出级别</translation>
        </message>
        <message>
            <source>Precision level</source>
            <translation>精度级别</translation>
        </message>
        <message>
            <source>Precision index</source>
            <translation>精度指标</translation>
        </message>
        <message>
            <source>Matched node</source>
            <translation>匹配节点</translation>
        </message>
        <message>
            <source>(none)</source>
            <translation>（无）</translation>
        </message>
        <message>
            <source>Input</source>
            <translation>输入</translation>
        </message>
        <message>
            <source>Output</source>
            <translation>输出</translation>
        </message>
        <message>
            <source>A graph database node holds no values: no histogram.</source>
            <translation>图数据库节点不含数值：无直方图。</translation>
        </message>
        <message>
            <source>recorded in the graph database: %1</source>
            <translation>记录于图数据库：%1</translation>
        </message>
        <message>
            <source>%1 (the values shown)</source>
            <translation>%1（所显示的数值）</translation>
        </message>
        <message>
            <source>Data type in file</source>
            <translation>文件中的数据类型</translation>
        </message>
        <message>
            <source>Written by</source>
            <translation>写入者</translation>
        </message>
    </context>
    <context>
        <name>ds::TensorValuesModel</name>
        <message>
            <source>%1 = %2</source>
            <translation>%1 = %2</translation>
        </message>
        <message>
            <source> (NaN)</source>
            <translation> (NaN)</translation>
        </message>
        <message>
            <source> (+Inf)</source>
            <translation> (+Inf)</translation>
        </message>
        <message>
            <source> (-Inf)</source>
            <translation> (-Inf)</translation>
        </message>
        <message>
            <source> (saturated: the largest finite value of the type)</source>
            <translation> (饱和：该数据类型的最大有限值)</translation>
        </message>
        <message>
            <source>flat index %1</source>
            <translation>展平索引 %1</translation>
        </message>
        <message>
            <source>value</source>
            <translation>值</translation>
        </message>
        <message>
            <source>index %1 along dim %2</source>
            <translation>维度 %2 上的索引 %1</translation>
        </message>
    </context>
    <context>
        <name>ds::TrendsPanel</name>
        <message>
            <source>underflow in %1</source>
            <translation>%1 下溢比例</translation>
        </message>
        <message>
            <source>Recorded statistics of %1</source>
            <translation>%1 的记录统计量</translation>
        </message>
        <message>
            <source>%1, read from the tensors of %2</source>
            <translation>%1，读取自 %2 的张量</translation>
        </message>
        <message>
            <source>msprobe monitor series</source>
            <translation>msprobe 监控序列</translation>
        </message>
        <message>
            <source>Open msprobe&apos;s monitor output (File → Open) to see its series here.</source>
            <translation>打开 msprobe 的监控输出（文件 → 打开）即可在此查看其序列。</translation>
        </message>
        <message>
            <source>Comparison with the bench run</source>
            <translation>与标杆运行的比对</translation>
        </message>
        <message>
            <source>Statistics of the run</source>
            <translation>运行的统计量</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Stop reading the tensors</source>
            <translation>停止读取张量</translation>
        </message>
        <message>
            <source>Reads every output tensor of the run (statistics-only outputs have no value: their statistics cannot tell underflow)</source>
            <translation>读取运行的每个输出张量（仅有统计量的输出没有值：其统计量无法判断下溢）</translation>
        </message>
        <message>
            <source>Reading the run&apos;s tensors for the underflow fractions…</source>
            <translation>正在读取运行的张量以计算下溢比例…</translation>
        </message>
        <message>
            <source>Reading the run&apos;s tensors for the underflow fractions… %1 %</source>
            <translation>正在读取运行的张量以计算下溢比例… %1 %</translation>
        </message>
        <message>
            <source>Stopped: the underflow fractions need every output tensor read.</source>
            <translation>已停止：下溢比例需要读取每个输出张量。</translation>
        </message>
        <message>
            <source>blank: cannot tell (no output saved as a floating tensor: recorded statistics do not tell underflow)</source>
            <translation>空白：无法判断（没有输出保存为浮点张量：记录的统计量无法判断下溢）</translation>
        </message>
        <message>
            <source>Runs × operators agreement of the open run set (%1, %2): &lt;a href=&quot;runset&quot;&gt;show the matrix on the Run Set tab&lt;/a&gt;</source>
            <translation>已打开的运行集的运行 × 算子一致性（%1，%2）：&lt;a href=&quot;runset&quot;&gt;在“运行集”页查看矩阵&lt;/a&gt;</translation>
        </message>
        <message numerus="yes">
            <source>%n run(s)</source>
            <translation>
                <numerusform>%n 个运行</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n row(s)</source>
            <translation>
                <numerusform>%n 行</numerusform>
            </translation>
        </message>
        <message>
            <source>Operators</source>
            <translation>算子</translation>
        </message>
        <message>
            <source>Modules</source>
            <translation>模块</translation>
        </message>
        <message>
            <source>Rows: every operator, or the modules they run in (an operator counts for its parent module)</source>
            <translation>行：每个算子，或其所在的模块（算子计入其父模块）</translation>
        </message>
        <message>
            <source>Heatmap cells: the largest value over the ranks, or one rank</source>
            <translation>热力图单元：各 rank 中的最大值，或某一个 rank</translation>
        </message>
        <message>
            <source>step</source>
            <translation>step</translation>
        </message>
        <message>
            <source>Data:</source>
            <translation>数据：</translation>
        </message>
        <message>
            <source>Metric:</source>
            <translation>指标：</translation>
        </message>
        <message>
            <source>Rows:</source>
            <translation>行：</translation>
        </message>
        <message>
            <source>Cells:</source>
            <translation>单元：</translation>
        </message>
        <message>
            <source>%1, %2: %3</source>
            <translation>%1，%2：%3</translation>
        </message>
        <message>
            <source>Open a run, or compare it with a bench run, to see its trends.</source>
            <translation>打开一个运行，或将其与标杆运行比对，以查看趋势。</translation>
        </message>
        <message>
            <source>Compare the run with a bench run (Analysis → Compare with…) to see how far they are apart.</source>
            <translation>将此运行与标杆运行比对（分析 → 比对…），以查看二者相差多远。</translation>
        </message>
        <message>
            <source>Open a run to see its recorded statistics.</source>
            <translation>打开一个运行以查看其记录的统计量。</translation>
        </message>
        <message>
            <source>Building the trend…</source>
            <translation>正在生成趋势…</translation>
        </message>
        <message>
            <source>largest over the ranks</source>
            <translation>各 rank 中的最大值</translation>
        </message>
        <message>
            <source>(no rank)</source>
            <translation>（无 rank）</translation>
        </message>
        <message>
            <source>No values: %1 is not recorded or not comparable in this run.</source>
            <translation>无数值：此运行未记录 %1 或无法比对。</translation>
        </message>
        <message>
            <source>%1 rows × %2 × %3 — click a row of the heatmap to chart it over the steps.</source>
            <translation>%1 行 × %2 × %3 —— 单击热力图中的一行，查看其随 step 的变化。</translation>
        </message>
        <message numerus="yes">
            <source>%n step(s)</source>
            <translation>
                <numerusform>%n 个 step</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n rank(s)</source>
            <translation>
                <numerusform>%n 个 rank</numerusform>
            </translation>
        </message>
        <message>
            <source>logarithmic colour scale</source>
            <translation>对数色标</translation>
        </message>
        <message>
            <source>&lt;span style="color:%1"&gt;■&lt;/span&gt; Inf (or NaN) value</source>
            <translation>&lt;span style="color:%1"&gt;■&lt;/span&gt; Inf（或 NaN）值</translation>
        </message>
        <message>
            <source>blank: no value (not recorded or not compared)</source>
            <translation>空白：无数值（未记录或未比对）</translation>
        </message>
        <message>
            <source>agrees until step %1</source>
            <translation>直到 step %1 一致</translation>
        </message>
        <message>
            <source> (first %1 ranks)</source>
            <translation>（前 %1 个 rank）</translation>
        </message>
        <message>
            <source>%1 (worst of rows %2–%3)</source>
            <translation>%1（第 %2–%3 行中最差的一行）</translation>
        </message>
        <message>
            <source>%1 rows in bands of %2, each showing its largest value (click a band to chart its worst row)</source>
            <translation>共 %1 行，每 %2 行合为一条带，显示其中的最大值（点击一条带，绘制其中最差的一行）</translation>
        </message>
    <message>
        <source>This run was opened scope by scope: its statistics are read for one rank at a time (one scope per step); choose the rank to read</source>
        <translation>此运行按作用域逐个打开：其统计量每次只读取一个 rank（每个步骤一个作用域）；请选择要读取的 rank</translation>
    </message>
    <message>
        <source>Read rank:</source>
        <translation>读取 rank：</translation>
    </message>
    </context>
    <context>
        <name>ds::ValueGridWidget</name>
        <message>
            <source>NaN</source>
            <translation>NaN</translation>
        </message>
        <message>
            <source>±Inf</source>
            <translation>±Inf</translation>
        </message>
        <message>
            <source>saturated (|v| = %1, the largest finite %2)</source>
            <translation>饱和（|v| = %1，即 %2 的最大有限值）</translation>
        </message>
        <message>
            <source>values as stored: %1</source>
            <translation>按文件中存储的类型显示：%1</translation>
        </message>
        <message>
            <source>Previous %1 rows</source>
            <translation>上 %1 行</translation>
        </message>
        <message>
            <source>Next %1 rows</source>
            <translation>下 %1 行</translation>
        </message>
        <message>
            <source>Previous %1 columns</source>
            <translation>左 %1 列</translation>
        </message>
        <message>
            <source>Next %1 columns</source>
            <translation>右 %1 列</translation>
        </message>
        <message>
            <source>Go to an element: one index per dim, comma separated (negative counts from the end)</source>
            <translation>转到元素：每个维度一个索引，以逗号分隔（负数表示从末尾倒数）</translation>
        </message>
        <message>
            <source>digits: </source>
            <translation>位数: </translation>
        </message>
        <message>
            <source>Significant digits shown (17 shows every float64 exactly)</source>
            <translation>显示的有效位数（17 位可精确显示任意 float64 值）</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>&amp;Go to:</source>
            <translation>转到(&amp;G)：</translation>
        </message>
        <message>
            <source>scalar</source>
            <translation>标量</translation>
        </message>
        <message>
            <source>e.g. %1</source>
            <translation>例如 %1</translation>
        </message>
        <message numerus="yes">
            <source>“%1” is not an element of a tensor of shape %2: enter %n comma-separated index(es), e.g. %3.</source>
            <translation>
                <numerusform>“%1”不是形状为 %2 的张量中的元素：请输入 %n 个以逗号分隔的索引，例如 %3。</numerusform>
            </translation>
        </message>
        <message>
            <source>rows %1–%2 of %3</source>
            <translation>第 %1–%2 行，共 %3 行</translation>
        </message>
        <message>
            <source>no rows</source>
            <translation>无行</translation>
        </message>
        <message>
            <source>columns %1–%2 of %3</source>
            <translation>第 %1–%2 列，共 %3 列</translation>
        </message>
        <message>
            <source>%1 = %2</source>
            <translation>%1 = %2</translation>
        </message>
        <message>
            <source>The selection holds %1 cells; copy at most 1,000,000 at a time (or export the tensor).</source>
            <translation>选区包含 %1 个单元格；一次最多可复制 1,000,000 个（或导出该张量）。</translation>
        </message>
    </context>
    <context>
        <name>main</name>
        <message>
            <source>Workbench for Ascend NPU dump data.</source>
            <translation>面向昇腾 NPU Dump 数据的分析工作台。</translation>
        </message>
        <message>
            <source>Render the window to FILE (PNG) and exit.</source>
            <translation>将窗口渲染到 FILE（PNG）后退出。</translation>
        </message>
        <message>
            <source>Select the tensor with this id.</source>
            <translation>选中具有此 ID 的张量。</translation>
        </message>
        <message>
            <source>Window size WxH (screenshot mode).</source>
            <translation>窗口大小 WxH（截图模式）。</translation>
        </message>
        <message>
            <source>User interface language (en, zh_CN) for this run.</source>
            <translation>本次运行使用的界面语言（en、zh_CN）。</translation>
        </message>
        <message>
            <source>Dump directories or files to open.</source>
            <translation>要打开的 Dump 目录或文件。</translation>
        </message>
        <message>
            <source>Compare the opened dump with this bench dump.</source>
            <translation>将打开的 dump 与此标杆 dump 比对。</translation>
        </message>
        <message>
            <source>User mapping file (YAML or JSON) of the comparison.</source>
            <translation>比对所用的用户映射文件（YAML 或 JSON）。</translation>
        </message>
        <message>
            <source>Screenshot mode: show this view (values, heatmap, headroom, bands: float8_e4m3fn&apos;s ranges over the histogram, overflow, graph, graph-compare, mapping, runs, trends, runset: the run set of the last PATH).</source>
            <translation>截图模式：显示此视图（values、heatmap、headroom、bands：直方图上 float8_e4m3fn 的各区间、overflow、graph、graph-compare、mapping、runs、trends、runset：最后一个 PATH 的运行集）。</translation>
        </message>
    </context>
    <context>
        <name>Export</name>
        <message numerus="yes">
            <source>%1 of %n selected can be exported</source>
            <translation>
                <numerusform>所选 %n 项中有 %1 项可以导出</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n statistics only (no values were dumped)</source>
            <translation>
                <numerusform>%n 项仅有统计量（未 dump 数值）</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n not a tensor (int, float, None, ... arguments)</source>
            <translation>
                <numerusform>%n 项不是张量（int、float、None 等参数）</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ds::CompareHistograms</name>
        <message>
            <source>count</source>
            <translation>计数</translation>
        </message>
        <message>
            <source>value</source>
            <translation>值</translation>
        </message>
        <message>
            <source>|NPU − bench|</source>
            <translation>|NPU − 标杆|</translation>
        </message>
        <message>
            <source>No values were read (statistics only): no histogram.</source>
            <translation>未读取数值（仅统计量）：无直方图。</translation>
        </message>
        <message>
            <source>No element-wise error to show.</source>
            <translation>没有逐元素误差可显示。</translation>
        </message>
        <message>
            <source>NPU</source>
            <translation>NPU</translation>
        </message>
        <message>
            <source>bench</source>
            <translation>标杆</translation>
        </message>
    </context>
    <context>
        <name>ds::DumpIndex</name>
        <message>
            <source>Nothing recognised here: %1 is no file DumpScope reads.</source>
            <translation>此处未识别到任何内容：%1 不是 DumpScope 能读取的文件。</translation>
        </message>
        <message>
            <source>Nothing recognised here: %1 holds no file DumpScope reads.</source>
            <translation>此处未识别到任何内容：%1 中没有 DumpScope 能读取的文件。</translation>
        </message>
        <message>
            <source>Nothing recognised here: %1 holds no files.</source>
            <translation>此处未识别到任何内容：%1 中没有文件。</translation>
        </message>
        <message numerus="yes">
            <source>Nothing recognised here: none of the %n file(s) in %1 is one DumpScope reads.</source>
            <translation>
                <numerusform>此处未识别到任何内容：%1 中的 %n 个文件都不是 DumpScope 能读取的文件。</numerusform>
            </translation>
        </message>
        <message>
            <source>Looked for: %1; and graph files (GE ge_proto_*/ge_onnx_*, msprobe *.vis.db), which the Graph tab and `dumpscope-cli graph` open.</source>
            <translation>查找了：%1；以及图文件（GE ge_proto_*/ge_onnx_*、msprobe *.vis.db），可在“图”标签页或用 `dumpscope-cli graph` 打开。</translation>
        </message>
    </context>
    <context>
        <name>ds::FirstOverflow</name>
        <message>
            <source>runs later</source>
            <translation>执行得更晚</translation>
        </message>
        <message>
            <source>runs later in %1</source>
            <translation>在 %1 中执行得更晚</translation>
        </message>
        <message>
            <source>is in a later step (%1)</source>
            <translation>位于更晚的 step（%1）</translation>
        </message>
        <message>
            <source>is in %1, later on the communication-op clock</source>
            <translation>位于 %1，在通信算子时钟上更晚</translation>
        </message>
        <message>
            <source>%1 (OpDebug record)</source>
            <translation>%1（OpDebug 记录）</translation>
        </message>
        <message>
            <source>%1 (software scan: %2)</source>
            <translation>%1（软件扫描：%2）</translation>
        </message>
        <message>
            <source>%1 (OpDebug record and software scan: %2)</source>
            <translation>%1（OpDebug 记录与软件扫描：%2）</translation>
        </message>
        <message>
            <source>%1 in %2</source>
            <translation>%1，位于 %2</translation>
        </message>
        <message>
            <source>%1 of run %2</source>
            <translation>%1（运行 %2）</translation>
        </message>
        <message>
            <source>the OpDebug record %1 (hardware) and the software scan (%2) name the same operator</source>
            <translation>OpDebug 记录 %1（硬件）与软件扫描（%2）指向同一个算子</translation>
        </message>
        <message>
            <source>no OpDebug record names %1; the first OpDebug record (hardware), %2, names %3, which %4</source>
            <translation>没有 OpDebug 记录指向 %1；最早的 OpDebug 记录（硬件）%2 指向 %3，它%4</translation>
        </message>
        <message>
            <source>the software scan was not run: only the OpDebug records were read</source>
            <translation>未运行软件扫描：只读取了 OpDebug 记录</translation>
        </message>
        <message>
            <source>the software scan finds no NaN, Inf or saturated value in the tensors of %1; its first anomaly, %2 [%3], %4</source>
            <translation>软件扫描在 %1 的张量中未发现 NaN、Inf 或饱和值；其首个异常 %2 [%3]%4</translation>
        </message>
        <message>
            <source>the software scan finds no NaN, Inf or saturated value in the tensors of %1 (nor anywhere in the run): the overflow stayed inside the operator, or its tensors were not saved</source>
            <translation>软件扫描在 %1 的张量中（以及整个运行中）均未发现 NaN、Inf 或饱和值：溢出停留在算子内部，或其张量未被保存</translation>
        </message>
    </context>
    <context>
        <name>ds::PrecheckPanel</name>
        <message>
            <source>|device − bench| heatmap</source>
            <translation>|设备 − 标杆| 热力图</translation>
        </message>
        <message>
            <source>Comparison</source>
            <translation>比较</translation>
        </message>
        <message>
            <source>No element-wise difference: see the message above.</source>
            <translation>没有逐元素差异：请看上方的说明。</translation>
        </message>
        <message>
            <source>The outputs are too large for the heatmap.</source>
            <translation>输出过大，无法绘制热力图。</translation>
        </message>
        <message>
            <source>in %1</source>
            <translation>位于 %1</translation>
        </message>
        <message>
            <source>%1 (%2): %3 pass, %4 warning, %5 error, %6 SKIP</source>
            <translation>%1（%2）：%3 个 pass，%4 个 warning，%5 个 error，%6 个 SKIP</translation>
        </message>
        <message numerus="yes">
            <source>%n failed output(s) with saved tensors. </source>
            <translation>
                <numerusform>%n 个保存了张量的未通过输出。</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n problem(s): %1</source>
            <translation>
                <numerusform>%n 个问题：%1</numerusform>
            </translation>
        </message>
        <message>
            <source>Comparing %1…</source>
            <translation>正在比对 %1…</translation>
        </message>
        <message>
            <source>DumpScope's comparison of %1 elements: cosine %2, max abs error %3, max relative error %4, RMSE %5, %6 exactly equal, %7 NaN/Inf mismatches.</source>
            <translation>DumpScope 对 %1 个元素的比对：余弦相似度 %2，最大绝对误差 %3，最大相对误差 %4，均方根误差 %5，%6 个完全相等，%7 个 NaN/Inf 不一致。</translation>
        </message>
        <message>
            <source>Open msprobe's precheck results (File → Open): an accuracy_checking_*.csv, an api_precision_compare_*.csv or their folder.</source>
            <translation>打开 msprobe 的精度预检结果（文件 → 打开）：accuracy_checking_*.csv、api_precision_compare_*.csv 或它们所在的文件夹。</translation>
        </message>
        <message>
            <source>Reading msprobe's precheck results %1…</source>
            <translation>正在读取 msprobe 的精度预检结果 %1…</translation>
        </message>
        <message>
            <source>The elements that differ most:</source>
            <translation>差异最大的元素：</translation>
        </message>
        <message>
            <source>The first table has %1 error and %2 warning rows (red, amber; hover a column header for its meaning and threshold). Select a failed output below to compare its device and bench tensors.</source>
            <translation>第一张表有 %1 行 error、%2 行 warning（红色、琥珀色；鼠标悬停在列标题上可查看其含义和阈值）。在下方选择一个未通过的输出，比对其 device 与 bench 张量。</translation>
        </message>
        <message>
            <source>abs error</source>
            <translation>绝对误差</translation>
        </message>
        <message>
            <source>bench</source>
            <translation>标杆</translation>
        </message>
        <message>
            <source>bench (CPU)</source>
            <translation>标杆（CPU）</translation>
        </message>
        <message>
            <source>device</source>
            <translation>设备</translation>
        </message>
        <message>
            <source>device (NPU)</source>
            <translation>设备（NPU）</translation>
        </message>
        <message>
            <source>dtype, shape</source>
            <translation>数据类型、形状</translation>
        </message>
        <message>
            <source>file</source>
            <translation>文件</translation>
        </message>
        <message>
            <source>min / max / mean</source>
            <translation>最小值 / 最大值 / 平均值</translation>
        </message>
        <message numerus="yes">
            <source>msprobe's API precheck results in %1: %n table(s), </source>
            <translation>
                <numerusform>%1 中 msprobe 的 API 精度预检结果：%n 张表，</numerusform>
            </translation>
        </message>
        <message>
            <source>position</source>
            <translation>位置</translation>
        </message>
    </context>
    <context>
        <name>ds::precheck</name>
        <message>
            <source>Threshold: %1</source>
            <translation>阈值：%1</translation>
        </message>
        <message>
            <source>not a column msprobe writes in this table</source>
            <translation>msprobe 不会在此表中写入该列</translation>
        </message>
    </context>
    <context>
        <name>ds::MonitorPanel</name>
        <message>
            <source>Double-click an anomaly to select its module in an open dump of the same step and rank.</source>
            <translation>双击一个异常，即可在已打开的同一 step、同一 rank 的 dump 中选中其模块。</translation>
        </message>
        <message numerus="yes">
            <source>%n anomal(ies) in msprobe's order below. </source>
            <translation>
                <numerusform>下方按 msprobe 的顺序列出 %n 个异常。</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n problem(s): %1</source>
            <translation>
                <numerusform>%n 个问题：%1</numerusform>
            </translation>
        </message>
        <message>
            <source>Each row is a module on a rank, each column a step; colour runs from the row's smallest (blue) to its largest value (red), NaN/Inf purple, anomalies outlined red. Pick a metric and a statistic; select an anomaly to go to its cell.</source>
            <translation>每行是某个 rank 上的一个模块，每列是一个 step；颜色从该行最小值（蓝）到最大值（红），NaN/Inf 为紫色，异常用红框标出。选择指标和统计量；选中一个异常即可跳到其单元格。</translation>
        </message>
        <message>
            <source>Metric:</source>
            <translation>指标：</translation>
        </message>
        <message>
            <source>Open msprobe's monitor output (File → Open): its output folder, a rank folder or an anomaly file.</source>
            <translation>打开 msprobe 的监控输出（文件 → 打开）：其输出文件夹、某个 rank 文件夹或异常文件。</translation>
        </message>
        <message>
            <source>Reading msprobe's monitor output %1…</source>
            <translation>正在读取 msprobe 的监控输出 %1…</translation>
        </message>
        <message>
            <source>Statistic:</source>
            <translation>统计量：</translation>
        </message>
        <message numerus="yes">
            <source>msprobe's training monitor output in %1: %n metric(s), </source>
            <translation>
                <numerusform>%1 中 msprobe 的训练监控输出：%n 个指标，</numerusform>
            </translation>
        </message>
        <message>
            <source>rank %1, step %2, micro step %3: %4 — %5</source>
            <translation>rank %1，step %2，micro step %3：%4 — %5</translation>
        </message>
    </context>
    <context>
        <name>ds::MsprobeAnswerPanel</name>
        <message>
            <source>Double-click a rank to select its op in an open dump of the same step and rank.</source>
            <translation>双击一个 rank，即可在已打开的同一 step、同一 rank 的 dump 中选中其算子。</translation>
        </message>
        <message>
            <source>Rank</source>
            <translation>Rank</translation>
        </message>
        <message>
            <source>msprobe's op</source>
            <translation>msprobe 的算子</translation>
        </message>
        <message>
            <source>DumpScope's op</source>
            <translation>DumpScope 的算子</translation>
        </message>
        <message>
            <source>Agreement</source>
            <translation>一致性</translation>
        </message>
        <message>
            <source>Reading msprobe's answer %1 and looking for the dumps beside it…</source>
            <translation>正在读取 msprobe 的结论 %1，并在其旁查找 dump…</translation>
        </message>
        <message>
            <source>(none)</source>
            <translation>（无）</translation>
        </message>
        <message>
            <source>(no dump)</source>
            <translation>（无 dump）</translation>
        </message>
        <message>
            <source>%1 in %2 (%3)</source>
            <translation>%1，位于 %2（%3）</translation>
        </message>
        <message>
            <source>no dump to check</source>
            <translation>无 dump 可核对</translation>
        </message>
        <message>
            <source>the same</source>
            <translation>相同</translation>
        </message>
        <message>
            <source>differs</source>
            <translation>不同</translation>
        </message>
        <message>
            <source>msprobe overflow_check's answer %1: the first anomaly node of each rank.</source>
            <translation>msprobe overflow_check 的结论 %1：每个 rank 的首个异常节点。</translation>
        </message>
        <message>
            <source>msprobe compare -da's answer %1: the first differing op of each rank.</source>
            <translation>msprobe compare -da 的结论 %1：每个 rank 首个出现差异的算子。</translation>
        </message>
        <message>
            <source>msprobe compare -da's per-rank result %1: %2 entries, %3 not the same; the first of them.</source>
            <translation>msprobe compare -da 的单 rank 结果 %1：共 %2 个条目，%3 个不相同；此处为其中第一个。</translation>
        </message>
        <message>
            <source>Beside it DumpScope's own first anomaly on the same dump: %1 the same, %2 differ. Next: select a rank for msprobe's call stack, or open the dump and use Analysis → Go to First Overflow.</source>
            <translation>旁边是 DumpScope 在同一 dump 上自己找到的首个异常：%1 个相同，%2 个不同。下一步：选择一个 rank 查看 msprobe 记录的调用栈，或打开该 dump 并使用“分析 → 转到首个溢出”。</translation>
        </message>
        <message>
            <source>Beside it DumpScope's own first divergence on the same dumps: %1 the same, %2 differ. Next: select a rank for msprobe's call stack, or open the NPU dump and use Analysis → Compare with… on the bench dump.</source>
            <translation>旁边是 DumpScope 在同一组 dump 上自己找到的首个分歧：%1 个相同，%2 个不同。下一步：选择一个 rank 查看 msprobe 记录的调用栈，或打开 NPU dump 并对标杆 dump 使用“分析 → 与…比对”。</translation>
        </message>
        <message>
            <source>No dump found beside it for DumpScope's own answer. Next: select a rank for msprobe's call stack, or open the step folder overflow_check read (File → Open) and use Analysis → Go to First Overflow.</source>
            <translation>在其旁未找到 dump，因此没有 DumpScope 自己的结论。下一步：选择一个 rank 查看 msprobe 记录的调用栈，或打开 overflow_check 读取的 step 目录（文件 → 打开）并使用“分析 → 转到首个溢出”。</translation>
        </message>
        <message>
            <source>No dumps found beside it for DumpScope's own answer. Next: select a rank for msprobe's call stack, or open the NPU dump and use Analysis → Compare with… on the bench dump.</source>
            <translation>在其旁未找到 dump，因此没有 DumpScope 自己的结论。下一步：选择一个 rank 查看 msprobe 记录的调用栈，或打开 NPU dump 并对标杆 dump 使用“分析 → 与…比对”。</translation>
        </message>
        <message>
            <source>Dumps: %1</source>
            <translation>Dump：%1</translation>
        </message>
        <message>
            <source>msprobe found no anomaly.</source>
            <translation>msprobe 未发现异常。</translation>
        </message>
        <message>
            <source>msprobe found no differing op.</source>
            <translation>msprobe 未发现有差异的算子。</translation>
        </message>
        <message>
            <source>Problem: %1</source>
            <translation>问题：%1</translation>
        </message>
        <message>
            <source>Note: %1</source>
            <translation>说明：%1</translation>
        </message>
        <message>
            <source>msprobe names no op for %1; DumpScope's answer: %2 in %3 (%4).</source>
            <translation>msprobe 未给出 %1 的算子；DumpScope 的结论：%2，位于 %3（%4）。</translation>
        </message>
        <message>
            <source>%1, msprobe: %2</source>
            <translation>%1，msprobe：%2</translation>
        </message>
        <message>
            <source>DumpScope: %1 in %2 (%3)</source>
            <translation>DumpScope：%1，位于 %2（%3）</translation>
        </message>
        <message>
            <source>msprobe's rows of the op:</source>
            <translation>msprobe 列出的该算子的行：</translation>
        </message>
        <message>
            <source>msprobe's call stack (innermost first):</source>
            <translation>msprobe 记录的调用栈（最内层在前）：</translation>
        </message>
    </context>
    <context>
        <name>ds::MonitorTrendModel</name>
        <message>
            <source>%1 @ rank %2</source>
            <translation>%1 @ rank %2</translation>
        </message>
        <message>
            <source>rank %1, %2, step %3: %4</source>
            <translation>rank %1，%2，step %3：%4</translation>
        </message>
        <message>
            <source>rank %1, %2, step %3: %4 (anomaly)</source>
            <translation>rank %1，%2，step %3：%4（异常）</translation>
        </message>
    </context>
</TS>
