#pragma once

namespace Countersign {

class ToolRegistry;

// The fixture tools the official conformance suite calls (test_simple_text, …). They exist only
// in the test host (countersign-test-host, tests/tools/testhost.cpp) and in no shipped binary.
namespace FixtureTools {
void addTo(ToolRegistry &registry);
}

} // namespace Countersign
