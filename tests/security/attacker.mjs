// What the security tests share: the attacker's only means, raw MCP over HTTP with a connection
// token (2026-07-28 wire format), against the real binary on a fresh data folder; and the test
// host's hand on the approval queue (countersign-test-decide) where a human would decide.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
export { startCountersign } from '../peer/countersign-process.mjs';
export { check, exitWithSummary } from '../peer/checks.mjs';

const run = promisify(execFile);
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

// One tools/call; resolves with the parsed JSON-RPC response. `extra` is merged into params
// (requestState, inputResponses, a hostile _meta).
export async function callTool(server, name, args, extra = {}, id = 1) {
    const params = { name, arguments: args, _meta: meta, ...extra };
    const response = await fetch(server.url, {
        method: 'POST',
        headers: {
            Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json',
            'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
    });
    return response.json();
}

// The names tools/list answers with (the first page).
export async function listToolNames(server) {
    const response = await fetch(server.url, {
        method: 'POST',
        headers: {
            Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json',
            'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }),
    });
    return ((await response.json()).result?.tools ?? []).map((t) => t.name);
}

// The first text block of a result ('' when there is none).
export const textOf = (response) => response?.result?.content?.[0]?.text ?? '';

// Decides the oldest pending card (or --nonce N) as the window would; resolves with
// {nonce, tool, outcome}.
export async function decide(server, decideBinary, verb, ...args) {
    const { stdout } = await run(decideBinary, [server.dataDir, verb, ...args]);
    return JSON.parse(stdout);
}

export const pendingCards = (server, decideBinary) => decide(server, decideBinary, 'list', '--wait-ms', '0');

// A configured action over one directory name (a strict pattern): its plan lists the directory's
// files, so a file added changes the plan; apply is the caller's argv, with the name as "$1".
export const dirAction = (work, name, title, applyScript) => ({
    name, title, risk: 'medium', workingDirectory: work,
    inputSchema: { type: 'object', properties: { dir: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['dir'], additionalProperties: false },
    plan: ['sh', '-c', `printf '{"summary":"${name} %s","targets":["%s"],"diff":"%s"}' "$1" "$1" "$(find "$1" -type f | sort | tr "\\n" " ")"`, 'plan', '{dir}'],
    apply: ['sh', '-c', applyScript, 'apply', '{dir}'],
});
