#!/usr/bin/env node
// The agents' own tools through their hooks (issue 24), with the real Claude Code (2.1.328, pinned)
// driven headless by the scripted model to call its own Bash and Write tools, its PreToolUse and
// PostToolUse hooks pointed at the console (an HTTP hook with the connection's token, onFailure
// "block"), and the console's window under Xvfb deciding the cards:
//   - a shell command that needs a card does not run until approved in the window, and runs once;
//   - a write that needs a card, declined with a reason: the reason reaches the model, nothing written;
//     approved: written once;
//   - a read-only command (ls inside the roots) runs with no card;
//   - with the console down, the command never runs;
// and the same for Codex 0.169.0 (exec_command, apply_patch) and Gemini CLI 0.61.0
// (run_shell_command, write_file) through the `countersign hook` shim, their hooks written by
// `countersign hooks install` into the sandbox.
//   node hooks.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--decide] [--verbose] [--keep]
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
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
    // Strict mode: every change asks, so that an append and a write inside the roots raise the cards
    // these cases decide (standard mode lets them run; tests/shell holds its decisions).
    rig = await startRig(opts, { config: { workspaceRoots: [root], cardMinimumSeconds: 1, mode: 'strict' }, log, label: 'claude', root });
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

    await check('Claude Code: its own Write, approved in the window: the file is written once, as the card showed', async () => {
        const target = path.join(ws, 'written.txt');
        const { model, run } = await runClaude(rig, {
            tool: 'Write', args: { file_path: target, content: 'approved content\n' },
            prompt: 'Write written.txt.', hooksBase: base(con.url),
        });
        const card = await con.waitForCard(90_000);
        assert.equal(card.tool, 'agent:write', JSON.stringify(card));
        await sleep(2000);
        assert.equal(existsSync(target), false, 'nothing written before the approval');
        await con.approve();
        await model.waitFor((m) => m.results.some((r) => !r.pending), 60_000, 'the write\'s result');
        await run.exited;
        assert.equal(readFileSync(target, 'utf8'), 'approved content\n', resultText(model));
        // The post report matched the approval, and the file is what the card showed.
        const recorded = con.lines.find((l) => /countersign\.hooks: recorded "agent-tool-ran" "Write"/.test(l.line));
        assert.ok(recorded, con.lines.map((l) => l.line).filter((l) => /hooks/.test(l)).join('\n'));
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

    // Codex and Gemini CLI through the shim, their hooks written by `countersign hooks install`
    // into the sandbox's HOME (the token in a file of the data folder, not in their settings).
    const viaShim = async (key, { tool, args, prompt, flags = [] }) => {
        const model = await startModelServer({ exactTool: tool, args, log, label: `${key} model` });
        const run = launch(key, {
            root, mcpUrl: con.url, token: con.token, model, prompt, limitMs: 150_000, log, label: key, flags,
            env: { XDG_RUNTIME_DIR: path.join(con.dir, 'run') }, // the console's socket folder, as in one login
            prepare: (sb) => {
                const out = execFileSync(opts.binary, ['hooks', 'install', key === 'gemini' ? 'gemini' : 'codex', '--data-dir', con.dataDir, '--config', con.configPath],
                    { env: { ...process.env, HOME: sb.home, CODEX_HOME: path.join(sb.home, '.codex'), XDG_RUNTIME_DIR: path.join(con.dir, 'run') } }).toString();
                log(`${key} hooks install: ${out.trim()}`);
            },
        });
        return { model, run };
    };
    const shimClients = [
        ['codex', 'Codex', 'exec_command', (f) => ({ cmd: `echo approved >> ${f}` }), ['--dangerously-bypass-hook-trust']],
        ['gemini', 'Gemini CLI', 'run_shell_command', (f) => ({ command: `echo approved >> ${f}`, description: 'append' }), []],
    ];
    // Their own file writes: Gemini CLI's write_file (a path relative to its project folder: it
    // refuses any outside it before its hooks run), Codex's apply_patch (a freeform tool).
    const shimWrites = [
        ['gemini', 'Gemini CLI', 'write_file', () => ({ file_path: 'written-gemini.txt', content: 'approved content\n' }), [],
            (run) => path.join(run.sandbox.project, 'written-gemini.txt')],
        ['codex', 'Codex', 'apply_patch', (f) => ({ input: `*** Begin Patch\n*** Add File: ${f}\n+approved content\n*** End Patch\n` }), ['--dangerously-bypass-hook-trust'],
            () => path.join(ws, 'written-codex.txt')],
    ];
    for (const [key, name, tool, args, flags, where] of shimWrites) {
        await check(`${name}: its own ${tool}, approved in the window: the file is written once (hooks install, the shim)`, async () => {
            const { model, run } = await viaShim(key, { tool, args: args(path.join(ws, `written-${key}.txt`)), prompt: 'Write the file.', flags });
            const target = where(run);
            const card = await con.waitForCard(90_000).catch((e) => { throw new Error(`${e.message}; offered: ${model.toolNames.join(', ')}`); });
            assert.match(card.tool, /^agent:(write|patch)$/, JSON.stringify(card));
            await sleep(2000);
            assert.equal(existsSync(target), false, 'nothing written before the approval');
            await con.approve();
            await model.waitFor((m) => m.results.some((r) => !r.pending), 60_000, 'the write\'s result');
            await run.exited;
            assert.equal(readFileSync(target, 'utf8'), 'approved content\n', `written once: ${resultText(model)}`);
        });
        await check(`${name}: its own ${tool}, declined in the window with a reason: the reason reaches the model and nothing is written`, async () => {
            const { model, run } = await viaShim(key, { tool, args: args(path.join(ws, `written-${key}-declined.txt`)), prompt: 'Write the file.', flags });
            await con.waitForCard(90_000);
            await con.decline('no writes today');
            await model.waitFor((m) => m.results.length > 0, 60_000, 'the denial');
            await run.exited;
            assert.match(resultText(model), /no writes today/);
            // Gemini CLI writes into its sandbox's project folder (a new sandbox each run), Codex where it is told.
            const target = key === 'codex' ? path.join(ws, 'written-codex-declined.txt') : path.join(run.sandbox.project, 'written-gemini.txt');
            assert.equal(existsSync(target), false, 'nothing written');
        });
    }
    for (const [key, name, tool, args, flags] of shimClients) {
        await check(`${name}: its own shell runs a command that needs a card only after the approval in the window, once (hooks install, the shim)`, async () => {
            const marker = path.join(ws, `approved-${key}.txt`);
            const { model, run } = await viaShim(key, { tool, args: args(marker), prompt: 'Append a line with the shell.', flags });
            const card = await con.waitForCard(90_000).catch((e) => { throw new Error(`${e.message}; offered: ${model.toolNames.join(', ')}`); });
            assert.equal(card.tool, 'agent:shell', JSON.stringify(card));
            await sleep(3000);
            assert.equal(existsSync(marker), false, 'nothing ran before the approval');
            await con.approve();
            await model.waitFor((m) => m.results.some((r) => !r.pending), 60_000, 'the command\'s result');
            await run.exited;
            assert.equal(readFileSync(marker, 'utf8'), 'approved\n', `ran once: ${resultText(model)}`);
        });
        await check(`${name}: its own shell, declined in the window with a reason: the reason reaches the model and nothing runs`, async () => {
            const marker = path.join(ws, `declined-${key}.txt`);
            const { model, run } = await viaShim(key, { tool, args: args(marker), prompt: 'Append a line with the shell.', flags });
            await con.waitForCard(90_000);
            await con.decline('not in this repository');
            await model.waitFor((m) => m.results.length > 0, 60_000, 'the denial');
            await run.exited;
            assert.match(resultText(model), /not in this repository/);
            assert.equal(existsSync(marker), false);
        });
    }

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
    await check('Claude Code: with the console down, its own Write never writes', async () => {
        const target = path.join(ws, 'down-claude.txt');
        const fakeRig = { console: { url: 'http://127.0.0.1:9/mcp', token: 'none' } };
        const { model, run } = await runClaude(fakeRig, {
            tool: 'Write', args: { file_path: target, content: 'x\n' }, prompt: 'Write down-claude.txt.', hooksBase: base(con.url),
        });
        await model.waitFor((m) => m.results.length > 0, 60_000, 'the blocked call');
        await run.exited;
        assert.equal(existsSync(target), false, `written with the console down: ${resultText(model)}`);
    });
    for (const [key, name, tool, args, flags] of shimWrites) {
        await check(`${name}: with the console down, its own ${tool} never writes (the shim denies)`, async () => {
            const { model, run } = await viaShim(key, { tool, args: args(path.join(ws, `down-${key}.txt`)), prompt: 'Write the file.', flags });
            await model.waitFor((m) => m.results.length > 0, 60_000, 'the blocked call');
            await run.exited;
            assert.match(resultText(model), /Countersign is not running/);
            assert.equal(existsSync(path.join(ws, `down-${key}.txt`)), false, `written with the console down: ${resultText(model)}`);
            assert.equal(existsSync(path.join(run.sandbox.project, 'written-gemini.txt')), false);
        });
    }
    for (const [key, name, tool, args, flags] of shimClients) {
        await check(`${name}: with the console down, its own shell never runs (the shim denies)`, async () => {
            const marker = path.join(ws, `down-${key}.txt`);
            const { model, run } = await viaShim(key, { tool, args: args(marker), prompt: 'Append a line with the shell.', flags });
            await model.waitFor((m) => m.results.length > 0, 60_000, 'the blocked call');
            await run.exited;
            assert.match(resultText(model), /Countersign is not running/);
            assert.equal(existsSync(marker), false, `ran with the console down: ${resultText(model)}`);
        });
    }
} finally {
    await rig?.stop().catch(() => {});
    if (!opts.keep) rmSync(root, { recursive: true, force: true });
}
exitWithSummary();
