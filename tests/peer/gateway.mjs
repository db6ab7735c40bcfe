#!/usr/bin/env node
// The gateway: real upstream MCP servers from npm (pinned by package-lock.json, run from
// node_modules) behind the gate. @modelcontextprotocol/server-filesystem 2026.8.31 over a scratch
// folder: fs_read_text_file allowed by its readOnlyHint; fs_write_file, fs_edit_file (its dry-run
// diff is the plan) and fs_move_file gated, nothing touched before approval, each run once after
// it, a file changed between card and approval superseding the card. @modelcontextprotocol/
// server-memory 2026.8.31: mem_delete_entities gated and declined. A fake upstream (fake-upstream.mjs,
// SDK v1) for the faults: killed mid-call, never answering, exiting mid-call, each one call and an
// honest "outcome unknown". Clients: the official v2 client pinned to 2026-07-28 over HTTP, and the
// v1 client (2025-11-25) over HTTP and over the stdio bridge.
//   node gateway.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { check, exitWithSummary, waitFor as waitUntil, watch } from './checks.mjs';
import { startCountersign, stopConsoleOf } from './countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: gateway.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const entry = (pkg) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');

const work = mkdtempSync(path.join(tmpdir(), 'countersign-gateway-'));
const root = path.join(work, 'root');
mkdirSync(root);
const file = (name) => path.join(root, name);
const runsFile = path.join(work, 'fake-runs');
const pidFile = path.join(work, 'fake-pid');
const fakeRuns = () => (existsSync(runsFile) ? readFileSync(runsFile, 'utf8').split('\n').filter(Boolean) : []);
// HTTP upstreams, started before the console: the fake on the SDK v1 Streamable HTTP transport
// (2025-era sessions, a bearer token required) and the SDK v2 server of the benchmarks
// (createMcpHandler, 2026-07-28 only).
const children = [];
async function startHttp(args, pattern, env = {}) {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    children.push(child);
    let out = '';
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${args[0]} did not listen: ${out}`)), 10000);
        const seen = (chunk) => { out += chunk; const m = pattern.exec(out); if (m) { clearTimeout(timer); resolve(Number(m[1])); } };
        child.stdout.on('data', seen);
        child.stderr.on('data', seen);
    });
}
const fakeHttpPort = await startHttp([path.join(here, 'fake-upstream.mjs'), '--http'], /listening (\d+)/, { FAKE_RUNS: runsFile, FAKE_TOKEN: 'upstream-secret' });
const paasPort = await startHttp([path.join(here, 'sdk-gate-server.mjs'), '0'], /listening on http:\/\/127\.0\.0\.1:(\d+)/);
const config = {
    upstreams: [
        { name: 'http', url: `http://127.0.0.1:${fakeHttpPort}/mcp`, headers: { Authorization: 'Bearer upstream-secret' }, timeoutSeconds: 2 },
        { name: 'badauth', url: `http://127.0.0.1:${fakeHttpPort}/mcp`, headers: { Authorization: 'Bearer wrong' } },
        { name: 'paas', url: `http://127.0.0.1:${paasPort}/mcp` },
        { name: 'gone', url: 'http://127.0.0.1:1/mcp' },
        { name: 'fs', command: [process.execPath, entry('@modelcontextprotocol/server-filesystem'), root],
          tools: { edit_file: { planWith: { dryRun: true }, targets: ['path'], risk: 'medium' },
                   write_file: { targets: ['path'], risk: 'medium' },
                   move_file: { targets: ['source', 'destination'], risk: 'medium' } } },
        { name: 'every', command: [process.execPath, entry('@modelcontextprotocol/server-everything'), 'stdio'] },
        { name: 'mem', command: [process.execPath, entry('@modelcontextprotocol/server-memory')],
          env: { MEMORY_FILE_PATH: path.join(work, 'memory.jsonl') },
          tools: { delete_entities: { targets: ['entityNames'], risk: 'medium' } } },
        { name: 'fake', command: [process.execPath, path.join(here, 'fake-upstream.mjs')], timeoutSeconds: 2,
          env: { FAKE_RUNS: runsFile, FAKE_PID: pidFile },
          tools: { record: { risk: 'medium' } } },
    ],
    rules: [{ tool: 'fake_hang', decision: 'allow' }, { tool: 'fake_die', decision: 'allow' }],
};

const decide = (verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
// This file's waits allow 10 s unless they say otherwise (upstreams start beside the console).
const waitFor = (what, predicate, ms = 10000) => waitUntil(what, predicate, ms);
const waitForCard = (tool) => waitFor(`a card for ${tool}`, async () => (await decide('list')).find((c) => c.tool === tool));
const textOf = (r) => r.content?.map((c) => c.text).join('\n') ?? '';
const receiptOf = (r) => r._meta?.['dev.countersign/receipt'];

async function v2(options = {}) {
    const client = new ClientV2({ name: 'gateway-v2', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } }, ...options });
    await client.connect(new HttpV2(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } }));
    return client;
}
async function v1(kind) {
    const client = new ClientV1({ name: `gateway-v1-${kind}`, version: '1.0.0' }, { capabilities: {} });
    const transport = kind === 'http'
        ? new HttpV1(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } })
        : new StdioClientTransport({ command: binary, args: ['--stdio', '--data-dir', server.dataDir],
                                     env: { ...process.env, COUNTERSIGN_TOKEN: server.token }, stderr: 'pipe' });
    await client.connect(transport);
    return client;
}
const call = (client, name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 60000 });

const server = await startCountersign(binary, { config, tokenName: 'gateway' });
let client;
try {
    await check('the upstreams start and their tools are served under their prefixes, with schemas and annotations', async () => {
        client = await v2();
        const tools = await waitFor('the upstream tools', async () => {
            const { tools: t } = await client.listTools();
            const names = t.map((x) => x.name);
            return ['fs_read_text_file', 'fs_edit_file', 'mem_delete_entities', 'fake_record'].every((n) => names.includes(n)) && t;
        }, 20000);
        const edit = tools.find((t) => t.name === 'fs_edit_file');
        assert.deepEqual(Object.keys(edit.inputSchema.properties).sort(), ['dryRun', 'edits', 'path']);
        assert.equal(edit.annotations.destructiveHint, true);
        assert.equal(tools.find((t) => t.name === 'fs_read_text_file').annotations.readOnlyHint, true);
        assert.ok(!tools.some((t) => t.name === 'read_text_file'), 'upstream names only under the prefix');
    });

    await check('v2 client: fs_read_text_file is allowed by its readOnlyHint (no card) and reads through the upstream', async () => {
        writeFileSync(file('notes.txt'), 'line one\nline two\n');
        const r = await call(client, 'fs_read_text_file', { path: file('notes.txt') });
        assert.ok(!r.isError, textOf(r));
        assert.equal(textOf(r), 'line one\nline two\n');
        assert.deepEqual(await decide('list'), []);
    });

    await check('v2 client: fs_write_file waits for approval, writes nothing before it, and runs once with a receipt', async () => {
        const target = file('new.txt');
        const pending = watch(call(client, 'fs_write_file', { path: target, content: 'approved text\n' }));
        const card = await waitForCard('fs_write_file');
        assert.deepEqual(card.targets, [target]);
        assert.ok(card.diff.includes('approved text'), card.diff);
        await sleep(300);
        assert.ok(!existsSync(target), 'written before approval');
        assert.ok(!pending.settled());
        await decide('approve', '--nonce', card.nonce);
        const r = await pending.promise;
        assert.ok(!r.isError, textOf(r));
        assert.equal(readFileSync(target, 'utf8'), 'approved text\n');
        assert.ok(receiptOf(r), 'a signed receipt');
    });

    await check('v2 client: fs_edit_file shows the upstream\'s dry-run diff as the plan; the edit runs once after approval', async () => {
        writeFileSync(file('edit.txt'), 'colour: red\nsize: 3\n');
        const pending = watch(call(client, 'fs_edit_file', { path: file('edit.txt'), edits: [{ oldText: 'red', newText: 'blue' }] }));
        const card = await waitForCard('fs_edit_file');
        assert.match(card.diff, /^-colour: red$/m);
        assert.match(card.diff, /^\+colour: blue$/m);
        assert.ok(!card.diff.startsWith('```'), 'the Markdown fence is taken off');
        assert.match(card.prompt, /The plan below is upstream fs's own answer to a dry run \(edit_file called with its planWith arguments before your decision\)/);
        assert.equal(readFileSync(file('edit.txt'), 'utf8'), 'colour: red\nsize: 3\n', 'the dry run changed nothing');
        await decide('approve', '--nonce', card.nonce);
        const r = await pending.promise;
        assert.ok(!r.isError, textOf(r));
        assert.equal(readFileSync(file('edit.txt'), 'utf8'), 'colour: blue\nsize: 3\n');
    });

    await check('a file changed between card and approval: the re-planned dry run differs, the card is superseded and nothing runs on the old plan', async () => {
        writeFileSync(file('drift.txt'), 'mode: safe\nlevel: 1\n');
        const pending = watch(call(client, 'fs_edit_file', { path: file('drift.txt'), edits: [{ oldText: 'safe', newText: 'fast' }] }));
        const first = await waitForCard('fs_edit_file');
        writeFileSync(file('drift.txt'), 'mode: safe\nlevel: 9\n'); // someone else changed it meanwhile
        await decide('approve', '--nonce', first.nonce);
        const second = await waitFor('the superseding card', async () => (await decide('list')).find((c) => c.tool === 'fs_edit_file' && c.nonce !== first.nonce));
        assert.match(second.diff, /level: 9/);
        assert.equal(readFileSync(file('drift.txt'), 'utf8'), 'mode: safe\nlevel: 9\n', 'the approved-but-stale plan did not run');
        await decide('decline', '--nonce', second.nonce, '--reason', 'changed under us');
        const r = await pending.promise;
        assert.ok(r.isError, 'declined');
        assert.match(textOf(r), /changed under us/);
        assert.equal(readFileSync(file('drift.txt'), 'utf8'), 'mode: safe\nlevel: 9\n');
    });

    await check('v2 client: fs_move_file is gated and moves once (a second run would fail: the source is gone)', async () => {
        writeFileSync(file('from.txt'), 'moving\n');
        const pending = watch(call(client, 'fs_move_file', { source: file('from.txt'), destination: file('to.txt') }));
        const card = await waitForCard('fs_move_file');
        assert.deepEqual(card.targets, [file('from.txt'), file('to.txt')]);
        assert.ok(existsSync(file('from.txt')) && !existsSync(file('to.txt')), 'moved before approval');
        await decide('approve', '--nonce', card.nonce);
        const r = await pending.promise;
        assert.ok(!r.isError, textOf(r));
        assert.ok(!existsSync(file('from.txt')) && readFileSync(file('to.txt'), 'utf8') === 'moving\n');
    });

    await check('server-memory: mem_delete_entities is gated; declined, the entity stays and the agent reads the reason', async () => {
        const created = watch(call(client, 'mem_create_entities', { entities: [{ name: 'prod-db', entityType: 'database', observations: ['primary'] }] }));
        await decide('approve', '--nonce', (await waitForCard('mem_create_entities')).nonce);
        assert.ok(!(await created.promise).isError);
        const pending = watch(call(client, 'mem_delete_entities', { entityNames: ['prod-db'] }));
        const card = await waitForCard('mem_delete_entities');
        assert.deepEqual(card.targets, ['prod-db']);
        await decide('decline', '--nonce', card.nonce, '--reason', 'prod stays');
        const r = await pending.promise;
        assert.ok(r.isError);
        assert.match(textOf(r), /prod stays/);
        const graph = await call(client, 'mem_read_graph', {});
        assert.ok(!graph.isError, textOf(graph));
        assert.match(textOf(graph), /prod-db/);
    });

    for (const kind of ['http', 'stdio']) {
        await check(`v1 client (2025-11-25) over ${kind}: an allowed read and an approved write through the gateway`, async () => {
            const c = await v1(kind);
            try {
                const { tools } = await c.listTools();
                assert.ok(tools.some((t) => t.name === 'fs_write_file'));
                const r = await call(c, 'fs_read_text_file', { path: file('notes.txt') });
                assert.equal(textOf(r), 'line one\nline two\n');
                const target = file(`v1-${kind}.txt`);
                const pending = watch(call(c, 'fs_write_file', { path: target, content: kind }));
                const card = await waitForCard('fs_write_file');
                assert.ok(!existsSync(target));
                await decide('approve', '--nonce', card.nonce);
                const w = await pending.promise;
                assert.ok(!w.isError, textOf(w));
                assert.equal(readFileSync(target, 'utf8'), kind);
            } finally {
                await c.close().catch(() => {});
            }
        });
    }

    await check('an upstream that never answers: "outcome unknown" at its timeout, one call, and the upstream still serves', async () => {
        const before = fakeRuns().length;
        const t0 = Date.now();
        const r = await call(client, 'fake_hang', { name: 'h1' });
        assert.ok(r.isError);
        assert.match(textOf(r), /Outcome unknown/);
        assert.match(textOf(r), /no answer within 2 s/);
        assert.ok(Date.now() - t0 < 6000, `answered after ${Date.now() - t0} ms`);
        assert.deepEqual(fakeRuns().slice(before), ['hang h1']);
        const echo = await call(client, 'fake_echo', { name: 'still here' });
        assert.equal(textOf(echo), 'echo still here');
    });

    await check('an upstream exiting mid-call: "outcome unknown", one call; it is restarted and serves again', async () => {
        const before = fakeRuns().length;
        const r = await call(client, 'fake_die', { name: 'd1' });
        assert.ok(r.isError);
        assert.match(textOf(r), /Outcome unknown/);
        assert.deepEqual(fakeRuns().slice(before), ['die d1']);
        const echo = await waitFor('the restarted upstream', async () => {
            const e = await call(client, 'fake_echo', { name: 'back' }).catch(() => null);
            return e && !e.isError && e;
        }, 15000);
        assert.equal(textOf(echo), 'echo back');
    });

    await check('every client is told when an upstream\'s tools go and come back: v1 over the stdio bridge and over HTTP (its session\'s GET stream), v2 over HTTP (subscriptions/listen)', async () => {
        const bridge = await v1('stdio');
        const http = await v1('http');
        const seen = { bridge: 0, http: 0, v2: 0 };
        let v2Tools = [];
        const modern = await v2({ listChanged: { tools: { debounceMs: 0, onChanged: (error, tools) => { if (!error) { ++seen.v2; v2Tools = tools; } } } } });
        try {
            for (const c of [bridge, http, modern]) assert.equal(c.getServerCapabilities()?.tools?.listChanged, true);
            bridge.setNotificationHandler(ToolListChangedNotificationSchema, () => { ++seen.bridge; });
            http.setNotificationHandler(ToolListChangedNotificationSchema, () => { ++seen.http; });
            await sleep(500); // the v1 HTTP client opens its GET stream after connecting, unawaited
            process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
            await waitFor('a list_changed to each client as the upstream goes', () => seen.bridge >= 1 && seen.http >= 1 && seen.v2 >= 1);
            await waitFor('the fake upstream\'s tools to be back', async () => (await bridge.listTools()).tools.some((t) => t.name === 'fake_echo'), 15000);
            await waitFor('each client told again', () => seen.bridge >= 2 && seen.http >= 2 && seen.v2 >= 2);
            assert.ok(v2Tools.some((t) => t.name === 'fake_echo'), 'the v2 client refreshed its list: fake_echo is back');
        } finally {
            for (const c of [bridge, http, modern]) await c.close().catch(() => {});
        }
    });

    await check('an approved upstream call killed mid-call: "outcome unknown" for the agent and its retries, never a second call', async () => {
        const before = fakeRuns().length;
        const pending = watch(call(client, 'fake_record', { name: 'k1', ms: 1500 }));
        const card = await waitForCard('fake_record');
        assert.deepEqual(fakeRuns().slice(before), [], 'ran before approval');
        await decide('approve', '--nonce', card.nonce);
        await waitFor('the call to reach the upstream', () => fakeRuns().length > before);
        process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
        const r = await pending.promise;
        assert.ok(r.isError);
        assert.match(textOf(r), /Outcome unknown/);
        assert.ok(receiptOf(r), 'the unknown outcome is signed too');
        // The same call again is a new call (a new card), never a silent second run of the old one.
        await sleep(500);
        assert.deepEqual(fakeRuns().slice(before), ['record k1']);
        assert.deepEqual(await decide('list'), []);
    });

    await check('HTTP upstreams: a 2025-era server with a session and a bearer header, and a 2026-07-28 server, serve their tools; unreachable or refused ones serve none', async () => {
        const { tools } = await waitFor('the HTTP upstreams\' tools', async () => {
            const listed = await client.listTools();
            const names = listed.tools.map((t) => t.name);
            return ['http_echo', 'http_record', 'paas_status', 'paas_bench_allowed'].every((n) => names.includes(n)) && listed;
        }, 20000);
        assert.ok(!tools.some((t) => t.name.startsWith('badauth_') || t.name.startsWith('gone_')), JSON.stringify(tools.map((t) => t.name)));
    });

    await check('HTTP (2025 session): http_echo allowed by annotation; http_record gated, approved, recorded once', async () => {
        const echo = await call(client, 'http_echo', { name: 'over http' });
        assert.equal(textOf(echo), 'echo over http');
        const before = fakeRuns().length;
        const pending = watch(call(client, 'http_record', { name: 'h-approved' }));
        const card = await waitForCard('http_record');
        assert.deepEqual(fakeRuns().slice(before), []);
        await decide('approve', '--nonce', card.nonce);
        const r = await pending.promise;
        assert.equal(textOf(r), 'recorded h-approved');
        assert.deepEqual(fakeRuns().slice(before), ['record h-approved']);
    });

    await check('HTTP (2025 session): an upstream call that never answers ends "outcome unknown" at the timeout, once', async () => {
        const pending = watch(call(client, 'http_hang', { name: 'h-hang' }));
        const card = await waitForCard('http_hang');
        const before = fakeRuns().length;
        await decide('approve', '--nonce', card.nonce);
        const r = await pending.promise;
        assert.ok(r.isError);
        assert.match(textOf(r), /Outcome unknown/);
        assert.deepEqual(fakeRuns().slice(before), ['hang h-hang']);
    });

    await check('HTTP (2026-07-28): paas_status allowed; paas_bench_allowed gated and run once approved; an upstream that needs input it cannot have refuses, and that is said', async () => {
        assert.equal(textOf(await call(client, 'paas_status', {})), 'ok');
        const pending = watch(call(client, 'paas_bench_allowed', { target: 'svc-1' }));
        const card = await waitForCard('paas_bench_allowed');
        assert.ok(card.diff.includes('target: svc-1'), card.diff);
        await decide('approve', '--nonce', card.nonce);
        const r = await pending.promise;
        assert.ok(!r.isError, textOf(r));
        assert.match(textOf(r), /exit code 0/);
        const asking = watch(call(client, 'paas_bench_gated', { target: 'svc-2' }));
        await decide('approve', '--nonce', (await waitForCard('paas_bench_gated')).nonce);
        const a = await asking.promise;
        assert.ok(a.isError);
        // Countersign declares no elicitation to upstreams: the SDK server refuses with -32021.
        assert.match(textOf(a), /Upstream paas refused the call: .*capabilit/);
    });

    await check('prompts and resources of an upstream (server-everything) pass through read-only: prompts prefixed, resources under their URIs', async () => {
        const { prompts } = await waitFor('the upstream prompts', async () => {
            const listed = await client.listPrompts();
            return listed.prompts.some((p) => p.name === 'every_simple-prompt') && listed;
        }, 20000);
        assert.ok(prompts.every((p) => p.name.startsWith('every_')), JSON.stringify(prompts.map((p) => p.name)));
        const simple = await client.getPrompt({ name: 'every_simple-prompt' });
        assert.ok(simple.messages.length > 0 && simple.messages[0].content.type === 'text', JSON.stringify(simple));
        const withArgs = await client.getPrompt({ name: 'every_args-prompt', arguments: { city: 'Lisbon' } });
        assert.match(JSON.stringify(withArgs.messages), /Lisbon/);
        await assert.rejects(client.getPrompt({ name: 'simple-prompt' }), /Unknown prompt/);
        const { resources } = await client.listResources();
        assert.ok(resources.length > 0, 'resources listed');
        const first = resources[0];
        const read = await client.readResource({ uri: first.uri });
        assert.equal(read.contents[0].uri, first.uri);
        await assert.rejects(client.readResource({ uri: 'file:///etc/passwd' }), /Resource not found/);
        const { resourceTemplates } = await client.listResourceTemplates();
        assert.ok(Array.isArray(resourceTemplates));
        // Reading is not gated and leaves no card.
        assert.deepEqual(await decide('list'), []);
    });

    await check('v1 client (2025-11-25): the same prompts and resources in the 2025 shapes', async () => {
        const c = await v1('http');
        try {
            assert.ok(c.getServerCapabilities()?.prompts && c.getServerCapabilities()?.resources);
            const { prompts } = await c.listPrompts();
            assert.ok(prompts.some((p) => p.name === 'every_simple-prompt'));
            const got = await c.getPrompt({ name: 'every_simple-prompt' });
            assert.ok(got.messages.length > 0);
            const { resources } = await c.listResources();
            const read = await c.readResource({ uri: resources[0].uri });
            assert.equal(read.contents[0].uri, resources[0].uri);
        } finally {
            await c.close().catch(() => {});
        }
    });

    await check('the audit log holds every gateway call, the allowed reads included, and verifies', async () => {
        const { stdout } = await run(binary, ['audit', 'verify', '--data-dir', server.dataDir]);
        assert.match(stdout, /ok|verified/i, stdout);
        const exported = await run(binary, ['audit', 'export', '--format', 'json', '--data-dir', server.dataDir]);
        const rows = JSON.parse(exported.stdout);
        for (const tool of ['fs_read_text_file', 'fs_write_file', 'fs_edit_file', 'fs_move_file', 'mem_delete_entities', 'fake_hang'])
            assert.ok(rows.some((row) => row.tool === tool), `${tool} in the audit log`);
        assert.ok(rows.some((row) => row.tool === 'mem_delete_entities' && row.reason === 'prod stays'));
    });

    await check('the console quits cleanly on SIGTERM and its upstreams end with it (exit 0; under the sanitizers, no leak)', async () => {
        const how = await server.stop({ keepFiles: true });
        assert.deepEqual(how, { code: 0, signal: null }, server.stderr().slice(-4000));
        const pid = Number(readFileSync(pidFile, 'utf8'));
        await waitFor('the stdio upstream to end', () => { try { process.kill(pid, 0); return false; } catch { return true; } }, 5000);
    });
} finally {
    for (const child of children) child.kill();
    await client?.close().catch(() => {});
    await stopConsoleOf(server.dataDir);
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
