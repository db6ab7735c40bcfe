#!/usr/bin/env node
// Benchmark (prints figures; asserts nothing about speed): the app's start-up time to a shown
// window and its memory when idle. Runs the real binary with its window (needs a display: run under
// xvfb-run, as tests/bench/run.sh does) and times each run from spawn to the "countersign: window
// shown" line it prints on its window's first expose. The first run starts on a new data folder
// (database and keys created); the others start on that folder again. After the last one, the
// window idles for a few seconds and its resident memory (RSS, its peak, and PSS) is read from
// /proc.
//   node startup.mjs COUNTERSIGN_BINARY [--runs 11] [--idle-seconds 5]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const argv = process.argv.slice(2);
const binary = argv[0];
const opt = (name, d) => { const i = argv.indexOf(`--${name}`); return i > 0 ? Number(argv[i + 1]) : d; };
const RUNS = opt('runs', 11);
const IDLE_SECONDS = opt('idle-seconds', 5);
if (!binary) { console.error('usage: startup.mjs COUNTERSIGN_BINARY [--runs 11] [--idle-seconds 5]'); process.exit(2); }
if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) { console.error('startup.mjs: needs a display (run it under xvfb-run)'); process.exit(2); }

const dir = mkdtempSync(path.join(tmpdir(), 'countersign-startup-'));
const config = path.join(dir, 'config.json');
// Keys in files: the OS keychain's own start-up is not the app's.
writeFileSync(config, JSON.stringify({ keyStore: 'file' }));
const env = { ...process.env, HOME: dir };
delete env.QT_QPA_PLATFORM;

// Starts the window, resolves with the ms from spawn to the shown line and the running child.
function startWindow() {
    const t0 = performance.now();
    const child = spawn(binary, ['--listen', '127.0.0.1:0', '--data-dir', path.join(dir, 'data'), '--config', config],
        { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no window within 30 s; stderr: ${stderr}`)), 30000);
        child.stderr.on('data', (chunk) => {
            stderr += chunk;
            if (stderr.includes('countersign: window shown')) { clearTimeout(timer); resolve({ ms: performance.now() - t0, child }); }
        });
        child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`exited ${code} before its window showed: ${stderr}`)); });
    });
}
async function stop(child) {
    child.removeAllListeners('exit');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
}
const kib = (text, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
const mib = (k) => `${(k / 1024).toFixed(1)} MiB`;

try {
    const times = [];
    let last;
    for (let i = 0; i < RUNS; i++) {
        const { ms, child } = await startWindow();
        times.push(ms);
        if (i < RUNS - 1) await stop(child);
        else last = child;
    }
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const status = readFileSync(`/proc/${last.pid}/status`, 'utf8');
    const rollup = readFileSync(`/proc/${last.pid}/smaps_rollup`, 'utf8');
    await stop(last);
    const later = times.slice(1).sort((a, b) => a - b);
    const median = later[Math.floor(later.length / 2)];
    console.log(`Start-up to a shown window (${binary}, ${RUNS} runs, display ${process.env.DISPLAY ?? process.env.WAYLAND_DISPLAY})`);
    console.log(`  first start (new data folder: database, keys)   ${times[0].toFixed(0)} ms`);
    console.log(`  later starts, median / min / max                ${median.toFixed(0)} / ${later[0].toFixed(0)} / ${later.at(-1).toFixed(0)} ms`);
    console.log(`Idle memory after ${IDLE_SECONDS} s with the window shown (empty queue and audit log)`);
    console.log(`  RSS ${mib(kib(status, 'VmRSS'))}, peak RSS ${mib(kib(status, 'VmHWM'))}, PSS ${mib(kib(rollup, 'Pss'))}`);
} finally {
    rmSync(dir, { recursive: true, force: true });
}
