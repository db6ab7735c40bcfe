#!/usr/bin/env node
// Takes the README's screenshots of the real app under the current X display (run it through
// packaging/screenshots.sh, which starts Xvfb): the first start, the main window with pending
// cards, the audit view after a few decided calls, the Connections tab right after adding a
// connection (typed with xdotool), and Settings. Needs ImageMagick's `import` and xdotool.
//   node packaging/screenshots.mjs COUNTERSIGN_BINARY OUT_DIR
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const [binary, outDir] = process.argv.slice(2);
if (!binary || !outDir) { console.error('usage: screenshots.mjs COUNTERSIGN_BINARY OUT_DIR'); process.exit(2); }
mkdirSync(outDir, { recursive: true });
const work = mkdtempSync(path.join(tmpdir(), 'countersign-shots-'));
const dataDir = path.join(work, 'data');
const plan = (service, files) => JSON.stringify({
    summary: `${files} files and 1 volume go with the service`,
    targets: [service],
    diff: `--- a/services/${service}.yaml\n+++ /dev/null\n@@ -1,7 +0,0 @@\n-name: ${service}\n-replicas: 3\n-image: registry.local/${service}:1.4.2\n-volumes:\n-  - data-${service}\n-port: 8080\n-healthcheck: /ready\n`,
    blastRadius: { instances: 3, files, bytes: files * 8192, volumes: 1 },
});
const schema = { type: 'object', properties: { service: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['service'], additionalProperties: false };
for (const s of ['web-1', 'web-2', 'billing', 'search', 'tmp-preview']) writeFileSync(path.join(work, `${s}.json`), plan(s, s.length * 3));
writeFileSync(path.join(work, 'config.json'), JSON.stringify({
    keyStore: 'file',
    actions: [
        { name: 'delete_service', title: 'Delete a service', description: 'Removes the deployment and its volumes.', inputSchema: schema,
          plan: ['cat', '{service}.json'], apply: ['true', '{service}'], workingDirectory: work, risk: 'high' },
        { name: 'restart_service', title: 'Restart a service', inputSchema: schema,
          plan: ['cat', '{service}.json'], apply: ['true', '{service}'], workingDirectory: work, risk: 'low' },
    ],
    rules: [{ tool: 'delete_service', arguments: { service: 'prod-*' }, decision: 'deny', reason: 'production is off limits' },
            { tool: 'restart_service', arguments: { service: 'tmp-*' }, decision: 'allow' }],
    approval: { low: 'client' },
    // An MCP server behind the gate (the peer tests' pinned copy), for the Connections shot.
    upstreams: [{ name: 'fs', command: [process.execPath, path.resolve('tests/peer/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), work],
                  tools: { edit_file: { planWith: { dryRun: true }, targets: ['path'], risk: 'medium' } } }],
}, null, 2));
const token = execFileSync(binary, ['token', 'add', 'vscode', '--data-dir', dataDir]).toString().trim();

async function startApp(show) {
    const child = spawn(binary, ['--config', path.join(work, 'config.json'), '--data-dir', dataDir, '--listen', '127.0.0.1:0', '--show', show], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const url = await new Promise((resolve, reject) => {
        child.stderr.on('data', (c) => { err += c; const m = /listening on (\S+)/.exec(err); if (m) resolve(m[1]); });
        child.on('exit', (code) => reject(new Error(`app exited ${code}: ${err}`)));
    });
    return { child, url };
}
const meta = (client) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } }, 'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0' } });
async function call(url, name, args, client, extra = {}) {
    const r = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: meta(client), ...extra } }) });
    return (await r.json()).result;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const shoot = (file) => execFileSync('import', ['-window', 'root', path.join(outDir, file)]);
async function stop(app) { const done = new Promise((r) => app.child.once('exit', r)); app.child.kill('SIGTERM'); await done; }

try {
    // The first start: a fresh data folder, no connection yet.
    writeFileSync(path.join(work, 'fresh.json'), JSON.stringify({ keyStore: 'file' }));
    const fresh = spawn(binary, ['--data-dir', path.join(work, 'fresh'), '--config', path.join(work, 'fresh.json'), '--listen', '127.0.0.1:0'],
        { stdio: ['ignore', 'ignore', 'pipe'] });
    await new Promise((resolve) => { let err = ''; fresh.stderr.on('data', (c) => { err += c; if (/window shown/.test(err)) resolve(); }); fresh.on('exit', resolve); });
    await sleep(1500);
    shoot('first-start.png');
    await stop({ child: fresh });
    // History: client-mode restarts confirmed or declined in the client, rules that allow and deny.
    let app = await startApp('approvals');
    for (const [service, client, answer] of [['web-1', 'Claude Code', 'accept'], ['billing', 'Cursor', 'decline'], ['search', 'VS Code', 'accept'], ['web-2', 'Claude Code', 'decline']]) {
        const first = await call(app.url, 'restart_service', { service }, client);
        await call(app.url, 'restart_service', { service }, client, { requestState: first.requestState,
            inputResponses: { confirm: answer === 'accept' ? { action: 'accept', content: { confirm: service } } : { action: 'decline' } } });
    }
    await call(app.url, 'restart_service', { service: 'tmp-preview' }, 'Cursor');
    await call(app.url, 'delete_service', { service: 'prod-db' }, 'Claude Code');
    // Pending cards in the main window, the newest (high risk) shown.
    await call(app.url, 'delete_service', { service: 'search' }, 'Cursor');
    await call(app.url, 'delete_service', { service: 'web-1' }, 'Claude Code');
    await sleep(1500);
    shoot('approval-card.png');
    // The audit view, on the same console (with --audit: the README's shot has a longer history).
    execFileSync('xdotool', ['search', '--onlyvisible', '--name', 'Countersign', 'windowfocus', '--sync', 'key', 'alt+2']); // no window manager: focus, not activate
    await sleep(1500);
    if (process.argv.includes('--audit')) shoot('audit-view.png');
    // Connections: a connection added by typing its name, its token and setups shown once.
    execFileSync('xdotool', ['key', 'alt+4']);
    await sleep(500);
    execFileSync('xdotool', ['type', '--delay', '20', 'cursor']);
    execFileSync('xdotool', ['key', 'Return']);
    await sleep(1000);
    shoot('connections.png');
    // Settings: what is in force (the address served, the roots, the mode and undo bounds).
    execFileSync('xdotool', ['key', 'alt+5']);
    await sleep(800);
    shoot('settings.png');
    // A card for an upstream's tool: server-filesystem's edit_file, its dry-run diff as the plan.
    writeFileSync(path.join(work, 'deploy.yaml'), 'service: web\nreplicas: 3\nimage: registry.local/web:1.4.2\nport: 8080\n');
    await call(app.url, 'fs_edit_file', { path: path.join(work, 'deploy.yaml'),
        edits: [{ oldText: 'replicas: 3', newText: 'replicas: 0' }, { oldText: 'web:1.4.2', newText: 'web:1.5.0' }] }, 'Claude Code');
    execFileSync('xdotool', ['key', 'alt+1']);
    await sleep(300);
    execFileSync('xdotool', ['key', 'Home']); // the newest card
    await sleep(1500);
    shoot('upstream-card.png');
    await stop(app);
    console.log(`screenshots written to ${outDir}`);
} finally {
    rmSync(work, { recursive: true, force: true });
}
