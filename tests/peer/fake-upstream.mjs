#!/usr/bin/env node
// An upstream MCP server for the gateway tests, on the official SDK v1 (stdio, 2025-era), with the
// faults a real one can have: `record` appends a line to $FAKE_RUNS (one line per run, the proof
// of exactly once) and answers after `ms` milliseconds; `hang` records and never answers; `die`
// records and exits mid-call; `echo` (readOnlyHint) answers at once. Its pid goes to $FAKE_PID
// at start, so a test can kill it mid-call. With --http it serves Streamable HTTP on 127.0.0.1 (a
// 2025-era server with sessions, one per initialize), prints "listening PORT" on stdout, and, with
// FAKE_TOKEN set, answers 401 to a request without "Authorization: Bearer FAKE_TOKEN".
//   FAKE_RUNS=FILE FAKE_PID=FILE node fake-upstream.mjs [--http]
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { appendFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';

if (process.env.FAKE_PID) writeFileSync(process.env.FAKE_PID, `${process.pid}\n`);
const record = (line) => { if (process.env.FAKE_RUNS) appendFileSync(process.env.FAKE_RUNS, `${line}\n`); };
const nameSchema = { type: 'object', properties: { name: { type: 'string' }, ms: { type: 'integer', minimum: 0 } }, required: ['name'] };
const tools = [
    { name: 'echo', description: 'Says the name back.', inputSchema: nameSchema, annotations: { readOnlyHint: true } },
    { name: 'record', description: 'Records the name (one line per run).', inputSchema: nameSchema, annotations: { readOnlyHint: false, destructiveHint: true } },
    { name: 'hang', description: 'Records the name and never answers.', inputSchema: nameSchema, annotations: { destructiveHint: true } },
    { name: 'die', description: 'Records the name and exits mid-call.', inputSchema: nameSchema, annotations: { destructiveHint: true } },
];
function makeServer() {
    const server = new Server({ name: 'fake-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const { name, arguments: args = {} } = request.params;
        const text = (t) => ({ content: [{ type: 'text', text: t }] });
        switch (name) {
        case 'echo':
            return text(`echo ${args.name}`);
        case 'record':
            record(`record ${args.name}`);
            await new Promise((r) => setTimeout(r, args.ms ?? 0));
            return text(`recorded ${args.name}`);
        case 'hang':
            record(`hang ${args.name}`);
            return new Promise(() => {});
        case 'die':
            record(`die ${args.name}`);
            setTimeout(() => process.exit(3), 50);
            return new Promise(() => {});
        default:
            return { ...text(`no tool ${name}`), isError: true };
        }
    });
    return server;
}

if (!process.argv.includes('--http')) {
    await makeServer().connect(new StdioServerTransport());
} else {
    const sessions = new Map();
    const httpServer = http.createServer(async (req, res) => {
        if (process.env.FAKE_TOKEN && req.headers.authorization !== `Bearer ${process.env.FAKE_TOKEN}`) {
            res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Unauthorized' }, id: null }));
            return;
        }
        let body = '';
        for await (const chunk of req) body += chunk;
        const parsed = body ? JSON.parse(body) : undefined;
        let transport = sessions.get(req.headers['mcp-session-id']);
        if (!transport) {
            if (!isInitializeRequest(parsed)) {
                res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: parsed?.id ?? null }));
                return;
            }
            transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => sessions.set(id, transport) });
            await makeServer().connect(transport);
        }
        await transport.handleRequest(req, res, parsed);
    });
    httpServer.listen(0, '127.0.0.1', () => console.log(`listening ${httpServer.address().port}`));
}
