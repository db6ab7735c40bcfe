// Starts a real Countersign server process for the peer tests: a fresh data folder, a client token
// made with `countersign token add`, `--headless --listen 127.0.0.1:0`, and the URL read from the
// line it prints on stderr.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// Pass `restartOf` (a previous server's handle) to start again on the same data folder and token,
// `serverBinary` to serve with another build of the server than `binary` (the crash tests' host),
// `env` for more environment variables, and `keysFrom` (another server's handle) to share its
// server keys (a team's instances on one store share them: a ticket one seals opens on the other),
// and `configAt` (a path inside the server's folder) with `config: null` to start with no
// configuration file there yet.
export async function startCountersign(binary, { config = {}, tokenName = 'peer', restartOf, serverBinary = binary, env = {}, keysFrom, configAt } = {}) {
    const dir = restartOf ? restartOf.dir : mkdtempSync(path.join(tmpdir(), 'countersign-peer-'));
    const dataDir = path.join(dir, 'data');
    const configPath = restartOf ? restartOf.configPath : path.join(dir, configAt ?? 'config.json');
    if (!restartOf && config !== null) writeFileSync(configPath, JSON.stringify({ keyStore: 'file', ...config }, null, 2));
    if (keysFrom && !restartOf) {
        mkdirSync(dataDir, { recursive: true, mode: 0o700 });
        cpSync(path.join(keysFrom.dataDir, 'keys'), path.join(dataDir, 'keys'), { recursive: true });
    }
    const token = restartOf ? restartOf.token
        : execFileSync(binary, ['token', 'add', tokenName, '--data-dir', dataDir, '--config', configPath], { stdio: ['ignore', 'pipe', 'ignore'] })
            .toString().trim();
    const child = spawn(serverBinary, ['--headless', '--listen', '127.0.0.1:0', '--data-dir', dataDir, '--config', configPath],
        { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    // Resolves with { code, signal } whenever the process ends, however it ends.
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const listening = await waitForListening(child);
    const url = listening.url;
    // More connections (tokens) on the same data folder, for tests that act as many clients.
    const addToken = (name) => execFileSync(binary, ['token', 'add', name, '--data-dir', dataDir, '--config', configPath], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    return {
        url, token, dir, dataDir, configPath, child, addToken, exited,
        stderr: listening.stderr,
        // SIGKILL, as a crash: no clean-up runs; the folder stays for a restart.
        async crash() {
            child.kill('SIGKILL');
            await exited;
        },
        // SIGTERM, a clean quit; resolves with { code, signal } (code 0 unless something, a
        // sanitizer's leak report for one, went wrong on the way out). The folder goes too, unless
        // keepFiles (for a restart).
        async stop({ keepFiles = false } = {}) {
            child.kill('SIGTERM');
            const how = await exited;
            if (!keepFiles) rmSync(dir, { recursive: true, force: true });
            return how;
        },
    };
}

// The URL a starting server prints on stderr ("countersign: listening on URL"), within 10 s; and
// everything it has written to stderr so far.
export async function waitForListening(child) {
    let stderr = '';
    const url = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line within 10 s; stderr: ${stderr}`)), 10000);
        child.stderr.on('data', (chunk) => {
            stderr += chunk;
            const m = /countersign: listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
            if (m) { clearTimeout(timer); resolve(m[1]); }
        });
        child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited ${code}: ${stderr}`)); });
    });
    return { url, stderr: () => stderr };
}

// The console a `countersign --stdio` bridge started for dataDir (it outlives the bridge, as it
// does for a user) is stopped with SIGTERM; resolves once it is gone. Its pid is the first line of
// the folder's console.lock.
export async function stopConsoleOf(dataDir) {
    let pid = 0;
    try { pid = Number(readFileSync(path.join(dataDir, 'console.lock'), 'utf8').split('\n')[0]); } catch { return; }
    const alive = () => { try { process.kill(pid, 0); return true; } catch { return false; } };
    if (!pid || !alive()) return;
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 100 && alive(); ++i) await new Promise((r) => setTimeout(r, 100));
}
