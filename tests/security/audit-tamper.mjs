#!/usr/bin/env node
// Decisions and the audit chain against another process of the same user (issue 12, "Decisions are
// unauthenticated rows"): a row inserted into `decisions` was honoured within 200 ms and `audit
// verify` still said intact; deleting the chain's last rows, or recomputing every hash, also passed
// verify. Here the rows are written around the store with the sqlite3 CLI, as such a process would.
//   node audit-tamper.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { callTool, check, decide, dirAction, exitWithSummary, startCountersign, textOf } from './attacker.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: audit-tamper.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);

const work = mkdtempSync(path.join(tmpdir(), 'countersign-sec-audit-'));
const applied = (dir) => existsSync(path.join(work, `applied-${dir}`));
const makeVictim = (name) => { mkdirSync(path.join(work, name), { recursive: true }); writeFileSync(path.join(work, name, 'f.txt'), 'x'); };
const config = {
    pollWindowSeconds: 1,
    actions: [dirAction(work, 'delete_dir', 'Delete a directory', 'touch "applied-$1"; rm -r "$1"')],
};

const dbOf = (dataDir) => path.join(dataDir, 'countersign.db');
const sql = (dataDir, statement) => execFileSync('sqlite3', ['-cmd', '.timeout 5000', dbOf(dataDir), statement]).toString();
const rows = (dataDir, statement) => JSON.parse(execFileSync('sqlite3', ['-json', '-cmd', '.timeout 5000', dbOf(dataDir), statement]).toString() || '[]');
// `audit verify` as a reviewer runs it: resolves with { code, stdout, stderr } whatever the exit.
const verify = (dataDir, ...extra) => run(binary, ['audit', 'verify', '--data-dir', dataDir, ...extra])
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));

// shared/core/canonicaljson.cpp in JS: keys sorted by UTF-16 code units, strings escaped as there (every
// other character raw UTF-8), integers as decimal; and auditchain.cpp's hashLink over hashedFields.
function canonical(v) {
    if (v === null) return 'null';
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'number') { assert.ok(Number.isInteger(v), `only integers in the details: ${v}`); return String(v); }
    if (typeof v === 'string') {
        const esc = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
        // eslint-disable-next-line no-control-regex
        return `"${v.replace(/["\\\u0000-\u001f]/g, (c) => esc[c] ?? `\\u00${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}"`;
    }
    if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
    return `{${Object.keys(v).sort().map((k) => `${canonical(k)}:${canonical(v[k])}`).join(',')}}`;
}
const hashLink = (prev, row, detail) => createHash('sha256')
    .update(`${prev}|${canonical({ seq: row.seq, at: row.at_ms, event: row.event, nonce: row.nonce, detail })}`).digest('hex');

// One approved run end to end: the first call, the approval in the console, the retry's result.
async function approvedRun(server, dir) {
    makeVictim(dir);
    const first = await callTool(server, 'delete_dir', { dir });
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const decided = await decide(server, decideBinary, 'approve');
    const done = await callTool(server, 'delete_dir', { dir }, { requestState: first.result.requestState });
    assert.equal(done.result?.resultType, 'complete', JSON.stringify(done));
    assert.notEqual(done.result.isError, true, JSON.stringify(done));
    assert.ok(applied(dir), `${dir} was applied`);
    return { nonce: decided.nonce, result: done.result };
}

const servers = [];
try {
    await check('a decisions row (approved) and status written around the store: the retry runs nothing, answers "not in the verified audit log", verify exits 1', async () => {
        const server = await startCountersign(binary, { config, tokenName: 'agent' });
        servers.push(server);
        makeVictim('forged');
        const first = await callTool(server, 'delete_dir', { dir: 'forged' });
        assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
        const cards = await decide(server, decideBinary, 'list');
        assert.equal(cards.length, 1);
        const nonce = cards[0].nonce;
        assert.match(nonce, /^[0-9a-f]+$/);
        sql(server.dataDir, `INSERT INTO decisions (nonce, outcome, decided_by, reason, decided_ms) VALUES ('${nonce}', 'approved', 'console:test-host', '', ${Date.now()});
            UPDATE operations SET status = 'approved' WHERE nonce = '${nonce}';`);
        await new Promise((r) => setTimeout(r, 500)); // more than the gate's 200 ms poll
        const retried = await callTool(server, 'delete_dir', { dir: 'forged' }, { requestState: first.result.requestState });
        assert.ok(retried.error || retried.result?.isError === true, `an error, not a run: ${JSON.stringify(retried)}`);
        assert.match(retried.error?.message ?? textOf(retried), /verified audit log/, JSON.stringify(retried));
        await new Promise((r) => setTimeout(r, 300));
        assert.ok(!applied('forged'), 'the apply command never ran');
        assert.ok(existsSync(path.join(work, 'forged', 'f.txt')), 'the directory is untouched');
        const verified = await verify(server.dataDir);
        assert.equal(verified.code, 1, JSON.stringify(verified));
        assert.match(verified.stdout, /BROKEN/);
        // Shown, not only refused: the console says so at once, and again at the next start.
        assert.match(server.stderr(), /Nothing was run for delete_dir: the decision on .* is not in the verified audit log/);
        await server.stop({ keepFiles: true });
        const restarted = await startCountersign(binary, { restartOf: server });
        servers.push(restarted);
        // The start checks the log in a thread of its own: the warning follows the listening line.
        for (let i = 0; i < 50 && !/altered outside Countersign/.test(restarted.stderr()); i++) await new Promise((r) => setTimeout(r, 100));
        assert.match(restarted.stderr(), /warning: the audit log was altered outside Countersign/);
    });

    await check('a forged decision with its chain row appended (hash recomputed) and a later legitimate decision checkpointing the head over it: the retry runs nothing, verify exits 1 (the row carries no signature)', async () => {
        const server = await startCountersign(binary, { config, tokenName: 'agent' });
        servers.push(server);
        makeVictim('forged2');
        const first = await callTool(server, 'delete_dir', { dir: 'forged2' });
        const [{ nonce }] = await decide(server, decideBinary, 'list');
        const [lastRow] = rows(server.dataDir, 'SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
        const row = { seq: lastRow.seq + 1, at_ms: Date.now(), event: 'approved', nonce };
        const detail = { by: 'console:test-host', reason: '', decidedMs: row.at_ms };
        const hash = hashLink(lastRow.hash, row, detail);
        sql(server.dataDir, `BEGIN; INSERT INTO decisions VALUES ('${nonce}', 'approved', 'console:test-host', '', ${row.at_ms});
            UPDATE operations SET status = 'approved' WHERE nonce = '${nonce}';
            INSERT INTO audit_log VALUES (${row.seq}, ${row.at_ms}, 'approved', '${nonce}', '${JSON.stringify(detail)}', '${lastRow.hash}', '${hash}'); COMMIT;`);
        makeVictim('other');
        await callTool(server, 'delete_dir', { dir: 'other' });
        // A legitimate decision: the server signs the chain's new head, but first records that the
        // log it found was changed around it (the forged row is not under its last signed head).
        const other = (await decide(server, decideBinary, 'list')).find((c) => c.nonce !== nonce);
        await decide(server, decideBinary, 'decline', '--nonce', other.nonce, '--reason', 'no');
        const retried = await callTool(server, 'delete_dir', { dir: 'forged2' }, { requestState: first.result.requestState });
        assert.ok(retried.error || retried.result?.isError === true, `an error, not a run: ${JSON.stringify(retried)}`);
        assert.match(retried.error?.message ?? textOf(retried), /carries no signature/, JSON.stringify(retried));
        assert.ok(!applied('forged2'), 'the apply command never ran');
        const verified = await verify(server.dataDir);
        assert.equal(verified.code, 1, JSON.stringify(verified));
        assert.match(verified.stdout, /the log was changed around Countersign before row \d+ .*: rows \d+ to \d+ were written around Countersign/, verified.stdout);
    });

    await check('the last row cut around the store, then legitimate runs sign new heads: verify still exits 1 naming the cut', async () => {
        const server = await startCountersign(binary, { config, tokenName: 'agent' });
        servers.push(server);
        await approvedRun(server, 'cut1');
        sql(server.dataDir, 'DELETE FROM audit_log WHERE seq = (SELECT MAX(seq) FROM audit_log);');
        await approvedRun(server, 'cut2');
        await approvedRun(server, 'cut3');
        const verified = await verify(server.dataDir);
        assert.equal(verified.code, 1, JSON.stringify(verified));
        assert.match(verified.stdout, /the log was changed around Countersign before row \d+ .*: the log was cut after row \d+: its signed head is row \d+/, verified.stdout);
    });

    const server = await startCountersign(binary, { config, tokenName: 'agent' });
    servers.push(server);
    const publicKey = readFileSync(path.join(server.dataDir, 'receipt-public-key'), 'utf8').trim();
    let earlier, last;
    const resultFile = path.join(work, 'result.json');
    await check('two approved runs: audit verify exits 0 and says intact', async () => {
        earlier = await approvedRun(server, 'first-run');
        last = await approvedRun(server, 'second-run');
        writeFileSync(resultFile, JSON.stringify(last.result));
        assert.ok(last.result._meta['dev.countersign/receipt'].auditHead, 'the receipt carries the chain head');
        const verified = await verify(server.dataDir);
        assert.equal(verified.code, 0, JSON.stringify(verified));
        assert.match(verified.stdout, /intact/);
        assert.equal((await verify(server.dataDir, '--receipt', resultFile)).code, 0);
    });
    await server.stop({ keepFiles: true }); // the copies below are of a quiet database
    let copies = 0;
    const tampered = (what) => {
        const copy = path.join(work, `copy-${++copies}`);
        cpSync(server.dataDir, copy, { recursive: true });
        what(copy);
        return copy;
    };
    const verifyCopy = (copy, ...extra) => verify(copy, '--public-key', publicKey, ...extra);

    await check('the signed head removed (signed NULL, unsigned_until past the end): verify exits 1', async () => {
        const copy = tampered((c) => sql(c, 'UPDATE audit_head SET signed = NULL, unsigned_until = 1000000;'));
        const verified = await verifyCopy(copy);
        assert.equal(verified.code, 1, JSON.stringify(verified));
        assert.match(verified.stdout, /the log's signed head was removed/);
    });

    await check('a row forged while the console was stopped, then a plain restart (which signs the head): verify still names it', async () => {
        const copy = path.join(work, 'restart', 'data');
        cpSync(server.dataDir, copy, { recursive: true });
        const [lastRow] = rows(copy, 'SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
        const row = { seq: lastRow.seq + 1, at_ms: Date.now(), event: 'policy-in-force', nonce: '' };
        const detail = { digest: 'forged' };
        sql(copy, `INSERT INTO audit_log VALUES (${row.seq}, ${row.at_ms}, 'policy-in-force', '', '${JSON.stringify(detail)}', '${lastRow.hash}', '${hashLink(lastRow.hash, row, detail)}');`);
        const restarted = await startCountersign(binary, { restartOf: { dir: path.dirname(copy), configPath: server.configPath, token: server.token } });
        await new Promise((r) => setTimeout(r, 500));
        await restarted.stop({ keepFiles: true });
        const verified = await verifyCopy(copy);
        assert.equal(verified.code, 1, JSON.stringify(verified));
        assert.match(verified.stdout, /changed around Countersign.*rows \d+ to \d+ were written around Countersign/, verified.stdout);
    });

    await check('the last 2 rows of audit_log deleted: verify exits 1', async () => {
        const copy = tampered((c) => sql(c, 'DELETE FROM audit_log WHERE seq > (SELECT MAX(seq) - 2 FROM audit_log);'));
        const verified = await verifyCopy(copy);
        assert.equal(verified.code, 1, JSON.stringify(verified));
        assert.match(verified.stdout, /BROKEN/);
    });

    await check('a detail edited and every later hash recomputed: verify exits 1 (the signed checkpoint holds another hash)', async () => {
        const copy = tampered((c) => {
            const log = rows(c, 'SELECT seq, at_ms, event, nonce, detail, prev_hash, hash FROM audit_log ORDER BY seq');
            // The JS recompute reproduces the untouched chain, so a failure below is the checkpoint's doing.
            let prev = '0'.repeat(64);
            for (const row of log) { assert.equal(hashLink(prev, row, JSON.parse(row.detail)), row.hash, `recompute of row ${row.seq}`); prev = row.hash; }
            const target = log.find((r) => r.event === 'minted' && r.nonce === last.nonce);
            assert.ok(target, 'the minted row of the second run');
            let statements = '';
            prev = '0'.repeat(64);
            for (const row of log) {
                const detail = JSON.parse(row.detail);
                if (row === target) detail.rule = 'allowed by the operator';
                const hash = hashLink(prev, row, detail);
                statements += `UPDATE audit_log SET detail = '${JSON.stringify(detail).replaceAll("'", "''")}', prev_hash = '${prev}', hash = '${hash}' WHERE seq = ${row.seq};\n`;
                prev = hash;
            }
            sql(c, `BEGIN; ${statements} COMMIT;`);
        });
        const verified = await verifyCopy(copy);
        assert.equal(verified.code, 1, JSON.stringify(verified));
        assert.match(verified.stdout, /BROKEN.*(rewritten|checkpoint)/, verified.stdout);
    });

    await check('a decided_by changed in decisions: verify exits 1', async () => {
        const copy = tampered((c) => sql(c, `UPDATE decisions SET decided_by = 'console:mallory' WHERE nonce = '${earlier.nonce}';`));
        const verified = await verifyCopy(copy);
        assert.equal(verified.code, 1, JSON.stringify(verified));
        assert.match(verified.stdout, /BROKEN/);
    });

    await check('a decisions row deleted: verify exits 1', async () => {
        const copy = tampered((c) => sql(c, `DELETE FROM decisions WHERE nonce = '${earlier.nonce}';`));
        const verified = await verifyCopy(copy);
        assert.equal(verified.code, 1, JSON.stringify(verified));
        assert.match(verified.stdout, /BROKEN/);
    });

    await check('the log cut, its signed head left as it was: verify exits 1 naming the cut', async () => {
        const copy = tampered((c) => sql(c, 'DELETE FROM audit_log WHERE seq = (SELECT MAX(seq) FROM audit_log);'));
        const verified = await verifyCopy(copy);
        assert.equal(verified.code, 1, JSON.stringify(verified));
        assert.match(verified.stdout, /the log was cut after row \d+: its signed head is row \d+/);
    });

    await check('the log cut back to an earlier signed checkpoint, consistently (tables and head too): verify alone cannot tell, --receipt RESULT exits 1 naming the receipt\'s head', async () => {
        const head = last.result._meta['dev.countersign/receipt'].auditHead;
        const copy = tampered((c) => {
            const [{ seq }] = rows(c, `SELECT MIN(seq) AS seq FROM audit_log WHERE nonce = '${last.nonce}'`);
            assert.ok(seq <= head.seq, 'the cut is below the receipt\'s head');
            const [{ cut }] = rows(c, `SELECT MAX(seq) AS cut FROM audit_checkpoints WHERE seq < ${seq}`);
            // Everything after that checkpoint goes, the tables are made to agree, and the old
            // checkpoint's signed head becomes the log's head: a truncation no key was needed for.
            sql(c, `BEGIN; DELETE FROM audit_log WHERE seq > ${cut}; DELETE FROM audit_checkpoints WHERE seq > ${cut};
                DELETE FROM claims WHERE nonce NOT IN (SELECT nonce FROM audit_log WHERE event = 'claimed');
                DELETE FROM decisions WHERE nonce NOT IN (SELECT nonce FROM audit_log WHERE event IN ('approved', 'declined', 'expired'));
                DELETE FROM operations WHERE nonce NOT IN (SELECT nonce FROM audit_log WHERE event IN ('minted', 'settled-by-rule'));
                UPDATE audit_head SET signed = (SELECT signed FROM audit_checkpoints WHERE seq = ${cut}); COMMIT;`);
        });
        const alone = await verifyCopy(copy);
        assert.equal(alone.code, 0, `a consistent cut back to a signed head is what only a receipt can show: ${JSON.stringify(alone)}`);
        const verified = await verifyCopy(copy, '--receipt', resultFile);
        assert.equal(verified.code, 1, JSON.stringify(verified));
        assert.match(verified.stdout, new RegExp(`BROKEN: row ${head.seq}, the head of receipt .*result\\.json, is gone`), verified.stdout);
    });
} finally {
    for (const s of servers) {
        if (s.child.exitCode === null && s.child.signalCode === null) await s.stop();
        else rmSync(s.dir, { recursive: true, force: true });
    }
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
