#!/usr/bin/env node
// Benchmark (prints figures; asserts nothing about speed): what measuring the blast radius of
// `rm -rf` costs over a folder of 100,000 files in a git repository (issue 38: the walk stops at
// BlastRadius::kMaxFiles and says "at least", and git is asked about the first 500), through
// countersign-test-judge (the judge and the blast radius, as a card's plan makes them). p50 and max
// over --n runs, and the sentence the card shows.
//   node blastradius.mjs JUDGE_BINARY [--files 100000] [--n 10]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const argv = process.argv.slice(2);
const judge = argv[0];
const option = (name, fallback) => { const i = argv.indexOf(name); return i > 0 ? Number(argv[i + 1]) : fallback; };
const FILES = option('--files', 100000);
const N = option('--n', 10);
if (!judge) { console.error('usage: blastradius.mjs JUDGE_BINARY [--files 100000] [--n 10]'); process.exit(2); }

const work = mkdtempSync(path.join(tmpdir(), 'countersign-bench-blast-'));
const ws = path.join(work, 'ws');
const home = path.join(work, 'home');
mkdirSync(home);
mkdirSync(path.join(ws, 'big'), { recursive: true });
execFileSync('git', ['-C', ws, 'init', '-q']);
for (let d = 0; d < FILES / 1000; ++d) {
    const dir = path.join(ws, 'big', `d${d}`);
    mkdirSync(dir);
    for (let f = 0; f < 1000; ++f) writeFileSync(path.join(dir, `f${f}.txt`), 'x\n');
}
try {
    const times = [];
    let said = '';
    for (let i = 0; i < N; ++i) {
        const t0 = performance.now();
        const out = execFileSync(judge, [ws, home, ws, 'rm -rf big']).toString();
        times.push(performance.now() - t0);
        said = JSON.parse(out.trim().split('\n')[0]).lost ?? '';
    }
    times.sort((a, b) => a - b);
    console.log(`== blast radius of rm -rf over ${FILES} files (a process each, judge and measure), ${N} runs`);
    console.log(`p50 ${times[Math.floor(N / 2)].toFixed(1)} ms, max ${times[N - 1].toFixed(1)} ms`);
    console.log(`the card says: ${said}`);
} finally {
    rmSync(work, { recursive: true, force: true });
}
