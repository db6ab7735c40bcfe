#!/usr/bin/env node
// Issue 12, "One request kills the app": a gated call whose _meta clientInfo had a number as `name`
// aborted the whole process (an uncaught nlohmann type_error). Every client-supplied field of a
// tools/call (envelope, clientInfo, capabilities, progress token, arguments, requestState,
// inputResponses) is sent mistyped against a real gated action; each must answer a JSON-RPC error
// (-32602/-32600) or an isError result, and the process must keep serving. Also a body of 1000
// nested arrays and a huge number.
//   node hostile-fields.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { callTool, check, exitWithSummary, pendingCards, startCountersign } from './attacker.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: hostile-fields.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }

const work = mkdtempSync(path.join(tmpdir(), 'countersign-sec-fields-'));
const schema = { type: 'object', properties: { dir: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['dir'], additionalProperties: false };
const config = {
    pollWindowSeconds: 1,
    actions: [{
        name: 'touch_it', title: 'Touch a marker', inputSchema: schema, workingDirectory: work, risk: 'medium',
        plan: ['sh', '-c', 'echo "would touch $1"', 'plan', '{dir}'],
        apply: ['sh', '-c', 'touch "applied-$1"', 'apply', '{dir}'],
    }],
};
const server = await startCountersign(binary, { config, tokenName: 'agent' });
const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const withMeta = (more) => ({ _meta: { ...envelope, ...more } });
const alive = () => server.child.exitCode === null && server.child.signalCode === null;

// A refusal: a JSON-RPC error -32602/-32600 with a message, or a result with isError. Returns a
// short description of what came back, for the check's log line.
function assertRefused(r, what) {
    if (r.error) {
        assert.ok([-32602, -32600].includes(r.error.code), `${what}: error code ${r.error.code}: ${JSON.stringify(r)}`);
        assert.equal(typeof r.error.message, 'string', `${what}: a message`);
        assert.ok(r.error.message.length > 0, `${what}: a message`);
        return `${r.error.code} ${r.error.message}`;
    }
    assert.equal(r.result?.isError, true, `${what}: neither an error nor isError: ${JSON.stringify(r)}`);
    return `isError ${r.result.content?.[0]?.text ?? ''}`;
}

// A raw POST of a body as text (for bodies JSON.stringify would not write).
async function post(body, name = 'touch_it') {
    const response = await fetch(server.url, {
        method: 'POST',
        headers: {
            Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json',
            'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name,
        },
        body,
    });
    return { status: response.status, text: await response.text() };
}

// [the attack, the extra params merged into tools/call, the tool name, the arguments]
const good = { dir: 'victim' };
const hostile = [
    ['clientInfo.name a number (the crash of the issue)', withMeta({ 'io.modelcontextprotocol/clientInfo': { name: 42, version: '1' } })],
    ['clientInfo a string', withMeta({ 'io.modelcontextprotocol/clientInfo': 'mallory' })],
    ['clientInfo.version an object', withMeta({ 'io.modelcontextprotocol/clientInfo': { name: 'x', version: { major: 1 } } })],
    ['clientCapabilities.elicitation "yes"', withMeta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: 'yes' } })],
    ['_meta.progressToken {}', withMeta({ progressToken: {} })],
    ['requestState 5', { requestState: 5 }],
    ['requestState {}', { requestState: {} }],
    ['inputResponses "x"', { inputResponses: 'x' }],
    ['inputResponses {approval: 7}', { inputResponses: { approval: 7 } }],
    ['_meta []', { _meta: [] }],
    ['arguments []', {}, 'touch_it', []],
    ['arguments "str"', {}, 'touch_it', 'str'],
    ['name 7', {}, 7],
];

try {
    await check('a well-formed gated call answers input_required (the baseline)', async () => {
        const r = await callTool(server, 'touch_it', good);
        assert.equal(r.result?.resultType, 'input_required', JSON.stringify(r));
    });

    for (const [attack, extra, name = 'touch_it', args = good] of hostile) {
        await check(`${attack}: -32602 (or isError), the app keeps serving`, async () => {
            const r = await callTool(server, name, args, extra);
            console.log(`     ${attack} -> ${assertRefused(r, attack)}`);
            assert.ok(alive(), `the process died: ${server.stderr()}`);
        });
    }

    await check('inputResponses mistyped next to a real requestState: refused, nothing runs', async () => {
        const first = await callTool(server, 'touch_it', { dir: 'with-state' });
        assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
        for (const inputResponses of ['x', { approval: 7 }, [], { confirm: 'accept' }]) {
            const r = await callTool(server, 'touch_it', { dir: 'with-state' }, { requestState: first.result.requestState, inputResponses });
            console.log(`     inputResponses ${JSON.stringify(inputResponses)} -> ${assertRefused(r, JSON.stringify(inputResponses))}`);
        }
        assert.ok(!existsSync(path.join(work, 'applied-with-state')), 'the apply never ran');
        assert.ok(alive());
    });

    await check('a body of 1000 nested arrays: a JSON-RPC error (not a crash)', async () => {
        const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"touch_it","arguments":${'['.repeat(1000)}${']'.repeat(1000)},"_meta":${JSON.stringify(envelope)}}}`;
        const { status, text } = await post(body);
        console.log(`     nested -> HTTP ${status} ${text.slice(0, 120)}`);
        const r = JSON.parse(text);
        assert.ok(r.error && [-32700, -32600, -32602].includes(r.error.code), text);
        const bare = await post('['.repeat(1000) + ']'.repeat(1000));
        console.log(`     bare nested -> HTTP ${bare.status} ${bare.text.slice(0, 120)}`);
        assert.ok(bare.status >= 400 || /"error"/.test(bare.text), bare.text);
        assert.ok(alive());
    });

    await check('a huge number (400 digits; 1e300) as an argument and as the id: an error, not a crash', async () => {
        const envelopeText = JSON.stringify(envelope);
        for (const huge of [`1${'0'.repeat(400)}`, '1e300', '-1e300']) {
            const asArg = await post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"touch_it","arguments":{"dir":${huge}},"_meta":${envelopeText}}}`);
            console.log(`     ${huge.slice(0, 8)} as argument -> HTTP ${asArg.status} ${asArg.text.slice(0, 110)}`);
            const r = JSON.parse(asArg.text);
            assert.ok(r.error ? [-32700, -32600, -32602].includes(r.error.code) : r.result?.isError === true, asArg.text);
            const asId = await post(`{"jsonrpc":"2.0","id":${huge},"method":"tools/call","params":{"name":"touch_it","arguments":{"dir":"victim"},"_meta":${envelopeText}}}`);
            console.log(`     ${huge.slice(0, 8)} as id -> HTTP ${asId.status} ${asId.text.slice(0, 110)}`);
            const byId = JSON.parse(asId.text);
            assert.ok(byId.error ? [-32700, -32600].includes(byId.error.code) : byId.result?.resultType === 'input_required', asId.text);
        }
        assert.ok(alive());
    });

    await check('after all of them: still running, a normal gated call still answers input_required, nothing ran', async () => {
        assert.ok(alive(), `the process died: ${server.stderr()}`);
        const r = await callTool(server, 'touch_it', { dir: 'after' });
        assert.equal(r.result?.resultType, 'input_required', JSON.stringify(r));
        const cards = await pendingCards(server, decideBinary);
        assert.ok(cards.some((c) => c.tool === 'touch_it'), `its card waits: ${JSON.stringify(cards)}`);
        assert.ok(!existsSync(path.join(work, 'applied-victim')) && !existsSync(path.join(work, 'applied-after')), 'no apply ran');
    });
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
