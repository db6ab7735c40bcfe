#include "readerthread.h"

#include <QThread>

namespace Countersign {

ReaderThread::ReaderThread(QObject *worker, const QString &name, QObject *owner)
    : m_thread(new QThread(owner))
{
    m_thread->setObjectName(name);
    worker->moveToThread(m_thread);
    QObject::connect(m_thread, &QThread::finished, worker, &QObject::deleteLater);
    m_thread->start();
}

ReaderThread::~ReaderThread()
{
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
}

} // namespace Countersign
