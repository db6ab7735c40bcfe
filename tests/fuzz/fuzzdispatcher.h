#pragma once

#include "dispatcher.h"
#include "statustool.h"
#include "toolregistry.h"

// The dispatcher both fuzz targets drive: the server's own, serving countersign_status.
inline const Countersign::Dispatcher &fuzzDispatcher()
{
    static Countersign::ToolRegistry tools;
    static const bool registered =
        tools.add(std::make_unique<Countersign::StatusTool>(QStringLiteral("fuzz")));
    (void)registered;
    static const Countersign::Dispatcher dispatcher(
        tools, {QStringLiteral("countersign"), QStringLiteral("fuzz"), {}});
    return dispatcher;
}
