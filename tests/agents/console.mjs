// The real console for the agent tests: the countersign binary with its window on an Xvfb display
// of its own (or --headless, deciding through countersign-test-decide), a fresh data folder, HOME
// and runtime folder, the gate's log on (QT_LOGGING_RULES countersign.*=true) with each stderr line
// timed, and a human's hand on the window: Ctrl+Return approves the shown card, Alt+R types the
// reason and Ctrl+Shift+D declines it (xdotool; no window manager, so the window is given the
// keyboard focus directly, once, when it first maps).
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { track } from './reaper.mjs';

const run = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Xvfb on a display number it picks itself (-displayfd), so parallel runs never race for one.
export async function startDisplay({ log = () => {}, label = 'xvfb' } = {}) {
    const child = track(spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x900x24', '-nolisten', 'tcp', '-noreset'],
        { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] }));
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    const display = await new Promise((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`Xvfb gave no display within 10 s: ${err}`)), 10000);
        child.stdio[3].on('data', (d) => { out += d; const m = /(\d+)\n/.exec(out); if (m) { clearTimeout(timer); resolve(`:${m[1]}`); } });
        child.on('error', (e) => { clearTimeout(timer); reject(new Error(`Xvfb did not start (${e.message}): install xvfb (packaging/install-deps.sh --tests)`)); });
        child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`Xvfb exited ${code}: ${err}`)); });
    });
    log(`${label}: display ${display}`);
    return {
        display,
        child,
        async stop() {
            if (child.exitCode !== null || child.signalCode !== null) return;
            const gone = new Promise((r) => child.once('exit', r));
            child.kill('SIGTERM');
            await Promise.race([gone, sleep(3000)]);
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        },
    };
}

// Starts the console. With display, its window on that display; else --headless.
export async function startConsole(binary, {
    config = {}, display = null, tokenName = 'agent', decideBinary = null, log = () => {}, label = 'console', root = tmpdir(),
} = {}) {
    const dir = mkdtempSync(path.join(root, 'countersign-agents-'));
    const dataDir = path.join(dir, 'data');
    const configPath = path.join(dir, 'config.json');
    const home = path.join(dir, 'home');
    const runtime = path.join(dir, 'run');
    for (const d of [home, runtime]) mkdirSync(d, { recursive: true, mode: 0o700 });
    writeFileSync(configPath, JSON.stringify({ keyStore: 'file', ...config }, null, 2));
    const env = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        XDG_RUNTIME_DIR: runtime,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_DATA_HOME: path.join(home, '.local', 'share'),
        LANG: 'C.UTF-8',
        QT_LOGGING_RULES: 'countersign.*=true',
        ...(display ? { DISPLAY: display, QT_QPA_PLATFORM: 'xcb' } : { QT_QPA_PLATFORM: 'offscreen' }),
    };
    const cli = (...args) => run(binary, [...args, '--data-dir', dataDir, '--config', configPath], { env, timeout: 20000, maxBuffer: 256 * 1024 * 1024 }).then((r) => r.stdout);
    const token = (await cli('token', 'add', tokenName)).trim();
    const started = Date.now();
    const argv = ['--listen', '127.0.0.1:0', '--data-dir', dataDir, '--config', configPath, ...(display ? ['--show', 'approvals'] : ['--headless'])];
    const child = track(spawn(binary, argv, { env, stdio: ['ignore', 'ignore', 'pipe'] }));
    const lines = []; // { at, line }
    let stderr = '';
    let rest = '';
    child.stderr.on('data', (d) => {
        stderr += d;
        rest += d;
        const parts = rest.split('\n');
        rest = parts.pop();
        for (const line of parts) { lines.push({ at: Date.now(), line }); log(`${label} +${((Date.now() - started) / 1000).toFixed(3)}s ${line}`); }
    });
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const url = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line within 15 s: ${stderr}`)), 15000);
        const look = () => { const m = /countersign: listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr); if (m) { clearTimeout(timer); resolve(m[1]); } };
        child.stderr.on('data', look);
        child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`console exited ${code ?? signal}: ${stderr}`)); });
    });

    const x = (...args) => run('xdotool', args, { env: { ...env, DISPLAY: display }, timeout: 15000 });
    let windowId = null;
    if (display) {
        // The main window, mapped; then the keyboard focus on it (there is no window manager).
        for (const until = Date.now() + 15000; !windowId; await sleep(100)) {
            try { windowId = (await x('search', '--onlyvisible', '--pid', String(child.pid))).stdout.trim().split('\n')[0] || null; } catch { /* not yet */ }
            if (!windowId && Date.now() > until) throw new Error(`the console's window did not map on ${display} within 15 s: ${stderr}`);
        }
        await x('windowfocus', '--sync', windowId);
    }

    const decide = async (...args) => {
        if (!decideBinary) throw new Error('no countersign-test-decide given');
        const r = await run(decideBinary, [dataDir, ...args], { env, timeout: 60000 });
        return JSON.parse(r.stdout);
    };
    const handle = {
        url, token, dir, dataDir, configPath, child, exited, lines, display, windowId, decide,
        cli, // a one-shot command on this console's data folder and configuration: its output
        stderr: () => stderr,
        // The cards waiting in the queue (read from the store, as the window does).
        cards: () => decide('list'),
        async waitForCard(ms = 60000, { tool } = {}) {
            for (const until = Date.now() + ms; ; await sleep(100)) {
                const cards = await handle.cards();
                const card = cards.find((c) => !tool || c.tool === tool);
                if (card) return card;
                if (Date.now() > until) throw new Error(`no card within ${ms} ms`);
                if (child.exitCode !== null) throw new Error(`the console exited: ${stderr.slice(-2000)}`);
            }
        },
        // Approves the shown card: Ctrl+Return in the window (or the test host's decide without
        // one). Resolves with the time the key was pressed (Date.now() just before xdotool ran).
        async approve() {
            if (!display) { const at = Date.now(); await decide('approve', '--wait-ms', '1000'); return at; }
            const at = Date.now();
            await x('key', '--clearmodifiers', 'ctrl+Return');
            return at;
        },
        // Declines the shown card with a reason typed into its Reason field (Alt+R).
        async decline(reason) {
            if (!display) { const at = Date.now(); await decide('decline', '--wait-ms', '1000', '--reason', reason); return at; }
            await x('key', '--clearmodifiers', 'alt+r');
            await sleep(150);
            await x('type', '--delay', '10', reason);
            await sleep(150);
            const at = Date.now();
            await x('key', '--clearmodifiers', 'ctrl+shift+d');
            return at;
        },
        // The audit log as `countersign audit export --format json` gives it.
        async audit() {
            const out = await cli('audit', 'export', '--format', 'json');
            try { return JSON.parse(out); } catch { return out; }
        },
        async screenshot(file) {
            if (!display) return;
            try { await run('import', ['-window', 'root', file], { env: { ...env, DISPLAY: display }, timeout: 10000 }); } catch { /* no ImageMagick */ }
        },
        async stop({ keepFiles = false } = {}) {
            if (child.exitCode === null && child.signalCode === null) {
                child.kill('SIGTERM');
                const how = await Promise.race([exited, sleep(10000).then(() => null)]);
                if (!how) { child.kill('SIGKILL'); await exited; }
            }
            if (!keepFiles) rmSync(dir, { recursive: true, force: true });
            return exited;
        },
    };
    return handle;
}
