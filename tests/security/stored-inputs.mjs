#!/usr/bin/env node
// Every stored input to a decision against a process that writes the store directly (issue 26, B1
// and B2): a console card turned into a client card by `approval_mode = 'client'`, a `reviews` row
// inserted so that one person passes the two-person rule, `owner_barred = 0` so that the owner
// approves their own agent's call, and more columns the gate and the consoles read to decide (the
// plan shown, the expiry, the claim of a run, its removal, the stored result). Each was honoured, or passed
// `audit verify`, before the chain recorded them. Rows are written with the sqlite3 CLI, as such a
// process would, while the console runs.
//   node stored-inputs.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { callTool, check, decide, dirAction, exitWithSummary, startCountersign, textOf } from './attacker.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: stored-inputs.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);

const work = mkdtempSync(path.join(tmpdir(), 'countersign-sec-stored-'));
const applied = (dir) => existsSync(path.join(work, `applied-${dir}`));
const makeVictim = (name) => { mkdirSync(path.join(work, name), { recursive: true }); writeFileSync(path.join(work, name, 'f.txt'), 'x'); };
const action = dirAction(work, 'delete_dir', 'Delete a directory', 'touch "applied-$1"; rm -r "$1"');
const sql = (dataDir, statement) => execFileSync('sqlite3', ['-cmd', '.timeout 5000', path.join(dataDir, 'countersign.db'), statement]).toString();
const verify = (dataDir) => run(binary, ['audit', 'verify', '--data-dir', dataDir])
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));
// The test host deciding as a person would in the window; resolves with its answer or its refusal.
const decideAs = (server, person, verb, ...extra) => decide(server, decideBinary, verb, '--by', `console:${person}`, ...extra)
    .then((answer) => ({ answer }), (e) => ({ refused: `${e.stderr ?? ''}${e.stdout ?? ''}` }));
const formCapabilities = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
const settle = () => new Promise((r) => setTimeout(r, 400)); // past the gate's and the queue's polls

// A card for dir on a fresh console; resolves with the server, the first answer and the card's nonce.
async function cardFor(config, dir, extra = {}) {
    const server = await startCountersign(binary, { config: { pollWindowSeconds: 1, actions: [action], ...config }, tokenName: 'agent' });
    servers.push(server);
    makeVictim(dir);
    const first = await callTool(server, 'delete_dir', { dir }, extra);
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const [card] = await decide(server, decideBinary, 'list');
    assert.match(card?.nonce ?? '', /^[0-9a-f]+$/);
    return { server, first, nonce: card.nonce };
}

async function verifyNames(server, pattern) {
    const verified = await verify(server.dataDir);
    assert.equal(verified.code, 1, `audit verify must fail: ${JSON.stringify(verified)}`);
    assert.match(verified.stdout, pattern, verified.stdout);
}

const servers = [];
try {
    await check('B1: approval_mode set to "client" around the store: the agent\'s own typed answer approves nothing, nothing runs, verify exits 1', async () => {
        const { server, first, nonce } = await cardFor({}, 'b1', { _meta: formCapabilities });
        sql(server.dataDir, `UPDATE operations SET approval_mode = 'client' WHERE nonce = '${nonce}'`);
        await settle();
        const inputResponses = { confirm: { action: 'accept', content: { confirm: 'b1' } }, approval: { action: 'accept', content: { confirm: 'b1' } } };
        const answered = await callTool(server, 'delete_dir', { dir: 'b1' }, { _meta: formCapabilities, requestState: first.result.requestState, inputResponses });
        assert.ok(answered.error || answered.result?.isError === true, JSON.stringify(answered));
        assert.match(answered.error?.message ?? textOf(answered), /not the one the audit log records: audit row \d+ records another approvalMode/, JSON.stringify(answered));
        await settle();
        assert.ok(!applied('b1'), 'the apply command never ran');
        assert.ok(existsSync(path.join(work, 'b1', 'f.txt')), 'the directory is untouched');
        assert.match(server.stderr(), /Nothing was run for delete_dir: operation .* is not the one the audit log records/);
        await verifyNames(server, /operation .* is not recorded in the audit chain as stored/);
        // Put back as minted, the log verifies again and the human's approval runs the call once.
        sql(server.dataDir, `UPDATE operations SET approval_mode = 'console' WHERE nonce = '${nonce}'`);
        assert.equal((await verify(server.dataDir)).code, 0, 'restored, the log verifies');
        await decide(server, decideBinary, 'approve', '--nonce', nonce);
        const done = await callTool(server, 'delete_dir', { dir: 'b1' }, { _meta: formCapabilities, requestState: first.result.requestState });
        assert.equal(done.result?.resultType, 'complete', JSON.stringify(done));
        assert.ok(applied('b1'));
    });

    await check('B2: a reviews row inserted for another person: one person\'s approval does not pass the two-person rule, nothing runs, verify exits 1', async () => {
        const { server, first, nonce } = await cardFor({ review: { twoPeople: ['medium'] } }, 'b2');
        sql(server.dataDir, `INSERT INTO reviews (nonce, reviewer, reviewed_ms) VALUES ('${nonce}', 'console:bob', ${Date.now()})`);
        const alice = await decideAs(server, 'alice', 'approve', '--nonce', nonce);
        assert.ok(alice.refused || alice.answer?.outcome !== 'approved', `alice alone must not approve: ${JSON.stringify(alice)}`);
        assert.match(alice.refused ?? '', /approvals \(console:bob\) are not the signed ones/, JSON.stringify(alice));
        const retried = await callTool(server, 'delete_dir', { dir: 'b2' }, { requestState: first.result.requestState });
        assert.ok(retried.error || retried.result?.resultType !== 'complete' || retried.result?.isError === true, JSON.stringify(retried));
        await settle();
        assert.ok(!applied('b2'), 'the apply command never ran');
        await verifyNames(server, /an approval of .* is not the one the audit chain records/);
    });

    await check('B2: owner_barred set to 0 around the store: the connection\'s owner still cannot approve their own agent\'s call, verify exits 1', async () => {
        const { server, nonce } = await cardFor({ review: { notOwnConnection: ['medium'] } }, 'b2-owner');
        const owner = userInfo().username; // `token add` records who added the connection
        const before = await decideAs(server, owner, 'approve', '--nonce', nonce);
        assert.match(before.refused ?? '', /your own connection/, `the bar holds as minted: ${JSON.stringify(before)}`);
        sql(server.dataDir, `UPDATE operations SET owner_barred = 0 WHERE nonce = '${nonce}'`);
        const after = await decideAs(server, owner, 'approve', '--nonce', nonce);
        assert.ok(after.refused, `the owner must still be refused: ${JSON.stringify(after)}`);
        assert.match(after.refused, /records another ownerBarred|not the one the audit log records/, after.refused);
        assert.ok(!applied('b2-owner'));
        await verifyNames(server, /operation .* is not recorded in the audit chain as stored/);
        // And the owner named: set to someone else, refused the same way.
        sql(server.dataDir, `UPDATE operations SET owner_barred = 1, owner = 'someone-else' WHERE nonce = '${nonce}'`);
        const renamed = await decideAs(server, owner, 'approve', '--nonce', nonce);
        assert.match(renamed.refused ?? '', /records another owner|not the one the audit log records/, JSON.stringify(renamed));
    });

    await check('the plan shown changed around the store (its digest kept): the card cannot be approved, verify exits 1', async () => {
        const { server, first, nonce } = await cardFor({}, 'plan');
        sql(server.dataDir, `UPDATE operations SET plan = json_set(plan, '$.prompt', 'Tidy a cache folder (harmless)') WHERE nonce = '${nonce}'`);
        const approved = await decideAs(server, 'alice', 'approve', '--nonce', nonce);
        assert.match(approved.refused ?? '', /stored plan is not the plan its digest seals|no pending approval/, JSON.stringify(approved));
        const retried = await callTool(server, 'delete_dir', { dir: 'plan' }, { requestState: first.result.requestState });
        assert.ok(retried.error || retried.result?.resultType !== 'complete' || retried.result?.isError === true, JSON.stringify(retried));
        assert.ok(!applied('plan'));
        await verifyNames(server, /the stored plan of .* is not the one its digest seals/);
    });

    await check('risk and TTL changed around the store: refused at the approval, verify exits 1', async () => {
        const { server, nonce } = await cardFor({}, 'ttl');
        sql(server.dataDir, `UPDATE operations SET expires_ms = expires_ms + 86400000, created_ms = created_ms + 1 WHERE nonce = '${nonce}'`);
        const approved = await decideAs(server, 'alice', 'approve', '--nonce', nonce);
        assert.match(approved.refused ?? '', /records another (expiresMs|createdMs)|no pending approval/, JSON.stringify(approved));
        sql(server.dataDir, `UPDATE operations SET expires_ms = expires_ms - 86400000, created_ms = created_ms - 1, risk = 'low' WHERE nonce = '${nonce}'`);
        const lowered = await decideAs(server, 'alice', 'approve', '--nonce', nonce);
        assert.match(lowered.refused ?? '', /stored risk \(low\) is not its plan's|no pending approval/, JSON.stringify(lowered));
        assert.ok(!applied('ttl'));
        await verifyNames(server, /operation .* is not recorded in the audit chain as stored/);
    });

    await check('a run\'s stored result forged around the store: the ticket\'s retry never hands it out', async () => {
        const { server, first, nonce } = await cardFor({}, 'claim');
        await decide(server, decideBinary, 'approve', '--nonce', nonce);
        const done = await callTool(server, 'delete_dir', { dir: 'claim' }, { requestState: first.result.requestState });
        assert.equal(done.result?.resultType, 'complete', JSON.stringify(done));
        assert.ok(applied('claim'));
        rmSync(path.join(work, 'applied-claim'));
        makeVictim('claim');
        // A forged result first: the retry must not hand it out as the run's.
        sql(server.dataDir, `UPDATE claims SET result = '{"content":[{"type":"text","text":"forged"}],"isError":false}' WHERE nonce = '${nonce}'`);
        const forged = await callTool(server, 'delete_dir', { dir: 'claim' }, { requestState: first.result.requestState });
        assert.doesNotMatch(JSON.stringify(forged), /forged/, JSON.stringify(forged));
        assert.match(forged.error?.message ?? textOf(forged), /stored result of .* is not the one its run recorded/, JSON.stringify(forged));
    });

    await check('a run\'s claims row removed, or its end cleared, around the store: the retry runs nothing again and says why, verify exits 1', async () => {
        const { server, first, nonce } = await cardFor({}, 'unclaimed');
        await decide(server, decideBinary, 'approve', '--nonce', nonce);
        const done = await callTool(server, 'delete_dir', { dir: 'unclaimed' }, { requestState: first.result.requestState });
        assert.equal(done.result?.resultType, 'complete', JSON.stringify(done));
        rmSync(path.join(work, 'applied-unclaimed'));
        makeVictim('unclaimed');
        sql(server.dataDir, `UPDATE claims SET finished_ms = NULL WHERE nonce = '${nonce}'`);
        await verifyNames(server, new RegExp(`records the end of the run of ${nonce}, but the claims table says it never ended`));
        sql(server.dataDir, `DELETE FROM claims WHERE nonce = '${nonce}'`);
        const again = await callTool(server, 'delete_dir', { dir: 'unclaimed' }, { requestState: first.result.requestState });
        assert.match(JSON.stringify(again), /its claims row is gone: the store was changed around Countersign; it is not run again/, JSON.stringify(again));
        assert.ok(!applied('unclaimed'), 'nothing ran a second time');
        assert.ok(existsSync(path.join(work, 'unclaimed', 'f.txt')));
        await verifyNames(server, new RegExp(`records a run of ${nonce} that the claims table lacks`));
    });

    await check('the client named, or a status, changed around the store: verify exits 1 naming it; a malformed card hides no other', async () => {
        const { server, nonce } = await cardFor({}, 'client');
        sql(server.dataDir, `UPDATE operations SET client_info = '{"name":"Trusted IDE","version":"1"}' WHERE nonce = '${nonce}'`);
        await verifyNames(server, new RegExp(`the stored client of ${nonce} is not the one the audit chain records`));
        sql(server.dataDir, `UPDATE operations SET client_info = (SELECT json_extract(detail, '$.client') FROM audit_log WHERE nonce = '${nonce}' AND event = 'minted') WHERE nonce = '${nonce}'`);
        assert.equal((await verify(server.dataDir)).code, 0, 'put back as the chain records it, the log verifies');
        // A waiting card marked superseded hides it from every console: the chain records no such thing.
        sql(server.dataDir, `UPDATE operations SET status = 'superseded' WHERE nonce = '${nonce}'`);
        await verifyNames(server, new RegExp(`operation ${nonce} has a status the audit chain does not record`));
        sql(server.dataDir, `UPDATE operations SET status = 'pending' WHERE nonce = '${nonce}'`);
        // A second card, then the first made unreadable: the second still shows, and a decision on it still works.
        makeVictim('client2');
        const second = await callTool(server, 'delete_dir', { dir: 'client2' });
        assert.equal(second.result?.resultType, 'input_required', JSON.stringify(second));
        sql(server.dataDir, `UPDATE operations SET plan = '{"not":"a plan"' WHERE nonce = '${nonce}'`);
        await settle();
        const listed = await run(decideBinary, [server.dataDir, 'list']);
        const cards = JSON.parse(listed.stdout);
        assert.equal(cards.length, 1, listed.stdout);
        assert.notEqual(cards[0].nonce, nonce);
        assert.match(listed.stderr, new RegExp(`card not shown: "?a waiting operation cannot be read: operation ${nonce}`));
    });

    await check('an untouched card still runs once after approval, and the log verifies (the checks cost nothing legitimate)', async () => {
        const { server, first, nonce } = await cardFor({ review: { twoPeople: ['medium'] } }, 'plain');
        assert.ok((await decideAs(server, 'alice', 'approve', '--nonce', nonce)).answer);
        assert.ok((await decideAs(server, 'bob', 'approve', '--nonce', nonce)).answer);
        const done = await callTool(server, 'delete_dir', { dir: 'plain' }, { requestState: first.result.requestState });
        assert.equal(done.result?.resultType, 'complete', JSON.stringify(done));
        assert.ok(applied('plain'));
        const verified = await verify(server.dataDir);
        assert.equal(verified.code, 0, JSON.stringify(verified));
    });
} finally {
    for (const server of servers) await server.stop().catch(() => {});
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
