#include "connectionspage.h"

#include "clientsetup.h"

#include "tokenstore.h"

#include <QDateTime>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
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
    auto *revoke = new QPushButton(tr("Revoke selected"), this);
    revoke->setObjectName(QStringLiteral("revokeConnection"));
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
        tr("Add a connection to see its token (shown once) and configuration to paste."));

    auto *row = new QHBoxLayout;
    row->addWidget(m_name, 1);
    row->addWidget(add);
    row->addWidget(revoke);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(row);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_message);
    layout->addWidget(m_snippets, 2);
    connect(add, &QPushButton::clicked, this, [this] { addConnection(m_name->text().trimmed()); });
    connect(m_name, &QLineEdit::returnPressed, this, [this] { addConnection(m_name->text().trimmed()); });
    connect(revoke, &QPushButton::clicked, this, &ConnectionsPage::revokeSelected);
    reload();
}

void ConnectionsPage::setEndpoint(const QString &url, const QStringList &stdioCommand)
{
    m_url = url;
    m_stdioCommand = stdioCommand;
}

bool ConnectionsPage::addConnection(const QString &name)
{
    auto token = m_tokens.add(name);
    if (!token) {
        m_message->setText(token.error());
        return false;
    }
    m_message->setText(tr("Connection \"%1\" added.").arg(name));
    m_snippets->setPlainText(ClientSetup::document(name, m_url, token.value(), m_stdioCommand));
    m_name->clear();
    reload();
    return true;
}

bool ConnectionsPage::revokeSelected()
{
    QListWidgetItem *item = m_list->currentItem();
    if (!item)
        return false;
    const QString name = item->data(Qt::UserRole).toString();
    if (auto r = m_tokens.revoke(name); !r) {
        m_message->setText(r.error());
        return false;
    }
    m_message->setText(tr("Connection \"%1\" revoked; its token no longer works.").arg(name));
    m_snippets->clear();
    reload();
    return true;
}

void ConnectionsPage::reload()
{
    m_list->clear();
    auto list = m_tokens.list();
    if (!list) {
        m_message->setText(list.error());
        return;
    }
    for (const auto &c : list.value()) {
        const QString created =
            QDateTime::fromMSecsSinceEpoch(c.createdMs).toString(QStringLiteral("yyyy-MM-dd HH:mm"));
        auto *item = new QListWidgetItem(c.revokedMs ? tr("%1 — created %2, revoked").arg(c.name, created)
                                                     : tr("%1 — created %2").arg(c.name, created),
                                         m_list);
        item->setData(Qt::UserRole, c.name);
        if (c.revokedMs)
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
    }
}

} // namespace Countersign
