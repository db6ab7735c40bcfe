#!/usr/bin/env node
// Benchmark (prints figures; asserts nothing about speed): the gate's own cost in Countersign,
// side by side with the same tool on the official TypeScript SDK 2.4.0 server, same machine, same run,
// same HTTP client (fetch with keep-alive).
//   node gate.mjs COUNTERSIGN_BINARY [--n 300] [--concurrency 16]
// Figures: first pass (plan + ticket + pending record + input_required), retry to receipt (open and
// check the ticket, typed confirmation, re-plan, claim, apply, receipt), an allowed gated tool
// (policy, audit rows, claim, apply), and a plain read-only tool; latency p50/p99 one call at a time,
// and calls per second with concurrent clients. Plan and apply commands are /bin/true on both sides,
// so the child process is part of the cost on both.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCountersign } from '../peer/countersign-process.mjs';
import { opt, pct, rss, timed } from './figures.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const binary = argv[0];
const N = opt(argv, 'n', 300);
const CONCURRENCY = opt(argv, 'concurrency', 16);
if (!binary) { console.error('usage: gate.mjs COUNTERSIGN_BINARY [--n 300] [--concurrency 16]'); process.exit(2); }

const schema = { type: 'object', properties: { target: { type: 'string' } }, required: ['target'], additionalProperties: false };
const action = (name) => ({ name, title: name, inputSchema: schema, plan: ['true'], apply: ['true', '{target}'], risk: 'medium' });
const countersign = await startCountersign(binary, {
    tokenName: 'bench',
    config: { actions: [action('bench_gated'), action('bench_allowed')], rules: [{ tool: 'bench_allowed', decision: 'allow' }], approval: { medium: 'client' } },
});
const sdkChild = spawn(process.execPath, [path.join(here, '..', 'peer', 'sdk-gate-server.mjs'), '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
const sdkUrl = await new Promise((resolve, reject) => {
    let err = '';
    sdkChild.stderr.on('data', (c) => { err += c; const m = /listening on (\S+)/.exec(err); if (m) resolve(m[1]); });
    sdkChild.on('exit', (code) => reject(new Error(`sdk server exited ${code}: ${err}`)));
});

const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } };
let nextId = 1;
async function call(server, name, args, extra = {}) {
    const response = await fetch(server.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${server.token ?? ''}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args, _meta: envelope, ...extra } }),
    });
    const body = await response.json();
    if (!body.result) throw new Error(`${name}: ${JSON.stringify(body)}`);
    return body.result;
}
const fmt = (xs) => `p50 ${pct(xs, 50).toFixed(2).padStart(7)} ms  p99 ${pct(xs, 99).toFixed(2).padStart(7)} ms`;

async function measure(server, label) {
    const out = { label };
    for (let i = 0; i < 20; i++) await call(server, server.statusTool, {}); // warm-up
    const first = [], retry = [];
    for (let i = 0; i < N; i++) {
        const target = `${label}-t${i}`;
        const [ms, r] = await timed(() => call(server, 'bench_gated', { target }));
        if (r.resultType !== 'input_required') throw new Error(`first pass did not ask: ${JSON.stringify(r)}`);
        first.push(ms);
        const [ms2, done] = await timed(() => call(server, 'bench_gated', { target }, { requestState: r.requestState, inputResponses: { confirm: { action: 'accept', content: { confirm: target } } } }));
        if (done.resultType !== 'complete' || done.isError) throw new Error(`retry failed: ${JSON.stringify(done)}`);
        retry.push(ms2);
    }
    out.first = first; out.retry = retry;
    for (const [tool, key] of [['bench_allowed', 'allowed'], [server.statusTool, 'status']]) {
        const seq = [];
        for (let i = 0; i < N; i++) seq.push((await timed(() => call(server, tool, tool === 'bench_allowed' ? { target: 'x' } : {})))[0]);
        const total = N * 4, lat = [];
        let issued = 0;
        const t0 = process.hrtime.bigint();
        await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
            while (issued < total) { issued++; lat.push((await timed(() => call(server, tool, tool === 'bench_allowed' ? { target: 'x' } : {})))[0]); }
        }));
        const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
        out[key] = { seq, lat, rate: total / seconds };
    }
    return out;
}

// The same two requests (tools/list, an allowed call) in each era and over each transport, on
// Countersign alone: 2026-07-28 over HTTP, a 2025-11-25 HTTP session, and both eras through a
// `countersign --stdio` bridge (one line at a time; the bridge relays to the console's socket).
async function measureEras(server) {
    const legacyHeaders = (session) => ({ Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...(session ? { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' } : {}) });
    const init = await fetch(server.url, { method: 'POST', headers: legacyHeaders(), body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }) });
    const session = init.headers.get('mcp-session-id');
    await init.json();
    const legacy = async (method, params) => {
        const r = await fetch(server.url, { method: 'POST', headers: legacyHeaders(session), body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }) });
        const body = await r.json();
        if (!body.result || body.result.isError) throw new Error(`${method}: ${JSON.stringify(body)}`);
        return body.result;
    };
    const modern = async (method, params) => {
        const r = await fetch(server.url, { method: 'POST', headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method, ...(params.name ? { 'Mcp-Name': params.name } : {}) }, body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: envelope } }) });
        const body = await r.json();
        if (!body.result || body.result.isError) throw new Error(`${method}: ${JSON.stringify(body)}`);
        return body.result;
    };
    const bridge = spawn(binary, ['--stdio', '--data-dir', server.dataDir], { env: { ...process.env, COUNTERSIGN_TOKEN: server.token }, stdio: ['pipe', 'pipe', 'ignore'] });
    let buffered = '';
    const waiting = new Map();
    bridge.stdout.on('data', (chunk) => {
        buffered += chunk;
        let at;
        while ((at = buffered.indexOf('\n')) >= 0) {
            const message = JSON.parse(buffered.slice(0, at));
            buffered = buffered.slice(at + 1);
            waiting.get(message.id)?.(message);
            waiting.delete(message.id);
        }
    });
    const line = (method, params) => new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, (m) => (m.result && !m.result.isError ? resolve(m.result) : reject(new Error(`${method}: ${JSON.stringify(m)}`))));
        bridge.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
    await line('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
    const allowed = { name: 'bench_allowed', arguments: { target: 'x' } };
    const paths = [
        ['2026-07-28, HTTP', (m, p) => modern(m, p), true],
        ['2025-11-25, HTTP session', (m, p) => legacy(m, p), true],
        ['2026-07-28, stdio bridge', (m, p) => line(m, { ...p, _meta: envelope }), false],
        ['2025-11-25, stdio bridge', (m, p) => line(m, p), false],
    ];
    const rows = [];
    try {
        for (const [label, send, concurrent] of paths) {
            for (let i = 0; i < 20; i++) await send('tools/list', {}); // warm-up
            const row = { label };
            for (const [key, method, params] of [['list', 'tools/list', {}], ['allowed', 'tools/call', allowed]]) {
                const seq = [];
                for (let i = 0; i < N; i++) seq.push((await timed(() => send(method, params)))[0]);
                row[key] = { seq };
                if (!concurrent) continue;
                const total = N * 4;
                let issued = 0;
                const t0 = process.hrtime.bigint();
                await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
                    while (issued < total) { issued++; await send(method, params); }
                }));
                row[key].rate = total / (Number(process.hrtime.bigint() - t0) / 1e9);
            }
            rows.push(row);
        }
    } finally {
        bridge.stdin.end();
    }
    return rows;
}

try {
    const ours = await measure({ ...countersign, statusTool: 'countersign_status' }, 'countersign');
    const theirs = await measure({ url: sdkUrl, statusTool: 'status' }, 'sdk');
    console.log(`\nGate benchmark: ${N} calls per figure one at a time, ${N * 4} calls at concurrency ${CONCURRENCY}; plan/apply = /bin/true`);
    for (const r of [ours, theirs]) {
        const name = r.label === 'countersign' ? 'Countersign (C++/Qt)' : 'TypeScript SDK 2.4.0';
        console.log(`\n${name}`);
        console.log(`  first pass (plan, ticket, record, input_required)  ${fmt(r.first)}`);
        console.log(`  retry to receipt (checks, re-plan, claim, apply)    ${fmt(r.retry)}`);
        console.log(`  allowed gated tool, one at a time                   ${fmt(r.allowed.seq)}`);
        console.log(`  allowed gated tool, ${String(CONCURRENCY).padStart(2)} clients at once             ${fmt(r.allowed.lat)}  ${r.allowed.rate.toFixed(0).padStart(6)} calls/s`);
        console.log(`  read-only tool (no process), one at a time          ${fmt(r.status.seq)}`);
        console.log(`  read-only tool (no process), ${String(CONCURRENCY).padStart(2)} clients at once    ${fmt(r.status.lat)}  ${r.status.rate.toFixed(0).padStart(6)} calls/s`);
        console.log(`  memory: ${rss(r.label === 'countersign' ? countersign.child.pid : sdkChild.pid)}`);
    }
    console.log(`\nCountersign by protocol era and transport: tools/list and an allowed gated call (plan/apply /bin/true),`);
    console.log(`${N} one at a time; over HTTP also ${N * 4} at concurrency ${CONCURRENCY}`);
    for (const row of await measureEras(countersign)) {
        const rate = (x) => (x.rate ? `  ${x.rate.toFixed(0).padStart(6)} calls/s` : '');
        console.log(`  ${row.label.padEnd(26)} tools/list ${fmt(row.list.seq)}${rate(row.list)}`);
        console.log(`  ${''.padEnd(26)} allowed    ${fmt(row.allowed.seq)}${rate(row.allowed)}`);
    }
} finally {
    sdkChild.kill('SIGTERM');
    await countersign.stop();
}
