#pragma once

#include <QSet>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QPushButton;
class QStackedWidget;

namespace Countersign {

class ApprovalCard;
class CardSightings;
class Grants;
class ApprovalQueue;
class Clock;
struct Operation;

// The pending approvals in a list (newest, oldest, riskiest or soonest to expire first) and the
// current one in full. Only the human changes which card is shown (a click or the keyboard in the
// list); a decision shows the next one. Several cards can be selected and declined at once, or every
// card of the shown card's connection; both ask first, with an optional reason for the agents.
// Cards made before a restart are marked: their agents may no longer be waiting.
class ApprovalsPage final : public QWidget
{
    Q_OBJECT
public:
    enum class Order { Newest, Oldest, Risk, Expiring };

    ApprovalsPage(ApprovalQueue &queue, const Clock &clock, QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(ApprovalsPage)

    // The /approvals/<id> page asked for this card, and anyone can open that page: the card is
    // marked in the list and scrolled to, never swapped for the one being read. It is shown only
    // when no card is.
    void reveal(const QString &nonce);
    // The human clicked the notification that named this card: it is shown (its minimum time on
    // screen starts again); nothing when it is no longer waiting.
    void select(const QString &nonce);
    ApprovalCard *card() const { return m_card; }
    void setOrder(Order order);
    // With no connection made yet, the empty page points to the Connections tab.
    void setHasConnections(bool has);
    // Puts the keyboard in the list (a tab switch, a new card with nothing else focused).
    void focusList();
    // Where the card's "from now on" keeps its grants (ApprovalCard::setGrants).
    void setGrants(Grants *grants);
    void setSightings(CardSightings *sightings);

    // Asks to decline the selected cards, or every card of the shown card's connection.
    void declineSelected();
    void declineConnection();

Q_SIGNALS:
    void connectionsWanted();

private:
    void rebuild();
    void showSelected();
    void markItem(QListWidgetItem *item, bool marked);
    void updateBulkButtons();
    void askToDecline(const QStringList &nonces, const QString &what);

    ApprovalQueue &m_queue;
    Order m_order = Order::Newest;
    QComboBox *m_sort = nullptr;
    QPushButton *m_declineSelected = nullptr;
    QPushButton *m_declineConnection = nullptr;
    QListWidget *m_list = nullptr;
    QStackedWidget *m_stack = nullptr;
    QLabel *m_empty = nullptr;
    QPushButton *m_openConnections = nullptr;
    ApprovalCard *m_card = nullptr;
    QSet<QString> m_marked;      // revealed and not yet shown
    QSet<QString> m_listedStale; // listed as from before the restart
};

} // namespace Countersign
