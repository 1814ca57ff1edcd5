#pragma once

#include <QJsonArray>
#include <QString>

namespace ds {

/// The msprobe graph databases (.vis.db) at PATH for `dumpscope-cli graph`: JSON entries
/// `{"file", "graph_type", "task", "overflow_check", "steps", "ranks", "graphs": [{"source",
/// "step", "rank", "nodes", "levels": {...}}]}` (or `{"file", "error"}`) and the same as text.
/// `levels` counts nodes per precision level ("pass", "warning", "error", "unmatched") in
/// compare databases and per overflow level ("critical", "high", "medium") in build databases.
struct VisDbSection
{
    QJsonArray json;
    QString text;
    int readable = 0;
};
VisDbSection visDbSection(const QString &path, const QString &root);

} // namespace ds
