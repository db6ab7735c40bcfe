#!/usr/bin/env node
// Ask only when it matters (issue 37), with the real agents: Claude Code (its HTTP hook), Codex,
// Gemini CLI, Qwen Code, Copilot CLI and Cline CLI (the `countersign hook` shim, written by
// `countersign hooks install`), opencode and pi (their plugins), each driven by
// the scripted model through a realistic session in a real git repository, in standard mode:
//   read three files, search, edit two files, write a new one, run the project's tests (make
//   test, its Makefile as committed), commit; then edit again, `git reset --hard` over that
//   uncommitted edit, and `rm -rf` a folder. Every step passes the gate (the audit log holds it).
// Only the reset raises a card: the folder the rm -rf deletes was committed by the agent's own
// commit, and git brings it back (issue 49), so it runs with no card. Gemini CLI, Qwen Code and Copilot CLI: each declined in the window with a
// reason, and nothing is lost. Claude Code and Codex (Codex with its own sandbox off, as a developer
// who relies on the gate runs it): the reset is declined (its card shows the uncommitted diff; a
// screenshot goes to $COUNTERSIGN_SHOTS when set), then `git reset --hard HEAD` is approved (its
// card shows the same diff: the declined one lost nothing) and the work is gone, with a receipt that
// names the digest of the diff its card showed.
// Prints the number of cards per client.
//   node session.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--verbose] [--keep]
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { check, exitWithSummary } from '../peer/checks.mjs';
import { launch } from './clients.mjs';
import { makeLog, parseArgs, sleep, startRig, workRoot, writeClaudeHooks } from './harness.mjs';
import { startModelServer } from './model-server.mjs';
import { installWatchdog } from './reaper.mjs';

const opts = parseArgs(process.argv.slice(2), 'usage: session.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--verbose] [--keep]');
const root = workRoot('countersign-session-');
installWatchdog(540_000, 'session.mjs');
const log = makeLog('session', opts.verbose);

// The project every client works in: committed sources, a Makefile whose test target the agent
// runs, and an untracked folder of the agent's own scratch work.
function makeProject(dir) {
    mkdirSync(path.join(dir, 'src'), { recursive: true });
    writeFileSync(path.join(dir, 'src', 'a.js'), 'export const A = 1; // TODO: name it\n');
    writeFileSync(path.join(dir, 'src', 'b.js'), 'export const B = 1;\n');
    writeFileSync(path.join(dir, 'README.md'), '# Session\n\nA small project.\n');
    writeFileSync(path.join(dir, 'Makefile'), 'test:\n\t@echo all tests passed\n');
    const git = (...args) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('config', 'user.name', 'session');
    git('config', 'user.email', 'session@example.invalid');
    git('add', '-A');
    git('commit', '-q', '-m', 'start');
    mkdirSync(path.join(dir, 'scratch'));
    writeFileSync(path.join(dir, 'scratch', 'notes.txt'), 'the agent\'s own notes\n');
}

// Each client's own tools for the session's steps.
const sessions = {
    'claude-code': (p) => [
        { tool: 'Read', args: { file_path: path.join(p, 'src', 'a.js') } },
        { tool: 'Read', args: { file_path: path.join(p, 'src', 'b.js') } },
        { tool: 'Read', args: { file_path: path.join(p, 'README.md') } },
        { tool: 'Grep', args: { pattern: 'TODO', path: p } },
        { tool: 'Edit', args: { file_path: path.join(p, 'src', 'a.js'), old_string: 'A = 1', new_string: 'A = 2' } },
        { tool: 'Edit', args: { file_path: path.join(p, 'src', 'b.js'), old_string: 'B = 1', new_string: 'B = 2' } },
        { tool: 'Write', args: { file_path: path.join(p, 'src', 'c.js'), content: 'export const C = 3;\n' } },
        { tool: 'Bash', args: { command: 'make test', description: 'run the tests' } },
        { tool: 'Bash', args: { command: 'git add -A && git commit -q -m "name the constants"', description: 'commit' } },
        { tool: 'Edit', args: { file_path: path.join(p, 'src', 'a.js'), old_string: 'A = 2', new_string: 'A = 3' } },
        { tool: 'Bash', args: { command: 'git reset --hard', description: 'start over' } },
        { tool: 'Bash', args: { command: 'git reset --hard HEAD', description: 'start over' } },
        { tool: 'Bash', args: { command: 'rm -rf scratch', description: 'clean up' } },
    ],
    codex: () => [
        { tool: 'exec_command', args: { cmd: 'cat src/a.js' } },
        { tool: 'exec_command', args: { cmd: 'cat src/b.js' } },
        { tool: 'exec_command', args: { cmd: 'cat README.md' } },
        { tool: 'exec_command', args: { cmd: 'grep -rn TODO src' } },
        { tool: 'apply_patch', args: { input: '*** Begin Patch\n*** Update File: src/a.js\n@@\n-export const A = 1; // TODO: name it\n+export const A = 2; // TODO: name it\n*** End Patch\n' } },
        { tool: 'apply_patch', args: { input: '*** Begin Patch\n*** Update File: src/b.js\n@@\n-export const B = 1;\n+export const B = 2;\n*** End Patch\n' } },
        { tool: 'apply_patch', args: { input: '*** Begin Patch\n*** Add File: src/c.js\n+export const C = 3;\n*** End Patch\n' } },
        { tool: 'exec_command', args: { cmd: 'make test' } },
        { tool: 'exec_command', args: { cmd: 'git add -A && git commit -q -m "name the constants"' } },
        { tool: 'apply_patch', args: { input: '*** Begin Patch\n*** Update File: src/a.js\n@@\n-export const A = 2; // TODO: name it\n+export const A = 3; // TODO: name it\n*** End Patch\n' } },
        { tool: 'exec_command', args: { cmd: 'git reset --hard' } },
        { tool: 'exec_command', args: { cmd: 'git reset --hard HEAD' } },
        // (Codex 0.169 itself refuses "rm -f style" commands when its approval policy is "never",
        // even once the gate allowed them.)
        { tool: 'exec_command', args: { cmd: 'rm -r scratch' } },
    ],
    gemini: () => [
        { tool: 'read_file', args: { file_path: 'src/a.js' } },
        { tool: 'read_file', args: { file_path: 'src/b.js' } },
        { tool: 'read_file', args: { file_path: 'README.md' } },
        { tool: 'grep_search', args: { pattern: 'TODO' } },
        { tool: 'replace', args: { file_path: 'src/a.js', old_string: 'A = 1', new_string: 'A = 2', instruction: 'rename' } },
        { tool: 'replace', args: { file_path: 'src/b.js', old_string: 'B = 1', new_string: 'B = 2', instruction: 'rename' } },
        { tool: 'write_file', args: { file_path: 'src/c.js', content: 'export const C = 3;\n' } },
        { tool: 'run_shell_command', args: { command: 'make test', description: 'run the tests' } },
        { tool: 'run_shell_command', args: { command: 'git add -A && git commit -q -m "name the constants"', description: 'commit' } },
        { tool: 'replace', args: { file_path: 'src/a.js', old_string: 'A = 2', new_string: 'A = 3', instruction: 'again' } },
        { tool: 'run_shell_command', args: { command: 'git reset --hard', description: 'start over' } },
        { tool: 'run_shell_command', args: { command: 'rm -rf scratch', description: 'clean up' } },
    ],
    // Copilot CLI's own tools (its hooks see them as Read, Grep, Edit, Write and Bash, with its own
    // argument names).
    copilot: (p) => [
        { tool: 'view', args: { path: path.join(p, 'src/a.js') } },
        { tool: 'view', args: { path: path.join(p, 'src/b.js') } },
        { tool: 'view', args: { path: path.join(p, 'README.md') } },
        { tool: 'grep', args: { pattern: 'TODO', path: p } },
        { tool: 'edit', args: { path: path.join(p, 'src/a.js'), old_str: 'A = 1', new_str: 'A = 2' } },
        { tool: 'edit', args: { path: path.join(p, 'src/b.js'), old_str: 'B = 1', new_str: 'B = 2' } },
        { tool: 'create', args: { path: path.join(p, 'src/c.js'), file_text: 'export const C = 3;\n' } },
        { tool: 'bash', args: { command: 'make test', description: 'run the tests' } },
        { tool: 'bash', args: { command: 'git add -A && git commit -q -m "name the constants"', description: 'commit' } },
        { tool: 'edit', args: { path: path.join(p, 'src/a.js'), old_str: 'A = 2', new_str: 'A = 3' } },
        { tool: 'bash', args: { command: 'git reset --hard', description: 'start over' } },
        { tool: 'bash', args: { command: 'rm -rf scratch', description: 'clean up' } },
    ],
    // opencode's own tools, through Countersign's plugin (its argument names renamed).
    opencode: (p) => [
        { tool: 'read', args: { filePath: path.join(p, 'src/a.js') } },
        { tool: 'read', args: { filePath: path.join(p, 'src/b.js') } },
        { tool: 'read', args: { filePath: path.join(p, 'README.md') } },
        { tool: 'grep', args: { pattern: 'TODO', path: p } },
        { tool: 'edit', args: { filePath: path.join(p, 'src/a.js'), oldString: 'A = 1', newString: 'A = 2' } },
        { tool: 'edit', args: { filePath: path.join(p, 'src/b.js'), oldString: 'B = 1', newString: 'B = 2' } },
        { tool: 'write', args: { filePath: path.join(p, 'src/c.js'), content: 'export const C = 3;\n' } },
        { tool: 'bash', args: { command: 'make test', description: 'run the tests' } },
        { tool: 'bash', args: { command: 'git add -A && git commit -q -m "name the constants"', description: 'commit' } },
        { tool: 'edit', args: { filePath: path.join(p, 'src/a.js'), oldString: 'A = 2', newString: 'A = 3' } },
        { tool: 'bash', args: { command: 'git reset --hard', description: 'start over' } },
        { tool: 'bash', args: { command: 'rm -rf scratch', description: 'clean up' } },
    ],
    // pi's own tools, through Countersign's extension (its edit takes a list of {oldText, newText}).
    pi: (p) => [
        { tool: 'read', args: { path: path.join(p, 'src/a.js') } },
        { tool: 'read', args: { path: path.join(p, 'src/b.js') } },
        { tool: 'read', args: { path: path.join(p, 'README.md') } },
        { tool: 'bash', args: { command: 'grep -rn TODO src' } },
        { tool: 'edit', args: { path: path.join(p, 'src/a.js'), edits: [{ oldText: 'A = 1', newText: 'A = 2' }] } },
        { tool: 'edit', args: { path: path.join(p, 'src/b.js'), edits: [{ oldText: 'B = 1', newText: 'B = 2' }] } },
        { tool: 'write', args: { path: path.join(p, 'src/c.js'), content: 'export const C = 3;\n' } },
        { tool: 'bash', args: { command: 'make test' } },
        { tool: 'bash', args: { command: 'git add -A && git commit -q -m "name the constants"' } },
        { tool: 'edit', args: { path: path.join(p, 'src/a.js'), edits: [{ oldText: 'A = 2', newText: 'A = 3' }] } },
        { tool: 'bash', args: { command: 'git reset --hard' } },
        { tool: 'bash', args: { command: 'rm -rf scratch' } },
    ],
    // Cline CLI's own tools, through Countersign's hook file (its payload read by the shim). A
    // declined call stops Cline's whole run: the rm -rf after the declined reset never comes.
    cline: (p) => [
        { tool: 'read_files', args: { files: [{ path: path.join(p, 'src/a.js') }] } },
        { tool: 'read_files', args: { files: [{ path: path.join(p, 'src/b.js') }, { path: path.join(p, 'README.md') }] } },
        { tool: 'search_codebase', args: { queries: ['TODO'] } },
        { tool: 'editor', args: { path: path.join(p, 'src/a.js'), old_text: 'A = 1', new_text: 'A = 2' } },
        { tool: 'editor', args: { path: path.join(p, 'src/b.js'), old_text: 'B = 1', new_text: 'B = 2' } },
        { tool: 'editor', args: { path: path.join(p, 'src/c.js'), new_text: 'export const C = 3;\n' } },
        { tool: 'run_commands', args: { commands: ['make test'] } },
        { tool: 'run_commands', args: { commands: ['git add -A && git commit -q -m "name the constants"'] } },
        { tool: 'editor', args: { path: path.join(p, 'src/a.js'), old_text: 'A = 2', new_text: 'A = 3' } },
        { tool: 'run_commands', args: { commands: ['git reset --hard'] } },
        { tool: 'run_commands', args: { commands: ['rm -rf scratch'] } },
    ],
    qwen: (p) => [
        { tool: 'read_file', args: { absolute_path: path.join(p, 'src/a.js'), file_path: path.join(p, 'src/a.js') } },
        { tool: 'read_file', args: { absolute_path: path.join(p, 'src/b.js'), file_path: path.join(p, 'src/b.js') } },
        { tool: 'read_file', args: { absolute_path: path.join(p, 'README.md'), file_path: path.join(p, 'README.md') } },
        { tool: 'grep_search', args: { pattern: 'TODO' } },
        { tool: 'edit', args: { file_path: path.join(p, 'src/a.js'), old_string: 'A = 1', new_string: 'A = 2' } },
        { tool: 'edit', args: { file_path: path.join(p, 'src/b.js'), old_string: 'B = 1', new_string: 'B = 2' } },
        { tool: 'write_file', args: { file_path: path.join(p, 'src/c.js'), content: 'export const C = 3;\n' } },
        { tool: 'run_shell_command', args: { command: 'make test', description: 'run the tests' } },
        { tool: 'run_shell_command', args: { command: 'git add -A && git commit -q -m "name the constants"', description: 'commit' } },
        { tool: 'edit', args: { file_path: path.join(p, 'src/a.js'), old_string: 'A = 2', new_string: 'A = 3' } },
        { tool: 'run_shell_command', args: { command: 'git reset --hard', description: 'start over' } },
        { tool: 'run_shell_command', args: { command: 'rm -rf scratch', description: 'clean up' } },
    ],
};
// The clients whose approvals are tested here too (the others decline every card).
const approvers = new Set(['claude-code', 'codex']);
const claudeMatcher = '^(Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Glob|Grep|LS|mcp__.*)$';

let rig;
const cardsPer = {};
try {
    rig = await startRig(opts, { config: { workspaceRoots: [root], cardMinimumSeconds: 0, hookHoldSeconds: 120 }, log, label: 'session', root });
    const con = rig.console;
    const base = con.url.replace(/\/mcp$/, '');

    for (const key of ['claude-code', 'codex', 'gemini', 'qwen', 'copilot', 'opencode', 'pi', 'cline'].filter((k) => !process.env.SESSION_ONLY || k === process.env.SESSION_ONLY)) {
        await check(`${key}: a realistic session raises a card only for git reset --hard over uncommitted work and rm -rf of a folder`, async () => {
            let project = null;
            const stepsOf = sessions[key];
            // The steps name the project's folder (Claude Code's tools take absolute paths): the
            // model reads its steps when the client asks, after the sandbox is made and they are in.
            const steps = [];
            const toolNames = [...new Set(stepsOf('/x').map((s) => s.tool))];
            const model = await startModelServer({ exactTool: toolNames, steps, log, label: `${key} model`, maxCalls: 6 });
            const run = launch(key === 'claude-code' ? 'claude' : key, {
                root, mcpUrl: con.url, token: con.token, model, prompt: 'Work on the project.', limitMs: 240_000, log, label: key,
                env: { COUNTERSIGN_TOKEN: con.token, XDG_RUNTIME_DIR: path.join(con.dir, 'run') },
                flags: key === 'codex' ? ['--dangerously-bypass-hook-trust', '--sandbox', 'danger-full-access'] : [],
                prepare: (sb) => {
                    project = sb.project;
                    makeProject(sb.project);
                    steps.push(...stepsOf(sb.project));
                    if (key === 'claude-code') {
                        writeClaudeHooks(sb.home, base, claudeMatcher);
                    } else {
                        execFileSync(opts.binary, ['hooks', 'install', key, '--data-dir', con.dataDir, '--config', con.configPath], {
                            env: { ...process.env, HOME: sb.home, CODEX_HOME: path.join(sb.home, '.codex'), XDG_RUNTIME_DIR: path.join(con.dir, 'run') },
                        });
                    }
                },
            });
            const seen = [];
            const approving = approvers.has(key);
            // Each card, as it shows: declined with a reason in the window (nothing is lost), or,
            // for the approvers, the second reset and the rm approved; counted.
            const deadline = Date.now() + 200_000;
            while (Date.now() < deadline && seen.length < 5) {
                const card = await con.waitForCard(5_000).catch(() => null);
                if (card && !seen.some((c) => c.nonce === card.nonce)) {
                    seen.push(card);
                    if (approving && /git reset --hard HEAD/.test(card.title)) {
                        await con.decide('approve', '--nonce', card.nonce);
                    } else {
                        if (key === 'claude-code' && process.env.COUNTERSIGN_SHOTS) {
                            await sleep(800); // the card drawn
                            await con.screenshot(path.join(process.env.COUNTERSIGN_SHOTS, `${key}-${seen.length}.png`));
                        }
                        await con.decline('not in this session');
                    }
                }
                const done = await Promise.race([run.exited.then(() => true), sleep(100).then(() => false)]);
                if (done) break;
            }
            await run.exited;
            await model.close();
            cardsPer[key] = seen.length;
            console.log(`${key}: ${seen.length} card(s): ${seen.map((c) => c.title).join(' | ')}`);
            // Every step passed the gate (its hooks fired), not only the two that asked.
            const audited = (await con.audit()).filter((r) => r.client === `${key} (hook)`);
            const tools = [...new Set(audited.map((r) => r.tool))].sort();
            assert.ok(audited.length >= 10, `${audited.length} calls audited: ${JSON.stringify(tools)}`);
            console.log(`${key}: ${audited.length} calls through the gate (${tools.join(', ')})`);
            const titles = JSON.stringify(seen.map((c) => c.title));
            // Cline has no way to refuse one tool: the declined reset stops its run, with the reason.
            const stopsAtDecline = key === 'cline';
            assert.equal(seen.length, approving ? 2 : 1, `cards: ${titles}; model calls: ${model?.calls.length}`);
            const reset = seen[0];
            assert.match(reset.title, /git reset --hard/);
            // The reset's card says what it would lose, with the diff.
            // Countersign keeps a copy of src/a.js first: risk follows what can be taken back, so no
            // name is typed, and the card says so once, in its headline.
            assert.equal(reset.risk, 'medium');
            assert.equal(reset.face.headline, 'Discards uncommitted changes to src/a.js (+1 −1); a copy is kept');
            assert.equal(reset.face.typed, false);
            assert.deepEqual(reset.problems, []);
            assert.match(reset.summary, /Discards the uncommitted changes in 1 file \(\+1 −1 lines\), which git cannot bring back: src\/a\.js/);
            assert.match(reset.diff, /^-export const A = 2;.*\n\+export const A = 3;/m);
            // The agent's git add -A committed scratch/: its rm -rf ran with no card, and git
            // brings the folder back.
            if (!stopsAtDecline) {
                assert.equal(existsSync(path.join(project, 'scratch')), false, 'the rm -rf ran with no card');
                execFileSync('git', ['-C', project, 'checkout', '--', 'scratch']);
                assert.equal(readFileSync(path.join(project, 'scratch', 'notes.txt'), 'utf8'), 'the agent\'s own notes\n');
            }
            const read = (f) => readFileSync(path.join(project, f), 'utf8');
            assert.match(read('src/b.js'), /B = 2/);
            assert.equal(read('src/c.js'), 'export const C = 3;\n');
            const log2 = execFileSync('git', ['-C', project, 'log', '--oneline']).toString().trim().split('\n');
            assert.equal(log2.length, 2, `the commit ran: ${log2.join(' / ')}`);
            if (!approving) {
                // What was declined did not run.
                assert.match(read('src/a.js'), /A = 3/, 'the uncommitted edit survives the declined reset');
                return;
            }
            // Declined, the work stayed: the approved reset's card showed the same diff.
            const approvedReset = seen[1];
            assert.match(approvedReset.title, /git reset --hard HEAD/);
            assert.equal(approvedReset.diff, reset.diff, 'the declined reset discarded nothing');
            // Approved, it is gone, and the receipt names the digest of the diff it discarded.
            assert.match(read('src/a.js'), /A = 2/, 'the approved reset discarded the edit');
            const result = JSON.parse(execFileSync('sqlite3', [path.join(con.dataDir, 'countersign.db'),
                `SELECT result FROM claims WHERE nonce = '${approvedReset.nonce}'`]).toString());
            const receipt = result._meta['dev.countersign/receipt'];
            assert.equal(receipt.nonce, approvedReset.nonce, JSON.stringify(receipt));
            assert.equal(receipt.diffDigest, createHash('sha256').update(approvedReset.diff, 'utf8').digest('hex'), JSON.stringify(receipt));
        });
    }
    console.log(`cards per client: ${JSON.stringify(cardsPer)}`);
} finally {
    await rig?.stop();
}
exitWithSummary();
