#pragma once

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace Countersign {

// What the tripwire guards (docs/threat-model.md, "The tripwire"): the files whose change steers the
// next session, runs code later or opens the machine, whatever wrote them. Each place is a file
// (watched whether it exists or not, so that one created is seen) or a folder whose files down to
// a depth are (those whose names match, when a pattern is given). Under the home folder: each
// agent's settings, hooks and instructions, the shell's start-up files, ~/.ssh, git's own
// configuration; Countersign's configuration file and keys. In each workspace root: .git/config,
// .git/hooks and the folder core.hooksPath names, CI definitions, the files agents read as
// instructions (and the files CLAUDE.md, AGENTS.md and GEMINI.md import with @path), .envrc* and
// .env*, editor tasks and workspaces, a virtual environment's start-up files (*.pth), wrapper jars
// and vendored release scripts.
class ProtectedSet final
{
public:
    struct Place final
    {
        QString path;      // absolute
        QString what;      // in words, for the alarm ("a shell start-up file")
        int depth = -1;    // -1: a file; 0 or more: a folder, its files down to this many folders below
        QStringList names; // a folder's: the file names watched (wildcards); empty: all
    };

    ProtectedSet() = default;
    // home: the user's home folder; roots: the workspace roots; files: more files to guard (the
    // agents' hook settings from the hook roster, Countersign's configuration file).
    static ProtectedSet standard(const QString &home, const QStringList &roots, const QStringList &files);

    void add(Place place) { m_places.append(std::move(place)); }
    const QList<Place> &places() const { return m_places; }

    // Every file the places name now (path -> what it is, in words): the files that exist in the
    // folders, and each named file whether it exists or not. At most kMaxFiles, the first found
    // (a folder's files in name order), so that a folder an agent fills cannot slow every call.
    static constexpr int kMaxFiles = 4096;
    static constexpr int kMaxFilesPerFolder = 512;
    QMap<QString, QString> files() const;

private:
    QList<Place> m_places;
    // Read each time the files are listed: core.hooksPath (the roots' and the home folder's git
    // configuration) and the instruction files' imports.
    QStringList m_roots;
    QString m_home;
};

} // namespace Countersign
