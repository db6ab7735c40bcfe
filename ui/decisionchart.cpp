#include "decisionchart.h"

#include <QPainter>

namespace Countersign {

DecisionChart::DecisionChart(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("decisionChart"));
    setMinimumHeight(110);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void DecisionChart::setCounts(QList<AuditQuery::DayCount> counts)
{
    // The last 60 days that have rows: enough to see a trend, few enough to read.
    if (counts.size() > 60)
        counts = counts.mid(counts.size() - 60);
    m_counts = std::move(counts);
    update();
}

void DecisionChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF area = QRectF(rect()).adjusted(8, 22, -8, -18);
    const QColor approved(0x2d, 0xa4, 0x4e), declined(0xcf, 0x22, 0x2e);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRectF(8, 2, width() - 16, 18), Qt::AlignLeft | Qt::AlignVCenter,
               tr("Approved (green) and declined (red) per day"));
    if (m_counts.isEmpty()) {
        p.drawText(area, Qt::AlignCenter, tr("No decisions in this view"));
        return;
    }
    int maximum = 1;
    for (const auto &c : m_counts)
        maximum = std::max({maximum, c.approved, c.declined});
    const qreal slot = std::min<qreal>(area.width() / m_counts.size(), 48.0);
    const qreal bar = std::max<qreal>(1.0, slot * 0.4);
    for (int i = 0; i < m_counts.size(); ++i) {
        const auto &c = m_counts[i];
        const qreal x = area.left() + i * slot;
        const qreal ha = area.height() * c.approved / maximum;
        const qreal hd = area.height() * c.declined / maximum;
        p.fillRect(QRectF(x, area.bottom() - ha, bar, ha), approved);
        p.fillRect(QRectF(x + bar, area.bottom() - hd, bar, hd), declined);
    }
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(QRectF(area.left(), area.bottom() + 2, area.width(), 16), Qt::AlignLeft,
               m_counts.first().day.toString(Qt::ISODate));
    if (m_counts.size() > 1)
        p.drawText(QRectF(area.left(), area.bottom() + 2, slot * m_counts.size(), 16), Qt::AlignRight,
                   m_counts.last().day.toString(Qt::ISODate));
}

} // namespace Countersign
