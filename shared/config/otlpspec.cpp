#include "otlpspec.h"

#include <QUrl>

#include <algorithm>

namespace Countersign {

namespace {

using json = nlohmann::json;

// RFC 9110 token characters: what a header name may be made of.
bool isTokenChar(char c)
{
    static constexpr std::string_view kMarks = "!#$%&'*+-.^_`|~";
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           kMarks.find(c) != std::string_view::npos;
}

// A header value may hold visible ASCII, spaces, tabs and UTF-8, never a line break or another
// control character (which would let a value start a header or a request of its own).
bool isFieldValue(const std::string &value)
{
    return std::none_of(value.cbegin(), value.cend(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return (byte < 0x20 && byte != '\t') || byte == 0x7f;
    });
}

// Headers the exporter writes itself: the framing of its own request.
bool isReserved(const QByteArray &lowerName)
{
    static const QList<QByteArray> kReserved = {
        "content-type", "content-length", "content-encoding", "host",   "transfer-encoding", "connection",
        "te",           "trailer",        "upgrade",          "expect", "keep-alive"};
    return kReserved.contains(lowerName) || lowerName.startsWith("proxy-");
}

} // namespace

Result<OtlpSpec> OtlpSpec::fromJson(const json &value)
{
    if (!value.is_object())
        return failure(QStringLiteral("otlp: must be an object: {\"endpoint\": "
                                      "\"http://127.0.0.1:4318/v1/traces\"}"));
    OtlpSpec spec;
    for (auto it = value.begin(); it != value.end(); ++it) {
        const std::string &key = it.key();
        const json &v = it.value();
        const QString field = QStringLiteral("otlp.") + QString::fromStdString(key);
        if (key == "endpoint") {
            const QString text = v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString();
            QUrl url(text, QUrl::StrictMode);
            if (text.size() > 2048 || !url.isValid() ||
                (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")) ||
                url.host().isEmpty() || url.hasFragment())
                return failure(field + QStringLiteral(": must be an http:// or https:// URL of an OTLP/HTTP "
                                                      "collector (\"http://127.0.0.1:4318/v1/traces\")"));
            if (!url.userInfo().isEmpty())
                return failure(field + QStringLiteral(": must not hold a user name or password (give a token "
                                                      "in \"headers\" instead)"));
            // A collector's base URL: traces go to its default path.
            if (url.path().isEmpty() || url.path() == QLatin1String("/"))
                url.setPath(QStringLiteral("/v1/traces"));
            spec.endpoint = url.toString(QUrl::FullyEncoded);
        } else if (key == "headers") {
            if (!v.is_object() || v.size() > kMaxHeaders)
                return failure(
                    field + QStringLiteral(": must map at most %1 header names to strings").arg(kMaxHeaders));
            for (auto h = v.begin(); h != v.end(); ++h) {
                const std::string &name = h.key();
                if (name.empty() || name.size() > 128 ||
                    !std::all_of(name.cbegin(), name.cend(), isTokenChar))
                    return failure(field + QStringLiteral(": a header name must be 1 to 128 letters, digits "
                                                          "or !#$%&'*+-.^_`|~"));
                const QString at = field + QLatin1Char('.') + QString::fromStdString(name);
                const QByteArray lower = QByteArray::fromStdString(name).toLower();
                if (isReserved(lower))
                    return failure(at + QStringLiteral(": set by Countersign itself, not configurable"));
                const bool twice =
                    std::any_of(spec.headers.cbegin(), spec.headers.cend(),
                                [&](const auto &other) { return other.first.toLower() == lower; });
                if (twice)
                    return failure(at + QStringLiteral(": a second header of this name"));
                // The value is never quoted back: it is likely a token.
                if (!h.value().is_string())
                    return failure(at + QStringLiteral(": must be a string"));
                const std::string &text = h.value().get_ref<const std::string &>();
                if (text.size() > kMaxHeaderValue || !isFieldValue(text))
                    return failure(
                        at + QStringLiteral(": the value must be at most %1 bytes, with no line break or "
                                            "other control character")
                                 .arg(kMaxHeaderValue));
                spec.headers.append({QByteArray::fromStdString(name), QByteArray::fromStdString(text)});
            }
        } else if (key == "serviceName") {
            const QString name =
                v.is_string() ? QString::fromStdString(v.get<std::string>()).trimmed() : QString();
            const bool printable =
                std::all_of(name.cbegin(), name.cend(), [](QChar c) { return c.isPrint(); });
            if (name.isEmpty() || name.size() > 128 || !printable)
                return failure(field + QStringLiteral(": must be a name of 1 to 128 printable characters "
                                                      "(\"countersign\" by default)"));
            spec.serviceName = name;
        } else {
            return failure(field + QStringLiteral(": unknown otlp setting (endpoint, headers, serviceName)"));
        }
    }
    if (spec.endpoint.isEmpty())
        return failure(QStringLiteral("otlp.endpoint: is required (\"http://127.0.0.1:4318/v1/traces\"); "
                                      "leave \"otlp\" out to export nothing"));
    return spec;
}

} // namespace Countersign
