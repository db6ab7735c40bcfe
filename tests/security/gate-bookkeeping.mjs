#!/usr/bin/env node
// The gate's bookkeeping of prompts and approvals against a connection that only has its token, and
// a process of the same user writing around the store (both checks failed at 12fc13b, found in a
// review):
// (a) Gate::m_noPrompt is one set for every connection, keyed by the client's self-declared name and
//     capped by refusing inserts: one connection that calls again fresh under 1024 made-up client
//     names fills it, and another connection's client that drops the URL round (Codex) is then
//     prompted on every call, for the life of the process.
// (b) Gate::join runs an approved card from its stored row (ticketFor(op)), not from a sealed
//     ticket: an approval the chain records as timed out, whose row's status and expiry were edited
//     (adversary 3, the store only), is run by the agent's next identical call, and audit verify
//     passes afterwards.
//   node review-gate-bounds.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { check, exitWithSummary } from '../peer/checks.mjs';
import { startCountersign } from '../peer/countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: review-gate-bounds.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }

const work = mkdtempSync(path.join(tmpdir(), 'countersign-review-bounds-'));
const runsFile = path.join(work, 'runs');
const runs = (dir) => (existsSync(runsFile) ? readFileSync(runsFile, 'utf8').split('\n').filter((l) => l === dir).length : 0);
for (const d of ['a', 'x', 'v']) { mkdirSync(path.join(work, d)); writeFileSync(path.join(work, d, 'f'), d); }
const schema = { type: 'object', properties: { dir: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['dir'], additionalProperties: false };
const action = {
    name: 'purge_dir', title: 'Purge a directory', risk: 'medium', workingDirectory: work, inputSchema: schema,
    plan: ['sh', '-c', 'printf \'{"summary":"purge %s","targets":["%s"]}\' "$1" "$1"', 'plan', '{dir}'],
    apply: ['sh', '-c', 'echo "$1" >> runs; echo purged "$1"', 'apply', '{dir}'],
};

// One tools/call from a client that declares URL-mode elicitation, under a client name of its choosing.
async function call(server, token, client, dir) {
    const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } },
        'io.modelcontextprotocol/clientInfo': { name: client, version: '1' },
    };
    const response = await fetch(server.url, {
        method: 'POST',
        headers: {
            Authorization: `Bearer ${token}`, 'Content-Type': 'application/json',
            'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': action.name,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: action.name, arguments: { dir }, _meta: meta } }),
    });
    return response.json();
}
const prompted = (r) => Boolean(r.result?.inputRequests);

try {
    await check('(a) one connection\'s made-up client names do not stop another connection\'s client from being spared the prompt', async () => {
        const server = await startCountersign(binary, { config: { pollWindowSeconds: 1, actions: [action] }, tokenName: 'attacker' });
        try {
            const victim = server.addToken('victim');
            for (let i = 0; i < 1030; ++i) {
                await call(server, server.token, `asked-${i}`, 'x'); // prompted: the card's prompt is on record
                await call(server, server.token, `junk-${i}`, 'x'); // "called again instead of answering": remembered
            }
            assert.ok(prompted(await call(server, victim, 'victim-client', 'v')), 'the victim\'s first call is prompted');
            const again = await call(server, victim, 'victim-client', 'v');
            assert.equal(again.result?.resultType, 'input_required', JSON.stringify(again).slice(0, 300));
            assert.ok(!prompted(again), 'the victim\'s client called again instead of answering: it must not be prompted again');
        } finally { await server.stop(); }
    });

    await check('(b) an approval the chain records as timed out is not run later without audit verify naming it', async () => {
        const server = await startCountersign(binary, { config: { ttlSeconds: 3, cardUnseenLimitSeconds: 0, pollWindowSeconds: 1, actions: [action] }, tokenName: 'agent' });
        const db = path.join(server.dataDir, 'countersign.db');
        const sql = (q) => execFileSync('sqlite3', ['-cmd', '.timeout 5000', db, q]).toString().trim();
        const verify = () => {
            try { execFileSync(binary, ['audit', 'verify', '--data-dir', server.dataDir], { stdio: 'ignore' }); return true; } catch { return false; }
        };
        try {
            await call(server, server.token, 'agent-cli', 'a');
            const cards = JSON.parse(execFileSync(decideBinary, [server.dataDir, 'list', '--wait-ms', '0']).toString());
            execFileSync(decideBinary, [server.dataDir, 'approve', '--nonce', cards[0].nonce]);
            const nonce = cards[0].nonce;
            for (let i = 0; i < 100 && sql(`SELECT status FROM operations WHERE nonce = '${nonce}'`) !== 'timed-out'; ++i)
                await new Promise((r) => setTimeout(r, 100));
            assert.equal(sql(`SELECT status FROM operations WHERE nonce = '${nonce}'`), 'timed-out');
            // Around the store: two columns, no chain row touched.
            sql(`UPDATE operations SET status = 'approved', expires_ms = expires_ms + 86400000 WHERE nonce = '${nonce}'`);
            await call(server, server.token, 'agent-cli', 'a');
            const ran = runs('a');
            const intact = verify();
            assert.ok(!(ran > 0 && intact), `ran ${ran} time(s) after its time-out, and audit verify passed`);
        } finally { await server.stop(); }
    });
} finally {
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
