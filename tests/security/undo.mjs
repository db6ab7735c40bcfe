#!/usr/bin/env node
// Undo of what an agent's own write, edit or patch changed when it ran with no card (issue 38),
// through the real console's HTTP hook (Claude Code's payloads) and the real `countersign undo`, in
// a workspace root that is a real git repository, in standard mode. The test does what the client
// does between its pre- and post-tool hooks: it writes the file.
//   - a quiet Write over a committed file, and a Write that creates one: reverted, bytes exact, the
//     created file gone; the revert is in the audit chain and `audit verify` is intact;
//   - a revert after the file changed again is refused, and the human's work stays;
//   - a revert asked without --yes and answered "n" changes nothing;
//   - the file swapped for a link to a file outside the roots after the change: refused, the outside
//     file untouched;
//   - a Write through a link, or over a file too large to keep, asks instead of running unkept;
//   - a revert of an operation that kept nothing, or a malformed id: refused;
//   - an approved rm -rf of an untracked folder, and an approved git reset --hard over uncommitted
//     work, keep what they delete (their cards say so): countersign undo brings the folder back
//     with its files (bytes exact) and the discarded work back; an rm of a folder holding a link
//     says on its card that it cannot be undone; work changed between the card and the approval
//     makes a new card, and the approved one does not run;
//   - Countersign's own write_file and delete_path, approved over MCP, keep what they overwrite or
//     delete: countersign undo brings it back.
//   node undo.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { check, exitWithSummary, waitFor } from '../peer/checks.mjs';
import { startCountersign } from '../peer/countersign-process.mjs';
import { callTool } from './attacker.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: undo.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'countersign-undo-'));
const ws = path.join(work, 'ws');
const outside = path.join(work, 'outside.txt');
mkdirSync(ws);
const git = (...args) => execFileSync('git', ['-C', ws, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
git('init', '-q', '-b', 'main');
git('config', 'user.email', 't@example.invalid');
git('config', 'user.name', 'Test');
writeFileSync(path.join(ws, 'README.md'), '# Project\n\nCommitted text.\n');
writeFileSync(path.join(ws, 'notes.md'), 'an hour of notes\n');
git('add', 'README.md');
git('commit', '-q', '-m', 'init');
writeFileSync(outside, 'outside the roots\n');

const server = await startCountersign(binary, { config: { workspaceRoots: [ws], hookHoldSeconds: 3, mode: 'standard' }, tokenName: 'undo-hooks' });
const base = server.url.replace(/\/mcp$/, '');
const decide = (verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
const clearCards = async () => { for (const c of await decide('list')) await decide('decline', '--nonce', c.nonce, '--reason', 'clean-up'); };
const cli = (args, input) => spawnSync(binary, [...args, '--data-dir', server.dataDir, '--config', server.configPath],
    { input: input ?? '', encoding: 'utf8' });

let ids = 0;
const claude = (event, tool, input, id) => ({
    session_id: 'session-undo', transcript_path: '/tmp/transcript.jsonl', cwd: ws, permission_mode: 'default',
    hook_event_name: event, tool_name: tool, tool_input: input, tool_use_id: id,
});
async function hook(payload) {
    const res = await fetch(`${base}/hooks/claude-code`, {
        method: 'POST', body: JSON.stringify(payload),
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` },
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    return text ? JSON.parse(text) : {};
}
const decisionOf = (body) => body.hookSpecificOutput?.permissionDecision;
// The client's Write tool, between its hooks: asked, then (when allowed) written, then reported.
async function agentWrite(file, content) {
    const id = `toolu_${++ids}`;
    const input = { file_path: file, content };
    const pre = await hook(claude('PreToolUse', 'Write', input, id));
    if (decisionOf(pre) !== 'allow') return { allowed: false, pre };
    writeFileSync(file, content);
    await hook({ ...claude('PostToolUse', 'Write', input, id), tool_response: { type: 'update', filePath: file } });
    return { allowed: true, pre };
}
// The operation id of the newest quiet write of file (or another tool's call naming it), from the
// audit export.
function operationOf(file, tool = 'agent:write') {
    const rows = JSON.parse(cli(['audit', 'export', '--format', 'json']).stdout);
    const mine = rows.filter((r) => r.tool === tool && JSON.stringify(r).includes(file));
    assert.ok(mine.length > 0, `no audit row for ${file}`);
    return mine[mine.length - 1].id;
}

try {
    await check('a quiet Write over a committed file is reverted by countersign undo --yes, bytes exact, and recorded', async () => {
        const file = path.join(ws, 'README.md');
        const before = readFileSync(file);
        const w = await agentWrite(file, '# Project\n\nRewritten by the agent.\n');
        assert.ok(w.allowed, JSON.stringify(w.pre));
        assert.deepEqual(await decide('list'), [], 'it ran with no card');
        const id = operationOf(file);
        // Its audit row names the file it wrote, though no card was made.
        const row = JSON.parse(cli(['audit', 'export', '--format', 'json']).stdout).find((r) => r.id === id);
        assert.ok(JSON.stringify(row.targets).includes(file), JSON.stringify(row));
        const undo = cli(['undo', id, '--yes']);
        assert.equal(undo.status, 0, undo.stderr);
        assert.match(undo.stdout, /-Rewritten by the agent\.\n\+Committed text\./);
        assert.match(undo.stdout, /Reverted 1 file/);
        assert.deepEqual(readFileSync(file), before);
        const again = cli(['undo', id, '--yes']);
        assert.equal(again.status, 1);
        assert.match(again.stderr, /reverted already/);
        const verify = cli(['audit', 'verify']);
        assert.equal(verify.status, 0, verify.stdout + verify.stderr);
        assert.match(verify.stdout, /intact/);
    });

    await check('a Write that created a file is undone by deleting it', async () => {
        const file = path.join(ws, 'src', 'new.ts');
        mkdirSync(path.dirname(file), { recursive: true });
        const w = await agentWrite(file, 'export const x = 1;\n');
        assert.ok(w.allowed, JSON.stringify(w.pre));
        const undo = cli(['undo', operationOf(file), '--yes']);
        assert.equal(undo.status, 0, undo.stderr);
        assert.equal(existsSync(file), false);
    });

    await check('a revert after the file changed again is refused, and the later work stays', async () => {
        const file = path.join(ws, 'notes.md');
        const w = await agentWrite(file, 'the agent rewrote the notes\n');
        assert.ok(w.allowed, JSON.stringify(w.pre));
        writeFileSync(file, 'the human wrote more since\n');
        const undo = cli(['undo', operationOf(file), '--yes']);
        assert.equal(undo.status, 1);
        assert.match(undo.stderr, /changed since the agent's change/);
        assert.equal(readFileSync(file, 'utf8'), 'the human wrote more since\n');
    });

    await check('asked without --yes and answered "n", nothing is reverted', async () => {
        const file = path.join(ws, 'answer.md');
        writeFileSync(file, 'v1\n');
        const w = await agentWrite(file, 'v2\n');
        assert.ok(w.allowed, JSON.stringify(w.pre));
        const undo = cli(['undo', operationOf(file)], 'n\n');
        assert.equal(undo.status, 2);
        assert.match(undo.stdout, /Nothing was reverted/);
        assert.equal(readFileSync(file, 'utf8'), 'v2\n');
    });

    await check('the file swapped for a link to a file outside the roots: the revert is refused, the outside file untouched', async () => {
        const file = path.join(ws, 'swap.md');
        writeFileSync(file, 'original\n');
        const w = await agentWrite(file, 'changed\n');
        assert.ok(w.allowed, JSON.stringify(w.pre));
        rmSync(file);
        symlinkSync(outside, file);
        const undo = cli(['undo', operationOf(file), '--yes']);
        assert.equal(undo.status, 1);
        assert.equal(readFileSync(outside, 'utf8'), 'outside the roots\n');
    });

    await check('a Write through a link, or over a file too large to keep, asks instead of running with no undo', async () => {
        const link = path.join(ws, 'link.md');
        writeFileSync(path.join(ws, 'real.md'), 'real\n');
        symlinkSync(path.join(ws, 'real.md'), link);
        const big = path.join(ws, 'big.bin');
        writeFileSync(big, '');
        truncateSync(big, 17 * 1024 * 1024);
        const throughLink = await agentWrite(link, 'x\n');
        assert.equal(throughLink.allowed, false, JSON.stringify(throughLink.pre));
        const cards = await decide('list');
        assert.equal(cards.length, 1, JSON.stringify(cards));
        assert.deepEqual(cards[0].targets, [link]);
        await clearCards();
        // Too large to keep, and to show as a diff: refused outright, never run unkept.
        const tooLarge = await agentWrite(big, 'x\n');
        assert.equal(tooLarge.allowed, false, JSON.stringify(tooLarge.pre));
        assert.match(tooLarge.pre.hookSpecificOutput.permissionDecisionReason, /larger than/);
        assert.equal(readFileSync(path.join(ws, 'real.md'), 'utf8'), 'real\n');
    });

    // The client's Bash tool, between its hooks: a card, approved in the console, then run.
    async function approvedBash(command) {
        const id = `toolu_${++ids}`;
        const input = { command, description: 'clean up' };
        const held = hook(claude('PreToolUse', 'Bash', input, id));
        const card = await waitFor('a card', async () => (await decide('list'))[0]);
        await decide('approve', '--nonce', card.nonce);
        let pre = await held;
        if (decisionOf(pre) !== 'allow') // held past hookHoldSeconds: the same call takes the approval
            pre = await hook(claude('PreToolUse', 'Bash', input, id));
        assert.equal(decisionOf(pre), 'allow', JSON.stringify(pre));
        execFileSync('sh', ['-c', command], { cwd: ws });
        await hook({ ...claude('PostToolUse', 'Bash', input, id), tool_response: { stdout: '', stderr: '', interrupted: false } });
        return card;
    }

    await check('an approved rm -rf keeps what it deletes, says so on its card, and countersign undo brings the folder back', async () => {
        const scratch = path.join(ws, 'scratch');
        mkdirSync(path.join(scratch, 'deep'), { recursive: true });
        const bytes = Buffer.from([0, 1, 2, 255, 10, 13, 0]);
        writeFileSync(path.join(scratch, 'notes.txt'), 'the agent\'s notes\n');
        writeFileSync(path.join(scratch, 'deep', 'data.bin'), bytes);
        const card = await approvedBash('rm -rf scratch');
        assert.match(card.summary, /Deletes .*scratch: 2 files in 2 folders/);
        assert.match(card.summary, /Countersign keeps a copy of the 2 files it deletes or overwrites \(\d+ bytes\) before it runs/);
        assert.equal(existsSync(scratch), false, 'the rm ran');
        const undo = cli(['undo', operationOf('rm -rf scratch', 'agent:shell'), '--yes']);
        assert.equal(undo.status, 0, undo.stderr);
        assert.match(undo.stdout, /Reverted 2 files/);
        assert.equal(readFileSync(path.join(scratch, 'notes.txt'), 'utf8'), 'the agent\'s notes\n');
        assert.deepEqual(readFileSync(path.join(scratch, 'deep', 'data.bin')), bytes);
    });

    await check('an approved git reset --hard keeps the work it discards: countersign undo brings it back', async () => {
        const file = path.join(ws, 'README.md');
        writeFileSync(file, '# Project\n\nAn hour of uncommitted work.\n');
        const card = await approvedBash('git reset --hard');
        assert.match(card.summary, /Discards the uncommitted changes in 1 file/);
        assert.match(card.summary, /keeps a copy of the file it deletes or overwrites/);
        assert.match(card.diff, /\+An hour of uncommitted work\./);
        assert.equal(readFileSync(file, 'utf8'), '# Project\n\nCommitted text.\n', 'the reset ran');
        const undo = cli(['undo', operationOf('git reset --hard', 'agent:shell'), '--yes']);
        assert.equal(undo.status, 0, undo.stderr);
        assert.equal(readFileSync(file, 'utf8'), '# Project\n\nAn hour of uncommitted work.\n');
        git('checkout', '--', 'README.md');
    });

    await check('the work changed between the card and the approval: the approved card does not run, a new card shows the new diff', async () => {
        const file = path.join(ws, 'README.md');
        writeFileSync(file, '# Project\n\nFirst edit.\n');
        const id = `toolu_${++ids}`;
        const input = { command: 'git reset --hard', description: 'clean up' };
        const held = hook(claude('PreToolUse', 'Bash', input, id));
        const card = await waitFor('a card', async () => (await decide('list'))[0]);
        assert.match(card.diff, /\+First edit\./);
        writeFileSync(file, '# Project\n\nFirst edit.\nA second one, after the card was made.\n');
        await decide('approve', '--nonce', card.nonce);
        const pre = await held;
        assert.notEqual(decisionOf(pre), 'allow', JSON.stringify(pre));
        assert.equal(readFileSync(file, 'utf8'), '# Project\n\nFirst edit.\nA second one, after the card was made.\n');
        const next = (await decide('list'))[0];
        assert.ok(next && next.nonce !== card.nonce, 'a new card');
        assert.match(next.diff, /\+A second one, after the card was made\./);
        await clearCards();
        git('checkout', '--', 'README.md');
    });

    await check('an rm of a folder holding a link, or of a file outside the roots, says on its card that it cannot be undone', async () => {
        const linked = path.join(ws, 'linked');
        mkdirSync(linked);
        symlinkSync(outside, path.join(linked, 'to-outside'));
        const pre = hook(claude('PreToolUse', 'Bash', { command: 'rm -rf linked' }, `toolu_${++ids}`));
        let card;
        for (let i = 0; i < 100 && !card; ++i) card = (await decide('list'))[0];
        assert.match(card.summary, /It cannot be undone: no copy is kept, as .*to-outside is not a regular file/);
        await clearCards();
        await pre;
        const far = hook(claude('PreToolUse', 'Bash', { command: `rm ${outside}` }, `toolu_${++ids}`));
        card = undefined;
        for (let i = 0; i < 100 && !card; ++i) card = (await decide('list'))[0];
        assert.match(card.summary, /It cannot be undone: no copy is kept, as .*outside\.txt is outside the workspace roots/);
        await clearCards();
        await far;
        assert.equal(readFileSync(outside, 'utf8'), 'outside the roots\n');
        // A folder inside the roots reached through a link: the copy could not be read as kept.
        mkdirSync(path.join(ws, 'real-dir'));
        writeFileSync(path.join(ws, 'real-dir', 'precious.txt'), 'precious\n');
        symlinkSync(path.join(ws, 'real-dir'), path.join(ws, 'alias'));
        const aliased = hook(claude('PreToolUse', 'Bash', { command: 'rm -rf alias/precious.txt' }, `toolu_${++ids}`));
        card = undefined;
        for (let i = 0; i < 100 && !card; ++i) card = (await decide('list'))[0];
        assert.match(card.summary, /It cannot be undone: no copy is kept, as .*alias\/precious\.txt is reached through a link/);
        await clearCards();
        await aliased;
    });

    // Countersign's own tools, over MCP: an approved change keeps what it overwrites or deletes.
    async function approvedMcp(tool, args) {
        const first = await callTool(server, tool, args);
        const requestState = first.result?.requestState;
        assert.ok(requestState, JSON.stringify(first));
        const card = (await decide('list'))[0];
        assert.ok(card, 'a card');
        await decide('approve', '--nonce', card.nonce);
        const ran = await callTool(server, tool, args, { requestState }, 2);
        assert.ok(ran.result && !ran.result.isError, JSON.stringify(ran));
        return card;
    }

    await check("Countersign's own write_file and delete_path keep what an approved change overwrites or deletes: countersign undo brings it back", async () => {
        const file = path.join(ws, 'README.md');
        const before = readFileSync(file);
        const written = await approvedMcp('write_file', { path: 'README.md', content: 'overwritten over MCP\n' });
        assert.match(written.summary, /Countersign keeps a copy of the file it deletes or overwrites/);
        assert.equal(readFileSync(file, 'utf8'), 'overwritten over MCP\n');
        const undo = cli(['undo', written.nonce, '--yes']);
        assert.equal(undo.status, 0, undo.stderr);
        assert.match(undo.stdout, /-overwritten over MCP/);
        assert.deepEqual(readFileSync(file), before);

        mkdirSync(path.join(ws, 'gen', 'deep'), { recursive: true });
        writeFileSync(path.join(ws, 'gen', 'a.txt'), 'generated once\n');
        writeFileSync(path.join(ws, 'gen', 'deep', 'b.txt'), 'and again\n');
        const deleted = await approvedMcp('delete_path', { path: 'gen', recursive: true });
        assert.match(deleted.summary, /keeps a copy of the 2 files/);
        assert.equal(existsSync(path.join(ws, 'gen')), false, 'the delete ran');
        const back = cli(['undo', deleted.nonce, '--yes']);
        assert.equal(back.status, 0, back.stderr);
        assert.equal(readFileSync(path.join(ws, 'gen', 'deep', 'b.txt'), 'utf8'), 'and again\n');
        rmSync(path.join(ws, 'gen'), { recursive: true });

        // A file name that is terminal control: countersign undo prints it as marks, never raw.
        const hostile = 'esc\x1b[2K\rReverted 0 files.txt';
        const esc = await approvedMcp('write_file', { path: hostile, content: 'x\n' });
        const out = cli(['undo', esc.nonce, '--yes']);
        assert.equal(out.status, 0, out.stderr);
        assert.ok(!out.stdout.includes('\x1b') && !out.stderr.includes('\x1b'), JSON.stringify(out.stdout));
        assert.equal(existsSync(path.join(ws, hostile)), false, 'the created file was deleted by the undo');
        const verify = cli(['audit', 'verify']);
        assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    });

    await check('an operation that kept nothing, or a malformed id, is refused', async () => {
        const bad = cli(['undo', '../../etc/passwd', '--yes']);
        assert.equal(bad.status, 1);
        assert.match(bad.stderr, /not an operation id/);
        const none = cli(['undo', 'f'.repeat(32), '--yes']);
        assert.equal(none.status, 1);
        assert.match(none.stderr, /kept nothing to undo/);
    });
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
