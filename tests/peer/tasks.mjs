#!/usr/bin/env node
// The 2025-11-25 tasks (mcp-spec-2025-11-25 basic/utilities/tasks), which VS Code uses instead of
// waiting on one request: the official TypeScript SDK v1 client (@modelcontextprotocol/sdk 1.32.2,
// its experimental task API) against the real console, over Streamable HTTP and through
// `countersign --stdio`. A task-augmented call to a gated tool is answered with its task at once and
// held past the console's hold limit (legacyHoldSeconds 3) until the human decides: approved, it
// runs once and tasks/result brings the receipt; declined, the reason. tasks/cancel leaves the card
// to the human and the approval then waits for the next identical call. A task is another
// connection's "not found"; hostile fields are refused with -32602; a 2025-06-18 session has no tasks.
//   node tasks.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { check, exitWithSummary, waitFor, watch } from './checks.mjs';
import { startCountersign, stopConsoleOf } from './countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: tasks.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const work = mkdtempSync(path.join(tmpdir(), 'countersign-tasks-'));
const runsOf = (name) => (existsSync(path.join(work, 'runs')) ? readFileSync(path.join(work, 'runs'), 'utf8').split('\n').filter((l) => l === name).length : 0);
const nameSchema = { type: 'object', properties: { name: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['name'], additionalProperties: false };
const config = {
    legacyHoldSeconds: 3,
    progressHoldSeconds: 3,
    actions: [{ name: 'stamp', title: 'Stamp a name', risk: 'medium', workingDirectory: work, inputSchema: nameSchema,
                plan: ['sh', '-c', 'echo "stamp $1"', 'plan', '{name}'],
                apply: ['sh', '-c', 'echo "$1" >> runs; echo "stamped $1"', 'apply', '{name}'] }],
};
const decide = (server, verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
const cardsOf = (server) => decide(server, 'list');
const waitForCard = (server) => waitFor('a pending card', async () => (await cardsOf(server))[0]);
const textOf = (r) => r.content?.map((c) => c.text).join('\n') ?? '';
const receiptOf = (r) => r._meta?.['dev.countersign/receipt'];

async function connect(kind, server, token = server.token) {
    const client = new Client({ name: `tasks-${kind}`, version: '1.0.0' }, { capabilities: {} });
    const transport = kind === 'http'
        ? new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } })
        : new StdioClientTransport({ command: binary, args: ['--stdio', '--data-dir', server.dataDir],
                                     env: { ...process.env, COUNTERSIGN_TOKEN: token }, stderr: 'pipe' });
    await client.connect(transport);
    return client;
}
// The task stream of one call, its messages collected: taskCreated, taskStatus..., then result or error.
function streamCall(client, name, ttl = 600000) {
    const messages = [];
    const done = (async () => {
        for await (const m of client.experimental.tasks.callToolStream({ name: 'stamp', arguments: { name } }, CallToolResultSchema, { task: { ttl } }))
            messages.push(m);
        return messages;
    })();
    return { messages, ...watch(done) };
}
const createdOf = (messages) => messages.find((m) => m.type === 'taskCreated')?.task;

const server = await startCountersign(binary, { config, tokenName: 'tasks' });
const other = server.addToken('tasks-other');
try {
    for (const kind of ['http', 'stdio']) {
        await check(`${kind}: a 2025-11-25 session is offered tasks for tools/call (list, cancel) and every tool may run as one`, async () => {
            const client = await connect(kind, server);
            try {
                const tasks = client.getServerCapabilities()?.tasks;
                assert.deepEqual(tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
                const { tools } = await client.listTools();
                assert.ok(tools.length > 0 && tools.every((t) => t.execution?.taskSupport === 'optional'), JSON.stringify(tools.map((t) => [t.name, t.execution])));
            } finally { await client.close(); }
        });

        await check(`${kind}: a task-augmented gated call is a task at once, working past the hold limit; approved, it runs once and tasks/result has the receipt`, async () => {
            const name = `${kind}-approve`;
            const client = await connect(kind, server);
            try {
                const call = streamCall(client, name);
                const card = await waitForCard(server);
                const created = await waitFor('the task', () => createdOf(call.messages));
                assert.equal(created.status, 'working');
                assert.match(created.taskId, /^[0-9a-f]{32}$/);
                assert.ok(created.ttl >= 600000 && created.pollInterval > 0, JSON.stringify(created));
                await sleep(4500); // past legacyHoldSeconds: a plain call would have been answered "still waiting"
                assert.equal(call.settled(), false, 'the task waits for the human');
                const state = await client.experimental.tasks.getTask(created.taskId);
                assert.equal(state.status, 'working');
                assert.match(state.statusMessage, /Countersign window/);
                assert.equal(runsOf(name), 0, 'nothing ran before the approval');
                assert.equal((await decide(server, 'approve', '--nonce', card.nonce)).outcome, 'approved');
                const messages = await call.promise;
                const last = messages.at(-1);
                assert.equal(last.type, 'result', JSON.stringify(messages));
                assert.notEqual(last.result.isError, true, JSON.stringify(last.result));
                assert.match(textOf(last.result), new RegExp(`stamped ${name}`));
                assert.ok(receiptOf(last.result), `the result carries the receipt: ${JSON.stringify(last.result._meta)}`);
                assert.equal(last.result._meta?.['io.modelcontextprotocol/related-task']?.taskId, created.taskId);
                assert.equal(runsOf(name), 1, 'run once');
                assert.equal((await client.experimental.tasks.getTask(created.taskId)).status, 'completed');
                const again = await client.experimental.tasks.getTaskResult(created.taskId, CallToolResultSchema);
                assert.match(textOf(again), new RegExp(`stamped ${name}`), 'tasks/result again: the same result');
                assert.equal(runsOf(name), 1, 'still once');
            } finally { await client.close(); }
        });

        await check(`${kind}: declined with a reason, the task completes with the reason in its result, and nothing runs`, async () => {
            const name = `${kind}-decline`;
            const client = await connect(kind, server);
            try {
                const call = streamCall(client, name);
                const card = await waitForCard(server);
                await waitFor('the task', () => createdOf(call.messages));
                // tasks/result asked before the decision blocks until it.
                const result = watch(client.experimental.tasks.getTaskResult(createdOf(call.messages).taskId, CallToolResultSchema));
                await sleep(500);
                assert.equal(result.settled(), false, 'tasks/result blocks while the task works');
                await decide(server, 'decline', '--nonce', card.nonce, '--reason', 'not on a Friday');
                const r = await result.promise;
                assert.equal(r.isError, true);
                assert.match(textOf(r), /not on a Friday/);
                const last = (await call.promise).at(-1);
                assert.equal(last.type, 'result', 'the SDK reads a completed task\'s result (a "failed" one it would not)');
                assert.match(textOf(last.result), /not on a Friday/);
                assert.equal(runsOf(name), 0);
            } finally { await client.close(); }
        });

        await check(`${kind}: tasks/cancel ends the task and decides nothing; approved later, nothing runs until the next identical call, which runs it once`, async () => {
            const name = `${kind}-cancel`;
            const client = await connect(kind, server);
            try {
                const call = streamCall(client, name);
                const card = await waitForCard(server);
                const { taskId } = await waitFor('the task', () => createdOf(call.messages));
                const cancelled = await client.experimental.tasks.cancelTask(taskId);
                assert.equal(cancelled.status, 'cancelled');
                assert.equal((await call.promise).at(-1).type, 'error');
                assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'cancelled');
                await assert.rejects(client.experimental.tasks.cancelTask(taskId), /terminal status 'cancelled'/);
                const still = await cardsOf(server);
                assert.deepEqual(still.map((c) => c.nonce), [card.nonce], 'the card waits for the human');
                await decide(server, 'approve', '--nonce', card.nonce);
                await sleep(500);
                assert.equal(runsOf(name), 0, 'a cancelled task runs nothing');
                const r = await client.callTool({ name: 'stamp', arguments: { name } });
                assert.notEqual(r.isError, true, JSON.stringify(r));
                assert.match(textOf(r), new RegExp(`stamped ${name}`));
                assert.equal(runsOf(name), 1, 'the approval ran once, for the next identical call');
            } finally { await client.close(); }
        });

        await check(`${kind}: another connection's token finds none of this connection's tasks (get, result, cancel, list)`, async () => {
            const name = `${kind}-owner`;
            const client = await connect(kind, server);
            const stranger = await connect(kind, server, other);
            try {
                const call = streamCall(client, name);
                const card = await waitForCard(server);
                const { taskId } = await waitFor('the task', () => createdOf(call.messages));
                await assert.rejects(stranger.experimental.tasks.getTask(taskId), /Task not found/);
                await assert.rejects(stranger.experimental.tasks.getTaskResult(taskId, CallToolResultSchema), /Task not found/);
                await assert.rejects(stranger.experimental.tasks.cancelTask(taskId), /Task not found/);
                const listed = await stranger.experimental.tasks.listTasks();
                assert.ok(!listed.tasks.some((t) => t.taskId === taskId), JSON.stringify(listed));
                const mine = await client.experimental.tasks.listTasks();
                assert.equal(mine.tasks[0]?.taskId, taskId, 'newest first in its own list');
                assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'working', 'not cancelled by the stranger');
                await decide(server, 'decline', '--nonce', card.nonce, '--reason', 'clean-up');
                await call.promise;
            } finally { await client.close(); await stranger.close(); }
        });
    }

    // Raw 2025-11-25 requests over HTTP, for the fields the SDK would never send.
    const post = async (session, message, version = '2025-11-25') => {
        const res = await fetch(server.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', ...message }),
            headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
                       'MCP-Protocol-Version': version, ...(session ? { 'Mcp-Session-Id': session } : {}) } });
        return { status: res.status, session: res.headers.get('mcp-session-id'), body: await res.json() };
    };
    const open = async (version) => {
        const init = await post(null, { id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }, version);
        return init;
    };

    await check('hostile task fields are refused with -32602 and create nothing', async () => {
        const { session } = await open('2025-11-25');
        const refusals = [
            [{ method: 'tools/call', params: { name: 'stamp', arguments: { name: 'raw' }, task: 'soon' } }, /task must be an object/],
            [{ method: 'tools/call', params: { name: 'stamp', arguments: { name: 'raw' }, task: { ttl: -1 } } }, /task.ttl/],
            [{ method: 'tools/call', params: { name: 'stamp', arguments: { name: 'raw' }, task: { ttl: 1.5 } } }, /task.ttl/],
            [{ method: 'tools/call', params: { name: 'stamp', arguments: { name: 'raw' }, task: { ttl: '60000' } } }, /task.ttl/],
            [{ method: 'tasks/get', params: { taskId: 7 } }, /taskId must be a string/],
            [{ method: 'tasks/get', params: {} }, /taskId must be a string/],
            [{ method: 'tasks/result', params: { taskId: '00000000000000000000000000000000' } }, /Task not found/],
            [{ method: 'tasks/cancel', params: { taskId: '../../etc' } }, /Task not found/],
            [{ method: 'tasks/list', params: { cursor: 'not-a-cursor!' } }, /unknown cursor/],
            [{ method: 'tasks/list', params: { cursor: 12 } }, /cursor must be a string/],
        ];
        for (const [i, [message, words]] of refusals.entries()) {
            const r = await post(session, { id: i + 1, ...message });
            assert.equal(r.body.error?.code, -32602, `${JSON.stringify(message)} -> ${JSON.stringify(r.body)}`);
            assert.match(r.body.error.message, words);
        }
        assert.deepEqual(await cardsOf(server), [], 'no card from a refused call');
        const unknown = await post(session, { id: 99, method: 'tools/call', params: { name: 'no_such_tool', arguments: {}, task: {} } });
        assert.ok(unknown.body.error || unknown.body.result?.isError, `an unknown tool is refused as a plain call is: ${JSON.stringify(unknown.body)}`);
        assert.equal(unknown.body.result?.task, undefined, 'no task for an unknown tool');
    });

    await check('a 2025-06-18 session has no tasks: none offered, tasks/* not found, and a task field is ignored (the call is held as a plain one)', async () => {
        const init = await open('2025-06-18');
        assert.equal(init.body.result.capabilities.tasks, undefined, JSON.stringify(init.body.result.capabilities));
        const list = await post(init.session, { id: 1, method: 'tools/list' }, '2025-06-18');
        assert.ok(list.body.result.tools.every((t) => t.execution === undefined));
        const get = await post(init.session, { id: 2, method: 'tasks/get', params: { taskId: 'x' } }, '2025-06-18');
        assert.equal(get.body.error?.code, -32601);
        const t0 = Date.now();
        const call = await post(init.session, { id: 3, method: 'tools/call', params: { name: 'stamp', arguments: { name: 'old-era' }, task: {} } }, '2025-06-18');
        assert.equal(call.body.result?.task, undefined, JSON.stringify(call.body));
        assert.match(textOf(call.body.result), /Call stamp again with the same arguments/);
        assert.ok(Date.now() - t0 >= 2500, 'held to the hold limit, as a plain call');
        for (const card of await cardsOf(server)) await decide(server, 'decline', '--nonce', card.nonce, '--reason', 'clean-up');
    });
} finally {
    await server.stop();
    await stopConsoleOf(server.dataDir);
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
