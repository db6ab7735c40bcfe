#include "agentlabel.h"

#include "visibletext.h"

#include <QLabel>

namespace Countersign {

QLabel *agentLabel(QWidget *parent, const char *objectName, bool wrap)
{
    auto *l = new QLabel(parent);
    l->setObjectName(QLatin1String(objectName));
    l->setTextFormat(Qt::PlainText);
    l->setWordWrap(wrap);
    if (wrap)
        l->setSizePolicy(QSizePolicy::Ignored, l->sizePolicy().verticalPolicy());
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return l;
}

void showAgentText(QLabel *label, const QString &text)
{
    const QString visible = visibleText(text);
    label->setText(laidOutText(visible));
    label->setToolTip(tooltipText(visible));
}

} // namespace Countersign
