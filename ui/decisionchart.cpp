#include "decisionchart.h"

#include <QHelpEvent>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace Countersign {

namespace {

const QColor kApproved(0x2d, 0xa4, 0x4e);
const QColor kDeclined(0xcf, 0x22, 0x2e);
constexpr qreal kMaxSlot = 80.0;
constexpr qreal kMaxBar = 24.0;

QString day(const QDate &date)
{
    return date.toString(Qt::ISODate);
}

} // namespace

DecisionChart::DecisionChart(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("decisionChart"));
    setMinimumHeight(130);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("decisionChartSummary"));
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->move(8, 2);
    setCounts({});
}

void DecisionChart::setCounts(const QList<AuditQuery::DayCount> &counts)
{
    m_counts.clear();
    int olderApproved = 0, olderDeclined = 0;
    if (!counts.isEmpty()) {
        // Every calendar day up to the last with rows, the last kMaxDays of them.
        const QDate last = counts.last().day;
        const QDate first = std::max(counts.first().day, last.addDays(1 - kMaxDays));
        for (QDate d = first; d <= last; d = d.addDays(1))
            m_counts.append({d, 0, 0});
        for (const auto &c : counts) {
            if (c.day < first) {
                olderApproved += c.approved;
                olderDeclined += c.declined;
            } else {
                m_counts[first.daysTo(c.day)] = c;
            }
        }
    }
    int approved = 0, declined = 0;
    for (const auto &c : m_counts) {
        approved += c.approved;
        declined += c.declined;
    }
    const QLocale locale;
    QString summary;
    if (m_counts.isEmpty()) {
        summary = tr("Approved and declined per day: no decisions in this view");
    } else {
        const QString period = m_counts.size() == 1
                                   ? tr("on %1 (UTC)").arg(day(m_counts.first().day))
                                   : tr("%1 to %2 (UTC, %3 days)")
                                         .arg(day(m_counts.first().day), day(m_counts.last().day))
                                         .arg(m_counts.size());
        summary = tr("Approved (green) and declined (red) per day, %1: %2 approved, %3 declined")
                      .arg(period, locale.toString(approved), locale.toString(declined));
        if (olderApproved + olderDeclined > 0)
            summary += tr("; %1 approved and %2 declined before, not drawn")
                           .arg(locale.toString(olderApproved), locale.toString(olderDeclined));
    }
    m_summary->setText(summary);
    m_summary->adjustSize();
    update();
}

QRectF DecisionChart::barArea() const
{
    // Room above for the summary and the counts on the bars, below for the dates.
    const int top = m_summary->geometry().bottom() + 4 + fontMetrics().height();
    return QRectF(rect()).adjusted(8, top, -8, -18);
}

qreal DecisionChart::slotWidth() const
{
    return m_counts.isEmpty() ? 0.0 : std::min<qreal>(barArea().width() / m_counts.size(), kMaxSlot);
}

QString DecisionChart::toolTipAt(const QPoint &point) const
{
    const QRectF area = barArea();
    const qreal slot = slotWidth();
    if (slot <= 0 || point.x() < area.left() || point.y() < area.top() - fontMetrics().height() ||
        point.y() > area.bottom() + 18)
        return {};
    const int i = int((point.x() - area.left()) / slot);
    if (i < 0 || i >= m_counts.size())
        return {};
    const auto &c = m_counts[i];
    return tr("%1: %2 approved, %3 declined")
        .arg(day(c.day), QLocale().toString(c.approved), QLocale().toString(c.declined));
}

bool DecisionChart::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), text, this);
        }
        return true;
    }
    return QWidget::event(event);
}

void DecisionChart::paintEvent(QPaintEvent *)
{
    if (m_counts.isEmpty())
        return;
    QPainter p(this);
    const QRectF area = barArea();
    int maximum = 1;
    for (const auto &c : m_counts)
        maximum = std::max({maximum, c.approved, c.declined});
    const qreal slot = slotWidth();
    const qreal bar = std::clamp<qreal>(slot * 0.4, 1.0, kMaxBar);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    const QFontMetricsF metrics(small);
    const QColor text = palette().color(QPalette::WindowText);
    const QColor muted = palette().color(QPalette::PlaceholderText);
    // The baseline, so a day without decisions reads as zero rather than as missing.
    p.setPen(muted);
    p.drawLine(QPointF(area.left(), area.bottom() + 0.5),
               QPointF(area.left() + slot * m_counts.size(), area.bottom() + 0.5));
    for (int i = 0; i < m_counts.size(); ++i) {
        const auto &c = m_counts[i];
        const qreal x = area.left() + i * slot;
        for (const auto &[count, left, colour] :
             {std::tuple{c.approved, x, kApproved}, std::tuple{c.declined, x + bar, kDeclined}}) {
            const qreal h = area.height() * count / maximum;
            p.fillRect(QRectF(left, area.bottom() - h, bar, h), colour);
            // The count on top of its bar, where it fits.
            const QString number = QLocale().toString(count);
            if (count > 0 && metrics.horizontalAdvance(number) <= bar + 2) {
                p.setPen(text);
                p.drawText(QRectF(left - 1, area.bottom() - h - metrics.height(), bar + 2, metrics.height()),
                           Qt::AlignHCenter | Qt::AlignBottom, number);
            }
        }
    }
    // Each day's date under its bars where they fit, else the first and the last.
    p.setPen(muted);
    const QString longest = QStringLiteral("00-00");
    if (metrics.horizontalAdvance(longest) + 6 <= slot) {
        for (int i = 0; i < m_counts.size(); ++i)
            p.drawText(QRectF(area.left() + i * slot, area.bottom() + 2, 2 * bar, 16),
                       Qt::AlignHCenter | Qt::AlignTop, m_counts[i].day.toString(QStringLiteral("MM-dd")));
    } else {
        p.drawText(QRectF(area.left(), area.bottom() + 2, area.width(), 16), Qt::AlignLeft,
                   day(m_counts.first().day));
        if (m_counts.size() > 1)
            p.drawText(QRectF(area.left(), area.bottom() + 2, slot * m_counts.size(), 16), Qt::AlignRight,
                       day(m_counts.last().day));
    }
}

} // namespace Countersign
