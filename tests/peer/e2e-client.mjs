#!/usr/bin/env node
// The agent's side of the end-to-end test: the official TypeScript client 2.4.0 calls a gated
// action and prints the final CallToolResult as one JSON line (the client retries on its own
// while the human decides in the window).
//   node e2e-client.mjs URL TOKEN TOOL ARGUMENTS_JSON
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, token, tool, args] = process.argv.slice(2);
const client = new Client({ name: 'e2e-agent', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
const result = await client.callTool({ name: tool, arguments: JSON.parse(args) }, undefined, { timeout: 60000 });
process.stdout.write(JSON.stringify(result) + '\n');
await client.close();
