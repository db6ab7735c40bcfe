#pragma once

#include <QHash>
#include <QString>
#include <QWidget>

class QLabel;
class QPushButton;

namespace Countersign {

class HookInstaller;

// The agents' own tools (their shell and edit tools) through Countersign's hooks, in Connections:
// per client (Claude Code, Codex, Gemini CLI, Qwen Code) whether its user-level settings hold the
// hooks now and where, with Install (which says what it wrote and what is still to do in the
// client) and Remove (after a confirmation: the agent's own tools then pass no card).
class HooksPanel final : public QWidget
{
    Q_OBJECT
public:
    explicit HooksPanel(QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(HooksPanel)

    // Where the hooks go; until it is set, the panel says so and its buttons are off.
    void setInstaller(HookInstaller *installer, const QString &owner);
    // Reads each client's settings file again.
    void refresh();
    bool install(const QString &client);
    // Asks first (a confirmation naming the client and the file); false when there is nothing to remove.
    bool askToRemove(const QString &client);
    // Whether client's settings hold the hooks, as last read.
    bool installed(const QString &client) const { return m_installed.value(client); }

Q_SIGNALS:
    // Hooks were installed or removed: their connections changed.
    void changed();

private:
    void remove(const QString &client);

    struct Row final
    {
        QLabel *state = nullptr;
        QPushButton *install = nullptr;
        QPushButton *remove = nullptr;
    };
    HookInstaller *m_installer = nullptr;
    QString m_owner;
    QHash<QString, Row> m_rows;
    QHash<QString, bool> m_installed;
    QHash<QString, QString> m_paths;
    QLabel *m_message = nullptr;
};

} // namespace Countersign
