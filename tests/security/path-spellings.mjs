#!/usr/bin/env node
// Rules on paths against an agent that spells the same path another way (issue 25, "No widening
// without the human"): a deny rule on delete_path build let ./build, build/ and the absolute path
// raise cards; an allow rule on scratch/* let a write through a link inside scratch/ land
// elsewhere. Rules now match the path the call acts on, resolved against the roots, an upstream
// tool's absolute target paths too. Real binary, real folders and links, an upstream of the test's
// own, raw HTTP.
//   node path-spellings.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../peer/checks.mjs';
import { callTool, check, exitWithSummary, pendingCards, startCountersign, textOf } from './attacker.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: path-spellings.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }

const work = realpathSync(mkdtempSync(path.join(tmpdir(), 'countersign-sec-paths-')));
const root = path.join(work, 'ws');
for (const d of ['build/out', 'secrets', 'scratch', 'src']) mkdirSync(path.join(root, d), { recursive: true });
writeFileSync(path.join(root, 'build/out/app'), 'binary');
writeFileSync(path.join(root, 'secrets/key'), 'hunter2');
writeFileSync(path.join(root, 'src/main.c'), 'int main(void) { return 0; }\n');
symlinkSync(path.join(root, 'src'), path.join(root, 'scratch/link')); // inside the roots, elsewhere than scratch/

// An upstream whose tool names its target by a path (the tool settings' targets).
const upstreamFiles = { TOOLS: path.join(work, 'tools.json'), RUNS: path.join(work, 'runs') };
writeFileSync(upstreamFiles.TOOLS, JSON.stringify([{ name: 'wipe', inputSchema: { type: 'object', properties: { name: { type: 'string' } } }, annotations: { destructiveHint: true } }]));
writeFileSync(upstreamFiles.RUNS, '');
const upstream = {
    name: 'rug', command: [process.execPath, path.join(path.dirname(fileURLToPath(import.meta.url)), 'rugpull-upstream.mjs')],
    env: upstreamFiles, tools: { wipe: { targets: ['name'] } },
};
const rules = [
    { tool: 'rug_wipe', arguments: { name: path.join(root, 'build') }, decision: 'deny', reason: 'the upstream keeps the build' },
    { tool: 'delete_path', arguments: { path: 'build' }, decision: 'deny', reason: 'keep the build' },
    { tool: 'read_file', arguments: { path: './secrets/*' }, decision: 'deny', reason: 'no secrets' },
    { tool: 'write_file', arguments: { path: 'scratch/*' }, decision: 'allow' },
];
const server = await startCountersign(binary, { config: { workspaceRoots: [root], pollWindowSeconds: 1, rules, upstreams: [upstream] } });
const denied = (r) => r.result?.isError === true && /^Denied by Countersign policy/.test(textOf(r));
const asked = (r) => r.result?.resultType === 'input_required';

try {
    for (const spelling of ['build', './build', 'build/', './/build//', path.join(root, 'build'), `${root}/./build/`]) {
        await check(`delete_path ${JSON.stringify(spelling)}: denied by the rule on build, no card, nothing deleted`, async () => {
            const r = await callTool(server, 'delete_path', { path: spelling, recursive: true });
            assert.ok(denied(r), JSON.stringify(r));
            assert.match(textOf(r), /keep the build/);
            assert.ok(existsSync(path.join(root, 'build/out/app')));
            assert.deepEqual(await pendingCards(server, decideBinary), []);
        });
    }

    await check('delete_path src (another folder): not denied by the rule on build, it asks', async () => {
        const r = await callTool(server, 'delete_path', { path: './src', recursive: true });
        assert.ok(asked(r), JSON.stringify(r));
        assert.ok(existsSync(path.join(root, 'src/main.c')));
    });

    for (const spelling of ['secrets/key', './secrets/key', 'secrets//key', path.join(root, 'secrets/key'), 'src/../secrets/key']) {
        await check(`read_file ${JSON.stringify(spelling)} (read_file is allowed by default): the deny on ./secrets/* holds, or the path is refused`, async () => {
            const r = await callTool(server, 'read_file', { path: spelling });
            assert.equal(r.result?.isError, true, JSON.stringify(r));
            assert.doesNotMatch(JSON.stringify(r), /hunter2/);
        });
    }

    await check('write_file scratch/new.txt: the allow rule on scratch/* runs it with no card', async () => {
        const r = await callTool(server, 'write_file', { path: 'scratch/new.txt', content: 'ok\n' });
        assert.equal(r.result?.isError, undefined, JSON.stringify(r));
        assert.ok(existsSync(path.join(root, 'scratch/new.txt')));
    });

    await check('write_file scratch/link/evil.c (a link to src/): the allow rule on scratch/* does not cover it, it asks and nothing is written', async () => {
        const r = await callTool(server, 'write_file', { path: 'scratch/link/evil.c', content: 'evil\n' });
        assert.ok(asked(r), JSON.stringify(r));
        assert.ok(!existsSync(path.join(root, 'src/evil.c')));
    });
    for (const spelling of [`${root}/./build/`, `${root}//build`]) {
        await check(`an upstream's target path ${JSON.stringify(spelling)}: the deny rule on ROOT/build holds, and the upstream is not called`, async () => {
            const r = await waitFor('the upstream\'s tool served', async () => { const a = await callTool(server, 'rug_wipe', { name: spelling }); return a.result && a; }, 10000);
            assert.ok(denied(r), JSON.stringify(r));
            assert.match(textOf(r), /the upstream keeps the build/);
            assert.equal(readFileSync(upstreamFiles.RUNS, 'utf8'), '');
        });
    }
    await check('a root configured through a link: a deny written with the configured path holds for build and ./build', async () => {
        const linked = path.join(work, 'ws-link');
        symlinkSync(root, linked);
        const other = await startCountersign(binary, {
            config: { workspaceRoots: [linked], rules: [{ tool: 'delete_path', arguments: { path: `${linked}/build` }, decision: 'deny', reason: 'configured spelling' }] },
        });
        try {
            for (const spelling of ['build', './build/', path.join(root, 'build')]) {
                const r = await callTool(other, 'delete_path', { path: spelling, recursive: true });
                assert.ok(denied(r), `${spelling}: ${JSON.stringify(r)}`);
            }
            assert.ok(existsSync(path.join(root, 'build/out/app')));
        } finally {
            await other.stop();
        }
    });
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
