// Settings' phone panel and its pairing dialog, on Qt's offscreen platform. What someone else on the
// network does while the dialog is open is shown to the human: wrong codes offered are counted (they
// burn nothing); the code offered a second time, after a first offer took it, is warned of as
// someone else having read it. The panel's "Last used" follows the phone's requests.
#include "auditstore.h"
#include "database.h"
#include "fakeclock.h"
#include "phonedevices.h"
#include "phonepairdialog.h"
#include "phonepairing.h"
#include "phonepanel.h"
#include "receipt.h"

#include <QLabel>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;

namespace {

// An uncompressed P-256 point's shape, which is all an offer checks before the human compares codes.
QByteArray pointShaped(char fill)
{
    return QByteArray(1, '\x04') + QByteArray(64, fill);
}

} // namespace

class PhonePanelTest final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void wrongCodes_areCounted_andASecondOfferOfTheCode_isWarnedOf()
    {
        QTemporaryDir dir;
        FakeClock clock;
        const ReceiptSigner signer{QByteArray(32, '\x07')};
        auto db = Database::open(QStringLiteral(":memory:")).value();
        AuditStore store(*db, clock, &signer);
        PhoneDevices devices(dir.filePath(QStringLiteral("devices.json")), clock, store);
        QVERIFY(devices.load().ok());
        PhonePairing pairing(devices, clock);
        PhonePairDialog dialog(pairing, QStringLiteral("https://127.0.0.2:9443/"), QStringLiteral("AA:BB"));
        auto *alert = dialog.findChild<QLabel *>(QStringLiteral("pairAlert"));
        QVERIFY(alert);
        QVERIFY(alert->text().isEmpty());
        const QString secret = pairing.secret();
        QVERIFY(!secret.isEmpty());

        QVERIFY(!pairing.offer(QStringLiteral("guess"), QStringLiteral("x"), pointShaped('a')).ok());
        QCOMPARE(alert->text(), QStringLiteral("1 offer with a wrong code since this code was shown."));
        QVERIFY(!pairing.offer(QStringLiteral("guess2"), QStringLiteral("x"), pointShaped('a')).ok());
        QVERIFY(alert->text().contains(QStringLiteral("2 offers with a wrong code")));
        QVERIFY(pairing.secret() == secret); // nothing burnt

        QVERIFY(pairing.offer(secret, QStringLiteral("first"), pointShaped('b')).ok());
        auto *question = dialog.findChild<QLabel *>(QStringLiteral("pairQuestion"));
        QVERIFY(question->text().contains(QStringLiteral("named: first")));
        const auto second = pairing.offer(secret, QStringLiteral("mine"), pointShaped('c'));
        QVERIFY(!second.ok());
        QVERIFY(second.error().contains(QStringLiteral("another phone has already offered this code")));
        QVERIFY2(alert->text().startsWith(QStringLiteral("Another phone offered this code after the first")),
                 qPrintable(alert->text()));
        QVERIFY(question->text().contains(QStringLiteral("named: first"))); // the first offer still waits
        QVERIFY(devices.all().isEmpty());
    }

    void lastUsed_followsThePhonesRequests_andTheSelectionStays()
    {
        QTemporaryDir dir;
        FakeClock clock;
        clock.advance(1'700'000'000'000);
        const ReceiptSigner signer{QByteArray(32, '\x07')};
        auto db = Database::open(QStringLiteral(":memory:")).value();
        AuditStore store(*db, clock, &signer);
        PhoneDevices devices(dir.filePath(QStringLiteral("devices.json")), clock, store);
        QVERIFY(devices.load().ok());
        const QString first = devices.add(QStringLiteral("pixel"), pointShaped('a')).value().id;
        QVERIFY(devices.add(QStringLiteral("tablet"), pointShaped('b')).ok());
        PhonePairing pairing(devices, clock);
        PhonePanel panel;
        panel.setPhone(&pairing, &devices, [](const QString &) { return success(); });
        auto *table = panel.findChild<QTableWidget *>();
        QVERIFY(table);
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(table->item(0, 2)->text(), QStringLiteral("never"));
        table->selectRow(1);
        devices.touch(first); // what the phone listener does on each signed request
        QVERIFY(table->item(0, 2)->text() != QStringLiteral("never"));
        QCOMPARE(table->selectedItems().value(0)->row(), 1);
    }
};

QTEST_MAIN(PhonePanelTest)
#include "phonepanel_test.moc"
