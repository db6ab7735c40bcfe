#pragma once

#include <QHash>
#include <QString>
#include <QWidget>

class QLabel;
class QPushButton;

namespace Countersign {

class ClientInstaller;
struct ClientCheck;

// The agents' own tools (their shell and edit tools) through Countersign's hooks, in Connections:
// per agent whether its user-level settings hold the hooks now and where, with Set up (all of
// `countersign setup CLIENT`: the hooks or plugin, the MCP server; it says what it wrote and what is
// still to do in the agent), Check (`countersign doctor CLIENT`, off the window's thread: ready,
// needs a step or fails open, and why) and Remove (after a confirmation: every file back as it was,
// and the agent's own tools then pass no card).
class HooksPanel final : public QWidget
{
    Q_OBJECT
public:
    explicit HooksPanel(QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(HooksPanel)

    // Where the set-up goes; until it is set, the panel says so and its buttons are off.
    void setInstaller(ClientInstaller *installer, const QString &owner);
    // Reads each client's settings file again.
    void refresh();
    bool install(const QString &client);
    // Asks first (a confirmation naming the client and the file); false when there is nothing to remove.
    bool askToRemove(const QString &client);
    // Whether client's settings hold the hooks, as last read.
    bool installed(const QString &client) const { return m_installed.value(client); }
    // Checks client in a thread of its own; its row says the verdict when it is in (checked()).
    void check(const QString &client);

Q_SIGNALS:
    // Hooks were installed or removed: their connections changed.
    void changed();
    void checked(const QString &client);

private:
    void remove(const QString &client);
    void showCheck(const ClientCheck &check);

    struct Row final
    {
        QLabel *state = nullptr;
        QPushButton *install = nullptr;
        QPushButton *check = nullptr;
        QPushButton *remove = nullptr;
    };
    ClientInstaller *m_installer = nullptr;
    QString m_owner;
    QHash<QString, Row> m_rows;
    QHash<QString, bool> m_installed;
    QHash<QString, QString> m_paths;
    QLabel *m_message = nullptr;
};

} // namespace Countersign
