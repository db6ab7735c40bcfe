#include "auditview.h"

#include "auditexport.h"
#include "auditmodel.h"
#include "auditstore.h"
#include "decisionchart.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateEdit>
#include <QDateTime>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

namespace Countersign {

namespace {

QString html(const QString &text)
{
    return text.toHtmlEscaped();
}

} // namespace

AuditView::AuditView(AuditStore &store, const QString &connectionName, QWidget *parent)
    : QWidget(parent), m_store(store)
{
    m_model = new AuditModel(connectionName, this);
    m_decision = new QComboBox(this);
    m_decision->setObjectName(QStringLiteral("filterDecision"));
    m_decision->addItem(tr("Any decision"), QString());
    for (const char *status :
         {"approved", "declined", "expired", "superseded", "allowed", "denied", "pending"})
        m_decision->addItem(AuditModel::decisionWords(QLatin1String(status)), QLatin1String(status));
    m_client = new QComboBox(this);
    m_client->setObjectName(QStringLiteral("filterClient"));
    m_tool = new QComboBox(this);
    m_tool->setObjectName(QStringLiteral("filterTool"));
    m_useDates = new QCheckBox(tr("From"), this);
    m_useDates->setObjectName(QStringLiteral("filterUseDates"));
    m_from = new QDateEdit(QDate::currentDate().addDays(-30), this);
    m_from->setObjectName(QStringLiteral("filterFrom"));
    m_from->setCalendarPopup(true);
    m_to = new QDateEdit(QDate::currentDate(), this);
    m_to->setObjectName(QStringLiteral("filterTo"));
    m_to->setCalendarPopup(true);
    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("filterText"));
    m_search->setPlaceholderText(tr("Search tool, client, plan, arguments, reason"));
    m_search->setClearButtonEnabled(true);
    auto *exportButton = new QPushButton(tr("Export…"), this);
    exportButton->setObjectName(QStringLiteral("exportButton"));

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
    m_chart = new DecisionChart(this);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("auditError"));
    m_error->setStyleSheet(QStringLiteral("color: #cf222e"));
    m_error->setWordWrap(true);
    m_error->setTextFormat(Qt::PlainText);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->hide();

    auto *filters = new QHBoxLayout;
    filters->addWidget(m_decision);
    filters->addWidget(m_client);
    filters->addWidget(m_tool);
    filters->addWidget(m_useDates);
    filters->addWidget(m_from);
    filters->addWidget(new QLabel(tr("to"), this));
    filters->addWidget(m_to);
    filters->addWidget(m_search, 1);
    filters->addWidget(exportButton);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_detail);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(filters);
    layout->addWidget(m_error);
    layout->addWidget(m_chart);
    layout->addWidget(splitter, 1);

    m_refresh = new QTimer(this);
    m_refresh->setSingleShot(true);
    m_refresh->setInterval(300);
    connect(m_refresh, &QTimer::timeout, this, [this] {
        reloadChoices();
        m_model->refresh();
        reloadChart();
    });
    for (QComboBox *box : {m_decision, m_client, m_tool})
        connect(box, &QComboBox::currentIndexChanged, this, &AuditView::applyFilter);
    connect(m_useDates, &QCheckBox::toggled, this, &AuditView::applyFilter);
    connect(m_from, &QDateEdit::dateChanged, this, &AuditView::applyFilter);
    connect(m_to, &QDateEdit::dateChanged, this, &AuditView::applyFilter);
    connect(m_search, &QLineEdit::textChanged, this, &AuditView::applyFilter);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &AuditView::showDetail);
    connect(m_model, &QAbstractItemModel::modelReset, this, &AuditView::showDetail);
    connect(m_model, &AuditModel::refreshed, this, &AuditView::showQueryErrors);
    // A failed query leaves the model without columns, and the header forgets their widths and
    // which are hidden: set them up again when the columns come back.
    connect(m_table->horizontalHeader(), &QHeaderView::sectionCountChanged, this,
            [this](int oldCount, int newCount) {
                if (oldCount == 0 && newCount > 0)
                    setUpColumns();
            });
    connect(exportButton, &QPushButton::clicked, this, &AuditView::chooseExport);
    reloadChoices();
    reloadChart();
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
    for (const QString &queryError : {m_model->queryError(), m_choicesError, m_chartError}) {
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

void AuditView::reloadChart()
{
    auto counts = m_model->perDay();
    m_chartError = counts ? QString() : counts.error();
    m_chart->setCounts(counts ? std::move(counts).value() : QList<AuditQuery::DayCount>());
    showQueryErrors();
}

void AuditView::reloadChoices()
{
    auto clients = m_model->distinctClients();
    auto tools = m_model->distinctTools();
    m_choicesError = !clients ? clients.error() : !tools ? tools.error() : QString();
    for (auto [box, values, any] :
         {std::tuple{m_client, &clients, tr("Any client")}, std::tuple{m_tool, &tools, tr("Any tool")}}) {
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
    if (m_useDates->isChecked()) {
        filter.from = m_from->date();
        filter.to = m_to->date();
    }
    filter.text = m_search->text();
    if (filter == m_model->filter())
        return;
    m_model->setFilter(filter);
    reloadChart();
}

void AuditView::refreshSoon()
{
    m_refresh->start();
}

void AuditView::showDetail()
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    if (!current.isValid()) {
        m_detail->setHtml(tr("<p>Select a row to see its prompt, plan and receipt.</p>"));
        return;
    }
    const QString id = m_model->idAt(current.row());
    auto op = m_store.operation(id);
    if (!op || !op.value()) {
        m_detail->setPlainText(op ? tr("This operation is no longer in the store.") : op.error());
        return;
    }
    const Operation &o = *op.value();
    QString page = QStringLiteral("<h3>%1</h3>").arg(html(o.plan.title.isEmpty() ? o.tool : o.plan.title));
    page +=
        QStringLiteral("<p><b>%1</b> %2<br><b>%3</b> %4<br><b>%5</b> %6</p>")
            .arg(tr("Connection:"), html(o.principal), tr("Rule:"), html(o.rule), tr("Id:"), html(o.nonce));
    if (!o.plan.prompt.isEmpty())
        page += QStringLiteral("<p><b>%1</b></p><pre>%2</pre>").arg(tr("Prompt"), html(o.plan.prompt));
    if (!o.plan.diff.isEmpty())
        page +=
            QStringLiteral("<p><b>%1</b></p><pre>%2</pre>").arg(tr("Plan"), html(o.plan.diff.left(200'000)));
    page += QStringLiteral("<p><b>%1</b></p><pre>%2</pre>")
                .arg(tr("Arguments"), html(QString::fromStdString(o.arguments.dump(2))));
    if (auto decision = m_store.decision(id); decision && decision.value()) {
        const Decision &d = *decision.value();
        page += QStringLiteral("<p><b>%1</b> %2 %3 %4 %5%6</p>")
                    .arg(tr("Decision:"), statusName(d.outcome), tr("by"), html(d.by),
                         QDateTime::fromMSecsSinceEpoch(d.atMs).toString(Qt::ISODate),
                         d.reason.isEmpty() ? QString() : QStringLiteral(" — ") + html(d.reason));
    }
    if (auto claim = m_store.claimOf(id); claim && claim.value()) {
        const Claim &c = *claim.value();
        if (!c.finishedMs) {
            page += tr("<p><b>Outcome unknown:</b> the run was claimed at %1 and no end is recorded: it is "
                       "still running, or "
                       "Countersign stopped during it and it may or may not have run (it is never run "
                       "again).</p>")
                        .arg(QDateTime::fromMSecsSinceEpoch(c.claimedMs).toString(Qt::ISODate));
        } else {
            const auto meta = c.result.value("_meta", nlohmann::json::object());
            if (meta.contains("dev.countersign/receipt"))
                page += QStringLiteral("<p><b>%1</b></p><pre>%2</pre>")
                            .arg(tr("Receipt"),
                                 html(QString::fromStdString(meta["dev.countersign/receipt"].dump(2))));
            const auto content = c.result.value("content", nlohmann::json::array());
            if (!content.empty() && content[0].is_object())
                page += QStringLiteral("<p><b>%1</b></p><pre>%2</pre>")
                            .arg(tr("Result"),
                                 html(QString::fromStdString(content[0].value("text", std::string()))
                                          .left(20'000)));
        }
    }
    m_detail->setHtml(page);
}

bool AuditView::exportTo(const QString &path, QString *error)
{
    const auto ids = m_model->filteredIds();
    if (!ids) {
        if (error)
            *error = ids.error();
        return false;
    }
    const QSet<QString> wanted(ids.value().cbegin(), ids.value().cend());
    const bool asJson = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
    auto rows = m_store.report(asJson);
    if (!rows) {
        if (error)
            *error = rows.error();
        return false;
    }
    QList<nlohmann::json> kept;
    for (auto &row : rows.value()) {
        if (wanted.contains(QString::fromStdString(row.value("id", std::string()))))
            kept.append(std::move(row));
    }
    const QByteArray bytes = asJson ? AuditExport::json(kept) : AuditExport::csv(kept);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error)
            *error = file.errorString();
        return false;
    }
    return true;
}

void AuditView::chooseExport()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the audit rows shown"),
                                                      QStringLiteral("countersign-audit.csv"),
                                                      tr("CSV (*.csv);;JSON (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportTo(path, &error))
        QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1: %2").arg(path, error));
}

} // namespace Countersign
