#!/usr/bin/env node
// The real agents against the real console (issue 23), the short set: Claude Code, Gemini CLI,
// Codex (and Codex again with its mcp_2026_07_28 feature on), opencode and Qwen Code (pinned by
// tests/peer/package-lock.json), each headless in a sandbox of its own and driven by the scripted
// model (model-server.mjs) to call the console's gated write_file; the card is decided on the real window under Xvfb (Ctrl+Return; Alt+R, the
// reason, Ctrl+Shift+D). Each client has its own console, data folder and display; the clients run
// in parallel (--parallel), their cases one after the other:
//   approved 5 s after the card shows: the file is written once, the model receives a success;
//     then 4 more cards approved 1.5 s after they show, for the keypress-to-result figures;
//   declined with a reason: the reason reaches the model word for word, nothing is written;
//   never answered (ttlSeconds 25): nothing is written, the card expires.
// Keypress to result: from the key press to the tool result reaching the client (the tap on /mcp)
// and the model (the scripted model server), p50/p99 per client. What each client did with each
// round (era, prompts and answers, how it waited) is printed as a table, from the tap's record.
//   node agents.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--clients claude,gemini,codex,codex2026,opencode,qwen]
//                   [--parallel N] [--decide] [--verbose] [--report FILE.json] [--keep]
//                   [--steps N] [--cases approve,decline,expire] [--budget SECONDS]
// --decide: decide through countersign-test-decide instead of the window (no Xvfb needed).
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { check, exitWithSummary } from '../peer/checks.mjs';
import { CLIENTS } from './clients.mjs';
import { describeWait, makeLog, parseArgs, percentile, pool, ranOnce, runCase, startRig, workRoot } from './harness.mjs';
import { installWatchdog } from './reaper.mjs';

const argv = process.argv.slice(2);
const valueOf = (name, fallback) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : fallback; };
// --steps N: cards approved in the approve case (the first 5 s after it shows, the others 1.5 s);
// --cases approve,decline,expire: which cases run (for measuring keypress to result alone).
const STEPS = Number(valueOf('steps', 5));
const CASES = valueOf('cases', 'approve,decline,expire').split(',');
const opts = parseArgs(argv, 'usage: agents.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--clients LIST] [--parallel N] [--decide] [--verbose] [--report FILE]');
const TTL = 25;
const REASON = 'not on a Friday: the release is frozen (ticket OPS-1234)';
const root = workRoot('countersign-agents-');
const began = Date.now();
// Under ctest's TIMEOUT (600 s), with the clients in parallel (about 100 s; one at a time, longer).
installWatchdog(Number(valueOf('budget', 540)) * 1000, 'agents.mjs');

await check('the pinned clients are installed at their versions', async () => {
    for (const key of opts.clients) {
        const c = CLIENTS[key];
        assert.ok(c, `no client ${key}`);
        assert.equal(await c.versionOf(c), c.version, `${c.name}: run npm ci in tests/peer`);
    }
});

const runs = await pool(opts.clients, opts.parallel, async (key) => {
    const log = makeLog(key, opts.verbose);
    const ws = path.join(root, 'ws', key);
    mkdirSync(ws, { recursive: true });
    const out = { key, log, cases: {}, error: null };
    let rig;
    try {
        rig = await startRig(opts, { config: { workspaceRoots: [ws], cardMinimumSeconds: 1, ttlSeconds: TTL, cardUnseenLimitSeconds: 0 }, log, label: key, root });
        if (CASES.includes('approve')) out.cases.approve = await runCase(rig, key, { kind: 'approve', ws, name: 'approve', steps: STEPS, delays: [5000, 1500], log });
        if (CASES.includes('decline')) out.cases.decline = await runCase(rig, key, { kind: 'decline', ws, name: 'decline', delays: [2000], reason: REASON, log });
        if (CASES.includes('expire')) out.cases.expire = await runCase(rig, key, { kind: 'expire', ws, name: 'expire', log, expireWaitMs: (TTL + 60) * 1000, ttlMs: TTL * 1000 });
    } catch (e) {
        out.error = e;
        log(`rig failure: ${e?.stack ?? e}`);
    } finally {
        await rig?.stop().catch(() => {});
    }
    return out;
});

const evidence = (r, c) => `\n--- ${r.key}: what was seen ---\n${c ? caseText(c) : ''}\n--- ${r.key}: log (last lines) ---\n${r.log.tail(150)}\n---`;
function caseText(c) {
    return [
        `exit: ${JSON.stringify(c.exit)}; written: ${JSON.stringify(c.written)}; notes: ${c.notes.join(' | ') || '-'}`,
        `model: tool ${c.model.toolName}; results: ${c.model.results.map((r) => `#${r.n}${r.pending ? ' (waiting)' : ''} ${r.text.replace(/\s+/g, ' ').slice(0, 160)}`).join(' || ')}`,
        `tap: opens with ${c.tap.opensWith}, era ${c.tap.era}, elicitation ${c.tap.elicitation}; rounds: ${describeWait(c).join(' | ')}`,
        `audit: ${JSON.stringify(c.audit)}`,
        `console log:\n  ${c.consoleLog.filter((l) => /gate|queue|http|dispatch/.test(l)).slice(-30).join('\n  ')}`,
    ].join('\n');
}

for (const r of runs) {
    const name = CLIENTS[r.key].name;
    const a = r.cases.approve;
    if (CASES.includes('approve')) await check(`${name}: approved in the window 5 s after its card showed, the file is written once and the model receives a success`, async () => {
        assert.ok(a, `the case did not run: ${r.error?.stack ?? r.error}${evidence(r)}`);
        const first = a.approvals.find((x) => x.step === 0);
        assert.ok(first, `no card was approved${evidence(r, a)}`);
        assert.equal(a.written[0], 'as asked', `the file is not written${evidence(r, a)}`);
        const once = ranOnce(a, a.files[0]);
        assert.equal(once.succeeded, 1, `${once.succeeded} runs in the audit log${evidence(r, a)}`);
        assert.equal(once.runs, 1, `${once.runs} operations ran${evidence(r, a)}`);
        assert.ok(first.resultText !== null, `the model received no result after the approval${evidence(r, a)}`);
        assert.match(first.resultText, /\bwrote \S/, `the model did not receive a success${evidence(r, a)}`);
    });
    if (CASES.includes('approve') && STEPS > 1) await check(`${name}: ${STEPS - 1} more cards approved in the window, each written once, each success reaching the model`, async () => {
        assert.ok(a, `the case did not run${evidence(r)}`);
        for (let i = 1; i < a.files.length; i++) {
            const ap = a.approvals.find((x) => x.step === i);
            assert.ok(ap, `step ${i + 1}: no card approved${evidence(r, a)}`);
            assert.equal(a.written[i], 'as asked', `step ${i + 1}: not written${evidence(r, a)}`);
            assert.equal(ranOnce(a, a.files[i]).succeeded, 1, `step ${i + 1}: not run once${evidence(r, a)}`);
            assert.match(ap.resultText ?? '', /\bwrote \S/, `step ${i + 1}: no success at the model${evidence(r, a)}`);
        }
    });
    const d = r.cases.decline;
    if (CASES.includes('decline')) await check(`${name}: declined in the window with a reason, the reason reaches the model word for word and nothing is written`, async () => {
        assert.ok(d, `the case did not run${evidence(r)}`);
        assert.ok(d.declines.length, `no card was declined${evidence(r, d)}`);
        assert.equal(d.written[0], null, `the file was written${evidence(r, d)}`);
        assert.ok(d.declines[0].resultText !== null, `the model received no result after the decline${evidence(r, d)}`);
        assert.ok(d.declines[0].resultText.includes(REASON), `the reason is not in the result the model got${evidence(r, d)}`);
        assert.ok(Array.isArray(d.audit) && d.audit.length >= 1 && d.audit.every((o) => o.outcome === 'not run'), `audit: ${JSON.stringify(d.audit)}${evidence(r, d)}`);
        assert.ok(d.audit.some((o) => o.decision === 'declined' && o.reason === REASON && /^console:/.test(o.decidedBy)), `the decline is not the console's, with the reason: ${JSON.stringify(d.audit)}${evidence(r, d)}`);
    });
    const e = r.cases.expire;
    if (CASES.includes('expire')) await check(`${name}: never answered (ttlSeconds ${TTL}), nothing is written and the card expires (abandoned where its agent went away)`, async () => {
        assert.ok(e, `the case did not run${evidence(r)}`);
        assert.ok(e.cardsSeen.length, `no card was made${evidence(r, e)}`);
        assert.equal(e.written[0], null, `the file was written${evidence(r, e)}`);
        assert.ok(Array.isArray(e.audit) && e.audit.length >= 1, `audit: ${JSON.stringify(e.audit)}${evidence(r, e)}`);
        assert.ok(e.audit.every((o) => o.outcome === 'not run'), `something ran: ${JSON.stringify(e.audit)}${evidence(r, e)}`);
        const card = e.audit.find((o) => o.id === e.cardsSeen[0].nonce);
        // At its TTL the card is expired if its agent was still waiting on it (a call open then),
        // abandoned if the agent had gone (the console's distinct outcomes).
        const lapse = (card?.time ?? 0) + TTL * 1000;
        const waiting = (e.tap.calls ?? []).some((c) => c.at <= lapse && (c.answeredAt === null || c.answeredAt >= lapse - 2000));
        assert.equal(card?.decision, waiting ? 'expired' : 'abandoned', `the card's outcome (its agent ${waiting ? 'still waiting' : 'gone'} at the TTL): ${JSON.stringify(card)}${evidence(r, e)}`);
    });
}

// ---- figures and the table -------------------------------------------------------------------
const ms = (v) => (v === null ? '-' : `${v} ms`);
console.log('\nkeypress to result (approvals in the window; to the client = the result passing the tap on /mcp, to the model = the scripted model server receiving it):');
for (const r of runs) {
    const ap = r.cases.approve?.approvals ?? [];
    const toClient = ap.map((x) => x.toClientMs);
    const toModel = ap.map((x) => x.toModelMs);
    const toQueue = ap.map((x) => x.toQueueMs);
    console.log(`  ${CLIENTS[r.key].name.padEnd(12)} n=${ap.filter((x) => x.toModelMs !== null).length}  to the client p50 ${ms(percentile(toClient, 50))}, p99 ${ms(percentile(toClient, 99))};  to the model p50 ${ms(percentile(toModel, 50))}, p99 ${ms(percentile(toModel, 99))};  (key to the console's decision p50 ${ms(percentile(toQueue, 50))})   [${toModel.map((v) => v ?? '-').join(', ')}]`);
}
console.log('\nwhat each client did (from the tap on /mcp):');
for (const r of runs) {
    const c = r.cases.approve ?? r.cases.decline ?? r.cases.expire;
    if (!c) { console.log(`  ${CLIENTS[r.key].name}: did not run (${r.error?.message ?? r.error})`); continue; }
    console.log(`  ${CLIENTS[r.key].name} ${CLIENTS[r.key].version}: opens with ${c.tap.opensWith}, era ${c.tap.era}, elicitation declared: ${c.tap.elicitation}; tool name ${c.model.toolName}`);
    for (const [kind, k] of Object.entries(r.cases)) console.log(`    ${kind}: ${describeWait(k).join(' | ') || '-'}${k.tap.cancelledNotes ? ` [${k.tap.cancelledNotes} notifications/cancelled]` : ''}`);
}
if (opts.report) {
    writeFileSync(opts.report, JSON.stringify({ set: 'short', began, ended: Date.now(), window: opts.window, runs: runs.map((r) => ({ key: r.key, error: r.error ? String(r.error?.stack ?? r.error) : null, cases: r.cases })) }, null, 1));
    console.log(`report: ${opts.report}`);
}
console.log(`wall time ${((Date.now() - began) / 1000).toFixed(0)} s`);
if (!opts.keep) rmSync(root, { recursive: true, force: true });
exitWithSummary();
