#!/usr/bin/env node
// The net under the workspace (issue 48), through the real console's HTTP hook (Claude Code's Bash
// payloads) and the real `countersign undo`, in standard mode, a real git workspace: an agent's
// quiet shell commands, whose writes the reader of the line does not follow, are each taken back
// byte for byte (contents and permissions): sed -i, echo > over a dirty file, cp over a committed
// file, mv, tar -cf over a dirty file, a python3 script that rewrites three files, and make
// generating files (removed again); a rule lets every shell command of the connection run.
// The audit row names what each changed; a file changed again since is refused, and the human's
// work stays. A store too small for the agent's quiet writes drops no recent copy: the calls ask,
// saying the store is full. The test runs each command between the pre- and post-tool hooks, as
// the client does.
//   node net.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { check, exitWithSummary } from '../peer/checks.mjs';
import { startCountersign } from '../peer/countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: net.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'countersign-net-'));
const home = path.join(work, 'home');
const ws = path.join(work, 'ws');
mkdirSync(home);
mkdirSync(ws);
const git = (...args) => execFileSync('git', ['-C', ws, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
git('init', '-q', '-b', 'main');
git('config', 'user.email', 't@example.invalid');
git('config', 'user.name', 'Test');
writeFileSync(path.join(ws, 'README.md'), '# Project\n\nCommitted text.\n');
writeFileSync(path.join(ws, 'config.ini'), '[app]\nname = demo\n');
mkdirSync(path.join(ws, 'src'));
for (const n of ['c', 'd', 'e']) writeFileSync(path.join(ws, 'src', `${n}.py`), `print('${n}')\n`);
writeFileSync(path.join(ws, 'Makefile'), 'gen:\n\t@mkdir -p gen && echo generated > gen/out.txt && echo generated > made.txt\n');
git('add', '-A');
git('commit', '-q', '-m', 'init');

// Every shell command of this connection runs with no card (a rule allows them all, as a user who
// trusts the agent's shell might write): the net holds for whatever runs without a card, whether
// the reader judged it harmless or a rule let it by.
const server = await startCountersign(binary, {
    config: { workspaceRoots: [ws], hookHoldSeconds: 3, mode: 'standard', rules: [{ tool: 'agent:shell', decision: 'allow' }] },
    tokenName: 'net-hooks', env: { HOME: home },
});
const base = server.url.replace(/\/mcp$/, '');
const decide = (verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
const cli = (args) => spawnSync(binary, [...args, '--data-dir', server.dataDir, '--config', server.configPath], { input: '', encoding: 'utf8', env: { ...process.env, HOME: home } });

let ids = 0;
let session = 'session-net';
const claude = (event, input, id, tool = 'Bash') => ({
    session_id: session, transcript_path: '/tmp/transcript.jsonl', cwd: ws, permission_mode: 'default',
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
// Claude Code's Bash between its hooks: asked; when allowed, run and reported.
async function agentBash(command) {
    const id = `toolu_${++ids}`;
    const input = { command, description: 'work' };
    const pre = await hook(claude('PreToolUse', input, id));
    if (pre.hookSpecificOutput?.permissionDecision !== 'allow') return { allowed: false, reason: pre.hookSpecificOutput?.permissionDecisionReason };
    const out = spawnSync('bash', ['-c', command], { cwd: ws, encoding: 'utf8', env: { ...process.env, HOME: home } });
    await hook({ ...claude('PostToolUse', input, id), tool_response: { stdout: out.stdout, stderr: out.stderr, interrupted: false } });
    return { allowed: true, status: out.status };
}
// Every file of the workspace (not .git), with its bytes and mode.
function snapshot() {
    const files = {};
    const walk = (dir) => {
        for (const name of readdirSync(dir)) {
            if (name === '.git') continue;
            const p = path.join(dir, name);
            const st = statSync(p);
            if (st.isDirectory()) walk(p);
            else files[path.relative(ws, p)] = { bytes: readFileSync(p).toString('base64'), mode: st.mode & 0o777 };
        }
    };
    walk(ws);
    return files;
}
const sqlite = (statement) => JSON.parse(execFileSync('sqlite3', ['-json', '-cmd', '.timeout 5000',
    path.join(server.dataDir, 'countersign.db'), statement]).toString() || '[]');
const lastShellRow = () => {
    const rows = JSON.parse(cli(['audit', 'export', '--format', 'json']).stdout).filter((r) => r.tool === 'agent:shell');
    return rows[rows.length - 1];
};

try {
    // An hour of uncommitted work and an untracked note, before any of the agent's commands.
    writeFileSync(path.join(ws, 'README.md'), '# Project\n\nCommitted text.\nAn hour of uncommitted work.\n');
    writeFileSync(path.join(ws, 'notes.md'), 'untracked notes\n');
    const cases = [
        ['sed -i', "sed -i 's/Committed/Rewritten/' README.md", ['README.md']],
        ['echo > over a dirty file', 'echo gone > README.md', ['README.md']],
        ['cp over a committed file', 'cp notes.md config.ini', ['config.ini']],
        ['mv of an untracked file', 'mv notes.md elsewhere.md', ['notes.md', 'elsewhere.md']],
        ['tar -cf over a dirty file', 'tar -cf README.md config.ini', ['README.md']],
        ['a python3 script that rewrites three files',
            "python3 -c \"import pathlib\nfor n in 'cde': pathlib.Path(f'src/{n}.py').write_text('print(0)\\n')\"",
            ['src/c.py', 'src/d.py', 'src/e.py']],
        ['make that generates files', 'make -s gen', ['gen/out.txt', 'made.txt']],
    ];
    for (const [name, command, changed] of cases) {
        await check(`${name}: runs with no card, its audit row names what it changed, and countersign undo takes it back byte for byte`, async () => {
            const before = snapshot();
            const ran = await agentBash(command);
            assert.ok(ran.allowed, `it asked: ${ran.reason}`);
            assert.equal(ran.status, 0);
            assert.deepEqual(await decide('list'), [], 'no card');
            assert.notDeepEqual(snapshot(), before, 'the command changed nothing');
            const row = lastShellRow();
            // The chain's record of its run names each file it changed.
            const [ran_] = sqlite(`SELECT detail FROM audit_log WHERE event = 'agent-tool-ran' ORDER BY seq DESC LIMIT 1`);
            assert.deepEqual(JSON.parse(ran_.detail).changed.map((p) => path.relative(ws, p)).sort(), [...changed].sort());
            const undo = cli(['undo', row.id, '--yes']);
            assert.equal(undo.status, 0, undo.stderr + undo.stdout);
            assert.match(undo.stdout, new RegExp(`Reverted ${changed.length} file`));
            assert.deepEqual(snapshot(), before, 'not back byte for byte');
        });
    }

    await check('a file changed again since the quiet command: the undo is refused, and the human\'s work stays', async () => {
        const ran = await agentBash("sed -i 's/demo/agent/' config.ini");
        assert.ok(ran.allowed);
        const row = lastShellRow();
        writeFileSync(path.join(ws, 'config.ini'), '[app]\nname = the human fixed it by hand\n');
        const undo = cli(['undo', row.id, '--yes']);
        assert.equal(undo.status, 1);
        assert.match(undo.stderr, /changed since/);
        assert.equal(readFileSync(path.join(ws, 'config.ini'), 'utf8'), '[app]\nname = the human fixed it by hand\n');
    });

    await check('a read-only command keeps nothing and names nothing', async () => {
        const ran = await agentBash('git status --short && ls src');
        assert.ok(ran.allowed);
        const undo = cli(['undo', lastShellRow().id, '--yes']);
        assert.equal(undo.status, 1);
        assert.match(undo.stderr, /kept nothing to undo/);
    });

    await check('a whole turn (quiet edits, sed -i, a generated file, a script that rewrites two files) is taken back as one by countersign undo --session, byte for byte; a file edited by hand since is refused', async () => {
        const turn = async () => {
            // Claude Code's Write, between its hooks (its own undo keeps the file), then its Bash.
            const id = `toolu_${++ids}`;
            const input = { file_path: path.join(ws, 'README.md'), content: '# Rewritten by the agent\n' };
            const pre = await hook(claude('PreToolUse', input, id, 'Write'));
            assert.equal(pre.hookSpecificOutput?.permissionDecision, 'allow', JSON.stringify(pre));
            writeFileSync(input.file_path, input.content);
            await hook({ ...claude('PostToolUse', input, id, 'Write'), tool_response: { type: 'update', filePath: input.file_path } });
            for (const command of ["sed -i 's/demo/turn/' config.ini", 'make -s -B gen',
                "python3 -c \"import pathlib\nfor n in 'cd': pathlib.Path(f'src/{n}.py').write_text('print(1)\\n')\"",
                "sed -i 's/turn/turned again/' config.ini"]) {
                const ran = await agentBash(command);
                assert.ok(ran.allowed, `${command}: ${ran.reason}`);
            }
        };
        session = 'session-turn-1';
        writeFileSync(path.join(ws, 'config.ini'), '[app]\nname = demo\n');
        const before = snapshot();
        await turn();
        assert.notDeepEqual(snapshot(), before);
        const undo = cli(['undo', '--session', 'session-turn-1', '--yes']);
        assert.equal(undo.status, 0, undo.stderr + undo.stdout);
        assert.match(undo.stdout, /The turn: 5 calls/);
        assert.deepEqual(snapshot(), before, 'the turn was not taken back byte for byte');
        // What the revert overwrote was kept first (a revert loses nothing either).
        const [reverted] = sqlite("SELECT detail FROM audit_log WHERE event = 'agent-tool-reverted' ORDER BY seq DESC LIMIT 1");
        const replaced = JSON.parse(reverted.detail).replaced;
        assert.ok(replaced.some((r) => r.path.endsWith('config.ini')), JSON.stringify(replaced));
        for (const r of replaced) assert.ok(existsSync(path.join(server.dataDir, 'snapshots', r.sha256.slice(0, 2), r.sha256)), r.path);
        // Again, and the human edits one of the files by hand afterwards: refused, nothing changes.
        session = 'session-turn-2';
        await turn();
        writeFileSync(path.join(ws, 'src', 'c.py'), 'print("the human")\n');
        const after = snapshot();
        const refused = cli(['undo', '--session', 'session-turn-2', '--yes']);
        assert.equal(refused.status, 1);
        assert.match(refused.stderr, /c\.py changed since/);
        assert.deepEqual(snapshot(), after, 'a refused turn undo changed something');
        // The same turn through one of its operations (--turn), once the hand edit is put back.
        writeFileSync(path.join(ws, 'src', 'c.py'), 'print(1)\n');
        const byOp = cli(['undo', lastShellRow().id, '--turn', '--yes']);
        assert.equal(byOp.status, 0, byOp.stderr);
        assert.deepEqual(snapshot(), before);
        session = 'session-net';
    });

    await check('the undo store keeps its promise: quiet writes of random blobs never push out a recent copy; the call asks instead, saying the store is full', async () => {
        // A store of 1 MiB (undoMegabytes), whose copies younger than a day are kept.
        const small = await startCountersign(binary, {
            config: { workspaceRoots: [ws], hookHoldSeconds: 2, mode: 'standard', undoMegabytes: 1, rules: [{ tool: 'agent:shell', decision: 'allow' }] },
            tokenName: 'net-small', env: { HOME: home },
        });
        try {
            const smallHook = async (payload) => {
                const res = await fetch(`${small.url.replace(/\/mcp$/, '')}/hooks/claude-code`, {
                    method: 'POST', body: JSON.stringify(payload),
                    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${small.token}` },
                });
                return res.json();
            };
            const bash = async (command) => {
                const id = `toolu_small_${++ids}`;
                const input = { command, description: 'work' };
                const pre = await smallHook(claude('PreToolUse', input, id));
                if (pre.hookSpecificOutput?.permissionDecision !== 'allow') return { allowed: false, reason: pre.hookSpecificOutput?.permissionDecisionReason ?? JSON.stringify(pre) };
                spawnSync('bash', ['-c', command], { cwd: ws, env: { ...process.env, HOME: home } });
                await smallHook({ ...claude('PostToolUse', input, id), tool_response: { stdout: '', stderr: '', interrupted: false } });
                return { allowed: true };
            };
            const before = readFileSync(path.join(ws, 'config.ini'));
            const first = await bash("sed -i 's/demo/first/' config.ini");
            assert.ok(first.allowed);
            const rows = JSON.parse(spawnSync(binary, ['audit', 'export', '--format', 'json', '--data-dir', small.dataDir, '--config', small.configPath], { encoding: 'utf8' }).stdout);
            const firstId = rows.filter((r) => r.tool === 'agent:shell').pop().id;
            // The agent fills the store: each quiet call rewrites a 200 KiB file of random bytes.
            let asked = null;
            for (let i = 0; i < 20 && !asked; ++i) {
                const r = await bash('head -c 204800 /dev/urandom > blob.bin');
                if (!r.allowed) asked = r.reason;
            }
            assert.ok(asked, 'twenty quiet calls of random blobs never asked');
            // Its card says why.
            const [{ rule }] = JSON.parse(execFileSync('sqlite3', ['-json', '-cmd', '.timeout 5000', path.join(small.dataDir, 'countersign.db'),
                "SELECT rule FROM operations WHERE status = 'pending' ORDER BY created_ms DESC LIMIT 1"]).toString());
            assert.match(rule, /undo store is full/);
            // The first change's copy is still there: its undo works.
            const undo = spawnSync(binary, ['undo', firstId, '--yes', '--data-dir', small.dataDir, '--config', small.configPath], { encoding: 'utf8', env: { ...process.env, HOME: home } });
            assert.equal(undo.status, 0, undo.stderr);
            assert.deepEqual(readFileSync(path.join(ws, 'config.ini')), before);
        } finally {
            await small.stop();
            rmSync(path.join(ws, 'blob.bin'), { force: true });
        }
    });
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
