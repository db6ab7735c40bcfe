#!/usr/bin/env node
// Realistic sessions of coding agents (tests/shell/sessions.json) replayed in order through Claude
// Code's hook (POST /hooks/claude-code) into the real console, each in a fresh git repository of its
// own (a small Python package, a Node project or a Java project, committed). An allowed Write or
// Edit is applied, and so is an allowed `cat > FILE <<'EOF'`, git add/commit and javac, so that
// what the agent wrote is there when it runs it; nothing else runs. Prints cards per 100 actions, per session and in all; every call the
// sessions name as a card must ask, and no other may (issue 49: a human shown a card every third
// action approves without reading). Then two defences the quiet rules lean on, each beside its
// control: the session's own scratch file, edited by hand since, asks to be deleted; an overwrite
// the net would keep asks while another quiet call is in flight (the net's record is shared).
//   node sessions.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { check, exitWithSummary } from '../peer/checks.mjs';
import { startCountersign } from '../peer/countersign-process.mjs';
import { commitProject } from './session-projects.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: sessions.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const here = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
const sessions = JSON.parse(readFileSync(path.join(here, 'sessions.json'), 'utf8')).sessions;
// A session writes a scratch file in the temporary folder: new there, it runs with no card. Each
// run (and each of the two tests that run the sessions) has a folder of its own, removed after.
const scratch = `/tmp/countersign-sessions-${process.pid}`;
mkdirSync(scratch);
for (const s of sessions)
    s.calls = s.calls.map((call) => call.map((part) => part.replaceAll('/tmp/countersign-sessions-scratch', scratch)));
// Beside the binary, not in the temporary folder (a new file there is scratch work).
const work = mkdtempSync(path.join(path.dirname(path.resolve(binary)), 'countersign-sessions-'));
const home = path.join(work, 'home');
mkdirSync(home, { recursive: true });

function repository(name, project) {
    return commitProject(path.join(work, name), project);
}

const roots = sessions.map((s, i) => repository(`s${i}`, s.project));
const server = await startCountersign(binary, {
    config: { workspaceRoots: roots, hookHoldSeconds: 1 },
    tokenName: 'sessions',
    // Each reading of a command line is logged (a debug category, off by default): counted below.
    env: { HOME: home, QT_LOGGING_RULES: 'countersign.shell.reads.debug=true' },
});
let reads = 0;
server.child.stderr.on('data', (chunk) => { reads += (chunk.toString().match(/reads a line of/g) ?? []).length; });
const base = server.url.replace(/\/mcp$/, '');
const decide = (verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
let ids = 0;
async function hook(session, ws, tool, input, event = 'PreToolUse', id = `toolu_${++ids}`) {
    const res = await fetch(`${base}/hooks/claude-code`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` },
        body: JSON.stringify({ session_id: session, transcript_path: '/tmp/t.jsonl', cwd: ws, permission_mode: 'default',
                               hook_event_name: event, tool_name: tool, tool_input: input, tool_use_id: id,
                               ...(event === 'PostToolUse' ? { tool_response: { stdout: '', stderr: '', interrupted: false } } : {}) }),
    });
    const text = await res.text();
    const body = text ? JSON.parse(text) : {};
    return { id, decision: body.hookSpecificOutput?.permissionDecision, reason: body.hookSpecificOutput?.permissionDecisionReason ?? '' };
}
// The tool input Claude Code sends, and what an allowed call leaves in the work tree.
function inputOf(ws, [tool, a, b, c]) {
    if (tool === 'Bash') return { command: a, description: 'work' };
    if (tool === 'Read') return { file_path: path.join(ws, a) };
    if (tool === 'Write') return { file_path: path.join(ws, a), content: b };
    if (tool === 'Edit') return { file_path: path.join(ws, a), old_string: b, new_string: c };
    throw new Error(`no such tool ${tool}`);
}
function apply(ws, [tool, a, b, c]) {
    if (tool === 'Write') { mkdirSync(path.dirname(path.join(ws, a)), { recursive: true }); writeFileSync(path.join(ws, a), b); }
    if (tool === 'Edit') { const f = path.join(ws, a); writeFileSync(f, readFileSync(f, 'utf8').replace(b, c)); }
    const here = tool === 'Bash' && a.match(/^cat (>>?) (\S+) <<'EOF'\n([\s\S]*)\nEOF$/);
    if (here) (here[1] === '>' ? writeFileSync : appendFileSync)(path.resolve(ws, here[2]), `${here[3]}\n`);
    // git's own bookkeeping runs too (what it commits is then committed; a commit with nothing to
    // commit, after a sed that was not run, changes nothing), and so does javac (what it compiles
    // is then there to run and to delete).
    if (tool === 'Bash' && /^(git (add|commit|checkout)|mkdir -p out && javac |javac )/.test(a))
        spawnSync('bash', ['-c', a], { cwd: ws, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' } });
}

try {
    await check('realistic sessions through the real hook: only the calls named as cards ask', async () => {
        let actions = 0, cards = 0;
        const wrong = [];
        for (const [i, s] of sessions.entries()) {
            let asked = 0;
            for (const call of s.calls) {
                const expected = call[call.length - 2] === 'card' ? call[call.length - 1] : null;
                const a = await hook(`session-${i}`, roots[i], call[0], inputOf(roots[i], call));
                const card = a.decision !== 'allow';
                if (card) asked += 1;
                if (card && !expected) wrong.push(`${s.name}: a card nobody needs: ${JSON.stringify(call[1]).slice(0, 90)} (${a.reason.split('\n').find((l) => l.includes('Why') || l.trim().startsWith('-')) ?? a.reason.split('\n')[0]})`);
                if (!card && expected) wrong.push(`${s.name}: ran with no card: ${JSON.stringify(call[1])} (${expected})`);
                if (!card) {
                    // It runs, then Claude Code reports it: the net names what it changed.
                    apply(roots[i], call);
                    await hook(`session-${i}`, roots[i], call[0], inputOf(roots[i], call), 'PostToolUse', a.id);
                }
                for (const c of await decide('list')) await decide('decline', '--nonce', c.nonce, '--reason', 'sessions');
            }
            actions += s.calls.length;
            cards += asked;
            console.log(`${s.name}: ${s.calls.length} actions, ${asked} cards (${(100 * asked / s.calls.length).toFixed(1)} per 100)`);
        }
        console.log(`all sessions: ${actions} actions, ${cards} cards, ${(100 * cards / actions).toFixed(1)} cards per 100 actions`);
        for (const w of wrong) console.log(`  ${w}`);
        assert.deepEqual(wrong, [], 'every card is one the sessions name, and each one they name asks');
    });
    // Two defences of the quiet rules the sessions lean on, each beside its own control.
    await check('the session\'s own scratch file, edited by hand since, asks to be deleted', async () => {
        const ws = roots[0];
        const made = async (name) => {
            const call = ['Bash', `cat > ${name} <<'EOF'\nprint(1)\nEOF`];
            const a = await hook('session-scratch', ws, 'Bash', inputOf(ws, call));
            assert.equal(a.decision, 'allow', a.reason);
            apply(ws, call);
            await hook('session-scratch', ws, 'Bash', inputOf(ws, call), 'PostToolUse', a.id);
        };
        await made('scratch_kept.py');
        await made('scratch_edited.py');
        appendFileSync(path.join(ws, 'scratch_edited.py'), 'print("the human\'s line")\n');
        const kept = await hook('session-scratch', ws, 'Bash', { command: 'rm scratch_kept.py', description: 'clean up' });
        assert.equal(kept.decision, 'allow', kept.reason);
        rmSync(path.join(ws, 'scratch_kept.py'));
        await hook('session-scratch', ws, 'Bash', { command: 'rm scratch_kept.py', description: 'clean up' }, 'PostToolUse', kept.id);
        const edited = await hook('session-scratch', ws, 'Bash', { command: 'rm scratch_edited.py', description: 'clean up' });
        assert.notEqual(edited.decision, 'allow', 'a file the session made, changed since by hand, is work');
        for (const c of await decide('list')) await decide('decline', '--nonce', c.nonce, '--reason', 'sessions');
    });
    await check('an overwrite of uncommitted work the net would keep asks while another quiet call is in flight', async () => {
        const ws = roots[0];
        writeFileSync(path.join(ws, 'draft.md'), 'an untracked draft\n');
        const overwrite = { command: 'echo replaced > draft.md', description: 'write' };
        const other = await hook('session-flight', ws, 'Bash', { command: 'sleep 1', description: 'wait' });
        assert.equal(other.decision, 'allow', other.reason);
        const during = await hook('session-flight', ws, 'Bash', overwrite);
        assert.notEqual(during.decision, 'allow', 'the net\'s record is shared with a call still running');
        for (const c of await decide('list')) await decide('decline', '--nonce', c.nonce, '--reason', 'sessions');
        await hook('session-flight', ws, 'Bash', { command: 'sleep 1', description: 'wait' }, 'PostToolUse', other.id);
        const after = await hook('session-flight', ws, 'Bash', overwrite);
        assert.equal(after.decision, 'allow', after.reason);
        await hook('session-flight', ws, 'Bash', overwrite, 'PostToolUse', after.id);
    });
    await check('a command that asks and is approved is read once when it asks and once when it runs, not at each step between', async () => {
        const ws = roots[0];
        writeFileSync(path.join(ws, 'draft-gone.md'), 'work that exists nowhere else\n');
        const command = { command: 'rm draft-gone.md', description: 'clean up' };
        reads = 0;
        const first = await hook('session-reads', ws, 'Bash', command);
        await new Promise((r) => setTimeout(r, 200));
        assert.notEqual(first.decision, 'allow', 'work that exists nowhere else asks');
        const whenAsked = reads;
        const cards = await decide('list');
        assert.equal(cards.length, 1);
        await decide('approve', '--nonce', cards[0].nonce);
        await new Promise((r) => setTimeout(r, 200));
        const whenApproved = reads - whenAsked;
        const retry = await hook('session-reads', ws, 'Bash', command, 'PreToolUse', first.id);
        await new Promise((r) => setTimeout(r, 200));
        assert.equal(retry.decision, 'allow', retry.reason);
        const whenRun = reads - whenAsked - whenApproved;
        console.log(`reads of the line: ${whenAsked} when it asked (policy, card, plan, blast radius), ${whenApproved} at the approval, ${whenRun} at the retry that runs it`);
        assert.deepEqual([whenAsked, whenApproved, whenRun], [1, 0, 1]);
        rmSync(path.join(ws, 'draft-gone.md'), { force: true });
        await hook('session-reads', ws, 'Bash', command, 'PostToolUse', retry.id);
    });
} finally {
    rmSync(scratch, { recursive: true, force: true });
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
