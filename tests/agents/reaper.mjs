// Every process the agent tests start is tracked here, so that none outlives the test: on a signal
// (ctest's time-out sends SIGTERM... or kills node outright, which is why the watchdog fires first)
// or when the test's own time budget runs out, each tracked process (and, for the clients, its
// whole process group) is killed.
const tracked = new Set(); // { child, group }

export function track(child, { group = false } = {}) {
    const entry = { child, group };
    tracked.add(entry);
    child.once('exit', () => tracked.delete(entry));
    return child;
}

export function reapAll() {
    for (const { child, group } of tracked) {
        try { if (group) process.kill(-child.pid, 'SIGKILL'); else child.kill('SIGKILL'); } catch { /* gone */ }
    }
    tracked.clear();
}

// After ms, says so, kills everything and exits 1; also on SIGTERM, SIGINT and SIGHUP.
export function installWatchdog(ms, what = 'the test') {
    const timer = setTimeout(() => {
        console.log(`FAIL ${what} ran past its ${Math.round(ms / 1000)} s budget: every process it started is killed`);
        reapAll();
        process.exit(1);
    }, ms);
    timer.unref();
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
        process.once(signal, () => { console.log(`${what}: ${signal}, killing every process it started`); reapAll(); process.exit(1); });
    }
    process.once('exit', reapAll);
}
