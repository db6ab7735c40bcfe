#!/usr/bin/env node
// Approve from your phone (issue 29), end to end: the real console with its window on Xvfb and
// its phone listener on 127.0.0.2, the real phone page in Debian's chromium (headless, driven over
// the DevTools protocol by chrome-remote-interface; no browser of its own is downloaded).
//   - Settings › Pair a phone shows a QR code; the test reads it off the screen as a phone's camera
//     would (jsQR), opens it in the browser, names the phone and pairs; the page shows a code, and
//     the desktop pairs only once the human types that code there (a wrong one pairs nothing).
//   - An agent's delete_path (MCP, 2026-07-28) raises a card; the page shows it (server-sent
//     events), the phone approves it, and the call runs once. Another is declined from the page
//     with a reason, which reaches the agent.
//   - A card nobody looks at (the window on another tab, the page hidden) is told to the phone again
//     after cardUnseenSeconds and marked on the page; shown, it is seen, and declined there.
//   - The page's own origin cannot reach /mcp on the phone listener; a browser that never paired
//     sees no card. (A phone revoked mid-session, replays and forged decisions: phoneserver_test.)
// COUNTERSIGN_SHOTS=DIR: the page on a phone-sized viewport, and the pairing dialog, as PNGs there.
//   node phone-page.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startConsole, startDisplay } from '../agents/console.mjs';
import { installWatchdog, track } from '../agents/reaper.mjs';
import { check, exitWithSummary, waitFor } from '../peer/checks.mjs';
import { callTool, textOf } from '../security/attacker.mjs';

// The pinned npm packages live with the peer tests' lock (tests/peer).
const peer = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'peer', 'package.json'));
const CDP = peer('chrome-remote-interface');
const jsQR = peer('jsqr');

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: phone-page.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(2); }
installWatchdog(300_000, 'phone-page.mjs');
const run = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const verbose = process.env.COUNTERSIGN_VERBOSE === '1';
const log = (line) => { if (verbose) process.stderr.write(`${line}\n`); };
const work = mkdtempSync(path.join(tmpdir(), 'countersign-phone-'));
const ws = path.join(work, 'ws');
mkdirSync(ws);

// A free port on 127.0.0.2 for the phone listener.
const phonePort = await new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.2', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

const display = await startDisplay({ log });
const con = await startConsole(binary, {
    display: display.display, decideBinary, log, root: work,
    config: { workspaceRoots: [ws], cardMinimumSeconds: 0, cardUnseenSeconds: 3, phone: `127.0.0.2:${phonePort}` },
});
const server = { url: con.url, token: con.token };
const x = (...args) => run('xdotool', args, { env: { ...process.env, DISPLAY: display.display }, timeout: 15000 });
const phoneUrl = `https://127.0.0.2:${phonePort}/`;

// Chromium, headless, its DevTools endpoint on a port it picks.
const profile = path.join(work, 'chromium');
const browser = track(spawn('chromium', ['--headless=new', '--remote-debugging-port=0', `--user-data-dir=${profile}`,
    '--ignore-certificate-errors', '--no-first-run', '--no-default-browser-check', '--disable-gpu', '--no-sandbox',
    '--disable-features=Translate,MediaRouter', 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] }));
const devtoolsPort = await new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`chromium gave no DevTools port: ${err}`)), 30000);
    browser.stderr.on('data', (d) => {
        err += d;
        const m = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(err);
        if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    });
    browser.once('exit', (code) => { clearTimeout(timer); reject(new Error(`chromium exited ${code}: ${err}`)); });
});
const newPage = async () => {
    const target = await CDP.New({ port: devtoolsPort, url: 'about:blank' });
    const client = await CDP({ port: devtoolsPort, target });
    await client.Page.enable();
    await client.Runtime.enable();
    await client.Emulation.setDeviceMetricsOverride({ width: 390, height: 844, deviceScaleFactor: 2, mobile: true });
    return client;
};
const evaluate = async (client, expression) => {
    const r = await client.Runtime.evaluate({ expression, awaitPromise: true, returnByValue: true });
    if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value;
};
const open = async (client, url) => {
    const loaded = client.Page.loadEventFired();
    await client.Page.navigate({ url });
    await loaded;
};
const shot = async (client, name) => {
    if (!process.env.COUNTERSIGN_SHOTS) return;
    const { data } = await client.Page.captureScreenshot({ format: 'png' });
    writeFileSync(path.join(process.env.COUNTERSIGN_SHOTS, name), Buffer.from(data, 'base64'));
};
// The screen as a camera sees it: the QR code on it decoded.
const readQr = async () => {
    const { stdout } = await run('import', ['-window', 'root', '-depth', '8', 'rgba:-'],
        { env: { ...process.env, DISPLAY: display.display }, encoding: 'buffer', maxBuffer: 64 << 20 });
    const found = jsQR(new Uint8ClampedArray(stdout), 1280, 900);
    return found?.data ?? null;
};

let phone;
let stranger;
try {
    await check('the phone pairs through the QR code, and only once the desktop confirms the code it shows', async () => {
        await waitFor('the phone listener', () => con.lines.some((l) => l.line.includes(`phone approvals on ${phoneUrl}`)), 10000, () => con.stderr());
        await x('key', '--clearmodifiers', 'alt+5'); // Settings
        await sleep(300);
        await x('key', '--clearmodifiers', 'alt+i'); // Pair a phone…
        const link = await waitFor('a QR code on the screen', readQr, 15000);
        assert.match(link, new RegExp(`^${phoneUrl.replace(/[.]/g, '\\.')}#pair=[A-Za-z0-9_-]{22}$`));
        phone = await newPage();
        await open(phone, link);
        await waitFor('the pairing form', () => evaluate(phone, `!document.getElementById('pairing').hidden`), 10000);
        await evaluate(phone, `document.getElementById('name').value = 'pixel'; document.getElementById('pair').click()`);
        let pageSays = '';
        const code = await waitFor('the code on the page', async () => {
            pageSays = await evaluate(phone, `document.getElementById('status').textContent`);
            return evaluate(phone, `document.getElementById('code').textContent`);
        }, 15000, () => `; the page says: ${pageSays}`);
        assert.match(code, /^\d{3} \d{3}$/);
        await shot(phone, 'phone-pairing.png');
        await sleep(1500); // unconfirmed: the page still waits, nothing is paired
        assert.equal(await evaluate(phone, `document.getElementById('cards').hidden`), true);
        if (process.env.COUNTERSIGN_SHOTS) await con.screenshot(path.join(process.env.COUNTERSIGN_SHOTS, 'phone-pair-dialog.png'));
        // The desktop pairs only with the digits the phone shows typed in: a wrong code cannot.
        await x('type', '--delay', '20', '000000');
        await x('key', '--clearmodifiers', 'alt+p');
        await sleep(1000);
        assert.equal(await evaluate(phone, `document.getElementById('cards').hidden`), true, 'a wrong code paired nothing');
        await x('key', '--clearmodifiers', 'ctrl+a');
        await x('type', '--delay', '20', code.replace(' ', ''));
        await x('key', '--clearmodifiers', 'alt+p'); // Pair this phone
        await waitFor('the page paired', () => evaluate(phone, `!document.getElementById('cards').hidden`), 15000);
        await x('key', '--clearmodifiers', 'Escape'); // the dialog closes
    });

    await check('a card approved on the phone runs the call once', async () => {
        writeFileSync(path.join(ws, 'old.log'), 'old\n');
        const first = await callTool(server, 'delete_path', { path: path.join(ws, 'old.log') });
        assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
        const state = first.result.requestState;
        await waitFor('the card on the phone', () => evaluate(phone, `document.querySelectorAll('#list .card').length === 1`), 15000);
        const title = await evaluate(phone, `document.querySelector('#list .title').textContent`);
        assert.match(title, /old\.log/);
        // The window's words for what it reaches: the blast radius, not an empty line.
        const blast = await evaluate(phone, `document.querySelector('#list .blast').textContent`);
        assert.match(blast, /\b1 file\b/, blast);
        await shot(phone, 'phone-card.png');
        await evaluate(phone, `(() => { const c = document.querySelector('#list .card');
            const t = c.querySelector('.typed-box'); if (!t.hidden) c.querySelector('.typed').value = c.querySelector('.typed-text').textContent; })()`);
        // Armed only after the card has been on screen a moment: a tap as it appears does nothing.
        assert.equal(await evaluate(phone, `document.querySelector('#list .approve').disabled`), true);
        await waitFor('Approve armed', () => evaluate(phone, `!document.querySelector('#list .approve').disabled`), 5000);
        await evaluate(phone, `document.querySelector('#list .approve').click()`);
        await waitFor('approved', () => evaluate(phone, `document.getElementById('last').textContent.startsWith('Approved: ')`), 10000);
        const ran = await callTool(server, 'delete_path', { path: path.join(ws, 'old.log') }, { requestState: state });
        assert.equal(existsSync(path.join(ws, 'old.log')), false, JSON.stringify(ran));
        assert.doesNotMatch(textOf(ran), /Declined|waiting/i, JSON.stringify(ran));
        const audit = await con.audit();
        const row = audit.find((r) => r.tool === 'delete_path');
        assert.equal(row?.decidedBy, 'phone:pixel', JSON.stringify(row));
    });

    await check('a card declined on the phone runs nothing, and its reason reaches the agent', async () => {
        writeFileSync(path.join(ws, 'keep.txt'), 'keep\n');
        const first = await callTool(server, 'delete_path', { path: path.join(ws, 'keep.txt') });
        const state = first.result.requestState;
        await waitFor('the card on the phone', () => evaluate(phone, `[...document.querySelectorAll('#list .title')].some((t) => t.textContent.includes('keep.txt'))`), 15000);
        await evaluate(phone, `(() => { const c = document.querySelector('#list .card');
            c.querySelector('.reason').value = 'not from the train'; c.querySelector('.decline').click(); })()`);
        await waitFor('declined', () => evaluate(phone, `document.getElementById('last').textContent.startsWith('Declined: ')`), 10000);
        const answer = await callTool(server, 'delete_path', { path: path.join(ws, 'keep.txt') }, { requestState: state });
        assert.match(textOf(answer), /Declined by phone:pixel: not from the train/, JSON.stringify(answer));
        assert.equal(existsSync(path.join(ws, 'keep.txt')), true);
    });

    await check('the live grants are listed on the phone, and revoked there (a chain event by phone:pixel)', async () => {
        writeFileSync(path.join(ws, 'granted.txt'), 'g\n');
        await callTool(server, 'delete_path', { path: path.join(ws, 'granted.txt') });
        const card = await con.waitForCard(15000, { tool: 'delete_path' });
        const made = await con.decide('grant', '--nonce', card.nonce, '--scope', 'tool', '--expires-ms', '3600000');
        await evaluate(phone, `refresh()`);
        await waitFor('the grant on the phone', () => evaluate(phone, `!document.getElementById('grants-box').hidden`), 10000);
        const words = await evaluate(phone, `document.querySelector('#grants .grant p').textContent`);
        assert.match(words, /^Allow delete_path with any arguments for connection "agent", until .*; used 0 times$/, words);
        if (process.env.COUNTERSIGN_SHOTS) await shot(phone, 'phone-grants.png');
        await evaluate(phone, `(() => { window.confirm = () => true; document.querySelector('#grants .revoke-grant').click(); })()`);
        await waitFor('the grant gone from the phone', () => evaluate(phone, `document.getElementById('grants-box').hidden`), 10000);
        const revoked = execFileSync('sqlite3', [path.join(con.dataDir, 'countersign.db'),
            `SELECT detail FROM audit_log WHERE event = 'grant-revoked' AND nonce = 'grant:${made.grant}'`]).toString();
        assert.match(revoked, /"by":"phone:pixel"/, revoked);
    });

    await check('a card nobody looks at is told to the phone again after cardUnseenSeconds, and marked on the page', async () => {
        // The window shows Settings (the card is not on screen there) and the phone is in a pocket
        // (its page hidden: what a browser says of a page behind the lock screen).
        await x('key', '--clearmodifiers', 'alt+5');
        await sleep(300); // the window has turned to Settings before the card comes
        const visibility = (state) => evaluate(phone, `(() => { Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${state}' });
            document.dispatchEvent(new Event('visibilitychange')); })()`);
        await visibility('hidden');
        writeFileSync(path.join(ws, 'unseen.txt'), 'u\n');
        const first = await callTool(server, 'delete_path', { path: path.join(ws, 'unseen.txt') });
        const state = first.result.requestState;
        const card = `[...document.querySelectorAll('#list .card')].find((c) => c.querySelector('.title').textContent.includes('unseen.txt'))`;
        await waitFor('the card on the phone', () => evaluate(phone, `!!${card}`), 15000);
        assert.equal(await evaluate(phone, `${card}.querySelector('.unseen').hidden`), true, 'not said unseen at once');
        const madeAt = Date.now();
        const nonce = await evaluate(phone, `${card}.dataset.nonce`);
        const seenRows = () => execFileSync('sqlite3', [path.join(con.dataDir, 'countersign.db'),
            `SELECT count(*) FROM audit_log WHERE event = 'card-seen' AND nonce = '${nonce}'`]).toString().trim();
        await waitFor('told again, unseen', () => evaluate(phone, `!${card}.querySelector('.unseen').hidden`), 15000,
            () => `; card-seen rows: ${seenRows()}`);
        const after = Date.now() - madeAt;
        assert.ok(after >= 1500, `told ${after} ms after the card came (cardUnseenSeconds 3)`);
        assert.equal(await evaluate(phone, `document.title`), 'Waiting unseen · Countersign');
        // A page that was not listening when it was said (asleep, reconnecting) reads it from the list.
        assert.equal(await evaluate(phone, `call('POST', '/api/cards', { visible: false })
            .then((out) => out.cards.find((c) => c.nonce === ${JSON.stringify(nonce)}).unseen)`), true);
        assert.equal(seenRows(), '0');
        // Taken out of the pocket: seen now, and declined there.
        await visibility('visible');
        await waitFor('seen on the phone', () => seenRows() === '1', 10000);
        await evaluate(phone, `(() => { const c = ${card}; c.querySelector('.reason').value = 'not now'; c.querySelector('.decline').click(); })()`);
        await waitFor('declined', () => evaluate(phone, `!${card}`), 10000);
        assert.equal(await evaluate(phone, `document.title`), 'Countersign');
        const answer = await callTool(server, 'delete_path', { path: path.join(ws, 'unseen.txt') }, { requestState: state });
        assert.match(textOf(answer), /Declined by phone:pixel: not now/, JSON.stringify(answer));
        await x('key', '--clearmodifiers', 'alt+1');
    });

    await check('headless, countersign phone list shows the phone and phone revoke ID refuses its next request', async () => {
        const listed = await con.cli('phone', 'list');
        const line = /^([0-9a-f]{16}) {2}pixel {2}paired \S+, last used \S+, may decide$/m.exec(listed);
        assert.ok(line, listed);
        assert.match(await con.cli('phone', 'revoke', line[1]), /^Revoked pixel \([0-9a-f]{16}\)/);
        assert.match(await con.cli('phone', 'list'), new RegExp(`^${line[1]} {2}pixel {2}.*, revoked \\S+$`, 'm'));
        await assert.rejects(con.cli('phone', 'revoke', 'ffffffffffffffff'), /no paired phone ffffffffffffffff/);
        // A new card: the page asks for the cards, is refused, and shows why.
        writeFileSync(path.join(ws, 'later.txt'), 'later\n');
        const asked = await callTool(server, 'delete_path', { path: path.join(ws, 'later.txt') });
        assert.ok(asked.result?.requestState, JSON.stringify(asked));
        await waitFor('the page refused', () => evaluate(phone, `!document.getElementById('unpaired').hidden`), 15000);
        // The running console, which had not heard of it, keeps it revoked in its list and file too.
        assert.match(await con.cli('phone', 'list'), new RegExp(`^${line[1]} {2}pixel {2}.*, revoked \\S+$`, 'm'));
        assert.equal(existsSync(path.join(ws, 'later.txt')), true);
    });

    await check('the page cannot reach /mcp or /approvals on the phone listener, and an unpaired browser sees no card', async () => {
        const statuses = await evaluate(phone, `Promise.all(['/mcp', '/approvals/x'].map((p) => fetch(p, { method: p === '/mcp' ? 'POST' : 'GET', headers: { 'Content-Type': 'application/json' }, body: p === '/mcp' ? '{}' : undefined }).then((r) => r.status)))`);
        assert.deepEqual(statuses, [404, 404]);
        // Another browser context: storage of its own, so no key of the paired page.
        const { webSocketDebuggerUrl } = await CDP.Version({ port: devtoolsPort });
        stranger = await CDP({ target: webSocketDebuggerUrl });
        const { browserContextId } = await stranger.Target.createBrowserContext();
        const { targetId } = await stranger.Target.createTarget({ url: 'about:blank', browserContextId });
        const other = await CDP({ port: devtoolsPort, target: targetId });
        await other.Page.enable();
        await other.Runtime.enable();
        await open(other, phoneUrl);
        await waitFor('the unpaired view', () => evaluate(other, `!document.getElementById('unpaired').hidden`), 10000);
        assert.equal(await evaluate(other, `document.querySelectorAll('#list .card').length`), 0);
        await other.close();
    });

} finally {
    await phone?.close().catch(() => {});
    await stranger?.close().catch(() => {});
    browser.kill('SIGKILL');
    await con.stop();
    await display.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
