#!/usr/bin/env node
// Benchmark (prints figures; asserts nothing about speed): what a token holder gets while others
// flood the real binary on loopback (issue 26, B4 and B5). Each phase runs a flood, then times
// tools/list from an authenticated client, one call at a time, two ways: on its own keep-alive
// connection (as the agents' HTTP stacks call) and on a fresh connection each time. Then the
// server's resident memory now and at its peak, and what it refused or closed.
//   node flood.mjs COUNTERSIGN_BINARY [--n 200] [--sockets 600]
// Phases:
//   quiet        no flood;
//   idle         --sockets idle TCP connections with no token, each reopened as the server closes it;
//   bodies       200 connections with no token each sending a 1 MiB body a little at a time;
//   held         the token holder's own 80 identical hook calls held on one card, and 64
//                initialize requests of 1 MiB each (the per-token caps);
//   all          the three at once.
import http from 'node:http';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { startCountersign } from '../peer/countersign-process.mjs';
import { opt, pct } from './figures.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let port = 0;
let token = '';
const listBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
} } });
const listHeaders = {
    'Content-Type': 'application/json',
    'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list', 'Content-Length': Buffer.byteLength(listBody),
};
function post(agent, path, headers, body) {
    return new Promise((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers }, (res) => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
        req.end(body);
    });
}
// tools/list N times on one keep-alive connection, then N times on fresh ones: [p50, p99] each, in ms,
// and how many failed.
async function measure(N) {
    const out = {};
    for (const [name, agent] of [['kept', new http.Agent({ keepAlive: true, maxSockets: 1 })], ['fresh', false]]) {
        const times = [];
        let failed = 0;
        for (let i = 0; i < N; ++i) {
            const t = process.hrtime.bigint();
            try {
                const r = await post(agent, '/mcp', { ...listHeaders, Authorization: `Bearer ${token}` }, listBody);
                if (r.status !== 200 || !r.body.includes('countersign_status')) {
                    if (!failed++) console.log(`  failed: ${r.status} ${r.body.slice(0, 200)}`);
                }
            } catch (e) {
                if (!failed++) console.log(`  failed: ${e.message}`);
            }
            times.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
        if (agent) agent.destroy();
        out[name] = { p50: pct(times, 50), p99: pct(times, 99), failed };
    }
    return out;
}

// Idle sockets with no token, each reopened as the server closes it.
function idleFlood(count) {
    const state = { on: true, opened: 0, closed: 0, sockets: new Set() };
    const open = () => {
        if (!state.on) return;
        const s = net.connect({ host: '127.0.0.1', port });
        ++state.opened;
        state.sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => { state.sockets.delete(s); if (state.on) { ++state.closed; setTimeout(open, 5); } });
    };
    state.start = async () => { for (let i = 0; i < count; ++i) { open(); if (i % 40 === 39) await sleep(100); } };
    state.stop = () => { state.on = false; for (const s of state.sockets) s.destroy(); };
    return state;
}
// Connections with no token, each sending a 1 MiB body 4 KiB every 50 ms, reopened as they end.
function bodyFlood(count) {
    const state = { on: true, refused: 0, sockets: new Set() };
    const open = () => {
        if (!state.on) return;
        const s = net.connect({ host: '127.0.0.1', port });
        state.sockets.add(s);
        let timer = null;
        s.on('connect', () => {
            s.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${1 << 20}\r\n\r\n`);
            timer = setInterval(() => s.write(Buffer.alloc(4096, 0x20)), 50);
        });
        s.on('data', (d) => { if (d.toString().startsWith('HTTP/1.1 503')) ++state.refused; });
        s.on('error', () => {});
        s.on('close', () => { clearInterval(timer); state.sockets.delete(s); if (state.on) setTimeout(open, 20); });
    };
    state.start = async () => { for (let i = 0; i < count; ++i) { open(); if (i % 40 === 39) await sleep(100); } };
    state.stop = () => { state.on = false; for (const s of state.sockets) s.destroy(); };
    return state;
}
// The token holder's own load: 80 identical held hook calls and 64 initialize bodies of 1 MiB.
function heldFlood() {
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const state = { answered: 0 };
    const hook = JSON.stringify({
        session_id: 's', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', permission_mode: 'default',
        hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf /tmp/countersign-bench-flood-nothing' },
        tool_use_id: 'toolu_bench',
    });
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {
        protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1', padding: 'x'.repeat((1 << 20) - 400) },
    } });
    state.start = async () => {
        for (let i = 0; i < 80; ++i)
            post(agent, '/hooks/claude-code', { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(hook) }, hook)
                .then(() => ++state.answered, () => {});
        await sleep(300);
        await Promise.all(Array.from({ length: 64 }, () => post(agent, '/mcp', {
            Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
            'MCP-Protocol-Version': '2025-11-25', 'Content-Length': Buffer.byteLength(big),
        }, big).catch(() => {})));
    };
    state.stop = () => agent.destroy();
    return state;
}

const floods = { idle: () => idleFlood(workerData.sockets), bodies: () => bodyFlood(200), held: () => heldFlood() };

if (!isMainThread) {
    // The floods, in a thread of their own: their sockets never delay the measuring client.
    ({ port, token } = workerData);
    const running = workerData.floods.map((name) => floods[name]());
    for (const f of running) await f.start();
    parentPort.postMessage('started');
    parentPort.once('message', () => {
        for (const f of running) f.stop();
        parentPort.postMessage(running.map((f) => f.opened !== undefined
            ? `${f.opened} idle sockets opened, ${f.closed} closed by the server`
            : f.refused !== undefined ? `${f.refused} large bodies refused (503)` : `${f.answered} of 80 held calls answered at once`).join('; '));
        setTimeout(() => process.exit(0), 100);
    });
} else {
    const argv = process.argv.slice(2);
    const binary = argv[0];
    const N = opt(argv, 'n', 200);
    const SOCKETS = opt(argv, 'sockets', 600);
    if (!binary) { console.error('usage: flood.mjs COUNTERSIGN_BINARY [--n 200] [--sockets 600]'); process.exit(2); }
    const server = await startCountersign(binary, { config: { hookHoldSeconds: 60 }, tokenName: 'bench-flood' });
    port = Number(new URL(server.url).port);
    token = server.token;
    const memory = () => {
        const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
        const mb = (key) => Math.round(Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)[1]) / 1024);
        return { now: mb('VmRSS'), peak: mb('VmHWM') };
    };
    async function phase(name, names) {
        let worker = null;
        if (names.length) {
            worker = new Worker(new URL(import.meta.url), { workerData: { port, token, floods: names, sockets: SOCKETS } });
            await new Promise((resolve) => worker.once('message', resolve));
            await sleep(1000);
        }
        const figures = await measure(N);
        const m = memory();
        let extra = '';
        if (worker) {
            const said = new Promise((resolve) => worker.once('message', resolve));
            worker.postMessage('stop');
            extra = await said;
        }
        const f = (x) => `p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms${x.failed ? `, ${x.failed} failed` : ''}`;
        console.log(`${name.padEnd(6)}  kept-alive ${f(figures.kept)}; fresh ${f(figures.fresh)}; RSS ${m.now} MB now, ${m.peak} MB peak${extra ? `; ${extra}` : ''}`);
        await sleep(500);
    }
    try {
        console.log(`tools/list from a token holder, ${N} calls each way, while others flood from another thread (2 cores share client, floods and server)`);
        await phase('quiet', []);
        await phase('idle', ['idle']);
        await phase('bodies', ['bodies']);
        await phase('held', ['held']);
        await phase('all', ['idle', 'bodies', 'held']);
    } finally {
        await server.stop();
    }
}
