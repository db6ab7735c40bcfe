// Claude Code's session record read back (ClaudeSessionRecord): the user's latest request, from a
// record the real Claude Code 2.1.328 wrote in tests/agents (claude-code-2.1.328.jsonl, its long
// texts trimmed and its folders renamed), and from records an attacker or a crash shaped; and which
// paths may be read as a session's record at all. Which targets a request never named
// (RequestNames): the ~/.pi story and the spellings it resolves.
#include "claudesessionrecord.h"
#include "requestnames.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Countersign;

namespace {

bool write(const QString &path, const QByteArray &text)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

QByteArray userLine(const char *content)
{
    return QByteArray(R"({"type":"user","message":{"role":"user","content":)") + content + "}}\n";
}

} // namespace

class ClaudeSessionRecordTest final : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_sample = QFINDTESTDATA("claude-code-2.1.328.jsonl");

    QByteArray sample()
    {
        QFile file(m_sample);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }
    QString requestOf(const QByteArray &text, qint64 maxBytes = 8 << 20, bool *partial = nullptr)
    {
        const QString path = m_dir.filePath(QStringLiteral("record.jsonl"));
        if (!write(path, text))
            return QStringLiteral("(not written)");
        const auto read = ClaudeSessionRecord::lastRequest(path, maxBytes);
        if (!read)
            return QStringLiteral("(failed: %1)").arg(read.error());
        if (partial)
            *partial = read.value().partial;
        return read.value().text;
    }

private Q_SLOTS:
    // The real record: its one request, not the tool's result that came after it.
    void theRealRecord_givesItsRequest()
    {
        QVERIFY(!sample().isEmpty());
        QCOMPARE(requestOf(sample()), QStringLiteral("List the folder."));
    }
    // A later request in the same session is the one read; text blocks are joined; the client's
    // own lines (isMeta), tool results and other lines are passed over.
    void theLatestRequest_isRead()
    {
        QByteArray text = sample();
        text += userLine(
            R"([{"type":"text","text":"remove the symlink"},{"type":"text","text":"~/.pi/agent/sessions"}])");
        text +=
            R"({"type":"user","isMeta":true,"message":{"role":"user","content":"<local-command-stdout>x</local-command-stdout>"}})"
            "\n";
        text +=
            R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"done"}]},"toolUseResult":{}})"
            "\n";
        text +=
            R"({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}})"
            "\n";
        QCOMPARE(requestOf(text), QStringLiteral("remove the symlink\n~/.pi/agent/sessions"));
    }
    // Damage is passed over, never fatal: lines that are not JSON, cut off, of another shape, or
    // a request line written over a megabyte long.
    void damagedLines_arePassedOver()
    {
        QByteArray text = userLine(R"("first request")");
        text += "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"cut\n";
        text += "not json at all\n";
        text += R"({"type":"user","message":"a string"})"
                "\n";
        text += R"({"type":"user","message":{"role":"assistant","content":"not the user's"}})"
                "\n";
        text += userLine(("\"" + QByteArray(2 * 1024 * 1024, 'x') + "\"").constData());
        text += "\xff\xfe\x00garbage";
        QCOMPARE(requestOf(text), QStringLiteral("first request"));
        QCOMPARE(requestOf(QByteArray()), QString());
        QCOMPARE(requestOf("\n\n\n"), QString());
    }
    // Bounded: only the last maxBytes are read; a request before them is not found, and the read
    // says it stopped early. The last-prompt line stands in when no request line is within reach.
    void theRead_isBounded()
    {
        QByteArray text = userLine(R"("far back")");
        text += QByteArray(200 * 1024, '\n');
        bool partial = false;
        QCOMPARE(requestOf(text, 64 * 1024, &partial), QString());
        QVERIFY(partial);
        text += R"({"type":"last-prompt","lastPrompt":"far back, as the client keeps it"})"
                "\n";
        QCOMPARE(requestOf(text, 64 * 1024, &partial), QStringLiteral("far back, as the client keeps it"));
        QCOMPARE(requestOf(text, 8 << 20, &partial), QStringLiteral("far back"));
        QVERIFY(!partial);
    }
    // What is not a regular file reached directly is refused when it is opened, not only when it is
    // checked: a link or a pipe swapped in between (a pipe would otherwise block the reader).
    void aMissingRecord_aLinkOrAPipe_isAnError()
    {
        QVERIFY(!ClaudeSessionRecord::lastRequest(m_dir.filePath(QStringLiteral("none.jsonl"))).ok());
        const QString target = m_dir.filePath(QStringLiteral("target.jsonl"));
        QVERIFY(write(target, userLine(R"("secret")")));
        const QString link = m_dir.filePath(QStringLiteral("link.jsonl"));
        QVERIFY(QFile::link(target, link));
        QVERIFY(!ClaudeSessionRecord::lastRequest(link).ok());
        const QString pipe = m_dir.filePath(QStringLiteral("pipe.jsonl"));
        QCOMPARE(::mkfifo(QFile::encodeName(pipe).constData(), 0600), 0);
        QVERIFY(!ClaudeSessionRecord::lastRequest(pipe).ok());
    }

    // Only a record of this very session, in a projects folder under .claude, reached through no
    // link, is read: a payload cannot point the console at another file.
    void onlyTheSessionsOwnRecord_mayBeRead()
    {
        const QString projects = m_dir.filePath(QStringLiteral("home/.claude/projects/-work"));
        const QString good = projects + QStringLiteral("/s-1.jsonl");
        QVERIFY(write(good, userLine(R"("x")")));
        QVERIFY(ClaudeSessionRecord::checkPath(good, QStringLiteral("s-1")).ok());
        const auto refused = [](const QString &path, const QString &session) {
            return !ClaudeSessionRecord::checkPath(path, session).ok();
        };
        QVERIFY(refused(good, QStringLiteral("s-2")));    // another session's name
        QVERIFY(refused(good, QStringLiteral("../s-1"))); // not a session id
        QVERIFY(refused(good, QString()));
        QVERIFY(refused(QStringLiteral("home/.claude/projects/-work/s-1.jsonl"),
                        QStringLiteral("s-1"))); // relative
        QVERIFY(refused(projects + QStringLiteral("/../-work/s-1.jsonl"), QStringLiteral("s-1")));
        const QString elsewhere = m_dir.filePath(QStringLiteral("home/notes/-work/s-1.jsonl"));
        QVERIFY(write(elsewhere, userLine(R"("x")")));
        QVERIFY(refused(elsewhere, QStringLiteral("s-1")));
        const QString linked = projects + QStringLiteral("/s-3.jsonl");
        QVERIFY(QFile::link(elsewhere, linked));
        QVERIFY(refused(linked, QStringLiteral("s-3")));
        const QString linkedFolder = m_dir.filePath(QStringLiteral("home/.claude/projects/-other"));
        QVERIFY(QFile::link(m_dir.filePath(QStringLiteral("home/notes/-work")), linkedFolder));
        QVERIFY(refused(linkedFolder + QStringLiteral("/s-1.jsonl"), QStringLiteral("s-1")));
        QVERIFY(QDir().mkpath(projects + QStringLiteral("/s-4.jsonl")));
        QVERIFY(refused(projects + QStringLiteral("/s-4.jsonl"), QStringLiteral("s-4"))); // a folder
    }

    // Asked to remove a symlink, the agent deletes its parent: the parent is marked.
    void theParentOfANamedPath_isUnnamed()
    {
        const QString request = QStringLiteral("remove the symlink ~/.pi/agent/sessions, please.");
        QCOMPARE(RequestNames::unnamed(request, {QStringLiteral("/home/u/.pi")}, QStringLiteral("/home/u/ws"),
                                       QStringLiteral("/home/u")),
                 QStringList{QStringLiteral("~/.pi")});
        QCOMPARE(RequestNames::unnamed(request, {QStringLiteral("/home/u/.pi/agent/sessions")},
                                       QStringLiteral("/home/u/ws"), QStringLiteral("/home/u")),
                 QStringList());
    }
    // A path inside a named folder is named; so is one named relative to the call's folder, by
    // its absolute path, or by its file name alone.
    void theSpellings_resolved()
    {
        const QString cwd = QStringLiteral("/home/u/ws");
        const QString home = QStringLiteral("/home/u");
        QCOMPARE(RequestNames::unnamed(QStringLiteral("clean out `build/` and /tmp/cache"),
                                       {QStringLiteral("/home/u/ws/build/a.o"),
                                        QStringLiteral("/tmp/cache/x"), QStringLiteral("/home/u/ws/src")},
                                       cwd, home),
                 QStringList{QStringLiteral("~/ws/src")});
        QCOMPARE(RequestNames::unnamed(QStringLiteral("delete old.log"),
                                       {QStringLiteral("/home/u/ws/logs/old.log")}, cwd, home),
                 QStringList());
        QCOMPARE(
            RequestNames::unnamed(QStringLiteral("fix the tests"), {QStringLiteral("/etc/hosts")}, cwd, home),
            QStringList{QStringLiteral("/etc/hosts")});
        QCOMPARE(RequestNames::unnamed(QString(), {}, cwd, home), QStringList());
    }
    // The request as a card shows it: one line of visible text, cut with an ellipsis.
    void theRequest_isShownAsOneLineOfText()
    {
        QCOMPARE(RequestNames::shown(QStringLiteral("line one\n\tline <b>two</b>")),
                 QStringLiteral("line one line <b>two</b>"));
        const QString cut = RequestNames::shown(QString(500, QLatin1Char('a')), 300);
        QCOMPARE(cut.size(), 300);
        QVERIFY(cut.endsWith(QChar(0x2026)));
        QVERIFY(!RequestNames::shown(QStringLiteral("a\u202Eb\u200Bc")).contains(QChar(0x202E)));
    }
};

QTEST_GUILESS_MAIN(ClaudeSessionRecordTest)
#include "claudesessionrecord_test.moc"
