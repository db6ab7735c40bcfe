#!/usr/bin/env node
// The realistic sessions of tests/shell/sessions.json done by each of the eight real agents
// (pinned), headless under the scripted model: each session's calls become the model's calls of
// that agent's own tools (Claude Code's Bash, Read, Write, Edit; Codex's exec_command and
// apply_patch; Gemini CLI's run_shell_command, read_file, write_file, replace; ...), in order, in a
// project of the agent's sandbox (the same committed Python package, Node project or Java
// project), with its hooks (or plugin) on the console in standard mode. The agent runs what is
// allowed for real; every card that shows is declined at once, as a human who did not want it
// would, and counted. Prints cards per 100 actions, per session and per agent; only the calls the
// sessions name as cards may ask, and every call passes the gate (issue 49: what a client really
// does is the requirement). REALWORK_ONLY=key runs one agent.
//   node realwork.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--verbose] [--keep]
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commitProject } from '../shell/session-projects.mjs';
import { check, exitWithSummary } from '../peer/checks.mjs';
import { launch } from './clients.mjs';
import { makeLog, parseArgs, sleep, startRig, workRoot, writeClaudeHooks } from './harness.mjs';
import { startModelServer } from './model-server.mjs';
import { installWatchdog } from './reaper.mjs';

const opts = parseArgs(process.argv.slice(2), 'usage: realwork.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--verbose] [--keep]');
const here = path.dirname(fileURLToPath(import.meta.url));
const sessions = JSON.parse(readFileSync(path.join(here, '..', 'shell', 'sessions.json'), 'utf8')).sessions;
// A session writes a scratch file in the temporary folder: new there, it runs with no card. Each
// run (and each of the two tests that run the sessions) has a folder of its own, removed after.
// (and each agent a folder of its own in it: the first agent's file there is no longer new).
const scratch = `/tmp/countersign-sessions-${process.pid}`;
const scratchOf = (key, call) => call.map((part) => part.replaceAll('/tmp/countersign-sessions-scratch', `${scratch}/${key}`));
const root = workRoot('countersign-realwork-');
installWatchdog(1_500_000, 'realwork.mjs');
const log = makeLog('realwork', opts.verbose);
const claudeMatcher = '^(Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Glob|Grep|LS|mcp__.*)$';

// Codex edits with its own patch format: whole lines out, whole lines in.
const codexPatch = (file, oldText, newText) => {
    const lines = (prefix, text) => text.replace(/\n$/, '').split('\n').map((l) => prefix + l).join('\n');
    if (oldText === null) return `*** Begin Patch\n*** Add File: ${file}\n${lines('+', newText)}\n*** End Patch\n`;
    return `*** Begin Patch\n*** Update File: ${file}\n@@\n${lines('-', oldText)}\n${lines('+', newText)}\n*** End Patch\n`;
};

// A session's call ([tool, a, b, c] in Claude Code's terms: Bash line, Read file, Write file
// content, Edit file old new) as each agent's own tool call, with paths in the project.
const agents = {
    'claude-code': (p, [tool, a, b, c]) =>
        tool === 'Bash' ? { tool, args: { command: a, description: 'work' } }
            : tool === 'Read' ? { tool, args: { file_path: path.join(p, a) } }
                : tool === 'Write' ? { tool, args: { file_path: path.join(p, a), content: b } }
                    : { tool, args: { file_path: path.join(p, a), old_string: b, new_string: c } },
    codex: (p, [tool, a, b, c]) =>
        tool === 'Bash' ? { tool: 'exec_command', args: { cmd: a } }
            : tool === 'Read' ? { tool: 'exec_command', args: { cmd: `cat ${a}` } }
                : tool === 'Write' ? { tool: 'apply_patch', args: { input: codexPatch(a, null, b) } }
                    : { tool: 'apply_patch', args: { input: codexPatch(a, b, c) } },
    gemini: (p, [tool, a, b, c]) =>
        tool === 'Bash' ? { tool: 'run_shell_command', args: { command: a, description: 'work' } }
            : tool === 'Read' ? { tool: 'read_file', args: { file_path: a } }
                : tool === 'Write' ? { tool: 'write_file', args: { file_path: a, content: b } }
                    : { tool: 'replace', args: { file_path: a, old_string: b, new_string: c, instruction: 'edit' } },
    qwen: (p, [tool, a, b, c]) =>
        tool === 'Bash' ? { tool: 'run_shell_command', args: { command: a, description: 'work' } }
            : tool === 'Read' ? { tool: 'read_file', args: { absolute_path: path.join(p, a), file_path: path.join(p, a) } }
                : tool === 'Write' ? { tool: 'write_file', args: { file_path: path.join(p, a), content: b } }
                    : { tool: 'edit', args: { file_path: path.join(p, a), old_string: b, new_string: c } },
    copilot: (p, [tool, a, b, c]) =>
        tool === 'Bash' ? { tool: 'bash', args: { command: a, description: 'work' } }
            : tool === 'Read' ? { tool: 'view', args: { path: path.join(p, a) } }
                : tool === 'Write' ? { tool: 'create', args: { path: path.join(p, a), file_text: b } }
                    : { tool: 'edit', args: { path: path.join(p, a), old_str: b, new_str: c } },
    opencode: (p, [tool, a, b, c]) =>
        tool === 'Bash' ? { tool: 'bash', args: { command: a, description: 'work' } }
            : tool === 'Read' ? { tool: 'read', args: { filePath: path.join(p, a) } }
                : tool === 'Write' ? { tool: 'write', args: { filePath: path.join(p, a), content: b } }
                    : { tool: 'edit', args: { filePath: path.join(p, a), oldString: b, newString: c } },
    pi: (p, [tool, a, b, c]) =>
        tool === 'Bash' ? { tool: 'bash', args: { command: a } }
            : tool === 'Read' ? { tool: 'read', args: { path: path.join(p, a) } }
                : tool === 'Write' ? { tool: 'write', args: { path: path.join(p, a), content: b } }
                    : { tool: 'edit', args: { path: path.join(p, a), edits: [{ oldText: b, newText: c }] } },
    cline: (p, [tool, a, b, c]) =>
        tool === 'Bash' ? { tool: 'run_commands', args: { commands: [a] } }
            : tool === 'Read' ? { tool: 'read_files', args: { files: [{ path: path.join(p, a) }] } }
                : tool === 'Write' ? { tool: 'editor', args: { path: path.join(p, a), new_text: b } }
                    : { tool: 'editor', args: { path: path.join(p, a), old_text: b, new_text: c } },
};
// Cline has no way to refuse one tool: a declined call stops its whole run, with the reason; the
// calls after the session's first card never come.
const stopsAtDecline = new Set(['cline']);

let rig;
try {
    rig = await startRig(opts, {
        config: { workspaceRoots: [path.join(root, 'ws')], cardMinimumSeconds: 0, hookHoldSeconds: 3 },
        log, label: 'realwork', root,
    });
    const con = rig.console;
    const base = con.url.replace(/\/mcp$/, '');
    mkdirSync(path.join(root, 'ws'), { recursive: true });

    const per = {};
    const keys = Object.keys(agents).filter((k) => !process.env.REALWORK_ONLY || k === process.env.REALWORK_ONLY);
    for (const key of keys) {
        await check(`${key}: realistic sessions with the real agent: only the calls named as cards ask`, async () => {
            let actions = 0, total = 0;
            const wrong = [];
            mkdirSync(`${scratch}/${key}`, { recursive: true });
            for (const s of sessions) {
                const steps = [];
                let project;
                const tools = [...new Set(s.calls.map((call) => agents[key]('/x', call).tool))];
                const model = await startModelServer({ exactTool: tools, steps, log, label: `${key} model`, maxCalls: 4 });
                const before = (await con.audit()).length;
                const run = launch(key === 'claude-code' ? 'claude' : key, {
                    root, mcpUrl: con.url, token: con.token, model, prompt: 'Fix the failing behaviour and open a pull request.',
                    limitMs: 400_000, log, label: key,
                    // No package index here: pip fails at once instead of waiting on the network.
                    env: {
                        COUNTERSIGN_TOKEN: con.token, PIP_NO_INDEX: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1', npm_config_offline: 'true',
                        XDG_RUNTIME_DIR: path.join(con.dir, 'run'),
                    },
                    flags: key === 'codex' ? ['--dangerously-bypass-hook-trust', '--sandbox', 'danger-full-access'] : [],
                    prepare: (sb) => {
                        project = mkdtempSync(path.join(root, 'ws', `${key}-`));
                        commitProject(project, s.project);
                        sb.project = project;
                        steps.push(...s.calls.map((call) => agents[key](project, scratchOf(key, call))));
                        if (key === 'claude-code') {
                            writeClaudeHooks(sb.home, base, claudeMatcher);
                        } else {
                            execFileSync(opts.binary, ['hooks', 'install', key, '--data-dir', con.dataDir, '--config', con.configPath], {
                                env: { ...process.env, HOME: sb.home, CODEX_HOME: path.join(sb.home, '.codex'), XDG_RUNTIME_DIR: path.join(con.dir, 'run') },
                            });
                        }
                    },
                });
                // A human who did not want the card declines it at once; each card is counted once.
                const seen = new Map();
                let done = false;
                run.exited.then(() => { done = true; }, () => { done = true; });
                while (!done) {
                    for (const card of await con.cards()) {
                        if (!seen.has(card.nonce)) seen.set(card.nonce, card);
                        await con.decide('decline', '--nonce', card.nonce, '--reason', 'not wanted here');
                    }
                    await sleep(200);
                }
                await model.close();
                // The calls that came: all of them, or (Cline) those up to the first card.
                const cardAt = s.calls.findIndex((c) => c[c.length - 2] === 'card');
                const calls = stopsAtDecline.has(key) && cardAt >= 0 ? s.calls.slice(0, cardAt + 1) : s.calls;
                const expected = calls.filter((c) => c[c.length - 2] === 'card').map((c) => c[1]);
                const asked = [...seen.values()].map((c) => `${c.summary ?? ''} ${c.prompt ?? ''} ${(c.targets ?? []).join(' ')}`);
                for (const card of asked) {
                    if (!expected.some((e) => card.includes(e))) wrong.push(`${s.name}: a card nobody needs: ${card.split('\n')[0].slice(0, 160)}`);
                }
                for (const e of expected) {
                    if (!asked.some((card) => card.includes(e))) wrong.push(`${s.name}: ran with no card: ${e}`);
                }
                // Every call passed the gate: the agent's hook fired for each (its audit rows).
                const gated = (await con.audit()).length - before;
                if (gated < calls.length) wrong.push(`${s.name}: ${gated} of ${calls.length} calls reached the gate`);
                actions += calls.length;
                total += seen.size;
                console.log(`${key}: ${s.name}: ${calls.length} actions (${model.calls.length} model calls, ${gated} audited), ` +
                    `${seen.size} cards (${(100 * seen.size / calls.length).toFixed(1)} per 100)`);
            }
            per[key] = `${total} cards in ${actions} actions, ${(100 * total / actions).toFixed(1)} per 100`;
            console.log(`${key}: all sessions: ${per[key]}`);
            for (const w of wrong) console.log(`  ${w}`);
            assert.deepEqual(wrong, [], 'every card is one the sessions name, each one they name asks, and every call reaches the gate');
        });
    }
    console.log(`cards per agent: ${JSON.stringify(per, null, 1)}`);
} finally {
    rmSync(scratch, { recursive: true, force: true });
    await rig?.stop().catch(() => {});
    if (!opts.keep) rmSync(root, { recursive: true, force: true });
}
exitWithSummary();
