#pragma once

// The fixture the real binary's tests share (cli_test, clistdio_test): running it, its data folder per
// test, tokens, the console a stdio bridge started (stopped after each test).
#include "config.h"
#include "jsoncompare.h"
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLocalSocket>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <unistd.h>

using json = nlohmann::json;

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run run(const QStringList &args, const QByteArray &input = {},
        const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(COUNTERSIGN_BINARY), args);
    p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(20000))
        p.kill();
    return Run{p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

// The environment an IDE gives `countersign --stdio`: its connection's token in COUNTERSIGN_TOKEN.
QProcessEnvironment withToken(const QByteArray &token)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("COUNTERSIGN_TOKEN"), QString::fromLatin1(token));
    return env;
}

const char *kEnvelope =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})";

json envelope()
{
    return {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
            {"io.modelcontextprotocol/clientCapabilities", {{"elicitation", {{"form", json::object()}}}}}};
}

QByteArray toolCall(int id, const char *tool, const json &arguments, const json &more = json::object())
{
    json params = {{"name", tool}, {"arguments", arguments}, {"_meta", envelope()}};
    params.update(more);
    return QByteArray::fromStdString(
               json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", params}}.dump()) +
           '\n';
}

QByteArray rpc(int id, const char *method)
{
    return QStringLiteral(R"({"jsonrpc":"2.0","id":%1,"method":"%2","params":{%3}})")
        .arg(id)
        .arg(QLatin1String(method), QLatin1String(kEnvelope))
        .toUtf8();
}

class CliFixture
{
protected:
    QTemporaryDir m_dir;
    int m_test = 0;
    QString m_dataDir;
    // Each test (and each row) has a data folder of its own, so each stdio test has its console.
    QString dataDir() const { return m_dataDir; }
    // A new connection in the data folder; its token.
    QByteArray addToken(const QString &name) const
    {
        const Run added = run(
            {QStringLiteral("token"), QStringLiteral("add"), name, QStringLiteral("--data-dir"), dataDir()});
        return added.exitCode == 0 ? added.out.trimmed() : QByteArray();
    }
    QStringList stdioArgs(const QString &config = QStringLiteral("none.json")) const
    {
        return {QStringLiteral("--stdio"),    QStringLiteral("--data-dir"), dataDir(),
                QStringLiteral("--config"),   m_dir.filePath(config),       QStringLiteral("--listen"),
                QStringLiteral("127.0.0.1:0")};
    }
    // The pid of the console that holds the data folder (its lock file's first line); 0 when none.
    qint64 consolePid() const
    {
        QFile lock(QDir(dataDir()).filePath(QStringLiteral("console.lock")));
        if (!lock.open(QIODevice::ReadOnly))
            return 0;
        const qint64 pid = lock.readLine().trimmed().toLongLong();
        return pid > 0 && ::kill(pid_t(pid), 0) == 0 ? pid : 0;
    }
    void writeFile(const QString &name, const QByteArray &text) const
    {
        QFile f(m_dir.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(f.write(text), text.size());
    }

    void setUp() { m_dataDir = m_dir.filePath(QStringLiteral("data-%1").arg(++m_test)); }
    // A console a stdio bridge started outlives the bridge, as it does for a user: stopped here.
    void tearDown()
    {
        if (const qint64 pid = consolePid()) {
            ::kill(pid_t(pid), SIGTERM);
            QTRY_VERIFY_WITH_TIMEOUT(::kill(pid_t(pid), 0) != 0, 10000);
        }
    }
};
