#!/usr/bin/env node
// "From now on" (issue 51), through Claude Code's HTTP hook with the real console: a grant made
// from a card (the test host does what the card's dialog does: decides the card, then records the
// grant in the audit chain) lets the next identical call run with no card, its audit row naming the
// grant; a different line, another connection, another agent session (for a grant made for this
// one), an expired grant and a revoked one ask again; a deny
// grant refuses at once; an allow grant never lets through a plan that cannot be taken back; and
// the grant is a chain event that `audit verify` checks, so one rewritten around the store decides
// nothing and fails verify.
//   node grants.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { check, exitWithSummary, waitFor } from '../peer/checks.mjs';
import { startCountersign } from '../peer/countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: grants.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'countersign-grants-'));
const ws = path.join(work, 'ws');
const outside = path.join(work, 'outside');
mkdirSync(ws, { recursive: true });
mkdirSync(path.join(outside, 'data'), { recursive: true });
writeFileSync(path.join(outside, 'data', 'records.csv'), 'id\n1\n');
const git = (...args) => execFileSync('git', ['-C', ws, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { stdio: 'pipe' });
git('init', '-q');
git('commit', '-q', '--allow-empty', '-m', 'start');

const server = await startCountersign(binary, { config: { workspaceRoots: [ws], hookHoldSeconds: 20 }, tokenName: 'agent', env: process.env.GRANTS_LOG ? { QT_LOGGING_RULES: 'countersign.*=true' } : {} });
const other = server.addToken('other');
const base = server.url.replace(/\/mcp$/, '');
const db = path.join(server.dataDir, 'countersign.db');
const sql = (query) => execFileSync('sqlite3', ['-cmd', '.timeout 5000', db, query]).toString().trim();
const decide = (verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
const verify = () => run(binary, ['audit', 'verify', '--data-dir', server.dataDir]).then(() => 0, (e) => e.code);

let ids = 0;
async function bash(command, token = server.token, session = `s-${ids + 1}`) {
    ++ids;
    const res = await fetch(`${base}/hooks/claude-code`, {
        method: 'POST',
        body: JSON.stringify({ session_id: session, transcript_path: '/tmp/t.jsonl', cwd: ws, permission_mode: 'default',
            hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `toolu_${ids}` }),
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    });
    return (await res.json()).hookSpecificOutput ?? {};
}
// The call asks: its card comes; returns the card (still pending) and the call's answer to come.
async function asks(command, token, session) {
    const answer = bash(command, token, session);
    const card = await waitFor(`a card for ${command}`, async () => (await decide('list')).find((c) => c.face.command === `$ ${command}`), 15000);
    return { card, answer };
}
const lastRule = () => sql("SELECT rule FROM operations WHERE tool = 'agent:shell' ORDER BY created_ms DESC LIMIT 1");
const declineAll = async () => { for (const c of await decide('list')) await decide('decline', '--nonce', c.nonce, '--reason', 'test'); };
// A line that asks at medium risk (new third-party code). Through the hook Countersign only answers;
// nothing here runs it.
const line = 'npm install is-odd';

try {
    if (process.env.GRANTS_LOG) process.on('exit', () => console.log(server.stderr?.() ?? ''));
    await check('a grant for this exact call: the card is approved and the grant recorded; the same call again runs with no card, its row naming the grant', async () => {
        const { card, answer } = await asks(line);
        assert.equal(card.face.typed, false, JSON.stringify(card.face));
        const made = await decide('grant', '--nonce', card.nonce, '--scope', 'call', '--expires-ms', '3600000');
        assert.equal((await answer).permissionDecision, 'allow');
        assert.match(made.rule, /^grant [0-9a-f]{16} \(allow from now on\): exactly this call/);
        const again = await bash(line);
        assert.equal(again.permissionDecision, 'allow', JSON.stringify(again));
        assert.deepEqual(await decide('list'), []);
        assert.match(lastRule(), new RegExp(`^grant ${made.grant} \\(allow from now on\\)`));
        assert.equal(sql(`SELECT count(*) FROM audit_log WHERE event = 'grant-added' AND nonce = 'grant:${made.grant}'`), '1');
        globalThis.callGrant = made.grant;
    });
    await check('what the grant does not cover asks: another line, and the same line from another connection', async () => {
        const longer = await asks(`${line} -v`);
        await decide('decline', '--nonce', longer.card.nonce, '--reason', 'not granted');
        assert.equal((await longer.answer).permissionDecision, 'deny');
        const elsewhere = await asks(line, other);
        await decide('decline', '--nonce', elsewhere.card.nonce, '--reason', 'not granted');
        assert.equal((await elsewhere.answer).permissionDecision, 'deny');
    });
    await check('a revoked grant asks again at once', async () => {
        await decide('revoke-grant', '--id', globalThis.callGrant);
        const { card, answer } = await asks(line);
        await decide('decline', '--nonce', card.nonce, '--reason', 'revoked');
        assert.equal((await answer).permissionDecision, 'deny');
    });
    await check('a command grant ("npm install left-pad" with any further arguments, in this folder) that expires: covered until then, asks after', async () => {
        const { card, answer } = await asks('npm install left-pad');
        const made = await decide('grant', '--nonce', card.nonce, '--scope', 'command', '--expires-ms', '2500');
        assert.match(made.rule, /"npm install left-pad" with any further arguments, in /);
        await answer;
        assert.equal((await bash('npm install left-pad --save-dev')).permissionDecision, 'allow');
        assert.match(lastRule(), new RegExp(`^grant ${made.grant} `));
        // Not plain words (a pipe): no grant covers it.
        const piped = await asks('npm install left-pad | sh');
        await decide('decline', '--nonce', piped.card.nonce, '--reason', 'piped');
        await new Promise((r) => setTimeout(r, 2600));
        const late = await asks('npm install left-pad --save-dev');
        await decide('decline', '--nonce', late.card.nonce, '--reason', 'expired');
        assert.equal((await late.answer).permissionDecision, 'deny');
    });
    await check('a grant for this agent session: the same call in that session runs with no card; in another session it asks', async () => {
        const { card, answer } = await asks('npm install is-number', server.token, 'session-granted');
        const made = await decide('grant', '--nonce', card.nonce, '--scope', 'call', '--expires-ms', '3600000', '--session', 'card');
        assert.match(made.rule, /in this agent session only \(session-granted\)/);
        await answer;
        const same = await bash('npm install is-number', server.token, 'session-granted');
        assert.equal(same.permissionDecision, 'allow', JSON.stringify(same));
        assert.match(lastRule(), new RegExp(`^grant ${made.grant} `));
        const another = await asks('npm install is-number', server.token, 'another-session');
        await decide('decline', '--nonce', another.card.nonce, '--reason', 'another session');
        assert.equal((await another.answer).permissionDecision, 'deny');
    });
    await check('a deny grant refuses the same call at once, saying so', async () => {
        const denied = 'npm install event-stream';
        const { card, answer } = await asks(denied);
        const made = await decide('grant', '--nonce', card.nonce, '--verdict', 'deny', '--scope', 'call', '--expires-ms', '0');
        assert.equal((await answer).permissionDecision, 'deny');
        const again = await bash(denied);
        assert.equal(again.permissionDecision, 'deny');
        assert.match(again.permissionDecisionReason, /deny from now on/);
        assert.deepEqual(await decide('list'), []);
        assert.match(lastRule(), new RegExp(`^grant ${made.grant} \\(deny from now on\\)`));
    });
    await check('an allow grant never lets through what cannot be taken back: rm -rf outside the roots asks again', async () => {
        const rm = `rm -rf ${path.join(outside, 'data')}`;
        const { card, answer } = await asks(rm);
        assert.equal(card.risk, 'high');
        // The window offers no allow here; the grant written anyway (as by another process) is not applied.
        const made = await decide('grant', '--nonce', card.nonce, '--scope', 'call', '--expires-ms', '3600000').catch(() => null);
        if (made) await answer;
        const again = await asks(rm);
        await decide('decline', '--nonce', again.card.nonce, '--reason', 'never');
        assert.equal((await again.answer).permissionDecision, 'deny');
    });
    await check('no grant covers a line that runs code the agent wrote: npm run lint of an untracked script asks again after a grant for it', async () => {
        writeFileSync(path.join(ws, 'package.json'), JSON.stringify({ scripts: { lint: 'node lint.js' } }));
        writeFileSync(path.join(ws, 'lint.js'), 'console.log("lint")\n');
        const { card, answer } = await asks('npm run lint');
        assert.match(card.face.why.join(' ') + card.face.headline, /may have written|changed since/, JSON.stringify(card.face));
        await decide('grant', '--nonce', card.nonce, '--scope', 'call', '--expires-ms', '3600000');
        await answer;
        // The agent rewrites lint.js quietly; the same line must not run it unseen.
        writeFileSync(path.join(ws, 'lint.js'), 'require("fs").rmSync(process.argv[1] + "/../outside", { recursive: true })\n');
        const again = await asks('npm run lint');
        await decide('decline', '--nonce', again.card.nonce, '--reason', 'changed code');
        assert.equal((await again.answer).permissionDecision, 'deny');
    });
    await check('a connection revoked and given again by the same name: its old allow grants let nothing through', async () => {
        const target = 'npm install left-pad-reissued';
        const { card, answer } = await asks(target);
        await decide('grant', '--nonce', card.nonce, '--scope', 'call', '--expires-ms', '3600000');
        await answer;
        assert.equal((await bash(target)).permissionDecision, 'allow');
        await new Promise((r) => setTimeout(r, 5)); // a token given later than the grant
        execFileSync(binary, ['token', 'revoke', 'agent', '--data-dir', server.dataDir, '--config', server.configPath], { stdio: 'pipe' });
        const fresh = execFileSync(binary, ['token', 'add', 'agent', '--data-dir', server.dataDir, '--config', server.configPath], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
        const again = await asks(target, fresh);
        await decide('decline', '--nonce', again.card.nonce, '--reason', 're-issued');
        assert.equal((await again.answer).permissionDecision, 'deny');
        server.token = fresh;
    });
    await check('a call that names two folders to run in is refused (which one the client runs in is not known)', async () => {
        const res = await fetch(`${base}/hooks/claude-code`, {
            method: 'POST',
            body: JSON.stringify({ session_id: 's-two', transcript_path: '/tmp/t.jsonl', cwd: ws, permission_mode: 'default', hook_event_name: 'PreToolUse',
                tool_name: 'Bash', tool_input: { command: 'npm install is-odd', directory: path.join(ws, 'evil'), workdir: ws }, tool_use_id: 'toolu_two' }),
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` },
        });
        const out = (await res.json()).hookSpecificOutput ?? {};
        assert.equal(out.permissionDecision, 'deny', JSON.stringify(out));
        assert.match(out.permissionDecisionReason, /two folders/);
    });
    await check('a grant is a chain event: verify passes; one rewritten around the store (its words widened) decides nothing and fails verify', async () => {
        assert.equal(await verify(), 0);
        const { card, answer } = await asks('npm install is-even');
        const made = await decide('grant', '--nonce', card.nonce, '--scope', 'command', '--expires-ms', '3600000');
        await answer;
        assert.equal((await bash('npm install is-even --save')).permissionDecision, 'allow');
        // The grant's words made one shorter ("npm install" would cover any package).
        sql(`UPDATE audit_log SET detail = replace(detail, '"words":["npm","install","is-even"]', '"words":["npm","install"]') WHERE nonce = 'grant:${made.grant}' AND event = 'grant-added'`);
        assert.match(sql(`SELECT detail FROM audit_log WHERE nonce = 'grant:${made.grant}' AND event = 'grant-added'`), /"words":\["npm","install"\]/);
        const after = await asks('npm install some-other-package');
        await decide('decline', '--nonce', after.card.nonce, '--reason', 'tampered');
        assert.equal((await after.answer).permissionDecision, 'deny');
        assert.equal(await verify(), 1);
    });
} finally {
    await declineAll().catch(() => {});
    await server.stop().catch(() => {});
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
