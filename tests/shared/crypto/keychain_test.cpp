// KeychainSecretStore against a real Secret Service (gnome-keyring in a private D-Bus session, see
// tests/CMakeLists.txt), and against no session bus at all, where it must fail at once so the
// server falls back to its key file.
#include "filesecretstore.h"
#include "keychainsecretstore.h"
#include "serverkeys.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using namespace Countersign;

class KeychainTest : public QObject
{
    Q_OBJECT
private:
    const QString m_service =
        QStringLiteral("Countersign test %1").arg(QUuid::createUuid().toString(QUuid::WithoutBraces));

private Q_SLOTS:
    void secretService_roundTrip()
    {
        KeychainSecretStore store(m_service);
        auto missing = store.read(QStringLiteral("absent"));
        QVERIFY2(missing.ok(), missing.ok() ? "" : qPrintable(missing.error()));
        QVERIFY(!missing.value().has_value());
        const QByteArray secret("\x00\xff key bytes", 12);
        const Status written = store.write(QStringLiteral("k"), secret);
        QVERIFY2(written.ok(), written.ok() ? "" : qPrintable(written.error()));
        auto back = store.read(QStringLiteral("k"));
        QVERIFY(back.ok() && back.value());
        QCOMPARE(*back.value(), secret);
    }
    void secretService_keysGoToTheKeychain_notTheFile()
    {
        QTemporaryDir dir;
        KeychainSecretStore keychain(m_service + QStringLiteral(" keys"));
        FileSecretStore files(dir.path());
        auto keys = ServerKeys::load(keychain, &files);
        QVERIFY2(keys.ok(), keys.ok() ? "" : qPrintable(keys.error()));
        QVERIFY(keys.value().warning.isEmpty());
        QCOMPARE(keys.value().storedIn, QStringLiteral("the OS keychain"));
        QVERIFY(QDir(dir.path()).isEmpty());
        QCOMPARE(ServerKeys::load(keychain, &files).value().ticketKey, keys.value().ticketKey);
    }
    void noSessionBus_failsAtOnce_andTheFileTakesOver()
    {
        QTemporaryDir dir;
        KeychainSecretStore keychain(m_service);
        FileSecretStore files(dir.path());
        QElapsedTimer timer;
        timer.start();
        auto keys = ServerKeys::load(keychain, &files);
        QVERIFY(keys.ok());
        QVERIFY(timer.elapsed() < 5000);
        QVERIFY2(keys.value().warning.startsWith(QLatin1String("No keychain answered in this session")),
                 qPrintable(keys.value().warning));
        QVERIFY(!keys.value().warningDetail.isEmpty()); // the keychain's own error, for stderr
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("ticket-key.key"))));
    }
};

QTEST_GUILESS_MAIN(KeychainTest)
#include "keychain_test.moc"
