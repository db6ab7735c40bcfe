// One case of the agent tests: a real CLI, driven by the scripted model, calls the console's gated
// write_file; a human's hand approves or declines the card in the window (or never answers it);
// what every party saw is recorded: the model server (each tool result and when it came), the tap
// on /mcp (era, rounds, prompts and answers, how the call waited, when its result reached the
// client) and the console's own log (QT_LOGGING_RULES countersign.*=true).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLIENTS, launch } from './clients.mjs';
import { startConsole, startDisplay } from './console.mjs';
import { startTap } from './mcp-tap.mjs';
import { oneLine, startModelServer } from './model-server.mjs';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Claude Code's PreToolUse and PostToolUse hooks on the console (as `countersign hooks install
// claude-code` writes them), in the sandbox home's user settings.
export function writeClaudeHooks(home, base, matcher) {
    const hook = { type: 'http', url: `${base}/hooks/claude-code`, timeout: 600, onFailure: 'block',
                   headers: { Authorization: 'Bearer $COUNTERSIGN_TOKEN' }, allowedEnvVars: ['COUNTERSIGN_TOKEN'] };
    mkdirSync(path.join(home, '.claude'), { recursive: true });
    writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({
        hooks: { PreToolUse: [{ matcher, hooks: [hook] }], PostToolUse: [{ matcher, hooks: [hook] }] },
    }, null, 2));
}

// Command-line options shared by the test scripts:
//   BINARY DECIDE_BINARY [--clients a,b] [--parallel N] [--decide] [--verbose] [--report FILE] [--keep]
// (--keep: leave the work folder: data folders, sandboxes, console logs)
// The clients the sets run by default: the five, and Codex again with its 2026-07-28 client on.
export const DEFAULT_CLIENTS = ['claude', 'gemini', 'codex', 'codex2026', 'opencode', 'qwen'];

export function parseArgs(argv, usage) {
    const positional = argv.filter((a, i) => !a.startsWith('--') && !(argv[i - 1] ?? '').match(/^--(clients|parallel|report|after|steps|cases|config|budget)$/));
    const opt = (name) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : undefined; };
    const [binary, decideBinary] = positional;
    if (!binary || !decideBinary) { console.error(usage); process.exit(2); }
    return {
        binary,
        decideBinary,
        clients: (opt('clients') ?? DEFAULT_CLIENTS.join(',')).split(',').filter(Boolean),
        parallel: Number(opt('parallel') ?? DEFAULT_CLIENTS.length),
        keep: argv.includes('--keep'),
        window: !argv.includes('--decide'),
        verbose: argv.includes('--verbose') || process.env.COUNTERSIGN_AGENTS_VERBOSE === '1',
        report: opt('report') ?? process.env.COUNTERSIGN_AGENTS_REPORT ?? null,
    };
}

// Log lines go to a per-client buffer (shown when one of its checks fails, or as they come with
// --verbose), each timed.
export function makeLog(label, verbose) {
    const lines = [];
    const fn = (line) => { const l = `${new Date().toISOString().slice(11, 23)} ${line}`; lines.push(l); if (verbose) console.log(`  | ${label} ${l}`); };
    fn.lines = lines;
    fn.tail = (n = 120) => lines.slice(-n).join('\n');
    return fn;
}

// A console of its own, with its window on a display of its own (unless --decide).
export async function startRig(opts, { config, log, label, root }) {
    const xvfb = opts.window ? await startDisplay({ log, label: `${label} xvfb` }) : null;
    try {
        const console_ = await startConsole(opts.binary, { config, display: xvfb?.display ?? null, decideBinary: opts.decideBinary, log, label: `${label} console`, root });
        return {
            console: console_,
            xvfb,
            async stop() { await console_.stop({ keepFiles: true }); await xvfb?.stop(); },
        };
    } catch (e) {
        await xvfb?.stop();
        throw e;
    }
}

// Runs one case. kind: 'approve' (each of the steps' cards approved delays[i] ms after it shows),
// 'decline' (declined with reason after delays[0]), 'expire' (never answered). Resolves with the
// case's record; throws only on a broken rig.
export async function runCase(rig, clientKey, {
    kind, ws, name, steps = 1, delays = [5000], reason = 'not now: the release is frozen', limitMs = 150000,
    log, features, expireWaitMs = 90000, ttlMs = null,
}) {
    const con = rig.console;
    const started = Date.now();
    const files = Array.from({ length: steps }, (_, i) => path.join(ws, `${name}-${i + 1}.txt`));
    const contents = files.map((f, i) => `written by ${clientKey} for ${name}, step ${i + 1}\n`);
    const tap = await startTap(con.url, { log, label: `${clientKey} tap` });
    const model = await startModelServer({ steps: files.map((f, i) => ({ path: f, content: contents[i] })), log, label: `${clientKey} model` });
    const record = {
        client: clientKey, kind, name, files, started,
        approvals: [], // { step, nonce, pressedAt, toModelMs, toClientMs, result }
        declines: [],
        notes: [],
        cardsSeen: [],
    };
    const prompt = steps > 1
        ? `Use the ${'cs'} server's write_file tool to write ${steps} files, one after the other.`
        : `Use the ${'cs'} server's write_file tool to write the file ${path.basename(files[0])}.`;
    const run = launch(clientKey, { root: rig.console.dir, mcpUrl: tap.url, token: con.token, model, prompt, limitMs, log, label: `${clientKey}`, features });
    let exit = null;
    run.exited.then((e) => { exit = e; });
    const clientGone = () => exit !== null;
    try {
        for (let i = 0; i < steps; i++) {
            const target = path.basename(files[i]);
            // The model's call for this step, then its card.
            await model.waitFor((m) => m.calls.some((c) => c.step === i) || clientGone(), 90000, `the model's call for step ${i + 1}`);
            if (clientGone() && !model.calls.some((c) => c.step === i)) { record.notes.push(`the client ended before calling for step ${i + 1}`); break; }
            const card = await waitForCard(con, target, () => clientGone() || model.results.some((r) => r.step === i && !r.pending), 60000);
            if (!card) { record.notes.push(`no card for ${target} (the call settled or the client ended first)`); continue; }
            const shownAt = Date.now();
            record.cardsSeen.push({ step: i, nonce: card.nonce, at: shownAt });
            const others = (await con.cards()).filter((c) => c.nonce !== card.nonce);
            if (others.length) record.notes.push(`step ${i + 1}: ${others.length} other card(s) waiting beside ${card.nonce}: ${others.map((c) => c.targets?.join(',')).join('; ')}`);
            if (kind === 'expire') break;
            const delay = delays[Math.min(i, delays.length - 1)];
            await sleep(Math.max(0, shownAt + delay - Date.now()));
            if (clientGone()) record.notes.push(`step ${i + 1}: the client had ended before the decision (exit ${exit.code ?? exit.signal} after ${exit.ms} ms)`);
            const pressedAt = kind === 'decline' ? await con.decline(reason) : await con.approve();
            const settledFor = (m) => m.results.find((r) => r.step === i && !r.pending && r.at >= pressedAt - 50) || (clientGone() && 'gone');
            // Nothing else runs while the result is on its way (the measured time); only if it
            // has not come in 3 s is the queue asked whether the key reached the card (if not: said,
            // and pressed once more).
            let settled = await model.waitFor(settledFor, 3000, 'a quick result').catch(() => null);
            if (!settled && (await con.cards()).some((c) => c.nonce === card.nonce)) {
                record.notes.push(`step ${i + 1}: the card was still waiting 3 s after the key; pressed again`);
                if (kind === 'decline') await con.decline(reason); else await con.approve();
                await waitGone(con, card.nonce, 3000);
            }
            if (!settled) settled = await model.waitFor(settledFor, kind === 'decline' ? 90000 : 240000, `the tool result for step ${i + 1}`).catch(() => null);
            const result = settled && settled !== 'gone' ? settled : null;
            const wire = result ? tap.calls().find((c) => c.answeredAt && c.answeredAt >= pressedAt - 50 && c.resultType === 'complete') : null;
            // When the console logged the decision (its queue's line for the card), so the time
            // to the client splits into the key reaching the queue and the gate answering.
            const decided = con.lines.find((l) => l.at >= pressedAt - 50 && l.line.includes(card.nonce) && /"(approved|declined)"/.test(l.line));
            const entry = {
                step: i, nonce: card.nonce, shownAt, pressedAt,
                toQueueMs: decided ? decided.at - pressedAt : null,
                toModelMs: result ? result.at - pressedAt : null,
                toClientMs: wire ? wire.answeredAt - pressedAt : null,
                resultText: result?.text ?? null,
                isError: result?.isError ?? null,
            };
            (kind === 'decline' ? record.declines : record.approvals).push(entry);
            log(`${clientKey}: step ${i + 1} ${kind === 'decline' ? 'declined' : 'approved'}; result at the client after ${entry.toClientMs ?? '-'} ms, at the model after ${entry.toModelMs ?? '-'} ms: ${oneLine(entry.resultText, 200)}`);
            if (kind === 'decline') break;
        }
        if (kind === 'expire') {
            // Nothing pressed: wait for the client to give up or the card's end to reach it.
            await model.waitFor((m) => clientGone() || m.results.some((r) => !r.pending), expireWaitMs, 'the end of a never-answered call').catch(() => null);
        }
        // The model's final answer, then the client's own end (bounded).
        if (!await Promise.race([run.exited.then(() => true), sleep(30000).then(() => false)])) {
            record.notes.push('the client did not exit within 30 s of the end: killed');
            run.kill();
        }
        await run.exited;
    } finally {
        run.kill();
        await run.exited;
        record.exit = { code: exit?.code ?? null, signal: exit?.signal ?? null, ms: exit?.ms ?? null, killed: exit?.killed ?? null };
        record.stdoutTail = (exit?.stdout ?? '').split('\n').slice(-8).join('\n');
        record.stderrTail = (exit?.stderr ?? '').split('\n').slice(-8).join('\n');
        record.written = files.map((f, i) => (existsSync(f) ? (readFileSync(f, 'utf8') === contents[i] ? 'as asked' : 'other content') : null));
        record.model = {
            calls: model.calls.map((c) => ({ n: c.n, step: c.step, at: c.at, name: c.name })),
            results: model.results.map((r) => ({ n: r.n, step: r.step, at: r.at, pending: r.pending, isError: r.isError, text: r.text })),
            toolName: model.calls[0]?.name ?? null,
            offered: model.toolNames,
            requests: model.requests.length,
            sideRequests: model.requests.filter((q) => !q.matched).length,
            unknown: model.unknown,
        };
        record.tap = tap.summary();
        record.consoleLog = con.lines.filter((l) => l.at >= started).map((l) => `+${((l.at - started) / 1000).toFixed(3)}s ${l.line}`);
        record.ended = Date.now();
        await model.close();
        await tap.close();
    }
    // A never-answered card is read once its ticket's TTL has passed, whenever the client ended.
    if (kind === 'expire' && ttlMs && record.cardsSeen.length) await sleep(Math.max(0, record.cardsSeen[0].at + ttlMs + 3000 - Date.now()));
    // The audit log's rows for this case's files.
    const audit = await con.audit().catch((e) => ({ error: String(e) }));
    record.audit = Array.isArray(audit)
        ? audit.filter((op) => files.includes(op.arguments?.path)).map((op) => ({ id: op.id, path: op.arguments.path, decision: op.decision, decidedBy: op.decidedBy, reason: op.reason, outcome: op.outcome, time: op.time, decidedAt: op.decidedAt }))
        : audit;
    return record;
}

async function waitForCard(con, target, stop, ms) {
    for (const until = Date.now() + ms; Date.now() < until; await sleep(100)) {
        const card = (await con.cards()).find((c) => (c.targets ?? []).some((t) => t === target || t.endsWith(`/${target}`)));
        if (card) return card;
        if (stop()) return null;
    }
    return null;
}
async function waitGone(con, nonce, ms) {
    for (const until = Date.now() + ms; Date.now() < until; await sleep(100)) {
        if (!(await con.cards()).some((c) => c.nonce === nonce)) return true;
    }
    return false;
}

// Runs fn over items, at most n at a time.
export async function pool(items, n, fn) {
    const out = new Array(items.length);
    let next = 0;
    await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, async () => {
        while (next < items.length) { const i = next++; out[i] = await fn(items[i], i); }
    }));
    return out;
}

export function percentile(values, p) {
    const v = values.filter((x) => typeof x === 'number').sort((a, b) => a - b);
    if (!v.length) return null;
    return v[Math.min(v.length - 1, Math.max(0, Math.ceil((p / 100) * v.length) - 1))];
}

// The rows a client's successful runs write: ran once (the audit log's operations for the file:
// one succeeded, none other run).
export function ranOnce(record, file) {
    const ops = Array.isArray(record.audit) ? record.audit.filter((o) => o.path === file) : [];
    return { ops, succeeded: ops.filter((o) => o.outcome === 'succeeded').length, runs: ops.filter((o) => o.outcome !== 'not run').length };
}

// What a client did with each kind of round, in words, from the tap's record of one case.
export function describeWait(record) {
    const s = record.tap;
    const calls = s.calls ?? [];
    const rounds = calls.map((c) => {
        const bits = [];
        if (c.era !== 'session') bits.push(c.requestState ? 'retry' : 'call');
        if (c.inputResponses) bits.push(`answered ${Object.values(c.inputResponses).map((r) => r?.action ?? JSON.stringify(r)).join(',')}`);
        bits.push(c.error ? `error ${c.error.code}` : c.resultType === 'input_required' ? `input_required${c.inputRequests ? ` (${Object.values(c.inputRequests).map((r) => `${r.method}${r.params?.mode ? ` ${r.params.mode}` : ''}`).join(', ')})` : ' (requestState only)'}` : /nothing has run yet/.test(c.text) ? 'still waiting' : c.resultType ?? 'no answer');
        if (c.ms !== null) bits.push(`${(c.ms / 1000).toFixed(1)} s`);
        if (c.progress) bits.push(`${c.progress} progress`);
        for (const e of c.elicitations) bits.push(`elicitation/create ${e.mode} → ${e.answer?.result?.action ?? (e.answer?.error ? `error ${e.answer.error.code}` : 'no answer')}${e.answeredAt ? ` after ${e.answeredAt - e.at} ms` : ''}`);
        if (c.cancelled) bits.push('then notifications/cancelled');
        return bits.join(', ');
    });
    return rounds;
}

export function workRoot(prefix) {
    const root = mkdtempSync(path.join(tmpdir(), prefix));
    mkdirSync(path.join(root, 'ws'), { recursive: true });
    return root;
}
