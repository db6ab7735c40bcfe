#!/usr/bin/env node
// Benchmark (prints figures; asserts nothing about speed): the gateway's own cost in Countersign, an
// allowed upstream call through Countersign beside the same call made to the upstream directly, same
// machine, same run, same upstream command. The upstream is the official filesystem server
// (@modelcontextprotocol/server-filesystem 2026.8.31, over stdio); its read_text_file is read-only
// (readOnlyHint), so Countersign allows fs_read_text_file at once: no card, but its gate (policy, audit
// records) and the relay to the upstream are in every call.
//   node gateway.mjs COUNTERSIGN_BINARY [--n 300] [--concurrency 16]
// Paths, each warmed up with 20 calls: read_text_file straight to the filesystem server (v1 client
// over stdio); fs_read_text_file through Countersign over the `countersign --stdio` bridge (v1
// client), over HTTP in a 2025-11-25 session (v1 client) and over HTTP at 2026-07-28 (v2 client
// pinned). Figures: latency p50/p99/mean and calls per second one call at a time, calls per second
// with CONCURRENCY calls in flight on the same client, and what each Countersign path adds to the
// direct one. Every result is checked (not an error, the file's text in it), and so is the audit
// log at the end (one allowed, succeeded operation per call through Countersign); a failure stops
// the run with a non-zero exit.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startCountersign } from '../peer/countersign-process.mjs';
import { opt, pct, rss, timed } from './figures.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const binary = argv[0];
const N = opt(argv, 'n', 300);
const CONCURRENCY = opt(argv, 'concurrency', 16);
const WARM_UP = 20;
if (!binary) { console.error('usage: gateway.mjs COUNTERSIGN_BINARY [--n 300] [--concurrency 16]'); process.exit(2); }
if (!existsSync(binary)) { console.error(`gateway.mjs: no Countersign binary at ${binary}`); process.exit(2); }

// The MCP packages are installed for the peer tests (tests/peer/node_modules): resolve them from there.
const peer = createRequire(path.join(here, '..', 'peer', 'package.json'));
const load = (specifier) => import(pathToFileURL(peer.resolve(specifier)).href);
const { Client } = await load('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await load('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = await load('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { Client: ClientV2, StreamableHTTPClientTransport: HttpTransportV2 } = await load('@modelcontextprotocol/client');
const fsEntry = peer.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const versionOf = (pkg) => JSON.parse(readFileSync(path.join(here, '..', 'peer', 'node_modules', pkg, 'package.json'), 'utf8')).version;

// The allowed directory and its file (a realpath: the filesystem server compares resolved paths).
const work = realpathSync(mkdtempSync(path.join(tmpdir(), 'countersign-gateway-')));
const dir = path.join(work, 'files');
const file = path.join(dir, 'small.txt');
const text = `Countersign gateway benchmark ${process.pid}\nA small text file, read again and again.\n`;
mkdirSync(dir);
writeFileSync(file, text);
const upstreamCommand = [process.execPath, fsEntry, dir];

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ms = (x) => `${x.toFixed(2).padStart(7)} ms`;
const signed = (x) => `${x >= 0 ? '+' : '-'}${Math.abs(x).toFixed(2).padStart(6)} ms`;
const sleep = (t) => new Promise((r) => setTimeout(r, t));
const textOf = (r) => r?.content?.map((c) => c.text ?? '').join('\n') ?? '';

// One call, checked: a benchmark that measured errors would be worthless.
async function read(conn) {
    const r = await conn.client.callTool({ name: conn.tool, arguments: { path: file } }, undefined, { timeout: 30000 });
    if (r.isError || !textOf(r).includes(text)) throw new Error(`${conn.label}: ${conn.tool} did not return the file: ${JSON.stringify(r)}`);
    return r;
}

// The v1 client over stdio (a child it starts), its child's stderr kept for a failure's report.
async function stdioClient(label, tool, command, args, env) {
    const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (c) => { stderr += c; });
    const client = new Client({ name: 'gateway-bench', version: '1' }, { capabilities: {} });
    await client.connect(transport);
    return { label, tool, client, transport, stderr: () => stderr };
}
const httpHeaders = (server) => ({ requestInit: { headers: { Authorization: `Bearer ${server.token}` } } });
// The v1 HTTP transport gives every fetch the same AbortSignal, and each Request adds a listener to it
// that goes only when the Request is collected: past 1,500 calls Node warns of a leak on every call.
// The same fetch, each with a signal of its own that follows the transport's.
const quietFetch = (url, init) => fetch(url, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);

async function measure(conn) {
    const { tools } = await conn.client.listTools();
    if (!tools.some((t) => t.name === conn.tool)) throw new Error(`${conn.label}: ${conn.tool} not listed: ${JSON.stringify(tools.map((t) => t.name))}`);
    for (let i = 0; i < WARM_UP; i++) await read(conn);
    const seq = [];
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) seq.push((await timed(() => read(conn)))[0]);
    const seqRate = N / (Number(process.hrtime.bigint() - t0) / 1e9);
    const total = N * 4, lat = [];
    let issued = 0;
    const t1 = process.hrtime.bigint();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (issued < total) { issued++; lat.push((await timed(() => read(conn)))[0]); }
    }));
    const rate = total / (Number(process.hrtime.bigint() - t1) / 1e9);
    return { label: conn.label, seq, seqRate, lat, rate };
}


let countersign;
const conns = [];
try {
    countersign = await startCountersign(binary, { tokenName: 'bench', config: { upstreams: [{ name: 'fs', command: upstreamCommand }] } });
    const direct = await stdioClient('direct to the upstream (v1, stdio)', 'read_text_file', upstreamCommand[0], upstreamCommand.slice(1));
    conns.push(direct);
    const http = { label: 'Countersign, HTTP session (v1, 2025-11-25)', tool: 'fs_read_text_file',
                   client: new Client({ name: 'gateway-bench', version: '1' }, { capabilities: {} }),
                   transport: new StreamableHTTPClientTransport(new URL(countersign.url), { ...httpHeaders(countersign), fetch: quietFetch }) };
    await http.client.connect(http.transport);
    conns.push(http);
    // The upstream's tools appear once Countersign has started it and listed its tools.
    const until = Date.now() + 20000;
    for (;;) {
        const { tools } = await http.client.listTools();
        if (tools.some((t) => t.name === 'fs_read_text_file')) break;
        if (Date.now() > until) throw new Error(`fs_read_text_file not listed within 20 s; tools: ${JSON.stringify(tools.map((t) => t.name))}`);
        await sleep(100);
    }
    const bridge = await stdioClient('Countersign, stdio bridge (v1, 2025-11-25)', 'fs_read_text_file', binary,
        ['--stdio', '--data-dir', countersign.dataDir], { ...process.env, COUNTERSIGN_TOKEN: countersign.token });
    conns.push(bridge);
    const modern = { label: 'Countersign, HTTP (v2, 2026-07-28)', tool: 'fs_read_text_file',
                     client: new ClientV2({ name: 'gateway-bench', version: '1' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } }) };
    await modern.client.connect(new HttpTransportV2(new URL(countersign.url), httpHeaders(countersign)));
    conns.push(modern);
    const eras = { http: http.transport.protocolVersion, modern: modern.client.getNegotiatedProtocolVersion() };
    if (eras.http !== '2025-11-25' || eras.modern !== '2026-07-28') throw new Error(`negotiated ${JSON.stringify(eras)}, not 2025-11-25 / 2026-07-28`);

    const rows = [];
    for (const conn of [direct, bridge, http, modern]) rows.push(await measure(conn));
    const base = rows[0];
    console.log(`\nGateway benchmark: read_text_file on a ${Buffer.byteLength(text)}-byte file, ${N} calls per path one at a time (after ${WARM_UP} to warm up),`);
    console.log(`${N * 4} at concurrency ${CONCURRENCY} on the same client; upstream @modelcontextprotocol/server-filesystem ${versionOf('@modelcontextprotocol/server-filesystem')} over stdio,`);
    console.log(`node ${process.version}; clients @modelcontextprotocol/sdk ${versionOf('@modelcontextprotocol/sdk')} (v1), @modelcontextprotocol/client ${versionOf('@modelcontextprotocol/client')} (v2)`);
    for (const r of rows) {
        console.log(`\n  ${r.label}`);
        console.log(`    one at a time            p50 ${ms(pct(r.seq, 50))}  p99 ${ms(pct(r.seq, 99))}  mean ${ms(mean(r.seq))}  ${r.seqRate.toFixed(0).padStart(6)} calls/s`);
        console.log(`    ${String(CONCURRENCY).padStart(2)} in flight             p50 ${ms(pct(r.lat, 50))}  p99 ${ms(pct(r.lat, 99))}  mean ${ms(mean(r.lat))}  ${r.rate.toFixed(0).padStart(6)} calls/s`);
        if (r !== base)
            console.log(`    added over direct        p50 ${signed(pct(r.seq, 50) - pct(base.seq, 50))}  p99 ${signed(pct(r.seq, 99) - pct(base.seq, 99))}  (one at a time)`);
    }
    console.log(`\n  memory: Countersign ${rss(countersign.child.pid)}`);
    // Every call through Countersign went through its gate: one audit record each, allowed, succeeded.
    const exported = path.join(work, 'audit.json');
    execFileSync(binary, ['audit', 'export', '--format', 'json', '--output', exported, '--data-dir', countersign.dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
    const records = JSON.parse(readFileSync(exported, 'utf8')).filter((o) => o.tool === 'fs_read_text_file');
    const ok = records.filter((o) => o.decision === 'allowed' && o.outcome === 'succeeded').length;
    const expected = (rows.length - 1) * (WARM_UP + N * 5);
    console.log(`  audit: ${records.length} fs_read_text_file operations recorded, ${ok} allowed and succeeded (${expected} calls made through Countersign)`);
    if (records.length !== expected || ok !== expected) throw new Error(`the audit log does not hold one allowed, succeeded operation per call: ${records.length} records, ${ok} allowed and succeeded, ${expected} calls`);
} catch (e) {
    console.error(`gateway.mjs: ${e.stack ?? e}`);
    for (const c of conns) if (c.stderr?.()) console.error(`  stderr of ${c.label}:\n${c.stderr()}`);
    if (countersign) console.error(`  stderr of countersign:\n${countersign.stderr()}`);
    process.exitCode = 1;
} finally {
    for (const c of conns.reverse()) await c.client.close().catch(() => {});
    if (countersign) await countersign.stop();
    rmSync(work, { recursive: true, force: true });
}
