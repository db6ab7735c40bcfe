#!/usr/bin/env node
// Exactly once under races (issue 12, "A race reopens a call that already ran"): two retries of one
// approved ticket while its plan changed let the first run and the second supersede it into a new
// card; four concurrent retries made four cards. Also identical first calls stacking cards, and a
// finished ticket retried after its plan changed. Real binary, real plan/apply commands, raw HTTP.
//   node races.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { callTool, check, decide, dirAction, exitWithSummary, pendingCards, startCountersign } from './attacker.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: races.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }

const work = mkdtempSync(path.join(tmpdir(), 'countersign-sec-races-'));
const runsFile = path.join(work, 'runs');
// How many times the apply command ran for this directory.
const runs = (dir) => (existsSync(runsFile) ? readFileSync(runsFile, 'utf8').split('\n').filter((l) => l === dir).length : 0);
const addFile = (dir, name) => { mkdirSync(path.join(work, dir), { recursive: true }); writeFileSync(path.join(work, dir, name), name); };
// The plan lists the files in the directory (a new file changes it); the apply counts its runs and
// takes a while, so that retries overlap it. It deletes nothing: the plan stays what it was.
const config = {
    pollWindowSeconds: 1,
    actions: [dirAction(work, 'purge_dir', 'Purge a directory', 'echo "$1" >> runs; sleep 0.5; echo purged "$1"')],
};

const server = await startCountersign(binary, { config, tokenName: 'agent' });
const call = (dir, requestState, id) => callTool(server, 'purge_dir', { dir }, requestState ? { requestState } : {}, id);
const asked = (r) => r.result?.resultType === 'input_required' && typeof r.result.requestState === 'string';
const complete = (r) => r.result?.resultType === 'complete' && r.result.isError !== true;
const receiptOf = (r) => r.result?._meta?.['dev.countersign/receipt'];
const concurrently = (n, fn) => Promise.all(Array.from({ length: n }, (_, i) => fn(i)));

try {
    let finished; // the run of case (a): its ticket and its result, for case (c)
    await check('approved card, plan changed, 4 concurrent retries: nothing runs, ONE new card, every retry asked again', async () => {
        addFile('race-a', 'one.txt');
        const first = await call('race-a');
        assert.ok(asked(first), JSON.stringify(first));
        const approved = await decide(server, decideBinary, 'approve');
        assert.equal(approved.outcome, 'approved');
        addFile('race-a', 'two.txt');
        const retries = await concurrently(4, (i) => call('race-a', first.result.requestState, 10 + i));
        for (const r of retries) assert.ok(asked(r), `input_required, not a run: ${JSON.stringify(r)}`);
        await new Promise((r) => setTimeout(r, 700));
        assert.equal(runs('race-a'), 0, 'the approved plan is not what would run: nothing ran');
        const cards = await pendingCards(server, decideBinary);
        assert.equal(cards.length, 1, `exactly one replacement card: ${JSON.stringify(cards.map((c) => c.nonce))}`);
        assert.notEqual(cards[0].nonce, approved.nonce);
        assert.match(cards[0].diff, /two\.txt/, 'the new card shows the new plan');

        await decide(server, decideBinary, 'approve', '--nonce', cards[0].nonce);
        const done = await concurrently(4, (i) => call('race-a', retries[i].result.requestState, 20 + i));
        for (const r of done) assert.ok(complete(r), JSON.stringify(r));
        assert.equal(runs('race-a'), 1, 'the approved replacement ran exactly once');
        assert.equal(receiptOf(done[0]).nonce, cards[0].nonce);
        const results = new Set(done.map((r) => JSON.stringify(r.result)));
        assert.equal(results.size, 1, 'all 4 retries got the same stored result');
        finished = { requestState: retries[0].result.requestState, result: done[0].result };
    });

    await check('the same first call 5 times at once without a ticket: one card; any of the 5 tickets runs it once', async () => {
        addFile('race-b', 'one.txt');
        const firsts = await concurrently(5, (i) => call('race-b', undefined, 30 + i));
        for (const r of firsts) assert.ok(asked(r), JSON.stringify(r));
        const cards = await pendingCards(server, decideBinary);
        assert.equal(cards.length, 1, `one pending card for 5 identical calls, got ${cards.length}`);
        await decide(server, decideBinary, 'approve', '--nonce', cards[0].nonce);
        const done = await concurrently(5, (i) => call('race-b', firsts[i].result.requestState, 40 + i));
        for (const r of done) assert.ok(complete(r), JSON.stringify(r));
        assert.equal(runs('race-b'), 1, 'ran exactly once');
        assert.equal(new Set(done.map((r) => JSON.stringify(receiptOf(r)))).size, 1, 'one run, one receipt');
    });

    await check('a ticket whose run finished, retried after its plan changed: the stored result, no new card, no run', async () => {
        assert.ok(finished, 'case (a) ran');
        addFile('race-a', 'three.txt');
        const before = (await pendingCards(server, decideBinary)).length;
        const again = await concurrently(3, (i) => call('race-a', finished.requestState, 50 + i));
        for (const r of again) assert.deepEqual(r.result, finished.result, 'the stored result, receipt and all');
        await new Promise((r) => setTimeout(r, 700));
        assert.equal(runs('race-a'), 1, 'not run again');
        assert.equal((await pendingCards(server, decideBinary)).length, before, 'no new card');
    });
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
