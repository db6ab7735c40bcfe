#!/usr/bin/env node
// Load: 200 concurrent clients make 20,000 calls against the real binary, a mix of plain calls
// (countersign_status), gated first passes, and retries of approved tickets (client-mode typed
// confirmation, so no human is needed), each ticket retried by three clients at once. Checks: no
// error, every apply ran exactly once per ticket (the apply command counts its runs); prints
// p50/p99 per kind, calls per second and the server's peak RSS; the server must then quit with code
// 0 on SIGTERM (run against an AddressSanitizer build, as tests/run.sh does, that exit code is also
// LeakSanitizer's: no leak). Bounded: fails past --max-seconds.
//   node load.mjs COUNTERSIGN_BINARY [--clients 200] [--calls 20000] [--max-seconds 600]
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { startCountersign } from './countersign-process.mjs';

const argv = process.argv.slice(2);
const binary = argv[0];
const opt = (name, d) => { const i = argv.indexOf(`--${name}`); return i > 0 ? Number(argv[i + 1]) : d; };
const CLIENTS = opt('clients', 200), CALLS = opt('calls', 20000), MAX_SECONDS = opt('max-seconds', 600);
if (!binary) { console.error('usage: load.mjs COUNTERSIGN_BINARY'); process.exit(2); }
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
function post(url, headers, body) {
    return new Promise((resolve, reject) => {
        const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'Content-Length': Buffer.byteLength(body) } }, (res) => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
        req.end(body);
    });
}

const work = mkdtempSync(path.join(tmpdir(), 'countersign-load-'));
const runs = path.join(work, 'runs');
const server = await startCountersign(binary, {
    tokenName: 'load',
    config: {
        pollWindowSeconds: 2,
        actions: [{ name: 'bump', title: 'Bump a counter', risk: 'medium', workingDirectory: work,
            inputSchema: { type: 'object', properties: { id: { type: 'string', pattern: '^[a-z0-9]+$' } }, required: ['id'], additionalProperties: false },
            plan: ['true'], apply: ['sh', '-c', 'echo "$1" >> runs', 'apply', '{id}'] }],
        approval: { medium: 'client' },
    },
});
// One connection per 10 clients: each client has at most one card waiting, well under the gate's
// cap of 50 waiting cards per connection.
const tokens = Array.from({ length: Math.ceil(CLIENTS / 10) }, (_, i) => (i === 0 ? server.token : server.addToken(`load${i}`)));
const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }, 'io.modelcontextprotocol/clientInfo': { name: 'load', version: '1' } };
let nextId = 1;
async function call(name, args, extra = {}, token = server.token) {
    const t = process.hrtime.bigint();
    const response = await post(server.url,
        { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
        JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args, _meta: envelope, ...extra } }));
    const body = JSON.parse(response.text);
    if (response.status !== 200 || !body.result || body.result.isError) throw new Error(`${name}: HTTP ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    return [Number(process.hrtime.bigint() - t) / 1e6, body.result];
}

const lat = { plain: [], first: [], retry: [] };
const errors = [];
let issued = 0, tickets = 0;
const started = Date.now();
const deadline = started + MAX_SECONDS * 1000;
async function client(index) {
    const token = tokens[index % tokens.length];
    while (issued < CALLS && Date.now() < deadline) {
        const kind = issued % 10;
        try {
            if (kind < 6) { // plain
                issued++;
                const [ms] = await call('countersign_status', {}, {}, token);
                lat.plain.push(ms);
            } else { // one ticket: a first pass, then three concurrent retries of it
                issued += 4;
                const id = `c${index}n${tickets++}`;
                const [ms, first] = await call('bump', { id }, {}, token);
                lat.first.push(ms);
                assert.equal(first.resultType, 'input_required');
                const retry = { requestState: first.requestState, inputResponses: { confirm: { action: 'accept', content: { confirm: id } } } };
                const results = await Promise.all([0, 1, 2].map(() => call('bump', { id }, retry, token)));
                for (const [ms2, r] of results) {
                    lat.retry.push(ms2);
                    assert.equal(r.resultType, 'complete');
                }
                const receipts = new Set(results.map(([, r]) => JSON.stringify(r._meta['dev.countersign/receipt'])));
                assert.equal(receipts.size, 1, 'three retries of one ticket share one receipt');
            }
        } catch (e) {
            errors.push(String(e?.message ?? e));
        }
    }
}
await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
const seconds = (Date.now() - started) / 1000;
const rss = (() => { const s = readFileSync(`/proc/${server.child.pid}/status`, 'utf8'); return Math.round(Number(/VmHWM:\s+(\d+)/.exec(s)[1]) / 1024); })();
const lines = existsSync(runs) ? readFileSync(runs, 'utf8').split('\n').filter(Boolean) : [];
const distinct = new Set(lines);
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))].toFixed(1) : '-'; };
agent.destroy();
const exit = await server.stop();
rmSync(work, { recursive: true, force: true });

const total = lat.plain.length + lat.first.length + lat.retry.length;
console.log(`load: ${CLIENTS} clients, ${total} calls in ${seconds.toFixed(1)} s (${(total / seconds).toFixed(0)} calls/s), peak RSS ${rss} MB`);
for (const [kind, xs] of Object.entries(lat)) console.log(`  ${kind.padEnd(6)} ${String(xs.length).padStart(6)} calls  p50 ${pct(xs, 50).padStart(7)} ms  p99 ${pct(xs, 99).padStart(7)} ms`);
console.log(`  tickets ${tickets}, apply runs ${lines.length}, distinct ${distinct.size}, errors ${errors.length}`);
if (errors.length) console.log(`  first errors:\n    ${errors.slice(0, 5).join('\n    ')}`);
// A clean exit code after SIGTERM; under AddressSanitizer this is also LeakSanitizer's verdict.
console.log(`  server exit after SIGTERM: code ${exit.code}${exit.signal ? `, signal ${exit.signal}` : ''}`);
if (exit.code !== 0) console.log(`  server stderr (end):\n${server.stderr().slice(-4000)}`);
const ok = errors.length === 0 && lines.length === tickets && distinct.size === tickets && total >= CALLS && Date.now() <= deadline
    && exit.code === 0;
console.log(ok ? 'load ok: zero errors, zero double executions' : 'load FAILED');
process.exit(ok ? 0 : 1);
