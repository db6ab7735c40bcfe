#include "schemavalidator.h"

#include <nlohmann/json.hpp>

#include <QRegularExpression>

namespace Countersign::SchemaValidator {

namespace {

using json = nlohmann::json;

bool hasType(const json &value, const std::string &type)
{
    if (type == "string")
        return value.is_string();
    if (type == "integer")
        return value.is_number_integer() || value.is_number_unsigned() ||
               (value.is_number_float() && std::trunc(value.get<double>()) == value.get<double>());
    if (type == "number")
        return value.is_number();
    if (type == "boolean")
        return value.is_boolean();
    if (type == "object")
        return value.is_object();
    if (type == "array")
        return value.is_array();
    if (type == "null")
        return value.is_null();
    return false;
}

qsizetype codePoints(const std::string &utf8)
{
    return QString::fromStdString(utf8).toUcs4().size();
}

Status check(const json &schema, const json &value, const QString &path)
{
    if (schema.is_boolean())
        return schema.get<bool>() ? success() : failure(QStringLiteral("%1 is not allowed").arg(path));
    if (!schema.is_object())
        return success();

    if (const auto type = schema.find("type"); type != schema.end()) {
        bool matched = false;
        QStringList names;
        const json types = type->is_array() ? *type : json::array({*type});
        for (const json &t : types) {
            if (!t.is_string())
                continue;
            names.append(QString::fromStdString(t.get<std::string>()));
            matched = matched || hasType(value, t.get<std::string>());
        }
        if (!matched)
            return failure(QStringLiteral("%1 must be %2").arg(path, names.join(QStringLiteral(" or "))));
    }
    if (const auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
        if (std::find(e->begin(), e->end(), value) == e->end())
            return failure(
                QStringLiteral("%1 must be one of %2").arg(path, QString::fromStdString(e->dump())));
    }
    if (const auto c = schema.find("const"); c != schema.end() && *c != value)
        return failure(QStringLiteral("%1 must be %2").arg(path, QString::fromStdString(c->dump())));

    if (value.is_string()) {
        const auto &s = value.get_ref<const std::string &>();
        if (const auto m = schema.find("minLength");
            m != schema.end() && m->is_number_unsigned() && codePoints(s) < m->get<qsizetype>())
            return failure(
                QStringLiteral("%1 must have at least %2 characters").arg(path).arg(m->get<qsizetype>()));
        if (const auto m = schema.find("maxLength");
            m != schema.end() && m->is_number_unsigned() && codePoints(s) > m->get<qsizetype>())
            return failure(
                QStringLiteral("%1 must have at most %2 characters").arg(path).arg(m->get<qsizetype>()));
        if (const auto p = schema.find("pattern"); p != schema.end() && p->is_string()) {
            const QRegularExpression re(QString::fromStdString(p->get<std::string>()));
            if (!re.isValid() || !re.match(QString::fromStdString(s)).hasMatch())
                return failure(QStringLiteral("%1 must match the pattern %2")
                                   .arg(path, QString::fromStdString(p->get<std::string>())));
        }
    }
    if (value.is_number()) {
        const double d = value.get<double>();
        if (const auto m = schema.find("minimum");
            m != schema.end() && m->is_number() && d < m->get<double>())
            return failure(QStringLiteral("%1 must be >= %2").arg(path, QString::fromStdString(m->dump())));
        if (const auto m = schema.find("maximum");
            m != schema.end() && m->is_number() && d > m->get<double>())
            return failure(QStringLiteral("%1 must be <= %2").arg(path, QString::fromStdString(m->dump())));
    }
    if (value.is_array()) {
        const auto n = static_cast<qsizetype>(value.size());
        if (const auto m = schema.find("minItems");
            m != schema.end() && m->is_number_unsigned() && n < m->get<qsizetype>())
            return failure(
                QStringLiteral("%1 must have at least %2 items").arg(path).arg(m->get<qsizetype>()));
        if (const auto m = schema.find("maxItems");
            m != schema.end() && m->is_number_unsigned() && n > m->get<qsizetype>())
            return failure(
                QStringLiteral("%1 must have at most %2 items").arg(path).arg(m->get<qsizetype>()));
        if (const auto items = schema.find("items"); items != schema.end()) {
            for (qsizetype i = 0; i < n; ++i) {
                if (auto r = check(*items, value[static_cast<size_t>(i)],
                                   QStringLiteral("%1/%2").arg(path).arg(i));
                    !r)
                    return r;
            }
        }
    }
    if (value.is_object()) {
        if (const auto required = schema.find("required"); required != schema.end() && required->is_array()) {
            for (const json &name : *required) {
                if (name.is_string() && !value.contains(name.get<std::string>()))
                    return failure(QStringLiteral("%1 must have required property '%2'")
                                       .arg(path, QString::fromStdString(name.get<std::string>())));
            }
        }
        const auto props = schema.find("properties");
        const auto additional = schema.find("additionalProperties");
        for (auto it = value.begin(); it != value.end(); ++it) {
            const QString childPath = path + QLatin1Char('/') + QString::fromStdString(it.key());
            if (props != schema.end() && props->is_object() && props->contains(it.key())) {
                if (auto r = check(props->at(it.key()), it.value(), childPath); !r)
                    return r;
            } else if (additional != schema.end()) {
                if (additional->is_boolean() && !additional->get<bool>())
                    return failure(QStringLiteral("%1 must NOT have additional property '%2'")
                                       .arg(path, QString::fromStdString(it.key())));
                if (auto r = check(*additional, it.value(), childPath); !r)
                    return r;
            }
        }
    }
    return success();
}

} // namespace

Status validate(const nlohmann::json &schema, const nlohmann::json &value)
{
    return check(schema, value, QStringLiteral("data"));
}

} // namespace Countersign::SchemaValidator
