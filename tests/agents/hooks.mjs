#!/usr/bin/env node
// The agents' own tools through their hooks (issue 24), with the real Claude Code (2.1.328, pinned)
// driven headless by the scripted model to call its own Bash and Write tools, its PreToolUse and
// PostToolUse hooks pointed at the console (an HTTP hook with the connection's token, onFailure
// "block"), and the console's window under Xvfb deciding the cards:
//   - a shell command that needs a card does not run until approved in the window, and runs once;
//   - a write that needs a card, declined with a reason: the reason reaches the model, nothing written;
//   - a read-only command (ls inside the roots) runs with no card;
//   - with the console down, the command never runs.
//   node hooks.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--decide] [--verbose] [--keep]
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { check, exitWithSummary } from '../peer/checks.mjs';
import { launch } from './clients.mjs';
import { makeLog, parseArgs, sleep, startRig, workRoot } from './harness.mjs';
import { startModelServer } from './model-server.mjs';
import { installWatchdog } from './reaper.mjs';

const opts = parseArgs(process.argv.slice(2), 'usage: hooks.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--decide] [--verbose] [--keep]');
const root = workRoot('countersign-hooks-');
installWatchdog(420_000, 'hooks.mjs');
const log = makeLog('claude', opts.verbose);
const ws = path.join(root, 'ws');
mkdirSync(ws, { recursive: true });

// Claude Code's hooks, as `countersign hooks install claude-code` writes them.
const claudeHooks = (base) => {
    const hook = { type: 'http', url: `${base}/hooks/claude-code`, timeout: 600, onFailure: 'block',
                   headers: { Authorization: 'Bearer $COUNTERSIGN_TOKEN' }, allowedEnvVars: ['COUNTERSIGN_TOKEN'] };
    const matcher = 'Bash|Write|Edit|MultiEdit|NotebookEdit';
    return { hooks: { PreToolUse: [{ matcher, hooks: [hook] }], PostToolUse: [{ matcher, hooks: [hook] }] } };
};

// One run of Claude Code whose model calls tool(args) until it settles.
async function runClaude(rig, { tool, args, prompt, hooksBase, limitMs = 150_000 }) {
    const model = await startModelServer({ exactTool: tool, args, log, label: 'claude model' });
    const run = launch('claude', {
        root, mcpUrl: rig.console.url, token: rig.console.token, model, prompt, limitMs, log, label: 'claude',
        env: { COUNTERSIGN_TOKEN: rig.console.token },
        prepare: (sb) => {
            mkdirSync(path.join(sb.home, '.claude'), { recursive: true });
            writeFileSync(path.join(sb.home, '.claude', 'settings.json'), JSON.stringify(claudeHooks(hooksBase), null, 2));
        },
    });
    return { model, run };
}
const resultText = (model) => model.results.map((r) => r.text).join('\n');
const base = (url) => url.replace(/\/mcp$/, '');

let rig;
try {
    rig = await startRig(opts, { config: { workspaceRoots: [root], cardMinimumSeconds: 1 }, log, label: 'claude', root });
    const con = rig.console;

    await check('Claude Code: its own Bash runs a command that needs a card only after the approval in the window, once', async () => {
        const marker = path.join(ws, 'approved.txt');
        const { model, run } = await runClaude(rig, {
            tool: 'Bash', args: { command: `echo approved >> ${marker}`, description: 'append a line' },
            prompt: 'Append a line to approved.txt with Bash.', hooksBase: base(con.url),
        });
        const card = await con.waitForCard(90_000);
        assert.equal(card.tool, 'agent:shell', JSON.stringify(card));
        assert.match(card.title, /Claude Code's own shell/, JSON.stringify(card));
        await sleep(3000);
        assert.equal(existsSync(marker), false, 'nothing ran before the approval');
        await con.approve();
        await model.waitFor((m) => m.results.some((r) => !r.pending), 60_000, 'the command\'s result');
        const exit = await run.exited;
        assert.equal(readFileSync(marker, 'utf8'), 'approved\n', `ran once (exit ${exit.code}): ${resultText(model)}`);
        assert.deepEqual(await con.cards(), [], 'no card left');
        // Its PostToolUse report was matched to the approval and put in the chain.
        const recorded = con.lines.find((l) => /countersign\.hooks: recorded "agent-tool-ran" "Bash"/.test(l.line));
        assert.ok(recorded, `no matched report in the console's log:\n${con.lines.map((l) => l.line).filter((l) => /hooks/.test(l)).join('\n')}`);
    });

    await check('Claude Code: its own Write, declined in the window with a reason: the reason reaches the model and nothing is written', async () => {
        const target = path.join(ws, 'declined.txt');
        const { model, run } = await runClaude(rig, {
            tool: 'Write', args: { file_path: target, content: 'should never be written\n' },
            prompt: 'Write declined.txt.', hooksBase: base(con.url),
        });
        const card = await con.waitForCard(90_000);
        assert.equal(card.tool, 'agent:write', JSON.stringify(card));
        await con.decline('not this file, use notes.md');
        await model.waitFor((m) => m.results.length > 0, 60_000, 'the denial');
        await run.exited;
        assert.match(resultText(model), /not this file, use notes\.md/);
        assert.equal(existsSync(target), false);
    });

    await check('Claude Code: a read-only command inside the roots (ls) runs with no card', async () => {
        writeFileSync(path.join(ws, 'listed.txt'), 'x');
        const { model, run } = await runClaude(rig, {
            tool: 'Bash', args: { command: `ls ${ws}`, description: 'list' }, prompt: 'List the folder.', hooksBase: base(con.url),
        });
        await model.waitFor((m) => m.results.length > 0, 60_000, 'the listing');
        await run.exited;
        assert.match(resultText(model), /listed\.txt/);
        assert.deepEqual(await con.cards(), []);
    });

    await check('Claude Code: with the console down, its own Bash never runs', async () => {
        const marker = path.join(ws, 'down.txt');
        const hooksBase = base(con.url);
        await rig.stop();
        rig = null;
        const fakeRig = { console: { url: 'http://127.0.0.1:9/mcp', token: 'none' } };
        const { model, run } = await runClaude(fakeRig, {
            tool: 'Bash', args: { command: `touch ${marker}`, description: 'touch' }, prompt: 'Touch down.txt.', hooksBase,
        });
        await model.waitFor((m) => m.results.length > 0, 60_000, 'the blocked call');
        await run.exited;
        assert.equal(existsSync(marker), false, `ran with the console down: ${resultText(model)}`);
    });
} finally {
    await rig?.stop().catch(() => {});
    if (!opts.keep) rmSync(root, { recursive: true, force: true });
}
exitWithSummary();
