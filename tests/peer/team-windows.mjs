#!/usr/bin/env node
// Issue 23, the team part: two consoles WITH their windows (each on an Xvfb display of its own, no
// window manager) on one PostgreSQL store (a throwaway cluster, tests/support/postgres.sh), sharing
// the server keys as a team's instances do. A client calls a gated write_file on console A; the
// card shows in console B's window, and a human's hand on B's keyboard (xdotool, XTEST to the
// focused window) approves it with Ctrl+Return. Each check holds that B's queue approves it, that
// the decision reaches the store, and that A's held call wakes, runs it once and gets the result
// with a receipt naming console:b. The ways a person comes to the key:
//   - B's window had the keyboard before the card came;
//   - B's window had not, and is given it after the card came (activation restarts the card's
//     minimum time: the key comes after cardMinimumSeconds), or is clicked on the card in its list;
//   - a key within the minimum time after the activation does nothing; the next one approves;
//   - a 2025-era client (SDK v1) held on A, told the card's URL (and answering cancel);
//   - two cards: the one selected in B's list (Down) is approved, the other still waits;
//   - high risk, two people: the target typed in B's confirmation field (Tab from the list),
//     Ctrl+Return there (approved so far by b); then typed and approved in A's window: it runs once,
//     decided by "console:b, console:a";
//   - B's console started after the card was raised (it is in B's queue from its first read).
// On a failed check, screenshots of both displays are kept (the folder is printed).
//   node team-windows.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startDisplay } from '../agents/console.mjs';
import { check, exitWithSummary, waitFor, watch } from './checks.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: team-windows.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const postgresScript = path.join(here, '..', 'support', 'postgres.sh');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const MINIMUM_S = 1; // cardMinimumSeconds of both consoles

const work = mkdtempSync(path.join(tmpdir(), 'countersign-team-windows-'));
const shots = path.join(work, 'shots');
mkdirSync(shots);
const ws = path.join(work, 'ws');
const victims = path.join(work, 'victims');
mkdirSync(ws);
mkdirSync(victims);
const clusterDir = path.join(work, 'postgres');
const { stdout: clusterUrl } = await run(postgresScript, ['start', clusterDir], { env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` } });
const storeUrl = clusterUrl.trim();

const dirSchema = { type: 'object', properties: { dir: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['dir'], additionalProperties: false };
const config = (person) => ({
    keyStore: 'file',
    store: { postgres: storeUrl },
    person,
    cardMinimumSeconds: MINIMUM_S,
    workspaceRoots: [ws],
    actions: [{
        name: 'delete_guarded', title: 'Delete a directory', risk: 'high', workingDirectory: victims, inputSchema: dirSchema,
        plan: ['sh', '-c', 'printf \'{"summary":"delete %s","targets":["%s"]}\' "$1" "$1"', 'plan', '{dir}'],
        apply: ['sh', '-c', 'echo run >> runs; rm -r "$1"', 'apply', '{dir}'],
    }],
    review: { twoPeople: ['high'] },
});
const runsOfGuarded = () => { const f = path.join(victims, 'runs'); return existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).length : 0; };

// A console with its window on `display`: a data folder, HOME and runtime folder of its own (one
// console per data folder; its lock and sockets are the folder's), the server keys of `keysFrom`.
async function startWindowConsole(name, { display, keysFrom, token = false }) {
    const dir = mkdtempSync(path.join(work, `${name}-`));
    const dataDir = path.join(dir, 'data');
    const configPath = path.join(dir, 'config.json');
    const home = path.join(dir, 'home');
    const runtime = path.join(dir, 'run');
    for (const d of [home, runtime]) mkdirSync(d, { recursive: true, mode: 0o700 });
    writeFileSync(configPath, JSON.stringify(config(name), null, 2));
    if (keysFrom) {
        mkdirSync(dataDir, { recursive: true, mode: 0o700 });
        cpSync(path.join(keysFrom.dataDir, 'keys'), path.join(dataDir, 'keys'), { recursive: true });
    }
    const env = {
        PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: path.join(home, '.config'),
        LANG: 'C.UTF-8', DISPLAY: display.display, QT_QPA_PLATFORM: 'xcb', QT_LOGGING_RULES: 'countersign.*=true',
    };
    // The agent's connection, in the shared store (made before the start, as a team's admin does).
    const agentToken = token
        ? execFileSync(binary, ['token', 'add', 'agent', '--data-dir', dataDir, '--config', configPath], { env, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim()
        : null;
    const started = Date.now();
    const child = spawn(binary, ['--listen', '127.0.0.1:0', '--data-dir', dataDir, '--config', configPath, '--show', 'approvals'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
        for (const line of String(d).split('\n').filter(Boolean)) stderr += `+${((Date.now() - started) / 1000).toFixed(3)}s ${line}\n`;
    });
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const detail = () => `\n${name}'s stderr:\n${stderr}`;
    await waitFor(`${name}'s window`, () => /countersign: window shown/.test(stderr) || child.exitCode !== null, 15000, detail);
    const url = /countersign: listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
    assert.ok(url, `${name} did not start${detail()}`);
    const x = (...args) => run('xdotool', args, { env: { ...process.env, DISPLAY: display.display }, timeout: 15000 });
    const windowId = await waitFor(`${name}'s window to map`, async () => {
        try { return (await x('search', '--onlyvisible', '--pid', String(child.pid))).stdout.trim().split('\n')[0] || null; } catch { return null; }
    }, 15000, detail);
    const rootId = /Window id: (0x[0-9a-f]+)/.exec((await run('xwininfo', ['-root'], { env: { ...process.env, DISPLAY: display.display } })).stdout)?.[1];
    return {
        name, url, dir, dataDir, configPath, child, exited, display, windowId, token: agentToken, x, detail,
        stderr: () => stderr,
        // The keyboard on the window (no window manager: the X input focus set directly), and off it.
        focus: () => x('windowfocus', '--sync', windowId),
        unfocus: () => x('windowfocus', String(Number(rootId))),
        // A key as a human's hand presses it: XTEST, to whatever window has the keyboard.
        press: (keys) => x('key', '--clearmodifiers', keys),
        type: (text) => x('type', '--delay', '20', text),
        shows: (nonce) => new RegExp(`card "?${nonce}"? for "?[a-z_]+"? waits`).test(stderr),
        decided: (nonce, how = '[a-z]+') => new RegExp(`card "?${nonce}"? "?${how}"?\\n`).test(stderr),
        async screenshot(label) {
            try { await run('python3', [path.join(here, 'xshot.py'), path.join(shots, `${label}-${name}.png`)], { env: { ...process.env, DISPLAY: display.display } }); } catch { /* evidence only */ }
        },
        async stop() {
            if (child.exitCode === null && child.signalCode === null) {
                child.kill('SIGTERM');
                if (!await Promise.race([exited, sleep(10000).then(() => null)])) { child.kill('SIGKILL'); await exited; }
            }
        },
    };
}

// The cards waiting, as the store has them (read through B's folder: its key, the shared store).
const cardsIn = async (con) => JSON.parse((await run(decideBinary, [con.dataDir, 'list', '--store', storeUrl, '--wait-ms', '0'])).stdout);
const cardFor = (con, test) => waitFor('the card in the store', async () => (await cardsIn(con)).find(test), 10000);
// Who has approved a card of several people's so far (the store's reviews table).
const reviewersOf = async (nonce) => {
    assert.match(nonce, /^[0-9a-f]{32}$/);
    const { stdout } = await run('psql', [storeUrl, '-At', '-c', `SELECT reviewer FROM reviews WHERE nonce = '${nonce}' ORDER BY reviewed_ms`]);
    return stdout.split('\n').filter(Boolean);
};
const statusOf = async (con, nonce) => {
    const { stdout } = await run(binary, ['audit', 'export', '--format', 'json', '--data-dir', con.dataDir, '--config', con.configPath]);
    return JSON.parse(stdout).find((r) => r.id === nonce);
};

// A 2026-07-28 client, raw: the call, then its retries with the requestState (held by the server
// up to its poll window each), until an answer that is not input_required.
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
function call2026(con, token, name, args) {
    const rounds = [];
    const body = async () => {
        let requestState;
        for (let id = 1; id <= 40; ++id) {
            const params = { name, arguments: args, _meta: meta };
            if (requestState) params.requestState = requestState;
            const response = await fetch(con.url, {
                method: 'POST',
                headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name },
                body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
            });
            const r = await response.json();
            rounds.push({ at: Date.now(), r });
            if (r.result?.resultType !== 'input_required') return r.result ?? r;
            requestState = r.result.requestState ?? requestState;
        }
        throw new Error('still input_required after 40 rounds');
    };
    const w = watch(body());
    return { ...w, rounds };
}
// A 2025-era client (the SDK v1) with the URL prompt declared, answering it `answer`; held on its call.
async function callV1(con, token, name, args, answer = 'cancel') {
    const client = new Client({ name: 'team-windows-v1', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    const asked = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => { asked.push(request.params); return { action: answer }; });
    await client.connect(new StreamableHTTPClientTransport(new URL(con.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const w = watch(client.callTool({ name, arguments: args }, undefined, { timeout: 120000 }).finally(() => client.close()));
    return { ...w, asked };
}
const textOf = (r) => r?.content?.map((c) => c.text).join('\n') ?? JSON.stringify(r);
const receiptOf = (r) => r?._meta?.['dev.countersign/receipt'];

const displayA = await startDisplay({ label: 'A' });
const displayB = await startDisplay({ label: 'B' });
let a = null;
let b = null;
let failedBefore = 0;
const evidence = async (label) => { await a?.screenshot(label); await b?.screenshot(label); };
// Runs a check; on its failure both displays are photographed and the consoles' logs printed.
async function windowCheck(name, fn) {
    let failed = false;
    await check(name, async () => {
        try { await fn(); } catch (e) {
            failed = true;
            await evidence(name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60));
            throw new Error(`${e.message}${a?.detail() ?? ''}${b?.detail() ?? ''}`);
        }
    });
    if (failed) ++failedBefore;
}

// Waits for the card in B's window, then (the key comes after the minimum time) for `ms` more.
async function shownInB(nonce, extraMs = MINIMUM_S * 1000 + 700) {
    await waitFor(`the card ${nonce} in B's window`, () => b.shows(nonce), 10000, b.detail);
    await sleep(extraMs);
}
// The check's end, the same each time: B approved it, the store has it approved by console:b,
// A's call got its result (with a receipt naming console:b) and the file is written once.
async function approvedByB(nonce, callWatch, file, content) {
    await waitFor(`B's queue to approve ${nonce}`, () => b.decided(nonce, 'approved'), 3000, b.detail);
    const row = await statusOf(b, nonce);
    assert.equal(row?.decidedBy, 'console:b', JSON.stringify(row));
    await waitFor('A\'s call to end', () => callWatch.settled(), 25000, a.detail);
    const result = await callWatch.promise;
    assert.notEqual(result.isError, true, textOf(result));
    assert.equal(receiptOf(result)?.approver, 'console:b', JSON.stringify(receiptOf(result)));
    assert.equal(readFileSync(path.join(ws, file), 'utf8'), content);
}

try {
    a = await startWindowConsole('a', { display: displayA, token: true });
    b = await startWindowConsole('b', { display: displayB, keysFrom: a });
    const token = a.token;

    await windowCheck('B\'s window had the keyboard before the card came: Ctrl+Return in B approves the card A raised, and A\'s held 2026 call gets the result', async () => {
        await b.focus();
        const call = call2026(a, token, 'write_file', { path: path.join(ws, 'one.txt'), content: 'one\n' });
        const card = await cardFor(b, (c) => c.targets?.some((t) => t.includes('one.txt')));
        await shownInB(card.nonce);
        await b.press('ctrl+Return');
        await approvedByB(card.nonce, call, 'one.txt', 'one\n');
    });

    await windowCheck('B\'s window given the keyboard after the card came: Ctrl+Return after the minimum time approves it', async () => {
        await b.unfocus();
        const call = call2026(a, token, 'write_file', { path: path.join(ws, 'two.txt'), content: 'two\n' });
        const card = await cardFor(b, (c) => c.targets?.some((t) => t.includes('two.txt')));
        await shownInB(card.nonce, 500);
        await b.focus();
        await sleep(MINIMUM_S * 1000 + 700);
        await b.press('ctrl+Return');
        await approvedByB(card.nonce, call, 'two.txt', 'two\n');
    });

    await windowCheck('B\'s window clicked on the card in its list (Qt asks for the keyboard itself): Ctrl+Return after the minimum time approves it', async () => {
        await b.unfocus();
        const call = call2026(a, token, 'write_file', { path: path.join(ws, 'click.txt'), content: 'click\n' });
        const card = await cardFor(b, (c) => c.targets?.some((t) => t.includes('click.txt')));
        await shownInB(card.nonce, 300);
        await b.x('mousemove', '--sync', '100', '95', 'click', '1'); // the first row of the list (window at 0,0)
        await sleep(MINIMUM_S * 1000 + 700);
        await b.press('ctrl+Return');
        await approvedByB(card.nonce, call, 'click.txt', 'click\n');
    });

    await windowCheck('a key within the minimum time of the activation does nothing; the next one approves', async () => {
        await b.unfocus();
        const call = call2026(a, token, 'write_file', { path: path.join(ws, 'three.txt'), content: 'three\n' });
        const card = await cardFor(b, (c) => c.targets?.some((t) => t.includes('three.txt')));
        await shownInB(card.nonce);
        await b.focus();
        await b.press('ctrl+Return');
        await sleep(600);
        assert.ok(!b.decided(card.nonce), 'approved within the minimum time of the activation');
        await sleep(MINIMUM_S * 1000);
        await b.press('ctrl+Return');
        await approvedByB(card.nonce, call, 'three.txt', 'three\n');
    });

    await windowCheck('a 2025 client (SDK v1) held on A, told the card\'s URL and answering cancel: approved in B\'s window, it gets the result', async () => {
        await b.focus();
        const call = await callV1(a, token, 'write_file', { path: path.join(ws, 'four.txt'), content: 'four\n' }, 'cancel');
        const card = await cardFor(b, (c) => c.targets?.some((t) => t.includes('four.txt')));
        await shownInB(card.nonce);
        await b.press('ctrl+Return');
        await approvedByB(card.nonce, call, 'four.txt', 'four\n');
        assert.equal(call.asked.length, 1, 'the URL was asked once');
    });

    await windowCheck('two cards: the one selected in B\'s list (Down) is approved; the other still waits', async () => {
        await b.focus();
        const first = call2026(a, token, 'write_file', { path: path.join(ws, 'five.txt'), content: 'five\n' });
        const firstCard = await cardFor(b, (c) => c.targets?.some((t) => t.includes('five.txt')));
        await shownInB(firstCard.nonce, 300);
        const second = call2026(a, token, 'write_file', { path: path.join(ws, 'six.txt'), content: 'six\n' });
        const secondCard = await cardFor(b, (c) => c.targets?.some((t) => t.includes('six.txt')));
        await shownInB(secondCard.nonce, 300);
        // Newest first: six.txt is shown; Down selects five.txt (the list has the keyboard).
        await b.press('Down');
        await sleep(MINIMUM_S * 1000 + 700);
        await b.press('ctrl+Return');
        await approvedByB(firstCard.nonce, first, 'five.txt', 'five\n');
        assert.ok(!b.decided(secondCard.nonce), 'the other card was decided too');
        assert.ok((await cardsIn(b)).some((c) => c.nonce === secondCard.nonce), 'the other card still waits');
        await sleep(MINIMUM_S * 1000 + 700); // six.txt is shown now (the only card): read it first
        await b.press('ctrl+Return');
        await approvedByB(secondCard.nonce, second, 'six.txt', 'six\n');
    });

    await windowCheck('high risk, two people: typed and approved in B (approved so far by b), then typed and approved in A; it runs once', async () => {
        mkdirSync(path.join(victims, 'victim-1', 'sub'), { recursive: true });
        await b.focus();
        const call = call2026(a, token, 'delete_guarded', { dir: 'victim-1' });
        const card = await cardFor(b, (c) => c.tool === 'delete_guarded');
        await shownInB(card.nonce, 300);
        await b.press('Tab'); // from the list to the confirmation field
        await b.type('victim-1');
        await sleep(MINIMUM_S * 1000 + 500);
        await b.press('ctrl+Return');
        await waitFor('B\'s approval in the store, one of two', async () => (await reviewersOf(card.nonce)).includes('console:b'), 5000, b.detail);
        assert.ok(!b.decided(card.nonce), 'one approval of two decided the card in B');
        assert.equal(runsOfGuarded(), 0, 'one approval of two ran it');
        // The second person, at A's window (A's list has the card: Tab, type, Ctrl+Return).
        await a.focus();
        await sleep(300);
        await a.press('Tab');
        await a.type('victim-1');
        await sleep(MINIMUM_S * 1000 + 500);
        await a.press('ctrl+Return');
        await waitFor('A\'s call to end', () => call.settled(), 25000, a.detail);
        const result = await call.promise;
        assert.notEqual(result.isError, true, textOf(result));
        assert.equal(receiptOf(result)?.approver, 'console:b, console:a', JSON.stringify(receiptOf(result)));
        assert.equal(runsOfGuarded(), 1);
        assert.ok(!existsSync(path.join(victims, 'victim-1')));
    });

    await windowCheck('B\'s console started after the card was raised: Ctrl+Return in B approves it, and A\'s call gets the result', async () => {
        await b.stop();
        b = null;
        const call = call2026(a, token, 'write_file', { path: path.join(ws, 'seven.txt'), content: 'seven\n' });
        await waitFor('the card on A', () => /card "?[0-9a-f]+"? "?write_file"? for "?agent"?/.test(a.stderr().split('\n').slice(-5).join('\n')), 5000, a.detail);
        b = await startWindowConsole('b', { display: displayB, keysFrom: a });
        const card = await cardFor(b, (c) => c.targets?.some((t) => t.includes('seven.txt')));
        await b.focus();
        await shownInB(card.nonce);
        await b.press('ctrl+Return');
        await approvedByB(card.nonce, call, 'seven.txt', 'seven\n');
    });
} finally {
    await b?.stop();
    await a?.stop();
    await displayB.stop();
    await displayA.stop();
    await run(postgresScript, ['stop', clusterDir]).catch(() => {});
    if (failedBefore) console.log(`screenshots of the failed checks: ${shots} (the rest of ${work} removed)`);
    for (const entry of ['ws', 'victims', 'postgres']) rmSync(path.join(work, entry), { recursive: true, force: true });
    if (!failedBefore) rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
