#!/usr/bin/env node
// Benchmark (prints figures; asserts nothing about speed): what a client's hook costs for an allowed
// call (an argvPrefix rule allows it), the way each client runs it: the `countersign-hook CLIENT`
// shim as a fresh process (and `countersign hook CLIENT`, the same code in the full program) (Codex, Gemini CLI, Qwen Code: spawn, read stdin, the console's socket,
// print), and Claude Code's HTTP hook (one POST on a fresh connection). Also a Node process that
// does nothing but start, for scale (a hook written in Node pays at least that). Then the quiet
// calls standard mode lets run with no rule (issue 37: read, judged, git asked whether the Makefile
// is as committed): git status, make test, grep -rn, cat | head, a plain ls. Then a quiet Write over
// a 100 KiB file beside one of a new file: what keeping the previous content for an undo adds.
// p50/p99 over --n.
//   node hooks.mjs COUNTERSIGN_BINARY [--n 300]
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startCountersign } from '../peer/countersign-process.mjs';

const argv = process.argv.slice(2);
const binary = argv[0];
const N = (() => { const i = argv.indexOf('--n'); return i > 0 ? Number(argv[i + 1]) : 300; })();
if (!binary) { console.error('usage: hooks.mjs COUNTERSIGN_BINARY [--n 300]'); process.exit(2); }

const work = mkdtempSync(path.join(tmpdir(), 'countersign-bench-hooks-'));
const ws = path.join(work, 'ws');
mkdirSync(path.join(ws, 'src'), { recursive: true });
// A real repository: the judge asks git whether the Makefile make test runs is as committed.
writeFileSync(path.join(ws, 'Makefile'), 'test:\n\t@echo ok\n');
writeFileSync(path.join(ws, 'README.md'), '# bench\n');
writeFileSync(path.join(ws, 'src', 'a.c'), '// TODO\n');
for (const args of [['init', '-q'], ['-c', 'user.name=b', '-c', 'user.email=b@example.invalid', 'add', '-A'],
                    ['-c', 'user.name=b', '-c', 'user.email=b@example.invalid', 'commit', '-q', '-m', 'bench']])
    execFileSync('git', ['-C', ws, ...args]);
const server = await startCountersign(binary, {
    config: { workspaceRoots: [ws], rules: [{ tool: 'agent:shell', argvPrefix: ['echo'], decision: 'allow' }] },
    tokenName: 'bench-hooks',
});
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };
const fmt = (xs) => `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;
const quiet = ['git status', 'make test', 'grep -rn TODO src', 'cat README.md | head -5', 'ls -la src'];
const payload = (i, command = `echo ${i}`) => JSON.stringify({ session_id: 's', turn_id: 't', transcript_path: null, cwd: ws, hook_event_name: 'PreToolUse', model: 'm',
                                        permission_mode: 'default', tool_name: 'Bash', tool_input: { command }, tool_use_id: `call_${i}` });
const timed = (file, args, input, env) => new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = execFile(file, args, { env }, (error, stdout) => (error ? reject(error) : resolve({ ms: performance.now() - t0, stdout })));
    child.stdin.end(input);
});
try {
    const env = { ...process.env, COUNTERSIGN_TOKEN: server.token };
    const shimBinary = path.join(path.dirname(binary), 'countersign-hook');
    const through = async (file, args, offset, commandOf = (i) => `echo ${i}`) => {
        const out = [];
        for (let i = 0; i < N; ++i) {
            const r = await timed(file, args, payload(offset + i, commandOf(i)), env);
            if (r.stdout !== '') throw new Error(`not allowed: ${r.stdout}`);
            out.push(r.ms);
        }
        return out;
    };
    const socket = execFileSync(binary, ['hooks', 'install', 'codex', '--setup', '--data-dir', server.dataDir], { env: { ...process.env, HOME: work } })
        .toString().match(/--socket (\S+)/)[1];
    const shim = await through(shimBinary, ['codex', '--socket', socket], 10 * N);
    const full = await through(binary, ['hook', 'codex', '--data-dir', server.dataDir], 20 * N);
    const http = [];
    const base = server.url.replace(/\/mcp$/, '');
    for (let i = 0; i < N; ++i) {
        const t0 = performance.now();
        const res = await fetch(`${base}/hooks/claude-code`, { method: 'POST', body: payload(N + i),
            headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Connection: 'close' } });
        const body = await res.json();
        http.push(performance.now() - t0);
        if (body.hookSpecificOutput?.permissionDecision !== 'allow') throw new Error(JSON.stringify(body));
    }
    const quietShim = await through(shimBinary, ['codex', '--socket', socket], 30 * N, (i) => quiet[i % quiet.length]);
    const quietHttp = [];
    for (let i = 0; i < N; ++i) {
        const t0 = performance.now();
        const res = await fetch(`${base}/hooks/claude-code`, { method: 'POST', body: payload(40 * N + i, quiet[i % quiet.length]),
            headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Connection: 'close' } });
        const body = await res.json();
        quietHttp.push(performance.now() - t0);
        if (body.hookSpecificOutput?.permissionDecision !== 'allow') throw new Error(`${quiet[i % quiet.length]}: ${JSON.stringify(body)}`);
    }
    // A quiet Write (standard mode, inside the roots): over a 100 KiB file whose content changes
    // before each call (so each keeps a new snapshot, as after the agent's last edit), and of a file
    // that does not exist yet (nothing to keep); the difference is what keeping the previous content
    // for an undo adds.
    const writeOf = (i, file) => JSON.stringify({ session_id: 's', transcript_path: null, cwd: ws, hook_event_name: 'PreToolUse',
                                                   permission_mode: 'default', tool_name: 'Write',
                                                   tool_input: { file_path: file, content: 'x\n' }, tool_use_id: `write_${i}` });
    const quietWrite = async (offset, prepare) => {
        const out = [];
        for (let i = 0; i < N; ++i) {
            const file = prepare(i);
            const t0 = performance.now();
            const res = await fetch(`${base}/hooks/claude-code`, { method: 'POST', body: writeOf(offset + i, file),
                headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Connection: 'close' } });
            const body = await res.json();
            out.push(performance.now() - t0);
            if (body.hookSpecificOutput?.permissionDecision !== 'allow') throw new Error(`write ${file}: ${JSON.stringify(body)}`);
        }
        return out;
    };
    const kib100 = path.join(ws, 'src', 'big.txt');
    const kept = await quietWrite(50 * N, (i) => { writeFileSync(kib100, `${i}\n`.padEnd(100 * 1024, 'y')); return kib100; });
    const fresh = await quietWrite(60 * N, (i) => path.join(ws, 'src', `new-${i}.txt`));
    // Python the agent runs (issue 49): a 200-line script it wrote (untracked: read by the judge),
    // and the same code as a here-document, each read for what it does and allowed.
    const scriptLines = ['import json', 'import re', 'import sys', 'from pathlib import Path', '', 'REPORT = "report.txt"', ''];
    for (let f = 0; scriptLines.length < 190; ++f) {
        scriptLines.push(`def step_${f}(text, count=${f}):`, `    """Step ${f}: counts words and patterns."""`,
                         `    words = re.findall(r"[a-z]+", text.lower())`, `    seen = {w: words.count(w) for w in set(words)}`,
                         `    total = sum(len(w) for w in words) + count`, `    return {"step": ${f}, "words": len(words), "total": total, "top": sorted(seen)[:3]}`, '');
    }
    scriptLines.push('text = Path("README.md").read_text()', `results = [step_${0}(text)]`, 'for name in sorted(globals_list := ["a", "b"]):',
                     '    results.append({"name": name})', 'print(json.dumps(results, indent=2))', 'Path(REPORT).write_text(json.dumps(results))',
                     'sys.exit(0)');
    const script = scriptLines.join('\n') + '\n';
    writeFileSync(path.join(ws, 'analyse.py'), script);
    const pythonCall = async (offset, command) => {
        const out = [];
        for (let i = 0; i < N; ++i) {
            const t0 = performance.now();
            const res = await fetch(`${base}/hooks/claude-code`, { method: 'POST', body: payload(offset + i, command),
                headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', Connection: 'close' } });
            const body = await res.json();
            out.push(performance.now() - t0);
            if (body.hookSpecificOutput?.permissionDecision !== 'allow') throw new Error(`${command.slice(0, 40)}: ${JSON.stringify(body)}`);
        }
        return out;
    };
    const pythonScript = await pythonCall(70 * N, 'python3 analyse.py');
    const pythonHere = await pythonCall(80 * N, `python3 - <<'PY'\n${script}PY`);
    // And JavaScript given to node (the same shape: 200 lines that read, compute and write a report).
    const jsLines = ["const fs = require('fs');", "const path = require('path');", ''];
    for (let f = 0; jsLines.length < 190; ++f) {
        jsLines.push(`function step${f}(text, count = ${f}) {`, `    const words = text.toLowerCase().match(/[a-z]+/g) || [];`,
                     `    const seen = new Map();`, `    for (const w of words) seen.set(w, (seen.get(w) || 0) + 1);`,
                     `    return { step: ${f}, words: words.length, total: words.join('').length + count, top: [...seen.keys()].sort().slice(0, 3) };`,
                     '}', '');
    }
    jsLines.push("const text = fs.readFileSync('README.md', 'utf8');", 'const results = [step0(text)];',
                 "for (const name of ['a', 'b']) results.push({ name });", 'console.log(JSON.stringify(results, null, 2));',
                 "fs.writeFileSync(path.join('.', 'report.json'), JSON.stringify(results));");
    const nodeHere = await pythonCall(90 * N, `node <<'JS'\n${jsLines.join('\n')}\nJS`);
    const nodes = [];
    for (let i = 0; i < Math.min(N, 50); ++i) nodes.push((await timed(process.execPath, ['-e', '0'], '', process.env)).ms);
    console.log(`== hooks: an allowed call (argvPrefix rule), ${N} each, one at a time`);
    console.log(`countersign-hook codex (what hooks install writes: a fresh process, the console's socket): ${fmt(shim)}`);
    console.log(`countersign hook codex (the same from the full program, which loads every library of the window): ${fmt(full)}`);
    console.log(`POST /hooks/claude-code (Claude Code's HTTP hook, a fresh connection): ${fmt(http)}`);
    console.log(`== hooks: quiet calls standard mode runs with no rule (${quiet.join(', ')}), ${N} each`);
    console.log(`countersign-hook codex: ${fmt(quietShim)}`);
    console.log(`POST /hooks/claude-code: ${fmt(quietHttp)}`);
    console.log(`== hooks: a quiet Write through POST /hooks/claude-code, ${N} each`);
    console.log(`over a 100 KiB file (its previous content kept for an undo): ${fmt(kept)}`);
    console.log(`of a new file (nothing to keep): ${fmt(fresh)}`);
    console.log(`keeping 100 KiB adds: p50 ${(pct(kept, 50) - pct(fresh, 50)).toFixed(2)} ms`);
    console.log(`== hooks: Python the agent runs, read for what it does, ${scriptLines.length} lines, ${N} each`);
    console.log(`python3 analyse.py (a script the agent wrote, read by the judge): ${fmt(pythonScript)}`);
    console.log(`python3 - <<'PY' (the same code as a here-document): ${fmt(pythonHere)}`);
    console.log(`node <<'JS' (${jsLines.length} lines of JavaScript as a here-document): ${fmt(nodeHere)}`);
    console.log(`for scale, node -e 0 (a Node hook's start alone): ${fmt(nodes)}`);
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
