#pragma once

#include <nlohmann/json_fwd.hpp>

#include <QByteArray>

#include <string>

namespace Countersign::CanonicalJson {

// RFC 8785-style canonical form: object keys sorted by their UTF-16 code units, no whitespace,
// integers without exponent, doubles in the shortest round-trip form, strings with minimal escaping.
// Equal JSON values (regardless of key order or insignificant whitespace) give equal bytes.
std::string serialize(const nlohmann::json &value);

// Lower-case hex SHA-256 of serialize(value): the digest used for argsDigest and planDigest.
QByteArray digest(const nlohmann::json &value);

// Lower-case hex SHA-256 of arbitrary bytes.
QByteArray sha256Hex(const QByteArray &bytes);

} // namespace Countersign::CanonicalJson
