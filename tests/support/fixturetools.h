#pragma once

#include <functional>

namespace Countersign {

class ToolRegistry;

// The fixture tools the official conformance suite calls (test_simple_text, …). They exist only
// in the test host (countersign-test-host, tests/tools/testhost.cpp) and in no shipped binary.
namespace FixtureTools {
// changed: rebuilds the tools (test_trigger_tool_change adds or removes test_dynamic_tool).
void addTo(ToolRegistry &registry, const std::function<void()> &changed);
} // namespace FixtureTools

} // namespace Countersign
