#pragma once

#include <QObject>
#include <QString>

class QThread;

namespace Countersign {

// A worker that reads the store on a thread of its own, so that a view never blocks the window
// (the audit view's, the Declines view's): the thread starts with it; stop(), or the end of the
// ReaderThread, quits the thread and waits for it, and the worker is deleted on that thread,
// where its database connection was opened.
class ReaderThread final
{
public:
    // Takes worker (no parent) and moves it to a new thread named name, owned by owner.
    ReaderThread(QObject *worker, const QString &name, QObject *owner);
    ~ReaderThread();
    Q_DISABLE_COPY_MOVE(ReaderThread)

private:
    QThread *m_thread = nullptr;
};

} // namespace Countersign
