#pragma once

#include "mcprequest.h"

#include <QByteArray>

#include <optional>

namespace Countersign {

struct HttpRequest;

// The 2026-07-28 Streamable HTTP header rules (SEP-2243): MCP-Protocol-Version must equal the
// envelope's version, Mcp-Method the body's method, and Mcp-Name the body's name or uri, after
// decoding the =?base64?…?= form. A mismatch is -32020 with HTTP 400.
namespace HeaderChecks {

std::optional<Reply> check(const McpRequest &request, const HttpRequest &http);

// Decodes a header value in the =?base64?…?= form; plain values pass through. Nothing on bad base64.
std::optional<QByteArray> decodeValue(const QByteArray &value);
// The other way, for a client's request (the gateway's): plain printable ASCII as is, anything else
// (non-ASCII, control characters, edge whitespace, a value that looks encoded) as =?base64?…?=.
QByteArray encodeValue(const QString &text);

} // namespace HeaderChecks

} // namespace Countersign
