#include "auditmodel.h"

#include "auditworker.h"

#include <QDateTime>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QSqlDatabase>
#include <QTextDocument>

Q_LOGGING_CATEGORY(lcAuditView, "countersign.audit")

namespace Countersign {

namespace {

// The file behind a connection; empty for ":memory:", URIs and connections that are not open.
QString databaseFile(const QString &connectionName)
{
    const QSqlDatabase db = QSqlDatabase::database(connectionName, false);
    if (!db.isOpen() || db.connectOptions().contains(QLatin1String("QSQLITE_OPEN_URI")))
        return {};
    const QFileInfo file(db.databaseName());
    return file.isFile() ? file.absoluteFilePath() : QString();
}

} // namespace

AuditModel::AuditModel(QString connectionName, QObject *parent)
    : QAbstractTableModel(parent), m_query(connectionName)
{
    if (const QString file = databaseFile(connectionName); !file.isEmpty())
        startWorker(file);
    refresh();
}

AuditModel::~AuditModel()
{
    stopWorker();
}

void AuditModel::startWorker(const QString &databasePath)
{
    m_worker = new AuditWorker(databasePath);
    connect(m_worker, &AuditWorker::listed, this, &AuditModel::show);
    connect(m_worker, &AuditWorker::exported, this, &AuditModel::exported);
    connect(m_worker, &AuditWorker::unavailable, this, [this](const QString &error) {
        qCWarning(lcAuditView, "the audit view reads on the window's thread: %s", qPrintable(error));
        stopWorker();
        refresh();
    });
    m_reader = std::make_unique<ReaderThread>(m_worker, QStringLiteral("countersign-audit"), this);
}

void AuditModel::stopWorker()
{
    m_reader.reset();
    m_worker = nullptr; // deleted on its thread as it finished
}

void AuditModel::refresh()
{
    m_daysWanted = true;
    list();
}

void AuditModel::list()
{
    const quint64 generation = ++m_generation;
    if (m_worker) {
        setLoading(true);
        m_worker->request(generation, m_filter, sortColumn(), m_sortOrder, m_daysWanted);
        return;
    }
    AuditListing listing;
    const QString error =
        AuditWorker::read(m_query, m_filter, sortColumn(), m_sortOrder, m_daysWanted, listing);
    show(generation, listing, error);
}

void AuditModel::show(quint64 generation, const AuditListing &listing, const QString &error)
{
    if (generation != m_generation)
        return; // a newer listing was asked for since
    m_shownGeneration = generation;
    beginResetModel();
    m_pages.clear();
    m_pagesRead.clear();
    m_queryError = error;
    // Empty rather than the previous rows: a table that looks current but is not would mislead.
    m_order = error.isEmpty() ? listing.order : QList<qint64>();
    if (!error.isEmpty()) {
        m_days.clear();
    } else if (listing.withDays) {
        m_days = listing.perDay;
        m_daysWanted = false;
    }
    endResetModel();
    if (!error.isEmpty())
        qCWarning(lcAuditView, "the audit view's query failed: %s", qPrintable(error));
    setLoading(false);
    Q_EMIT refreshed(m_queryError);
}

void AuditModel::setLoading(bool loading)
{
    if (m_loading == loading)
        return;
    m_loading = loading;
    Q_EMIT loadingChanged(loading);
}

void AuditModel::setFilter(const AuditFilter &filter)
{
    m_filter = filter;
    refresh();
}

void AuditModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column > Outcome)
        return;
    m_sortColumn = column;
    m_sortOrder = order;
    list(); // the same rows in another order: the days stay
}

int AuditModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_order.size());
}

int AuditModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(ColumnCount);
}

const AuditQuery::Row *AuditModel::rowAt(int row) const
{
    if (row < 0 || row >= m_order.size())
        return nullptr;
    const int page = row / kPageRows;
    auto found = m_pages.constFind(page);
    if (found == m_pages.constEnd()) {
        const QList<qint64> keys = m_order.mid(qsizetype(page) * kPageRows, kPageRows);
        // In the listing's order; a row gone since (the store was changed around the app) stays
        // blank.
        QList<AuditQuery::Row> rows(keys.size());
        auto read = m_query.rowsWithKeys(keys);
        if (read) {
            QHash<qint64, qsizetype> at;
            for (qsizetype i = 0; i < keys.size(); ++i)
                at.insert(keys[i], i);
            for (AuditQuery::Row &r : read.value()) {
                if (const auto i = at.constFind(r.key); i != at.constEnd())
                    rows[*i] = std::move(r);
            }
        } else {
            // Kept blank until the next listing rather than read again at every paint; the view
            // says why.
            qCWarning(lcAuditView, "the audit view's rows could not be read: %s", qPrintable(read.error()));
            auto *self = const_cast<AuditModel *>(this);
            QMetaObject::invokeMethod(
                self,
                [self, shown = m_shownGeneration, error = read.error()] {
                    if (shown != self->m_shownGeneration)
                        return; // about rows no longer shown
                    if (!self->m_queryError.isEmpty())
                        return; // the listing's own error says more
                    self->m_queryError = error;
                    Q_EMIT self->refreshed(error);
                },
                Qt::QueuedConnection);
        }
        if (m_pagesRead.size() >= kPagesKept)
            m_pages.remove(m_pagesRead.takeFirst());
        m_pagesRead.append(page);
        found = m_pages.insert(page, std::move(rows));
    }
    return &(*found)[row % kPageRows];
}

QString AuditModel::decisionWords(const QString &status)
{
    if (status == QLatin1String("allowed"))
        return tr("allowed, no card"); // by a rule or by default: the row's rule says which
    if (status == QLatin1String("denied"))
        return tr("denied, no card");
    if (status == QLatin1String("abandoned"))
        return tr("abandoned by its agent");
    if (status == QLatin1String("timed-out"))
        return tr("approved, timed out");
    // The configuration's changes (PolicyEvents).
    if (status == QLatin1String("configuration"))
        return tr("configuration changes");
    if (status == QLatin1String("policy-narrowed"))
        return tr("configuration narrowed");
    if (status == QLatin1String("policy-widened-accepted"))
        return tr("configuration widened, accepted");
    if (status == QLatin1String("policy-widened-rejected"))
        return tr("configuration widening rejected");
    if (status == QLatin1String("policy-widening-waiting"))
        return tr("configuration widening waiting");
    return status;
}

QVariant AuditModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role == Qt::ToolTipRole) {
        // A tooltip renders anything that looks like HTML; these cells hold what agents sent.
        const QString text = data(index, Qt::DisplayRole).toString();
        return text.isEmpty() ? QVariant() : QVariant(Qt::convertFromPlainText(text, Qt::WhiteSpaceNormal));
    }
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    const AuditQuery::Row *row = rowAt(index.row());
    if (!row || index.column() >= row->cells.size())
        return {};
    const QVariant raw = row->cells[index.column()];
    if (role == Qt::UserRole)
        return raw; // raw values, for tests
    if (index.column() == Time)
        return QDateTime::fromMSecsSinceEpoch(raw.toLongLong())
            .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    if (index.column() == Decision)
        return decisionWords(raw.toString());
    return raw;
}

QVariant AuditModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Time:
        return tr("Time");
    case Client:
        return tr("Client");
    case Tool:
        return tr("Tool");
    case Target:
        return tr("Target");
    case Decision:
        return tr("Decision");
    case Who:
        return tr("Who");
    case Reason:
        return tr("Reason");
    case Outcome:
        return tr("Outcome");
    case Id:
        return tr("Id");
    default:
        return {};
    }
}

QString AuditModel::idAt(int row) const
{
    const AuditQuery::Row *r = rowAt(row);
    return r && r->cells.size() > Id ? r->cells[Id].toString() : QString();
}

qint64 AuditModel::keyAt(int row) const
{
    return m_order.value(row, 0);
}

int AuditModel::rowOfKey(qint64 key) const
{
    return int(m_order.indexOf(key));
}

Result<QStringList> AuditModel::filteredIds() const
{
    return m_query.ids(m_filter, sortColumn(), m_sortOrder);
}

bool AuditModel::exportShown(const QString &path, bool asJson)
{
    if (!m_worker)
        return false;
    m_worker->exportRows(m_filter, sortColumn(), m_sortOrder, path, asJson);
    return true;
}

Result<QList<AuditModel::DayCount>> AuditModel::perDay() const
{
    return m_query.perDay(m_filter);
}

Result<QStringList> AuditModel::distinctClients() const
{
    return m_query.distinctClients();
}

Result<QStringList> AuditModel::distinctTools() const
{
    return m_query.distinctTools();
}

Result<QStringList> AuditModel::distinctPeople() const
{
    return m_query.distinctPeople();
}

Result<QStringList> AuditModel::distinctInstances() const
{
    return m_query.distinctInstances();
}

} // namespace Countersign
