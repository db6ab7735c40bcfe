#!/usr/bin/env node
// An upstream MCP server for the gateway tests, on the official SDK v1 (stdio, 2025-era), with the
// faults a real one can have: `record` appends a line to $FAKE_RUNS (one line per run, the proof
// of exactly once) and answers after `ms` milliseconds; `hang` records and never answers; `die`
// records and exits mid-call; `echo` (readOnlyHint) answers at once. Its pid goes to $FAKE_PID
// at start, so a test can kill it mid-call.
//   FAKE_RUNS=FILE FAKE_PID=FILE node fake-upstream.mjs
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { appendFileSync, writeFileSync } from 'node:fs';

if (process.env.FAKE_PID) writeFileSync(process.env.FAKE_PID, `${process.pid}\n`);
const record = (line) => { if (process.env.FAKE_RUNS) appendFileSync(process.env.FAKE_RUNS, `${line}\n`); };
const nameSchema = { type: 'object', properties: { name: { type: 'string' }, ms: { type: 'integer', minimum: 0 } }, required: ['name'] };
const tools = [
    { name: 'echo', description: 'Says the name back.', inputSchema: nameSchema, annotations: { readOnlyHint: true } },
    { name: 'record', description: 'Records the name (one line per run).', inputSchema: nameSchema, annotations: { readOnlyHint: false, destructiveHint: true } },
    { name: 'hang', description: 'Records the name and never answers.', inputSchema: nameSchema, annotations: { destructiveHint: true } },
    { name: 'die', description: 'Records the name and exits mid-call.', inputSchema: nameSchema, annotations: { destructiveHint: true } },
];
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
await server.connect(new StdioServerTransport());
