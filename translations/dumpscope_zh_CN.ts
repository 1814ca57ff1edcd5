<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>QObject</name>
    <message>
        <source>Property</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ds::DumpTreeModel</name>
    <message>
        <source>Files that could not be read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>time %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>device %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>model %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>model id %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n op(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Operators</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Details</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ds::ExportDialog</name>
    <message>
        <source>Export tensors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NumPy array (.npy)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Text, one value per line (.txt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Logical (ND, converted from private layouts)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Raw device layout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Digits after the decimal point in .txt files (numpy.savetxt uses 18)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overwrite existing files</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s) selected.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Format:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Layout:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Text precision:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Target folder:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export to folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exporting…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>wrote %1 (%2, %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FAILED %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 tensor(s) written%3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (cancelled)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ds::HistogramWidget</name>
    <message>
        <source>value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>count</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bins: </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>log count</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>range</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use a fixed range instead of the data&apos;s min and max</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export plot...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NaN: %1
+Inf: %2
-Inf: %3
zero: %4
out of range: %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bin [%1, %2%3: %4 values</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export histogram</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PNG image (*.png);;PDF document (*.pdf)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not write %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ds::MainWindow</name>
    <message>
        <source>DumpScope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dump tree</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Operators</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tensor inspector</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Problems</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a dump directory to begin (File → Open, or drop a folder here).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Indexing %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open Dump Folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open dump folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Dump &amp;File…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open dump file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Export Tensors…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the selected tensors to .npy or .txt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About DumpScope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About DumpScope</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;DumpScope %1&lt;/b&gt;&lt;p&gt;A workbench for Ascend NPU dump data: operator tensors, layouts, statistics and overflow records.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Main</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export tensors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select tensors or operators in the dump tree or the operator table first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n operator(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n unreadable file(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Indexing cancelled: %1 indexed so far.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Indexed %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ds::OpTableModel</name>
    <message>
        <source>Op type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Op name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Task</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stream</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timestamp</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shapes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Out min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Out max</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Out mean</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NaN</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Inf</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ds::OpTablePanel</name>
    <message>
        <source>Filter by op name or type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Regex</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show one op type only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy the selected rows as tab-separated text (Ctrl+C)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export table</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All op types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 operators</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ds::SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Logarithmic count axis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Language:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The language changes at the next start.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Histogram bins:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ds::TensorInspector</name>
    <message>
        <source>Select a tensor in the dump tree.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Raw device layout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the bytes in the device&apos;s private layout instead of converting to ND</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Summary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot show this tensor: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loaded in %1 ms, statistics in %2 ms.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tensor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device format</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device shape</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Logical shape</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sub-format (groups)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Operator</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Operator type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Original operator</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Task / stream</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timestamp</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Byte offset / size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mapped name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Elements</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mean</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Std</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>L2 norm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NaN</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>+Inf</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>-Inf</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zeros</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shape shown</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ds::TensorValuesModel</name>
    <message>
        <source>%1 = %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (NaN)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (+Inf)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (-Inf)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (saturated: the largest finite value of the type)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>flat index %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>index %1 along dim %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Workbench for Ascend NPU dump data.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Render the window to FILE (PNG) and exit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select the tensor with this id.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Window size WxH (screenshot mode).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>User interface language (en, zh_CN) for this run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dump directories or files to open.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
