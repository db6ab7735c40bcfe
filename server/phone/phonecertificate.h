#pragma once

#include "result.h"

#include <QSslCertificate>
#include <QSslKey>
#include <QString>

namespace Countersign {

// The phone listener's TLS identity: a self-signed certificate for the address it listens on, with
// an ECDSA P-256 key, made once and kept in DATA/phone (cert.pem, and key.pem readable by the user
// alone). Made again when the address is not among its names, or when it has a week or less left
// (it lives 397 days, what browsers take of a server's certificate), and then announced. The phone's
// browser shows a warning at the first visit, which the person accepts once; the pairing's short
// code is what then tells them they reached this console.
struct PhoneCertificate final
{
    QSslCertificate certificate;
    QSslKey key;
    // When loadOrMake made this one in place of a certificate it had kept: that one's fingerprint and
    // why it went ("it had expired", "it named another address"); empty otherwise. A phone paired
    // before sees its browser's warning again: the console says so, with both fingerprints.
    QString replacedFingerprint;
    QString replacedBecause;

    static Result<PhoneCertificate> loadOrMake(const QString &folder, const QString &host);
    // SHA-256 of the certificate (DER), hex in pairs: what the Settings page shows to compare.
    QString fingerprint() const;
};

} // namespace Countersign
