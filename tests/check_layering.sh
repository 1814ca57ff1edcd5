#!/usr/bin/env bash
# core/ must stay GUI-free: no widgets, no painting, no QCustomPlot, and its folders must not
# include each other in a cycle (docs/ARCHITECTURE.md).
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../core" || exit 2
bad=$(grep -rnE '#include *[<"](QtWidgets|QWidget|QMainWindow|QDialog|QPainter|QtGui/|qcustomplot\.h)' . || true)
if [ -n "$bad" ]; then
  echo "core/ includes GUI headers:"; echo "$bad"; exit 1
fi
if grep -vE '^\s*#' CMakeLists.txt | grep -nE 'Qt6::(Widgets|Gui|PrintSupport)|QCustomPlot'; then
  echo "core/CMakeLists.txt links GUI libraries"; exit 1
fi
echo "layering ok: core/ has no GUI dependency"
# ... and its folders include each other in one direction only (no cycles).
python3 "$here/check_include_graph.py" || exit 1
