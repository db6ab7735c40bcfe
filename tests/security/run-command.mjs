#!/usr/bin/env node
// run_command against an agent holding only a token (issue 12): the default-allowed forms were
// matched on their first words, so git wrote and read files outside the roots and ran the
// repository's fsmonitor, and an approved script edited after approval ran its new content.
// Real binary, real git, real files.
//   node run-command.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { callTool, check, decide, exitWithSummary, startCountersign, textOf } from './attacker.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: run-command.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }

const work = mkdtempSync(path.join(tmpdir(), 'countersign-sec-run-'));
const ws = path.join(work, 'ws');
const outside = path.join(work, 'outside');
const secret = path.join(outside, 'secret.txt');
mkdirSync(path.join(ws, 'repo', 'src'), { recursive: true });
mkdirSync(path.join(ws, 'plain'), { recursive: true });
mkdirSync(outside, { recursive: true });
writeFileSync(secret, 'TOP-SECRET-SEED\n');
writeFileSync(path.join(ws, 'repo', 'src', 'main.c'), 'int main(void) { return 0; }\n');
const git = (...args) => execFileSync('git', args, { cwd: path.join(ws, 'repo'), stdio: 'pipe',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).toString();
git('init', '-q');
git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'add', '-A');
git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'init');
// A second repository whose work tree holds the root: git must not climb out of the root to it.
mkdirSync(path.join(work, 'outer', 'inner'), { recursive: true });
writeFileSync(path.join(work, 'outer', 'outer-secret.txt'), 'OUTER-SECRET\n');
execFileSync('sh', ['-c', 'git init -q && git -c user.name=t -c user.email=t@example.com add -A && git -c user.name=t -c user.email=t@example.com commit -q -m o'],
    { cwd: path.join(work, 'outer'), env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });

const config = {
    pollWindowSeconds: 1,
    workspaceRoots: [ws, path.join(work, 'outer', 'inner')],
    rules: [{ tool: 'run_command', argvPrefix: ['git', 'status', '--porcelain'], decision: 'allow' },
        { tool: 'run_command', argvPrefix: ['git', 'show', '--stat'], decision: 'allow' }],
};
const server = await startCountersign(binary, { config, tokenName: 'agent' });
const run = (argv, cwd, extra) => callTool(server, 'run_command', cwd ? { argv, cwd } : { argv }, extra);
const ranWithoutCard = (r) => r.result?.resultType === 'complete' && r.result?.isError !== true;
const asked = (r) => r.result?.resultType === 'input_required';

try {
    await check('read-only forms still run without a card (git status, log -n 1, diff --stat, ls -la, pwd)', async () => {
        for (const argv of [['git', 'status', '--short'], ['git', 'log', '--oneline', '-n', '1'], ['git', 'diff', '--stat', 'HEAD'],
            ['git', 'show', '--stat', 'HEAD'], ['ls', '-la', 'src'], ['pwd']]) {
            const r = await run(argv, 'repo');
            assert.ok(ranWithoutCard(r), `${argv.join(' ')}: ${JSON.stringify(r)}`);
        }
        assert.match(textOf(await run(['git', 'log', '--oneline', '-n', '1'], 'repo')), /init/);
    });

    await check('git log --output=PATH outside the roots: asks, nothing written', async () => {
        const target = path.join(outside, 'written.txt');
        const r = await run(['git', 'log', '-1', '--format=tformat:PWNED', `--output=${target}`], 'repo');
        assert.ok(asked(r), JSON.stringify(r));
        assert.ok(!existsSync(target), 'no file outside the roots');
        await decide(server, decideBinary, 'decline', '--reason', 'no');
    });

    await check('git diff --no-index /dev/null SECRET: asks, the secret is not returned', async () => {
        const r = await run(['git', 'diff', '--no-index', '/dev/null', secret], 'repo');
        assert.ok(asked(r), JSON.stringify(r));
        assert.doesNotMatch(JSON.stringify(r), /TOP-SECRET-SEED/);
        await decide(server, decideBinary, 'decline', '--reason', 'no');
    });

    await check('git diff SECRET /dev/null outside any repository (implied --no-index): asks', async () => {
        const r = await run(['git', 'diff', secret, '/dev/null'], 'plain');
        assert.ok(asked(r), JSON.stringify(r));
        assert.doesNotMatch(JSON.stringify(r), /TOP-SECRET-SEED/);
        await decide(server, decideBinary, 'decline', '--reason', 'no');
    });

    await check('ls / and ls ../.. (outside the roots): ask', async () => {
        for (const argv of [['ls', '/'], ['ls', '../..'], ['ls', secret]]) {
            const r = await run(argv, 'repo');
            assert.ok(asked(r), `${argv.join(' ')}: ${JSON.stringify(r)}`);
            await decide(server, decideBinary, 'decline', '--reason', 'no');
        }
    });

    await check('git show HEAD:FILE from a root inside a larger repository: git does not climb out of the root', async () => {
        const r = await run(['git', 'show', 'HEAD:outer-secret.txt'], path.join(work, 'outer', 'inner'));
        assert.doesNotMatch(JSON.stringify(r), /OUTER-SECRET/);
    });

    await check('core.fsmonitor in the repository config: git status asks; allowed by a rule, it runs without fsmonitor', async () => {
        const marker = path.join(outside, 'fsmonitor-ran');
        const configFile = path.join(ws, 'repo', '.git', 'config');
        const original = readFileSync(configFile, 'utf8');
        writeFileSync(configFile, `${original}[core]\n\tfsmonitor = "touch ${marker}; false"\n`);
        try {
            const r = await run(['git', 'status'], 'repo');
            assert.ok(asked(r), JSON.stringify(r));
            await decide(server, decideBinary, 'decline', '--reason', 'no');
            const allowed = await run(['git', 'status', '--porcelain'], 'repo');
            assert.ok(ranWithoutCard(allowed), JSON.stringify(allowed));
            assert.ok(!existsSync(marker), 'fsmonitor did not run');
        } finally {
            writeFileSync(configFile, original);
        }
    });

    await check('a clean filter driver in the repository config: git status asks; allowed by a rule, the filter does not run', async () => {
        const marker = path.join(outside, 'filter-ran');
        const configFile = path.join(ws, 'repo', '.git', 'config');
        const original = readFileSync(configFile, 'utf8');
        writeFileSync(configFile, `${original}[filter "x"]\n\tclean = "touch ${marker}; cat"\n`);
        writeFileSync(path.join(ws, 'repo', '.gitattributes'), '* filter=x\n');
        writeFileSync(path.join(ws, 'repo', 'src', 'main.c'), 'int main(void) { return 1; }\n');
        try {
            const r = await run(['git', 'diff'], 'repo');
            assert.ok(asked(r), JSON.stringify(r));
            await decide(server, decideBinary, 'decline', '--reason', 'no');
            const allowed = await run(['git', 'status', '--porcelain'], 'repo');
            assert.ok(ranWithoutCard(allowed), JSON.stringify(allowed));
            assert.ok(!existsSync(marker), 'the filter did not run');
        } finally {
            writeFileSync(configFile, original);
            rmSync(path.join(ws, 'repo', '.gitattributes'));
        }
    });

    await check('a partial clone whose promisor remote is an ext:: command (lazy fetch): git show asks; allowed by a rule, nothing is fetched or run', async () => {
        const marker = path.join(outside, 'lazy-fetch-ran');
        const configFile = path.join(ws, 'repo', '.git', 'config');
        const original = readFileSync(configFile, 'utf8');
        writeFileSync(configFile, `${original}[extensions]\n\tpartialClone = origin\n[remote "origin"]\n\turl = "ext::sh -c touch% ${marker}"\n\tpromisor = true\n[protocol "ext"]\n\tallow = always\n`);
        const missing = '1234567890123456789012345678901234567890';
        try {
            const r = await run(['git', 'show', missing], 'repo');
            assert.ok(asked(r), JSON.stringify(r));
            await decide(server, decideBinary, 'decline', '--reason', 'no');
            const allowed = await run(['git', 'show', '--stat', missing], 'repo');
            assert.equal(allowed.result?.resultType, 'complete', JSON.stringify(allowed));
            assert.ok(!existsSync(marker), 'the ext:: remote did not run');
        } finally {
            writeFileSync(configFile, original);
        }
    });

    await check('a submodule whose own config has a clean filter: git status runs without a card and never enters it', async () => {
        const top = path.join(ws, 'withsub');
        const marker = path.join(outside, 'submodule-filter-ran');
        const g = (cwd, ...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args],
            { cwd, stdio: 'pipe', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
        mkdirSync(path.join(top, 'sub'), { recursive: true });
        g(top, 'init', '-q');
        g(path.join(top, 'sub'), 'init', '-q');
        writeFileSync(path.join(top, 'sub', 'f.txt'), 'one\n');
        g(path.join(top, 'sub'), 'add', '-A');
        g(path.join(top, 'sub'), 'commit', '-q', '-m', 's');
        g(top, 'add', 'sub');
        g(top, 'commit', '-q', '-m', 't');
        writeFileSync(path.join(top, 'sub', '.git', 'config'), `${readFileSync(path.join(top, 'sub', '.git', 'config'), 'utf8')}[filter "evil"]\n\tclean = "touch ${marker}; cat"\n`);
        mkdirSync(path.join(top, 'sub', '.git', 'info'), { recursive: true });
        writeFileSync(path.join(top, 'sub', '.git', 'info', 'attributes'), '* filter=evil\n');
        writeFileSync(path.join(top, 'sub', 'f.txt'), 'two\n');
        for (const argv of [['git', 'status'], ['git', 'diff']]) {
            const r = await run(argv, 'withsub');
            assert.ok(ranWithoutCard(r), `${argv.join(' ')}: ${JSON.stringify(r)}`);
        }
        assert.ok(!existsSync(marker), 'the submodule\'s filter did not run');
    });

    await check('objects borrowed from a repository outside the roots (alternates): git show asks, the outside blob is not returned', async () => {
        const borrower = path.join(ws, 'borrower');
        mkdirSync(borrower, { recursive: true });
        execFileSync('git', ['init', '-q'], { cwd: borrower });
        const blob = execFileSync('git', ['hash-object', '-w', path.join(work, 'outer', 'outer-secret.txt')], { cwd: path.join(work, 'outer') }).toString().trim();
        writeFileSync(path.join(borrower, '.git', 'objects', 'info', 'alternates'), `${path.join(work, 'outer', '.git', 'objects')}\n`);
        const r = await run(['git', 'show', blob], 'borrower');
        assert.ok(asked(r), JSON.stringify(r));
        assert.doesNotMatch(JSON.stringify(r), /OUTER-SECRET/);
        await decide(server, decideBinary, 'decline', '--reason', 'no');
    });

    await check('a .git file pointing at a repository outside the roots: asks', async () => {
        mkdirSync(path.join(ws, 'linked'), { recursive: true });
        writeFileSync(path.join(ws, 'linked', '.git'), `gitdir: ${path.join(work, 'outer', '.git')}\n`);
        const r = await run(['git', 'log', '--oneline'], 'linked');
        assert.ok(asked(r), JSON.stringify(r));
        await decide(server, decideBinary, 'decline', '--reason', 'no');
    });

    await check('an approved ./build.sh rewritten after approval does not run: a new card shows the new hash', async () => {
        const script = path.join(ws, 'build.sh');
        writeFileSync(script, `#!/bin/sh\necho original >> ${path.join(work, 'ran-original')}\n`);
        chmodSync(script, 0o755);
        const first = await run(['./build.sh']);
        assert.ok(asked(first), JSON.stringify(first));
        const cards = await decide(server, decideBinary, 'list');
        assert.match(cards[0].diff, /build\.sh {2}sha256:[0-9a-f]{64}/, 'the card shows the pinned hash');
        const oldHash = /sha256:([0-9a-f]{64})/.exec(cards[0].diff)[1];
        await decide(server, decideBinary, 'approve');
        writeFileSync(script, `#!/bin/sh\necho swapped >> ${path.join(work, 'ran-swapped')}\n`);
        const retried = await run(['./build.sh'], undefined, { requestState: first.result.requestState });
        assert.ok(asked(retried), `a new card, not a run: ${JSON.stringify(retried)}`);
        assert.ok(!existsSync(path.join(work, 'ran-original')) && !existsSync(path.join(work, 'ran-swapped')), 'nothing ran');
        const next = await decide(server, decideBinary, 'list');
        assert.equal(next.length, 1);
        assert.doesNotMatch(next[0].diff, new RegExp(oldHash), 'the new card pins the new content');
        await decide(server, decideBinary, 'approve');
        const ran = await run(['./build.sh'], undefined, { requestState: retried.result.requestState });
        assert.ok(ranWithoutCard(ran), JSON.stringify(ran));
        assert.equal(readFileSync(path.join(work, 'ran-swapped'), 'utf8'), 'swapped\n', 'the approved content ran once');
    });
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
