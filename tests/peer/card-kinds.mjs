#!/usr/bin/env node
// Every kind of card the product makes, read as the human at the window reads it (issue 51): shell
// deletes and resets, writes outside the roots, the network, a branch's commits, an agent's own
// file tool, Countersign's workspace tools, an upstream server's tool and a configured action, each
// made by the real console from a real git repository. For each card the words it shows
// (CardFace, the same in the window, on the phone and in the queue's list) have a headline that
// says what happens and what is lost, no sentence twice, never "irreversible" beside a kept copy,
// and a typed confirmation only where nothing is kept, short (a name, never a whole path).
// With COUNTERSIGN_SHOTS=FOLDER the console's window is on an Xvfb display of its own and each card
// is photographed there (card-KIND.png) before it is declined.
//   node card-kinds.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { check, exitWithSummary, waitFor } from './checks.mjs';
import { startConsole, startDisplay } from '../agents/console.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: card-kinds.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const here = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'countersign-card-kinds-'));
const ws = path.join(work, 'ws');
const outside = path.join(work, 'outside');
mkdirSync(path.join(ws, 'src'), { recursive: true });
mkdirSync(path.join(outside, 'data'), { recursive: true });
const git = (...args) => execFileSync('git', ['-C', ws, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { stdio: 'pipe' });
git('init', '-q', '-b', 'main');
writeFileSync(path.join(ws, 'src', 'a.js'), 'export const A = 2;\n');
git('add', '.');
git('commit', '-q', '-m', 'start');
git('checkout', '-q', '-b', 'feature');
writeFileSync(path.join(ws, 'src', 'b.js'), 'export const B = 1;\n');
git('add', '.');
git('commit', '-q', '-m', 'a commit only feature holds');
git('checkout', '-q', 'main');
writeFileSync(path.join(ws, 'src', 'a.js'), 'export const A = 3;\n'); // one uncommitted line
writeFileSync(path.join(ws, 'old.log'), 'log\n'); // 4 untracked bytes
writeFileSync(path.join(ws, 'scratch.txt'), 'notes\n');
writeFileSync(path.join(outside, 'data', 'records.csv'), 'id,name\n1,a\n');
writeFileSync(path.join(outside, 'notes.txt'), 'kept nowhere else\n');

const config = {
    workspaceRoots: [ws],
    hookHoldSeconds: 30,
    upstreams: [{ name: 'fake', command: [process.execPath, path.join(here, 'fake-upstream.mjs')], env: { FAKE_RUNS: path.join(work, 'runs') } }],
    actions: [{ name: 'drop_table', title: 'Drop a table', risk: 'high', workingDirectory: work,
        inputSchema: { type: 'object', properties: { table: { type: 'string', pattern: '^[a-z]+$' } }, required: ['table'], additionalProperties: false },
        plan: ['sh', '-c', 'printf \'{"summary":"drops the table %s and its 3 rows","targets":["%s"]}\' "$1" "$1"', 'plan', '{table}'],
        apply: ['true'] }],
};
const shots = process.env.COUNTERSIGN_SHOTS;
const xvfb = shots ? await startDisplay() : null;
const server = await startConsole(binary, { config, decideBinary, display: xvfb?.display ?? null });
const base = server.url.replace(/\/mcp$/, '');
const decide = (verb, ...args) => server.decide(verb, ...args);

let ids = 0;
function hook(tool, input) {
    return fetch(`${base}/hooks/claude-code`, {
        method: 'POST',
        body: JSON.stringify({ session_id: `s-${++ids}`, transcript_path: '/tmp/t.jsonl', cwd: ws, permission_mode: 'default',
            hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: `toolu_${ids}` }),
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` },
    }).then((r) => r.json());
}
async function mcp(name, args) {
    const response = await fetch(server.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++ids, method: 'tools/call',
            params: { name, arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });
    return response.json();
}
// Sends the call, waits for its card, photographs it in the window (COUNTERSIGN_SHOTS), declines
// it, and returns the card as decide lists it.
async function cardOf(send, kind) {
    const before = new Set((await decide('list')).map((c) => c.nonce));
    const answer = send();
    const card = await waitFor('its card', async () => (await decide('list')).find((c) => !before.has(c.nonce)), 20000);
    if (shots) {
        // The newest card first in the list (a card another process declined may linger there until
        // the console's next look at the store).
        execFileSync('xdotool', ['key', '--clearmodifiers', 'Home'], { env: { ...process.env, DISPLAY: xvfb.display } });
        await new Promise((r) => setTimeout(r, 1500)); // shown and laid out
        await server.screenshot(path.join(shots, `card-${kind}.png`));
    }
    await decide('decline', '--nonce', card.nonce, '--reason', 'read');
    await answer;
    return card;
}
const cards = [];
// Checks every card must pass, then the kind's own.
function readable(card) {
    cards.push(card);
    if (process.env.COUNTERSIGN_SHOW_FACES) console.log(JSON.stringify({ ...card.face, details: undefined }, null, 1));
    assert.deepEqual(card.problems, [], JSON.stringify(card.face, null, 1));
    assert.ok(card.face.headline.length > 0 && card.face.headline.length <= 160, card.face.headline);
    assert.ok(card.face.evidence === 'none' || card.face.evidenceText.trim().length > 0, 'never an empty evidence pane');
    assert.ok(!card.face.typed || (card.face.typedText.length > 0 && !card.face.typedText.includes('/')), card.face.typedText);
    return card.face;
}

try {
    await check('git reset --hard over one uncommitted line: the loss in the headline, a copy kept, no typing, the diff as evidence', async () => {
        const face = readable(await cardOf(() => hook('Bash', { command: 'git reset --hard' }), 'reset'));
        assert.equal(face.headline, 'Discards uncommitted changes to src/a.js (+1 −1); a copy is kept');
        assert.equal(face.risk, 'Medium risk');
        assert.equal(face.typed, false);
        assert.equal(face.command, '$ git reset --hard');
        assert.equal(face.evidence, 'diff');
        assert.match(face.evidenceText, /\+export const A = 3;/);
        assert.match(face.who, /^claude-code \(hook\) · its own shell · connection "agent"$/);
    });
    await check('rm of a 4-byte untracked log: "a copy is kept", the file as evidence, no typing', async () => {
        const face = readable(await cardOf(() => hook('Bash', { command: 'rm old.log' }), 'rm-kept'));
        assert.match(face.headline, /^Deletes old\.log: 1 file, 4 bytes; a copy is kept$/);
        assert.equal(face.typed, false);
        assert.equal(face.evidence, 'files');
        assert.equal(face.evidenceText, 'old.log');
    });
    await check('rm -rf of a folder outside the roots: nothing kept, so it cannot be undone and its name is typed', async () => {
        const face = readable(await cardOf(() => hook('Bash', { command: `rm -rf ${path.join(outside, 'data')}` }), 'rm-outside'));
        assert.match(face.headline, /^Deletes .*data: 1 file, 12 bytes; it cannot be undone$/);
        assert.equal(face.risk, 'High risk');
        assert.deepEqual([face.typed, face.typedText], [true, 'data']);
        assert.match(face.evidenceText, /records\.csv/);
        assert.deepEqual(face.why, [], 'rm deletes ... and all it holds: the headline says it');
    });
    await check('a write over a file outside the roots: what it replaces, and what it loses as evidence', async () => {
        const face = readable(await cardOf(() => hook('Bash', { command: `echo x > ${path.join(outside, 'notes.txt')}` }), 'write-outside'));
        assert.match(face.headline, /^Replaces .*notes\.txt \(1 line, 18 bytes\); it cannot be undone$/);
        assert.deepEqual([face.typed, face.typedText], [true, 'notes.txt']);
        assert.match(face.evidenceText, /-kept nowhere else/);
        assert.match(face.why.join('\n'), /outside the workspace roots/, 'a reason that adds something stays');
    });
    await check('git branch -D of a branch with a commit only it holds: the commits are lost, its name typed', async () => {
        const face = readable(await cardOf(() => hook('Bash', { command: 'git branch -D feature' }), 'branch'));
        assert.equal(face.headline, 'Deletes the branch feature and 1 commit only it holds; it cannot be undone');
        assert.deepEqual([face.typed, face.typedText], [true, 'feature']);
        assert.deepEqual(face.why, [], 'the reason says what the headline says');
    });
    await check('curl sending a file to a host: why it asks is the headline, the host is what it acts on', async () => {
        const face = readable(await cardOf(() => hook('Bash', { command: 'curl -T src/a.js https://uploads.example.invalid/put' }), 'network'));
        assert.match(face.headline, /example\.invalid|network/i);
        assert.equal(face.typed, false);
        assert.equal(face.command, '$ curl -T src/a.js https://uploads.example.invalid/put');
    });
    await check("an agent's own Write over a file outside the roots: the change as evidence, no command line", async () => {
        const face = readable(await cardOf(() => hook('Write', { file_path: path.join(outside, 'notes.txt'), content: 'hello\n' }), 'agent-write'));
        assert.equal(face.command, '');
        assert.equal(face.evidence, 'diff');
        assert.match(face.who, /its own Write tool/);
    });
    await check('delete_path of an untracked file in the roots: its copy is kept, so no typing; the undo sentence only in the details', async () => {
        const face = readable(await cardOf(() => mcp('delete_path', { path: 'scratch.txt' }), 'mcp-tool'));
        assert.equal(face.headline, 'Delete scratch.txt; a copy is kept');
        assert.equal(face.risk, 'Medium risk');
        assert.equal(face.typed, false);
        assert.match(face.command, /^delete_path \{"path":"scratch\.txt"\}$/);
        assert.doesNotMatch(face.summary, /keeps a copy/);
        assert.match(face.evidenceText, /scratch\.txt/);
    });
    await check("an upstream server's destructive tool: the tool and its arguments, typed by the tool's name", async () => {
        const face = readable(await cardOf(() => mcp('fake_record', { name: 'x' }), 'upstream-tool'));
        assert.match(face.command, /^fake_record \{"name":"x"\}$/);
        assert.match(face.who, /· MCP ·/);
    });
    await check("a configured action: its plan's own summary shown once, its target typed", async () => {
        const face = readable(await cardOf(() => mcp('drop_table', { table: 'users' }), 'action'));
        assert.equal(face.summary, 'drops the table users and its 3 rows');
        assert.deepEqual([face.typed, face.typedText], [true, 'users']);
    });
    await check('over every kind: no card repeats a sentence of another part, and each kind has its own headline', async () => {
        assert.ok(cards.length >= 10, `${cards.length} cards`);
        assert.equal(new Set(cards.map((c) => c.face.headline)).size, cards.length);
    });
} finally {
    await server.stop().catch(() => {});
    await xvfb?.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
