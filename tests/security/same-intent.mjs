#!/usr/bin/env node
// The same intent, coming back by another road (issue 51): an agent whose `rm -rf x` was declined
// tries `find x -delete`, then Python's shutil.rmtree. Through Claude Code's HTTP hook, with the real
// console: a later call of the session that reaches what was declined asks even where it would run
// with no card, and its card says first that it tries again (the same words at its re-plan, so an
// approval of it still runs); another session's call is not marked; after two declines the next such
// call holds the session (each of its calls asks, recorded in the audit log) until a human releases
// its connection.
//   node same-intent.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { check, exitWithSummary, waitFor } from '../peer/checks.mjs';
import { startCountersign } from '../peer/countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: same-intent.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'countersign-same-intent-'));
const ws = path.join(work, 'ws');
mkdirSync(path.join(ws, 'x'), { recursive: true });
const git = (...args) => execFileSync('git', ['-C', ws, ...args], { stdio: 'pipe' });
git('init', '-q');
git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'start');
writeFileSync(path.join(ws, 'x', 'notes.txt'), 'work git does not keep\n');
writeFileSync(path.join(ws, 'x', 'a.txt'), 'a\n');

const server = await startCountersign(binary, { config: { workspaceRoots: [ws], hookHoldSeconds: 20 }, tokenName: 'agent' });
const base = server.url.replace(/\/mcp$/, '');
const decide = (verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
const events = () => execFileSync('sqlite3', ['-cmd', '.timeout 5000', path.join(server.dataDir, 'countersign.db'),
    'SELECT event FROM audit_log ORDER BY seq']).toString().split('\n').filter(Boolean);

let ids = 0;
async function hook(tool, input, session = 'session-1') {
    const res = await fetch(`${base}/hooks/claude-code`, {
        method: 'POST',
        body: JSON.stringify({ session_id: session, transcript_path: '/tmp/t.jsonl', cwd: ws, permission_mode: 'default',
            hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: `toolu_${++ids}` }),
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` },
    });
    return (await res.json()).hookSpecificOutput ?? {};
}
const bash = (command, session) => hook('Bash', { command }, session);
// Sends the call, waits for its card, decides it (declines unless approve), and returns the card and the answer.
async function carded(send, verb = 'decline') {
    const answer = send();
    const card = await waitFor('its card', async () => (await decide('list'))[0], 15000);
    await decide(verb, '--nonce', card.nonce, ...(verb === 'decline' ? ['--reason', 'no'] : []));
    return { card, answer: await answer };
}

try {
    await check('a declined rm -rf x is remembered; the same session writing into x asks, its card marked, and its approval still runs', async () => {
        const first = await carded(() => bash('rm -rf x'));
        assert.doesNotMatch(first.card.summary, /Tried again/);
        assert.equal(first.answer.permissionDecision, 'deny');
        // A write inside the roots runs with no card (its undo kept), but not this one.
        const write = await carded(() => hook('Write', { file_path: path.join(ws, 'x', 'a.txt'), content: 'b\n' }), 'approve');
        assert.match(write.card.summary, /^Tried again after your decline: this session's "rm -rf x" was declined, and this call reaches .*\/x too\./, write.card.summary);
        assert.match(write.card.prompt, /^Tried again after your decline/);
        assert.equal(write.answer.permissionDecision, 'allow', JSON.stringify(write.answer));
    });

    await check('another session reaching x is not marked', async () => {
        const other = await carded(() => bash('find x -name a.txt -delete', 'session-2'));
        assert.doesNotMatch(other.card.summary, /Tried again/, other.card.summary);
    });

    await check('find x -delete is marked; declined again, a Python rmtree of x holds the session: each of its calls asks', async () => {
        const second = await carded(() => bash('find x -delete'));
        assert.match(second.card.summary, /^Tried again after your decline: this session's "rm -rf x" was declined/, second.card.summary);
        assert.ok(!events().includes('session-held-after-declines'));
        const third = await carded(() => bash(`python3 -c "import shutil; shutil.rmtree('x')"`));
        assert.match(third.card.summary, /"rm -rf x", "find x -delete" were declined/, third.card.summary);
        assert.ok(events().includes('session-held-after-declines'), events().join(' '));
        assert.match(server.stderr(), /tried again by another road after two declines/);
        // Held: even a read that runs with no card asks now.
        const read = await carded(() => bash('ls'));
        assert.match(read.card.title, /ls/);
        assert.equal(read.answer.permissionDecision, 'deny');
        assert.ok(existsSync(path.join(ws, 'x', 'notes.txt')));
        // Only that session: another of the same connection reads with no card.
        assert.equal((await bash('ls', 'session-2')).permissionDecision, 'allow');
    });
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
