#include "phonecertificate.h"

#include "opensslptr.h"

#include "privatefile.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QSslCertificateExtension>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace Countersign {

namespace {

using namespace OpenSslPtr;

constexpr long kValidDays = 397; // what browsers accept of a leaf certificate

QByteArray pemOf(const std::function<int(BIO *)> &write)
{
    Bio bio(BIO_new(BIO_s_mem()));
    if (!bio || write(bio.get()) != 1)
        return {};
    BUF_MEM *mem = nullptr;
    BIO_get_mem_ptr(bio.get(), &mem);
    return QByteArray(mem->data, qsizetype(mem->length));
}

Result<PhoneCertificate> make(const QString &host)
{
    Pkey key(EVP_EC_gen("P-256"));
    X509Ptr cert(X509_new());
    if (!key || !cert)
        return failure(QStringLiteral("OpenSSL could not make a key for the phone's certificate"));
    unsigned char serial[16];
    RAND_bytes(serial, sizeof serial);
    serial[0] &= 0x7f;
    BIGNUM *bn = BN_bin2bn(serial, sizeof serial, nullptr);
    BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
    BN_free(bn);
    X509_set_version(cert.get(), 2);
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValidDays * 24 * 3600);
    X509_set_pubkey(cert.get(), key.get());
    X509_NAME *name = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char *>("Countersign phone approvals"), -1, -1,
                               0);
    X509_set_issuer_name(cert.get(), name);
    const bool isAddress = !QHostAddress(host).isNull();
    const QByteArray san = (isAddress ? QByteArrayLiteral("IP:") : QByteArrayLiteral("DNS:")) + host.toUtf8();
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
    for (const auto &[nid, value] : {std::pair{NID_subject_alt_name, san},
                                     std::pair{NID_basic_constraints, QByteArrayLiteral("critical,CA:FALSE")},
                                     std::pair{NID_ext_key_usage, QByteArrayLiteral("serverAuth")}}) {
        Extension ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.constData()));
        if (!ext || X509_add_ext(cert.get(), ext.get(), -1) != 1)
            return failure(QStringLiteral("OpenSSL could not name %1 in the phone's certificate").arg(host));
    }
    if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0)
        return failure(QStringLiteral("OpenSSL could not sign the phone's certificate"));
    PhoneCertificate made;
    made.certificate = QSslCertificate(pemOf([&](BIO *b) { return PEM_write_bio_X509(b, cert.get()); }));
    made.key =
        QSslKey(pemOf([&](BIO *b) {
                    return PEM_write_bio_PrivateKey(b, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
                }),
                QSsl::Ec);
    if (made.certificate.isNull() || made.key.isNull())
        return failure(QStringLiteral("the phone's certificate could not be read back"));
    return made;
}

bool names(const QSslCertificate &cert, const QString &host)
{
    // An address by its value, however it is written ("::1", "0:0:0:0:0:0:0:1").
    const QHostAddress address(host);
    const auto alternates = cert.subjectAlternativeNames();
    for (auto it = alternates.cbegin(); it != alternates.cend(); ++it)
        if (it.value() == host || (!address.isNull() && QHostAddress(it.value()) == address))
            return true;
    return false;
}

} // namespace

QString PhoneCertificate::fingerprint() const
{
    const QByteArray digest = certificate.digest(QCryptographicHash::Sha256).toHex().toUpper();
    QStringList pairs;
    for (qsizetype i = 0; i < digest.size(); i += 2)
        pairs << QString::fromLatin1(digest.mid(i, 2));
    return pairs.join(QLatin1Char(':'));
}

Result<PhoneCertificate> PhoneCertificate::loadOrMake(const QString &folder, const QString &host)
{
    const QString certPath = QDir(folder).filePath(QStringLiteral("cert.pem"));
    const QString keyPath = QDir(folder).filePath(QStringLiteral("key.pem"));
    QFile certFile(certPath);
    QFile keyFile(keyPath);
    QString replaced, because;
    if (certFile.open(QIODevice::ReadOnly) && keyFile.open(QIODevice::ReadOnly)) {
        PhoneCertificate kept;
        kept.certificate = QSslCertificate(certFile.readAll());
        kept.key = QSslKey(keyFile.readAll(), QSsl::Ec);
        const bool named = names(kept.certificate, host);
        const bool current = kept.certificate.expiryDate() > QDateTime::currentDateTimeUtc().addDays(7);
        if (!kept.certificate.isNull() && !kept.key.isNull() && named && current)
            return kept;
        if (!kept.certificate.isNull()) {
            replaced = kept.fingerprint();
            because = !named ? QStringLiteral("it named another address") : QStringLiteral("it had expired");
        }
    }
    auto made = make(host);
    if (!made)
        return made;
    made.value().replacedFingerprint = replaced;
    made.value().replacedBecause = because;
    if (auto saved = writePrivate(keyPath, made.value().key.toPem()); !saved)
        return failure(saved.error());
    if (auto saved = writePrivate(certPath, made.value().certificate.toPem()); !saved)
        return failure(saved.error());
    return made;
}

} // namespace Countersign
