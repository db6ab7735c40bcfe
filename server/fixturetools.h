#pragma once

namespace Countersign {

class ToolRegistry;

// The fixture tools the official conformance suite calls (test_simple_text, …). They exist only
// for a test configuration ("testFixtures": true) and are never served by the shipped default.
namespace FixtureTools {
void addTo(ToolRegistry &registry);
}

} // namespace Countersign
