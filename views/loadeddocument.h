#pragma once
// A document a panel reads in the background (the Monitor and Precheck tabs): the reading runs on
// backgroundPool() at background priority, and the panel's QFutureWatcher<LoadedDocument<Doc>>
// commits the document, or shows the error, on the GUI thread.

#include "background.h"

#include <QString>
#include <QtConcurrentRun>
#include <memory>

namespace ds {

template <typename Doc>
struct LoadedDocument
{
    std::shared_ptr<const Doc> doc; ///< null when reading failed
    QString error;                  ///< why it failed, in words
};

/// Runs `read()`, which returns a Result<Doc>, on backgroundPool() at background priority.
template <typename Doc, typename Read>
QFuture<LoadedDocument<Doc>> readInBackground(Read read)
{
    return QtConcurrent::run(backgroundPool(), [read = std::move(read)] {
        const BackgroundPriority background;
        LoadedDocument<Doc> out;
        auto doc = read();
        if (doc)
            out.doc = std::make_shared<const Doc>(std::move(*doc));
        else
            out.error = doc.errorText();
        return out;
    });
}

} // namespace ds
