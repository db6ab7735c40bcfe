#include "canonicaljson.h"

#include <nlohmann/json.hpp>
#include <sodium.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

namespace Countersign::CanonicalJson {

namespace {

// RFC 8785 sorts keys by UTF-16 code units; converting is only needed when a key leaves the BMP.
std::u16string utf16Key(const std::string &utf8)
{
    std::u16string out;
    out.reserve(utf8.size());
    for (size_t i = 0; i < utf8.size();) {
        const auto c = static_cast<unsigned char>(utf8[i]);
        char32_t cp = 0;
        int extra = 0;
        if (c < 0x80) {
            cp = c;
        } else if ((c >> 5) == 0x6) {
            cp = c & 0x1F;
            extra = 1;
        } else if ((c >> 4) == 0xE) {
            cp = c & 0x0F;
            extra = 2;
        } else {
            cp = c & 0x07;
            extra = 3;
        }
        ++i;
        for (int k = 0; k < extra && i < utf8.size(); ++k, ++i)
            cp = (cp << 6) | (static_cast<unsigned char>(utf8[i]) & 0x3F);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
            out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
        } else {
            out.push_back(static_cast<char16_t>(cp));
        }
    }
    return out;
}

void appendString(std::string &out, const std::string &s)
{
    out.push_back('"');
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20) {
                static const char hex[] = "0123456789abcdef";
                out += "\\u00";
                out.push_back(hex[c >> 4]);
                out.push_back(hex[c & 0xF]);
            } else {
                out.push_back(ch);
            }
        }
    }
    out.push_back('"');
}

void appendDouble(std::string &out, double d)
{
    if (!std::isfinite(d)) {
        out += "null"; // JSON cannot carry these; nlohmann never parses them either
        return;
    }
    if (d == 0) {
        out += "0";
        return;
    }
    if (std::trunc(d) == d && std::fabs(d) < 1e21) {
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed, 0);
        out.append(buf, r.ptr);
        return;
    }
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, d); // shortest round-trip
    out.append(buf, r.ptr);
}

void append(std::string &out, const nlohmann::json &v)
{
    switch (v.type()) {
    case nlohmann::json::value_t::null:
        out += "null";
        break;
    case nlohmann::json::value_t::boolean:
        out += v.get<bool>() ? "true" : "false";
        break;
    case nlohmann::json::value_t::number_integer:
        out += std::to_string(v.get<std::int64_t>());
        break;
    case nlohmann::json::value_t::number_unsigned:
        out += std::to_string(v.get<std::uint64_t>());
        break;
    case nlohmann::json::value_t::number_float:
        appendDouble(out, v.get<double>());
        break;
    case nlohmann::json::value_t::string:
        appendString(out, v.get_ref<const std::string &>());
        break;
    case nlohmann::json::value_t::array: {
        out.push_back('[');
        bool first = true;
        for (const auto &item : v) {
            if (!first)
                out.push_back(',');
            first = false;
            append(out, item);
        }
        out.push_back(']');
        break;
    }
    case nlohmann::json::value_t::object: {
        std::vector<std::pair<std::u16string, const std::string *>> keys;
        keys.reserve(v.size());
        for (auto it = v.begin(); it != v.end(); ++it)
            keys.emplace_back(utf16Key(it.key()), &it.key());
        std::sort(keys.begin(), keys.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
        out.push_back('{');
        bool first = true;
        for (const auto &[sortKey, key] : keys) {
            if (!first)
                out.push_back(',');
            first = false;
            appendString(out, *key);
            out.push_back(':');
            append(out, v.at(*key));
        }
        out.push_back('}');
        break;
    }
    case nlohmann::json::value_t::binary:
    case nlohmann::json::value_t::discarded:
        out += "null";
        break;
    }
}

} // namespace

std::string serialize(const nlohmann::json &value)
{
    std::string out;
    append(out, value);
    return out;
}

QByteArray sha256Hex(const QByteArray &bytes)
{
    unsigned char hash[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(hash, reinterpret_cast<const unsigned char *>(bytes.constData()),
                       static_cast<unsigned long long>(bytes.size()));
    return QByteArray(reinterpret_cast<const char *>(hash), sizeof hash).toHex();
}

QByteArray digest(const nlohmann::json &value)
{
    return sha256Hex(QByteArray::fromStdString(serialize(value)));
}

} // namespace Countersign::CanonicalJson
