#pragma once

#include <QMainWindow>

class QLabel;

namespace Countersign {

// The approval console's main window.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(MainWindow)

    void setListenUrl(const QString &url);

private:
    QLabel *m_status = nullptr;
};

} // namespace Countersign
