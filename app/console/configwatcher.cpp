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
    : QObject(parent), m_path(std::move(path)), m_current(std::move(current)),
      m_lastText(m_current.sourceText())
{
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(250); // an editor's save is often several writes
    connect(&m_debounce, &QTimer::timeout, this, &ConfigWatcher::reload);
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, [this] { changed(true); });
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, [this](const QString &folder) {
        // The folders above may be busy (~/.config, /tmp): their changes never put a read off.
        changed(folder == QFileInfo(m_path).absolutePath());
    });
    arm();
    // Read once the event loop runs: a change between the first read (current) and this watch
    // would otherwise never be seen.
    QTimer::singleShot(0, this, &ConfigWatcher::reload);
}

void ConfigWatcher::changed(bool putOff)
{
    // An editor's save is often several writes: each puts the read off, but never for longer than
    // kMaxWaitMs after the first, however often the file is written.
    if (!m_debounce.isActive()) {
        m_waiting.start();
        m_debounce.start();
    } else if (putOff && m_waiting.elapsed() < kMaxWaitMs) {
        m_debounce.start();
    }
}

void ConfigWatcher::arm()
{
    const QFileInfo file(m_path);
    QStringList wanted;
    if (file.exists())
        wanted.append(file.absoluteFilePath());
    QString folder = file.absolutePath();
    while (!QFileInfo(folder).isDir() && QFileInfo(folder).path() != folder)
        folder = QFileInfo(folder).path();
    wanted.append(folder);
    if (const QString above = QFileInfo(folder).path(); above != folder)
        wanted.append(above); // a rename of the folder itself shows here
    const QStringList watched = m_watcher.files() + m_watcher.directories();
    QStringList gone;
    for (const QString &path : watched) {
        if (!wanted.contains(path))
            gone.append(path);
    }
    if (!gone.isEmpty())
        m_watcher.removePaths(gone);
    QStringList added;
    for (const QString &path : wanted) {
        if (!watched.contains(path))
            added.append(path); // a file replaced by a save was dropped from the watch: added again
    }
    if (!added.isEmpty())
        m_watcher.addPaths(added);
}

void ConfigWatcher::checkNow()
{
    m_debounce.stop();
    reload();
}

void ConfigWatcher::reload()
{
    arm(); // before the read: a change after it is seen
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
