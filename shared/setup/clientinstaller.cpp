#include "clientinstaller.h"

#include "canonicaljson.h"
#include "hooksetup.h"
#include "mcpentries.h"
#include "privatefile.h"
#include "tokenstore.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>

#include <algorithm>
#include <optional>

namespace Countersign {

namespace {

using json = nlohmann::json;

// A file's bytes, nothing when it does not exist.
Result<std::optional<QByteArray>> readBytes(const QString &path)
{
    QFile file(path);
    if (!file.exists())
        return Result<std::optional<QByteArray>>(std::nullopt);
    if (!file.open(QIODevice::ReadOnly))
        return failure(QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    return Result<std::optional<QByteArray>>(file.readAll());
}

std::string digestOf(const std::optional<QByteArray> &bytes)
{
    return bytes ? CanonicalJson::sha256Hex(*bytes).toStdString() : std::string("absent");
}

// One file of the ledger: its bytes before the first setup (none: it did not exist), their
// permissions, and the digest of what setup left.
struct Touched final
{
    QString path;
    std::optional<QByteArray> before;
    int mode = 0;
    std::string after;
    // Whether remove may put before back: not once the file changed between two setups (the
    // person's edits since the first would go with it).
    bool restorable = true;
};

QList<Touched> readLedger(const QString &path)
{
    QList<Touched> out;
    auto bytes = readBytes(path);
    if (!bytes || !bytes.value())
        return out;
    const json ledger = json::parse(bytes.value()->constData(),
                                    bytes.value()->constData() + bytes.value()->size(), nullptr, false);
    if (!ledger.is_object() || !ledger.contains("files") || !ledger.at("files").is_array())
        return out;
    // Written by setup, but read as any file: a wrong type is a file that cannot be put back.
    for (const json &f : ledger.at("files")) {
        if (!f.is_object() || !f.value("path", json()).is_string())
            continue;
        Touched t;
        t.path = QString::fromStdString(f.at("path").get<std::string>());
        const json before = f.value("before", json());
        const json mode = f.value("mode", json());
        const json after = f.value("after", json());
        if (before.is_string())
            t.before = QByteArray::fromBase64(QByteArray::fromStdString(before.get<std::string>()));
        t.mode = mode.is_number_integer() ? mode.get<int>() : 0;
        t.after = after.is_string() ? after.get<std::string>() : std::string();
        t.restorable = f.value("restorable", json(true)) == json(true) && after.is_string() &&
                       (before.is_string() || before.is_null());
        out.append(std::move(t));
    }
    return out;
}

Status writeLedger(const QString &path, const QList<Touched> &files)
{
    json list = json::array();
    for (const Touched &t : files)
        list.push_back({{"path", t.path.toStdString()},
                        {"before", t.before ? json(t.before->toBase64().toStdString()) : json()},
                        {"mode", t.mode},
                        {"after", t.after},
                        {"restorable", t.restorable}});
    return writePrivate(path, QByteArray::fromStdString(json{{"files", list}}.dump(2)) + '\n');
}

// The file as it was, byte for byte, with its permissions (or gone, if it did not exist).
Status restore(const Touched &t)
{
    if (!t.before)
        return QFile::remove(t.path) || !QFile::exists(t.path)
                   ? success()
                   : failure(QStringLiteral("cannot delete %1").arg(t.path));
    if (auto written = writePrivate(t.path, *t.before); !written)
        return written;
    if (t.mode)
        QFile::setPermissions(t.path, QFileDevice::Permissions(t.mode));
    return success();
}

} // namespace

ClientInstaller::ClientInstaller(TokenStore &tokens, HookInstaller::Place place)
    : m_tokens(tokens), m_place(std::move(place)), m_hooks(tokens, m_place)
{
}

QString ClientInstaller::mcpConnection(const QString &client)
{
    return client + QStringLiteral("-mcp");
}

QString ClientInstaller::ledgerPath(const QString &client) const
{
    return QDir(m_place.dataDir).absoluteFilePath(QStringLiteral("setup/%1.json").arg(client));
}

QStringList ClientInstaller::files(const QString &client) const
{
    QStringList out{HookSetup::settingsPath(client, m_place.home, m_place.codexHome)};
    for (const QString &file : HookSetup::pluginFiles(client, m_place.home)) {
        if (!out.contains(file))
            out.append(file);
    }
    const QString mcp = McpEntries::configPath(client, m_place.home, m_place.codexHome);
    if (!mcp.isEmpty() && !out.contains(mcp))
        out.append(mcp);
    return out;
}

Result<QString> ClientInstaller::setup(const QString &client, const QString &owner)
{
    if (!HookSetup::clients().contains(client))
        return failure(QStringLiteral("the client must be one of %1")
                           .arg(HookSetup::clients().join(QLatin1String(", "))));
    const QStringList paths = files(client);
    const QString mcpPath = McpEntries::configPath(client, m_place.home, m_place.codexHome);
    // Every file read, and the MCP entry tried, before anything changes.
    QList<Touched> ledger = readLedger(ledgerPath(client));
    for (const QString &path : paths) {
        auto bytes = readBytes(path);
        if (!bytes)
            return failure(bytes.error());
        const auto known =
            std::find_if(ledger.begin(), ledger.end(), [&](const Touched &t) { return t.path == path; });
        if (path == mcpPath) {
            if (auto trial = McpEntries::install(client, bytes.value().value_or(QByteArray()), {},
                                                 known != ledger.end());
                !trial)
                return failure(QStringLiteral("%1: %2").arg(path, trial.error()));
        }
        if (known == ledger.end())
            ledger.append({path, bytes.value(), int(QFile::permissions(path)), {}, true});
        else if (known->after != digestOf(bytes.value()))
            known->restorable = false; // changed since the last setup: from now on only our entries come out
    }
    const bool mcpKnown = std::any_of(ledger.cbegin(), ledger.cend(), [&](const Touched &t) {
        return t.path == mcpPath && !t.after.empty();
    });
    auto hooks = m_hooks.install(client, owner);
    if (!hooks)
        return failure(hooks.error());
    QString said = hooks.value();
    if (!mcpPath.isEmpty()) {
        auto current = readBytes(mcpPath);
        if (!current)
            return failure(current.error());
        (void)m_tokens.revoke(mcpConnection(client));
        auto token = m_tokens.add(mcpConnection(client), owner);
        if (!token)
            return failure(token.error());
        auto merged =
            McpEntries::install(client, current.value().value_or(QByteArray()),
                                {m_place.consoleBase + QStringLiteral("/mcp"), token.value()}, mcpKnown);
        if (!merged)
            return failure(QStringLiteral("%1: %2").arg(mcpPath, merged.error()));
        if (auto written = writePrivate(mcpPath, merged.value()); !written)
            return failure(written.error());
        said += QStringLiteral("\nAdded Countersign's MCP server to %1, as the connection %2.")
                    .arg(mcpPath, mcpConnection(client));
    } else {
        said += QStringLiteral("\n%1 has no MCP client: its own tools are gated through the extension alone.")
                    .arg(HookInstaller::displayName(client));
    }
    for (Touched &t : ledger) {
        auto now = readBytes(t.path);
        if (!now)
            return failure(now.error());
        t.after = digestOf(now.value());
    }
    if (auto written = writeLedger(ledgerPath(client), ledger); !written)
        return failure(written.error());
    return said +
           QStringLiteral("\n`countersign setup --remove %1` puts every file back as it was.").arg(client);
}

Result<QString> ClientInstaller::remove(const QString &client)
{
    if (!HookSetup::clients().contains(client))
        return failure(QStringLiteral("the client must be one of %1")
                           .arg(HookSetup::clients().join(QLatin1String(", "))));
    QList<Touched> ledger = readLedger(ledgerPath(client));
    QStringList said;
    QList<Touched> changed;
    for (const Touched &t : ledger) {
        auto now = readBytes(t.path);
        if (!now)
            return failure(now.error());
        if (!t.restorable || digestOf(now.value()) != t.after) {
            changed.append(t);
            continue;
        }
        if (auto restored = restore(t); !restored)
            return failure(restored.error());
        said << (t.before ? QStringLiteral("Put %1 back as it was before setup.").arg(t.path)
                          : QStringLiteral("Deleted %1, which setup had made.").arg(t.path));
    }
    // Changed since setup (or set up before the ledger): only Countersign's entries come out.
    const bool noLedger = ledger.isEmpty();
    const QString hooksPath = HookSetup::settingsPath(client, m_place.home, m_place.codexHome);
    const QString mcpPath = McpEntries::configPath(client, m_place.home, m_place.codexHome);
    const auto isChanged = [&](const QString &path) {
        return noLedger || std::any_of(changed.cbegin(), changed.cend(),
                                       [&](const Touched &t) { return t.path == path; });
    };
    if (isChanged(hooksPath)) {
        auto removed = m_hooks.remove(client);
        if (!removed)
            return failure(removed.error());
        said << removed.value() + (noLedger
                                       ? QString()
                                       : QStringLiteral(" It had changed since setup: your changes stay."));
    }
    if (!mcpPath.isEmpty() && isChanged(mcpPath)) {
        auto current = readBytes(mcpPath);
        if (!current)
            return failure(current.error());
        if (current.value()) {
            // Set up here (a ledger): Countersign's table is taken out even where Codex's own
            // writers dropped the markers around it.
            auto without = McpEntries::remove(client, *current.value(), !noLedger);
            if (!without)
                return failure(QStringLiteral("%1: %2").arg(mcpPath, without.error()));
            if (without.value() != *current.value()) {
                if (auto written = writePrivate(mcpPath, without.value()); !written)
                    return failure(written.error());
                said << QStringLiteral("Took Countersign's MCP server out of %1%2.")
                            .arg(mcpPath, noLedger ? QString()
                                                   : QStringLiteral(", which had changed since setup: your "
                                                                    "changes stay"));
            }
            if (auto still = McpEntries::installed(client, without.value()); still && still.value())
                said << QStringLiteral(
                            "%1 still names a server countersign, which setup did not write: it is "
                            "left as it is, with a token that no longer works.")
                            .arg(mcpPath);
        }
    }
    m_hooks.dropConnection(client);
    (void)m_tokens.revoke(mcpConnection(client));
    QFile::remove(ledgerPath(client));
    said << QStringLiteral("The connections %1 and %2 are revoked.")
                .arg(HookInstaller::connectionName(client), mcpConnection(client));
    return said.join(QLatin1Char('\n'));
}

} // namespace Countersign
