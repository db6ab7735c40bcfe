#pragma once

#include "config.h"
#include "declinequery.h"
#include "readerthread.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QTableWidget;
class QTimer;

namespace Countersign {

class DeclineWorker;

// The team's history of declines over a period (objectName "declinesPeriod": the last 24 hours,
// 7 days, 30 days or all): the most declined tools, targets and reasons (declines by a decision and
// denials by a rule counted apart), the calls declined again and again with a "Deny this from now
// on" button each, each tool's time to decide (median, 90th percentile) and approval rate, and the
// approvals made faster than their card can be read (ReadingTime), by person and tool, with a
// warning above the rest while there are any (DeclineQuery has the definitions).
//
// "Deny this from now on" never changes the policy on its own: it shows the exact rule (DenyRule)
// in a DenyRuleDialog, and only once that is confirmed writes it first in the configuration file's
// "rules" (ruleWritten follows). The console reads the file again and its ConfigGuard applies the
// rule (a deny only narrows), recording it in the audit log; a call the policy in force already
// denies shows "Denied now". Whatever was written, or why nothing was, shows in "declinesMessage".
//
// The figures are read off the window's thread (DeclineWorker) each time the tab is shown, while
// it is shown as new decisions arrive (refreshSoon), and when the period changes, and on the window's thread
// only where no second connection to the store can be opened (":memory:", tests). Everything from the agent
// is shown as plain text.
class DeclinesView final : public QWidget
{
    Q_OBJECT
public:
    // connectionName: the window's connection to the store (Database::connectionName()).
    explicit DeclinesView(const QString &connectionName, QWidget *parent = nullptr);
    // Waits for a report being read on the view's thread to end.
    ~DeclinesView() override;
    Q_DISABLE_COPY_MOVE(DeclinesView)

    // The configuration in force and its file: the rules a deny goes in front of, the policy that
    // tells what is denied already, and the cards' minimum time on screen (the reading time's floor).
    void setConfig(const Config &config, const QString &configPath);
    // The report shown (empty before the first read).
    const DeclineQuery::Report &report() const { return m_report; }
    // A report is being read.
    bool isLoading() const { return m_loading; }

Q_SIGNALS:
    // A deny rule was written to the configuration file at path: the console reads it again.
    void ruleWritten(const QString &path);
    // A report was read and shown (error empty) or could not be (error says why).
    void refreshed(const QString &error);

public Q_SLOTS:
    // New operations or decisions: read again (coalesced) if shown; a hidden view reads when shown.
    void refreshSoon();
    // Reads the report for the period now.
    void refresh();

protected:
    void showEvent(QShowEvent *event) override;

private:
    void startWorker(const QString &connectionName);
    void stopWorker();
    void showReport(quint64 generation, const DeclineQuery::Report &report, const QString &error);
    void fill();
    void fillRepeats();
    void denyFromNowOn(int row);
    void setMessage(const QString &text, bool failed);
    qint64 sinceMs() const;

    QString m_connectionName;
    Config m_config;
    QString m_configPath;
    DeclineQuery::Report m_report;
    std::unique_ptr<ReaderThread> m_reader;
    DeclineWorker *m_worker = nullptr; // lives on m_reader's thread
    quint64 m_generation = 0;
    bool m_loading = false;
    QComboBox *m_period = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_error = nullptr;
    QLabel *m_fastWarning = nullptr;
    QLabel *m_message = nullptr;
    QTableWidget *m_tools = nullptr;
    QTableWidget *m_targets = nullptr;
    QTableWidget *m_reasons = nullptr;
    QTableWidget *m_repeats = nullptr;
    QTableWidget *m_timings = nullptr;
    QTableWidget *m_fast = nullptr;
    QTimer *m_refresh = nullptr;
};

} // namespace Countersign
