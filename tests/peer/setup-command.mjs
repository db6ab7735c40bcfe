#!/usr/bin/env node
// `countersign setup` over real configuration files in a fresh home, with the real agent CLIs
// (pinned by the lock file) on PATH (issue 39):
//   - setup CLIENT merges the hooks (or plugin) and the MCP server into files that already hold the
//     user's own settings, keeps those (in their order), and reports the agent ready or what it needs;
//   - --remove puts every file back byte for byte (or deletes the ones setup made) and revokes both
//     connections;
//   - a file it cannot parse is refused and nothing changes, no connection made;
//   - Codex: "fails open" until its hooks' hashes are trusted (as its /hooks screen writes them), then
//     ready; Gemini CLI: "fails open" until a folder is trusted;
//   - doctor with nothing set up says what to run; --all sets up only the agents on PATH.
//   node setup-command.mjs COUNTERSIGN_BINARY
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { check, exitWithSummary } from './checks.mjs';

const [binary] = process.argv.slice(2);
if (!binary) { console.error('usage: setup-command.mjs COUNTERSIGN_BINARY'); process.exit(1); }
const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, 'node_modules', '.bin');
const run = promisify(execFile);

const root = mkdtempSync(path.join(tmpdir(), 'countersign-setup-'));
let n = 0;
// A fresh home and data folder; PATH holds only the named agents' programs (and node).
function sandbox(agents = ['claude', 'codex', 'gemini', 'qwen', 'copilot', 'opencode', 'pi']) {
    const dir = path.join(root, `s${++n}`);
    const home = path.join(dir, 'home');
    const onPath = path.join(dir, 'bin');
    mkdirSync(home, { recursive: true });
    mkdirSync(onPath, { recursive: true });
    for (const name of ['node', ...agents])
        writeFileSync(path.join(onPath, name), `#!/bin/sh\nexec "${path.join(bin, name)}" "$@"\n`, { mode: 0o755 });
    const env = { PATH: `${onPath}:/usr/bin:/bin`, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local/share') };
    const cs = (...args) => run(binary, [...args, '--data-dir', path.join(dir, 'data'), '--config', path.join(dir, 'config.json')], { env, timeout: 120000 })
        .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (e) => ({ code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
    const file = (rel) => path.join(home, rel);
    const write = (rel, text) => { mkdirSync(path.dirname(file(rel)), { recursive: true }); writeFileSync(file(rel), text); };
    const read = (rel) => readFileSync(file(rel), 'utf8');
    const connections = async () => (await cs('token', 'list')).stdout;
    return { dir, home, env, cs, file, write, read, connections };
}

// hooks/list from `codex app-server`, which answers only while its stdin stays open.
function codexHooks(s) {
    return new Promise((resolve, reject) => {
        const child = spawn(path.join(bin, 'codex'), ['app-server'], { env: s.env, cwd: s.home, stdio: ['pipe', 'pipe', 'ignore'] });
        const timer = setTimeout(() => { child.kill(); reject(new Error('codex app-server did not answer')); }, 60000);
        let out = '';
        child.stdout.on('data', (d) => {
            out += d;
            for (const line of out.split('\n').slice(0, -1)) {
                try {
                    const m = JSON.parse(line);
                    if (m.id === 2) { clearTimeout(timer); child.stdin.end(); resolve(m); return; }
                } catch { /* not a whole message */ }
            }
        });
        child.stdin.write('{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}\n{"method":"initialized"}\n{"id":2,"method":"hooks/list","params":{}}\n');
    });
}

try {
    await check('claude-code: hooks and MCP server merged into the user\'s own files, reported ready; --remove puts both back byte for byte', async () => {
        const s = sandbox();
        // The user's own files, with their own keys in their own order and layout.
        const claudeJson = '{\n    "theme": "dark",\n    "numStartups": 7,\n    "mcpServers": {\n        "mine": {"command": "my-server"}\n    }\n}\n';
        const settings = '{"permissions":{"allow":["Bash(npm test)"]},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo done"}]}]}}';
        s.write('.claude.json', claudeJson);
        s.write('.claude/settings.json', settings);
        const r = await s.cs('setup', 'claude-code');
        assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
        assert.match(r.stdout, /Claude Code: ready \(.*claude 2\.1\.328\)/, r.stdout);
        const json = JSON.parse(s.read('.claude.json'));
        assert.deepEqual(Object.keys(json), ['theme', 'numStartups', 'mcpServers'], 'the user\'s keys keep their order');
        assert.deepEqual(json.mcpServers.mine, { command: 'my-server' });
        assert.equal(json.mcpServers.countersign.type, 'http');
        assert.match(json.mcpServers.countersign.headers.Authorization, /^Bearer cs_/);
        const hooks = JSON.parse(s.read('.claude/settings.json'));
        assert.deepEqual(hooks.permissions, { allow: ['Bash(npm test)'] });
        assert.ok(hooks.hooks.Stop && hooks.hooks.PreToolUse, JSON.stringify(hooks));
        assert.match(await s.connections(), /claude-code-hooks\t.*\tactive\t/);
        assert.match(await s.connections(), /claude-code-mcp\t.*\tactive\t/);
        const removed = await s.cs('setup', '--remove', 'claude-code');
        assert.equal(removed.code, 0, removed.stderr);
        assert.equal(s.read('.claude.json'), claudeJson, 'byte for byte');
        assert.equal(s.read('.claude/settings.json'), settings, 'byte for byte');
        const active = (await s.connections()).split('\n').filter((l) => /\tactive\t/.test(l)).join('\n');
        assert.doesNotMatch(active, /claude-code/, 'both connections are revoked');
    });

    await check('Claude Code reads the server setup wrote; after Claude Code rewrote its file, remove takes out only Countersign\'s entry', async () => {
        const s = sandbox();
        s.write('.claude.json', '{"theme": "dark", "mcpServers": {"mine": {"command": "my-server"}}}');
        assert.equal((await s.cs('setup', 'claude-code')).code, 0);
        const listed = spawnSync(path.join(bin, 'claude'), ['mcp', 'get', 'countersign'], { env: { ...s.env, PATH: `${bin}:/usr/bin:/bin` }, encoding: 'utf8', timeout: 60000 });
        assert.match(listed.stdout + listed.stderr, /countersign/, listed.stdout + listed.stderr);
        assert.match(listed.stdout + listed.stderr, /http:\/\/127\.0\.0\.1:\d+\/mcp/, listed.stdout + listed.stderr);
        // Claude Code keeps its own state in that file: it has written to it since.
        const rewritten = JSON.parse(s.read('.claude.json'));
        const ownKeys = Object.keys(rewritten).filter((k) => !['theme', 'mcpServers'].includes(k));
        assert.ok(ownKeys.length > 0, 'Claude Code added keys of its own');
        const removed = await s.cs('setup', '--remove', 'claude-code');
        assert.equal(removed.code, 0, removed.stderr);
        assert.match(removed.stdout, /changed since setup: your changes stay/, removed.stdout);
        const after = JSON.parse(s.read('.claude.json'));
        assert.deepEqual(after.mcpServers, { mine: { command: 'my-server' } });
        for (const k of ownKeys) assert.ok(k in after, `Claude Code's ${k} stays`);
    });

    await check('files setup made are deleted again; a file changed since setup keeps the user\'s change', async () => {
        const s = sandbox();
        assert.equal((await s.cs('setup', 'copilot')).code, 0);
        assert.ok(existsSync(s.file('.copilot/hooks/countersign.json')));
        assert.ok(existsSync(s.file('.copilot/mcp-config.json')));
        // The user adds a server of their own after setup.
        const mcp = JSON.parse(s.read('.copilot/mcp-config.json'));
        mcp.mcpServers.theirs = { type: 'http', url: 'http://127.0.0.1:9/mcp' };
        s.write('.copilot/mcp-config.json', JSON.stringify(mcp, null, 2));
        const removed = await s.cs('setup', '--remove', 'copilot');
        assert.equal(removed.code, 0, removed.stderr);
        assert.ok(!existsSync(s.file('.copilot/hooks/countersign.json')), 'the hooks file setup made is gone');
        const after = JSON.parse(s.read('.copilot/mcp-config.json'));
        assert.deepEqual(Object.keys(after.mcpServers), ['theirs'], JSON.stringify(after));
        assert.match(removed.stdout, /changed since setup: your changes stay/, removed.stdout);
    });

    await check('a file setup cannot parse is refused: nothing changes, no connection is made', async () => {
        const s = sandbox();
        const broken = '{"theme": "dark",, }';
        s.write('.claude.json', broken);
        const r = await s.cs('setup', 'claude-code');
        assert.equal(r.code, 1);
        assert.match(r.stderr, /\.claude\.json.*not valid JSON; nothing was changed/, r.stderr);
        assert.equal(s.read('.claude.json'), broken);
        assert.ok(!existsSync(s.file('.claude/settings.json')), 'the hooks were not written either');
        assert.doesNotMatch(await s.connections(), /claude-code/);
        const commented = '{\n  // my comment\n  "hooks": {}\n}\n';
        s.write('.gemini/settings.json', commented);
        const g = await s.cs('setup', 'gemini');
        assert.equal(g.code, 1);
        assert.match(g.stderr, /comments/, g.stderr);
        assert.equal(s.read('.gemini/settings.json'), commented);
    });

    await check('Codex fails open until its hooks are trusted by hash, then it is ready; remove keeps the trust lines', async () => {
        const s = sandbox();
        s.write('.codex/config.toml', 'model = "gpt-5.5"\n');
        const r = await s.cs('setup', 'codex');
        assert.equal(r.code, 1, 'not ready yet');
        assert.match(r.stdout, /Codex: fails open/, r.stdout);
        assert.match(r.stdout, /not trusted: until then every command runs unasked/, r.stdout);
        assert.match(r.stdout, /next: start codex, open \/hooks/, r.stdout);
        assert.match(s.read('.codex/config.toml'), /^model = "gpt-5\.5"\n\n# countersign: begin[^\n]*\n\[mcp_servers\.countersign\]\nurl = "http:\/\/127\.0\.0\.1:\d+\/mcp"\nhttp_headers = \{ "Authorization" = "Bearer cs_/);
        // Codex reads the server.
        const got = spawnSync(path.join(bin, 'codex'), ['mcp', 'get', 'countersign', '--json'], { env: s.env, encoding: 'utf8', timeout: 60000 });
        assert.match(got.stdout, /"url": ?"http:\/\/127\.0\.0\.1:\d+\/mcp"/, got.stdout + got.stderr);
        // Trust each hook as Codex's /hooks screen does: its key and current hash in config.toml.
        const answer = await codexHooks(s);
        const hooks = answer.result.data.flatMap((d) => d.hooks).filter((h) => h.command.includes('countersign'));
        assert.ok(hooks.length >= 3, JSON.stringify(answer));
        const trust = hooks.map((h) => `[hooks.state."${h.key}"]\ntrusted_hash = "${h.currentHash}"\n`).join('\n');
        writeFileSync(s.file('.codex/config.toml'), `${s.read('.codex/config.toml')}\n${trust}`);
        const again = await s.cs('setup', '--check', 'codex');
        assert.equal(again.code, 0, again.stdout);
        assert.match(again.stdout, /Codex: ready/, again.stdout);
        assert.match(again.stdout, new RegExp(`Codex runs all ${hooks.length} of Countersign's hooks`), again.stdout);
        // Trusted but turned off in /hooks: fails open again (the review found "ready" here).
        const trusted = s.read('.codex/config.toml');
        writeFileSync(s.file('.codex/config.toml'), trusted.replace(/trusted_hash = "[^"]*"\n/g, (line) => `${line}enabled = false\n`));
        const disabled = await s.cs('doctor', 'codex');
        assert.equal(disabled.code, 1, disabled.stdout);
        assert.match(disabled.stdout, new RegExp(`Codex: fails open[\\s\\S]*${hooks.length} of Countersign's ${hooks.length} hooks are disabled`), disabled.stdout);
        writeFileSync(s.file('.codex/config.toml'), trusted);
        const removed = await s.cs('setup', '--remove', 'codex');
        assert.equal(removed.code, 0, removed.stderr);
        const left = s.read('.codex/config.toml');
        assert.doesNotMatch(left, /mcp_servers\.countersign|countersign: begin/, left);
        assert.match(left, /^model = "gpt-5\.5"\n/);
        assert.match(left, /trusted_hash/, 'the user\'s trust lines stay');
    });

    await check('Gemini CLI fails open until a folder is trusted; pi has no MCP and is ready with its extension', async () => {
        const s = sandbox();
        const r = await s.cs('setup', 'gemini');
        assert.equal(r.code, 1);
        assert.match(r.stdout, /Gemini CLI: fails open/, r.stdout);
        assert.match(r.stdout, /trusts none yet/, r.stdout);
        s.write('.gemini/trustedFolders.json', JSON.stringify({ [path.join(s.home, 'project')]: 'TRUST_FOLDER' }));
        const again = await s.cs('doctor', 'gemini');
        assert.equal(again.code, 0, again.stdout);
        assert.match(again.stdout, /Gemini CLI: ready/, again.stdout);
        assert.match(again.stdout, /only in the folders it trusts: .*project/, again.stdout);
        const settings = JSON.parse(s.read('.gemini/settings.json'));
        assert.ok(settings.hooks && settings.mcpServers.countersign.httpUrl, JSON.stringify(settings));
        const pi = await s.cs('setup', 'pi');
        assert.equal(pi.code, 0, pi.stdout + pi.stderr);
        assert.match(pi.stdout, /pi: ready/, pi.stdout);
        assert.match(pi.stdout, /pi has no MCP client/, pi.stdout);
    });

    await check('an attacker\'s review: hooks turned off in the agent\'s settings are "fails open", a second setup never rolls back the user\'s edits, a malformed ledger is no crash', async () => {
        const s = sandbox();
        assert.equal((await s.cs('setup', 'claude-code')).code, 0);
        const settings = JSON.parse(s.read('.claude/settings.json'));
        s.write('.claude/settings.json', JSON.stringify({ ...settings, disableAllHooks: true }));
        const off = await s.cs('doctor', 'claude-code');
        assert.equal(off.code, 1, off.stdout);
        assert.match(off.stdout, /Claude Code: fails open[\s\S]*disableAllHooks/, off.stdout);
        s.write('.gemini/trustedFolders.json', JSON.stringify({ [path.join(s.home, 'p')]: 'TRUST_FOLDER' }));
        assert.equal((await s.cs('setup', 'gemini')).code, 0);
        const gemini = JSON.parse(s.read('.gemini/settings.json'));
        s.write('.gemini/settings.json', JSON.stringify({ ...gemini, hooksConfig: { enabled: false } }));
        const geminiOff = await s.cs('doctor', 'gemini');
        assert.match(geminiOff.stdout, /Gemini CLI: fails open[\s\S]*hooksConfig/, geminiOff.stdout);
        // Setup, the user's own edit, setup again, then remove: the edit stays.
        s.write('.codex/config.toml', 'model = "o3"\n');
        await s.cs('setup', 'codex');
        s.write('.codex/config.toml', `${s.read('.codex/config.toml')}\n[projects."/src"]\ntrust_level = "trusted"\n`);
        await s.cs('setup', 'codex');
        const removed = await s.cs('setup', '--remove', 'codex');
        assert.equal(removed.code, 0, removed.stderr);
        const left = s.read('.codex/config.toml');
        assert.match(left, /\[projects\."\/src"\]\ntrust_level = "trusted"/, left);
        assert.doesNotMatch(left, /mcp_servers/, left);
        // A ledger with the wrong types: remove still takes Countersign's entries out.
        await s.cs('setup', 'qwen');
        const ledger = path.join(s.dir, 'data', 'setup', 'qwen.json');
        writeFileSync(ledger, JSON.stringify({ files: [{ path: s.file('.qwen/settings.json'), before: 7, mode: '0600', after: null }] }));
        const qwen = await s.cs('setup', '--remove', 'qwen');
        assert.equal(qwen.code, 0, qwen.stderr);
        assert.doesNotMatch(s.read('.qwen/settings.json'), /countersign/, s.read('.qwen/settings.json'));
    });

    await check('doctor before any setup says what to run; --all sets up only the agents on PATH', async () => {
        const s = sandbox(['claude', 'opencode']);
        const doctor = await s.cs('doctor');
        assert.equal(doctor.code, 1);
        assert.match(doctor.stdout, /Claude Code: fails open[\s\S]*next: countersign setup claude-code/, doctor.stdout);
        assert.match(doctor.stdout, /Codex: not installed/, doctor.stdout);
        const all = await s.cs('setup', '--all');
        assert.equal(all.code, 0, all.stdout + all.stderr);
        assert.match(all.stdout, /Claude Code: ready/, all.stdout);
        assert.match(all.stdout, /opencode: ready/, all.stdout);
        assert.doesNotMatch(all.stdout, /Codex|Gemini|Qwen|Copilot|^pi/m, all.stdout);
        assert.ok(!existsSync(s.file('.codex')) && !existsSync(s.file('.gemini')), readdirSync(s.home).join(' '));
        const oc = JSON.parse(s.read('.config/opencode/opencode.json'));
        assert.equal(oc.mcp.countersign.type, 'remote');
        assert.ok(existsSync(s.file('.config/opencode/plugin/countersign.js')));
    });

    await check('cline: its hook script and its MCP server (streamableHttp, in cline_mcp_settings.json beside the user\'s own server), reported ready; --remove puts both back byte for byte', async () => {
        const s = sandbox(['cline']);
        const mine = '{\n  "mcpServers": {\n    "mine": {"transport": {"type": "stdio", "command": "my-server"}}\n  }\n}\n';
        s.write('.cline/data/settings/cline_mcp_settings.json', mine);
        const r = await s.cs('setup', 'cline');
        assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
        assert.match(r.stdout, /Cline CLI: ready/, r.stdout);
        const settings = JSON.parse(s.read('.cline/data/settings/cline_mcp_settings.json'));
        assert.deepEqual(Object.keys(settings.mcpServers), ['mine', 'countersign']);
        const t = settings.mcpServers.countersign.transport;
        assert.equal(t.type, 'streamableHttp');
        assert.match(t.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        assert.match(t.headers.Authorization, /^Bearer cs_/);
        assert.match(s.read('.cline/hooks/PreToolUse'), /countersign-hook|countersign.* hook/);
        assert.match(await s.connections(), /cline-mcp\t.*\tactive\t/);
        assert.match(await s.connections(), /cline-hooks\t.*\tactive\t/);
        const removed = await s.cs('setup', '--remove', 'cline');
        assert.equal(removed.code, 0, removed.stderr);
        assert.equal(s.read('.cline/data/settings/cline_mcp_settings.json'), mine, 'byte for byte');
        assert.ok(!existsSync(s.file('.cline/hooks/PreToolUse')));
        assert.doesNotMatch(await s.connections(), /\tactive\t/, 'both connections revoked');
    });
} finally {
    rmSync(root, { recursive: true, force: true });
}
exitWithSummary();
