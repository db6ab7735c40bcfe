#!/usr/bin/env node
// The benchmark's yardstick: the same gated tool served by the official TypeScript SDK 2.4.0
// (@modelcontextprotocol/server, createMcpHandler + McpServer + its HMAC requestState codec).
//   bench_gated {target}   first call runs the plan command and answers input_required with a form
//                          ("type the target") and a sealed requestState; the retry with the typed
//                          target runs the apply command once and answers.
//   bench_allowed {target} runs the apply command at once.
//   status {}              a plain read-only tool, no process.
// The plan and apply commands are /bin/true, as in the Countersign configuration it is compared with.
//   node sdk-gate-server.mjs PORT
import http from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Readable } from 'node:stream';
import { McpServer, createMcpHandler, createRequestStateCodec, fromJsonSchema, inputRequired, inputResponse } from '@modelcontextprotocol/server';

const run = promisify(execFile);
const port = Number(process.argv[2] ?? 0);
const codec = createRequestStateCodec({ key: 'bench-key-0123456789abcdef-0123456789abcdef', ttlSeconds: 300, bind: (ctx) => ctx.mcpReq.method });
const targetSchema = fromJsonSchema({ type: 'object', properties: { target: { type: 'string' } }, required: ['target'], additionalProperties: false });
const text = (t, extra = {}) => ({ content: [{ type: 'text', text: t }], ...extra });

function buildServer() {
    const server = new McpServer({ name: 'sdk-gate-server', version: '1.0.0' }, { capabilities: { tools: {} }, requestState: { verify: codec.verify } });
    server.registerTool('bench_gated', { description: 'gated', inputSchema: targetSchema, annotations: { destructiveHint: true } }, async ({ target }, ctx) => {
        const state = ctx.mcpReq.requestState();
        if (state !== undefined && state.target === target) {
            const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
            if (answer.kind === 'elicit' && answer.action === 'accept' && answer.content?.confirm === target) {
                const out = await run('true');
                return text(`exit code 0\n${out.stdout}`, { structuredContent: { exitCode: 0 } });
            }
        }
        await run('true'); // the plan command
        return inputRequired({
            inputRequests: { confirm: inputRequired.elicit({ mode: 'form', message: `Type "${target}" to confirm.`, requestedSchema: { type: 'object', properties: { confirm: { type: 'string' } }, required: ['confirm'] } }) },
            requestState: await codec.mint({ target }, ctx),
        });
    });
    server.registerTool('bench_allowed', { description: 'allowed', inputSchema: targetSchema }, async () => {
        const out = await run('true');
        return text(`exit code 0\n${out.stdout}`);
    });
    server.registerTool('status', { description: 'status', inputSchema: fromJsonSchema({ type: 'object', properties: {} }), annotations: { readOnlyHint: true } },
        async () => text('ok'));
    return server;
}

const handler = createMcpHandler(() => buildServer(), { legacy: 'reject', responseMode: 'json' });
const httpServer = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const request = new Request(url, { method: req.method, headers, body: req.method === 'POST' ? Readable.toWeb(req) : undefined, duplex: 'half' });
    const response = await handler.fetch(request);
    const out = {};
    response.headers.forEach((v, k) => (out[k] = v));
    res.writeHead(response.status, out);
    res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
});
httpServer.listen(port, '127.0.0.1', () => console.error(`sdk-gate-server listening on http://127.0.0.1:${httpServer.address().port}/mcp`));
