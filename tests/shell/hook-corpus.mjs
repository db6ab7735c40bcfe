#!/usr/bin/env node
// The command corpus (tests/shell/corpus.json) through the real console, as Claude Code's HTTP hook
// sends it (POST /hooks/claude-code, a Bash PreToolUse), in the real git repository
// make-fixture.sh builds, with the console's HOME set to the fixture's home. Each line must get
// its decision: "run" lines are allowed with no card, "ask" lines are never allowed (they are held
// for the human, so the hold is set short and every card is cleared). Prints the three figures the
// issue asks for: the share of must-ask lines that asked, the share of must-run lines that ran with
// no card, and the decision latency of the allowed ones (p50, p99).
//   node hook-corpus.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { check, exitWithSummary } from '../peer/checks.mjs';
import { startCountersign } from '../peer/countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: hook-corpus.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const here = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);
// Beside the binary, or in the home folder when the build lives in a temporary folder, but never
// there: a new file in a temporary folder is scratch work that runs with no card, and the fixture's
// "outside" folder must stay outside.
const beside = realpathSync(path.dirname(path.resolve(binary)));
const temporary = [tmpdir(), '/tmp', '/var/tmp', '/dev/shm'].filter(existsSync).map((p) => realpathSync(p));
const fixtureBase = temporary.some((t) => beside === t || beside.startsWith(`${t}/`)) ? path.join(homedir(), '.cache', 'countersign-tests') : beside;
mkdirSync(fixtureBase, { recursive: true });
const work = mkdtempSync(path.join(fixtureBase, 'countersign-corpus-'));
// The corpus puts these paths into command lines as they are: a space or a quote would split them.
if (!/^[A-Za-z0-9/._+-]+$/.test(work)) { console.error(`hook-corpus: the fixture's folder ${work} holds a character the shell reads: build in a folder whose path has none`); process.exit(1); }
execFileSync('bash', [path.join(here, 'make-fixture.sh'), work]);
const ws = path.join(work, 'ws'), home = path.join(work, 'home'), outside = path.join(work, 'outside');
const corpus = JSON.parse(readFileSync(path.join(here, 'corpus.json'), 'utf8')).lines
    .map(([decision, line]) => [decision, line.replaceAll('{ws}', ws).replaceAll('{home}', home).replaceAll('{outside}', outside)]);

const server = await startCountersign(binary, {
    config: { workspaceRoots: [ws], hookHoldSeconds: 1 },
    tokenName: 'corpus',
    env: { HOME: home },
});
const base = server.url.replace(/\/mcp$/, '');
const decide = (verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
let ids = 0;
async function hook(command) {
    const t0 = process.hrtime.bigint();
    const res = await fetch(`${base}/hooks/claude-code`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.token}` },
        body: JSON.stringify({
            session_id: 'corpus', transcript_path: '/tmp/t.jsonl', cwd: ws, permission_mode: 'default',
            hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command, description: 'corpus' },
            tool_use_id: `toolu_${++ids}`,
        }),
    });
    const body = await res.json();
    return { ms: Number(process.hrtime.bigint() - t0) / 1e6, decision: body.hookSpecificOutput?.permissionDecision,
             reason: body.hookSpecificOutput?.permissionDecisionReason ?? '' };
}
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

try {
    await check(`each of the ${corpus.length} lines gets its decision through the real console's HTTP hook`, async () => {
        const misses = [];
        let asks = 0, asked = 0, runs = 0, ran = 0;
        const latencies = [];
        // Must-run lines one at a time (their latency is measured); must-ask lines in batches (each
        // is held for the 1 s hook hold before its "still waiting" deny).
        for (const [decision, line] of corpus.filter(([d]) => d === 'run')) {
            runs += 1;
            const a = await hook(line);
            if (a.decision === 'allow') { ran += 1; latencies.push(a.ms); } else misses.push(`must run, asked: ${JSON.stringify(line)} (${a.reason.split('\n')[0]})`);
        }
        const mustAsk = corpus.filter(([d]) => d === 'ask');
        for (let i = 0; i < mustAsk.length; i += 32) {
            const answers = await Promise.all(mustAsk.slice(i, i + 32).map(([, line]) => hook(line)));
            for (const [k, a] of answers.entries()) {
                asks += 1;
                if (a.decision === 'deny') asked += 1; else misses.push(`must ask, got ${a.decision}: ${JSON.stringify(mustAsk[i + k][1])}`);
            }
            for (const c of await decide('list')) await decide('decline', '--nonce', c.nonce, '--reason', 'corpus');
        }
        console.log(`corpus through the HTTP hook: must ask ${asked}/${asks} asked (${(100 * asked / asks).toFixed(1)}%); ` +
            `must run ${ran}/${runs} ran with no card (${(100 * ran / runs).toFixed(1)}%); ` +
            `allowed decision latency p50 ${quantile(latencies, 0.5).toFixed(2)} ms, p99 ${quantile(latencies, 0.99).toFixed(2)} ms`);
        for (const m of misses) console.log(`  ${m}`);
        assert.equal(asked, asks, 'every must-ask line asked');
        assert.ok(ran * 100 >= runs * 95, `at least 95% of the must-run lines ran with no card (${ran}/${runs})`);
    });

    await check('the audit row of an allowed line says why it ran', async () => {
        const a = await hook('cargo test');
        assert.equal(a.decision, 'allow');
        const log = execFileSync('sqlite3', [path.join(server.dataDir, 'countersign.db'),
            "SELECT rule FROM operations WHERE tool = 'agent:shell' ORDER BY created_ms DESC LIMIT 1"]).toString();
        assert.match(log, /no rule matched: default allow \(runs the project's cargo test; Cargo\.toml, build\.rs unchanged since the last commit\)/, log);
    });

    await check('the card of a destructive line says why it asks and what would be lost; what a copy keeps needs no name typed', async () => {
        const a = await hook('git reset --hard');
        assert.equal(a.decision, 'deny');
        const [card] = await decide('list');
        assert.ok(card, 'a card');
        assert.match(card.prompt, /Why it asks:\n  - git reset --hard discards every uncommitted change/, card.prompt);
        // What would be lost, measured: the hour of work in README.md, line by line in the diff pane.
        assert.match(card.summary, /^Discards the uncommitted changes in 4 files \(\+63 −2 lines\).*README\.md \(\+60 −0\)/, card.summary);
        assert.match(card.diff, /\+uncommitted line 60/, card.diff.slice(0, 400));
        // Countersign keeps a copy of the 4 files before it runs: risk follows what can be taken back.
        assert.equal(card.risk, 'medium', JSON.stringify(card.face));
        assert.equal(card.face.headline, 'Discards uncommitted changes to 4 files (+63 −2); a copy is kept');
        assert.equal(card.face.typed, false);
        assert.deepEqual(card.problems, []);
        for (const c of await decide('list')) await decide('decline', '--nonce', c.nonce, '--reason', 'corpus');
    });

    await check('what would be lost decides: rm of a committed, unchanged file runs with no card, its row saying git keeps it', async () => {
        const a = await hook('rm a.txt');
        assert.equal(a.decision, 'allow', a.reason);
        assert.deepEqual(await decide('list'), []);
        const rule = execFileSync('sqlite3', [path.join(server.dataDir, 'countersign.db'),
            "SELECT rule FROM operations WHERE tool = 'agent:shell' ORDER BY created_ms DESC LIMIT 1"]).toString();
        assert.match(rule, /which git keeps as committed/, rule);
    });
} finally {
    await server.stop().catch(() => {});
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
