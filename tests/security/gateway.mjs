#!/usr/bin/env node
// The gateway against a hostile upstream (tests/peer/hostile-upstream.mjs) and an agent with a
// token, each case an attack found in review: an answer nested 200,000 deep (the console crashed
// copying it), an HTTP upstream cutting the connection after acting (Qt's network manager sent the
// POST again: two runs for one approval), an event stream kept open after its answer (the link
// waited for the end and wedged), answers carrying hundreds of ping requests (each answer was a
// new POST that asked for more), escapes in an upstream's stderr (a forged log line), and a
// planWith argument the tool does not take (its "dry run" was a real run before any decision), a
// 103 interim answer (taken for the answer), and an upstream flooding list_changed (thousands of
// notifications a second reached the clients), and an upstream that stops reading its input (the
// console buffered without limit).
//   node gateway.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor as waitUntil } from '../peer/checks.mjs';
import { callTool, check, decide, exitWithSummary, listToolNames, pendingCards, startCountersign, textOf } from './attacker.mjs';

const sdk = (module) => import(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'peer', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm', module));
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { ToolListChangedNotificationSchema } = await sdk('types.js');

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: gateway.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const here = path.dirname(fileURLToPath(import.meta.url));
const hostile = path.join(here, '..', 'peer', 'hostile-upstream.mjs');
const require = createRequire(path.join(here, '..', 'peer', 'package.json'));
const filesystem = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');
const work = mkdtempSync(path.join(tmpdir(), 'countersign-sec-gateway-'));
const lines = (file) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const children = [];
async function httpUpstream(mode) {
    const runs = path.join(work, `${mode}-runs`), posts = path.join(work, `${mode}-posts`);
    const child = spawn(process.execPath, [hostile, '--http'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, MODE: mode, RUNS: runs, POSTS: posts } });
    children.push(child);
    const port = await new Promise((resolve) => child.stdout.on('data', (d) => { const m = /listening (\d+)/.exec(String(d)); if (m) resolve(Number(m[1])); }));
    return { url: `http://127.0.0.1:${port}/mcp`, runs, posts };
}
const drop = await httpUpstream('drop-after-act');
const sse = await httpUpstream('sse-open');
const amplify = await httpUpstream('amplify');
const early = await httpUpstream('early');
const deepRuns = path.join(work, 'deep-runs');
writeFileSync(path.join(work, 'notes.txt'), 'unchanged\n');
const config = {
    upstreams: [
        { name: 'deep', command: [process.execPath, hostile], env: { MODE: 'deep', RUNS: deepRuns }, timeoutSeconds: 2 },
        { name: 'noisy', command: [process.execPath, hostile], env: { MODE: 'stderr' } },
        { name: 'drop', url: drop.url, timeoutSeconds: 3 },
        { name: 'sse', url: sse.url, timeoutSeconds: 3 },
        { name: 'amp', url: amplify.url },
        { name: 'early', url: early.url },
        { name: 'flood', command: [process.execPath, hostile], env: { MODE: 'flood' } },
        { name: 'deaf', command: [process.execPath, hostile], env: { MODE: 'deaf' }, timeoutSeconds: 2 },
        // write_file takes no dryRun: this planWith would make the "dry run" a real write.
        { name: 'fs', command: [process.execPath, filesystem, work], tools: { write_file: { planWith: { dryRun: true } } } },
    ],
};
const server = await startCountersign(binary, { config, tokenName: 'agent' });
const call = (name, args, extra, id) => callTool(server, name, args, extra, id);
const waitFor = (what, predicate, ms = 15000) =>
    waitUntil(what, predicate, ms, () => `; console stderr:\n${server.stderr()}`);
// Approves the call's card, then retries with its ticket until it is answered.
async function approvedCall(name, args) {
    const first = await call(name, args);
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    await decide(server, decideBinary, 'approve', '--nonce', (await pendingCards(server, decideBinary)).find((c) => c.tool === name).nonce);
    for (;;) {
        const r = await call(name, args, { requestState: first.result.requestState });
        if (r.result?.resultType !== 'input_required') return r;
        await sleep(100);
    }
}

try {
    await waitFor('every upstream ready', () =>
        ['deep', 'noisy', 'drop', 'sse', 'amp', 'early', 'flood', 'deaf', 'fs'].every((name) => server.stderr().includes(`upstream "${name}" ready`)));
    // "ready" is logged before the tool list is rebuilt (coalesced over 250 ms): wait for the tools.
    await waitFor('every upstream\'s tools listed', async () => {
        const names = await listToolNames(server);
        return ['deep_echo', 'noisy_echo', 'drop_record', 'sse_echo', 'amp_echo', 'early_echo', 'flood_echo', 'deaf_echo', 'fs_write_file'].every((n) => names.includes(n));
    });

    await check('an answer nested 200,000 deep is dropped as not JSON-RPC: the call ends "outcome unknown", the console serves on', async () => {
        const r = await call('deep_echo', { name: 'd1' });
        assert.ok(r.result?.isError, JSON.stringify(r).slice(0, 300));
        assert.match(textOf(r), /Outcome unknown/);
        assert.deepEqual(lines(deepRuns), ['echo d1']);
        assert.match(server.stderr(), /wrote a line that is not a JSON-RPC message/);
        assert.equal(server.child.exitCode, null, 'the console is still running');
        assert.equal(textOf(await call('noisy_echo', { name: 'alive' })), 'echo alive');
    });

    await check('an HTTP upstream that acts and then cuts the connection gets the POST once: one run, "outcome unknown"', async () => {
        const r = await approvedCall('drop_record', { name: 'pay-invoice-42' });
        assert.ok(r.result?.isError);
        assert.match(textOf(r), /Outcome unknown/);
        await sleep(500);
        assert.deepEqual(lines(drop.runs), ['record pay-invoice-42']);
    });

    await check('an answer on an event stream that stays open is taken at once, and the link serves the next call', async () => {
        const t0 = Date.now();
        const r = await call('sse_echo', { name: 's1' });
        assert.equal(textOf(r), 'echo s1');
        assert.ok(Date.now() - t0 < 2500, `answered after ${Date.now() - t0} ms`);
        for (let i = 2; i <= 8; ++i) assert.equal(textOf(await call('sse_echo', { name: `s${i}` })), `echo s${i}`);
    });

    await check('pings carried by an HTTP upstream\'s answers are not answered: no POST storm, the calls still work', async () => {
        const before = Number(readFileSync(amplify.posts, 'utf8'));
        for (let i = 0; i < 5; ++i) assert.equal(textOf(await call('amp_echo', { name: `a${i}` })), `echo a${i}`);
        await sleep(500);
        const after = Number(readFileSync(amplify.posts, 'utf8'));
        assert.equal(after - before, 5, `${after - before} POSTs for 5 calls`);
    });

    await check('an interim "103 Early Hints" before the answer is passed over: the call gets its result', async () => {
        assert.equal(textOf(await call('early_echo', { name: 'e1' })), 'echo e1');
    });

    await check('an upstream flooding list_changed: a bridge client is told nothing (its tools did not change) and still lists them', async () => {
        const client = new Client({ name: 'flood-watch', version: '1.0.0' }, { capabilities: {} });
        await client.connect(new StdioClientTransport({ command: binary, args: ['--stdio', '--data-dir', server.dataDir],
                                                        env: { ...process.env, COUNTERSIGN_TOKEN: server.token }, stderr: 'pipe' }));
        try {
            let told = 0;
            client.setNotificationHandler(ToolListChangedNotificationSchema, () => { ++told; });
            await sleep(3000);
            assert.equal(told, 0, `${told} notifications`);
            assert.ok((await client.listTools()).tools.some((t) => t.name === 'flood_echo'));
        } finally {
            await client.close().catch(() => {});
        }
    });

    await check('an upstream that stops reading: past 16 MiB unread, calls are "not run" at once instead of growing the console', async () => {
        const big = 'x'.repeat(900 * 1024);
        const answers = await Promise.all(Array.from({ length: 32 }, (_, i) => call('deaf_echo', { name: big }, {}, i + 1)));
        const notRun = answers.filter((r) => /is not reading its input/.test(textOf(r))).length;
        const unknown = answers.filter((r) => /Outcome unknown/.test(textOf(r))).length;
        assert.ok(notRun >= 4, `${notRun} not run, ${unknown} outcome unknown`);
        assert.equal(notRun + unknown, 32, JSON.stringify(answers.map((r) => textOf(r).slice(0, 120) || JSON.stringify(r).slice(0, 200))));
    });

    await check('escapes an upstream writes to stderr are shown escaped: no raw ESC or CR, no forged log line', async () => {
        const log = server.stderr();
        assert.match(log, /\[noisy\] \\x1b\[2K\\x0dcountersign\.gate: card approved by console:alice/);
        assert.ok(!log.includes('\x1b[2K'), 'a raw escape reached the log');
    });

    await check('a planWith argument the tool does not take is refused: no "dry run" that writes, no card', async () => {
        const target = path.join(work, 'notes.txt');
        const r = await call('fs_write_file', { path: target, content: 'written before any decision\n' });
        assert.ok(r.error || r.result?.isError, JSON.stringify(r));
        assert.match(JSON.stringify(r), /planWith argument \\"dryRun\\" is not one write_file takes/);
        assert.equal(readFileSync(target, 'utf8'), 'unchanged\n');
        assert.deepEqual(await pendingCards(server, decideBinary), []);
    });

    await check('the console quits cleanly on SIGTERM and its upstreams end with it (exit 0; under the sanitizers, no leak)', async () => {
        const how = await server.stop({ keepFiles: true });
        assert.deepEqual(how, { code: 0, signal: null }, server.stderr().slice(-4000));
    });
} finally {
    for (const child of children) child.kill();
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
