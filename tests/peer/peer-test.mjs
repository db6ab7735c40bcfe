#!/usr/bin/env node
// The official MCP TypeScript client (@modelcontextprotocol/client 2.4.0, pinned to protocol
// 2026-07-28) against the real Countersign binary over loopback HTTP.
//   node peer-test.mjs path/to/countersign
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import assert from 'node:assert/strict';
import { startCountersign } from './countersign-process.mjs';
import { check, exitWithSummary } from './checks.mjs';

const binary = process.argv[2];
if (!binary) { console.error('usage: peer-test.mjs COUNTERSIGN_BINARY'); process.exit(1); }

function newClient(capabilities = {}) {
    return new Client({ name: 'countersign-peer-test', version: '1.0.0' },
        { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } });
}
function transport(server, token = server.token) {
    return new StreamableHTTPClientTransport(new URL(server.url),
        { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
}

const server = await startCountersign(binary);
try {
    const client = newClient({ elicitation: { form: {}, url: {} } });
    await check('connect negotiates 2026-07-28 through server/discover', async () => {
        await client.connect(transport(server));
        assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
        assert.equal(client.getProtocolEra(), 'modern');
        assert.equal(client.getServerVersion().name, 'countersign');
    });
    await check('discover advertises tools with listChanged (served on subscriptions/listen)', async () => {
        const caps = client.getServerCapabilities();
        assert.ok(caps.tools, 'tools capability');
        assert.equal(caps.tools.listChanged, true);
    });
    await check('tools/list returns annotated tools', async () => {
        const { tools } = await client.listTools();
        const status = tools.find((t) => t.name === 'countersign_status');
        assert.ok(status, 'countersign_status listed');
        assert.equal(status.annotations.readOnlyHint, true);
        assert.equal(status.annotations.destructiveHint, false);
        assert.equal(status.annotations.idempotentHint, true);
        assert.ok(!tools.some((t) => t.name.startsWith('test_')), 'no conformance fixtures in the default configuration');
    });
    await check('tools/call runs the tool and names the connection', async () => {
        const result = await client.callTool({ name: 'countersign_status', arguments: {} });
        assert.notEqual(result.isError, true);
        assert.equal(result.structuredContent.connection, 'peer');
        assert.match(result.content[0].text, /connection "peer"/);
    });
    await check('tools/call with invalid arguments is an isError result', async () => {
        const result = await client.callTool({ name: 'countersign_status', arguments: { unexpected: 1 } });
        assert.equal(result.isError, true);
        assert.match(result.content[0].text, /additional property 'unexpected'/);
    });
    await check('an unknown tool is a -32602 protocol error', async () => {
        await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (e) => e.code === -32602);
    });
    await client.close();

    await check('a client with a wrong token cannot connect (401)', async () => {
        const intruder = newClient();
        await assert.rejects(intruder.connect(transport(server, 'cs_not-a-token')), (e) => /401|Unauthorized/i.test(String(e?.message ?? e) + String(e?.code)));
    });
    await check('a client without elicitation capability still works for plain tools', async () => {
        const plain = newClient({});
        await plain.connect(transport(server));
        const result = await plain.callTool({ name: 'countersign_status', arguments: {} });
        assert.notEqual(result.isError, true);
        await plain.close();
    });
} finally {
    await server.stop();
}

exitWithSummary();
