#include "upstreamlist.h"

#include "visibletext.h"

#include <QHeaderView>

#include <nlohmann/json.hpp>

namespace Countersign {

namespace {

using json = nlohmann::json;

QString text(const json &object, const char *key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? visibleText(QString::fromStdString(it->get<std::string>()))
                                                 : QString();
}

} // namespace

UpstreamList::UpstreamList(QWidget *parent) : QTreeWidget(parent)
{
    setObjectName(QStringLiteral("upstreamList"));
    setColumnCount(3);
    setHeaderLabels({tr("MCP server or tool"), tr("State or decision"), tr("Why")});
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    setRootIsDecorated(true);
    setUniformRowHeights(true);
    setStatus(QStringLiteral("[]"));
}

void UpstreamList::setStatus(const QString &status)
{
    const json all = json::parse(status.toStdString(), nullptr, false);
    QStringList expanded;
    for (int i = 0; i < topLevelItemCount(); ++i)
        if (topLevelItem(i)->isExpanded())
            expanded.append(topLevelItem(i)->data(0, Qt::UserRole).toString());
    clear();
    if (!all.is_array() || all.empty()) {
        auto *none = new QTreeWidgetItem(
            this, {tr("No MCP servers behind the gate (\"upstreams\" in the configuration)")});
        none->setFirstColumnSpanned(true);
        return;
    }
    for (const json &upstream : all) {
        if (!upstream.is_object())
            continue;
        const QString name = text(upstream, "name");
        const QString state = text(upstream, "state");
        QString detail;
        if (state == QLatin1String("ready"))
            detail = tr("%1, protocol %2").arg(text(upstream, "server"), text(upstream, "protocol"));
        else
            detail = text(upstream, "error");
        auto *item = new QTreeWidgetItem(this, {name, state, detail});
        item->setData(0, Qt::UserRole, name);
        const json tools = upstream.value("tools", json::array());
        for (const json &tool : tools.is_array() ? tools : json::array()) {
            if (!tool.is_object())
                continue;
            const QString rule = text(tool, "rule");
            new QTreeWidgetItem(item, {text(tool, "name"), text(tool, "decision"),
                                       rule.isEmpty() ? tr("its annotations or settings") : rule});
        }
        item->setExpanded(expanded.contains(name) || topLevelItemCount() == 1);
    }
}

} // namespace Countersign
