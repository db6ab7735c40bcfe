#include "hookspanel.h"

#include "hookinstaller.h"
#include "hooksetup.h"

#include <QGridLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

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
        row.install = new QPushButton(tr("Install"), this);
        row.install->setObjectName(QStringLiteral("installHooks-%1").arg(client));
        row.remove = new QPushButton(tr("Remove…"), this);
        row.remove->setObjectName(QStringLiteral("removeHooks-%1").arg(client));
        grid->addWidget(name, line, 0);
        grid->addWidget(row.state, line, 1);
        grid->addWidget(row.install, line, 2);
        grid->addWidget(row.remove, line, 3);
        grid->setColumnStretch(1, 1);
        connect(row.install, &QPushButton::clicked, this, [this, client] { install(client); });
        connect(row.remove, &QPushButton::clicked, this, [this, client] { askToRemove(client); });
        m_rows.insert(client, row);
        ++line;
    }
    // The clients whose own tools Countersign cannot stop: their MCP calls are gated, nothing else.
    auto *mcpOnly = new QLabel(
        tr("MCP alone (their own tools are not stopped by Countersign yet): Claude Desktop, VS Code, "
           "Cursor and Cline. Their calls to Countersign's tools and to the servers behind it are gated; "
           "their own shell and edit tools run as the client allows."),
        this);
    mcpOnly->setObjectName(QStringLiteral("hooksMcpOnly"));
    mcpOnly->setTextFormat(Qt::PlainText);
    mcpOnly->setWordWrap(true);
    grid->addWidget(mcpOnly, line, 0, 1, 4);
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

void HooksPanel::setInstaller(HookInstaller *installer, const QString &owner)
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
            row.remove->setEnabled(false);
            continue;
        }
        const HookInstaller::State s = m_installer->state(it.key());
        m_installed.insert(it.key(), s.installed);
        m_paths.insert(it.key(), s.path);
        if (!s.problem.isEmpty())
            row.state->setText(s.problem);
        else if (s.installed)
            row.state->setText(tr("hooks installed in %1, as the connection %2")
                                   .arg(s.path, HookInstaller::connectionName(it.key())));
        else
            row.state->setText(tr("no hooks: its own shell and edit tools pass no card"));
        row.install->setText(s.installed ? tr("Install again") : tr("Install"));
        row.install->setEnabled(s.problem.isEmpty());
        row.remove->setEnabled(s.installed && s.problem.isEmpty());
    }
}

bool HooksPanel::install(const QString &client)
{
    if (!m_installer)
        return false;
    auto done = m_installer->install(client, m_owner);
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
                                tr("Take Countersign's hooks out of %1?").arg(m_paths.value(client)),
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("removeHooksConfirmation"));
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(tr("%1's own shell and edit tools then run with no card, and the connection %2 "
                               "is revoked. The file is backed up first.")
                                .arg(name, HookInstaller::connectionName(client)));
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

} // namespace Countersign
