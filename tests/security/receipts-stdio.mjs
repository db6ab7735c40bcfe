#!/usr/bin/env node
// Issue 12, last item: `countersign receipt verify` on a whole tool result did not compare the
// result with its resultDigest (an edited result verified), and `--stdio` needed no token, so
// revoking a connection did not lock its agent out. Real binary, real approved run, real stdio.
//   node receipts-stdio.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { callTool, check, decide, exitWithSummary, startCountersign, textOf } from './attacker.mjs';
import { stopConsoleOf } from '../peer/countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: receipts-stdio.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);

const work = mkdtempSync(path.join(tmpdir(), 'countersign-sec-receipts-'));
const schema = { type: 'object', properties: { dir: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['dir'], additionalProperties: false };
const touchIt = { name: 'touch_it', title: 'Touch a marker', inputSchema: schema, workingDirectory: work, risk: 'medium',
    plan: ['sh', '-c', 'echo "would touch ran-$1"', 'plan', '{dir}'], apply: ['sh', '-c', 'touch "ran-$1" && echo "touched ran-$1"', 'apply', '{dir}'] };
const ran = (dir) => existsSync(path.join(work, `ran-${dir}`));
const server = await startCountersign(binary, { config: { pollWindowSeconds: 2, actions: [touchIt] }, tokenName: 'agent' });

// `countersign receipt verify FILE` on `doc` written as is (a string) or as JSON; { code, out }.
async function verify(name, doc) {
    const file = path.join(work, name);
    writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
    try {
        const { stdout } = await run(binary, ['receipt', 'verify', file, '--data-dir', server.dataDir]);
        return { code: 0, out: stdout };
    } catch (e) {
        return { code: e.code, out: `${e.stdout}${e.stderr}` };
    }
}

// The stdio server: its own data folder and a configuration where touch_it runs without a card.
const stdioData = path.join(work, 'stdio-data');
const stdioConfig = path.join(work, 'stdio-config.json');
writeFileSync(stdioConfig, JSON.stringify({ keyStore: 'file', actions: [touchIt], rules: [{ tool: 'touch_it', decision: 'allow' }] }));
const cli = (...args) => execFileSync(binary, [...args, '--data-dir', stdioData], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const line = (id, method, params = {}) => `${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope } })}\n`;
const envWith = (token) => {
    const env = { ...process.env };
    delete env.COUNTERSIGN_TOKEN;
    return token === undefined ? env : { ...env, COUNTERSIGN_TOKEN: token };
};

// `countersign --stdio` with `token` (undefined: none); send() writes a line and resolves with the
// next answer line parsed; exited resolves with { code, out, err }.
function startStdio(token) {
    const child = spawn(binary, ['--stdio', '--data-dir', stdioData, '--config', stdioConfig, '--listen', '127.0.0.1:0'], { env: envWith(token), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let waiting = null;
    const take = () => {
        const at = out.indexOf('\n');
        if (waiting && at >= 0) { const answer = out.slice(0, at); out = out.slice(at + 1); waiting(JSON.parse(answer)); waiting = null; }
    };
    child.stdout.on('data', (chunk) => { out += chunk; take(); });
    child.stderr.on('data', (chunk) => { err += chunk; });
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
    const send = (text) => new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer within 10 s; stderr: ${err}`)), 10000);
        waiting = (answer) => { clearTimeout(timer); resolve(answer); };
        child.stdin.write(text);
        take();
    });
    return { child, send, exited };
}

try {
    let result;
    await check('an approved run\'s whole result, saved to a file: receipt verify exits 0 (matches its resultDigest)', async () => {
        const first = await callTool(server, 'touch_it', { dir: 'approved' });
        assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
        await decide(server, decideBinary, 'approve');
        const done = await callTool(server, 'touch_it', { dir: 'approved' }, { requestState: first.result.requestState }, 2);
        result = done.result;
        assert.ok(result?.resultType === 'complete' && result.isError !== true && ran('approved'), JSON.stringify(done));
        assert.ok(result._meta['dev.countersign/receipt'], 'a receipt');
        const { code, out } = await verify('result.json', result);
        assert.equal(code, 0, out);
        assert.match(out, /receipt valid/);
        assert.match(out, /matches its resultDigest/);
    });

    await check('the same result with its text edited: receipt verify exits 1 ("differs from the one the receipt signed")', async () => {
        const edited = structuredClone(result);
        assert.match(textOf({ result: edited }), /touched ran-approved/);
        edited.content[0].text = edited.content[0].text.replace('ran-approved', 'ran-approvex');
        const { code, out } = await verify('edited.json', edited);
        console.log(`     edited -> exit ${code}: ${out.trim()}`);
        assert.equal(code, 1, out);
        assert.match(out, /INVALID: the result differs from the one the receipt signed/);
    });

    await check('the same result truncated (not JSON): receipt verify exits 2', async () => {
        const text = JSON.stringify(result);
        const { code, out } = await verify('truncated.json', text.slice(0, Math.floor(text.length / 2)));
        console.log(`     truncated -> exit ${code}: ${out.trim()}`);
        assert.equal(code, 2, out);
    });

    await check('--stdio without COUNTERSIGN_TOKEN: exit 1, says how to get one, serves nothing', async () => {
        const s = startStdio(undefined);
        s.child.stdin.end(line(1, 'tools/list'));
        const { code, out, err } = await s.exited;
        console.log(`     no token -> exit ${code}: ${err.trim()}`);
        assert.equal(code, 1);
        assert.equal(out, '', 'nothing on stdout');
        assert.match(err, /COUNTERSIGN_TOKEN/);
        assert.match(err, /countersign token add NAME/);
    });

    const token = cli('token', 'add', 'ide');
    await check('--stdio with a wrong token: exit 1, serves nothing, the token is not echoed', async () => {
        const wrong = `${token.slice(0, -4)}beef`;
        const s = startStdio(wrong);
        s.child.stdin.end(line(1, 'tools/call', { name: 'touch_it', arguments: { dir: 'wrong' } }));
        const { code, out, err } = await s.exited;
        console.log(`     wrong token -> exit ${code}: ${err.trim()}`);
        assert.equal(code, 1);
        assert.equal(out, '');
        assert.match(err, /unknown or revoked/);
        assert.ok(!err.includes(wrong), 'the token is not echoed');
        assert.ok(!ran('wrong'), 'nothing ran');
        // B9 (issue 26): a bogus token starts no console that keeps running.
        assert.match(err, /no console was started/, err);
        await new Promise((r) => setTimeout(r, 1000));
        const consoles = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n')
            .filter((args) => args.includes(stdioData) && !args.includes('--stdio'));
        assert.deepEqual(consoles, [], 'no console runs for the folder');
    });

    await check('--stdio with a valid token serves; revoked while running: the next call gets -32000, nothing runs, exit 1', async () => {
        const s = startStdio(token);
        const list = await s.send(line(1, 'tools/list'));
        assert.ok(list.result?.tools?.some((t) => t.name === 'touch_it'), JSON.stringify(list));
        const before = await s.send(line(2, 'tools/call', { name: 'touch_it', arguments: { dir: 'before' } }));
        assert.ok(before.result?.resultType === 'complete' && ran('before'), `allowed, it runs: ${JSON.stringify(before)}`);
        cli('token', 'revoke', 'ide');
        const after = await s.send(line(3, 'tools/call', { name: 'touch_it', arguments: { dir: 'after' } }));
        console.log(`     after revoke -> ${JSON.stringify(after.error)}`);
        assert.equal(after.id, 3);
        assert.equal(after.error?.code, -32000, JSON.stringify(after));
        assert.match(after.error.message, /revoked/);
        assert.equal(after.result, undefined);
        const { code, err } = await s.exited;
        assert.equal(code, 1, err);
        assert.ok(!ran('after'), 'nothing ran after the revocation');
        assert.ok(!err.includes(token), 'the token is not echoed');
    });
} finally {
    await stopConsoleOf(stdioData);
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
