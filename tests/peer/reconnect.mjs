#!/usr/bin/env node
// Approvals never lost on the reconnect path, over real HTTP against the real binary, with the
// official TypeScript clients (v1 1.32.2 for the 2025 era, v2 2.4.0 pinned to 2026-07-28) and the
// test host deciding through the approval queue (countersign-test-decide):
// - a 2025-era call held to its limit is told to call again; approved before that next call, the
//   next identical call (a new session, as an agent that reconnects) runs the approved card, once;
// - the same for a 2026-07-28 client that gave up its rounds: its next call, with no ticket, runs it;
// - deciding card A answers only A's held calls: B's, on another connection, waits on;
// - a client's own decline or cancel of the card's URL decides nothing: the human does.
//   node reconnect.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { check, exitWithSummary, waitFor, watch } from './checks.mjs';
import { startCountersign } from './countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: reconnect.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const work = mkdtempSync(path.join(tmpdir(), 'countersign-reconnect-'));
const root = path.join(work, 'ws');
mkdirSync(root, { recursive: true });
const config = { workspaceRoots: [root], legacyHoldSeconds: 2, pollWindowSeconds: 2, cardMinimumSeconds: 0 };
const server = await startCountersign(binary, { config, tokenName: 'agent' });
const otherToken = server.addToken('other');
const decide = (verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
const cards = () => decide('list');
const cardFor = async (file) => waitFor(`the card for ${file}`, async () => (await cards()).find((c) => JSON.stringify(c).includes(file)) ?? null);
const textOf = (r) => r.content?.map((c) => c.text).join('\n') ?? '';
const contentOf = (file) => (existsSync(path.join(root, file)) ? readFileSync(path.join(root, file), 'utf8') : null);

// A 2025-era client (what Gemini CLI, opencode and Qwen Code speak), its own session.
async function legacyClient(token = server.token, { onElicit, name = 'reconnect-v1' } = {}) {
    const client = new Client({ name, version: '1.0.0' }, { capabilities: onElicit ? { elicitation: { url: {} } } : {} });
    if (onElicit) client.setRequestHandler(ElicitRequestSchema, onElicit);
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    return client;
}
// A raw 2026-07-28 tools/call (what the v2 SDK sends each round), with no requestState: a first call.
async function modernCall(name, args, extra = {}) {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': extra.capabilities ?? {},
                   'io.modelcontextprotocol/clientInfo': { name: 'reconnect-v2', version: '1.0.0' } };
    const params = { name, arguments: args, _meta: meta, ...(extra.requestState ? { requestState: extra.requestState } : {}), ...(extra.inputResponses ? { inputResponses: extra.inputResponses } : {}) };
    const response = await fetch(server.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
                   'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
    });
    return (await response.json()).result;
}

try {
    await check('2025 era: held to its limit, "call again"; approved before the next call, the next identical call (a new session) runs the approved card once, with its receipt', async () => {
        const first = await legacyClient();
        const r1 = await first.callTool({ name: 'write_file', arguments: { path: 'late.txt', content: 'late\n' } });
        assert.match(textOf(r1), /Call write_file again with the same arguments/, JSON.stringify(r1));
        await first.close();
        const card = await cardFor('late.txt');
        await decide('approve', '--nonce', card.nonce);
        await sleep(300);
        assert.equal(contentOf('late.txt'), null, 'nothing runs until the agent calls again');
        const again = await legacyClient();
        const t0 = Date.now();
        const r2 = await again.callTool({ name: 'write_file', arguments: { path: 'late.txt', content: 'late\n' } });
        await again.close();
        assert.notEqual(r2.isError, true, JSON.stringify(r2));
        assert.equal(r2._meta?.['dev.countersign/receipt']?.nonce, card.nonce, 'the approved card ran, no new one');
        assert.ok(Date.now() - t0 < 1500, 'answered at once, not held');
        assert.equal(contentOf('late.txt'), 'late\n');
        assert.deepEqual(await cards(), [], 'no new card');
    });

    await check('2026-07-28: approved after the client gave up its rounds, the next call with no ticket runs the approved card once', async () => {
        const r1 = await modernCall('write_file', { path: 'modern.txt', content: 'm\n' });
        assert.equal(r1.resultType, 'input_required', JSON.stringify(r1));
        const card = await cardFor('modern.txt');
        await decide('approve', '--nonce', card.nonce);
        const r2 = await modernCall('write_file', { path: 'modern.txt', content: 'm\n' });
        assert.notEqual(r2.isError, true, JSON.stringify(r2));
        assert.equal(r2._meta?.['dev.countersign/receipt']?.nonce, card.nonce);
        assert.equal(contentOf('modern.txt'), 'm\n');
        const r3 = await modernCall('write_file', { path: 'modern.txt', content: 'm\n' });
        assert.equal(r3.resultType, 'input_required', 'a call after the run asks again: the approval was used once');
        await decide('decline', '--nonce', (await cardFor('modern.txt')).nonce, '--reason', 'clean-up');
    });

    await check('deciding card A answers only A\'s held call: B\'s held call, on another connection, waits on until its own limit', async () => {
        const a = await legacyClient();
        const b = await legacyClient(otherToken);
        const pa = watch(a.callTool({ name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' } }));
        const cardA = await cardFor('a.txt');
        const tb = Date.now();
        const pb = watch(b.callTool({ name: 'write_file', arguments: { path: 'c.txt', content: 'c\n' } }));
        await cardFor('c.txt');
        await decide('approve', '--nonce', cardA.nonce);
        const ra = await pa.promise;
        assert.notEqual(ra.isError, true, JSON.stringify(ra));
        const rb = await pb.promise;
        const heldMs = Date.now() - tb;
        assert.ok(heldMs >= 1800, `B's call was held ${heldMs} ms, not its whole 2 s limit: ${JSON.stringify(rb)}`);
        assert.match(textOf(rb), /again with the same arguments/);
        await a.close();
        await b.close();
        await decide('decline', '--nonce', (await cardFor('c.txt')).nonce, '--reason', 'clean-up');
    });

    for (const action of ['decline', 'cancel']) {
        await check(`a client answering the card's URL with ${action} (as Codex and headless Claude Code do at once) decides nothing; the human's approval runs it`, async () => {
            const file = `client-${action}.txt`;
            let asked = 0;
            // A client of its own each time: one that answered at once is not prompted again.
            const client = await legacyClient(server.token, { name: `reconnect-${action}`, onElicit: async () => { ++asked; return { action }; } });
            const pending = watch(client.callTool({ name: 'write_file', arguments: { path: file, content: 'x\n' } }));
            const card = await cardFor(file);
            await waitFor('the URL asked', () => asked === 1);
            await sleep(300);
            assert.equal(pending.settled(), false, 'still held for the human');
            await decide('approve', '--nonce', card.nonce);
            const r = await pending.promise;
            await client.close();
            assert.notEqual(r.isError, true, JSON.stringify(r));
            assert.equal(r._meta?.['dev.countersign/receipt']?.approver, 'console:test-host');
            assert.equal(contentOf(file), 'x\n');
        });
    }

    await check('2026-07-28: a retry bringing the client\'s cancel of the URL request is held and answered input_required again; the card stays', async () => {
        const capabilities = { elicitation: { url: {} } };
        const r1 = await modernCall('write_file', { path: 'modern-cancel.txt', content: 'y\n' }, { capabilities });
        assert.equal(r1.resultType, 'input_required');
        const r2 = await modernCall('write_file', { path: 'modern-cancel.txt', content: 'y\n' },
            { capabilities, requestState: r1.requestState, inputResponses: { approval: { action: 'cancel' } } });
        assert.equal(r2.resultType, 'input_required', JSON.stringify(r2));
        const card = await cardFor('modern-cancel.txt');
        await decide('approve', '--nonce', card.nonce);
        const r3 = await modernCall('write_file', { path: 'modern-cancel.txt', content: 'y\n' }, { capabilities, requestState: r1.requestState });
        assert.notEqual(r3.isError, true, JSON.stringify(r3));
        assert.equal(contentOf('modern-cancel.txt'), 'y\n');
    });

    await check('the audit log verifies, and every write ran exactly once', async () => {
        const { stdout } = await run(binary, ['audit', 'export', '--format', 'json', '--data-dir', server.dataDir]);
        const rows = JSON.parse(stdout);
        for (const file of ['late.txt', 'modern.txt', 'a.txt', 'client-decline.txt', 'client-cancel.txt', 'modern-cancel.txt']) {
            const ran = rows.filter((row) => row.arguments?.path === file && row.outcome === 'succeeded');
            assert.equal(ran.length, 1, `${file}: ${JSON.stringify(rows.filter((row) => row.arguments?.path === file))}`);
        }
        const verified = await run(binary, ['audit', 'verify', '--data-dir', server.dataDir]);
        assert.match(verified.stdout, /^audit log intact: /);
    });
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
