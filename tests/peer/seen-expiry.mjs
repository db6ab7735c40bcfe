#!/usr/bin/env node
// A card's time to decide counts from when a human first saw it (issue 51): through Claude Code's
// HTTP hook, with the real console. An unseen card outlives ttlSeconds, its agent still held; once
// seen (countersign-test-decide seen, as the window or a phone's page records it) it expires
// ttlSeconds later and the held agent hears so at once; a card seen and approved in time runs; a card
// nobody sees expires at cardUnseenLimitSeconds; a sighting never reaches past the sealed ticket; and
// with cardUnseenLimitSeconds 0 the time counts from the card's making, as before.
//   node seen-expiry.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { check, exitWithSummary, waitFor } from './checks.mjs';
import { startCountersign } from './countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: seen-expiry.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'countersign-seen-expiry-'));
const ws = path.join(work, 'ws');
mkdirSync(ws, { recursive: true });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// One console: its hook, its cards, its audit events.
function rig(server) {
    const base = server.url.replace(/\/mcp$/, '');
    const decide = (verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
    let ids = 0;
    // A call that asks (the network), held by the console until its card is settled or the hold ends.
    const ask = (url) => fetch(`${base}/hooks/claude-code`, {
        method: 'POST',
        body: JSON.stringify({ session_id: 's', transcript_path: '/tmp/t.jsonl', cwd: ws, permission_mode: 'default',
            hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: `curl -sS ${url}` }, tool_use_id: `toolu_${++ids}` }),
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` },
    }).then(async (res) => ({ answer: (await res.json()).hookSpecificOutput ?? {}, at: Date.now() }));
    const card = () => waitFor('its card', async () => (await decide('list'))[0], 15000);
    const events = (nonce) => execFileSync('sqlite3', ['-cmd', '.timeout 5000', path.join(server.dataDir, 'countersign.db'),
        `SELECT event FROM audit_log WHERE nonce = '${nonce}' ORDER BY seq`]).toString().split('\n').filter(Boolean);
    return { decide, ask, card, events };
}

const servers = [];
try {
    const server = await startCountersign(binary, { config: { workspaceRoots: [ws], ttlSeconds: 2, cardUnseenLimitSeconds: 30, hookHoldSeconds: 25 }, tokenName: 'agent' });
    servers.push(server);
    const r = rig(server);

    await check('an unseen card outlives ttlSeconds with its agent held; seen, it expires ttlSeconds later and the agent hears it at once', async () => {
        const started = Date.now();
        const call = r.ask('https://example.invalid/a');
        const card = await r.card();
        await sleep(3500); // past ttlSeconds (2 s) from its making
        const still = await r.decide('list');
        assert.equal(still.length, 1, 'the unseen card is still waiting after its ttlSeconds');
        const seen = await r.decide('seen', '--nonce', card.nonce, '--ttl-ms', '2000');
        assert.ok(seen.decideByMs > seen.seenMs, JSON.stringify(seen));
        const { answer, at } = await call;
        assert.equal(answer.permissionDecision, 'deny', JSON.stringify(answer));
        assert.match(answer.permissionDecisionReason ?? '', /expired/i, JSON.stringify(answer));
        const afterSeen = at - seen.seenMs;
        assert.ok(afterSeen >= 1500 && afterSeen < 4500, `answered ${afterSeen} ms after the sighting (ttl 2 s; held up to 25 s)`);
        console.log(`    unseen for ${seen.seenMs - started} ms; expired ${afterSeen} ms after it was seen`);
        const ev = r.events(card.nonce);
        assert.ok(ev.indexOf('card-seen') >= 0 && ev.indexOf('card-seen') < ev.indexOf('expired'), ev.join(', '));
        await assert.rejects(r.decide('approve', '--nonce', card.nonce, '--wait-ms', '0'), 'an expired card cannot be approved');
    });

    await check('a card seen and approved within its time runs', async () => {
        const call = r.ask('https://example.invalid/b');
        const card = await r.card();
        await sleep(2500);
        await r.decide('seen', '--nonce', card.nonce, '--ttl-ms', '2000');
        await sleep(800);
        const approved = await r.decide('approve', '--nonce', card.nonce);
        assert.equal(approved.outcome, 'approved');
        const { answer } = await call;
        assert.equal(answer.permissionDecision, 'allow', JSON.stringify(answer));
    });

    await check('a sighting never reaches past the sealed ticket (cardUnseenLimitSeconds)', async () => {
        const limited = await startCountersign(binary, { config: { workspaceRoots: [ws], ttlSeconds: 2, cardUnseenLimitSeconds: 5, hookHoldSeconds: 25 }, tokenName: 'limited' });
        servers.push(limited);
        const l = rig(limited);
        const started = Date.now();
        const call = l.ask('https://example.invalid/c');
        const card = await l.card();
        await sleep(1000);
        await l.decide('seen', '--nonce', card.nonce, '--ttl-ms', '600000'); // ten minutes asked for
        const { answer, at } = await call;
        assert.equal(answer.permissionDecision, 'deny', JSON.stringify(answer));
        assert.ok(at - started < 9000, `expired ${at - started} ms after the call: the seal says 5 s`);
        // And a card nobody sees: gone at the limit, not at ttlSeconds.
        const t0 = Date.now();
        const unseen = await l.ask('https://example.invalid/d');
        const lived = unseen.at - t0;
        assert.equal(unseen.answer.permissionDecision, 'deny', JSON.stringify(unseen.answer));
        assert.ok(lived >= 4000 && lived < 9000, `the unseen card lived ${lived} ms (ttl 2 s, unseen limit 5 s)`);
    });

    await check('an approval after the time to decide is stored as an expiry, from any process; one given in time whose agent comes back late times out, and the same call asks again with a new card', async () => {
        const short = await startCountersign(binary, { config: { workspaceRoots: [ws], ttlSeconds: 2, cardUnseenLimitSeconds: 60, hookHoldSeconds: 1 }, tokenName: 'short' });
        servers.push(short);
        const q = rig(short);
        const sql = (query) => execFileSync('sqlite3', ['-cmd', '.timeout 5000', path.join(short.dataDir, 'countersign.db'), query]).toString().trim();
        // Seen elsewhere, approved after its time: refused, recorded as expired (the gate would never run it).
        const first = await q.ask('https://example.invalid/late');
        assert.notEqual(first.answer.permissionDecision, 'allow', JSON.stringify(first.answer)); // still waiting
        const late = await q.card();
        await q.decide('seen', '--nonce', late.nonce, '--ttl-ms', '1000');
        await sleep(1500);
        await assert.rejects(q.decide('approve', '--nonce', late.nonce, '--wait-ms', '0'), 'approved after its time to decide');
        assert.equal(sql(`SELECT status FROM operations WHERE nonce = '${late.nonce}'`), 'expired');
        // Approved in time; its agent comes back after the time ended: timed out, and the next
        // identical call raises a new card instead of joining the dead one until its seal.
        const again = await q.ask('https://example.invalid/slow');
        assert.notEqual(again.answer.permissionDecision, 'allow', JSON.stringify(again.answer));
        const slow = await q.card();
        await q.decide('seen', '--nonce', slow.nonce, '--ttl-ms', '1500');
        assert.equal((await q.decide('approve', '--nonce', slow.nonce)).outcome, 'approved');
        await sleep(2500);
        const back = await q.ask('https://example.invalid/slow');
        assert.equal(back.answer.permissionDecision, 'deny', JSON.stringify(back.answer));
        assert.match(back.answer.permissionDecisionReason ?? '', /expired/i, JSON.stringify(back.answer));
        assert.equal(sql(`SELECT status FROM operations WHERE nonce = '${slow.nonce}'`), 'timed-out');
        const next = q.ask('https://example.invalid/slow');
        const fresh = await waitFor('a new card', async () => (await q.decide('list')).find((c) => c.nonce !== slow.nonce), 10000);
        assert.ok(fresh, 'the same call asks again with a new card');
        await q.decide('decline', '--nonce', fresh.nonce, '--reason', 'done');
        await next;
    });

    await check('with cardUnseenLimitSeconds 0 the time counts from the card\'s making, seen or not', async () => {
        const old = await startCountersign(binary, { config: { workspaceRoots: [ws], ttlSeconds: 2, cardUnseenLimitSeconds: 0, hookHoldSeconds: 25 }, tokenName: 'old' });
        servers.push(old);
        const o = rig(old);
        const t0 = Date.now();
        const { answer, at } = await o.ask('https://example.invalid/e');
        assert.equal(answer.permissionDecision, 'deny', JSON.stringify(answer));
        assert.ok(at - t0 < 4500, `expired ${at - t0} ms after the call (ttl 2 s)`);
    });
} finally {
    for (const s of servers) await s.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
