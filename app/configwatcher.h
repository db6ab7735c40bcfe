#pragma once

#include "config.h"

#include <QFileSystemWatcher>
#include <QObject>
#include <QTimer>

namespace Countersign {

// Watches the configuration file and reloads it when it changes. A file that does not parse is
// refused (rejected() carries file:line: reason) and the last good configuration stays in force.
// Editors that save by replacing the file are handled by watching the folder too.
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
    // write Countersign made itself, which a folder created since the start is not watched for.
    void checkNow();

Q_SIGNALS:
    void reloaded(const Countersign::Config &config);
    void rejected(const QString &reason);

private:
    void reload();

    QString m_path;
    Config m_current;
    QByteArray m_lastText;
    QFileSystemWatcher m_watcher;
    QTimer m_debounce;
};

} // namespace Countersign
