#include "auditcommand.h"

#include "auditexport.h"
#include "auditstore.h"
#include "commandline.h"
#include "config.h"
#include "database.h"
#include "keyloader.h"
#include "postgresurl.h"
#include "receipt.h"
#include "systemclock.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QSaveFile>

#include <cstdio>

namespace Countersign {

namespace {

// A receipt is a few hundred bytes; a whole result holds at most the 256 KiB of a tool's output.
constexpr qsizetype kMaxReceiptFileBytes = 4 * 1024 * 1024;

// The key receipts and checkpoints are checked with: --public-key, or the one this installation
// published next to its database.
Result<QByteArray> trustedKey(const CommandLine &cl)
{
    if (!cl.publicKey.isEmpty())
        return QByteArray::fromBase64(cl.publicKey.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    QFile key(receiptPublicKeyPath(cl.dataDir));
    if (!key.open(QIODevice::ReadOnly))
        return failure(QStringLiteral("no local receipt key at %1: pass --public-key")
                           .arg(receiptPublicKeyPath(cl.dataDir)));
    return QByteArray::fromBase64(key.readAll().trimmed(), QByteArray::AbortOnBase64DecodingErrors);
}

// A file's receipt: the file itself, or the one a whole tool result carries in its _meta.
Result<nlohmann::json> readReceipt(const QString &path, bool *wholeResult)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return failure(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    const QByteArray text = file.read(kMaxReceiptFileBytes + 1);
    if (text.size() > kMaxReceiptFileBytes)
        return failure(QStringLiteral("%1 is larger than %2 bytes").arg(path).arg(kMaxReceiptFileBytes));
    const nlohmann::json doc = nlohmann::json::parse(text.cbegin(), text.cend(), nullptr, false);
    if (doc.is_discarded())
        return failure(QStringLiteral("%1 is not JSON").arg(path));
    if (!doc.is_object())
        return failure(QStringLiteral("%1 holds neither a receipt nor a tool result carrying one").arg(path));
    const auto meta = doc.find("_meta");
    *wholeResult = meta != doc.end() && meta->is_object() && meta->contains(ReceiptSigner::kResultMetaKey);
    return doc;
}

const nlohmann::json &receiptIn(const nlohmann::json &doc, bool wholeResult)
{
    return wholeResult ? doc.at("_meta").at(ReceiptSigner::kResultMetaKey) : doc;
}

// The receipt is signed with the trusted key, and the log still holds the row it names as its
// head, with the same hash.
Status checkReceiptHead(AuditStore &store, const QString &path, const QByteArray &trusted)
{
    bool wholeResult = false;
    auto doc = readReceipt(path, &wholeResult);
    if (!doc)
        return failure(doc.error());
    const nlohmann::json &receipt = receiptIn(doc.value(), wholeResult);
    if (auto ok = ReceiptSigner::verify(receipt, trusted); !ok)
        return failure(QStringLiteral("receipt %1 is not valid: %2").arg(path, ok.error()));
    const nlohmann::json head = receipt.value("auditHead", nlohmann::json());
    if (!head.is_object() || !head.value("seq", nlohmann::json()).is_number_integer() ||
        !head.value("hash", nlohmann::json()).is_string())
        return failure(QStringLiteral("receipt %1 carries no audit head").arg(path));
    const qint64 seq = head.at("seq").get<qint64>();
    auto hash = store.hashAt(seq);
    if (!hash)
        return failure(hash.error());
    if (hash.value().isEmpty())
        return failure(
            QStringLiteral("row %1, the head of receipt %2, is gone: the log was cut").arg(seq).arg(path));
    if (hash.value() != QString::fromStdString(head.at("hash").get<std::string>()))
        return failure(
            QStringLiteral("rows up to %1, the head of receipt %2, were rewritten").arg(seq).arg(path));
    return success();
}

} // namespace

int runAuditCommand(const CommandLine &cl)
{
    auto config = Config::load(cl.configPath);
    if (!config)
        return commandFailed(config.error());
    const QString path = config.value().storeLocation(cl.dataDir);
    if (!PostgresUrl::names(path) && !QFile::exists(path))
        return commandFailed(QStringLiteral("no audit log at %1").arg(path));
    // Read-only: reviewing a log (a copy, a backup on read-only media) never changes it.
    auto db = Database::open(path, Database::Access::ReadOnly);
    if (!db)
        return commandFailed(db.error());
    SystemClock clock;
    AuditStore store(*db.value(), clock, nullptr); // a reader: it records nothing
    if (cl.command.value(1) == QLatin1String("verify")) {
        // No key (a log that has never been served from): the links and tables still verify, and
        // any signed checkpoint found is reported as one that cannot be checked.
        auto trusted = trustedKey(cl);
        const QByteArray key = trusted ? trusted.value() : QByteArray();
        auto report = store.verifyChain(key);
        if (!report)
            return commandFailed(report.error());
        if (!report.value().problem.isEmpty()) {
            if (report.value().firstBrokenSeq)
                std::printf("audit log BROKEN at row %lld: %s\n", report.value().firstBrokenSeq,
                            qPrintable(report.value().problem));
            else
                std::printf("audit log BROKEN: %s\n", qPrintable(report.value().problem));
            return 1;
        }
        // A receipt held elsewhere proves the log up to its head: a log cut or rewritten below it
        // (checkpoints and all) no longer holds that row with that hash.
        for (const QString &receiptPath : cl.receipts) {
            auto held = checkReceiptHead(store, receiptPath, key);
            if (!held) {
                std::printf("audit log BROKEN: %s\n", qPrintable(held.error()));
                return 1;
            }
        }
        std::printf("audit log intact: %lld rows, every link verified, %lld signed checkpoints, operations, "
                    "decisions and runs match it%s\n",
                    report.value().rows, report.value().checkpoints,
                    cl.receipts.isEmpty()
                        ? ""
                        : qPrintable(QStringLiteral(", %1 receipts' heads held").arg(cl.receipts.size())));
        return 0;
    }
    auto rows = store.report(cl.format == QLatin1String("json"));
    if (!rows)
        return commandFailed(rows.error());
    const QByteArray bytes =
        cl.format == QLatin1String("json") ? AuditExport::json(rows.value()) : AuditExport::csv(rows.value());
    if (cl.output.isEmpty()) {
        std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stdout);
        return 0;
    }
    QSaveFile out(cl.output);
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit())
        return commandFailed(QStringLiteral("cannot write %1: %2").arg(cl.output, out.errorString()));
    std::fprintf(stderr, "countersign: %lld operations written to %s\n",
                 static_cast<long long>(rows.value().size()), qPrintable(cl.output));
    return 0;
}

int runReceiptCommand(const CommandLine &cl)
{
    // Exit 0: valid; 1: invalid (the signature, the key, or the result it was handed); 2: nothing
    // that can be checked (no file, not JSON, no key to check against).
    const auto unusable = [](const QString &message) {
        std::fprintf(stderr, "countersign: %s\n", qPrintable(message));
        return 2;
    };
    const QString path = cl.command.value(2);
    bool wholeResult = false;
    auto doc = readReceipt(path, &wholeResult);
    if (!doc)
        return unusable(doc.error());
    const nlohmann::json *receipt = &receiptIn(doc.value(), wholeResult);
    auto key = trustedKey(cl);
    if (!key)
        return unusable(key.error());
    const QByteArray trusted = key.value();
    if (auto ok = ReceiptSigner::verify(*receipt, trusted); !ok) {
        std::printf("receipt INVALID: %s\n", qPrintable(ok.error()));
        return 1;
    }
    // The signature holds the receipt's words; only the digest ties them to this result.
    if (wholeResult) {
        const auto signedDigest = receipt->find("resultDigest");
        if (signedDigest == receipt->end() || !signedDigest->is_string()) {
            std::printf("receipt INVALID: it carries no resultDigest, so the result cannot be checked\n");
            return 1;
        }
        const QString expected = QString::fromStdString(signedDigest->get<std::string>());
        const QString actual = ReceiptSigner::resultDigest(doc.value());
        if (actual != expected) {
            std::printf("receipt INVALID: the result differs from the one the receipt signed (resultDigest "
                        "%s, this result's digest %s)\n",
                        signedDigest->get<std::string>().c_str(), qPrintable(actual));
            return 1;
        }
    }
    const auto str = [&](const char *k) {
        const auto it = receipt->find(k);
        return it != receipt->end() && it->is_string() ? QString::fromStdString(it->get<std::string>())
                                                       : QString();
    };
    const auto time = [&](const char *k) {
        const auto it = receipt->find(k);
        const qint64 ms = it != receipt->end() && it->is_number_integer() ? it->get<qint64>() : 0;
        return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
    };
    std::printf("receipt valid: %s (%s) for connection %s, approved by %s at %s, run at %s, nonce %s %s\n",
                qPrintable(str("tool")), qPrintable(str("outcome")), qPrintable(str("connection")),
                qPrintable(str("approver")), qPrintable(time("decidedAt")), qPrintable(time("consumedAt")),
                qPrintable(str("nonce")),
                wholeResult ? "(the result matches its resultDigest)"
                            : "(the result itself was not given, so it was not checked)");
    return 0;
}

} // namespace Countersign
