// The peer tests' cases: check() runs one and prints ok/FAIL with the reason; exitWithSummary()
// prints the count and exits 0 only if at least one ran and none failed.
const results = [];

export async function check(name, fn) {
    try { await fn(); results.push([name, true]); console.log(`ok   ${name}`); }
    catch (e) { results.push([name, false]); console.log(`FAIL ${name}: ${e?.stack ?? e}`); }
}

export function exitWithSummary() {
    const passed = results.filter(([, ok]) => ok).length;
    const failed = results.length - passed;
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed === 0 && passed > 0 ? 0 : 1);
}
