#include "consolestack.h"

#include "serverkeys.h"
#include "ticketsealer.h"

#include <QTest>

namespace Countersign {

ConsoleStack::ConsoleStack(const Clock &clock) : m_clock(clock) {}

ConsoleStack::~ConsoleStack()
{
    m_window.reset();
    m_server.reset();
    m_queue.reset();
    m_tokens.reset();
    m_store.reset();
    m_db.reset();
}

Status ConsoleStack::open(const QString &path, bool addTester)
{
    auto db = Database::open(path);
    if (!db)
        return failure(db.error());
    m_path = path;
    m_db = std::move(db).value();
    m_store = std::make_unique<AuditStore>(*m_db, m_clock, &m_signer);
    m_tokens = std::make_unique<TokenStore>(*m_db, m_clock);
    m_queue = std::make_unique<ApprovalQueue>(*m_store, m_clock);
    if (!addTester)
        return success();
    auto token = m_tokens->add(QStringLiteral("tester"), QStringLiteral("tester"));
    if (!token)
        return failure(token.error());
    const auto tester = m_tokens->authenticate(token.value().toLatin1());
    if (!tester)
        return failure(QStringLiteral("the tester's token is not taken"));
    m_tester = *tester;
    return success();
}

Status ConsoleStack::startServer(Config config, const QString &keyId)
{
    if (!m_db || m_path == QLatin1String(":memory:"))
        return failure(QStringLiteral("the server needs a database file, opened first"));
    config.overrideListen(QStringLiteral("127.0.0.1"), 0);
    ServerKeys keys;
    keys.ticketKey = TicketSealer::generateKey();
    keys.kid = keyId;
    keys.signingSeed = signingSeed();
    m_server =
        std::make_unique<McpServer>(McpServer::Setup{config, m_path, keys, &m_clock, {}, {}, {}, {}, {}, {}});
    if (auto started = m_server->start(); !started)
        return failure(started.error());
    return success();
}

Status ConsoleStack::showWindow(QSize size)
{
    if (!m_queue)
        return failure(QStringLiteral("the window needs the store, opened first"));
    m_window = std::make_unique<MainWindow>(
        MainWindow::Services{*m_queue, m_clock, *m_store, *m_tokens, m_db->connectionName()});
    if (size.isValid())
        m_window->resize(size);
    m_window->show();
    if (!QTest::qWaitForWindowExposed(m_window.get()))
        return failure(QStringLiteral("the window was not shown"));
    // Activation restarts a card's minimum time: it happens before the tests count.
    m_window->activateWindow();
    if (!QTest::qWaitForWindowActive(m_window.get()))
        return failure(QStringLiteral("the window did not become active"));
    return success();
}

} // namespace Countersign
