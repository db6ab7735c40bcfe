#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace Countersign {

class Grants;

// The Settings page's "From now on": the live grants made from cards (Grants), each with what it
// covers, allow or deny, until when, and how many calls it decided (from the audit log); Revoke
// (which asks first) takes one back at once, and the gate asks again.
class GrantsPanel final : public QWidget
{
    Q_OBJECT
public:
    explicit GrantsPanel(QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(GrantsPanel)

    void setGrants(Grants *grants, const QString &by);
    void refresh();
    // Revokes the selected grant after asking (what Revoke does).
    void revokeSelected();

private:
    Grants *m_grants = nullptr;
    QString m_by;
    QTableWidget *m_table = nullptr;
    QPushButton *m_revoke = nullptr;
    QLabel *m_message = nullptr;
};

} // namespace Countersign
