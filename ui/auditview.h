#pragma once

#include <QWidget>

class QComboBox;
class QDateEdit;
class QCheckBox;
class QLabel;
class QLineEdit;
class QTableView;
class QTextBrowser;
class QTimer;

namespace Countersign {

class AuditModel;
class AuditStore;
class DecisionChart;

// The audit log as a table: sort by any column, filter by decision, client, tool, date range and
// text, see the verbatim prompt, plan and receipt of the selected row, export what is shown. When
// the store cannot be read, the view says why above the table (objectName "auditError") until a
// later query succeeds.
class AuditView final : public QWidget
{
    Q_OBJECT
public:
    AuditView(AuditStore &store, const QString &connectionName, QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(AuditView)

    AuditModel *model() const { return m_model; }
    // Writes the rows the filter lets through; format from the suffix (.json, else CSV).
    bool exportTo(const QString &path, QString *error = nullptr);

public Q_SLOTS:
    // New operations or decisions: requery (coalesced).
    void refreshSoon();

private:
    void applyFilter();
    void showDetail();
    void chooseExport();
    void reloadChoices();
    void reloadChart();
    void setUpColumns();
    void showQueryErrors();

    AuditStore &m_store;
    AuditModel *m_model = nullptr;
    QComboBox *m_decision = nullptr;
    QComboBox *m_client = nullptr;
    QComboBox *m_tool = nullptr;
    QCheckBox *m_useDates = nullptr;
    QDateEdit *m_from = nullptr;
    QDateEdit *m_to = nullptr;
    QLineEdit *m_search = nullptr;
    QTableView *m_table = nullptr;
    QTextBrowser *m_detail = nullptr;
    DecisionChart *m_chart = nullptr;
    QTimer *m_refresh = nullptr;
    QLabel *m_error = nullptr;
    // The last error of the choices' and the chart's queries; the table's is the model's.
    QString m_choicesError;
    QString m_chartError;
};

} // namespace Countersign
