#include "filesecretstore.h"
#include "serverkeys.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Countersign;

namespace {
// A keychain that cannot answer (no session bus), as on a headless machine.
class DeadKeychain final : public SecretStore
{
public:
    QString describe() const override { return QStringLiteral("the OS keychain"); }
    Result<std::optional<QByteArray>> read(const QString &) override
    {
        return failure(QStringLiteral("error 7: no D-Bus"));
    }
    Status write(const QString &, const QByteArray &) override
    {
        return failure(QStringLiteral("error 7: no D-Bus"));
    }
};
class MemoryStore final : public SecretStore
{
public:
    std::map<QString, QByteArray> values;
    QString describe() const override { return QStringLiteral("memory"); }
    Result<std::optional<QByteArray>> read(const QString &name) override
    {
        const auto it = values.find(name);
        return it == values.end() ? std::optional<QByteArray>() : std::optional<QByteArray>(it->second);
    }
    Status write(const QString &name, const QByteArray &secret) override
    {
        values[name] = secret;
        return success();
    }
};
} // namespace

class SecretStoreTest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void fileStore_writesOwnerOnly_andReadsBack()
    {
        QTemporaryDir dir;
        FileSecretStore store(dir.filePath(QStringLiteral("keys")));
        QVERIFY(!store.read(QStringLiteral("k")).value().has_value());
        QVERIFY(store.write(QStringLiteral("k"), QByteArray("\x00\x01secret", 8)).ok());
        const QString path = dir.filePath(QStringLiteral("keys/k.key"));
        QCOMPARE(QFile::permissions(path), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                               QFileDevice::ReadUser | QFileDevice::WriteUser);
        QCOMPARE(*store.read(QStringLiteral("k")).value(), QByteArray("\x00\x01secret", 8));
    }
    void fileStore_readableByOthers_isRefused()
    {
        QTemporaryDir dir;
        FileSecretStore store(dir.path());
        QVERIFY(store.write(QStringLiteral("k"), "s").ok());
        QFile::setPermissions(dir.filePath(QStringLiteral("k.key")),
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadOther);
        auto r = store.read(QStringLiteral("k"));
        QVERIFY(!r.ok());
        QVERIFY(r.error().contains(QLatin1String("other users")));
    }
    void keys_madeOnce_thenStable()
    {
        MemoryStore store;
        auto first = ServerKeys::load(store, nullptr);
        QVERIFY(first.ok());
        QCOMPARE(first.value().ticketKey.size(), 32);
        QCOMPARE(first.value().signingSeed.size(), 32);
        QVERIFY(first.value().warning.isEmpty());
        auto second = ServerKeys::load(store, nullptr);
        QCOMPARE(second.value().ticketKey, first.value().ticketKey);
        QCOMPARE(second.value().kid, first.value().kid);
    }
    void deadKeychain_fallsBackToTheFile_withAWarning()
    {
        QTemporaryDir dir;
        DeadKeychain keychain;
        FileSecretStore files(dir.path());
        auto keys = ServerKeys::load(keychain, &files);
        QVERIFY(keys.ok());
        // Plain words for the window; the keychain's own error for stderr.
        QVERIFY(keys.value().warning.startsWith(QLatin1String("No keychain answered in this session")));
        QVERIFY(!keys.value().warning.contains(QLatin1String("error 7")));
        QVERIFY(keys.value().warningDetail.contains(QLatin1String("error 7")));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("ticket-key.key"))));
        // Once the keys are in the file they stay there, even when a keychain answers later.
        MemoryStore working;
        auto again = ServerKeys::load(working, &files);
        QCOMPARE(again.value().ticketKey, keys.value().ticketKey);
        QVERIFY(!again.value().warning.isEmpty());
        QVERIFY(working.values.empty());
    }
    void malformedStoredKey_isAnError()
    {
        MemoryStore store;
        store.values[QLatin1String(ServerKeys::kTicketKeyName)] = "short";
        QVERIFY(!ServerKeys::load(store, nullptr).ok());
    }
};

QTEST_GUILESS_MAIN(SecretStoreTest)
#include "secretstore_test.moc"
