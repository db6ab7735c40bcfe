// The patch reader on its own (shared/shell/patchcommands): which files a patch's text touches, as
// git apply and GNU patch would read it, including texts written to hide a file from a reader that
// looks for headers only. What git apply, git am and patch then decide is commandjudge_test's
// (the corpus) and tests/security/net.mjs's (the real binary).
#include "commandeffects.h"
#include "patchcommands.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign::Shell;

namespace {

// "old -> new" per file ("" for none), with " link" or " renamed" when so.
QStringList files(const QString &text)
{
    QStringList out;
    for (const PatchFile &f : PatchTextReader::parse(text).files)
        out.append(QStringLiteral("%1 -> %2%3%4")
                       .arg(f.oldPath, f.newPath, f.link ? QStringLiteral(" link") : QString(),
                            f.renamed ? QStringLiteral(" renamed") : QString()));
    return out;
}

} // namespace

class PatchCommandsTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void gitDiff_newChangedDeletedAndLinked()
    {
        const QString text = QStringLiteral("diff --git a/src/a.c b/src/a.c\n"
                                            "index 1..2 100644\n"
                                            "--- a/src/a.c\n"
                                            "+++ b/src/a.c\n"
                                            "@@ -1,2 +1,2 @@\n"
                                            " int x;\n"
                                            "-int y;\n"
                                            "+int z;\n"
                                            "diff --git a/new.txt b/new.txt\n"
                                            "new file mode 100644\n"
                                            "--- /dev/null\n"
                                            "+++ b/new.txt\n"
                                            "@@ -0,0 +1 @@\n"
                                            "+hello\n"
                                            "diff --git a/old.txt b/old.txt\n"
                                            "deleted file mode 100644\n"
                                            "--- a/old.txt\n"
                                            "+++ /dev/null\n"
                                            "@@ -1 +0,0 @@\n"
                                            "-bye\n"
                                            "diff --git a/rc b/rc\n"
                                            "new file mode 120000\n"
                                            "--- /dev/null\n"
                                            "+++ b/rc\n"
                                            "@@ -0,0 +1 @@\n"
                                            "+../.bashrc\n"
                                            "\\ No newline at end of file\n");
        QCOMPARE(files(text),
                 (QStringList{"a/src/a.c -> b/src/a.c", " -> b/new.txt", "a/old.txt -> ", " -> b/rc link"}));
        QVERIFY(PatchTextReader::parse(text).unreadable.isEmpty());
    }

    void gitDiff_renameWithNoHunk_andModeOnly()
    {
        const QString text = QStringLiteral("diff --git a/docs/x.md b/.github/workflows/ci.yml\n"
                                            "similarity index 100%\n"
                                            "rename from docs/x.md\n"
                                            "rename to .github/workflows/ci.yml\n"
                                            "diff --git a/run.sh b/run.sh\n"
                                            "old mode 100644\n"
                                            "new mode 100755\n");
        QCOMPARE(files(text),
                 (QStringList{"docs/x.md -> .github/workflows/ci.yml renamed", "a/run.sh -> b/run.sh"}));
    }

    // A hunk's own lines are skipped by its counts: a removed line "-- a/x" and an added "++ b/x"
    // are not headers, and a header right after a hunk is.
    void hunkLines_thatLookLikeHeaders_areNotFiles()
    {
        const QString text = QStringLiteral("--- a/notes.md\n"
                                            "+++ b/notes.md\n"
                                            "@@ -1,2 +1,2 @@\n"
                                            "--- a/.bashrc\n"
                                            "+++ b/.bashrc\n"
                                            " keep\n"
                                            "--- a/.profile\n"
                                            "+++ b/.profile\n"
                                            "@@ -1 +1 @@\n"
                                            "-x\n"
                                            "+y\n");
        QCOMPARE(files(text), (QStringList{"a/notes.md -> b/notes.md", "a/.profile -> b/.profile"}));
    }

    // A hunk whose counts promise more lines than it holds ends at the first line of another form:
    // the header after it is read, not swallowed (git and patch refuse such a patch; reading more
    // files than they would only asks more).
    void lyingCounts_doNotHideTheNextFile()
    {
        const QString text = QStringLiteral("--- a/a.txt\n"
                                            "+++ b/a.txt\n"
                                            "@@ -1,50 +1,50 @@\n"
                                            "-a\n"
                                            "+b\n"
                                            "diff --git a/.git/config b/.git/config\n"
                                            "--- a/.git/config\n"
                                            "+++ b/.git/config\n"
                                            "@@ -1 +1 @@\n"
                                            "-x\n"
                                            "+y\n");
        QCOMPARE(files(text), (QStringList{"a/a.txt -> b/a.txt", "a/.git/config -> b/.git/config"}));
    }

    void mail_forGitAm_readsTheDiffNotTheDiffstat()
    {
        const QString text = QStringLiteral("From 0000 Mon Sep 17 00:00:00 2001\n"
                                            "Subject: [PATCH] x\n"
                                            "\n"
                                            "---\n"
                                            " a.txt | 2 +-\n"
                                            "\n"
                                            "diff --git a/a.txt b/a.txt\n"
                                            "--- a/a.txt\r\n"
                                            "+++ b/a.txt\r\n"
                                            "@@ -1 +1 @@\n"
                                            "-a\n"
                                            "+b\n"
                                            "-- \n"
                                            "2.39.2\n");
        QCOMPARE(files(text), (QStringList{"a/a.txt -> b/a.txt"}));
    }

    void timestampsAndIndexLines()
    {
        const QString text = QStringLiteral("Index: lib/x.c\n"
                                            "--- lib/x.c.orig\t2024-01-01 00:00:00\n"
                                            "+++ lib/x.c\t2024-01-02 00:00:00\n"
                                            "@@ -1 +1 @@\n"
                                            "-a\n"
                                            "+b\n");
        QCOMPARE(files(text), (QStringList{"lib/x.c -> lib/x.c", "lib/x.c.orig -> lib/x.c"}));
    }

    void formsItDoesNotFollow_sayUnreadable()
    {
        QVERIFY(!PatchTextReader::parse(QStringLiteral("diff --git \"a/x\\ty\" \"b/x\\ty\"\n"))
                     .unreadable.isEmpty());
        QVERIFY(!PatchTextReader::parse(QStringLiteral("--- \"a/x\\ty\"\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"))
                     .unreadable.isEmpty());
        QVERIFY(!PatchTextReader::parse(QStringLiteral("*** a.txt\n--- a.txt\n***************\n"))
                     .unreadable.isEmpty());
        QVERIFY(!PatchTextReader::parse(QStringLiteral("1c1\n< a\n---\n> b\n")).unreadable.isEmpty());
        QVERIFY(PatchTextReader::parse(QStringLiteral("just words\n")).files.isEmpty());
    }

    // An attacker's review of the first reader (each one wrote .claude/settings.json, made a link
    // or deleted work past it, with real git 2.39 or GNU patch 2.7): now each is read or refused.
    void attacks_areReadOrRefused()
    {
        using PatchTextReader::Form;
        const QString decoy = QStringLiteral("--- a/README\n+++ b/README\n@@ -1 +1 @@\n-a\n+b\n");
        const auto names = [](const PatchText &p) {
            QStringList out;
            for (const PatchFile &f : p.files)
                out << f.oldPath << f.newPath;
            return out;
        };
        // git's other spelling of a rename.
        const PatchText renamed = PatchTextReader::parse(QStringLiteral(
            "diff --git a/x b/x\nrename old x\nrename new .claude/settings.json\n@@ -1 +1 @@\n-a\n+b\n"));
        QVERIFY(names(renamed).contains(QStringLiteral(".claude/settings.json")));
        // Headers GNU patch finds where a header reader does not look: refused.
        for (const QString &hidden :
             {QStringLiteral(
                  "  --- a/.claude/settings.json\n  +++ b/.claude/settings.json\n@@ -1 +1 @@\n-a\n+b\n"),
              QStringLiteral("X--- a/.claude/settings.json\nX+++ b/.claude/settings.json\n"),
              QStringLiteral("+++ b/.claude/settings.json\n@@ -1 +1 @@\n-a\n+b\n"),
              QStringLiteral("--- a/.claude/settings.json\ntext\n+++ b/.claude/settings.json\n"),
              QStringLiteral("Index:.claude/settings.json\n@@ -1 +1 @@\n-a\n+b\n"),
              QStringLiteral("*** a/.claude/settings.json\nx\n--- b/.claude/settings.json\n"),
              QStringLiteral("1c\n{}\n.\n"), QStringLiteral("1c1 \n< a\n---\n> b\n")})
            QVERIFY2(!PatchTextReader::parse(decoy + hidden, Form::Gnu).unreadable.isEmpty(),
                     qPrintable(hidden));
        // A name GNU patch ends at its first blank: both are judged.
        const PatchText spaced = PatchTextReader::parse(
            QStringLiteral("--- a/CLAUDE.md x\n+++ b/CLAUDE.md x\n@@ -1 +1 @@\n-a\n+b\n"), Form::Gnu);
        QVERIFY2(names(spaced).contains(QStringLiteral("b/CLAUDE.md")), qPrintable(names(spaced).join(", ")));
        // An epoch timestamp is GNU patch's /dev/null: a deletion.
        const PatchText epoch = PatchTextReader::parse(
            QStringLiteral(
                "--- a/notes.txt\n+++ b/notes.txt\t1970-01-01 00:00:00.000000000 +0000\n@@ -1 +0,0 @@\n-x\n"),
            Form::Gnu);
        QCOMPARE(epoch.files.value(0).newPath, QString());
        // A mail git am decodes first, or a series: refused; a hunk header in the message hides nothing.
        QVERIFY(
            !PatchTextReader::parse(QStringLiteral("From x\nContent-Transfer-Encoding: quoted-printable\n\n"
                                                   "diff --git a/=2Eclaude/s b/=2Eclaude/s\n"),
                                    Form::Mail)
                 .unreadable.isEmpty());
        QVERIFY(!PatchTextReader::parse(
                     QStringLiteral("# This series applies on GIT commit 0\n--- a/README\n"), Form::Mail)
                     .unreadable.isEmpty());
        const PatchText message = PatchTextReader::parse(
            QStringLiteral(
                "From 0 Mon Sep 17 00:00:00 2001\nSubject: x\n\n@@ -1 +1 @@\n--- a/.claude/settings.json\n"
                "+++ b/.claude/settings.json\n@@ -1 +1 @@\n-a\n+b\n"),
            Form::Mail);
        QVERIFY2(names(message).contains(QStringLiteral("b/.claude/settings.json")),
                 qPrintable(message.unreadable));
        // A link's mode however it is spelled; a submodule's is refused.
        for (const char *mode : {"120000", "0120000", "120777"}) {
            const PatchText link = PatchTextReader::parse(
                QStringLiteral(
                    "diff --git a/l b/l\nnew file mode %1\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/home\n")
                    .arg(QLatin1String(mode)));
            QVERIFY2(link.files.value(0).link, mode);
        }
        QVERIFY(!PatchTextReader::parse(QStringLiteral("diff --git a/m b/m\nnew file mode 160000\n"))
                     .unreadable.isEmpty());
    }

    // Through the reader: a here-document patch is read where it stands; patch with no -p judges
    // every tail of a name; -R turns a new file into a deletion.
    void throughTheReader_hereDocumentAndStrips()
    {
        QTemporaryDir dir;
        const QString ws = dir.path();
        const auto kinds = [&ws](const QString &line) {
            QStringList out;
            for (const Effect &e : CommandEffects::ofLine(line, {ws, QStringLiteral("/home/u")})) {
                QString path = e.path.startsWith(ws + QLatin1Char('/')) ? e.path.mid(ws.size() + 1) : e.path;
                out.append(CommandEffects::kindName(e.kind) + QLatin1Char(' ') + path);
            }
            return out;
        };
        const QStringList applied = kinds(
            QStringLiteral("git apply <<'EOF'\n--- a/x/y.txt\n+++ b/x/y.txt\n@@ -1 +1 @@\n-a\n+b\nEOF"));
        QVERIFY2(applied.contains(QStringLiteral("writes x/y.txt")), qPrintable(applied.join(", ")));
        const QStringList patched =
            kinds(QStringLiteral("patch <<'EOF'\n--- a/x/y.txt\n+++ b/x/y.txt\n@@ -1 +1 @@\n-a\n+b\nEOF"));
        for (const char *tail : {"writes a/x/y.txt", "writes x/y.txt", "writes y.txt", "writes b/x/y.txt"})
            QVERIFY2(patched.contains(QLatin1String(tail)), qPrintable(patched.join(", ")));
        const QStringList reversed =
            kinds(QStringLiteral("git apply -R <<'EOF'\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+a\nEOF"));
        QVERIFY2(reversed.contains(QStringLiteral("deletes n.txt")), qPrintable(reversed.join(", ")));
        QVERIFY(kinds(QStringLiteral("cat p | git apply")).contains(QStringLiteral("unknown ")));
    }
};

QTEST_GUILESS_MAIN(PatchCommandsTest)
#include "patchcommands_test.moc"
