#!/usr/bin/env node
// A stand-in for Countersign when developing the runners (not a test): an MCP server on the official
// SDK v1 (Streamable HTTP, stateful, 2025 era) with one tool, write_file {path, content}, that
// answers Countersign's "still waiting" text for the first PENDING calls (each after HOLD_MS), then
// writes the file. Bearer token checked. Prints "fake-console: listening on URL" on stderr.
//   node fake-console.mjs TOKEN [PENDING=1] [HOLD_MS=1000]
import { McpServer } from '../peer/node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js';
import { StreamableHTTPServerTransport } from '../peer/node_modules/@modelcontextprotocol/sdk/dist/esm/server/streamableHttp.js';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { z } from '../peer/node_modules/zod/index.js';

const [token, pendingArg = '1', holdArg = '1000'] = process.argv.slice(2);
let pending = Number(pendingArg);
const hold = Number(holdArg);
const transports = new Map();

function makeServer() {
    const server = new McpServer({ name: 'fake-console', version: '1.0.0' });
    server.registerTool('write_file', {
        title: 'Write a file', description: 'Creates or replaces a file.',
        inputSchema: { path: z.string(), content: z.string() },
        annotations: { destructiveHint: true },
    }, async ({ path, content }) => {
        await new Promise((r) => setTimeout(r, hold));
        if (pending-- > 0) {
            process.stderr.write('fake-console: answered still waiting\n');
            return { isError: true, content: [{ type: 'text', text: `Waiting for a human to approve "Create ${path}" in the Countersign window; nothing has run yet. Call write_file again with the same arguments to keep waiting: the same approval card is kept, and the call returns the result once it is approved.` }] };
        }
        writeFileSync(path, content);
        process.stderr.write(`fake-console: wrote ${path}\n`);
        return { content: [{ type: 'text', text: `wrote ${path}` }] };
    });
    return server;
}

const http = createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) { res.writeHead(401).end(); return; }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    process.stderr.write(`fake-console: ${req.method} ${body?.method ?? ''} ${body?.params?.protocolVersion ?? ''}\n`);
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
        if (body?.method !== 'initialize') { res.writeHead(sid ? 404 : 400).end(); return; }
        transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => transports.set(id, transport) });
        await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
});
http.listen(0, '127.0.0.1', () => process.stderr.write(`fake-console: listening on http://127.0.0.1:${http.address().port}/mcp\n`));
