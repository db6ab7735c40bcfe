#include "auditcommand.h"

#include "auditexport.h"
#include "auditstore.h"
#include "commandline.h"
#include "database.h"
#include "keyloader.h"
#include "receipt.h"
#include "systemclock.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QSaveFile>

#include <cstdio>

namespace Countersign {

namespace {

int fail(const QString &message)
{
    std::fprintf(stderr, "countersign: %s\n", qPrintable(message));
    return 1;
}

} // namespace

int runAuditCommand(const CommandLine &cl)
{
    const QString path = QDir(cl.dataDir).filePath(QStringLiteral("countersign.db"));
    if (!QFile::exists(path))
        return fail(QStringLiteral("no audit log at %1").arg(path));
    // Read-only: reviewing a log (a copy, a backup on read-only media) never changes it.
    auto db = Database::open(path, Database::Access::ReadOnly);
    if (!db)
        return fail(db.error());
    SystemClock clock;
    AuditStore store(*db.value(), clock);
    if (cl.command.value(1) == QLatin1String("verify")) {
        auto report = store.verifyChain();
        if (!report)
            return fail(report.error());
        if (report.value().firstBrokenSeq) {
            std::printf("audit log BROKEN at row %lld: %s\n", report.value().firstBrokenSeq,
                        qPrintable(report.value().problem));
            return 1;
        }
        std::printf("audit log intact: %lld rows, every link verified\n", report.value().rows);
        return 0;
    }
    auto rows = store.report(cl.format == QLatin1String("json"));
    if (!rows)
        return fail(rows.error());
    const QByteArray bytes =
        cl.format == QLatin1String("json") ? AuditExport::json(rows.value()) : AuditExport::csv(rows.value());
    if (cl.output.isEmpty()) {
        std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stdout);
        return 0;
    }
    QSaveFile out(cl.output);
    if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit())
        return fail(QStringLiteral("cannot write %1: %2").arg(cl.output, out.errorString()));
    std::fprintf(stderr, "countersign: %lld operations written to %s\n",
                 static_cast<long long>(rows.value().size()), qPrintable(cl.output));
    return 0;
}

int runReceiptCommand(const CommandLine &cl)
{
    const QString path = cl.command.value(2);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    const QByteArray text = file.read(1024 * 1024);
    nlohmann::json doc = nlohmann::json::parse(text.cbegin(), text.cend(), nullptr, false);
    if (doc.is_discarded())
        return fail(QStringLiteral("%1 is not JSON").arg(path));
    // A whole tool result is accepted too: the receipt is in its _meta.
    if (doc.is_object() && doc.contains("_meta") && doc["_meta"].is_object() &&
        doc["_meta"].contains("dev.countersign/receipt"))
        doc = doc["_meta"]["dev.countersign/receipt"];

    QByteArray trusted;
    if (!cl.publicKey.isEmpty()) {
        trusted = QByteArray::fromBase64(cl.publicKey.toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    } else {
        QFile key(receiptPublicKeyPath(cl.dataDir));
        if (!key.open(QIODevice::ReadOnly))
            return fail(QStringLiteral("no local receipt key at %1: pass --public-key")
                            .arg(receiptPublicKeyPath(cl.dataDir)));
        trusted = QByteArray::fromBase64(key.readAll().trimmed(), QByteArray::AbortOnBase64DecodingErrors);
    }
    if (auto ok = ReceiptSigner::verify(doc, trusted); !ok) {
        std::printf("receipt INVALID: %s\n", qPrintable(ok.error()));
        return 1;
    }
    const auto str = [&](const char *k) { return QString::fromStdString(doc.value(k, std::string())); };
    const auto time = [&](const char *k) {
        return QDateTime::fromMSecsSinceEpoch(doc.value(k, qint64(0)), Qt::UTC).toString(Qt::ISODateWithMs);
    };
    std::printf("receipt valid: %s (%s) for connection %s, approved by %s at %s, run at %s, nonce %s\n",
                qPrintable(str("tool")), qPrintable(str("outcome")), qPrintable(str("connection")),
                qPrintable(str("approver")), qPrintable(time("decidedAt")), qPrintable(time("consumedAt")),
                qPrintable(str("nonce")));
    return 0;
}

} // namespace Countersign
