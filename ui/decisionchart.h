#pragma once

#include "auditquery.h"

#include <QWidget>

namespace Countersign {

// Approvals and declines per day as paired bars (QPainter), for teams reviewing decline history.
class DecisionChart final : public QWidget
{
    Q_OBJECT
public:
    explicit DecisionChart(QWidget *parent = nullptr);
    void setCounts(QList<AuditQuery::DayCount> counts);
    const QList<AuditQuery::DayCount> &counts() const { return m_counts; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QList<AuditQuery::DayCount> m_counts;
};

} // namespace Countersign
