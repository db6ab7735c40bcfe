#pragma once

// The fixture the audit view's tests share (auditview_test, auditviewdetail_test): a store with a
// fake clock, and helpers that record operations and read the view.
#include "auditmodel.h"
#include "auditstore.h"
#include "auditview.h"
#include "blastradiustext.h"
#include "canonicaljson.h"
#include "database.h"
#include "decisionchart.h"
#include "fakeclock.h"
#include "fileundo.h"
#include "helperfailure.h"
#include "receipt.h"
#include "snapshotstore.h"
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDateEdit>
#include <QDialog>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>

using namespace Countersign;
using nlohmann::json;

Q_DECLARE_METATYPE(nlohmann::json)

constexpr qint64 kDayMs = 24LL * 3600 * 1000;

class AuditViewFixture
{
protected:
    FakeClock m_clock;
    QTemporaryDir m_dir;
    std::unique_ptr<Database> m_db;
    const ReceiptSigner m_signer{QByteArray(32, '\x07')};
    std::unique_ptr<AuditStore> m_store;
    std::unique_ptr<AuditView> m_view;
    int m_next = 0;

    QString path() const { return m_dir.filePath(QStringLiteral("countersign.db")); }

    Operation operation(const QString &target, qint64 createdMs)
    {
        Operation op;
        op.nonce = QStringLiteral("%1").arg(++m_next, 32, 10, QLatin1Char('0'));
        op.tool = QStringLiteral("delete_service");
        op.principal = QStringLiteral("vscode");
        op.clientInfo = {{"name", "Claude Code"}};
        op.arguments = {{"service", target.toStdString()}};
        op.argsDigest = QString::fromLatin1(CanonicalJson::digest(op.arguments));
        op.plan.title = QStringLiteral("Delete %1").arg(target);
        op.plan.prompt = QStringLiteral("Delete service %1?").arg(target);
        op.plan.diff = QStringLiteral("-name: %1\n").arg(target);
        op.plan.targets = {target};
        op.plan.risk = Risk::Medium;
        op.rule = QStringLiteral("no rule matched: default ask");
        op.createdMs = createdMs;
        op.expiresMs = createdMs + 300'000;
        return op;
    }
    bool record(AuditStore &store, Operation &op)
    {
        op.planDigest = op.plan.digest();
        if (auto recorded = store.recordOperation(op); !recorded)
            return helperFailed(QStringLiteral("record failed: %1").arg(recorded.error()));
        return true;
    }
    // A pending operation, then decided as asked (Pending leaves it waiting).
    QString add(const QString &target, Operation::Status outcome = Operation::Status::Approved,
                qint64 createdMs = 0, const QString &by = QStringLiteral("console:alice"))
    {
        Operation op = operation(target, createdMs ? createdMs : m_clock.nowMs() + m_next);
        if (!record(*m_store, op))
            return {};
        if (outcome != Operation::Status::Pending) {
            const Decision decision{outcome, by, QString(), op.createdMs + 1000};
            if (auto decided = m_store->decide(op.nonce, decision); !decided)
                helperFailed(QStringLiteral("decide failed: %1").arg(decided.error()));
        }
        return op.nonce;
    }
    void showView()
    {
        m_view = std::make_unique<AuditView>(*m_store, m_db->connectionName());
        m_view->resize(1100, 760);
        m_view->show();
    }
    // Waits for the view's listing (read on its thread) to be shown.
    bool listed()
    {
        AuditModel *model = m_view->model();
        return QTest::qWaitFor([model] { return !model->isLoading(); }, 10'000) ||
               helperFailed(QStringLiteral("the listing was not shown in 10 s"));
    }
    // Reads the store again, as when operations arrive, and waits for the rows.
    bool relisted()
    {
        QSignalSpy loading(m_view->model(), &AuditModel::loadingChanged);
        m_view->refreshSoon();
        const auto done = [&loading] {
            for (const QList<QVariant> &change : loading) {
                if (!change.value(0).toBool())
                    return true;
            }
            return false;
        };
        return QTest::qWaitFor(done, 10'000) ||
               helperFailed(QStringLiteral("the view did not read the store again in 10 s"));
    }
    int rowOf(const QString &nonce)
    {
        const AuditModel *model = m_view->model();
        for (int row = 0; row < model->rowCount(); ++row) {
            if (model->idAt(row) == nonce)
                return row;
        }
        return -1;
    }
    QString cell(const QString &nonce, AuditModel::Column column)
    {
        const int row = rowOf(nonce);
        return row < 0 ? QStringLiteral("(no row)")
                       : m_view->model()->data(m_view->model()->index(row, column)).toString();
    }
    bool select(const QString &nonce)
    {
        auto *table = find<QTableView>("auditTable");
        const int row = rowOf(nonce);
        if (row < 0)
            return helperFailed(QStringLiteral("no row for %1").arg(nonce));
        table->selectRow(row);
        return true;
    }
    template <typename T> T *find(const char *name)
    {
        if (T *w = m_view->findChild<T *>(QLatin1String(name)))
            return w;
        helperFailed(QStringLiteral("no widget %1").arg(QLatin1String(name)));
        auto *standIn = new T;
        m_standIns.emplace_back(standIn);
        return standIn;
    }
    std::vector<std::unique_ptr<QObject>> m_standIns;

    void setUp()
    {
        QVERIFY(m_dir.isValid());
        QFile::remove(path());
        auto db = Database::open(path());
        QVERIFY2(db.ok(), db.ok() ? "" : qPrintable(db.error()));
        m_db = std::move(db).value();
        m_store = std::make_unique<AuditStore>(*m_db, m_clock, &m_signer);
    }
    void tearDown()
    {
        m_view.reset();
        m_store.reset();
        m_db.reset();
        m_standIns.clear();
        for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")})
            QFile::remove(path() + suffix);
    }
};
