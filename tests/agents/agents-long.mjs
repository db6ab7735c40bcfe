#!/usr/bin/env node
// The real agents against the real console (issue 23), the long set: each client's gated write_file
// approved in the window 3 minutes after its card showed, far past every client's own request
// timeout and the console's hold (legacyHoldSeconds 50) and poll window (20 s), so the call comes
// back through the client's own retries (MRTR rounds) or the model calling again on "call again
// with the same arguments": the file must be written once and the model receive a success. The
// clients run in parallel, each with its own console, data folder and Xvfb display, so the set
// takes about 3.5 minutes. The console's defaults otherwise (ttlSeconds 300).
//   node agents-long.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--clients LIST] [--parallel N]
//                        [--decide] [--verbose] [--report FILE.json] [--after SECONDS] [--config JSON]
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { check, exitWithSummary } from '../peer/checks.mjs';
import { CLIENTS } from './clients.mjs';
import { describeWait, makeLog, parseArgs, pool, ranOnce, runCase, startRig, workRoot } from './harness.mjs';
import { installWatchdog } from './reaper.mjs';

const argv = process.argv.slice(2);
const opts = parseArgs(argv, 'usage: agents-long.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--clients LIST] [--parallel N] [--decide] [--verbose] [--report FILE] [--after SECONDS]');
const afterIndex = argv.indexOf('--after');
const AFTER_S = afterIndex >= 0 ? Number(argv[afterIndex + 1]) : 180;
// --config JSON: more console settings (for probing the clients' own limits, as with
// {"legacyHoldSeconds": 600, "pollWindowSeconds": 300}).
const configIndex = argv.indexOf('--config');
const EXTRA = configIndex >= 0 ? JSON.parse(argv[configIndex + 1]) : {};
const root = workRoot('countersign-agents-long-');
const began = Date.now();
// Under ctest's TIMEOUT (600 s) at the default 180 s.
installWatchdog((AFTER_S + 330) * 1000, 'agents-long.mjs');

const runs = await pool(opts.clients, opts.parallel, async (key) => {
    const log = makeLog(key, opts.verbose);
    const ws = path.join(root, 'ws', key);
    mkdirSync(ws, { recursive: true });
    const out = { key, log, cases: {}, error: null };
    let rig;
    try {
        rig = await startRig(opts, { config: { workspaceRoots: [ws], cardMinimumSeconds: 1, ...EXTRA }, log, label: key, root });
        out.cases.late = await runCase(rig, key, { kind: 'approve', ws, name: 'late', steps: 1, delays: [AFTER_S * 1000], limitMs: (AFTER_S + 150) * 1000, ttlMs: null, log });
    } catch (e) {
        out.error = e;
        log(`rig failure: ${e?.stack ?? e}`);
    } finally {
        await rig?.stop().catch(() => {});
    }
    return out;
});

for (const r of runs) {
    const name = CLIENTS[r.key].name;
    const c = r.cases.late;
    const evidence = () => `\n--- ${r.key}: what was seen ---\n${c ? [
        `exit: ${JSON.stringify(c.exit)}; written: ${JSON.stringify(c.written)}; notes: ${c.notes.join(' | ') || '-'}`,
        `model results: ${c.model.results.map((x) => `#${x.n} +${((x.at - c.started) / 1000).toFixed(1)}s${x.pending ? ' (waiting)' : ''} ${x.text.replace(/\s+/g, ' ').slice(0, 160)}`).join(' || ')}`,
        `rounds: ${describeWait(c).join(' | ')}`,
        `audit: ${JSON.stringify(c.audit)}`,
        `console log:\n  ${c.consoleLog.filter((l) => /gate|queue/.test(l)).slice(-30).join('\n  ')}`,
    ].join('\n') : ''}\n--- ${r.key}: log (last lines) ---\n${r.log.tail(120)}\n---`;
    await check(`${name}: approved in the window ${AFTER_S} s after its card showed, the file is written once (after the client's retries or the model calling again) and the model receives a success`, async () => {
        assert.ok(c, `the case did not run: ${r.error?.stack ?? r.error}${evidence()}`);
        const ap = c.approvals[0];
        assert.ok(ap, `no card was approved${evidence()}`);
        assert.equal(c.written[0], 'as asked', `the file is not written${evidence()}`);
        const once = ranOnce(c, c.files[0]);
        assert.equal(once.succeeded, 1, `${once.succeeded} runs in the audit log${evidence()}`);
        assert.equal(once.runs, 1, `${once.runs} operations ran${evidence()}`);
        assert.match(ap.resultText ?? '', /\bwrote \S/, `the model did not receive a success${evidence()}`);
    });
}

console.log(`\nhow each client waited ${AFTER_S} s (from the tap on /mcp and the scripted model):`);
for (const r of runs) {
    const c = r.cases.late;
    if (!c) { console.log(`  ${CLIENTS[r.key].name}: did not run (${r.error?.message ?? r.error})`); continue; }
    const ap = c.approvals[0];
    const waiting = c.model.results.filter((x) => x.pending).length;
    console.log(`  ${CLIENTS[r.key].name}: ${c.tap.calls.length} tools/call request(s), the model called ${c.model.calls.length} time(s) (${waiting} "still waiting" answer(s) it called again on); keypress to result: client ${ap?.toClientMs ?? '-'} ms, model ${ap?.toModelMs ?? '-'} ms; exit ${c.exit.code ?? c.exit.signal}`);
    console.log(`    ${describeWait(c).join(' | ') || '-'}`);
}
if (opts.report) {
    writeFileSync(opts.report, JSON.stringify({ set: 'long', after: AFTER_S, began, ended: Date.now(), window: opts.window, runs: runs.map((r) => ({ key: r.key, error: r.error ? String(r.error?.stack ?? r.error) : null, cases: r.cases })) }, null, 1));
    console.log(`report: ${opts.report}`);
}
console.log(`wall time ${((Date.now() - began) / 1000).toFixed(0)} s`);
if (!opts.keep) rmSync(root, { recursive: true, force: true });
exitWithSummary();
