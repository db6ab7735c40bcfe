#include "declinesview.h"

#include "declineworker.h"
#include "denyrule.h"
#include "denyruledialog.h"
#include "readingtime.h"
#include "themecolours.h"
#include "visibletext.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLoggingCategory>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

Q_LOGGING_CATEGORY(lcDeclinesView, "countersign.declines")

namespace Countersign {

namespace {

constexpr qint64 kHourMs = 3'600'000;
constexpr qsizetype kCellLength = 200;

// Agent text for one table cell: plain, invisible and reordering characters shown as marks, line
// breaks and tabs as signs (a cell is one line), cut at kCellLength.
QString cellText(const QString &text)
{
    QString shown = visibleText(text.size() > kCellLength * 2 ? text.left(kCellLength * 2) : text);
    shown.replace(QLatin1Char('\n'), QStringLiteral("\u21b5"));
    shown.replace(QLatin1Char('\t'), QStringLiteral("\u21e5"));
    if (shown.size() > kCellLength || text.size() > kCellLength * 2)
        shown = shown.left(kCellLength) + QStringLiteral("\u2026");
    return shown;
}

QString duration(qint64 ms)
{
    if (ms < 10'000)
        return QObject::tr("%1 s").arg(double(ms) / 1000.0, 0, 'f', 1);
    if (ms < 120'000)
        return QObject::tr("%1 s").arg(ms / 1000);
    if (ms < 2 * kHourMs)
        return QObject::tr("%1 min %2 s").arg(ms / 60'000).arg(ms / 1000 % 60);
    return QObject::tr("%1 h %2 min").arg(ms / kHourMs).arg(ms / 60'000 % 60);
}

// A table of read-only plain-text rows, sized to its content's width.
QTableWidget *table(const QString &name, const QStringList &headers, QWidget *parent)
{
    auto *t = new QTableWidget(0, int(headers.size()), parent);
    t->setObjectName(name);
    t->setHorizontalHeaderLabels(headers);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setWordWrap(false);
    t->setTextElideMode(Qt::ElideMiddle);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 10);
    t->horizontalHeader()->setStretchLastSection(false);
    t->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int column = 1; column < headers.size(); ++column)
        t->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    return t;
}

QTableWidgetItem *item(const QString &text, bool number = false)
{
    auto *cell = new QTableWidgetItem(text);
    if (number)
        cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return cell;
}

void setRow(QTableWidget *t, int row, const QStringList &cells, int numbersFrom)
{
    for (int column = 0; column < cells.size(); ++column)
        t->setItem(row, column, item(cells[column], column >= numbersFrom));
}

QWidget *section(const QString &title, const QString &explanation, QWidget *content, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->setSpacing(2);
    auto *heading = new QLabel(title, box);
    QFont bold = heading->font();
    bold.setBold(true);
    heading->setFont(bold);
    heading->setTextFormat(Qt::PlainText);
    layout->addWidget(heading);
    if (!explanation.isEmpty()) {
        auto *words = new QLabel(explanation, box);
        words->setTextFormat(Qt::PlainText);
        words->setWordWrap(true);
        words->setForegroundRole(QPalette::PlaceholderText);
        layout->addWidget(words);
    }
    layout->addWidget(content, 1);
    return box;
}

QString reasonKind(DeclineQuery::Reason::Kind kind)
{
    switch (kind) {
    case DeclineQuery::Reason::Kind::Person:
        return QObject::tr("a person");
    case DeclineQuery::Reason::Kind::Client:
        return QObject::tr("the client");
    case DeclineQuery::Reason::Kind::Rule:
        return QObject::tr("a rule");
    }
    return {};
}

QString compactJson(const nlohmann::json &value)
{
    return QString::fromStdString(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

QString person(const QString &decidedBy)
{
    return decidedBy.startsWith(QLatin1String("console:")) ? decidedBy.mid(8) : decidedBy;
}

} // namespace

DeclinesView::DeclinesView(const QString &connectionName, QWidget *parent)
    : QWidget(parent), m_connectionName(connectionName)
{
    qRegisterMetaType<Countersign::DeclineQuery::Report>();
    setObjectName(QStringLiteral("declinesView"));
    m_period = new QComboBox(this);
    m_period->setObjectName(QStringLiteral("declinesPeriod"));
    m_period->addItem(tr("Last 24 hours"), 24 * kHourMs);
    m_period->addItem(tr("Last 7 days"), 7 * 24 * kHourMs);
    m_period->addItem(tr("Last 30 days"), 30 * 24 * kHourMs);
    m_period->addItem(tr("All time"), qint64(0));
    m_period->setCurrentIndex(1);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("declinesStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("declinesError"));
    m_error->setTextFormat(Qt::PlainText);
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(ThemeColours::textCss(ThemeColours::errorText(palette())));
    m_error->hide();
    m_fastWarning = new QLabel(this);
    m_fastWarning->setObjectName(QStringLiteral("declinesFastWarning"));
    m_fastWarning->setTextFormat(Qt::PlainText);
    m_fastWarning->setWordWrap(true);
    // A light banner on every theme, so its text is dark on every theme too (as the window's warnings).
    m_fastWarning->setStyleSheet(QStringLiteral("#declinesFastWarning { background: #fff8c5; color: #3b2300; "
                                                "border-radius: 4px; padding: 6px 8px }"));
    m_fastWarning->hide();
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("declinesMessage"));
    m_message->setTextFormat(Qt::PlainText);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();

    m_tools =
        table(QStringLiteral("declinedTools"), {tr("Tool"), tr("Declined"), tr("Denied by rule")}, this);
    m_targets =
        table(QStringLiteral("declinedTargets"), {tr("Target"), tr("Declined"), tr("Denied by rule")}, this);
    m_reasons = table(QStringLiteral("declinedReasons"), {tr("Reason"), tr("By"), tr("Times")}, this);
    m_repeats = table(QStringLiteral("repeatedDeclines"),
                      {tr("Tool"), tr("Same"), tr("Target / arguments"), tr("Declines"), tr("People"),
                       tr("Last"), QString()},
                      this);
    m_repeats->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_repeats->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);
    m_repeats->verticalHeader()->setDefaultSectionSize(m_repeats->fontMetrics().height() + 16);
    m_timings =
        table(QStringLiteral("decisionTimes"),
              {tr("Tool"), tr("Decisions"), tr("Median"), tr("90th percentile"), tr("Approved")}, this);
    m_fast = table(QStringLiteral("fastApprovals"),
                   {tr("Person"), tr("Tool"), tr("Too fast"), tr("Fastest"), tr("Its card needed")}, this);
    m_fast->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Period:"), this));
    top->addWidget(m_period);
    top->addWidget(m_status, 1);

    auto *lists = new QSplitter(Qt::Horizontal, this);
    lists->addWidget(section(tr("Most declined tools"), {}, m_tools, lists));
    lists->addWidget(section(tr("Most declined targets"), {}, m_targets, lists));
    lists->addWidget(section(tr("Most given reasons"), {}, m_reasons, lists));
    lists->setChildrenCollapsible(false);
    auto *figures = new QSplitter(Qt::Horizontal, this);
    figures->addWidget(section(tr("Time to decide"),
                               tr("A person's decisions at a console, from the card's creation."), m_timings,
                               figures));
    figures->addWidget(
        section(tr("Approvals faster than a card can be read"),
                tr("Sooner than the cards' minimum time plus %1 words a second of what the card showed.")
                    .arg(ReadingTime::kWordsPerSecond),
                m_fast, figures));
    figures->setChildrenCollapsible(false);
    auto *rows = new QSplitter(Qt::Vertical, this);
    rows->addWidget(lists);
    rows->addWidget(section(tr("Declined again and again"),
                            tr("The same call, or the same target through other calls, declined twice or "
                               "more. \"Deny this from now on\" shows the rule it would add and asks first."),
                            m_repeats, rows));
    rows->addWidget(figures);
    rows->setChildrenCollapsible(false);
    rows->setStretchFactor(0, 3);
    rows->setStretchFactor(1, 2);
    rows->setStretchFactor(2, 2);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_error);
    layout->addWidget(m_fastWarning);
    layout->addWidget(m_message);
    layout->addWidget(rows, 1);

    m_refresh = new QTimer(this);
    m_refresh->setSingleShot(true);
    m_refresh->setInterval(300);
    connect(m_refresh, &QTimer::timeout, this, &DeclinesView::refresh);
    connect(m_period, &QComboBox::currentIndexChanged, this, &DeclinesView::refresh);
    startWorker(connectionName);
}

DeclinesView::~DeclinesView()
{
    stopWorker();
}

void DeclinesView::startWorker(const QString &connectionName)
{
    m_worker = new DeclineWorker(connectionName);
    connect(m_worker, &DeclineWorker::reported, this, &DeclinesView::showReport);
    connect(m_worker, &DeclineWorker::unavailable, this, [this](const QString &error) {
        qCWarning(lcDeclinesView, "the Declines view reads on the window's thread: %s", qPrintable(error));
        stopWorker();
        refresh(); // the request the worker could not answer
    });
    m_reader = std::make_unique<ReaderThread>(m_worker, QStringLiteral("countersign-declines"), this);
}

void DeclinesView::stopWorker()
{
    m_reader.reset();
    m_worker = nullptr; // deleted on its thread as it finished
}

void DeclinesView::setConfig(const Config &config, const QString &configPath)
{
    const bool minimumChanged = config.cardMinimumSeconds() != m_config.cardMinimumSeconds();
    m_config = config;
    m_configPath = configPath;
    fillRepeats(); // what the policy in force denies now
    if (minimumChanged)
        refreshSoon();
}

qint64 DeclinesView::sinceMs() const
{
    const qint64 span = m_period->currentData().toLongLong();
    return span <= 0 ? 0 : QDateTime::currentMSecsSinceEpoch() - span;
}

void DeclinesView::refreshSoon()
{
    if (isVisible() && !m_refresh->isActive())
        m_refresh->start();
}

void DeclinesView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    // Read again at every showing: the period ends now, and decisions on other instances and rule
    // denials on a shared store reach no signal of this window.
    refresh();
}

void DeclinesView::refresh()
{
    m_refresh->stop();
    const quint64 generation = ++m_generation;
    if (m_worker) {
        m_loading = true;
        m_status->setText(tr("Reading…"));
        m_worker->request(generation, sinceMs(), m_config.cardMinimumSeconds());
        return;
    }
    auto report = DeclineQuery(m_connectionName).report(sinceMs(), m_config.cardMinimumSeconds());
    showReport(generation, report ? report.value() : DeclineQuery::Report(),
               report ? QString() : report.error());
}

void DeclinesView::showReport(quint64 generation, const DeclineQuery::Report &report, const QString &error)
{
    if (generation != m_generation)
        return; // a newer report was asked for since
    m_loading = false;
    m_report = report;
    m_error->setText(error.isEmpty() ? QString() : tr("The declines cannot be read: %1").arg(error));
    m_error->setVisible(!error.isEmpty());
    if (!error.isEmpty())
        qCWarning(lcDeclinesView, "the Declines view's query failed: %s", qPrintable(error));
    fill();
    Q_EMIT refreshed(error);
}

void DeclinesView::fill()
{
    const QString period = m_period->currentIndex() == m_period->count() - 1
                               ? tr("in all")
                               : tr("in the %1").arg(m_period->currentText().toLower());
    m_status->setText(tr("%1 declined by a decision and %2 denied by a rule %3.\nNot decided in time: %4 "
                         "expired while their agent waited, %5 abandoned by their agent, %6 approved but "
                         "timed out before their agent came back; %7 superseded by a changed plan.")
                          .arg(m_report.declined)
                          .arg(m_report.denied)
                          .arg(period)
                          .arg(m_report.expired)
                          .arg(m_report.abandoned)
                          .arg(m_report.timedOut)
                          .arg(m_report.superseded));
    const auto fillCounts = [](QTableWidget *t, const QList<DeclineQuery::Count> &counts) {
        t->setRowCount(int(counts.size()));
        for (int row = 0; row < counts.size(); ++row)
            setRow(t, row,
                   {cellText(counts[row].name), QString::number(counts[row].declined),
                    QString::number(counts[row].denied)},
                   1);
    };
    fillCounts(m_tools, m_report.tools);
    fillCounts(m_targets, m_report.targets);
    m_reasons->setRowCount(int(m_report.reasons.size()));
    for (int row = 0; row < m_report.reasons.size(); ++row) {
        const DeclineQuery::Reason &reason = m_report.reasons[row];
        setRow(m_reasons, row,
               {reason.text.isEmpty() ? tr("(no reason given)") : cellText(reason.text),
                reasonKind(reason.kind), QString::number(reason.count)},
               2);
    }
    fillRepeats();
    m_timings->setRowCount(int(m_report.timings.size()));
    for (int row = 0; row < m_report.timings.size(); ++row) {
        const DeclineQuery::ToolTiming &timing = m_report.timings[row];
        setRow(m_timings, row,
               {cellText(timing.tool), QString::number(timing.approved + timing.declined),
                duration(timing.medianMs), duration(timing.p90Ms),
                tr("%1 % (%2 of %3)")
                    .arg(qRound(timing.approvalRate() * 100.0))
                    .arg(timing.approved)
                    .arg(timing.approved + timing.declined)},
               1);
    }
    m_fast->setRowCount(int(m_report.fast.size()));
    for (int row = 0; row < m_report.fast.size(); ++row) {
        const DeclineQuery::FastApprovals &fast = m_report.fast[row];
        setRow(m_fast, row,
               {cellText(person(fast.person)), cellText(fast.tool),
                tr("%1 of %2").arg(fast.fast).arg(fast.approvals), duration(fast.fastestMs),
                duration(fast.fastestReadingMs)},
               2);
    }
    if (m_report.fastTotal > 0) {
        m_fastWarning->setText(
            tr("\u26a0 %1 of %2 approvals %3 came faster than their card can be read (the cards' minimum of "
               "%4 s plus %5 words a second): see who and which tools below.")
                .arg(m_report.fastTotal)
                .arg(m_report.approvalsTotal)
                .arg(period)
                .arg(m_report.cardMinimumSeconds)
                .arg(ReadingTime::kWordsPerSecond));
    }
    m_fastWarning->setVisible(m_report.fastTotal > 0);
}

void DeclinesView::fillRepeats()
{
    m_repeats->setRowCount(int(m_report.repeats.size()));
    for (int row = 0; row < m_report.repeats.size(); ++row) {
        const DeclineQuery::Repeat &repeat = m_report.repeats[row];
        const bool sameCall = repeat.same == DeclineQuery::Repeat::Same::Call;
        setRow(m_repeats, row,
               {cellText(repeat.tool), sameCall ? tr("call") : tr("target"),
                sameCall ? cellText(compactJson(repeat.arguments))
                         : tr("%1 (%2 calls)").arg(cellText(repeat.target)).arg(repeat.calls),
                QString::number(repeat.declines), QString::number(repeat.people),
                QDateTime::fromMSecsSinceEpoch(repeat.lastMs).toString(QStringLiteral("yyyy-MM-dd HH:mm"))},
               3);
        // What the policy in force does with the latest of these calls now.
        const PolicyDecision now = m_config.policy().evaluate(repeat.tool, repeat.arguments, Verdict::Ask);
        auto *button = new QPushButton(m_repeats);
        button->setObjectName(QStringLiteral("denyFromNowOn"));
        button->setAutoDefault(false);
        if (now.verdict == Verdict::Deny) {
            button->setText(tr("Denied now"));
            button->setEnabled(false);
            button->setToolTip(tr("A rule in force denies this call already."));
        } else {
            button->setText(tr("Deny this from now on"));
            connect(button, &QPushButton::clicked, this, [this, row] { denyFromNowOn(row); });
        }
        m_repeats->setCellWidget(row, m_repeats->columnCount() - 1, button);
    }
}

void DeclinesView::denyFromNowOn(int row)
{
    if (row < 0 || row >= m_report.repeats.size())
        return;
    const DeclineQuery::Repeat repeat = m_report.repeats[row];
    const QString reason = tr("declined %1 times in the Countersign window").arg(repeat.declines);
    auto rule = repeat.same == DeclineQuery::Repeat::Same::Call
                    ? DenyRule::forCall(repeat.tool, repeat.arguments, reason)
                    : DenyRule::forTarget(repeat.tool, repeat.target, repeat.arguments, reason);
    if (!rule) {
        setMessage(tr("No rule was written: %1.").arg(rule.error()), true);
        return;
    }
    if (m_configPath.isEmpty()) {
        setMessage(tr("No rule was written: Countersign does not know its configuration file."), true);
        return;
    }
    // Modal, opened without a nested event loop: the view may be read again meanwhile, so the
    // rule and call shown are the ones confirmed.
    auto *dialog = new DenyRuleDialog(repeat.tool, repeat.arguments, rule.value(), m_configPath, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, made = rule.value(), repeat] {
        if (auto written = made.prependTo(m_configPath); !written) {
            setMessage(tr("No rule was written: %1").arg(written.error()), true);
            return;
        }
        const QString added =
            tr("Added first in the rules of %1: %2.").arg(m_configPath, visibleText(made.rule().describe()));
        setMessage(added + QLatin1Char(' ') +
                       tr("It applies once Countersign reads the file again (at once: a deny only "
                          "narrows), and the audit log records the change."),
                   false);
        // The console reads the file at this signal; when it has, the configuration in force says so.
        Q_EMIT ruleWritten(m_configPath);
        if (m_config.policy().evaluate(repeat.tool, repeat.arguments, Verdict::Ask).verdict == Verdict::Deny)
            setMessage(added + QLatin1Char(' ') +
                           tr("It is in force: Countersign read the file again and applied it (a deny "
                              "only narrows), and the audit log records the change."),
                       false);
    });
    connect(dialog, &QDialog::rejected, this,
            [this] { setMessage(tr("Nothing was changed: the rule was not added."), false); });
    dialog->open();
}

void DeclinesView::setMessage(const QString &text, bool failed)
{
    m_message->setText(text);
    m_message->setStyleSheet(failed ? ThemeColours::textCss(ThemeColours::errorText(palette())) : QString());
    m_message->show();
}

} // namespace Countersign
