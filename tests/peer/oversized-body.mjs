#!/usr/bin/env node
// Bodies over the 1 MiB cap, as an ordinary client sends them: Node's built-in fetch POSTs a whole
// 2 MiB JSON body to the real console's /mcp. The server refuses it from its Content-Length (413)
// before reading it, while fetch is still sending; it then closes lingering (the answer first, then
// what the client still sends is read and dropped for 2 s). Closing at once would reset the
// connection and fetch would throw instead of reading the 413 (the bug this guards against):
// - with a valid token: a 413 whose body is the JSON-RPC error naming the limit;
// - without a token: a readable refusal (401 or 413, whichever the server decides first), never a
//   fetch exception;
// - a body just under the cap is not refused for its size.
//   node oversized-body.mjs COUNTERSIGN_BINARY
import assert from 'node:assert/strict';
import { check, exitWithSummary } from './checks.mjs';
import { startCountersign } from './countersign-process.mjs';

const [binary] = process.argv.slice(2);
if (!binary) { console.error('usage: oversized-body.mjs COUNTERSIGN_BINARY'); process.exit(1); }

const MAX_BODY = 1024 * 1024; // HttpParser::kMaxBodyBytes (README: "bodies over 1 MiB are refused")
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

// A well-formed tools/list of exactly `bytes` bytes: only its size can be wrong. The padding is an
// extra params field, so the JSON stays valid and ASCII (one byte a character).
function toolsListOf(bytes) {
    const request = (pad) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta, padding: pad } });
    const body = request('x'.repeat(bytes - request('').length));
    assert.equal(Buffer.byteLength(body), bytes);
    return body;
}

// One POST as a client would send it; resolves with { status, text } once the whole answer is read,
// or with { thrown } when fetch itself fails (a reset, a closed socket): the failure under test.
async function post(server, body, { token = server.token } = {}) {
    const headers = { 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' };
    if (token) headers.Authorization = `Bearer ${token}`;
    try {
        const response = await fetch(server.url, { method: 'POST', headers, body });
        return { status: response.status, text: await response.text() };
    } catch (e) {
        return { thrown: `${e}${e?.cause ? ` (cause: ${e.cause.code ?? e.cause})` : ''}` };
    }
}

// The answer must be a read HTTP answer, and its body a JSON-RPC error with a message.
function assertJsonError(answer) {
    assert.equal(answer.thrown, undefined, `fetch threw instead of reading the answer: ${answer.thrown}`);
    const parsed = JSON.parse(answer.text);
    assert.equal(parsed.jsonrpc, '2.0', answer.text);
    assert.equal(typeof parsed.error?.message, 'string', answer.text);
    assert.ok(parsed.error.message.length > 0, answer.text);
    return parsed;
}

const server = await startCountersign(binary, { tokenName: 'oversized' });
const big = toolsListOf(2 * MAX_BODY);
try {
    await check('a 2 MiB body with a valid token: fetch reads the 413 and its JSON error, no reset', async () => {
        const answer = await post(server, big);
        const parsed = assertJsonError(answer);
        assert.equal(answer.status, 413, answer.text);
        // The parser's reason (server/http/httpparser.cpp), as a transport-level refusal (-32000).
        assert.equal(parsed.error.code, -32000, answer.text);
        assert.match(parsed.error.message, new RegExp(`body larger than ${MAX_BODY} bytes`), answer.text);
    });

    await check('the same again, three times over fresh connections: the 413 is read every time', async () => {
        // A reset is a race (the client's unsent bytes against the server's close): once is luck.
        for (let i = 0; i < 3; ++i) {
            const answer = await post(server, big);
            assertJsonError(answer);
            assert.equal(answer.status, 413, `try ${i + 1}: ${answer.text}`);
        }
    });

    await check('a 2 MiB body without a token: a readable 401 or 413, not a fetch exception', async () => {
        const answer = await post(server, big, { token: null });
        assertJsonError(answer);
        assert.ok(answer.status === 401 || answer.status === 413, `status ${answer.status}: ${answer.text}`);
    });

    await check('a body just under 1 MiB is not refused for its size', async () => {
        const answer = await post(server, toolsListOf(MAX_BODY - 1024));
        assert.equal(answer.thrown, undefined, `fetch threw: ${answer.thrown}`);
        assert.notEqual(answer.status, 413, answer.text);
        JSON.parse(answer.text); // answered as MCP, whatever it made of the padding
    });

    await check('the console still answers a plain tools/list after the refusals', async () => {
        const answer = await post(server, toolsListOf(512));
        assert.equal(answer.status, 200, answer.text);
        assert.ok(Array.isArray(JSON.parse(answer.text).result?.tools), answer.text);
    });
} finally {
    await server.stop();
}
exitWithSummary();
