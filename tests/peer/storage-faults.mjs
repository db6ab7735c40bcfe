#!/usr/bin/env node
// A full disk and a read-only file system under the real binary. With the disk full while it
// runs, every call that would need a record gets a clear error and runs nothing, no approval is
// granted because a decision could not be stored, and the server serves again once there is room.
// A read-only or full data folder at start-up is refused with the reason, and the audit commands
// still read and verify the log in a read-only folder. The data folder is a
// small tmpfs mounted in a private mount namespace (unshare -rm), so the disk is really full
// (ENOSPC) and really read-only (EROFS); the test host's tools run inside it through nsenter.
// (Linux refuses to remount a file system read-only while a file on it is open for writing, so a
// running server's database turns read-only only by a kernel error; the console's side of that
// case is in mainwindow_test.)
//   node storage-faults.mjs COUNTERSIGN_BINARY DECIDE_BINARY
// Exits 77 (skipped) where user namespaces are not allowed.
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitForListening } from './countersign-process.mjs';
import { check, exitWithSummary } from './checks.mjs';

if (process.argv.length < 4) { console.error('usage: storage-faults.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const [binary, decideBinary] = process.argv.slice(2).map((p) => path.resolve(p)); // nsenter runs them elsewhere
try {
    execFileSync('unshare', ['-rm', 'true'], { stdio: 'ignore' });
} catch {
    console.log('SKIP: this machine does not allow user and mount namespaces (unshare -rm)');
    process.exit(77);
}
const run = promisify(execFile);

const work = mkdtempSync(path.join(tmpdir(), 'countersign-storage-'));
const victims = path.join(work, 'victims');
mkdirSync(victims);
const runsFile = path.join(victims, 'runs');
const runs = (dir) => (existsSync(runsFile) ? readFileSync(runsFile, 'utf8').split('\n').filter((l) => l === dir).length : 0);
const makeVictim = (name) => { mkdirSync(path.join(victims, name)); writeFileSync(path.join(victims, name, 'f.txt'), 'x'); };
const configPath = path.join(work, 'config.json');
writeFileSync(configPath, JSON.stringify({
    keyStore: 'file',
    pollWindowSeconds: 1,
    actions: ['delete_dir', 'delete_scratch'].map((name) => ({
        name, title: 'Delete a directory', risk: 'medium', workingDirectory: victims,
        inputSchema: { type: 'object', properties: { dir: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['dir'], additionalProperties: false },
        plan: ['sh', '-c', 'printf \'{"summary":"delete %s","targets":["%s"]}\' "$1" "$1"', 'plan', '{dir}'],
        apply: ['sh', '-c', 'echo "$1" >> runs; rm -r "$1"', 'apply', '{dir}'],
    })),
    rules: [{ tool: 'delete_scratch', decision: 'allow', reason: 'scratch space' }],
}));

// The server in its own mount namespace, its data folder on a tmpfs of `size` at `mnt` (a path
// that exists only inside). `beforeStart` is shell run inside before the server starts.
async function startInNamespace({ size = '8m', beforeStart = 'true' } = {}) {
    const mnt = path.join(work, `mnt-${Math.random().toString(36).slice(2)}`);
    mkdirSync(mnt);
    const script = 'mount -t tmpfs -o size="$1" tmpfs "$2" && "$3" token add agent --data-dir "$2/data" 2>/dev/null && '
        + beforeStart + ' && '
        + 'exec "$3" --headless --listen 127.0.0.1:0 --data-dir "$2/data" --config "$4"';
    const child = spawn('unshare', ['-rm', 'sh', '-c', script, 'sh', size, mnt, binary, configPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    let stdout = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    let listening;
    try {
        listening = await waitForListening(child);
    } catch (e) {
        return { failed: e.message, exited };
    }
    // A command in the server's mount namespace, where the data folder is.
    const inside = (command, args) => run('nsenter', ['-t', String(child.pid), '-U', '-m', command, ...args]);
    const dataDir = path.join(mnt, 'data');
    return {
        url: listening.url, token: stdout.trim(), stderr: listening.stderr, exited,
        decide: (verb, ...args) => inside(decideBinary, [dataDir, verb, ...args]).then(({ stdout: out }) => JSON.parse(out)),
        auditVerify: () => inside(binary, ['audit', 'verify', '--data-dir', dataDir]).then(({ stdout: out }) => out),
        fill: () => inside('dd', ['if=/dev/zero', `of=${path.join(mnt, 'filler')}`, 'bs=64k']).catch(() => 'full'),
        unfill: () => inside('rm', [path.join(mnt, 'filler')]),
        async stop() { child.kill('SIGTERM'); await exited; },
    };
}

async function call(server, name, args, requestState) {
    const params = { name, arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } };
    if (requestState) params.requestState = requestState;
    const response = await fetch(server.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
    });
    assert.equal(response.status, 200);
    return (await response.json()).result;
}
const cards = async (server) => (await server.decide('list')).length;

// What every fault must leave true: a first pass, an allowed call and a console approval all fail
// with a clear error, nothing runs, and the pending ticket stays unapproved.
async function failsClosed(server, ticket, pendingDir, cause) {
    makeVictim('refused');
    makeVictim('scratch');
    const before = await cards(server);
    const first = await call(server, 'delete_dir', { dir: 'refused' });
    assert.equal(first.isError, true);
    console.log(`     the agent is told: ${first.content[0].text}`);
    assert.match(first.content[0].text, new RegExp(`^Countersign could not record this call \\(.*${cause}.*\\)\\. Nothing was run\\.$`));
    assert.equal(await cards(server), before, 'no card was made');
    const allowed = await call(server, 'delete_scratch', { dir: 'scratch' });
    assert.equal(allowed.isError, true, 'an allowed call is not run unrecorded');
    assert.match(allowed.content[0].text, /could not record this call/);
    await assert.rejects(server.decide('approve', '--wait-ms', '0'), (e) => {
        console.log(`     the console is told: ${e.stderr.trim()}`);
        return new RegExp(cause).test(e.stderr);
    });
    const retried = await call(server, 'delete_dir', { dir: pendingDir }, ticket);
    assert.equal(retried.resultType, 'input_required', 'still waiting for a decision');
    assert.equal(runs('refused') + runs('scratch') + runs(pendingDir), 0);
    assert.ok(existsSync(path.join(victims, pendingDir, 'f.txt')));
}

// After the fault is gone: the same ticket is approved and runs once, and the chain verifies.
async function recovers(server, ticket, pendingDir) {
    await server.decide('approve');
    const done = await call(server, 'delete_dir', { dir: pendingDir }, ticket);
    assert.equal(done.resultType, 'complete', JSON.stringify(done));
    assert.ok(done._meta['dev.countersign/receipt']);
    assert.equal(runs(pendingDir), 1);
    const allowed = await call(server, 'delete_scratch', { dir: 'scratch' });
    assert.notEqual(allowed.isError, true, JSON.stringify(allowed));
    assert.match(await server.auditVerify(), /audit log intact/);
}

try {
    await check('disk full: clear errors, no card, no run, no approval; after space is freed the ticket is approved and runs once', async () => {
        const server = await startInNamespace();
        assert.ok(!server.failed, server.failed);
        try {
            makeVictim('full-a');
            const first = await call(server, 'delete_dir', { dir: 'full-a' });
            assert.equal(first.resultType, 'input_required');
            assert.equal(await server.fill(), 'full');
            await failsClosed(server, first.requestState, 'full-a', 'database or disk is full');
            await server.unfill();
            await recovers(server, first.requestState, 'full-a');
        } finally {
            await server.stop();
        }
        rmSync(path.join(victims, 'runs'), { force: true });
    });

    await check('a read-only data folder at start-up: the server refuses to start and says why; the audit log still reads', async () => {
        // The audit commands run in the read-only folder first (their output goes to stderr here).
        const server = await startInNamespace({
            beforeStart: 'mount -o remount,ro "$2" && "$3" audit verify --data-dir "$2/data" >&2 && '
                + '"$3" audit export --format json --data-dir "$2/data" >&2',
        });
        assert.ok(server.failed, 'it must not start');
        assert.equal((await server.exited).code, 1);
        assert.match(server.failed, /audit log intact: \d+ rows/);
        assert.match(server.failed, /\[\]/, 'an empty export: no operation yet');
        console.log(`     ${server.failed.replace(/^server exited 1: /, '').trim()}`);
        assert.match(server.failed, /countersign: .*not writable.*Read-only file system/);
    });

    await check('a full disk at start-up: the server refuses to start and says why', async () => {
        const server = await startInNamespace({ beforeStart: 'dd if=/dev/zero of="$2/filler" bs=64k 2>/dev/null; true' });
        assert.ok(server.failed, 'it must not start');
        assert.equal((await server.exited).code, 1);
        console.log(`     ${server.failed.replace(/^server exited 1: /, '').trim()}`);
        assert.match(server.failed, /countersign: .*(No space left on device|disk is full)/);
    });
} finally {
    rmSync(work, { recursive: true, force: true });
}

exitWithSummary();
