#!/usr/bin/env node
// Issue 26, B5, against the real binary on loopback: an attacker with no token opens more idle TCP
// connections than the server has slots (512) and reopens each one as it closes. A token holder
// must still be answered: tools/list over fresh connections, every one of them, and the figures
// (p50, p99) are printed. Bounded: 600 sockets, 40 calls.
// And a token holder who holds 80 identical calls on one card (Claude Code's HTTP hook) holds at
// most 32 connections busy: the rest are answered at once, to call again, and another client is
// still served.
//   node flood.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { check, exitWithSummary, listToolNames, startCountersign } from './attacker.mjs';

const [binary] = process.argv.slice(2);
if (!binary) { console.error('usage: flood.mjs COUNTERSIGN_BINARY'); process.exit(1); }
const server = await startCountersign(binary, { config: { hookHoldSeconds: 60 }, tokenName: 'flood-victim' });
const { port } = new URL(server.url);
const SOCKETS = 600;
let flooding = true;
let opened = 0;
let closedByServer = 0;
const sockets = new Set();
function openIdle() {
    if (!flooding) return;
    const s = net.connect({ host: '127.0.0.1', port: Number(port) });
    ++opened;
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => {
        sockets.delete(s);
        if (flooding) { ++closedByServer; setTimeout(openIdle, 5); } // reopened as it closes
    });
}
const pct = (xs, p) => { const sorted = [...xs].sort((a, b) => a - b); return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]; };

try {
    await check('with 600 idle sockets reopened as they close, a token holder is answered every time', async () => {
        // In batches, as a patient attacker would: a burst beyond the listen backlog would only
        // reach the server as the kernel retries it, over a minute.
        for (let i = 0; i < SOCKETS; ++i) {
            openIdle();
            if (i % 40 === 39) await new Promise((r) => setTimeout(r, 100));
        }
        // The flood holds every slot once the server starts closing its sockets to make room (the
        // kernel's backlog lets the last of them in over a few seconds).
        for (let waited = 0; closedByServer === 0 && waited < 20000; waited += 100)
            await new Promise((r) => setTimeout(r, 100));
        assert.ok(closedByServer > 0, `the flood filled the server (${opened} opened, ${sockets.size} open): ${server.stderr().slice(-300)}`);
        const times = [];
        for (let i = 0; i < 40; ++i) {
            const t0 = performance.now();
            const names = await listToolNames(server);
            times.push(performance.now() - t0);
            assert.ok(names.includes('countersign_status'), JSON.stringify(names));
        }
        console.log(`tools/list during the flood (${opened} sockets opened, ${closedByServer} closed by the server to make room): p50 ${pct(times, 50).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms`);
    });
    await check('80 identical held calls from one token: 32 are held, the rest answered at once, and another client is served', async () => {
        flooding = false;
        for (const s of sockets) s.destroy();
        const base = server.url.replace(/\/mcp$/, '');
        const payload = JSON.stringify({
            session_id: 's', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', permission_mode: 'default',
            hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf /tmp/countersign-flood-nothing' },
            tool_use_id: 'toolu_flood',
        });
        const answered = [];
        const calls = [];
        for (let i = 0; i < 80; ++i) {
            calls.push(fetch(`${base}/hooks/claude-code`, {
                method: 'POST', body: payload,
                headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` },
            }).then(async (r) => { answered.push(i); return r.json(); }));
            calls[i].catch(() => {}); // the held ones end with the server
            if (i === 0) await new Promise((r) => setTimeout(r, 500)); // the card exists
        }
        for (let waited = 0; answered.length < 48 && waited < 10000; waited += 100)
            await new Promise((r) => setTimeout(r, 100));
        await new Promise((r) => setTimeout(r, 500));
        assert.equal(answered.length, 48, `answered at once: ${answered.length} of 80`);
        const names = await listToolNames(server);
        assert.ok(names.includes('countersign_status'), JSON.stringify(names));
        // The ones answered at once were told to call again, never allowed.
        const early = await Promise.all(answered.map((i) => calls[i]));
        for (const body of early) {
            assert.equal(body.hookSpecificOutput?.permissionDecision, 'deny', JSON.stringify(body));
            assert.match(body.hookSpecificOutput.permissionDecisionReason, /again/, JSON.stringify(body));
        }
        assert.match(server.stderr(), /not held: "flood-victim" has 32 calls held already/);
    });
} finally {
    flooding = false;
    for (const s of sockets) s.destroy();
    await server.stop();
}
exitWithSummary();
