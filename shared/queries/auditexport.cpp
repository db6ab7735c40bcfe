#include "auditexport.h"

#include <QDateTime>
#include <QSaveFile>
#include <QSet>
#include <QStringList>

namespace Countersign::AuditExport {

namespace {

QString cell(QString text)
{
    if (!text.isEmpty() && QStringLiteral("=+-@\t\r").contains(text.front()))
        text.prepend(QLatin1Char('\''));
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) ||
        text.contains(QLatin1Char('\n')) || text.contains(QLatin1Char('\r')) ||
        text.contains(QLatin1Char('\''))) {
        text.replace(QLatin1String("\""), QLatin1String("\"\""));
        text = QLatin1Char('"') + text + QLatin1Char('"');
    }
    return text;
}

QString textOf(const nlohmann::json &value)
{
    if (value.is_string())
        return QString::fromStdString(value.get<std::string>());
    if (value.is_null())
        return {};
    if (value.is_array()) {
        QStringList parts;
        for (const auto &v : value)
            parts.append(textOf(v));
        return parts.join(QLatin1String("; "));
    }
    return QString::fromStdString(value.dump());
}

QString timeOf(const nlohmann::json &ms)
{
    if (!ms.is_number_integer())
        return {};
    return QDateTime::fromMSecsSinceEpoch(ms.get<qint64>(), Qt::UTC).toString(Qt::ISODateWithMs);
}

} // namespace

QByteArray csv(const QList<nlohmann::json> &rows)
{
    static const char *kColumns[] = {"time", "id",         "connection", "client", "tool",      "targets",
                                     "risk", "decision",   "decidedBy",  "reason", "decidedAt", "outcome",
                                     "rule", "supersedes", "instance",   "owner"};
    QStringList header;
    for (const char *c : kColumns)
        header.append(QLatin1String(c));
    QByteArray out = header.join(QLatin1Char(',')).toUtf8() + "\r\n";
    for (const auto &row : rows) {
        QStringList cells;
        for (const char *c : kColumns) {
            const std::string key = c;
            const auto v = row.value(key, nlohmann::json());
            cells.append(cell(key == "time" || key == "decidedAt" ? timeOf(v) : textOf(v)));
        }
        out += cells.join(QLatin1Char(',')).toUtf8() + "\r\n";
    }
    return out;
}

QByteArray json(const QList<nlohmann::json> &rows)
{
    nlohmann::json array = nlohmann::json::array();
    for (const auto &row : rows)
        array.push_back(row);
    return QByteArray::fromStdString(array.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)) +
           '\n';
}

Result<int> save(QList<nlohmann::json> report, const QStringList &ids, const QString &path, bool asJson)
{
    const QSet<QString> wanted(ids.cbegin(), ids.cend());
    QList<nlohmann::json> kept;
    for (auto &row : report) {
        const auto id = row.find("id");
        if (id != row.end() && id->is_string() &&
            wanted.contains(QString::fromStdString(id->get<std::string>())))
            kept.append(std::move(row));
    }
    const QByteArray bytes = asJson ? json(kept) : csv(kept);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        return failure(file.errorString());
    return int(kept.size());
}

} // namespace Countersign::AuditExport
