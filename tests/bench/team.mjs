#!/usr/bin/env node
// Benchmark (prints figures; asserts nothing about speed): the store on PostgreSQL beside SQLite,
// same machine, same run. A throwaway PostgreSQL 15 cluster of its own (tests/support/postgres.sh,
// fsync on: commits reach the disk as in use); instance S on SQLite, instances A and B of one team
// on PostgreSQL (shared keys).
//   node team.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--n 200] [--concurrency 8] [--decisions 20]
// Figures:
// - a gated call whole (first pass: plan, ticket, pending record; then the retry with the client's
//   typed confirmation: decision, claim, run, result, receipt), one at a time (p50/p99) and gated
//   calls per second with CONCURRENCY loops; an allowed call (recorded, claimed, run) the same way;
// - decision-to-run: a retry held on one instance, the card approved in a console's queue (the test
//   host's countersign-test-decide; for PostgreSQL, B's queue), from the decision's commit to the
//   retry's answer (p50/p99): SQLite's held retries poll the file every 200 ms, PostgreSQL's hear a
//   notification.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startCountersign } from '../peer/countersign-process.mjs';
import { opt, pct, rss, timed } from './figures.mjs';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const [binary, decideBinary] = argv;
const N = opt(argv, 'n', 200);
const CONCURRENCY = opt(argv, 'concurrency', 8);
const DECISIONS = opt(argv, 'decisions', 20);
if (!binary || !decideBinary) { console.error('usage: team.mjs COUNTERSIGN_BINARY DECIDE_BINARY [--n 200] [--concurrency 8] [--decisions 20]'); process.exit(2); }

const work = mkdtempSync(path.join(tmpdir(), 'countersign-bench-team-'));
const clusterDir = path.join(work, 'postgres');
const postgres = path.join(here, '..', 'support', 'postgres.sh');
const { stdout } = await run(postgres, ['start', clusterDir], { env: { ...process.env, COUNTERSIGN_PG_FSYNC: 'on', PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` } });
const storeUrl = stdout.trim();

const schema = { type: 'object', properties: { target: { type: 'string' } }, required: ['target'], additionalProperties: false };
const action = (name, approval) => ({ name, title: name, inputSchema: schema, plan: ['true'], apply: ['true', '{target}'], risk: approval === 'client' ? 'low' : 'medium' });
const base = {
    pollWindowSeconds: 20,
    actions: [action('bench_gated', 'client'), action('bench_console', 'console'), action('bench_allowed')],
    rules: [{ tool: 'bench_allowed', decision: 'allow' }],
    approval: { low: 'client', medium: 'console' },
};
const sqlite = await startCountersign(binary, { tokenName: 'bench', config: base });
const a = await startCountersign(binary, { tokenName: 'bench', config: { ...base, store: { postgres: storeUrl } } });
const b = await startCountersign(binary, { tokenName: 'reviewer', config: { ...base, store: { postgres: storeUrl } }, keysFrom: a });

const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } };
let nextId = 1;
async function call(server, token, name, args, extra = {}) {
    const response = await fetch(server.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args, _meta: envelope, ...extra } }),
    });
    const body = await response.json();
    if (!body.result) throw new Error(`${name}: ${JSON.stringify(body)}`);
    return body.result;
}
// A gated call whole: the first pass, then the retry carrying the client's typed confirmation.
async function gated(server, token, target) {
    const first = await call(server, token, 'bench_gated', { target });
    if (first.resultType !== 'input_required') throw new Error(`first pass did not ask: ${JSON.stringify(first)}`);
    const done = await call(server, token, 'bench_gated', { target }, { requestState: first.requestState, inputResponses: { confirm: { action: 'accept', content: { confirm: target } } } });
    if (done.isError || done.resultType === 'input_required') throw new Error(`not run: ${JSON.stringify(done)}`);
}
async function allowed(server, token, target) {
    const r = await call(server, token, 'bench_allowed', { target });
    if (r.isError) throw new Error(`allowed call failed: ${JSON.stringify(r)}`);
}
const fmt = (xs) => `p50 ${pct(xs, 50).toFixed(2).padStart(7)} ms  p99 ${pct(xs, 99).toFixed(2).padStart(7)} ms`;

async function throughput(fn, label) {
    let next = 0;
    const t0 = process.hrtime.bigint();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (next < N) { const i = next++; await fn(`${label}-c${i}`); }
    }));
    return N / (Number(process.hrtime.bigint() - t0) / 1e9);
}
async function calls(server, label) {
    const token = server.token;
    for (let i = 0; i < 10; ++i) await gated(server, token, `${label}-warm${i}`);
    const g = [], al = [];
    for (let i = 0; i < N; ++i) g.push((await timed(() => gated(server, token, `${label}-g${i}`)))[0]);
    for (let i = 0; i < N; ++i) al.push((await timed(() => allowed(server, token, `${label}-a${i}`)))[0]);
    const gps = await throughput((t) => gated(server, token, t), `${label}-gt`);
    const aps = await throughput((t) => allowed(server, token, t), `${label}-at`);
    console.log(`  ${label}`);
    console.log(`    gated call, whole          ${fmt(g)}   ${gps.toFixed(0).padStart(5)} gated calls/s at ${CONCURRENCY} in flight`);
    console.log(`    allowed call               ${fmt(al)}   ${aps.toFixed(0).padStart(5)} calls/s at ${CONCURRENCY} in flight`);
}
// A retry held on `holder`, the card approved in `decider`'s queue (store: where it decides).
async function decisionToRun(holder, decider, store, label) {
    const latencies = [];
    for (let i = 0; i < DECISIONS; ++i) {
        const target = `${label}-d${i}`;
        const first = await call(holder, holder.token, 'bench_console', { target });
        const cards = JSON.parse((await run(decideBinary, [decider.dataDir, 'list', '--wait-ms', '0', ...store])).stdout);
        const card = cards.find((c) => c.targets?.includes(target));
        let answeredAt = 0n;
        const held = call(holder, holder.token, 'bench_console', { target }, { requestState: first.requestState }).then((r) => { answeredAt = process.hrtime.bigint(); return r; });
        await new Promise((r) => setTimeout(r, 100)); // the retry is held
        await run(decideBinary, [decider.dataDir, 'approve', '--nonce', card.nonce, ...store]);
        const decidedAt = process.hrtime.bigint(); // the decide process has committed and exited
        const r = await held;
        if (r.isError || r.resultType === 'input_required') throw new Error(`not run: ${JSON.stringify(r)}`);
        latencies.push(Math.max(0, Number(answeredAt - decidedAt) / 1e6));
    }
    console.log(`  ${label.padEnd(28)} ${fmt(latencies)}   (${DECISIONS} decisions)`);
}

try {
    console.log(`Store: SQLite beside PostgreSQL 15 (fsync on), same run; n ${N}, ${CONCURRENCY} in flight`);
    await calls(sqlite, 'SQLite (one instance)');
    await calls(a, 'PostgreSQL (instance A of two)');
    console.log('');
    console.log('Decision to run (from the decision\'s commit to the held retry\'s answer)');
    await decisionToRun(sqlite, sqlite, [], 'SQLite, same instance');
    await decisionToRun(a, b, ['--store', storeUrl], 'PostgreSQL, decided in B');
    console.log('');
    console.log(`  memory: SQLite instance ${rss(sqlite.child.pid)}, PostgreSQL instance A ${rss(a.child.pid)}`);
} finally {
    for (const s of [sqlite, a, b]) await s.stop().catch(() => {});
    await run(postgres, ['stop', clusterDir]).catch(() => {});
    rmSync(work, { recursive: true, force: true });
}
