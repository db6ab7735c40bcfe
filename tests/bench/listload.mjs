#!/usr/bin/env node
// Benchmark (prints figures; asserts nothing about speed): tools/list under load, beside a server
// that does nothing but answer. wrk posts the same authenticated tools/list over 32 keep-alive
// connections to the real binary for 10 s, then to nginx on the same machine in the same run,
// answering the same bytes Countersign answered from memory; it prints calls a second and latency
// percentiles for both, and their ratio. Then a revoked token: the very next request must be refused
// (this is the one thing it checks, since a fast path that misses a revocation is a defect).
//   node listload.mjs COUNTERSIGN_BINARY [--connections 32] [--seconds 10] [--threads 2]
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCountersign } from '../peer/countersign-process.mjs';
import { opt } from './figures.mjs';

const argv = process.argv.slice(2);
const binary = argv[0];
if (!binary) {
    console.error('usage: listload.mjs COUNTERSIGN_BINARY [--connections 32] [--seconds 10] [--threads 2]');
    process.exit(2);
}
const CONNECTIONS = opt(argv, 'connections', 32);
const SECONDS = opt(argv, 'seconds', 10);
const THREADS = opt(argv, 'threads', 2);
const need = (program) => {
    try {
        execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    } catch {
        console.error(`listload: ${program} is not installed (packaging/install-deps.sh --bench installs it)`);
        process.exit(2);
    }
};
need('wrk');
need('nginx');

const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
} } });
const headers = { 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' };

function post(url, token) {
    return new Promise((resolve, reject) => {
        const req = http.request(url, { method: 'POST', headers: { ...headers, Authorization: `Bearer ${token}`,
            'Content-Length': Buffer.byteLength(body) } }, (res) => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
        });
        req.on('error', reject);
        req.end(body);
    });
}

// wrk's report for url: calls a second, latency percentiles (ms), errors.
function wrk(url, token, dir) {
    const script = path.join(dir, 'post.lua');
    const lua = [
        'wrk.method = "POST"',
        `wrk.body = ${JSON.stringify(body)}`,
        ...Object.entries({ ...headers, Authorization: `Bearer ${token}` }).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
        'done = function(summary, latency, requests)',
        '  io.write(string.format("FIGURES %d %d %d %d %.3f %.3f %.3f %.3f\\n", summary.requests, summary.duration,',
        '    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, 0,',
        '    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))',
        'end',
    ].join('\n');
    writeFileSync(script, lua);
    const out = execFileSync('wrk', ['-t', String(THREADS), '-c', String(CONNECTIONS), '-d', `${SECONDS}s`, '-s', script, url],
        { encoding: 'utf8' });
    const line = out.split('\n').find((l) => l.startsWith('FIGURES '));
    if (!line) throw new Error(`wrk printed no figures:\n${out}`);
    const [requests, durationUs, errors, , p50, p90, p99, max] = line.split(' ').slice(1).map(Number);
    return { rate: requests / (durationUs / 1e6), p50, p90, p99, max, errors, requests };
}

const freePort = () => new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

async function nginxServing(bytes, dir) {
    const port = await freePort();
    writeFileSync(path.join(dir, 'answer.json'), bytes, { mode: 0o644 });
    chmodSync(dir, 0o755); // started as root, nginx's workers read it as nobody
    const conf = `daemon off;
worker_processes auto;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:${port};
        location / {
            root ${dir};
            default_type application/json;
            # A POST of a static file is refused (405) unless answered as the file itself.
            error_page 405 =200 $uri;
            try_files /answer.json =404;
        }
    }
}
`;
    writeFileSync(path.join(dir, 'nginx.conf'), conf);
    const child = spawn('nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    for (let i = 0; i < 100; ++i) {
        try {
            const r = await post(`http://127.0.0.1:${port}/mcp`, 'x');
            if (r.status === 200 && r.body.equals(bytes)) return { child, url: `http://127.0.0.1:${port}/mcp` };
        } catch { /* not yet listening */ }
        await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGTERM');
    let log = '';
    try { log = readFileSync(path.join(dir, 'error.log'), 'utf8'); } catch { /* none */ }
    throw new Error(`nginx did not answer the same bytes: ${log}`);
}

const fmt = (f) => `${Math.round(f.rate).toLocaleString('en')} calls/s, p50 ${f.p50.toFixed(2)} ms, p90 ${f.p90.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms, max ${f.max.toFixed(1)} ms${f.errors ? `, ${f.errors} errors` : ''}`;

const dir = mkdtempSync(path.join(tmpdir(), 'countersign-listload-'));
const server = await startCountersign(binary);
let nginx;
try {
    const url = server.url; // the console's /mcp
    const first = await post(url, server.token);
    if (first.status !== 200) throw new Error(`tools/list answered ${first.status}: ${first.body}`);
    for (let i = 0; i < 200; ++i) await post(url, server.token); // warm-up
    const ours = wrk(url, server.token, dir);
    nginx = await nginxServing(first.body, dir);
    const theirs = wrk(nginx.url, 'x', dir);
    console.log(`tools/list over ${CONNECTIONS} keep-alive connections, ${SECONDS} s each (wrk, ${THREADS} threads; ${first.body.length} bytes answered)`);
    console.log(`  Countersign  ${fmt(ours)}`);
    console.log(`  nginx        ${fmt(theirs)} (the same bytes, a static file)`);
    console.log(`  Countersign answers ${(ours.rate / theirs.rate).toFixed(2)} of nginx's calls a second`);

    // A revoked token is refused on its very next request, right after the load.
    execFileSync(binary, ['token', 'revoke', 'peer', '--data-dir', server.dataDir, '--config', server.configPath], { stdio: 'ignore' });
    const after = await post(url, server.token);
    console.log(`  the token revoked after the load: its next request answered ${after.status}`);
    if (after.status !== 401) {
        console.error('listload: a revoked token was served');
        process.exitCode = 1;
    }
} finally {
    if (nginx) nginx.child.kill('SIGTERM');
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
}
