#!/usr/bin/env node
// kill -9 at each durable step of the gate, then a restart of the real binary on the same data
// folder: no decision is lost, nothing runs twice, the audit chain verifies and the interrupted
// operation's outcome is told as it is. The crashes come from countersign-test-host (the
// product's server that SIGKILLs itself right after the gate records COUNTERSIGN_CRASH_AT) or, for
// decisions the console writes, from SIGKILL sent by this test once the decision is committed.
// (A kill while the apply command runs is in gate-flow.mjs.)
//   node crash-recovery.mjs COUNTERSIGN_BINARY CRASHHOST_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startCountersign } from './countersign-process.mjs';
import { check, exitWithSummary } from './checks.mjs';

const [binary, crashHost, decideBinary] = process.argv.slice(2);
if (!binary || !crashHost || !decideBinary) {
    console.error('usage: crash-recovery.mjs COUNTERSIGN_BINARY CRASHHOST_BINARY DECIDE_BINARY');
    process.exit(1);
}
const run = promisify(execFile);

const work = mkdtempSync(path.join(tmpdir(), 'countersign-crash-'));
const runsFile = path.join(work, 'runs');
// How many times the apply command ran for this directory.
const runs = (dir) => (existsSync(runsFile) ? readFileSync(runsFile, 'utf8').split('\n').filter((l) => l === dir).length : 0);
const makeVictim = (name) => { mkdirSync(path.join(work, name, 'sub'), { recursive: true }); writeFileSync(path.join(work, name, 'sub', 'f.txt'), 'x'); };
const config = (extra = {}) => ({
    pollWindowSeconds: 1,
    actions: [{
        name: 'delete_dir', title: 'Delete a directory', risk: 'medium', workingDirectory: work,
        inputSchema: { type: 'object', properties: { dir: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['dir'], additionalProperties: false },
        plan: ['sh', '-c', 'printf \'{"summary":"delete %s","targets":["%s"],"diff":"%s"}\' "$1" "$1" "$(find "$1" -type f | sort | tr "\\n" " ")"', 'plan', '{dir}'],
        apply: ['sh', '-c', 'echo "$1" >> runs; rm -r "$1"', 'apply', '{dir}'],
    }],
    ...extra,
});

const decide = (server, verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
async function call(server, args, { requestState, inputResponses, capabilities = {} } = {}) {
    const params = { name: 'delete_dir', arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': capabilities } };
    if (requestState) params.requestState = requestState;
    if (inputResponses) params.inputResponses = inputResponses;
    const response = await fetch(server.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'delete_dir' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
    });
    return response.json();
}
// A call to a server that kills itself while answering it: the connection drops.
const callIntoCrash = (server, args, options) => call(server, args, options).then(
    (answer) => assert.fail(`expected the server to die, got ${JSON.stringify(answer)}`),
    async () => { const { signal } = await server.exited; assert.equal(signal, 'SIGKILL'); });

const crashing = (step, extra) => startCountersign(binary, { serverBinary: crashHost, config: config(extra), tokenName: 'agent', env: { COUNTERSIGN_CRASH_AT: step } });
const restart = (crashed) => startCountersign(binary, { restartOf: crashed });
async function chainIntact(server) {
    const verified = await run(binary, ['audit', 'verify', '--data-dir', server.dataDir]);
    assert.match(verified.stdout, /audit log intact/);
}
async function auditRow(server, target) {
    const rows = JSON.parse((await run(binary, ['audit', 'export', '--format', 'json', '--data-dir', server.dataDir])).stdout);
    const row = rows.find((r) => r.targets.includes(target));
    assert.ok(row, `an audit row for ${target}`);
    return row;
}
const noteUntouched = (dir) => assert.ok(existsSync(path.join(work, dir, 'sub', 'f.txt')), `${dir} untouched`);
const receiptOf = (answer) => answer.result?._meta?.['dev.countersign/receipt'];

const servers = [];
const track = (server) => { servers.push(server); return server; };
try {
    await check('killed after mint, before input_required was sent: the card survives the restart and nothing runs', async () => {
        makeVictim('mint');
        const crashed = track(await crashing('Minted'));
        await callIntoCrash(crashed, { dir: 'mint' });
        const server = track(await restart(crashed));
        const cards = await decide(server, 'list');
        assert.equal(cards.length, 1, 'the pending card is restored');
        assert.deepEqual(cards[0].targets, ['mint']);
        assert.equal((await auditRow(server, 'mint')).decision, 'pending');
        // The agent never got the ticket, so it calls again: it joins the card that survived (no
        // second card for the same call), which is approved and runs once.
        const first = await call(server, { dir: 'mint' });
        assert.equal(first.result.resultType, 'input_required');
        assert.equal((await decide(server, 'list')).length, 1, 'the call joined the surviving card');
        await decide(server, 'approve', '--nonce', cards[0].nonce);
        const done = await call(server, { dir: 'mint' }, { requestState: first.result.requestState });
        assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
        assert.ok(receiptOf(done));
        assert.equal(runs('mint'), 1);
        await chainIntact(server);
    });

    await check('killed after the console approved, before the retry: the approval holds after restart and runs once', async () => {
        makeVictim('approved');
        const server = track(await startCountersign(binary, { config: config(), tokenName: 'agent' }));
        const first = await call(server, { dir: 'approved' });
        await decide(server, 'approve');
        await server.crash();
        const again = track(await restart(server));
        const done = await call(again, { dir: 'approved' }, { requestState: first.result.requestState });
        assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
        assert.equal(receiptOf(done).approver, 'console:test-host');
        assert.ok(!existsSync(path.join(work, 'approved')));
        assert.equal(runs('approved'), 1);
        const repeat = await call(again, { dir: 'approved' }, { requestState: first.result.requestState });
        assert.deepEqual(receiptOf(repeat), receiptOf(done), 'a later retry gets the stored result');
        assert.equal(runs('approved'), 1);
        await chainIntact(again);
    });

    await check('killed after the console declined: the decline holds after restart, with its reason', async () => {
        makeVictim('declined');
        const server = track(await startCountersign(binary, { config: config(), tokenName: 'agent' }));
        const first = await call(server, { dir: 'declined' });
        await decide(server, 'decline', '--reason', 'wrong branch');
        await server.crash();
        const again = track(await restart(server));
        const answer = await call(again, { dir: 'declined' }, { requestState: first.result.requestState });
        assert.equal(answer.result.isError, true);
        assert.match(answer.result.content[0].text, /Declined by console:test-host: wrong branch/);
        noteUntouched('declined');
        const row = await auditRow(again, 'declined');
        assert.equal(row.decision, 'declined');
        assert.equal(row.reason, 'wrong branch');
        await chainIntact(again);
    });

    await check('approved while the server was down: the retry after restart runs it once', async () => {
        makeVictim('offline');
        const server = track(await startCountersign(binary, { config: config(), tokenName: 'agent' }));
        const first = await call(server, { dir: 'offline' });
        await server.crash();
        await decide(server, 'approve');
        const again = track(await restart(server));
        const done = await call(again, { dir: 'offline' }, { requestState: first.result.requestState });
        assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
        assert.equal(runs('offline'), 1);
        await chainIntact(again);
    });

    await check('killed after the gate recorded a client\'s typed confirmation: after restart the retry runs once', async () => {
        makeVictim('confirmed');
        const crashed = track(await crashing('Decided', { approval: { medium: 'client' } }));
        const capabilities = { elicitation: { form: {} } };
        const first = await call(crashed, { dir: 'confirmed' }, { capabilities });
        assert.equal(first.result.inputRequests.confirm.method, 'elicitation/create');
        const inputResponses = { confirm: { action: 'accept', content: { confirm: 'confirmed' } } };
        await callIntoCrash(crashed, { dir: 'confirmed' }, { requestState: first.result.requestState, inputResponses, capabilities });
        assert.equal(runs('confirmed'), 0, 'nothing ran before the crash');
        const server = track(await restart(crashed));
        const done = await call(server, { dir: 'confirmed' }, { requestState: first.result.requestState, inputResponses, capabilities });
        assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
        assert.equal(receiptOf(done).approver, 'client:agent');
        assert.equal(runs('confirmed'), 1);
        await chainIntact(server);
    });

    await check('killed after claim, before the command started: "outcome unknown", never run, shown as such', async () => {
        makeVictim('claimed');
        const crashed = track(await crashing('Claimed'));
        const first = await call(crashed, { dir: 'claimed' });
        await decide(crashed, 'approve');
        await callIntoCrash(crashed, { dir: 'claimed' }, { requestState: first.result.requestState });
        const server = track(await restart(crashed));
        const answer = await call(server, { dir: 'claimed' }, { requestState: first.result.requestState });
        assert.equal(answer.result.isError, true);
        assert.match(answer.result.content[0].text, /^Outcome unknown: .* may or may not have run\. It was not run again\./);
        assert.match(server.stderr(), /warning: A tool run was interrupted when Countersign stopped, so its outcome is unknown .*: delete_dir on claimed, claimed at 20\d\d-/);
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(runs('claimed'), 0, 'never started, and not started by the retry');
        noteUntouched('claimed');
        const row = await auditRow(server, 'claimed');
        assert.equal(row.decision, 'approved');
        assert.match(row.outcome, /^unknown/);
        await chainIntact(server);
    });

    await check('killed after the command ran, before its result was stored: "outcome unknown", no second run', async () => {
        makeVictim('applied');
        const crashed = track(await crashing('Applied'));
        const first = await call(crashed, { dir: 'applied' });
        await decide(crashed, 'approve');
        await callIntoCrash(crashed, { dir: 'applied' }, { requestState: first.result.requestState });
        assert.equal(runs('applied'), 1, 'the command ran once');
        const server = track(await restart(crashed));
        const answer = await call(server, { dir: 'applied' }, { requestState: first.result.requestState });
        assert.match(answer.result.content[0].text, /^Outcome unknown/);
        assert.match(server.stderr(), /warning: A tool run was interrupted .*: delete_dir on applied, claimed at /);
        assert.equal(runs('applied'), 1);
        // Told once: the next start does not repeat it.
        await server.stop({ keepFiles: true });
        const again = track(await restart(crashed));
        assert.doesNotMatch(again.stderr(), /interrupted/);
        assert.match((await auditRow(server, 'applied')).outcome, /^unknown/);
        await chainIntact(server);
    });

    await check('killed after the result was stored, before it was sent: the retry gets that result and its receipt', async () => {
        makeVictim('finished');
        const crashed = track(await crashing('Finished'));
        const first = await call(crashed, { dir: 'finished' });
        await decide(crashed, 'approve');
        await callIntoCrash(crashed, { dir: 'finished' }, { requestState: first.result.requestState });
        const server = track(await restart(crashed));
        const done = await call(server, { dir: 'finished' }, { requestState: first.result.requestState });
        assert.equal(done.result.resultType, 'complete', JSON.stringify(done));
        assert.equal(runs('finished'), 1, 'ran once, before the crash');
        const file = path.join(work, 'result.json');
        writeFileSync(file, JSON.stringify(done.result));
        assert.match((await run(binary, ['receipt', 'verify', file, '--data-dir', server.dataDir])).stdout, /receipt valid/);
        assert.equal((await auditRow(server, 'finished')).outcome, 'succeeded');
        await chainIntact(server);
    });
} finally {
    for (const server of servers) {
        if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
        else rmSync(server.dir, { recursive: true, force: true });
    }
    rmSync(work, { recursive: true, force: true });
}

exitWithSummary();
