#include "connectionspage.h"

#include "clientinstaller.h"
#include "clientsetup.h"
#include "hookinstaller.h"
#include "hooksetup.h"
#include "hookspanel.h"
#include "tokenstore.h"
#include "upstreamlist.h"

#include <QClipboard>
#include <QDateTime>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace Countersign {

ConnectionsPage::ConnectionsPage(TokenStore &tokens, QWidget *parent) : QWidget(parent), m_tokens(tokens)
{
    m_name = new QLineEdit(this);
    m_name->setObjectName(QStringLiteral("connectionName"));
    m_name->setPlaceholderText(tr("Name of the client, e.g. vscode"));
    auto *add = new QPushButton(tr("Add connection"), this);
    add->setObjectName(QStringLiteral("addConnection"));
    m_showSetup = new QPushButton(tr("Show setup"), this);
    m_showSetup->setObjectName(QStringLiteral("showSetup"));
    m_revoke = new QPushButton(tr("Revoke selected…"), this);
    m_revoke->setObjectName(QStringLiteral("revokeConnection"));
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("connectionList"));
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("connectionMessage"));
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::PlainText);
    m_snippets = new QPlainTextEdit(this);
    m_snippets->setObjectName(QStringLiteral("connectionSnippets"));
    m_snippets->setReadOnly(true);
    m_snippets->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_snippets->setPlaceholderText(
        tr("Add a connection to see its token (shown once) and each client's setup "
           "to paste; select one and Show setup to see its setup again."));
    m_copyToken = new QPushButton(tr("Copy token"), this);
    m_copyToken->setObjectName(QStringLiteral("copyToken"));
    m_copySetup = new QPushButton(tr("Copy setup"), this);
    m_copySetup->setObjectName(QStringLiteral("copySetup"));

    auto *row = new QHBoxLayout;
    row->addWidget(m_name, 1);
    row->addWidget(add);
    auto *listButtons = new QHBoxLayout;
    listButtons->addStretch(1);
    listButtons->addWidget(m_showSetup);
    listButtons->addWidget(m_revoke);
    auto *copyButtons = new QHBoxLayout;
    copyButtons->addStretch(1);
    copyButtons->addWidget(m_copyToken);
    copyButtons->addWidget(m_copySetup);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(row);
    layout->addWidget(m_list, 1);
    layout->addLayout(listButtons);
    layout->addWidget(m_message);
    layout->addWidget(m_snippets, 2);
    layout->addLayout(copyButtons);
    m_hooks = new HooksPanel(this);
    layout->addWidget(new QLabel(tr("The agents' own shell and edit tools, through their hooks"), this));
    layout->addWidget(m_hooks);
    connect(m_hooks, &HooksPanel::changed, this, &ConnectionsPage::reload);
    m_upstreams = new UpstreamList(this);
    layout->addWidget(new QLabel(tr("MCP servers behind the gate"), this));
    layout->addWidget(m_upstreams, 1);
    connect(add, &QPushButton::clicked, this, [this] { addConnection(m_name->text().trimmed()); });
    connect(m_name, &QLineEdit::returnPressed, this, [this] { addConnection(m_name->text().trimmed()); });
    connect(m_revoke, &QPushButton::clicked, this, &ConnectionsPage::revokeSelected);
    connect(m_showSetup, &QPushButton::clicked, this, &ConnectionsPage::showSelectedSetup);
    connect(m_list, &QListWidget::currentItemChanged, this, [this] {
        const QListWidgetItem *item = m_list->currentItem();
        const bool active = item && (item->flags() & Qt::ItemIsEnabled);
        m_showSetup->setEnabled(active);
        m_revoke->setEnabled(active);
    });
    connect(m_copyToken, &QPushButton::clicked, this, [this] {
        QGuiApplication::clipboard()->setText(m_shownToken);
        m_message->setText(tr("The token of \"%1\" is on the clipboard.").arg(m_shownFor));
    });
    connect(m_copySetup, &QPushButton::clicked, this, [this] {
        QGuiApplication::clipboard()->setText(m_snippets->toPlainText());
        m_message->setText(tr("The setup of \"%1\" is on the clipboard.").arg(m_shownFor));
    });
    reload();
    showSetup({}, {});
}

void ConnectionsPage::setClientInstaller(ClientInstaller *installer)
{
    m_hooks->setInstaller(installer, m_owner);
    reload();
}

void ConnectionsPage::setEndpoint(const QString &url, const QStringList &stdioCommand)
{
    m_url = url;
    m_stdioCommand = stdioCommand;
    if (!m_shownFor.isEmpty())
        showSetup(m_shownFor, m_shownToken);
}

void ConnectionsPage::showSetup(const QString &name, const QString &token)
{
    m_shownFor = name;
    m_shownToken = token;
    if (name.isEmpty())
        m_snippets->clear();
    else
        m_snippets->setPlainText(ClientSetup::document(
            name, m_url, token.isEmpty() ? tr("<the token shown when \"%1\" was added>").arg(name) : token,
            m_stdioCommand));
    m_copyToken->setEnabled(!token.isEmpty());
    m_copySetup->setEnabled(!name.isEmpty());
}

bool ConnectionsPage::addConnection(const QString &name)
{
    auto token = m_tokens.add(name, m_owner);
    if (!token) {
        m_message->setText(token.error());
        return false;
    }
    m_message->setText(
        tr("Connection \"%1\" added. Its token is shown only now; Countersign keeps only its hash.")
            .arg(name));
    showSetup(name, token.value());
    m_name->clear();
    reload();
    return true;
}

void ConnectionsPage::showSelectedSetup()
{
    if (const QListWidgetItem *item = m_list->currentItem(); item && (item->flags() & Qt::ItemIsEnabled))
        showSetup(item->data(Qt::UserRole).toString(), {});
}

bool ConnectionsPage::revokeSelected()
{
    QListWidgetItem *item = m_list->currentItem();
    if (!item || !(item->flags() & Qt::ItemIsEnabled))
        return false;
    const QString name = item->data(Qt::UserRole).toString();
    delete findChild<QMessageBox *>(QStringLiteral("revokeConfirmation"));
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Revoke \"%1\"?").arg(name),
                                tr("Revoke the connection \"%1\"?").arg(name), QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("revokeConfirmation"));
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(tr("Its token stops working at once: the agent's next request is refused and a "
                               "stdio bridge using it stops. A new token can be made under the same name."));
    QPushButton *confirm = box->addButton(tr("Revoke \"%1\"").arg(name), QMessageBox::DestructiveRole);
    confirm->setObjectName(QStringLiteral("confirmRevoke"));
    QPushButton *keep = box->addButton(tr("Keep it"), QMessageBox::RejectRole);
    keep->setObjectName(QStringLiteral("cancelRevoke"));
    box->setDefaultButton(keep);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(confirm, &QPushButton::clicked, this, [this, name] { revoke(name); });
    box->open();
    return true;
}

void ConnectionsPage::revoke(const QString &name)
{
    if (auto r = m_tokens.revoke(name); !r) {
        m_message->setText(r.error());
        return;
    }
    m_message->setText(tr("Connection \"%1\" revoked; its token no longer works.").arg(name));
    if (m_shownFor == name)
        showSetup({}, {}); // another connection's new token stays on screen
    reload();
}

namespace {

// What a list of connections shows, for comparing with the store's.
QString fingerprint(const QList<TokenStore::Connection> &list)
{
    QStringList parts;
    for (const auto &c : list)
        parts.append(QStringLiteral("%1|%2|%3|%4")
                         .arg(c.name)
                         .arg(c.createdMs)
                         .arg(c.revokedMs.value_or(0))
                         .arg(c.owner));
    return parts.join(QLatin1Char('\n'));
}

} // namespace

void ConnectionsPage::reloadIfChanged()
{
    auto list = m_tokens.list();
    if (list && fingerprint(list.value()) != m_listed)
        reload();
}

void ConnectionsPage::setLastRequest(const QString &name, qint64 atMs)
{
    m_lastRequest.insert(name, atMs);
    relabel();
}

void ConnectionsPage::setCards(const QHash<QString, Cards> &cards)
{
    m_cards = cards;
    relabel();
}

void ConnectionsPage::reload()
{
    const QString selected =
        m_list->currentItem() ? m_list->currentItem()->data(Qt::UserRole).toString() : QString();
    m_list->clear();
    int active = 0;
    auto list = m_tokens.list();
    if (!list) {
        m_message->setText(list.error());
        return;
    }
    m_listed = fingerprint(list.value());
    m_hooks->refresh();
    for (const auto &c : list.value()) {
        auto *item = new QListWidgetItem(m_list);
        item->setData(Qt::UserRole, c.name);
        item->setData(Qt::UserRole + 1, c.createdMs);
        item->setData(Qt::UserRole + 2, c.owner);
        item->setData(Qt::UserRole + 3, c.revokedMs.has_value());
        if (c.revokedMs)
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
        else
            ++active;
    }
    relabel();
    m_active = active;
    m_showSetup->setEnabled(false);
    m_revoke->setEnabled(false);
    for (int i = 0; i < m_list->count(); ++i) {
        if (!selected.isEmpty() && m_list->item(i)->data(Qt::UserRole).toString() == selected &&
            (m_list->item(i)->flags() & Qt::ItemIsEnabled))
            m_list->setCurrentRow(i);
    }
    Q_EMIT connectionsChanged(active);
}

// Each line: name, owner, created; its hooks; its last request; the cards it waits on.
void ConnectionsPage::relabel()
{
    for (int i = 0; i < m_list->count(); ++i) {
        QListWidgetItem *item = m_list->item(i);
        const QString name = item->data(Qt::UserRole).toString();
        const bool revoked = item->data(Qt::UserRole + 3).toBool();
        const QString created = QDateTime::fromMSecsSinceEpoch(item->data(Qt::UserRole + 1).toLongLong())
                                    .toString(QStringLiteral("yyyy-MM-dd HH:mm"));
        const QString ownerName = item->data(Qt::UserRole + 2).toString();
        const QString owner = ownerName.isEmpty() ? tr("no owner on record") : tr("owner %1").arg(ownerName);
        QString text = revoked ? tr("%1 — %2, created %3, revoked").arg(name, owner, created)
                               : tr("%1 — %2, created %3").arg(name, owner, created);
        for (const QString &client : HookSetup::clients())
            if (!revoked && name == HookInstaller::connectionName(client))
                text += m_hooks->installed(client)
                            ? tr("; %1's hooks: installed").arg(HookInstaller::displayName(client))
                            : tr("; %1's hooks: not installed").arg(HookInstaller::displayName(client));
        if (!revoked) {
            const auto last = m_lastRequest.constFind(name);
            text += last == m_lastRequest.cend() ? tr("; no request since this console started")
                                                 : tr("; last request %1")
                                                       .arg(QDateTime::fromMSecsSinceEpoch(*last).toString(
                                                           QStringLiteral("yyyy-MM-dd HH:mm:ss")));
            const Cards cards = m_cards.value(name);
            if (cards.waiting > 0)
                text += cards.agentWaits > 0
                            ? tr("; its agent is waiting on %n card(s)", nullptr, cards.agentWaits)
                            : tr("; %n card(s) wait for a decision", nullptr, cards.waiting);
        }
        item->setText(text);
    }
}

} // namespace Countersign
