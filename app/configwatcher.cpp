#include "configwatcher.h"

#include <QFile>
#include <QFileInfo>

namespace Countersign {

namespace {
QByteArray contents(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.read(4 * 1024 * 1024 + 1) : QByteArray();
}
} // namespace

ConfigWatcher::ConfigWatcher(QString path, Config current, QObject *parent)
    : QObject(parent), m_path(std::move(path)), m_current(std::move(current)), m_lastText(contents(m_path))
{
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(250); // an editor's save is often several writes
    connect(&m_debounce, &QTimer::timeout, this, &ConfigWatcher::reload);
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, &m_debounce, qOverload<>(&QTimer::start));
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, &m_debounce, qOverload<>(&QTimer::start));
    const QString dir = QFileInfo(m_path).absolutePath();
    if (QFileInfo::exists(dir))
        m_watcher.addPath(dir);
    if (QFileInfo::exists(m_path))
        m_watcher.addPath(m_path);
}

void ConfigWatcher::checkNow()
{
    m_debounce.stop();
    if (const QString dir = QFileInfo(m_path).absolutePath();
        QFileInfo::exists(dir) && !m_watcher.directories().contains(dir))
        m_watcher.addPath(dir); // made since the start: watched from now on
    reload();
}

void ConfigWatcher::reload()
{
    if (QFileInfo::exists(m_path) && !m_watcher.files().contains(m_path))
        m_watcher.addPath(m_path); // replaced or created: watch the new file
    const QByteArray text = contents(m_path);
    if (text == m_lastText)
        return;
    m_lastText = text;
    auto loaded = Config::load(m_path);
    if (!loaded) {
        Q_EMIT rejected(QStringLiteral("%1; the previous configuration stays in force").arg(loaded.error()));
        return;
    }
    m_current = std::move(loaded).value();
    Q_EMIT reloaded(m_current);
}

} // namespace Countersign
