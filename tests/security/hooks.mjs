#!/usr/bin/env node
// The agents' hooks (issue 24), attacked with nothing but a token, over real HTTP (Claude Code's
// HTTP hook, POST /hooks/claude-code) and through the real `countersign hook CLIENT` shim on the
// console's socket (Codex, Gemini CLI). The payloads have the shapes the clients' sources build
// (docs/client-hooks.md) and tests/agents/hooks.mjs sends from the real Claude Code:
//   - a command smuggled past an argvPrefix allow rule (;, $(), a newline, bash -c, env, &&, `, |, >);
//   - a hook timeout racing the approval: answered "still waiting" before it, the next identical call
//     takes the approval once, the one after asks again;
//   - another connection's token never takes this connection's approval, nor its post reports;
//   - a post-tool report never allowed, or with other input than was allowed, is flagged;
//   - a file changed between the approval and the client's write is flagged;
//   - malformed payloads, no token, a revoked token, an unknown client: denied, never allowed;
//   - the shim with no console, no token, a bad token: denied in the client's own format;
//   - Cline CLI's own payload in each spelling it takes: a cancel for all that asks, none for a question.
//   node hooks.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { check, exitWithSummary, waitFor } from '../peer/checks.mjs';
import { startCountersign } from '../peer/countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: hooks.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const work = mkdtempSync(path.join(tmpdir(), 'countersign-hooks-security-'));
const ws = path.join(work, 'ws');
mkdirSync(ws);

const HOLD_S = 3;
const server = await startCountersign(binary, {
    // Strict mode: every change asks (standard mode lets writes inside the roots run; tests/shell
    // holds its decisions), so that each smuggled write is a card.
    config: { workspaceRoots: [ws], hookHoldSeconds: HOLD_S, mode: 'strict', rules: [{ tool: 'agent:shell', argvPrefix: ['echo'], decision: 'allow' }] },
    tokenName: 'hooks-a',
});
const tokenB = server.addToken('hooks-b');
const base = server.url.replace(/\/mcp$/, '');
const decide = (verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
const cards = () => decide('list');
const clearCards = async () => { for (const c of await cards()) await decide('decline', '--nonce', c.nonce, '--reason', 'clean-up'); };

let ids = 0;
const claude = (event, tool, input, extra = {}) => ({
    session_id: 'session-1', transcript_path: '/tmp/transcript.jsonl', cwd: ws, permission_mode: 'default',
    hook_event_name: event, tool_name: tool, tool_input: input, tool_use_id: `toolu_${++ids}`, ...extra,
});
async function hook(payload, { token = server.token, client = 'claude-code', raw } = {}) {
    const res = await fetch(`${base}/hooks/${client}`, {
        method: 'POST', body: raw ?? JSON.stringify(payload),
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : {} };
}
const decisionOf = (answer) => answer.body.hookSpecificOutput?.permissionDecision;
const reasonOf = (answer) => answer.body.hookSpecificOutput?.permissionDecisionReason ?? '';
const stderrSince = (mark) => server.stderr().slice(mark);

try {
    await check('a plain command an argvPrefix rule allows is allowed at once, with no card', async () => {
        const a = await hook(claude('PreToolUse', 'Bash', { command: 'echo hi' }));
        assert.equal(a.status, 200);
        assert.equal(decisionOf(a), 'allow', JSON.stringify(a.body));
        assert.deepEqual(await cards(), []);
    });

    // Cline CLI's own payload (the shim reads it; here over HTTP, as /hooks/cline takes it too): its
    // answer is {"cancel": ...}, and a cancel stops Cline's whole run.
    const cline = (name, input, extra = {}) => ({
        hookName: 'tool_call', taskId: 'task-1', workspaceRoots: [ws], tool_call: { id: `call_${++ids}`, name, input },
        preToolUse: { toolName: name, parameters: {} }, ...extra,
    });
    await check('Cline: a command a rule allows is allowed; every other spelling it takes asks (cancel), one that changes nothing is not asked about, and a payload of another shape is refused', async () => {
        const a = await hook(cline('run_commands', { commands: ['echo hi'] }), { client: 'cline' });
        assert.deepEqual(a.body, { cancel: false });
        const t0 = Date.now();
        const asked = await Promise.all([
            cline('run_commands', { commands: ['echo hi', { command: 'touch', args: ['c1'] }] }),
            cline('run_commands', 'echo hi; touch c2'),
            cline('run_commands', { commands: ['echo hi\ntouch c3'] }), // a line break: the shell's, read as its
            cline('editor', { path: path.join(ws, 'c5'), new_text: 'x', insert_line: 1 }),
            cline('read_files', { file_paths: ['/etc/shadow'] }),
            cline('fetch_web_contents', { requests: [] }), // a name it does not have: asks
            cline('countersign__no_such_tool', { path: 'c9' }), // not one of this console's tools
            cline('countersignx__write_file', { path: 'c9', content: 'x' }), // another server's
            // Cline runs command (its order) and drops cmd: a decoy that the rule allows asks.
            cline('run_commands', { cmd: 'echo hi', command: 'touch c6' }),
            // Cline joins strings into one shell text up to the first whose trimmed text ends the
            // here-document, and runs the rest on their own: read as it groups them (the shell
            // then runs "echo <<EOF\n EOF" and, on its own, touch c8; a JavaScript space counts).
            cline('run_commands', { commands: ['echo <<EOF', ' EOF', 'touch c8', 'EOF'] }),
            cline('run_commands', { commands: ['echo <<EOF', '\ufeffEOF', 'touch c10', 'EOF'] }),
            cline('run_commands', { commands: ['echo <<\u00a0EOF', 'EOF', 'touch c11'] }),
        ].map((p) => hook(p, { client: 'cline' })));
        for (const c of asked) {
            assert.equal(c.body.cancel, true, JSON.stringify(c.body));
            assert.match(c.body.errorMessage, /Still waiting for a human/);
        }
        assert.ok(Date.now() - t0 >= HOLD_S * 1000 - 200, 'each was held for the human first');
        for (const f of ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c8', 'c10', 'c11']) assert.equal(existsSync(path.join(ws, f)), false);
        // {command, args} runs without a shell: each word is read as the argument it is, so a ;
        // among them is an argument to echo, which the rule allows (and it is harmless).
        for (const args of [['hi', ';', 'touch', 'c7'], ['hi', '>', 'c4']]) {
            const direct = await hook(cline('run_commands', [{ command: 'echo', args }]), { client: 'cline' });
            assert.deepEqual(direct.body, { cancel: false });
        }
        const before = (await cards()).length;
        // Cline's name for this console's own MCP tool (SERVER__TOOL) is gated by the MCP call itself.
        const own = await hook(cline('countersign__write_file', { path: 'notes.md', content: 'x' }), { client: 'cline' });
        assert.deepEqual(own.body, { cancel: false });
        assert.equal((await cards()).length, before, 'no card for this console\'s own MCP tool');
        const quiet = await hook(cline('ask_question', { question: 'Which one?', options: ['a', 'b'] }), { client: 'cline' });
        assert.deepEqual(quiet.body, { cancel: false });
        assert.equal((await cards()).length, before, 'no card for a question to the user');
        for (const wrong of [{ ...cline('run_commands', 'ls'), hookName: 'agent_start' }, claude('PreToolUse', 'Bash', { command: 'ls' })]) {
            const r = await hook(wrong, { client: 'cline' });
            assert.equal(r.body.cancel, true, JSON.stringify(r.body));
            assert.match(r.body.errorMessage, /refused the hook call/);
        }
        await clearCards();
    });

    await check('every command smuggled past the rule (; $() newline, a final newline, bash -c env && ` | >) asks, and none is allowed', async () => {
        const smuggled = ['echo hi; touch p1', 'echo $(touch p2)', 'echo hi\ntouch p3', "bash -c 'echo hi > p7'", 'env touch p8',
            'echo hi && touch p4', 'echo `touch p5`', 'echo hi | sh', 'echo hi > p6', 'echo hi > ~/x', "echo 'a' b; touch p9",
            'echo hi\ntouch p10\n', 'echo hi\r\ntouch p11']; // a final line break: a regular expression's $ matches before it
        const t0 = Date.now();
        const answers = await Promise.all(smuggled.map((command) => hook(claude('PreToolUse', 'Bash', { command }))));
        for (const [i, a] of answers.entries()) {
            assert.equal(decisionOf(a), 'deny', `${JSON.stringify(smuggled[i])} -> ${JSON.stringify(a.body)}`);
            assert.match(reasonOf(a), /Still waiting for a human/);
        }
        assert.ok(Date.now() - t0 >= HOLD_S * 1000 - 200, 'each was held for the human first');
        assert.equal((await cards()).length, smuggled.length, 'one card each');
        await clearCards();
    });

    await check('an edit with an edits list beside its own fields (the client applies the top-level one): refused, never shown as the list', async () => {
        writeFileSync(path.join(ws, 'edit-me.txt'), 'A x\n');
        const a = await hook(claude('PreToolUse', 'Edit', {
            file_path: path.join(ws, 'edit-me.txt'), old_string: 'A', new_string: 'evil', edits: [{ old_string: 'x', new_string: 'y' }],
        }));
        assert.equal(decisionOf(a), 'deny', JSON.stringify(a.body));
        assert.match(reasonOf(a), /edits list, which this tool does not take/);
        assert.deepEqual(await cards(), []);
        assert.equal(readFileSync(path.join(ws, 'edit-me.txt'), 'utf8'), 'A x\n');
    });

    await check('a hook timeout racing the approval: "still waiting" before it; the next identical call takes the approval once; the one after asks again', async () => {
        const input = { command: `touch ${path.join(ws, 'late')}` };
        const first = await hook(claude('PreToolUse', 'Bash', input));
        assert.equal(decisionOf(first), 'deny');
        assert.match(reasonOf(first), /Make the same call again to rejoin the card/);
        const [card] = await cards();
        assert.equal(card.tool, 'agent:shell');
        await decide('approve', '--nonce', card.nonce);
        // Another connection's identical call does not take it.
        const stranger = await hook(claude('PreToolUse', 'Bash', input), { token: tokenB });
        assert.equal(decisionOf(stranger), 'deny', 'another token never takes this connection\'s approval');
        const t0 = Date.now();
        const second = await hook(claude('PreToolUse', 'Bash', input));
        assert.equal(decisionOf(second), 'allow', JSON.stringify(second.body));
        assert.ok(Date.now() - t0 < 1500, 'at once');
        const third = await hook(claude('PreToolUse', 'Bash', input));
        assert.equal(decisionOf(third), 'deny', 'an approval answers one call');
        assert.ok((await cards()).some((c) => c.nonce !== card.nonce), 'a new card for the third');
        await clearCards();
    });

    await check('post reports: one never allowed, one under another token, one with other input are flagged; the true one is not', async () => {
        const pre = claude('PreToolUse', 'Bash', { command: 'echo allowed' });
        assert.equal(decisionOf(await hook(pre)), 'allow');
        let mark = server.stderr().length;
        await hook(claude('PostToolUse', 'Bash', { command: 'echo forged' }, { tool_use_id: 'toolu_forged', tool_response: { stdout: 'x' } }));
        await hook({ ...pre, hook_event_name: 'PostToolUse', tool_response: { stdout: 'allowed' } }, { token: tokenB });
        await hook({ ...pre, hook_event_name: 'PostToolUse', tool_input: { command: 'echo other' }, tool_response: { stdout: 'x' } });
        const flags = [/toolu_forged\), which Countersign never allowed/, new RegExp(`${pre.tool_use_id}\\), which Countersign never allowed`),
                       /with other input than was allowed/];
        await waitFor('the three flags', () => flags.every((f) => f.test(stderrSince(mark))), 5000, () => stderrSince(mark));
        await sleep(300); // each flag is also told to the window: let its lines pass
        mark = server.stderr().length;
        const ok = await hook({ ...pre, hook_event_name: 'PostToolUse', tool_response: { stdout: 'allowed' } });
        assert.equal(ok.status, 200);
        await sleep(300);
        assert.doesNotMatch(stderrSince(mark), /never allowed|other input|not what was approved/);
    });

    await check('a file changed between the approval and the client\'s write is flagged', async () => {
        const file = path.join(ws, 'notes.md');
        const pre = claude('PreToolUse', 'Write', { file_path: file, content: 'approved\n' });
        const held = hook(pre);
        const card = await waitFor('the write\'s card', async () => (await cards())[0]);
        assert.equal(card.tool, 'agent:write');
        assert.match(card.diff, /\+approved/);
        await decide('approve', '--nonce', card.nonce);
        assert.equal(decisionOf(await held), 'allow');
        writeFileSync(file, 'tampered\n'); // what was written is not what was approved
        const mark = server.stderr().length;
        await hook({ ...pre, hook_event_name: 'PostToolUse', tool_response: { filePath: file } });
        await waitFor('the flag', () => /notes\.md, and the file is not what was approved/.test(stderrSince(mark)), 5000, () => stderrSince(mark));
    });

    await check('Copilot CLI: its own argument names are what the card shows; both spellings are refused; an Edit holding a patch is judged as the patch', async () => {
        const copilot = (tool, input) => ({ hook_event_name: 'PreToolUse', session_id: 's', timestamp: new Date().toISOString(), cwd: ws, tool_name: tool, tool_input: input });
        const file = path.join(ws, 'copilot.txt');
        writeFileSync(file, 'one\n');
        const held = hook(copilot('Edit', { path: file, old_str: 'one', new_str: 'two' }), { client: 'copilot' });
        const card = await waitFor('the edit\'s card', async () => (await cards())[0]);
        assert.equal(card.tool, 'agent:edit');
        assert.match(card.diff, /-one\n\+two/, card.diff);
        await decide('decline', '--nonce', card.nonce, '--reason', 'test');
        assert.equal(decisionOf(await held), 'deny');
        const write = hook(copilot('Write', { path: file, file_text: 'written by copilot\n' }), { client: 'copilot' });
        const written = await waitFor('the write\'s card', async () => (await cards())[0]);
        assert.match(written.diff, /\+written by copilot/, written.diff);
        await clearCards();
        assert.equal(decisionOf(await write), 'deny');
        const both = await hook(copilot('Edit', { path: file, old_str: 'one', new_str: 'two', old_string: 'x', new_string: 'y' }), { client: 'copilot' });
        assert.equal(decisionOf(both), 'deny', JSON.stringify(both.body));
        assert.match(reasonOf(both), /has both old_str and old_string/);
        // path and file_path both named and different: the client acts on one of them; refused.
        const twoPaths = await hook(copilot('Write', { path: path.join(work, 'outside.txt'), file_path: file, file_text: 'x' }), { client: 'copilot' });
        assert.equal(decisionOf(twoPaths), 'deny', JSON.stringify(twoPaths.body));
        assert.match(reasonOf(twoPaths), /has both file_path and path, and they differ/);
        const patch = hook(copilot('Edit', '*** Begin Patch\n*** Delete File: copilot.txt\n*** End Patch\n'), { client: 'copilot' });
        const patchCard = await waitFor('the patch\'s card', async () => (await cards())[0]);
        assert.equal(patchCard.tool, 'agent:patch');
        await clearCards();
        assert.equal(decisionOf(await patch), 'deny');
        assert.equal(readFileSync(file, 'utf8'), 'one\n');
    });

    await check('malformed payloads, no token, a revoked token, an unknown client and a GET are denied (200, never allow)', async () => {
        const revoked = server.addToken('hooks-revoked');
        execFileSync(binary, ['token', 'revoke', 'hooks-revoked', '--data-dir', server.dataDir, '--config', path.join(server.dir, 'config.json')]);
        const bad = [
            [{ raw: 'not json' }, /could not read the hook payload/],
            [{ payload: { ...claude('PreToolUse', 'Bash', {}), tool_input: 'rm -rf /' } }, /tool_input is not an object/],
            [{ payload: claude('PreToolUse', 'Bash', { command: 42 }) }, /command is not a string/],
            [{ payload: claude('Stop', 'Bash', { command: 'echo hi' }) }, /no event Stop/],
            [{ payload: { ...claude('PreToolUse', 'Bash', { command: 'echo hi' }), tool_name: ['Bash'] } }, /tool_name is not a string/],
            [{ payload: claude('PreToolUse', 'Bash', { command: 'echo hi' }), token: null }, /does not know this hook's token/],
            [{ payload: claude('PreToolUse', 'Bash', { command: 'echo hi' }), token: revoked }, /does not know this hook's token/],
            [{ payload: claude('PreToolUse', 'Bash', { command: 'echo hi' }), client: 'cursor' }, /no hook for the client "cursor"/],
        ];
        for (const [c, words] of bad) {
            const a = await hook(c.payload, c);
            assert.equal(a.status, 200);
            assert.equal(decisionOf(a), 'deny', JSON.stringify(a.body));
            assert.match(reasonOf(a), words);
        }
        const get = await fetch(`${base}/hooks/claude-code`, { headers: { Authorization: `Bearer ${server.token}` } });
        assert.equal((await get.json()).hookSpecificOutput.permissionDecision, 'deny');
        assert.deepEqual(await cards(), []);
    });

    // The shim, as Codex and Gemini CLI run it.
    const shim = (client, payload, { env = {}, dataDir = server.dataDir } = {}) => new Promise((resolve) => {
        const child = execFile(binary, ['hook', client, '--data-dir', dataDir], { env: { ...process.env, COUNTERSIGN_TOKEN: server.token, ...env } },
            (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
        child.stdin.end(JSON.stringify(payload));
    });
    // Sessions of their own: the earlier checks' clean-up declines count as a human's, and a session
    // that comes back after two declines of the same file is held (same-intent.mjs).
    const codexPre = (command) => ({ session_id: 'shim-codex', turn_id: 't', transcript_path: null, cwd: ws, hook_event_name: 'PreToolUse', model: 'gpt-5.5',
                                     permission_mode: 'default', tool_name: 'Bash', tool_input: { command }, tool_use_id: `call_${++ids}` });
    const geminiPre = (command) => ({ session_id: 'shim-gemini', transcript_path: '/tmp/t', cwd: ws, hook_event_name: 'BeforeTool', timestamp: new Date().toISOString(),
                                      tool_name: 'run_shell_command', tool_input: { command } });

    await check('the shim: Codex allowed says nothing (exit 0), denied says so in Codex\'s format; Gemini CLI\'s in its own', async () => {
        const allowed = await shim('codex', codexPre('echo hi'));
        assert.deepEqual([allowed.code, allowed.stdout], [0, ''], JSON.stringify(allowed));
        const [codexDenied, geminiDenied, geminiAllowed] = await Promise.all([
            shim('codex', codexPre('echo hi; touch nope')), shim('gemini', geminiPre('echo $(touch nope2)')), shim('gemini', geminiPre('echo hi'))]);
        assert.equal(codexDenied.code, 0);
        const c = JSON.parse(codexDenied.stdout);
        assert.deepEqual(Object.keys(c), ['hookSpecificOutput']);
        assert.equal(c.hookSpecificOutput.permissionDecision, 'deny');
        assert.match(c.hookSpecificOutput.permissionDecisionReason, /Still waiting for a human/);
        assert.deepEqual(JSON.parse(geminiDenied.stdout).decision, 'deny');
        assert.match(JSON.parse(geminiDenied.stdout).reason, /Still waiting for a human/);
        assert.equal(JSON.parse(geminiAllowed.stdout).decision, 'allow');
        await clearCards();
    });

    await check('the shim denies with no console, no token and a bad token, and never allows', async () => {
        const empty = mkdtempSync(path.join(work, 'no-console-'));
        const down = await shim('codex', codexPre('echo hi'), { dataDir: empty });
        assert.equal(JSON.parse(down.stdout).hookSpecificOutput.permissionDecision, 'deny');
        assert.match(JSON.parse(down.stdout).hookSpecificOutput.permissionDecisionReason, /Countersign is not running/);
        const noToken = await shim('gemini', geminiPre('echo hi'), { env: { COUNTERSIGN_TOKEN: '' } });
        assert.equal(JSON.parse(noToken.stdout).decision, 'deny');
        assert.match(JSON.parse(noToken.stdout).reason, /COUNTERSIGN_TOKEN is not set/);
        const badToken = await shim('codex', codexPre('echo hi'), { env: { COUNTERSIGN_TOKEN: 'cs_wrong' } });
        assert.match(JSON.parse(badToken.stdout).hookSpecificOutput.permissionDecisionReason, /unknown or revoked/);
        const garbage = await new Promise((resolve) => {
            const child = execFile(binary, ['hook', 'codex', '--data-dir', server.dataDir], { env: { ...process.env, COUNTERSIGN_TOKEN: server.token } },
                (error, stdout) => resolve({ code: error ? error.code : 0, stdout }));
            child.stdin.end('{"hook_event_name": "PreToolUse", ');
        });
        assert.equal(JSON.parse(garbage.stdout).hookSpecificOutput.permissionDecision, 'deny');
        const unknown = await shim('cursor', codexPre('echo hi'));
        assert.equal(unknown.code, 2, 'an unknown client: exit 2 with the reason, a block in every client');
        assert.match(unknown.stderr, /usage: countersign-hook/);
        assert.equal(existsSync(path.join(ws, 'nope')), false);
    });
    await check('hooks install refuses a settings file it cannot write back whole (comments, not JSON), and changes nothing', async () => {
        const home = mkdtempSync(path.join(work, 'home-'));
        mkdirSync(path.join(home, '.gemini'));
        const file = path.join(home, '.gemini', 'settings.json');
        for (const text of ['{\n  // my comment\n  "theme": "dark"\n}\n', '{"theme": ']) {
            writeFileSync(file, text);
            const r = await run(binary, ['hooks', 'install', 'gemini', '--data-dir', server.dataDir], { env: { ...process.env, HOME: home } }).catch((e) => e);
            assert.equal(r.code, 1, JSON.stringify(r));
            assert.match(r.stderr, /has comments|is not valid JSON/);
            assert.equal(readFileSync(file, 'utf8'), text, 'the file as it was');
        }
    });
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
