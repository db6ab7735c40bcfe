#pragma once

#include <QByteArray>

namespace Countersign::DeviceKey {

// Whether signature is a valid ECDSA P-256 / SHA-256 signature of message by publicKey, as a
// browser's WebCrypto makes one: the key an uncompressed point (65 bytes, 0x04 || x || y) on the
// curve, the signature r || s (64 bytes, IEEE P1363). Anything malformed is simply not valid.
bool verify(const QByteArray &publicKey, const QByteArray &message, const QByteArray &signature);

} // namespace Countersign::DeviceKey
