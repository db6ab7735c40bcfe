#include "headerchecks.h"

#include "httprequest.h"
#include "jsonrpc.h"

namespace Countersign::HeaderChecks {

namespace {

using json = nlohmann::json;

Reply mismatch(const McpRequest &request, const QString &header, const QString &body)
{
    return Reply{400, JsonRpc::error(
                          request.id, JsonRpc::kHeaderMismatch,
                          QStringLiteral("Bad Request: the request headers and body disagree: %1").arg(body),
                          {{"mismatch", {{"header", header.toStdString()}, {"body", body.toStdString()}}}})};
}

} // namespace

std::optional<QByteArray> decodeValue(const QByteArray &value)
{
    if (!value.startsWith("=?base64?") || !value.endsWith("?=") || value.size() < 11)
        return value;
    const QByteArray encoded = value.mid(9, value.size() - 11);
    auto decoded = QByteArray::fromBase64Encoding(encoded, QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    return *decoded;
}

QByteArray encodeValue(const QString &text)
{
    bool plain = !text.isEmpty() && text.trimmed() == text && !text.startsWith(QLatin1String("=?base64?"));
    for (const QChar c : text)
        plain = plain && c.unicode() >= 0x20 && c.unicode() < 0x7f;
    return plain ? text.toLatin1() : "=?base64?" + text.toUtf8().toBase64() + "?=";
}

std::optional<Reply> check(const McpRequest &request, const HttpRequest &http)
{
    const QString bodyVersion = request.envelope.protocolVersion;
    const auto version = http.header("mcp-protocol-version");
    if (!version)
        return mismatch(request, QStringLiteral("(missing)"),
                        QStringLiteral("the body envelope names protocol version %1 but the required "
                                       "MCP-Protocol-Version header is absent")
                            .arg(bodyVersion));
    if (QString::fromLatin1(*version) != bodyVersion)
        return mismatch(
            request, QString::fromLatin1(*version),
            QStringLiteral("the body envelope names protocol version %1 but the MCP-Protocol-Version "
                           "header names %2")
                .arg(bodyVersion, QString::fromLatin1(*version)));

    const auto method = http.header("mcp-method");
    if (!method)
        return mismatch(
            request, QStringLiteral("(missing)"),
            QStringLiteral("the body names method %1 but the required Mcp-Method header is absent")
                .arg(request.method));
    if (QString::fromUtf8(*method) != request.method)
        return mismatch(request, QString::fromUtf8(*method),
                        QStringLiteral("the body names method %1 but the Mcp-Method header names %2")
                            .arg(request.method, QString::fromUtf8(*method)));

    const char *nameKey = nullptr;
    if (request.method == QLatin1String("tools/call") || request.method == QLatin1String("prompts/get"))
        nameKey = "name";
    else if (request.method == QLatin1String("resources/read"))
        nameKey = "uri";
    if (!nameKey)
        return std::nullopt;
    const auto bodyName = request.params.find(nameKey);
    if (bodyName == request.params.end() || !bodyName->is_string())
        return std::nullopt; // the method itself reports the missing parameter
    const QString expected = QString::fromStdString(bodyName->get<std::string>());
    const auto name = http.header("mcp-name");
    if (!name)
        return mismatch(
            request, QStringLiteral("(missing)"),
            QStringLiteral("the body carries params.%1=\"%2\" but the required Mcp-Name header is absent")
                .arg(QLatin1String(nameKey), expected));
    const auto decoded = decodeValue(*name);
    if (!decoded)
        return mismatch(request, QString::fromLatin1(*name),
                        QStringLiteral("the Mcp-Name header is not valid =?base64?…?= encoding"));
    if (QString::fromUtf8(*decoded) != expected)
        return mismatch(
            request, QString::fromUtf8(*decoded),
            QStringLiteral("the body carries params.%1=\"%2\" but the Mcp-Name header names \"%3\"")
                .arg(QLatin1String(nameKey), expected, QString::fromUtf8(*decoded)));
    return std::nullopt;
}

} // namespace Countersign::HeaderChecks
