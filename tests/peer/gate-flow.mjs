#!/usr/bin/env node
// The approval gate end to end: the official MCP TypeScript client (2.4.0, pinned to 2026-07-28)
// calls gated actions on the real Countersign binary, real plan and apply commands delete real
// directories, and the test host decides through the approval queue (countersign-test-decide).
//   node gate-flow.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startCountersign } from './countersign-process.mjs';
import { check, exitWithSummary, waitFor } from './checks.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: gate-flow.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);

const work = mkdtempSync(path.join(tmpdir(), 'countersign-gate-'));
const runsReset = (name) => rmSync(path.join(work, name), { force: true });
const runs = (name) => { const f = path.join(work, name); return existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).length : 0; };
const dirSchema = { type: 'object', properties: { dir: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['dir'], additionalProperties: false };
// The plan lists what would go; the apply command counts its runs, then deletes.
const plan = ['sh', '-c', 'printf \'{"summary":"delete %s","targets":["%s"],"diff":"%s","blastRadius":{"files":%s}}\' "$1" "$1" "$(find "$1" -type f | sort | tr "\\n" " ")" "$(find "$1" -type f | wc -l)"', 'plan', '{dir}'];
const action = (name, apply) => ({ name, title: `Delete a directory (${name})`, inputSchema: dirSchema, plan, apply, workingDirectory: work, risk: 'medium' });
const config = {
    pollWindowSeconds: 2,
    workspaceRoots: [path.join(work, 'ws')],
    actions: [
        action('delete_dir', ['sh', '-c', 'echo run >> runs-delete_dir; rm -r "$1"', 'apply', '{dir}']),
        action('delete_counted', ['sh', '-c', 'echo run >> runs-delete_counted; sleep 0.5; rm -r "$1"', 'apply', '{dir}']),
        action('delete_slow', ['sh', '-c', 'echo run >> runs-delete_slow; sleep 4; rm -r "$1"', 'apply', '{dir}']),
    ],
};
const makeVictim = (name) => { mkdirSync(path.join(work, name, 'sub'), { recursive: true }); writeFileSync(path.join(work, name, 'sub', 'f.txt'), 'x'); };

const decide = (server, verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
async function rawCall(server, name, args, requestState, id = 1) {
    const params = { name, arguments: args, _meta: meta };
    if (requestState) params.requestState = requestState;
    const response = await fetch(server.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
    });
    return response.json();
}

mkdirSync(path.join(work, 'ws', 'src'), { recursive: true });
writeFileSync(path.join(work, 'ws', 'src', 'main.c'), 'int main(void)\n{\n    return 1;\n}\n');
writeFileSync(path.join(work, 'ws', 'scratch.txt'), 'notes\n');
let server = await startCountersign(binary, { config, tokenName: 'agent' });
try {
    await check('TS client: approved in the console, the directory is deleted once, with a receipt that verifies', async () => {
        makeVictim('victim-a');
        let urlOpened = null;
        const client = new Client({ name: 'gate-flow-test', version: '1.0.0' },
            { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
        client.setRequestHandler('elicitation/create', async (request) => {
            urlOpened = request.params.url;
            const page = await fetch(urlOpened);
            assert.equal(page.status, 200);
            assert.match(await page.text(), /Approve or decline it there/);
            return { action: 'accept' };
        });
        await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } }));
        const pending = client.callTool({ name: 'delete_dir', arguments: { dir: 'victim-a' } });
        const decided = await decide(server, 'approve', '--wait-ms', '10000');
        assert.equal(decided.outcome, 'approved');
        const result = await pending;
        assert.notEqual(result.isError, true, JSON.stringify(result));
        assert.ok(!existsSync(path.join(work, 'victim-a')), 'the directory is gone');
        assert.equal(runs('runs-delete_dir'), 1);
        assert.ok(urlOpened.endsWith(`/approvals/${decided.nonce}`), `URL-mode elicitation points at the card: ${urlOpened}`);
        const receipt = result._meta['dev.countersign/receipt'];
        assert.equal(receipt.nonce, decided.nonce);
        assert.equal(receipt.approver, 'console:test-host');
        assert.equal(receipt.connection, 'agent');
        assert.equal(receipt.client, 'gate-flow-test');
        const file = path.join(work, 'result.json');
        writeFileSync(file, JSON.stringify(result));
        const verified = await run(binary, ['receipt', 'verify', file, '--data-dir', server.dataDir]);
        assert.match(verified.stdout, /receipt valid/);
        receipt.approver = 'console:mallory';
        writeFileSync(file, JSON.stringify(result));
        await assert.rejects(run(binary, ['receipt', 'verify', file, '--data-dir', server.dataDir]), (e) => e.code === 1 && /INVALID/.test(e.stdout));
        await client.close();
    });

    await check('TS client: declined with a reason, nothing runs and the reason reaches the agent', async () => {
        makeVictim('victim-b');
        const client = new Client({ name: 'gate-flow-test', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
        await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } }));
        const pending = client.callTool({ name: 'delete_dir', arguments: { dir: 'victim-b' } });
        await decide(server, 'decline', '--reason', 'not on a Friday', '--wait-ms', '10000');
        const result = await pending;
        assert.equal(result.isError, true);
        assert.match(result.content[0].text, /Declined by console:test-host: not on a Friday/);
        assert.ok(existsSync(path.join(work, 'victim-b', 'sub', 'f.txt')), 'the directory is untouched');
        assert.equal(runs('runs-delete_dir'), 1);
        await client.close();
    });

    await check('TS client: edit_file shows the real diff on the card and edits exactly that after approval', async () => {
        const client = new Client({ name: 'gate-flow-test', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
        await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } }));
        const pending = client.callTool({ name: 'edit_file', arguments: { path: 'src/main.c', edits: [{ oldText: 'return 1;', newText: 'return 0;' }] } });
        let cards = [];
        for (let i = 0; i < 100 && cards.length === 0; i++) { cards = await decide(server, 'list'); if (!cards.length) await new Promise((r) => setTimeout(r, 50)); }
        assert.equal(cards.length, 1);
        assert.match(cards[0].diff, /-    return 1;\n\+    return 0;/);
        assert.equal(readFileSync(path.join(work, 'ws', 'src', 'main.c'), 'utf8').includes('return 1;'), true, 'untouched before approval');
        await decide(server, 'approve');
        const result = await pending;
        assert.notEqual(result.isError, true, JSON.stringify(result));
        assert.equal(readFileSync(path.join(work, 'ws', 'src', 'main.c'), 'utf8'), 'int main(void)\n{\n    return 0;\n}\n');
        assert.ok(result._meta['dev.countersign/receipt']);
        await client.close();
    });

    await check('TS client: delete_path of a file git does not hold keeps a copy first, so it is medium risk with no name to type; the file goes after approval', async () => {
        const client = new Client({ name: 'gate-flow-test', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
        await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } }));
        const pending = client.callTool({ name: 'delete_path', arguments: { path: 'scratch.txt' } });
        const card = await waitFor('its card', async () => (await decide(server, 'list'))[0], 10000);
        assert.equal(card.risk, 'medium');
        assert.equal(card.face.headline, 'Delete scratch.txt; a copy is kept');
        assert.equal(card.face.typed, false);
        assert.ok(existsSync(path.join(work, 'ws', 'scratch.txt')));
        await decide(server, 'approve', '--typed', 'anything');
        const result = await pending;
        assert.notEqual(result.isError, true, JSON.stringify(result));
        assert.ok(!existsSync(path.join(work, 'ws', 'scratch.txt')));
        const refused = await client.callTool({ name: 'delete_path', arguments: { path: '../runs-delete_dir' } });
        assert.equal(refused.isError, true);
        assert.match(refused.content[0].text, /"\.\." is not allowed/);
        await client.close();
    });

    await check('20 concurrent retries of one approved ticket run the apply command exactly once', async () => {
        makeVictim('victim-c');
        const first = await rawCall(server, 'delete_counted', { dir: 'victim-c' });
        assert.equal(first.result.resultType, 'input_required');
        await decide(server, 'approve');
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => rawCall(server, 'delete_counted', { dir: 'victim-c' }, first.result.requestState, 100 + i)));
        assert.equal(runs('runs-delete_counted'), 1);
        const receipts = new Set(answers.map((a) => JSON.stringify(a.result?._meta?.['dev.countersign/receipt'])));
        assert.equal(receipts.size, 1, 'every retry got the one stored result');
        assert.ok(answers.every((a) => a.result.resultType === 'complete' && a.result.isError !== true));
        assert.ok(!existsSync(path.join(work, 'victim-c')));
    });

    await check('args swapped after approval are refused (-32602) and nothing runs', async () => {
        makeVictim('victim-d');
        makeVictim('victim-e');
        const first = await rawCall(server, 'delete_dir', { dir: 'victim-d' });
        await decide(server, 'approve');
        const swapped = await rawCall(server, 'delete_dir', { dir: 'victim-e' }, first.result.requestState);
        assert.equal(swapped.error.code, -32602);
        assert.ok(existsSync(path.join(work, 'victim-e')) && existsSync(path.join(work, 'victim-d')));
        assert.equal(runs('runs-delete_dir'), 1);
    });

    await check('SIGTERM during apply: the run ends and is recorded before the exit, the client gets its result', async () => {
        makeVictim('victim-g');
        const first = await rawCall(server, 'delete_slow', { dir: 'victim-g' });
        await decide(server, 'approve');
        const inFlight = rawCall(server, 'delete_slow', { dir: 'victim-g' }, first.result.requestState);
        for (let i = 0; i < 100 && runs('runs-delete_slow') === 0; i++) await new Promise((r) => setTimeout(r, 50));
        assert.equal(runs('runs-delete_slow'), 1, 'the apply command started');
        server.child.kill('SIGTERM');
        await new Promise((r) => setTimeout(r, 300));
        // A new connection is refused; one kept alive gets a refusal that recorded and ran nothing.
        const late = await rawCall(server, 'delete_dir', { dir: 'victim-g' }).catch(() => 'connection refused');
        assert.ok(late === 'connection refused' || /^Countersign is quitting/.test(late.result.content[0].text), JSON.stringify(late));
        const done = await inFlight;
        assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
        assert.ok(!existsSync(path.join(work, 'victim-g')));
        assert.equal((await server.exited).code, 0);
        assert.match(server.stderr(), /quitting once the 1 tool run\(s\) in progress end and are recorded/);
        server = await startCountersign(binary, { restartOf: server });
        const again = await rawCall(server, 'delete_slow', { dir: 'victim-g' }, first.result.requestState);
        assert.deepEqual(again.result._meta['dev.countersign/receipt'], done.result._meta['dev.countersign/receipt'], 'the stored result, not "outcome unknown"');
        assert.equal(runs('runs-delete_slow'), 1);
        runsReset('runs-delete_slow');
    });

    await check('killed between claim and the end of apply: after restart no second run, "outcome unknown", chain intact', async () => {
        makeVictim('victim-f');
        const first = await rawCall(server, 'delete_slow', { dir: 'victim-f' });
        await decide(server, 'approve');
        const inFlight = rawCall(server, 'delete_slow', { dir: 'victim-f' }, first.result.requestState).catch(() => 'connection lost');
        for (let i = 0; i < 100 && runs('runs-delete_slow') === 0; i++) await new Promise((r) => setTimeout(r, 50));
        assert.equal(runs('runs-delete_slow'), 1, 'the apply command started');
        await server.crash();
        assert.equal(await inFlight, 'connection lost');
        server = await startCountersign(binary, { restartOf: server });
        const retried = await rawCall(server, 'delete_slow', { dir: 'victim-f' }, first.result.requestState);
        assert.equal(retried.result.isError, true);
        assert.match(retried.result.content[0].text, /^Outcome unknown/);
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(runs('runs-delete_slow'), 1, 'never run a second time');
        const chain = await run(binary, ['audit', 'verify', '--data-dir', server.dataDir]);
        assert.match(chain.stdout, /audit log intact/);
        const csv = (await run(binary, ['audit', 'export', '--format', 'csv', '--data-dir', server.dataDir])).stdout;
        assert.match(csv, /delete_slow,victim-f,medium,approved,console:test-host,.*unknown/);
        assert.match(csv, /delete_dir,victim-b,medium,declined,console:test-host,not on a Friday/);
    });
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}

exitWithSummary();
