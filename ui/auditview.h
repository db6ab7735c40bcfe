#pragma once

#include <QWidget>

class QComboBox;
class QDateEdit;
class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTextBrowser;
class QTimer;

namespace Countersign {

class AuditModel;
class AuditStore;
class DecisionChart;
class Undo;
struct Operation;

// The audit log as a table: sort by any column, filter by decision, client, tool, date range and
// text, see everything the approval card showed for the selected row (summary, targets, blast
// radius, risk, rule, prompt, plan) with its decision, receipt and result, and export what is shown.
// Sorts and searches over the whole log are read off the window's thread (AuditModel); while one
// is read, "auditStatus" says so, and otherwise how many rows are shown. When the store cannot be
// read, the view says why above the table (objectName "auditError") until a later query succeeds.
class AuditView final : public QWidget
{
    Q_OBJECT
public:
    AuditView(AuditStore &store, const QString &connectionName, QWidget *parent = nullptr);
    Q_DISABLE_COPY_MOVE(AuditView)

    AuditModel *model() const { return m_model; }
    // Writes the rows the filter lets through, off the window's thread (AuditModel::exportShown);
    // format from the suffix (.json, else CSV). Says in the view (objectName "auditExportMessage")
    // that it is exporting, then where it wrote how many rows, or why it could not; ends in
    // exportFinished. The Export button is disabled meanwhile.
    void exportTo(const QString &path);
    // Where a row's Revert goes (an agent's change that ran with no card, kept for an undo), and
    // who reverts in the audit chain ("console:alice"). Unset: no row offers Revert.
    void setUndo(Undo *undo, const QString &by);
    // The selected row's Revert: shows the diff it would apply in a dialog (objectName
    // "revertDialog", its diff "revertDiff"), or why it cannot be undone now; on Revert, restores
    // the files and says so (objectName "auditRevertMessage").
    void revertSelected();
    // The same for the whole turn of the selected call's agent session (Undo::turnOf), as one
    // change (its button "auditRevertTurn", shown when the turn has more than one call).
    void revertTurnSelected();

Q_SIGNALS:
    void exportFinished(bool ok, const QString &error);

public Q_SLOTS:
    // New operations or decisions: requery (coalesced).
    void refreshSoon();

private:
    // The parts of the view, built by the constructor in this order.
    // The filters (decision, client, tool, person, instance, dates, text) and the Export button.
    void buildFilters();
    // The table of operations, the selected one's detail and the chart of decisions by day.
    void buildTable();
    // The store's error above the table; the status, Revert buttons and messages below it.
    void buildMessages();
    // The filters on top, then the error, the chart, the table over the detail, and the footer.
    void layOut();
    // The filters, the table's selection, the model's readings and the buttons, to what they change.
    void connectParts();
    void applyFilter();
    void enableDates(bool on);
    void showDetail();
    void chooseExport();
    void reloadChoices();
    void setUpColumns();
    void showQueryErrors();
    void showStatus();
    void showExportMessage(const QString &text, bool failed);
    void showRevertMessage(const QString &text, bool failed);
    void offerRevert(bool wholeTurn);
    void exportEnded(const QString &path, int rows, const QString &error);

    AuditStore &m_store;
    AuditModel *m_model = nullptr;
    QComboBox *m_decision = nullptr;
    QComboBox *m_client = nullptr;
    QComboBox *m_tool = nullptr;
    QComboBox *m_person = nullptr;
    QComboBox *m_instance = nullptr;
    QCheckBox *m_useDates = nullptr;
    QDateEdit *m_from = nullptr;
    QDateEdit *m_to = nullptr;
    QLabel *m_toLabel = nullptr;
    QLineEdit *m_search = nullptr;
    QTableView *m_table = nullptr;
    QTextBrowser *m_detail = nullptr;
    DecisionChart *m_chart = nullptr;
    QTimer *m_refresh = nullptr;
    QLabel *m_error = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_exportMessage = nullptr;
    QPushButton *m_exportButton = nullptr;
    QPushButton *m_revert = nullptr;
    QPushButton *m_revertTurn = nullptr;
    QLabel *m_revertMessage = nullptr;
    Undo *m_undo = nullptr;
    QString m_revertBy;
    QString m_selectedNonce;
    // The last error of the choices' queries; the table's and the chart's are the model's.
    QString m_choicesError;
    // The selected row's operation (AuditModel::keyAt), selected again after the rows are read again.
    qint64 m_selectedKey = 0;
};

} // namespace Countersign
