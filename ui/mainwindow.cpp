#include "mainwindow.h"

#include <QLabel>
#include <QVBoxLayout>

namespace Countersign {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Countersign"));
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    m_status = new QLabel(tr("Starting the server…"), central);
    m_status->setObjectName(QStringLiteral("serverStatus"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *empty = new QLabel(tr("No pending approvals."), central);
    empty->setObjectName(QStringLiteral("emptyQueue"));
    empty->setAlignment(Qt::AlignCenter);
    layout->addWidget(m_status);
    layout->addWidget(empty, 1);
    setCentralWidget(central);
    resize(900, 600);
}

void MainWindow::setListenUrl(const QString &url)
{
    m_status->setText(tr("Listening on %1").arg(url));
}

} // namespace Countersign
