#pragma once

#include "result.h"

#include <QSslCertificate>
#include <QSslKey>
#include <QString>

namespace Countersign {

// The phone listener's TLS identity: a self-signed certificate for the address it listens on, with
// an ECDSA P-256 key, made once and kept in DATA/phone (cert.pem, and key.pem readable by the user
// alone). Made again when the address is not among its names, or when it has expired. The phone's
// browser shows a warning at the first visit, which the person accepts once; the pairing's short
// code is what then tells them they reached this console.
struct PhoneCertificate final
{
    QSslCertificate certificate;
    QSslKey key;

    static Result<PhoneCertificate> loadOrMake(const QString &folder, const QString &host);
    // SHA-256 of the certificate (DER), hex in pairs: what the Settings page shows to compare.
    QString fingerprint() const;
};

} // namespace Countersign
