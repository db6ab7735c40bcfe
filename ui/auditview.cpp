#include "auditview.h"

#include "auditdetail.h"
#include "auditexport.h"
#include "auditmodel.h"
#include "auditstore.h"
#include "blastradiustext.h"
#include "decisionchart.h"
#include "policyevents.h"
#include "revertdialog.h"
#include "riskstyle.h"
#include "themecolours.h"
#include "toolresult.h"
#include "undo.h"
#include "visibletext.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateEdit>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

namespace Countersign {

namespace {

} // namespace

AuditView::AuditView(AuditStore &store, const QString &connectionName, QWidget *parent)
    : QWidget(parent), m_store(store)
{
    m_model = new AuditModel(connectionName, this);
    buildFilters();
    buildTable();
    buildMessages();
    layOut();
    connectParts();
    reloadChoices();
    m_chart->setCounts(m_model->days());
    showStatus();
    showDetail();
}

void AuditView::buildFilters()
{
    m_decision = new QComboBox(this);
    m_decision->setObjectName(QStringLiteral("filterDecision"));
    m_decision->addItem(tr("Any decision"), QString());
    for (const char *status : {"approved", "declined", "expired", "abandoned", "timed-out", "superseded",
                               "allowed", "denied", "pending", PolicyEvents::kDecision})
        m_decision->addItem(AuditModel::decisionWords(QLatin1String(status)), QLatin1String(status));
    m_client = new QComboBox(this);
    m_client->setObjectName(QStringLiteral("filterClient"));
    m_tool = new QComboBox(this);
    m_tool->setObjectName(QStringLiteral("filterTool"));
    m_person = new QComboBox(this);
    m_person->setObjectName(QStringLiteral("filterPerson"));
    m_person->setToolTip(
        tr("Calls this person decided or approved, or that came through a connection they own"));
    m_instance = new QComboBox(this);
    m_instance->setObjectName(QStringLiteral("filterInstance"));
    m_instance->setToolTip(tr("Calls served by this instance of Countersign (a team's share one store)"));
    m_useDates = new QCheckBox(tr("From"), this);
    m_useDates->setObjectName(QStringLiteral("filterUseDates"));
    m_useDates->setToolTip(tr("Show only the days from one date to another (UTC)"));
    m_from = new QDateEdit(QDate::currentDate().addDays(-30), this);
    m_from->setObjectName(QStringLiteral("filterFrom"));
    m_from->setCalendarPopup(true);
    m_to = new QDateEdit(QDate::currentDate(), this);
    m_to->setObjectName(QStringLiteral("filterTo"));
    m_to->setCalendarPopup(true);
    m_toLabel = new QLabel(tr("to"), this);
    // The dates filter nothing until "From" is ticked, and look it.
    enableDates(false);
    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("filterText"));
    m_search->setPlaceholderText(tr("Search tool, client, plan, arguments, reason"));
    m_search->setClearButtonEnabled(true);
    auto *exportButton = new QPushButton(tr("Export…"), this);
    exportButton->setObjectName(QStringLiteral("exportButton"));
    m_exportButton = exportButton;
}

void AuditView::buildTable()
{
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("auditTable"));
    m_table->setModel(m_model);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(AuditModel::Time, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    setUpColumns();
    m_detail = new QTextBrowser(this);
    m_detail->setObjectName(QStringLiteral("auditDetail"));
    m_detail->setOpenLinks(false);
    m_chart = new DecisionChart(this);
}

void AuditView::buildMessages()
{
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("auditError"));
    m_error->setStyleSheet(ThemeColours::textCss(ThemeColours::errorText(palette())));
    m_error->setWordWrap(true);
    m_error->setTextFormat(Qt::PlainText);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->hide();
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("auditStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_exportMessage = new QLabel(this);
    m_exportMessage->setObjectName(QStringLiteral("auditExportMessage"));
    m_exportMessage->setTextFormat(Qt::PlainText);
    m_exportMessage->setWordWrap(true);
    m_exportMessage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_exportMessage->hide();
    m_revert = new QPushButton(tr("Revert…"), this);
    m_revert->setObjectName(QStringLiteral("auditRevert"));
    m_revert->setToolTip(tr("Take back what this change of the agent's did to its files"));
    m_revert->hide();
    m_revertTurn = new QPushButton(tr("Undo this turn…"), this);
    m_revertTurn->setObjectName(QStringLiteral("auditRevertTurn"));
    m_revertTurn->setToolTip(tr("Take back everything the agent's calls of this turn (between two pauses) "
                                "did to the files, as one change"));
    m_revertTurn->hide();
    m_revertMessage = new QLabel(this);
    m_revertMessage->setObjectName(QStringLiteral("auditRevertMessage"));
    m_revertMessage->setTextFormat(Qt::PlainText);
    m_revertMessage->setWordWrap(true);
    m_revertMessage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_revertMessage->hide();
}

void AuditView::layOut()
{
    auto *filters = new QHBoxLayout;
    filters->addWidget(m_decision);
    filters->addWidget(m_client);
    filters->addWidget(m_tool);
    filters->addWidget(m_person);
    filters->addWidget(m_instance);
    filters->addWidget(m_useDates);
    filters->addWidget(m_from);
    filters->addWidget(m_toLabel);
    filters->addWidget(m_to);
    filters->addWidget(m_search, 1);
    filters->addWidget(m_exportButton);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_detail);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto *footer = new QHBoxLayout;
    footer->addWidget(m_status);
    footer->addWidget(m_revert);
    footer->addWidget(m_revertTurn);
    footer->addWidget(m_revertMessage, 1);
    footer->addWidget(m_exportMessage, 1, Qt::AlignRight);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(filters);
    layout->addWidget(m_error);
    layout->addWidget(m_chart);
    layout->addWidget(splitter, 1);
    layout->addLayout(footer);
}

void AuditView::connectParts()
{
    m_refresh = new QTimer(this);
    m_refresh->setSingleShot(true);
    m_refresh->setInterval(300);
    connect(m_refresh, &QTimer::timeout, this, [this] {
        reloadChoices();
        m_model->refresh();
    });
    for (QComboBox *box : {m_decision, m_client, m_tool, m_person, m_instance})
        connect(box, &QComboBox::currentIndexChanged, this, &AuditView::applyFilter);
    connect(m_useDates, &QCheckBox::toggled, this, [this](bool on) {
        enableDates(on);
        applyFilter();
    });
    connect(m_from, &QDateEdit::dateChanged, this, &AuditView::applyFilter);
    connect(m_to, &QDateEdit::dateChanged, this, &AuditView::applyFilter);
    connect(m_search, &QLineEdit::textChanged, this, &AuditView::applyFilter);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &AuditView::showDetail);
    // The rows are read again as operations arrive: the row being read stays selected.
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        const int row = m_selectedKey ? m_model->rowOfKey(m_selectedKey) : -1;
        if (row >= 0)
            m_table->selectionModel()->setCurrentIndex(m_model->index(row, AuditModel::Time),
                                                       QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
        else
            showDetail();
    });
    connect(m_model, &AuditModel::refreshed, this, [this] {
        m_chart->setCounts(m_model->days());
        showQueryErrors();
        showStatus();
    });
    connect(m_model, &AuditModel::loadingChanged, this, &AuditView::showStatus);
    connect(m_exportButton, &QPushButton::clicked, this, &AuditView::chooseExport);
    connect(m_revert, &QPushButton::clicked, this, &AuditView::revertSelected);
    connect(m_revertTurn, &QPushButton::clicked, this, &AuditView::revertTurnSelected);
    connect(m_model, &AuditModel::exported, this, &AuditView::exportEnded);
}

void AuditView::enableDates(bool on)
{
    m_from->setEnabled(on);
    m_to->setEnabled(on);
    m_toLabel->setEnabled(on);
}

void AuditView::setUpColumns()
{
    m_table->setColumnHidden(AuditModel::Id, true);
    m_table->setColumnWidth(AuditModel::Time,
                            m_table->fontMetrics().horizontalAdvance(QStringLiteral("2026-12-02 16:30:40")) +
                                16);
    m_table->setColumnWidth(AuditModel::Tool, 140);
    m_table->setColumnWidth(AuditModel::Decision, 120);
    m_table->setColumnWidth(AuditModel::Reason, 200);
}

void AuditView::showQueryErrors()
{
    // One message at a time: the first query to fail usually fails for the reason the others do.
    QString error;
    for (const QString &queryError : {m_model->queryError(), m_choicesError}) {
        if (!queryError.isEmpty()) {
            error = queryError;
            break;
        }
    }
    if (error.isEmpty()) {
        m_error->hide();
        m_error->clear();
        return;
    }
    m_error->setText(tr("The audit log could not be read: %1").arg(error));
    m_error->show();
}

void AuditView::showStatus()
{
    if (m_model->isLoading()) {
        m_status->setText(tr("Reading the audit log…"));
        return;
    }
    const int rows = m_model->rowCount();
    m_status->setText(rows == 1 ? tr("1 operation") : tr("%1 operations").arg(QLocale().toString(rows)));
}

void AuditView::reloadChoices()
{
    auto clients = m_model->distinctClients();
    auto tools = m_model->distinctTools();
    auto people = m_model->distinctPeople();
    auto instances = m_model->distinctInstances();
    m_choicesError = !clients     ? clients.error()
                     : !tools     ? tools.error()
                     : !people    ? people.error()
                     : !instances ? instances.error()
                                  : QString();
    for (auto [box, values, any] :
         {std::tuple{m_client, &clients, tr("Any client")}, std::tuple{m_tool, &tools, tr("Any tool")},
          std::tuple{m_person, &people, tr("Anyone")},
          std::tuple{m_instance, &instances, tr("Any instance")}}) {
        if (!*values)
            continue; // keep the choices there were
        const QString current = box->currentData().toString();
        const QSignalBlocker blocker(box);
        box->clear();
        box->addItem(any, QString());
        for (const QString &v : values->value())
            box->addItem(v, v);
        box->setCurrentIndex(std::max(0, box->findData(current)));
    }
    showQueryErrors();
}

void AuditView::applyFilter()
{
    AuditFilter filter;
    filter.decision = m_decision->currentData().toString();
    filter.client = m_client->currentData().toString();
    filter.tool = m_tool->currentData().toString();
    filter.person = m_person->currentData().toString();
    filter.instance = m_instance->currentData().toString();
    if (m_useDates->isChecked()) {
        filter.from = m_from->date();
        filter.to = m_to->date();
    }
    filter.text = m_search->text();
    if (filter == m_model->filter())
        return;
    m_model->setFilter(filter);
}

void AuditView::refreshSoon()
{
    // Not restarted while it runs: calls arriving faster than the interval still refresh the view.
    if (!m_refresh->isActive())
        m_refresh->start();
}

void AuditView::showDetail()
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    m_revert->hide();
    m_revertTurn->hide();
    m_selectedNonce.clear();
    if (!current.isValid()) {
        m_selectedKey = 0;
        m_detail->setHtml(tr("<p>Select a row to see what its card showed, its decision and receipt.</p>"));
        return;
    }
    m_selectedKey = m_model->keyAt(current.row());
    const QString id = m_model->idAt(current.row());
    if (m_selectedKey < 0) { // a change of the configuration: its row says it all
        const auto cell = [&](int column) { return m_model->index(current.row(), column).data().toString(); };
        QStringList lines = {
            cell(AuditModel::Decision), tr("When: %1").arg(cell(AuditModel::Time)),
            tr("File: %1").arg(cell(AuditModel::Target)),
            tr("Decided by: %1")
                .arg(cell(AuditModel::Who).isEmpty() ? tr("(nobody: it narrowed)") : cell(AuditModel::Who)),
            tr("What changed:")};
        for (const QString &change : cell(AuditModel::Reason).split(QStringLiteral("; "), Qt::SkipEmptyParts))
            lines.append(QStringLiteral("  ") + change);
        lines.append(tr("In the audit chain as %1.").arg(id));
        m_detail->setPlainText(lines.join(QLatin1Char('\n')));
        return;
    }
    auto op = m_store.storedOperation(id); // history as stored; audit verify checks it
    if (!op || !op.value()) {
        m_detail->setPlainText(op ? tr("This operation is no longer in the store.") : op.error());
        return;
    }
    m_detail->setHtml(AuditDetail::page(m_store, *op.value()));
    m_selectedNonce = op.value()->nonce;
    if (m_undo) {
        const auto undoable = m_undo->hasUndo(m_selectedNonce);
        m_revert->setVisible(undoable && undoable.value());
        // A call of an agent session: its whole turn can go back as one (the turn is read when
        // asked for, not on every row shown).
        const auto turn =
            undoable && undoable.value() ? m_undo->hasTurn(m_selectedNonce) : Result<bool>(false);
        m_revertTurn->setVisible(turn && turn.value());
    }
}

void AuditView::setUndo(Undo *undo, const QString &by)
{
    m_undo = undo;
    m_revertBy = by;
    showDetail();
}

void AuditView::revertSelected()
{
    offerRevert(false);
}

void AuditView::revertTurnSelected()
{
    offerRevert(true);
}

void AuditView::offerRevert(bool wholeTurn)
{
    if (!m_undo || m_selectedNonce.isEmpty())
        return;
    auto nonces =
        wholeTurn ? m_undo->turnOf(m_selectedNonce) : Result<QStringList>(QStringList{m_selectedNonce});
    if (!nonces)
        return showRevertMessage(tr("Cannot undo the turn: %1").arg(nonces.error()), true);
    auto preview = m_undo->previewTurn(nonces.value());
    if (!preview)
        return showRevertMessage(tr("Cannot revert: %1").arg(preview.error()), true);
    if (!preview.value().refusal.isEmpty())
        return showRevertMessage(tr("Cannot revert: %1. Nothing was changed.").arg(preview.value().refusal),
                                 true);
    auto *dialog = new RevertDialog(preview.value(), this);
    connect(dialog, &QDialog::accepted, this, [this, nonces = nonces.value()] {
        auto reverted = m_undo->revertTurn(nonces, m_revertBy);
        showRevertMessage(reverted ? reverted.value() : reverted.error(), !reverted);
        refreshSoon();
    });
    dialog->open();
}

void AuditView::showRevertMessage(const QString &text, bool failed)
{
    m_revertMessage->setStyleSheet(failed ? ThemeColours::textCss(ThemeColours::errorText(palette()))
                                          : QString());
    m_revertMessage->setText(text);
    m_revertMessage->show();
}

void AuditView::exportTo(const QString &path)
{
    const bool asJson = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
    m_exportButton->setEnabled(false);
    showExportMessage(tr("Exporting to %1…").arg(QDir::toNativeSeparators(path)), false);
    if (m_model->exportShown(path, asJson))
        return; // on the model's thread: ends in AuditModel::exported
    const auto ids = m_model->filteredIds();
    if (!ids)
        return exportEnded(path, 0, ids.error());
    auto rows = m_store.report(asJson);
    if (!rows)
        return exportEnded(path, 0, rows.error());
    const auto saved = AuditExport::save(std::move(rows).value(), ids.value(), path, asJson);
    exportEnded(path, saved ? saved.value() : 0, saved ? QString() : saved.error());
}

void AuditView::exportEnded(const QString &path, int rows, const QString &error)
{
    m_exportButton->setEnabled(true);
    const QString shownPath = QDir::toNativeSeparators(path);
    if (!error.isEmpty()) {
        showExportMessage(tr("Nothing was exported to %1: %2").arg(shownPath, error), true);
        Q_EMIT exportFinished(false, error);
        return;
    }
    const QString format = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive) ? QStringLiteral("JSON")
                                                                                      : QStringLiteral("CSV");
    showExportMessage(
        rows == 1 ? tr("Exported 1 row to %1 (%2)").arg(shownPath, format)
                  : tr("Exported %1 rows to %2 (%3)").arg(QLocale().toString(rows), shownPath, format),
        false);
    Q_EMIT exportFinished(true, QString());
}

void AuditView::showExportMessage(const QString &text, bool failed)
{
    m_exportMessage->setStyleSheet(failed ? ThemeColours::textCss(ThemeColours::errorText(palette()))
                                          : QString());
    m_exportMessage->setText(text);
    m_exportMessage->show();
}

void AuditView::chooseExport()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the audit rows shown"),
                                                      QStringLiteral("countersign-audit.csv"),
                                                      tr("CSV (*.csv);;JSON (*.json)"));
    if (!path.isEmpty())
        exportTo(path);
}

} // namespace Countersign
