#include "jsonbody.h"

#include <set>
#include <string>
#include <vector>

namespace Countersign::JsonBody {

namespace {

using json = nlohmann::json;

// A SAX pass that only checks shape; the DOM is built afterwards from the same bytes.
class ShapeCheck final : public nlohmann::json_sax<json>
{
public:
    QString problem;

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override
    {
        m_keys.emplace_back();
        m_isObject.push_back(true);
        return checkDepth();
    }
    bool key(string_t &val) override
    {
        if (!m_keys.back().insert(val).second) {
            problem = QStringLiteral("duplicate key \"%1\"").arg(QString::fromStdString(val));
            return false;
        }
        return true;
    }
    bool end_object() override
    {
        m_keys.pop_back();
        m_isObject.pop_back();
        return true;
    }
    bool start_array(std::size_t) override
    {
        m_isObject.push_back(false);
        return checkDepth();
    }
    bool end_array() override
    {
        m_isObject.pop_back();
        return true;
    }
    bool parse_error(std::size_t position, const std::string &,
                     const nlohmann::detail::exception &ex) override
    {
        problem =
            QStringLiteral("invalid JSON at byte %1: %2").arg(position).arg(QString::fromUtf8(ex.what()));
        return false;
    }

private:
    bool checkDepth()
    {
        if (m_isObject.size() > static_cast<size_t>(kMaxDepth)) {
            problem = QStringLiteral("JSON nested deeper than %1 levels").arg(kMaxDepth);
            return false;
        }
        return true;
    }

    std::vector<std::set<std::string>> m_keys;
    std::vector<bool> m_isObject;
};

} // namespace

Result<nlohmann::json> parse(const QByteArray &bytes)
{
    ShapeCheck check;
    const bool shapeOk =
        json::sax_parse(bytes.cbegin(), bytes.cend(), &check, json::input_format_t::json, false);
    if (!shapeOk)
        return failure(check.problem.isEmpty() ? QStringLiteral("invalid JSON") : check.problem);
    json value = json::parse(bytes.cbegin(), bytes.cend(), nullptr, false);
    if (value.is_discarded())
        return failure(QStringLiteral("invalid JSON"));
    return value;
}

} // namespace Countersign::JsonBody
