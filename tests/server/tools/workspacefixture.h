#pragma once
// The workspace tools' test fixture: a real git repository made with libgit2 in a temporary
// folder, the real gate over an in-memory store, the tools registered on it (with a snapshot store
// for an undo, when asked), and the steps a test takes: call a tool, get its card, approve and
// retry. Shared by workspacetools_test and workspaceundo_test.
#include "approvalqueue.h"
#include "auditstore.h"
#include "commandrunner.h"
#include "fakeclock.h"
#include "gate.h"
#include "gatestack.h"
#include "helperfailure.h"
#include "jsonrpc.h"
#include "snapshotstore.h"
#include "tool.h"
#include "toolregistry.h"
#include "workspace.h"
#include "workspacetools.h"

#include <git2.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;

class WorkspaceFixture
{
protected:
    using json = nlohmann::json;
    QTemporaryDir m_dir;
    QString m_root;
    FakeClock m_clock;
    std::unique_ptr<GateStack> m_stack;
    AuditStore *m_store = nullptr;
    Gate *m_gate = nullptr;
    ApprovalQueue *m_queue = nullptr;
    std::unique_ptr<CommandRunner> m_runner;
    std::shared_ptr<SnapshotStore> m_snapshots; // setUp(true): where a change keeps its undo
    ToolRegistry m_tools;

    QString path(const QString &rel) const { return m_root + QLatin1Char('/') + rel; }
    [[nodiscard]] bool write(const QString &rel, const QByteArray &bytes)
    {
        QDir().mkpath(QFileInfo(path(rel)).absolutePath());
        QFile f(path(rel));
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            return helperFailed(QStringLiteral("cannot write %1: %2").arg(rel, f.errorString()));
        return true;
    }
    QByteArray read(const QString &rel) const
    {
        QFile f(path(rel));
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
    }
    // git init, add everything, commit (libgit2, so no git binary is needed).
    void commitAll()
    {
        git_libgit2_init();
        git_repository *repo = nullptr;
        QVERIFY(git_repository_init(&repo, QFile::encodeName(m_root).constData(), 0) == 0);
        git_index *index = nullptr;
        QVERIFY(git_repository_index(&index, repo) == 0);
        QVERIFY(git_index_add_all(index, nullptr, 0, nullptr, nullptr) == 0);
        QVERIFY(git_index_write(index) == 0);
        git_oid tree_id, commit_id;
        QVERIFY(git_index_write_tree(&tree_id, index) == 0);
        git_tree *tree = nullptr;
        QVERIFY(git_tree_lookup(&tree, repo, &tree_id) == 0);
        git_signature *sig = nullptr;
        QVERIFY(git_signature_now(&sig, "Test", "test@example.com") == 0);
        QVERIFY(git_commit_create_v(&commit_id, repo, "HEAD", sig, sig, nullptr, "init", tree, 0) == 0);
        git_signature_free(sig);
        git_tree_free(tree);
        git_index_free(index);
        git_repository_free(repo);
    }
    ToolReply call(const char *tool, const json &params)
    {
        McpRequest request;
        request.id = 1;
        request.method = QStringLiteral("tools/call");
        request.params = params;
        request.params["name"] = tool;
        request.envelope.protocolVersion = QLatin1String(JsonRpc::kProtocolVersion);
        const CallContext context{Principal{1, QStringLiteral("agent"), {}}, Transport::Http};
        const json arguments = params.value("arguments", json::object());
        std::optional<ToolReply> out;
        m_tools.find(QLatin1String(tool))
            ->call(ToolCall{arguments, request.params, request, context},
                   [&out](ToolReply r) { out = std::move(r); });
        if (!QTest::qWaitFor([&] { return out.has_value(); }, 10000))
            return ProtocolError{0, QStringLiteral("no answer from %1").arg(QLatin1String(tool)), {}};
        return std::move(*out);
    }
    // The reply as a result; a protocol error (or no answer) fails the test.
    [[nodiscard]] static bool asResult(const ToolReply &r, json &out)
    {
        if (!std::holds_alternative<json>(r))
            return helperFailed(QStringLiteral("protocol error: %1").arg(std::get<ProtocolError>(r).message));
        out = std::get<json>(r);
        return true;
    }
    // The first text block, or a description of what came instead (never throws).
    static QString text(const json &r)
    {
        const json t = r.is_object() && r.contains("content") && r["content"].is_array() &&
                               !r["content"].empty() && r["content"][0].is_object()
                           ? r["content"][0].value("text", json())
                           : json();
        return t.is_string()
                   ? QString::fromStdString(t.get<std::string>())
                   : QStringLiteral("(no text content in %1)").arg(QString::fromStdString(r.dump()));
    }
    // First pass: must park a card; gives its requestState and the card.
    [[nodiscard]] bool ask(const char *tool, const json &arguments, std::string *state, Operation *card)
    {
        json r;
        if (!asResult(call(tool, {{"arguments", arguments}}), r))
            return false;
        if (r.value("resultType", "") != "input_required" || !r.contains("requestState") ||
            !r["requestState"].is_string() || m_queue->pending().isEmpty())
            return helperFailed(QStringLiteral("%1 did not ask: %2")
                                    .arg(QLatin1String(tool), QString::fromStdString(r.dump())));
        *state = r["requestState"].get<std::string>();
        *card = m_queue->pending().first();
        return true;
    }
    [[nodiscard]] bool approveAndRetry(const char *tool, const json &arguments, const std::string &state,
                                       const Operation &card, json &out)
    {
        const auto approved =
            m_queue->approve(card.nonce, QStringLiteral("console:alice"), card.confirmationText());
        if (!approved)
            return helperFailed(QStringLiteral("approve failed: %1").arg(approved.error()));
        return asResult(call(tool, {{"arguments", arguments}, {"requestState", state}}), out);
    }
    // A refusal before any card: isError, and the queue stays empty.
    void verifyRefused(const char *tool, const json &arguments, const char *why)
    {
        json r;
        QVERIFY(asResult(call(tool, {{"arguments", arguments}}), r));
        QVERIFY2(r.value("isError", false), r.dump().c_str());
        QVERIFY2(text(r).contains(QLatin1String(why)), qPrintable(text(r)));
        QCOMPARE(m_queue->pending().size(), 0);
    }

    // A fresh repository and gate for the test now running; with an undo store when keeps.
    void setUp(bool keeps)
    {
        m_root = QFileInfo(m_dir.filePath(QStringLiteral("ws-%1").arg(QTest::currentTestFunction())))
                     .absoluteFilePath();
        QDir().mkpath(m_root);
        m_root = QFileInfo(m_root).canonicalFilePath();
        QVERIFY(write(QStringLiteral("src/app.txt"), "one\ntwo\nthree\n"));
        QVERIFY(write(QStringLiteral("src/lib.txt"), "alpha\nbeta\n"));
        commitAll();
        auto stack = GateStack::create(m_clock, QStringLiteral(":memory:"), Policy(),
                                       Gate::Settings{300'000, 200, {}, 50'000});
        QVERIFY2(stack.ok(), qPrintable(stack.ok() ? QString() : stack.error()));
        m_stack = std::move(stack).value();
        m_store = &m_stack->store();
        m_gate = &m_stack->gate();
        m_queue = &m_stack->queue();
        m_runner = std::make_unique<CommandRunner>();
        m_tools.clear();
        const QString test = QLatin1String(QTest::currentTestFunction());
        m_snapshots = keeps ? std::make_shared<SnapshotStore>(m_dir.filePath(QStringLiteral("kept-") + test),
                                                              SnapshotStore::Limits{})
                            : nullptr;
        WorkspaceTools::addTo(m_tools, std::make_shared<const Workspace>(QStringList{m_root}), *m_runner,
                              *m_gate, m_snapshots);
    }
    void tearDown()
    {
        m_tools.clear();
        m_runner.reset();
        m_stack.reset();
    }
    // Approves the card and runs it; the card must say the change can be undone.
    [[nodiscard]] bool runUndoable(const char *tool, const json &args, const char *words, Operation *card)
    {
        std::string state;
        json r;
        if (!ask(tool, args, &state, card) || !approveAndRetry(tool, args, state, *card, r))
            return false;
        if (!card->plan.summary.contains(QLatin1String(words)) || !card->plan.blastRadius.contains("undo"))
            return helperFailed(QStringLiteral("the card does not say \"%1\": %2")
                                    .arg(QLatin1String(words), card->plan.summary));
        if (r.value("isError", false))
            return helperFailed(QStringLiteral("it failed: %1").arg(QString::fromStdString(r.dump())));
        return true;
    }
};
