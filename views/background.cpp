#include "background.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThread>
#include <QThreadPool>

namespace ds {

QThreadPool *backgroundPool()
{
    static QPointer<QThreadPool> pool; // goes with the application object
    if (!pool) {
        pool = new QThreadPool(QCoreApplication::instance());
        pool->setObjectName(QStringLiteral("DumpScopeJobs"));
        pool->setMaxThreadCount(std::max(4, 2 * QThread::idealThreadCount()));
    }
    return pool;
}

} // namespace ds
