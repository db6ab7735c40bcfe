#!/usr/bin/env node
// Issue 12, "The documented '-' rule leaks": a template element "{a}{b}" with a="" and b="--x"
// passed an option; placeholders inside `sh -c` script strings were accepted without a word; a rule
// glob `tmp-*` matched a value holding a newline and a shell command. Real binary, real files.
//   node argv-rules.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { callTool, check, decide, exitWithSummary, startCountersign, textOf } from './attacker.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: argv-rules.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }

const work = mkdtempSync(path.join(tmpdir(), 'countersign-sec-argv-'));
const marker = (name) => path.join(work, name);
const lines = (name) => (existsSync(marker(name)) ? readFileSync(marker(name), 'utf8').split('\n').filter(Boolean) : []);
const stringProps = (...names) => ({ type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])), required: names, additionalProperties: false });
const config = {
    pollWindowSeconds: 1,
    actions: [
        // "{a}{b}": both halves filled into one element; the apply records what it was given.
        { name: 'join_ab', title: 'Join two values', inputSchema: stringProps('a', 'b'), workingDirectory: work, risk: 'medium',
            plan: ['echo', 'would join'], apply: ['sh', '-c', 'printf "%s\\n" "$1" >> applied-ab', 'apply', '{a}{b}'] },
        // "{a}-{b}": no value starts with '-', but the filled element does when a is empty.
        { name: 'dash_ab', title: 'Join with a dash', inputSchema: stringProps('a', 'b'), workingDirectory: work, risk: 'medium',
            plan: ['echo', 'would join'], apply: ['sh', '-c', 'printf "%s\\n" "$1" >> applied-ab', 'apply', '{a}-{b}'] },
        { name: 'delete_x', title: 'Delete a scratch thing', inputSchema: stringProps('name'), workingDirectory: work, risk: 'medium',
            plan: ['sh', '-c', 'echo "would delete $1"', 'plan', '{name}'], apply: ['sh', '-c', 'printf "%s\\n" "$1" >> applied-x', 'apply', '{name}'] },
    ],
    rules: [
        { tool: 'join_ab', decision: 'allow' },
        { tool: 'dash_ab', decision: 'allow' },
        { tool: 'delete_x', arguments: { name: 'tmp-*' }, decision: 'allow' },
    ],
};
const server = await startCountersign(binary, { config, tokenName: 'agent' });
const refused = (r) => r.error?.code === -32602 || r.result?.isError === true;
const ranWithoutCard = (r) => r.result?.resultType === 'complete' && r.result?.isError !== true;
const what = (r) => (r.error ? `${r.error.code} ${r.error.message}` : `${r.result?.resultType}${r.result?.isError ? ' isError' : ''} ${textOf(r)}`);

// Starts the server directly on a configuration, as countersign-process.mjs does; resolves with
// { code, stderr, served } once it exits (a server that starts listening is stopped: served).
function startOn(actionPlan) {
    const dir = mkdtempSync(path.join(work, 'start-'));
    const configPath = path.join(dir, 'config.json');
    writeFileSync(configPath, JSON.stringify({ keyStore: 'file', actions: [{ name: 'list_dir',
        inputSchema: stringProps('dir'), plan: actionPlan, apply: ['true'] }] }));
    const child = spawn(binary, ['--headless', '--listen', '127.0.0.1:0', '--data-dir', path.join(dir, 'data'), '--config', configPath],
        { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let served = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
    child.stderr.on('data', (chunk) => {
        stderr += chunk;
        if (!served && /listening on/.test(stderr)) { served = true; child.kill('SIGTERM'); }
    });
    return new Promise((resolve) => child.once('exit', (code) => { clearTimeout(timer); resolve({ code, stderr, served }); }));
}

try {
    await check('"{a}{b}" with a="" and b="--x" (allowed by a rule): isError "may not start with \'-\'", the apply never runs', async () => {
        const r = await callTool(server, 'join_ab', { a: '', b: '--x' });
        console.log(`     a="" b="--x" -> ${what(r)}`);
        assert.ok(refused(r), JSON.stringify(r));
        assert.match(what(r), /"b" may not start with '-'/);
        assert.deepEqual(lines('applied-ab'), [], 'the apply never ran');
        const split = await callTool(server, 'join_ab', { a: '', b: '-' }, {}, 2);
        assert.ok(refused(split), `b="-" too: ${JSON.stringify(split)}`);
        assert.deepEqual(lines('applied-ab'), [], 'the apply never ran');
    });

    await check('"{a}-{b}" with a="" and b="x" (no value starts with "-", the element "-x" does): isError "would start with \'-\' once filled", nothing runs', async () => {
        const r = await callTool(server, 'dash_ab', { a: '', b: 'x' });
        console.log(`     "{a}-{b}" a="" b="x" -> ${what(r)}`);
        assert.ok(refused(r), JSON.stringify(r));
        assert.match(what(r), /would start with '-' once filled/);
        assert.deepEqual(lines('applied-ab'), [], 'the apply never ran');
    });

    await check('"{a}{b}" with a="x", b="y" and "{a}-{b}" with a="x", b="y": they run (the allow rules are live)', async () => {
        assert.ok(ranWithoutCard(await callTool(server, 'join_ab', { a: 'x', b: 'y' })));
        assert.ok(ranWithoutCard(await callTool(server, 'dash_ab', { a: 'x', b: 'y' })));
        assert.deepEqual(lines('applied-ab'), ['xy', 'x-y']);
    });

    await check('a placeholder inside a sh -c script: refused at start, exit 1, stderr shows the positional form', async () => {
        const { code, stderr, served } = await startOn(['sh', '-c', 'echo {dir}']);
        assert.ok(!served, 'it never listened');
        console.log(`     sh -c "echo {dir}" -> exit ${code}: ${stderr.trim()}`);
        assert.ok(code !== 0 && code !== null, `exit ${code}`);
        assert.match(stderr, /actions\[0\]\.plan/);
        assert.match(stderr, /positional/);
        assert.ok(stderr.includes('["sh", "-c", "echo \\"$1\\"", "sh", "{dir}"]'), stderr);
    });

    await check('placeholders inside bash -lc, env sh -c and python3 -c scripts: refused at start too; the positional form starts', async () => {
        for (const plan of [['bash', '-lc', 'ls {dir}'], ['env', 'sh', '-c', 'echo {dir}'], ['python3', '-c', 'print("{dir}")']]) {
            const { code, stderr, served } = await startOn(plan);
            assert.ok(code !== 0 && code !== null && !served, `${plan.join(' ')}: exit ${code}`);
            assert.match(stderr, /instead: \[/, `${plan.join(' ')}: ${stderr}`);
        }
        const safe = await startOn(['sh', '-c', 'echo "$1"', 'sh', '{dir}']);
        assert.ok(safe.served, `the safe form serves: ${safe.stderr}`);
    });

    await check('rule glob tmp-* and a name holding a newline + command: no rule matches, it asks (input_required), nothing runs', async () => {
        const r = await callTool(server, 'delete_x', { name: `tmp-x\ntouch ${marker('injected')}` });
        console.log(`     "tmp-x\\ntouch ..." -> ${what(r)}`);
        assert.equal(r.result?.resultType, 'input_required', JSON.stringify(r));
        await decide(server, decideBinary, 'decline', '--reason', 'no');
        assert.ok(!existsSync(marker('injected')) && lines('applied-x').length === 0, 'nothing ran');
    });

    await check('rule glob tmp-* and a name ending in BEL (\\u0007): it asks (input_required), nothing runs', async () => {
        const r = await callTool(server, 'delete_x', { name: 'tmp-x\u0007' });
        console.log(`     "tmp-x\\u0007" -> ${what(r)}`);
        assert.equal(r.result?.resultType, 'input_required', JSON.stringify(r));
        await decide(server, decideBinary, 'decline', '--reason', 'no');
        assert.equal(lines('applied-x').length, 0, 'nothing ran');
    });

    await check('rule glob tmp-*: "tmp-ok" runs at once; "tmp-x; touch F; echo" runs as one argument and F is not made', async () => {
        const ok = await callTool(server, 'delete_x', { name: 'tmp-ok' });
        assert.ok(ranWithoutCard(ok), JSON.stringify(ok));
        const chained = `tmp-x; touch ${marker('injected')}; echo`;
        const r = await callTool(server, 'delete_x', { name: chained });
        assert.ok(ranWithoutCard(r), JSON.stringify(r));
        assert.deepEqual(lines('applied-x'), ['tmp-ok', chained]);
        assert.ok(!existsSync(marker('injected')), 'the value never became shell code');
    });
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
