#!/usr/bin/env node
// 2025-era clients through the whole gate, over HTTP and over stdio: the official TypeScript SDK v1
// client (@modelcontextprotocol/sdk 1.32.2, pinned by package-lock.json) against one real console,
// reached over Streamable HTTP (bearer token) and through `countersign --stdio` (the bridge to the
// same console: one queue, one audit log). Each scenario runs once per transport: a console
// approval (receipt), a decline with its reason, the typed confirmation asked in the client's form
// (a wrong name asked again with a notice), a client without the form capability refused, the
// card's URL asked in the client (neither accept nor decline decides: the human does), expiry, a client gone
// mid-call and the same call again joining the same card; every approval runs its apply command
// exactly once (a line in the `runs` file). Then the v2 client (@modelcontextprotocol/client
// 2.4.0) pinned to 2026-07-28, in 'auto' mode and in its default mode against the same console.
//   node legacy-gate.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { check, exitWithSummary, waitFor, watch } from './checks.mjs';
import { startCountersign, stopConsoleOf } from './countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: legacy-gate.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const started = Date.now();

// Every apply appends its name to `runs` in the working folder: one line per run.
const work = mkdtempSync(path.join(tmpdir(), 'countersign-legacy-gate-'));
const runLines = () => (existsSync(path.join(work, 'runs')) ? readFileSync(path.join(work, 'runs'), 'utf8').split('\n').filter(Boolean) : []);
const runsOf = (name) => runLines().filter((l) => l === name).length;
const nameSchema = { type: 'object', properties: { name: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['name'], additionalProperties: false };
const apply = ['sh', '-c', 'echo "$1" >> runs; echo "stamped $1"', 'apply', '{name}'];
const config = {
    legacyHoldSeconds: 5,
    approval: { low: 'client' },
    actions: [
        { name: 'stamp', title: 'Stamp a name', risk: 'medium', workingDirectory: work, inputSchema: nameSchema,
          plan: ['sh', '-c', 'echo "stamp $1"', 'plan', '{name}'], apply },
        // Client mode: the typed confirmation asks for the plan's first target, the name.
        { name: 'stamp_low', title: 'Stamp a name (typed in the client)', risk: 'low', workingDirectory: work, inputSchema: nameSchema,
          plan: ['sh', '-c', 'printf \'{"summary": "stamp %s", "diff": "+%s", "targets": ["%s"]}\' "$1" "$1" "$1"', 'plan', '{name}'], apply },
    ],
};

const decide = (server, verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
const cardsOf = (server) => decide(server, 'list');
const waitForCards = (server, n) => waitFor(`${n} pending card(s)`, async () => { const c = await cardsOf(server); return c.length === n ? c : null; });

// The approvals this test made (console approvals and typed confirmations), to hold against the runs.
let approvals = 0;

// A v1 client over `kind` ('http' or 'stdio'), its wire traffic recorded (shown when a check fails,
// the words of any server bug).
async function connect(kind, server, { capabilities = {}, onElicit, name = `legacy-gate-${kind}` } = {}) {
    const client = new Client({ name, version: '1.0.0' }, { capabilities });
    if (onElicit) client.setRequestHandler(ElicitRequestSchema, onElicit);
    const transport = kind === 'http'
        ? new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } })
        : new StdioClientTransport({ command: binary, args: ['--stdio', '--data-dir', server.dataDir],
                                     env: { ...process.env, COUNTERSIGN_TOKEN: server.token }, stderr: 'pipe' });
    const wire = [];
    let stderr = '';
    transport.stderr?.on('data', (chunk) => { stderr += chunk; });
    const send = transport.send.bind(transport);
    transport.send = (message, options) => { wire.push(['->', message]); return send(message, options); };
    let handler;
    Object.defineProperty(transport, 'onmessage', {
        configurable: true,
        get: () => handler,
        set: (h) => { handler = h && ((message, extra) => { wire.push(['<-', message]); return h(message, extra); }); },
    });
    await client.connect(transport);
    // The bridge process (the SDK's child) and how it ended, for the stdio checks.
    const bridge = transport._process;
    const exited = bridge && new Promise((resolve) => bridge.once('exit', (code, signal) => resolve({ code, signal })));
    const show = () => `\n  wire (${kind}):\n${wire.map(([d, m]) => `    ${d} ${JSON.stringify(m)}`).join('\n')}${stderr ? `\n  bridge stderr: ${stderr}` : ''}`;
    return { client, transport, wire, show, stderr: () => stderr, bridge, exited };
}
// The check's body with the wire of its clients appended to a failure.
async function traced(fn) {
    const clients = [];
    try {
        await fn((c) => { clients.push(c); return c; });
    } catch (e) {
        const wire = clients.map((c) => c.show()).join('');
        if (e instanceof Error) e.stack = `${e.stack}${wire}`; // what check() prints
        for (const s of [server, expiring]) // what this case left waiting would confuse the next ones
            for (const card of await cardsOf(s).catch(() => [])) await decide(s, 'decline', '--nonce', card.nonce, '--reason', 'clean-up').catch(() => {});
        throw e;
    } finally {
        for (const c of clients) await c.client.close().catch(() => {});
    }
}
// Ends the bridge's stdin, as a client going away does; how the bridge ended within ms, or null.
async function endStdin(connection, ms = 1500) {
    const t0 = Date.now();
    connection.bridge.stdin.end();
    const how = await Promise.race([connection.exited, sleep(ms).then(() => null)]);
    return how && { ...how, ms: Date.now() - t0 };
}
const textOf = (r) => r.content?.map((c) => c.text).join('\n') ?? '';
const receiptOf = (r) => r._meta?.['dev.countersign/receipt'];

const server = await startCountersign(binary, { config, tokenName: 'legacy-gate' });
const port = new URL(server.url).port;
let expiring = server; // until the expiry console is up
try {
    // A second console whose tickets last 2 s from the card's making, seen or not
    // (cardUnseenLimitSeconds 0; ttlSeconds may be 1 to 86400; at 1 s the card could be gone before
    // the test has seen it), held up to 4 s: the hold ends at the expiry.
    expiring = await startCountersign(binary, { config: { ...config, ttlSeconds: 2, cardUnseenLimitSeconds: 0, legacyHoldSeconds: 4 }, tokenName: 'expiring' });
    for (const kind of ['http', 'stdio']) {
        await check(`${kind}: the v1 client initializes a 2025-11-25 session with the console and lists the gated tools`, () => traced(async (use) => {
            const { client, transport } = use(await connect(kind, server));
            assert.equal(client.getServerVersion()?.name, 'countersign');
            if (kind === 'http') assert.equal(transport.protocolVersion, '2025-11-25');
            const { tools } = await client.listTools();
            assert.ok(tools.some((t) => t.name === 'stamp') && tools.some((t) => t.name === 'stamp_low'), JSON.stringify(tools.map((t) => t.name)));
            assert.deepEqual(await cardsOf(server), [], 'no card is waiting before the scenarios');
        }));

        await check(`${kind}: a gated call waits on its request; approved in the console, it runs once and returns the card's receipt`, () => traced(async (use) => {
            const name = `${kind}-approve`;
            const { client } = use(await connect(kind, server));
            const pending = watch(client.callTool({ name: 'stamp', arguments: { name } }));
            const [card] = await waitForCards(server, 1);
            assert.equal(card.tool, 'stamp');
            await sleep(300);
            assert.equal(pending.settled(), false, 'the call waits for the decision');
            assert.equal(runsOf(name), 0, 'nothing ran before the approval');
            const decided = await decide(server, 'approve', '--nonce', card.nonce);
            assert.equal(decided.outcome, 'approved');
            ++approvals;
            const r = await pending.promise;
            assert.notEqual(r.isError, true, JSON.stringify(r));
            assert.match(textOf(r), new RegExp(`stamped ${name}`));
            assert.equal(receiptOf(r)?.nonce, card.nonce, 'the receipt is the card\'s');
            assert.equal(runsOf(name), 1, 'ran once');
            assert.deepEqual(await cardsOf(server), []);
        }));

        await check(`${kind}: declined in the console with a reason, the call is an error carrying the reason word for word; nothing ran`, () => traced(async (use) => {
            const name = `${kind}-decline`;
            const { client } = use(await connect(kind, server));
            const pending = watch(client.callTool({ name: 'stamp', arguments: { name } }));
            const decided = await decide(server, 'decline', '--wait-ms', '5000', '--reason', 'not today');
            assert.equal(decided.outcome, 'declined');
            const r = await pending.promise;
            assert.equal(r.isError, true, JSON.stringify(r));
            assert.equal(textOf(r), 'Declined by console:test-host: not today. Nothing was run.');
            assert.equal(r.structuredContent?.reason, 'not today', JSON.stringify(r.structuredContent));
            assert.equal(r.structuredContent?.decision, 'declined');
            assert.equal(receiptOf(r), undefined, 'no receipt for a call that did not run');
            assert.equal(runsOf(name), 0);
            assert.deepEqual(await cardsOf(server), []);
        }));

        await check(`${kind}: a client-mode tool asks for the typed name in the client's form while the call is held; a wrong name is asked again with a notice, the right one approves and it runs once`, () => traced(async (use) => {
            const name = `${kind}-typed`;
            const asked = [];
            const { client } = use(await connect(kind, server, {
                capabilities: { elicitation: { form: {} } },
                onElicit: async (request) => {
                    asked.push({ params: request.params, runsThen: runsOf(name) });
                    if (asked.length === 1) return { action: 'accept', content: { confirm: 'someone-else' } };
                    const typed = /Type "([^"]+)" to confirm\.$/.exec(request.params.message)?.[1];
                    return { action: 'accept', content: { confirm: typed } };
                },
            }));
            const r = await client.callTool({ name: 'stamp_low', arguments: { name } });
            assert.equal(asked.length, 2, `asked ${asked.length} time(s): ${JSON.stringify(asked)}`);
            const [first, second] = asked.map((a) => a.params);
            assert.equal(first.mode, 'form');
            assert.deepEqual(first.requestedSchema.required, ['confirm']);
            assert.equal(first.requestedSchema.properties.confirm.type, 'string');
            assert.ok(first.message.endsWith(`Type "${name}" to confirm.`), first.message);
            assert.ok(!first.message.includes('did not match'), first.message);
            assert.equal(second.mode, 'form');
            assert.ok(second.message.startsWith(`The name typed did not match "${name}". `), second.message);
            assert.ok(second.message.endsWith(`Type "${name}" to confirm.`), second.message);
            assert.deepEqual(asked.map((a) => a.runsThen), [0, 0], 'nothing ran while it was being asked');
            ++approvals;
            assert.notEqual(r.isError, true, JSON.stringify(r));
            assert.match(textOf(r), new RegExp(`stamped ${name}`));
            assert.equal(receiptOf(r)?.approver, 'client:legacy-gate', JSON.stringify(r._meta));
            assert.equal(receiptOf(r)?.client, `legacy-gate-${kind}`);
            assert.equal(runsOf(name), 1, 'ran once');
            assert.deepEqual(await cardsOf(server), []);
        }));

        await check(`${kind}: a client-mode tool called by a client without the form capability is refused with -32021 naming it; no card, nothing ran`, () => traced(async (use) => {
            for (const capabilities of [{}, { elicitation: { url: {} } }]) {
                const name = `${kind}-noform`;
                const { client } = use(await connect(kind, server, { capabilities, onElicit: capabilities.elicitation ? async () => ({ action: 'cancel' }) : undefined }));
                await assert.rejects(client.callTool({ name: 'stamp_low', arguments: { name } }), (e) => {
                    assert.equal(e.code, -32021, `${JSON.stringify(capabilities)}: ${e}`);
                    assert.match(e.message, /stamp_low needs a typed confirmation in the client's form: declare the elicitation form capability/);
                    assert.deepEqual(e.data?.requiredCapabilities, { elicitation: { form: {} } });
                    return true;
                });
                assert.equal(runsOf(name), 0);
                assert.deepEqual(await cardsOf(server), [], 'no card was made');
            }
        }));

        await check(`${kind}: a client with URL mode is sent the card's URL while the call is held; accept decides nothing, the console's approval runs it once; the page says it waits in the window`, () => traced(async (use) => {
            const name = `${kind}-url`;
            const asked = [];
            const { client, wire } = use(await connect(kind, server, {
                capabilities: { elicitation: { url: {} } },
                onElicit: async (request) => { asked.push(request.params); return { action: 'accept' }; },
            }));
            const pending = watch(client.callTool({ name: 'stamp', arguments: { name } }));
            await waitFor('elicitation/create', () => asked.length > 0);
            const [card] = await waitForCards(server, 1);
            const [ask] = asked;
            assert.equal(ask.mode, 'url');
            assert.equal(ask.url, `http://127.0.0.1:${port}/approvals/${card.nonce}`);
            assert.equal(ask.elicitationId, card.nonce);
            assert.equal(ask.message, `Approve or decline "Stamp a name (name=${name})" in the Countersign window.`);
            await waitFor('the client\'s accept on the wire', () => wire.some(([d, m]) => d === '->' && m.result?.action === 'accept'));
            await sleep(500); // and handled by the console
            assert.equal(pending.settled(), false, 'accept did not settle the call');
            assert.deepEqual((await cardsOf(server)).map((c) => c.nonce), [card.nonce], 'the card is still pending');
            assert.equal(runsOf(name), 0);
            const page = await fetch(ask.url);
            assert.equal(page.status, 200);
            assert.match(page.headers.get('content-type'), /^text\/html/);
            assert.match(await page.text(), /This request is waiting in the <b>Countersign<\/b> window\. Approve or decline it there; this page cannot do either\./);
            assert.equal(pending.settled(), false, 'opening the page decided nothing');
            await decide(server, 'approve', '--nonce', card.nonce);
            ++approvals;
            const r = await pending.promise;
            assert.notEqual(r.isError, true, JSON.stringify(r));
            assert.equal(receiptOf(r)?.nonce, card.nonce);
            assert.equal(receiptOf(r)?.approver, 'console:test-host', 'approved in the console, not by the accept');
            assert.equal(runsOf(name), 1, 'ran once');
            assert.equal(asked.length, 1, 'asked once');
        }));

        await check(`${kind}: a client with URL mode answering decline (as Codex does at once) leaves the card to the human: the call waits on, and the console's decline, with its reason, answers it; nothing ran`, () => traced(async (use) => {
            const name = `${kind}-url-no`;
            const asked = [];
            // A client of its own: one that answered a prompt at once is not prompted again.
            const { client } = use(await connect(kind, server, {
                name: `legacy-gate-${kind}-auto`,
                capabilities: { elicitation: { url: {} } },
                onElicit: async (request) => { asked.push(request.params); return { action: 'decline' }; },
            }));
            const pending = watch(client.callTool({ name: 'stamp', arguments: { name } }));
            const [card] = await waitForCards(server, 1);
            await waitFor('the URL asked', () => asked.length === 1);
            assert.equal(asked[0].mode, 'url');
            await sleep(400);
            assert.equal(pending.settled(), false, 'the call still waits for the human');
            assert.deepEqual((await cardsOf(server)).map((c) => c.nonce), [card.nonce], 'the card still waits');
            await decide(server, 'decline', '--nonce', card.nonce, '--reason', 'not from the client');
            const r = await pending.promise;
            assert.equal(r.isError, true, JSON.stringify(r));
            assert.equal(textOf(r), 'Declined by console:test-host: not from the client. Nothing was run.');
            assert.equal(r.structuredContent?.decision, 'declined');
            assert.equal(runsOf(name), 0);
            assert.deepEqual(await cardsOf(server), []);
        }));

        await check(`${kind}: with a 2 s TTL the held call is answered expired and nothing ran; the expired card cannot be approved`, () => traced(async (use) => {
            const name = `${kind}-expire`;
            const { client } = use(await connect(kind, expiring));
            const t0 = Date.now();
            const pending = watch(client.callTool({ name: 'stamp', arguments: { name } }));
            const [card] = await waitForCards(expiring, 1);
            let r = await pending.promise;
            const heldMs = Date.now() - t0;
            let recalled = false;
            if (/nothing has run yet\. Call stamp again/.test(textOf(r))) { // held to just short of the TTL: the same call again
                recalled = true;
                r = await client.callTool({ name: 'stamp', arguments: { name } });
            }
            assert.equal(r.isError, true, JSON.stringify(r));
            assert.match(textOf(r), /^Approval expired: the ticket's 2 s passed before the call was approved and retried\. Nothing was run/, `${JSON.stringify(r)} (held ${heldMs} ms${recalled ? ', then called again' : ''})`);
            assert.equal(r.structuredContent?.decision, 'expired');
            assert.ok(heldMs >= 1500 && heldMs < 4000, `held ${heldMs} ms`);
            assert.equal(recalled, false, `the held call (${heldMs} ms) was answered "still pending", not expired`);
            await assert.rejects(decide(expiring, 'approve', '--nonce', card.nonce, '--wait-ms', '0'), 'an expired card cannot be approved');
            assert.deepEqual(await cardsOf(expiring), []);
            assert.equal(runsOf(name), 0);
        }));

        await check(`${kind}: a client gone mid-call leaves its card pending; connecting again, the same call joins that card (one card), and the approval runs it exactly once`, () => traced(async (use) => {
            const name = `${kind}-rejoin`;
            const first = use(await connect(kind, server));
            const gone = first.client.callTool({ name: 'stamp', arguments: { name } }).then((r) => ({ r }), (e) => ({ e }));
            const [card] = await waitForCards(server, 1);
            const bridge = kind === 'stdio' ? first.transport.pid : null;
            await first.client.close(); // HTTP: the request is aborted; stdio: stdin ends (then the SDK's SIGTERM)
            const outcome = await gone;
            assert.ok(outcome.e, `the closed client's call failed: ${JSON.stringify(outcome)}`);
            if (bridge) assert.throws(() => process.kill(bridge, 0), 'the bridge has ended');
            assert.deepEqual((await cardsOf(server)).map((c) => c.nonce), [card.nonce], 'the card waits on');
            const { client } = use(await connect(kind, server));
            const again = watch(client.callTool({ name: 'stamp', arguments: { name } }));
            await sleep(400);
            assert.equal(again.settled(), false, 'the same call waits');
            assert.deepEqual((await cardsOf(server)).map((c) => c.nonce), [card.nonce], 'it joined the card: still exactly one');
            assert.equal(runsOf(name), 0);
            await decide(server, 'approve', '--nonce', card.nonce);
            ++approvals;
            const r = await again.promise;
            assert.notEqual(r.isError, true, JSON.stringify(r));
            assert.equal(receiptOf(r)?.nonce, card.nonce);
            await sleep(500); // the gone client's call, held on in the console, wakes too
            assert.equal(runsOf(name), 1, 'ran exactly once');
            assert.deepEqual(await cardsOf(server), []);
        }));

        if (kind === 'stdio') {
            await check('stdio: once stdin ends and every request has had its answer, the bridge exits 0 at once, also after its client answered the console\'s elicitation/create', () => traced(async (use) => {
                const plain = use(await connect(kind, server));
                await plain.client.listTools();
                const quiet = await endStdin(plain);
                assert.deepEqual(quiet && [quiet.code, quiet.signal], [0, null], `a session that was asked nothing: ${JSON.stringify(quiet)}`);
                const name = `${kind}-answered`;
                const asked = use(await connect(kind, server, { capabilities: { elicitation: { form: {} } }, onElicit: async () => ({ action: 'decline' }) }));
                const r = await asked.client.callTool({ name: 'stamp_low', arguments: { name } });
                assert.equal(r.isError, true, JSON.stringify(r));
                assert.equal(textOf(r), 'Declined by client:legacy-gate: declined in the client. Nothing was run.');
                const answered = await endStdin(asked);
                assert.deepEqual(answered && [answered.code, answered.signal], [0, null],
                    `the bridge was still running 1500 ms after its stdin ended (${JSON.stringify(answered)}); every request had its answer`);
            }));
        }
    }

    await check('one run per approval: the runs file holds exactly one line per approval made, over both transports', async () => {
        const lines = runLines();
        assert.equal(approvals, 8, 'four approvals per transport (console, typed, URL then console, re-call)');
        assert.equal(lines.length, approvals, JSON.stringify(lines));
        assert.equal(new Set(lines).size, lines.length, `no name ran twice: ${JSON.stringify(lines)}`);
        for (const kind of ['http', 'stdio'])
            for (const s of ['approve', 'typed', 'url', 'rejoin']) assert.equal(runsOf(`${kind}-${s}`), 1, `${kind}-${s}`);
    });

    await check('one console, one audit log: each call of both transports is one operation there, with its client, decision and outcome; the chain verifies', async () => {
        const { stdout } = await run(binary, ['audit', 'export', '--format', 'json', '--data-dir', server.dataDir]);
        const rows = JSON.parse(stdout);
        const seen = (row) => [row.client, row.decision, row.decidedBy, row.reason, row.outcome];
        for (const kind of ['http', 'stdio']) {
            const expected = {
                approve: [`legacy-gate-${kind}`, 'approved', 'console:test-host', '', 'succeeded'],
                decline: [`legacy-gate-${kind}`, 'declined', 'console:test-host', 'not today', 'not run'],
                typed: [`legacy-gate-${kind}`, 'approved', 'client:legacy-gate', 'typed confirmation', 'succeeded'],
                url: [`legacy-gate-${kind}`, 'approved', 'console:test-host', '', 'succeeded'],
                'url-no': [`legacy-gate-${kind}-auto`, 'declined', 'console:test-host', 'not from the client', 'not run'],
                rejoin: [`legacy-gate-${kind}`, 'approved', 'console:test-host', '', 'succeeded'],
            };
            for (const [s, want] of Object.entries(expected)) {
                const mine = rows.filter((row) => row.arguments?.name === `${kind}-${s}`);
                assert.equal(mine.length, 1, `${kind}-${s}: ${mine.length} operations`);
                assert.deepEqual(seen(mine[0]), want, `${kind}-${s}`);
            }
            assert.equal(rows.filter((row) => row.arguments?.name === `${kind}-noform`).length, 0, 'a refused call leaves no operation');
        }
        assert.equal(rows.length, 13, JSON.stringify(rows.map((r) => r.arguments)));
        const verified = await run(binary, ['audit', 'verify', '--data-dir', server.dataDir]);
        assert.match(verified.stdout, /^audit log intact: /);
    });

    // The v2 client picks the era with versionNegotiation.mode: absent means 'legacy' (initialize at
    // once: DEFAULT_VERSION_NEGOTIATION_MODE in 2.4.0), 'auto' probes with server/discover and falls
    // back to initialize when the server gives no 2026 answer, { pin } probes with no fallback.
    const eras = {};
    for (const [label, options, expected, opening] of [
        ['pinned to 2026-07-28', { versionNegotiation: { mode: { pin: '2026-07-28' } } }, 'modern 2026-07-28', 'server/discover'],
        ["mode 'auto'", { versionNegotiation: { mode: 'auto' } }, 'modern 2026-07-28', 'server/discover'],
        ['default mode', {}, 'legacy 2025-11-25', 'initialize']]) {
        await check(`v2 client (${label}) connects to the same console over HTTP, opening with ${opening}, and lists its tools`, async () => {
            const posted = [];
            const tap = (url, init) => { try { posted.push(JSON.parse(init?.body).method ?? 'response'); } catch { posted.push(init?.method ?? 'GET'); } return fetch(url, init); };
            const client = new ClientV2({ name: 'legacy-gate-v2', version: '1.0.0' }, { capabilities: {}, ...options });
            try {
                await client.connect(new HttpTransportV2(new URL(server.url), { fetch: tap, requestInit: { headers: { Authorization: `Bearer ${server.token}` } } }));
                eras[label] = `${client.getProtocolEra()} ${client.getNegotiatedProtocolVersion()}`;
                assert.equal(client.getServerVersion()?.name, 'countersign');
                const { tools } = await client.listTools();
                assert.ok(tools.some((t) => t.name === 'stamp') && tools.some((t) => t.name === 'stamp_low'));
                assert.equal(eras[label], expected);
                assert.equal(posted[0], opening, JSON.stringify(posted));
                assert.equal(posted.includes(opening === 'initialize' ? 'server/discover' : 'initialize'), false, JSON.stringify(posted));
            } finally {
                await client.close().catch(() => {});
            }
        });
    }
    console.log(`v2 client eras: ${JSON.stringify(eras)}`);
} finally {
    for (const s of new Set([server, expiring])) {
        await stopConsoleOf(s.dataDir); // whichever console holds the folder: ours, or one a bridge started
        await s.stop();
    }
    rmSync(work, { recursive: true, force: true });
}
console.log(`took ${((Date.now() - started) / 1000).toFixed(1)} s`);
exitWithSummary();
