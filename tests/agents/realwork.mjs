#!/usr/bin/env node
// The realistic sessions of tests/shell/sessions.json done by the real Claude Code (pinned),
// headless under the scripted model: each session's calls are the model's tool calls, in order,
// in a project of the agent's sandbox (the same committed Python package or Node project), with
// its PreToolUse and PostToolUse hooks on the console in standard mode. Claude Code runs what is
// allowed for real; every card that shows is declined at once, as a human who did not want it
// would, and counted. Prints cards per 100 actions, per session and in all; only the calls the
// sessions name as cards may ask (issue 49: what a client really does is the requirement).
//   node realwork.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--verbose] [--keep]
import assert from 'node:assert/strict';
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
const scratch = `/tmp/countersign-sessions-${process.pid}`;
for (const s of sessions)
    s.calls = s.calls.map((call) => call.map((part) => part.replaceAll('/tmp/countersign-sessions-scratch', scratch)));
const root = workRoot('countersign-realwork-');
installWatchdog(900_000, 'realwork.mjs');
const log = makeLog('realwork', opts.verbose);
const matcher = '^(Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Glob|Grep|LS|mcp__.*)$';

// A session's call as Claude Code's own tool call, with paths in the project.
const stepOf = (project, [tool, a, b, c]) => {
    if (tool === 'Bash') return { tool, args: { command: a, description: 'work' } };
    if (tool === 'Read') return { tool, args: { file_path: path.join(project, a) } };
    if (tool === 'Write') return { tool, args: { file_path: path.join(project, a), content: b } };
    return { tool, args: { file_path: path.join(project, a), old_string: b, new_string: c } };
};

let rig;
try {
    rig = await startRig(opts, {
        config: { workspaceRoots: [path.join(root, 'ws')], cardMinimumSeconds: 0, hookHoldSeconds: 3 },
        log, label: 'realwork', root,
    });
    const con = rig.console;
    const base = con.url.replace(/\/mcp$/, '');
    mkdirSync(path.join(root, 'ws'), { recursive: true });

    await check('realistic sessions done by the real Claude Code: only the calls named as cards ask', async () => {
        let actions = 0, total = 0;
        const wrong = [];
        for (const s of sessions) {
            const steps = [];
            let project;
            const model = await startModelServer({ exactTool: ['Bash', 'Read', 'Write', 'Edit'], steps, log, label: 'realwork model', maxCalls: 4 });
            const run = launch('claude', {
                root, mcpUrl: con.url, token: con.token, model, prompt: 'Fix the failing behaviour and open a pull request.',
                limitMs: 400_000, log, label: 'claude',
                // No package index here: pip fails at once instead of waiting on the network.
                env: { COUNTERSIGN_TOKEN: con.token, PIP_NO_INDEX: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1', npm_config_offline: 'true' },
                prepare: (sb) => {
                    project = mkdtempSync(path.join(root, 'ws', 'project-'));
                    commitProject(project, s.project);
                    sb.project = project;
                    steps.push(...s.calls.map((call) => stepOf(project, call)));
                    writeClaudeHooks(sb.home, base, matcher);
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
            const expected = s.calls.filter((c) => c[c.length - 2] === 'card').map((c) => c[1]);
            const asked = [...seen.values()].map((c) => `${c.summary ?? ''} ${c.prompt ?? ''} ${(c.targets ?? []).join(' ')}`);
            for (const card of asked) {
                if (!expected.some((e) => card.includes(e))) wrong.push(`${s.name}: a card nobody needs: ${card.split('\n')[0].slice(0, 160)}`);
            }
            for (const e of expected) {
                if (!asked.some((card) => card.includes(e))) wrong.push(`${s.name}: ran with no card: ${e}`);
            }
            const calls = model.calls.length;
            actions += s.calls.length;
            total += seen.size;
            console.log(`${s.name}: ${s.calls.length} actions (${calls} model calls), ${seen.size} cards ` +
                `(${(100 * seen.size / s.calls.length).toFixed(1)} per 100)`);
        }
        console.log(`all sessions with the real Claude Code: ${actions} actions, ${total} cards, ${(100 * total / actions).toFixed(1)} cards per 100 actions`);
        for (const w of wrong) console.log(`  ${w}`);
        assert.deepEqual(wrong, [], 'every card is one the sessions name, and each one they name asks');
    });
} finally {
    rmSync(scratch, { recursive: true, force: true });
    await rig?.stop().catch(() => {});
    if (!opts.keep) rmSync(root, { recursive: true, force: true });
}
exitWithSummary();
