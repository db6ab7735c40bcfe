#pragma once

#include "auditquery.h"

#include <QWidget>

class QLabel;

namespace Countersign {

// Approvals and declines per day as paired bars (QPainter), for teams reviewing decline history:
// every calendar day of the period, days without decisions at zero, at most the last kMaxDays.
// A line above the bars (objectName "decisionChartSummary") names the period and its totals; each
// bar carries its count where it fits, and every day's counts are in its tooltip.
class DecisionChart final : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kMaxDays = 60;

    explicit DecisionChart(QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(DecisionChart)

    // Days with rows, oldest first (AuditQuery::perDay).
    void setCounts(const QList<AuditQuery::DayCount> &counts);
    // The days drawn: the period, oldest first, with zero days filled in.
    const QList<AuditQuery::DayCount> &counts() const { return m_counts; }
    // The words for the day under a point of the widget; empty where there is no bar.
    QString toolTipAt(const QPoint &point) const;

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    QRectF barArea() const;
    qreal slotWidth() const;

    QList<AuditQuery::DayCount> m_counts;
    QLabel *m_summary = nullptr;
};

} // namespace Countersign
