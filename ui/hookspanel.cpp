#include "hookspanel.h"

#include "clientcheck.h"
#include "clientinstaller.h"
#include "hooksetup.h"

#include <QGridLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QThread>
#include <QVBoxLayout>

#include <memory>

namespace Countersign {

HooksPanel::HooksPanel(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("hooksPanel"));
    auto *grid = new QGridLayout;
    int line = 0;
    for (const QString &client : HookSetup::clients()) {
        auto *name = new QLabel(HookInstaller::displayName(client), this);
        Row row;
        row.state = new QLabel(this);
        row.state->setObjectName(QStringLiteral("hookState-%1").arg(client));
        row.state->setTextFormat(Qt::PlainText);
        row.state->setWordWrap(true);
        row.install = new QPushButton(tr("Set up"), this);
        row.install->setObjectName(QStringLiteral("installHooks-%1").arg(client));
        row.check = new QPushButton(tr("Check"), this);
        row.check->setObjectName(QStringLiteral("checkClient-%1").arg(client));
        row.remove = new QPushButton(tr("Remove…"), this);
        row.remove->setObjectName(QStringLiteral("removeHooks-%1").arg(client));
        grid->addWidget(name, line, 0);
        grid->addWidget(row.state, line, 1);
        grid->addWidget(row.install, line, 2);
        grid->addWidget(row.check, line, 3);
        grid->addWidget(row.remove, line, 4);
        grid->setColumnStretch(1, 1);
        connect(row.install, &QPushButton::clicked, this, [this, client] { install(client); });
        connect(row.check, &QPushButton::clicked, this, [this, client] { check(client); });
        connect(row.remove, &QPushButton::clicked, this, [this, client] { askToRemove(client); });
        m_rows.insert(client, row);
        ++line;
    }
    // The clients whose own tools Countersign cannot stop: their MCP calls are gated, nothing else.
    auto *mcpOnly = new QLabel(
        tr("MCP alone (their own tools are not stopped by Countersign yet): Claude Desktop, VS Code, "
           "Cursor and the Cline extension (Cline CLI is above). Their calls to Countersign's tools and to "
           "the "
           "servers behind it are gated; "
           "their own shell and edit tools run as the client allows."),
        this);
    mcpOnly->setObjectName(QStringLiteral("hooksMcpOnly"));
    mcpOnly->setTextFormat(Qt::PlainText);
    mcpOnly->setWordWrap(true);
    grid->addWidget(mcpOnly, line, 0, 1, 5);
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("hooksMessage"));
    m_message->setTextFormat(Qt::PlainText);
    m_message->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(grid);
    layout->addWidget(m_message);
    refresh();
}

void HooksPanel::setInstaller(ClientInstaller *installer, const QString &owner)
{
    m_installer = installer;
    m_owner = owner;
    refresh();
}

void HooksPanel::refresh()
{
    for (auto it = m_rows.cbegin(); it != m_rows.cend(); ++it) {
        const Row &row = it.value();
        if (!m_installer) {
            row.state->setText(tr("not available in this console"));
            row.install->setEnabled(false);
            row.check->setEnabled(false);
            row.remove->setEnabled(false);
            continue;
        }
        const HookInstaller::State s = m_installer->hooks().state(it.key());
        m_installed.insert(it.key(), s.installed);
        m_paths.insert(it.key(), s.path);
        if (!s.problem.isEmpty())
            row.state->setText(s.problem);
        else if (s.installed)
            row.state->setText(tr("hooks installed in %1, as the connection %2")
                                   .arg(s.path, HookInstaller::connectionName(it.key())));
        else
            row.state->setText(tr("no hooks: its own shell and edit tools pass no card"));
        row.install->setText(s.installed ? tr("Set up again") : tr("Set up"));
        row.install->setEnabled(s.problem.isEmpty());
        row.check->setEnabled(true);
        row.remove->setEnabled(s.installed && s.problem.isEmpty());
    }
}

bool HooksPanel::install(const QString &client)
{
    if (!m_installer)
        return false;
    auto done = m_installer->setup(client, m_owner);
    m_message->setText(done ? done.value() : done.error());
    refresh();
    if (done)
        Q_EMIT changed();
    return done.ok();
}

bool HooksPanel::askToRemove(const QString &client)
{
    if (!m_installer || !m_installed.value(client))
        return false;
    delete findChild<QMessageBox *>(QStringLiteral("removeHooksConfirmation"));
    const QString name = HookInstaller::displayName(client);
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Remove the %1 hooks?").arg(name),
                                tr("Take Countersign's hooks and MCP server out of %1?")
                                    .arg(m_installer->files(client).join(QStringLiteral(", "))),
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("removeHooksConfirmation"));
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(
        tr("%1's own shell and edit tools then run with no card, and the connections "
           "%2 and %3 are revoked. Each file goes back as it was before setup (one you "
           "changed since keeps your changes).")
            .arg(name, HookInstaller::connectionName(client), ClientInstaller::mcpConnection(client)));
    QPushButton *confirm = box->addButton(tr("Remove the hooks"), QMessageBox::DestructiveRole);
    confirm->setObjectName(QStringLiteral("confirmRemoveHooks"));
    QPushButton *keep = box->addButton(tr("Keep them"), QMessageBox::RejectRole);
    keep->setObjectName(QStringLiteral("cancelRemoveHooks"));
    box->setDefaultButton(keep);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(confirm, &QPushButton::clicked, this, [this, client] { remove(client); });
    box->open();
    return true;
}

void HooksPanel::remove(const QString &client)
{
    auto done = m_installer->remove(client);
    m_message->setText(done ? done.value() : done.error());
    refresh();
    if (done)
        Q_EMIT changed();
}

void HooksPanel::check(const QString &client)
{
    if (!m_installer || !m_rows.contains(client))
        return;
    const Row &row = m_rows[client];
    row.check->setEnabled(false);
    row.state->setText(tr("checking…"));
    // It runs the agent's programs (its version; Codex's app-server): never on the window's thread.
    // It reads only files and the place (a copy): nothing of the window's, which may go meanwhile.
    auto result = std::make_shared<ClientCheck>();
    QThread *worker = QThread::create(
        [result, client, place = m_installer->place()] { *result = ClientCheck::of(client, place); });
    connect(worker, &QThread::finished, this, [this, result] { showCheck(*result); });
    connect(worker, &QThread::finished, worker, &QObject::deleteLater);
    worker->start();
}

void HooksPanel::showCheck(const ClientCheck &check)
{
    if (!m_rows.contains(check.client))
        return;
    const Row &row = m_rows[check.client];
    row.state->setText(check.describe().trimmed());
    row.check->setEnabled(m_installer != nullptr);
    Q_EMIT checked(check.client);
}

} // namespace Countersign
