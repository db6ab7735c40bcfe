#pragma once

#include "config.h"

#include <QElapsedTimer>
#include <QFileSystemWatcher>
#include <QObject>
#include <QTimer>

namespace Countersign {

// Watches the configuration file and reloads it when it changes. A file that does not parse is
// refused (rejected() carries file:line: reason) and the last good configuration stays in force.
// Watched from the start whether or not it exists: the file itself when it is there, its folder
// (or, while that does not exist, the nearest folder above it that does) and the folder above
// that, so a file created later, a file replaced by an editor's save, a folder made since the
// start and a renamed folder are all seen. The watch is set again after each change.
class ConfigWatcher final : public QObject
{
    Q_OBJECT
public:
    ConfigWatcher(QString path, Config current, QObject *parent = nullptr);
    Q_DISABLE_COPY_MOVE(ConfigWatcher)

    // The last configuration read from the file; ConfigGuard decides whether it is in force.
    const Config &current() const { return m_current; }

public Q_SLOTS:
    // Reads the file now, as a change would (nothing when its text is the one last read): for a
    // write Countersign made itself, read at once rather than after the watch's settling time.
    void checkNow();

Q_SIGNALS:
    void reloaded(const Countersign::Config &config);
    void rejected(const QString &reason);

private:
    static constexpr int kMaxWaitMs = 2000;

    void reload();
    // A watched file or folder changed: read after the settling time (putOff: the read may wait
    // longer when more writes follow).
    void changed(bool putOff);
    // Watches what the class comment says, for the file and folders as they are now.
    void arm();

    QString m_path;
    Config m_current;
    QByteArray m_lastText;
    QFileSystemWatcher m_watcher;
    QTimer m_debounce;
    QElapsedTimer m_waiting; // since the first change the next read is for
};

} // namespace Countersign
