// What the benchmarks share: their options, timing a call, percentiles and a process's peak RSS.
import { readFileSync } from 'node:fs';

// --name N from the command line, as a number; d when absent.
export const opt = (argv, name, d) => { const i = argv.indexOf(`--${name}`); return i > 0 ? Number(argv[i + 1]) : d; };
// [milliseconds, result] of one awaited call.
export const timed = async (fn) => { const t = process.hrtime.bigint(); const r = await fn(); return [Number(process.hrtime.bigint() - t) / 1e6, r]; };
// The p-th percentile of xs (nearest rank).
export const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };
// A process's peak resident memory, in words; "gone" once it has exited.
export const rss = (pid) => {
    try {
        const s = readFileSync(`/proc/${pid}/status`, 'utf8');
        return `${Math.round(Number(/VmHWM:\s+(\d+)/.exec(s)[1]) / 1024)} MB peak RSS`;
    } catch {
        return 'gone';
    }
};
