// The peer tests' cases: check() runs one and prints ok/FAIL with the reason; exitWithSummary()
// prints the count and exits 0 only if at least one ran and none failed.
// COUNTERSIGN_CHECKS=REGEX runs only the cases whose names match (for working on one).
const results = [];
const only = process.env.COUNTERSIGN_CHECKS ? new RegExp(process.env.COUNTERSIGN_CHECKS) : null;

export async function check(name, fn) {
    if (only && !only.test(name)) return;
    try { await fn(); results.push([name, true]); console.log(`ok   ${name}`); }
    catch (e) { results.push([name, false]); console.log(`FAIL ${name}: ${e?.stack ?? e}`); }
}

// Asks predicate every 50 ms until it answers something truthy, which is returned; after ms, fails
// with what was awaited (and detail(), the evidence a failure wants: a process's stderr).
export async function waitFor(what, predicate, ms = 5000, detail = () => '') {
    for (const until = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 50))) {
        const value = await predicate();
        if (value) return value;
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}${detail()}`);
    }
}

// A call whose end is watched: settled() says whether it has ended; its failure is never unhandled.
export function watch(promise) {
    let done = false;
    const watched = promise.finally(() => { done = true; });
    watched.catch(() => {});
    return { promise: watched, settled: () => done };
}

export function exitWithSummary() {
    const passed = results.filter(([, ok]) => ok).length;
    const failed = results.length - passed;
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed === 0 && passed > 0 ? 0 : 1);
}
