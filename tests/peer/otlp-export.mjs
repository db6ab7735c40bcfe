#!/usr/bin/env node
// OTLP export end to end: the real binary with "otlp" pointing at a receiver of the test's own
// (otlp-receiver.mjs, plain node:http). Gated calls are made over real HTTP with a traceparent in
// _meta, decided through the approval queue (countersign-test-decide), and the spans received are
// checked: the MCP attributes, the decision, the parent trace, and nothing of the arguments or the
// plan. Then collectors that are down, broken or silent: every call is answered as usual.
//   node otlp-export.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { check, exitWithSummary, waitFor } from './checks.mjs';
import { startCountersign } from './countersign-process.mjs';
import { attr, startOtlpReceiver } from './otlp-receiver.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: otlp-export.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);

const work = mkdtempSync(path.join(tmpdir(), 'countersign-otlp-'));
const SECRET = 'zq-secret-4711'; // in every directory name: never in a span
const victim = (name) => { const dir = `${SECRET}-${name}`; mkdirSync(path.join(work, dir), { recursive: true }); return dir; };
const config = (endpoint) => ({
    pollWindowSeconds: 1,
    actions: [{
        name: 'delete_dir', title: 'Delete a directory', risk: 'medium', workingDirectory: work,
        inputSchema: { type: 'object', properties: { dir: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['dir'], additionalProperties: false },
        plan: ['sh', '-c', 'printf "PLAN-TEXT delete %s\\n" "$1"', 'plan', '{dir}'],
        apply: ['sh', '-c', 'rm -r -- "$1"', 'apply', '{dir}'],
    }],
    rules: [
        { tool: 'delete_dir', arguments: { dir: '*-allowed-*' }, decision: 'allow' },
        { tool: 'delete_dir', arguments: { dir: '*-denied-*' }, decision: 'deny', reason: 'not these' },
    ],
    otlp: { endpoint, headers: { Authorization: 'Bearer otlp-t0ken' }, serviceName: 'countersign-e2e' },
});

const decide = (server, verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
async function call(server, id, dir, { requestState, traceparent } = {}) {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'otlp-test-agent', version: '1.0.0' } };
    if (traceparent) meta.traceparent = traceparent;
    const params = { name: 'delete_dir', arguments: { dir }, _meta: meta };
    if (requestState) params.requestState = requestState;
    const response = await fetch(server.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'delete_dir' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
    });
    const answer = await response.json();
    assert.ok(answer.result, JSON.stringify(answer));
    return answer.result;
}
const spanOf = (receiver, key, value, server) => waitFor(`the span with ${key}=${value}`,
    () => receiver.spans().find((s) => attr(s, key) === value), 10000, () => `; received: ${JSON.stringify(receiver.requests.map((r) => r.text))}; stderr: ${server?.stderr() ?? ''}`);
// A port nothing listens on.
async function closedPort() {
    const probe = createServer();
    await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address();
    await new Promise((resolve) => probe.close(resolve));
    return port;
}

const receiver = await startOtlpReceiver();
let server = await startCountersign(binary, { config: config(receiver.url), tokenName: 'agent' });
try {
    await check('a declined card: one span in the agent\'s trace, with the MCP attributes and the decision', async () => {
        const traceId = randomBytes(16).toString('hex'), parentId = randomBytes(8).toString('hex');
        const dir = victim('declined');
        const first = await call(server, 'req-7', dir, { traceparent: `00-${traceId}-${parentId}-01` });
        assert.equal(first.resultType, 'input_required');
        const decided = await decide(server, 'decline', '--reason', 'NOT-TODAY-REASON', '--wait-ms', '10000');
        const retried = await call(server, 'req-8', dir, { requestState: first.requestState });
        assert.equal(retried.isError, true);
        const span = await spanOf(receiver, 'countersign.nonce', decided.nonce, server);
        assert.equal(span.name, 'tools/call delete_dir');
        assert.equal(span.kind, 2); // SERVER
        assert.equal(span.traceId, traceId);
        assert.equal(span.parentSpanId, parentId);
        assert.match(span.spanId, /^[0-9a-f]{16}$/);
        assert.match(span.startTimeUnixNano, /^\d{19}$/);
        assert.ok(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano));
        assert.equal(attr(span, 'mcp.method.name'), 'tools/call');
        assert.equal(attr(span, 'gen_ai.tool.name'), 'delete_dir');
        assert.equal(attr(span, 'gen_ai.operation.name'), 'execute_tool');
        assert.equal(attr(span, 'jsonrpc.request.id'), 'req-7', 'the id of the call that reached the gate, not of its retry');
        assert.equal(attr(span, 'mcp.protocol.version'), '2026-07-28');
        assert.equal(attr(span, 'network.transport'), 'tcp');
        assert.equal(attr(span, 'countersign.decision'), 'declined');
        assert.equal(attr(span, 'countersign.decided_by'), 'console:test-host');
        assert.equal(attr(span, 'countersign.risk'), 'medium');
        assert.equal(attr(span, 'countersign.connection'), 'agent');
        assert.equal(attr(span, 'countersign.client.name'), 'otlp-test-agent');
        assert.equal(attr(span, 'error.type'), 'tool_error');
        assert.deepEqual(span.status, { code: 2, message: 'declined by console:test-host' });
        assert.equal(attr(span.resource, 'service.name'), 'countersign-e2e');
        assert.match(attr(span.resource, 'service.instance.id'), /^[0-9a-f]+$/);
        const request = receiver.requests.find((r) => r.text.includes(decided.nonce));
        assert.equal(request.method, 'POST');
        assert.equal(request.url, '/v1/traces');
        assert.equal(request.headers['content-type'], 'application/json');
        assert.equal(request.headers.authorization, 'Bearer otlp-t0ken');
        assert.equal(receiver.spans().filter((s) => attr(s, 'countersign.nonce') === decided.nonce).length, 1, 'one span per call');
    });

    await check('approved and run: the span ends with the run; no traceparent, a trace of its own', async () => {
        const dir = victim('approved');
        const first = await call(server, 42, dir);
        const decided = await decide(server, 'approve', '--wait-ms', '10000');
        const done = await call(server, 43, dir, { requestState: first.requestState });
        assert.equal(done.resultType, 'complete');
        assert.notEqual(done.isError, true, JSON.stringify(done));
        const span = await spanOf(receiver, 'countersign.nonce', decided.nonce, server);
        assert.equal(attr(span, 'jsonrpc.request.id'), '42');
        assert.equal(attr(span, 'countersign.decision'), 'approved');
        assert.equal(attr(span, 'countersign.decided_by'), 'console:test-host');
        assert.equal(attr(span, 'countersign.outcome'), 'ok');
        assert.equal(attr(span, 'error.type'), undefined);
        assert.equal(span.status.code, 0);
        assert.match(span.traceId, /^[0-9a-f]{32}$/);
        assert.notEqual(span.traceId, '0'.repeat(32));
        assert.equal(span.parentSpanId, undefined);
        assert.deepEqual(span.events.map((e) => e.name), ['countersign.decided']);
    });

    await check('calls a rule settles: allowed (ends with its run) and denied (an error), each a span', async () => {
        const allowed = await call(server, 'allowed-1', victim('allowed-1'));
        assert.notEqual(allowed.isError, true, JSON.stringify(allowed));
        const denied = await call(server, 'denied-1', victim('denied-1'));
        assert.equal(denied.isError, true);
        const a = await spanOf(receiver, 'jsonrpc.request.id', 'allowed-1', server);
        assert.equal(attr(a, 'countersign.decision'), 'allowed');
        assert.equal(attr(a, 'countersign.decided_by'), 'rule');
        assert.equal(attr(a, 'countersign.outcome'), 'ok');
        assert.match(attr(a, 'countersign.rule'), /^rules\[0\]/);
        const d = await spanOf(receiver, 'jsonrpc.request.id', 'denied-1', server);
        assert.equal(attr(d, 'countersign.decision'), 'denied');
        assert.deepEqual(d.status, { code: 2, message: 'denied by a rule' });
    });

    await check('never the arguments, the plan or the reviewer\'s reason in what is sent', async () => {
        const everything = receiver.requests.map((r) => r.text).join('\n');
        assert.ok(receiver.spans().length >= 4);
        assert.ok(!everything.includes(SECRET), 'an argument reached the collector');
        assert.ok(!everything.includes('PLAN-TEXT'), 'the plan reached the collector');
        assert.ok(!everything.includes('NOT-TODAY-REASON'), 'the decline reason reached the collector');
    });
    await server.stop();

    await check('a collector that is down: calls are answered as usual, the failure logged once, every span counted as dropped', async () => {
        server = await startCountersign(binary, { config: config(`http://127.0.0.1:${await closedPort()}/v1/traces`), tokenName: 'agent' });
        for (let i = 0; i < 5; ++i) {
            const started = Date.now();
            const r = await call(server, `down-${i}`, victim(`allowed-down-${i}`));
            assert.notEqual(r.isError, true, JSON.stringify(r));
            assert.ok(Date.now() - started < 2000, 'an allowed call waited on the collector');
            await new Promise((resolve) => setTimeout(resolve, 300)); // export attempts in between
        }
        const first = await call(server, 'down-card', victim('down-card'));
        await decide(server, 'decline', '--wait-ms', '10000');
        assert.equal((await call(server, 'down-retry', victim('down-card'), { requestState: first.requestState })).isError, true);
        const stopped = Date.now();
        const { code } = await server.stop();
        assert.equal(code, 0);
        assert.ok(Date.now() - stopped < 8000, 'the quit waited on the collector');
        const stderr = server.stderr();
        assert.equal((stderr.match(/OTLP export to \S+ fails: /g) ?? []).length, 1, `logged once, not per span or attempt: ${stderr}`);
        assert.match(stderr, /OTLP export to \S+ ends: spans delivered 0, dropped 6 /, stderr);
    });

    await check('a collector answering 500, then garbage, then nothing: calls unaffected, the quit bounded', async () => {
        const broken = await startOtlpReceiver({ mode: 'error' });
        server = await startCountersign(binary, { config: config(broken.url), tokenName: 'agent' });
        try {
            await call(server, 'err-1', victim('allowed-err-1'));
            await waitFor('a POST to the broken collector', () => broken.requests.length >= 1, 10000);
            await waitFor('the failure logged', () => /fails: HTTP 500, those spans are dropped/.test(server.stderr()), 5000, () => server.stderr());
            broken.mode = 'garbage';
            await call(server, 'err-2', victim('allowed-err-2'));
            await waitFor('a POST answered with garbage', () => broken.requests.length >= 2, 10000);
            broken.mode = 'silent';
            for (let i = 0; i < 3; ++i) {
                const started = Date.now();
                const r = await call(server, `silent-${i}`, victim(`allowed-silent-${i}`));
                assert.notEqual(r.isError, true);
                assert.ok(Date.now() - started < 2000, 'a call waited on a silent collector');
            }
            await waitFor('a POST the collector never answers', () => broken.requests.length >= 3, 10000);
            const stopped = Date.now();
            const { code } = await server.stop();
            assert.equal(code, 0);
            assert.ok(Date.now() - stopped < 8000, `the quit waited ${Date.now() - stopped} ms on a silent collector`);
            assert.ok(!server.stderr().includes(SECRET));
        } finally {
            await broken.close();
        }
    });
} finally {
    await server.stop().catch(() => {});
    await receiver.close();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
