#!/usr/bin/env node
// 2025-era clients over Streamable HTTP (issue 13, first part): the official TypeScript SDK v1
// client (@modelcontextprotocol/sdk 1.32.2, pinned by package-lock.json, the library most IDE
// clients are built on) initializes a session with the real binary, lists and calls tools, and a
// gated call is held on its request until the human decides in the console (the test host decides
// through the queue), or answered "still pending" at the hold limit, and the same call again joins
// the same card. Then the session rules over raw HTTP.
//   node legacy-http.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { check, exitWithSummary } from './checks.mjs';
import { startCountersign } from './countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: legacy-http.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);

const work = mkdtempSync(path.join(tmpdir(), 'countersign-legacy-'));
mkdirSync(path.join(work, 'ws'), { recursive: true });
const runs = () => (existsSync(path.join(work, 'runs')) ? readFileSync(path.join(work, 'runs'), 'utf8').split('\n').filter(Boolean).length : 0);
const makeVictim = (name) => { mkdirSync(path.join(work, name), { recursive: true }); writeFileSync(path.join(work, name, 'f.txt'), 'x'); };
const config = {
    legacyHoldSeconds: 3,
    workspaceRoots: [path.join(work, 'ws')],
    actions: [{
        name: 'delete_dir', title: 'Delete a directory', risk: 'medium', workingDirectory: work,
        inputSchema: { type: 'object', properties: { dir: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['dir'], additionalProperties: false },
        plan: ['sh', '-c', 'echo "delete $1: $(find "$1" -type f | sort | tr "\\n" " ")"', 'plan', '{dir}'],
        apply: ['sh', '-c', 'echo run >> runs; rm -r "$1"', 'apply', '{dir}'],
    }],
};
const decide = (server, verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
const connect = async (server, token = server.token) => {
    const client = new Client({ name: 'legacy-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    await client.connect(transport);
    return { client, transport };
};
const post = (server, body, headers = {}, token = server.token) => fetch(server.url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
});
const initialize = (server, token) => post(server, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }, {}, token);

const server = await startCountersign(binary, { config, tokenName: 'legacy' });
try {
    await check('SDK v1 client: initialize negotiates 2025-11-25, tools/list, ping, an allowed tool runs at once', async () => {
        const { client, transport } = await connect(server);
        assert.equal(client.getServerVersion()?.name, 'countersign');
        assert.ok(transport.sessionId, 'a session id was given');
        assert.equal(transport.protocolVersion, '2025-11-25');
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === 'delete_dir') && tools.some((t) => t.name === 'run_command'));
        await client.ping();
        const r = await client.callTool({ name: 'run_command', arguments: { argv: ['pwd'] } });
        assert.notEqual(r.isError, true, JSON.stringify(r));
        assert.match(r.content[0].text, /^exit code 0/);
        assert.equal(r.resultType, undefined, 'a 2025 result has no resultType');
        await transport.terminateSession();
        await client.close();
    });

    await check('SDK v1 client: a gated call waits on its request; approved in the console, it runs once and returns with its receipt', async () => {
        makeVictim('held');
        const { client } = await connect(server);
        const pending = client.callTool({ name: 'delete_dir', arguments: { dir: 'held' } });
        const decided = await decide(server, 'approve', '--wait-ms', '5000');
        const r = await pending;
        assert.notEqual(r.isError, true, JSON.stringify(r));
        assert.ok(!existsSync(path.join(work, 'held')), 'the directory is gone');
        assert.equal(runs(), 1);
        assert.equal(r._meta['dev.countersign/receipt'].nonce, decided.nonce);
        await client.close();
    });

    await check('SDK v1 client: at the hold limit the call says it is still pending and ran nothing; the same call again joins the same card and returns once approved', async () => {
        makeVictim('later');
        const { client } = await connect(server);
        const first = await client.callTool({ name: 'delete_dir', arguments: { dir: 'later' } });
        assert.equal(first.isError, true);
        assert.match(first.content[0].text, /nothing has run yet\. Call delete_dir again with the same arguments/);
        assert.ok(existsSync(path.join(work, 'later')));
        const cards = await decide(server, 'list');
        assert.equal(cards.length, 1);
        const again = client.callTool({ name: 'delete_dir', arguments: { dir: 'later' } });
        await new Promise((r) => setTimeout(r, 300));
        assert.equal((await decide(server, 'list')).length, 1, 'the second call joined the card');
        await decide(server, 'approve', '--nonce', cards[0].nonce);
        const r = await again;
        assert.notEqual(r.isError, true, JSON.stringify(r));
        assert.equal(runs(), 2, 'ran once for this card');
        await client.close();
    });

    await check('a declined card answers the held call with the reason, word for word', async () => {
        makeVictim('nope');
        const { client } = await connect(server);
        const pending = client.callTool({ name: 'delete_dir', arguments: { dir: 'nope' } });
        await decide(server, 'decline', '--wait-ms', '5000', '--reason', 'not this one');
        const r = await pending;
        assert.equal(r.isError, true);
        assert.match(r.content[0].text, /not this one/);
        assert.ok(existsSync(path.join(work, 'nope')));
        await client.close();
    });

    await check('SDK v1 client with a progress token: a call still waiting after 10 s gets notifications/progress on an event stream (its timeout reset each time), then its result there', async () => {
        const patient = await startCountersign(binary, { config: { ...config, legacyHoldSeconds: 40 }, tokenName: 'patient' });
        try {
            makeVictim('slow');
            const { client } = await connect(patient);
            const progress = [];
            // 12 s would end the call before the human decides, but each progress note resets it.
            const pending = client.callTool({ name: 'delete_dir', arguments: { dir: 'slow' } }, undefined,
                { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true, timeout: 12000 });
            const started = Date.now();
            while (progress.length < 2 && Date.now() - started < 30000) await new Promise((r) => setTimeout(r, 200));
            assert.ok(progress.length >= 2, `progress notes: ${JSON.stringify(progress)}`);
            assert.equal(progress[0].progress, 1);
            assert.match(progress[0].message, /waiting for a human/);
            assert.ok(existsSync(path.join(work, 'slow')), 'nothing ran while it waited');
            await decide(patient, 'approve');
            const r = await pending;
            assert.notEqual(r.isError, true, JSON.stringify(r));
            assert.ok(!existsSync(path.join(work, 'slow')));
            assert.ok(r._meta['dev.countersign/receipt']);
            await client.close();
        } finally {
            await patient.stop();
        }
    });

    await check('sessions: DELETE ends one (204, then 404); an unknown one is 404; another connection cannot use it; no envelope and no session is 400 naming both eras', async () => {
        const init = await initialize(server);
        assert.equal(init.status, 200);
        const session = init.headers.get('mcp-session-id');
        assert.match(session, /^[0-9a-f]{32}$/);
        const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
        const headers = { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' };
        assert.equal((await post(server, list, headers)).status, 200);
        const other = server.addToken('other');
        assert.equal((await post(server, list, headers, other)).status, 404, 'not another connection\'s');
        const wrongVersion = await post(server, list, { ...headers, 'MCP-Protocol-Version': '2025-06-18' });
        assert.equal(wrongVersion.status, 400);
        assert.equal((await fetch(server.url, { method: 'DELETE', headers: { Authorization: `Bearer ${server.token}`, 'Mcp-Session-Id': session } })).status, 204);
        assert.equal((await post(server, list, headers)).status, 404);
        assert.equal((await post(server, list, { 'Mcp-Session-Id': 'f'.repeat(32) })).status, 404);
        const bare = await post(server, list);
        assert.equal(bare.status, 400);
        const body = await bare.json();
        assert.equal(body.error.code, -32022);
        assert.deepEqual(body.error.data.supported, ['2026-07-28', '2025-11-25', '2025-06-18']);
    });

    await check('initialize asking for an unknown version is answered with 2025-11-25; 2025-06-18 is kept', async () => {
        const old = await post(server, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
        assert.equal((await old.json()).result.protocolVersion, '2025-11-25');
        const june = await post(server, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
        assert.equal((await june.json()).result.protocolVersion, '2025-06-18');
    });
    await check('the server quits cleanly with 2025-era sessions still open (exit 0; under ASan, no leak)', async () => {
        const { client } = await connect(server); // left open
        assert.ok(client);
        const how = await server.stop({ keepFiles: true });
        assert.deepEqual(how, { code: 0, signal: null });
    });
} finally {
    if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
    rmSync(server.dir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
