#!/usr/bin/env node
// Two Countersign instances of one team on one PostgreSQL store (a throwaway PostgreSQL 15 cluster
// of this test's own, tests/support/postgres.sh), sharing the server keys as a team's instances do:
// a card raised on A and decided in B's queue runs once, on A; retries spread over both instances
// run it once; A killed during a run leaves B's retries "outcome unknown"; the audit chain verifies
// from either side; and with PostgreSQL stopped, a call fails closed with the reason and nothing
// runs. The agent speaks raw 2026-07-28 HTTP with its token (tokens live in the shared store).
//   node team-store.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { check, exitWithSummary, waitFor } from './checks.mjs';
import { startCountersign } from './countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: team-store.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const postgresScript = path.join(here, '..', 'support', 'postgres.sh');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const work = mkdtempSync(path.join(tmpdir(), 'countersign-team-'));
const clusterDir = path.join(work, 'postgres');
const { stdout: clusterUrl } = await run(postgresScript, ['start', clusterDir], { env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` } });
const storeUrl = clusterUrl.trim();

const runsOf = (name) => { const f = path.join(work, name); return existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).length : 0; };
const dirSchema = { type: 'object', properties: { dir: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['dir'], additionalProperties: false };
const plan = ['sh', '-c', 'printf \'{"summary":"delete %s","targets":["%s"]}\' "$1" "$1"', 'plan', '{dir}'];
const action = (name, apply) => ({ name, title: `Delete a directory (${name})`, inputSchema: dirSchema, plan, apply, workingDirectory: work, risk: 'medium' });
const config = {
    pollWindowSeconds: 1,
    store: { postgres: storeUrl },
    actions: [
        action('delete_dir', ['sh', '-c', 'echo run >> runs-delete_dir; rm -r "$1"', 'apply', '{dir}']),
        action('delete_slow', ['sh', '-c', 'echo run >> runs-delete_slow; sleep 4; rm -r "$1"', 'apply', '{dir}']),
        { ...action('delete_guarded', ['sh', '-c', 'echo run >> runs-delete_guarded; rm -r "$1"', 'apply', '{dir}']), risk: 'high' },
    ],
    // High risk needs two different people, and not the owner of the calling connection.
    review: { twoPeople: ['high'], notOwnConnection: ['high'] },
};
const makeVictim = (name) => { mkdirSync(path.join(work, name, 'sub'), { recursive: true }); writeFileSync(path.join(work, name, 'sub', 'f.txt'), 'x'); };

const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
async function rawCall(server, token, name, args, requestState, id = 1) {
    const params = { name, arguments: args, _meta: meta };
    if (requestState) params.requestState = requestState;
    const response = await fetch(server.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
    });
    return response.json();
}
const textOf = (r) => r?.result?.content?.map((c) => c.text).join('\n') ?? JSON.stringify(r);
// Decides in an instance's queue: its data folder's key, the shared store.
const decideIn = (server, verb, ...args) => run(decideBinary, [server.dataDir, verb, '--store', storeUrl, ...args]).then(({ stdout }) => JSON.parse(stdout));
// Retries a ticket on `server` until it is no longer pending.
async function retryUntilAnswered(server, token, name, args, requestState) {
    for (let i = 0; i < 60; ++i) {
        const r = await rawCall(server, token, name, args, requestState);
        if (r.result?.resultType !== 'input_required') return r;
        await sleep(100);
    }
    throw new Error('still pending after 60 retries');
}

const a = await startCountersign(binary, { config, tokenName: 'agent' });
const b = await startCountersign(binary, { config, tokenName: 'reviewer-b', keysFrom: a });
const token = a.token; // made on A, kept in the shared store: B knows it too
try {
    await check('a card raised on A shows in B\'s console; approved in B\'s queue, it leaves A\'s, and the retry on A runs it once', async () => {
        makeVictim('victim-1');
        const first = await rawCall(a, token, 'delete_dir', { dir: 'victim-1' });
        assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
        const cards = await decideIn(b, 'list', '--wait-ms', '0');
        const card = cards.find((c) => c.tool === 'delete_dir');
        assert.ok(card, `B's queue: ${JSON.stringify(cards)}`);
        const waits = new RegExp(`card "?${card.nonce}"? for "?delete_dir"? waits`);
        await waitFor('the card in B\'s console', () => waits.test(b.stderr()), 5000, () => b.stderr());
        await decideIn(b, 'approve', '--nonce', card.nonce, '--by', 'console:bea');
        await waitFor('the card to leave A\'s console', () => new RegExp(`card "?${card.nonce}"? "?approved"?`).test(a.stderr()), 5000, () => a.stderr());
        const done = await retryUntilAnswered(a, token, 'delete_dir', { dir: 'victim-1' }, first.result.requestState);
        assert.ok(!done.result?.isError, textOf(done));
        assert.equal(runsOf('runs-delete_dir'), 1);
        assert.ok(!existsSync(path.join(work, 'victim-1')));
    });

    await check('20 retries spread over both instances run it once, and all get its result', async () => {
        makeVictim('victim-2');
        const first = await rawCall(b, token, 'delete_dir', { dir: 'victim-2' });
        assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
        const card = (await decideIn(a, 'list', '--wait-ms', '0')).find((c) => c.targets?.includes('victim-2'));
        await decideIn(a, 'approve', '--nonce', card.nonce);
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) =>
            retryUntilAnswered(i % 2 ? a : b, token, 'delete_dir', { dir: 'victim-2' }, first.result.requestState)));
        for (const r of answers) assert.ok(!r.result?.isError, textOf(r));
        assert.equal(new Set(answers.map((r) => JSON.stringify(r.result.content))).size, 1, 'one result for every retry');
        assert.equal(runsOf('runs-delete_dir'), 2, 'one more run, not twenty');
    });

    await check('review rules hold across instances: the connection\'s owner cannot approve, one person is not two, the second person decides', async () => {
        makeVictim('victim-5');
        const first = await rawCall(a, token, 'delete_guarded', { dir: 'victim-5' });
        assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
        const card = (await decideIn(b, 'list', '--wait-ms', '0')).find((c) => c.tool === 'delete_guarded');
        // The token was added on A by its OS account, with no "person" configured: its owner.
        const refused = (by) => decideIn(b, 'approve', '--nonce', card.nonce, '--by', by).then(() => null, (e) => e.stderr);
        assert.match(await refused(`console:${userInfo().username}`) ?? 'approved', /your own connection/);
        assert.deepEqual(await decideIn(a, 'approve', '--nonce', card.nonce, '--by', 'console:bea'), { nonce: card.nonce, tool: 'delete_guarded', outcome: 'pending' });
        assert.match(await refused('console:bea') ?? 'approved', /approved it already/);
        const half = await rawCall(b, token, 'delete_guarded', { dir: 'victim-5' }, first.result.requestState);
        assert.equal(half.result?.resultType, 'input_required', `one approval of two runs nothing: ${JSON.stringify(half)}`);
        assert.equal(runsOf('runs-delete_guarded'), 0);
        assert.equal((await decideIn(b, 'approve', '--nonce', card.nonce, '--by', 'console:cy')).outcome, 'approved');
        const done = await retryUntilAnswered(a, token, 'delete_guarded', { dir: 'victim-5' }, first.result.requestState);
        assert.ok(!done.result?.isError, textOf(done));
        assert.equal(runsOf('runs-delete_guarded'), 1);
        const { stdout } = await run(binary, ['audit', 'export', '--format', 'json', '--data-dir', a.dataDir, '--config', path.join(a.dir, 'config.json')]);
        const row = JSON.parse(stdout).find((r) => r.id === card.nonce);
        assert.equal(row?.decidedBy, 'console:bea, console:cy', JSON.stringify(row));
        assert.equal(row.owner, userInfo().username);
        assert.equal(row.instance, hostname(), 'the instance that served it, by its default name');
    });

    await check('A killed during a run: B\'s retries get "outcome unknown", and nothing runs again', async () => {
        makeVictim('victim-3');
        const first = await rawCall(a, token, 'delete_slow', { dir: 'victim-3' });
        const card = (await decideIn(b, 'list', '--wait-ms', '0')).find((c) => c.tool === 'delete_slow');
        await decideIn(b, 'approve', '--nonce', card.nonce);
        const running = rawCall(a, token, 'delete_slow', { dir: 'victim-3' }, first.result.requestState).catch((e) => e);
        await waitFor('the run to start on A', () => runsOf('runs-delete_slow') === 1, 10000);
        await a.crash();
        await running;
        const r = await retryUntilAnswered(b, token, 'delete_slow', { dir: 'victim-3' }, first.result.requestState);
        assert.ok(r.result?.isError, textOf(r));
        assert.match(textOf(r), /[Oo]utcome unknown/);
        await sleep(500);
        assert.equal(runsOf('runs-delete_slow'), 1);
    });

    await check('the audit chain verifies from either side (A\'s folder and B\'s, one store)', async () => {
        for (const server of [a, b]) {
            const { stdout } = await run(binary, ['audit', 'verify', '--data-dir', server.dataDir, '--config', path.join(server.dir, 'config.json')]);
            assert.match(stdout, /audit log intact/);
        }
    });

    await check('PostgreSQL stopped mid-call: the retry fails closed with the reason, and nothing runs', async () => {
        makeVictim('victim-4');
        const first = await rawCall(b, token, 'delete_dir', { dir: 'victim-4' });
        const card = (await decideIn(b, 'list', '--wait-ms', '0')).find((c) => c.targets?.includes('victim-4'));
        await decideIn(b, 'approve', '--nonce', card.nonce);
        await run(postgresScript, ['stop', clusterDir]);
        const r = await rawCall(b, token, 'delete_dir', { dir: 'victim-4' }, first.result.requestState);
        const said = JSON.stringify(r);
        assert.ok(r.error || r.result?.isError, said);
        assert.match(said, /Service Unavailable: Countersign cannot read its store, so nothing is run/);
        await sleep(500);
        assert.equal(runsOf('runs-delete_dir'), 2, 'nothing ran');
        assert.ok(existsSync(path.join(work, 'victim-4')));
        assert.equal(b.child.exitCode, null, 'B is still running');
    });
} finally {
    await b.stop();
    await a.stop().catch(() => {});
    await run(postgresScript, ['stop', clusterDir]).catch(() => {});
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
