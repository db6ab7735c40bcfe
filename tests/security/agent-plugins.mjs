#!/usr/bin/env node
// Countersign's opencode plugin and pi extension (issue 39), as `countersign hooks install opencode|pi`
// writes them, loaded as the agent loads them and called as it calls them, against the real console
// through the real countersign-hook shim, in a workspace root, in standard mode. opencode:
//   - a read inside the roots is allowed; a rm -rf is held on a card, declined: the plugin throws
//     with the console's words;
//   - a call naming an argument in both spellings (filePath and file_path) throws, with no card;
//   - apply_patch is judged as a patch; a tool the plugin does not know is asked about (a card); a
//     tool that changes nothing (webfetch) is not;
//   - this console's own MCP tool under opencode's name (countersign_write_file) is not asked about
//     a second time; another name with that prefix, or another server's, is;
//   - the console gone: every known tool throws (fail closed);
//   - install refuses a countersign.js that is not Countersign's, and remove deletes only its own.
// pi: a decline blocks with the console's words; an edit with both an edits list and a top-level
// edit is blocked with no card; the console gone, it blocks.
//   node agent-plugins.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { check, exitWithSummary, waitFor } from '../peer/checks.mjs';
import { startCountersign } from '../peer/countersign-process.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: agent-plugins.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'countersign-opencode-'));
const home = path.join(work, 'home');
const ws = path.join(work, 'ws');
mkdirSync(path.join(ws, 'build'), { recursive: true });
writeFileSync(path.join(ws, 'notes.md'), 'notes\n');
writeFileSync(path.join(ws, 'build', 'out.o'), 'object\n');
const env = { ...process.env, HOME: home, XDG_RUNTIME_DIR: path.join(work, 'run') };
mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });

const server = await startCountersign(binary, { config: { workspaceRoots: [ws], hookHoldSeconds: 30, mode: 'standard' }, tokenName: 'opencode-test', env });
const cli = (...args) => execFileSync(binary, [...args, '--data-dir', server.dataDir, '--config', server.configPath], { env }).toString();
const decide = (verb, ...args) => run(decideBinary, [server.dataDir, verb, ...args]).then(({ stdout }) => JSON.parse(stdout));
const pluginFile = path.join(home, '.config', 'opencode', 'plugin', 'countersign.js');
let ids = 0;

try {
    await check('install refuses a countersign.js that is not Countersign\'s, and changes nothing', async () => {
        mkdirSync(path.dirname(pluginFile), { recursive: true });
        writeFileSync(pluginFile, 'export const Mine = async () => ({});\n');
        const r = await run(binary, ['hooks', 'install', 'opencode', '--data-dir', server.dataDir, '--config', server.configPath], { env }).catch((e) => e);
        assert.notEqual(r.code ?? 0, 0, 'refused');
        assert.match(`${r.stderr}`, /is not Countersign's plugin; nothing was changed/);
        assert.equal(readFileSync(pluginFile, 'utf8'), 'export const Mine = async () => ({});\n');
        rmSync(pluginFile);
    });

    assert.match(cli('hooks', 'install', 'opencode'), /Installed Countersign's opencode plugin/);
    const { Countersign } = await import(pathToFileURL(pluginFile).href);
    const hooks = await Countersign({ directory: ws });
    const before = (tool, args) => hooks['tool.execute.before']({ tool, sessionID: 'ses_1', callID: `call_${++ids}` }, { args });

    await check('a read inside the roots is allowed; rm -rf is held on a card and, declined, throws with the console\'s words', async () => {
        await before('read', { filePath: path.join(ws, 'notes.md') });
        const held = before('bash', { command: 'rm -rf build', description: 'clean' }).then(() => 'ran', (e) => e.message);
        const card = await waitFor('the card', async () => (await decide('list'))[0]);
        assert.equal(card.tool, 'agent:shell');
        assert.match(card.summary, /Deletes .*build: 1 file in 1 folder/);
        await decide('decline', '--nonce', card.nonce, '--reason', 'keep the build');
        assert.match(await held, /Declined by .*: keep the build/);
        assert.ok(existsSync(path.join(ws, 'build', 'out.o')));
    });

    await check('an argument in both spellings throws, with no card; apply_patch and a tool the plugin does not know are asked about', async () => {
        const both = await before('write', { filePath: path.join(work, 'elsewhere.txt'), file_path: path.join(ws, 'notes.md'), content: 'x' })
            .then(() => 'ran', (e) => e.message);
        assert.match(both, /arguments name file_path twice/);
        assert.deepEqual(await decide('list'), []);
        await before('webfetch', { url: 'http://127.0.0.1:9/' }); // returns: it changes nothing
        // opencode's apply_patch (gpt models) is a patch; a tool nobody knows asks (a card).
        const patch = before('apply_patch', { patchText: '*** Begin Patch\n*** Delete File: notes.md\n*** End Patch\n' }).then(() => 'ran', (e) => e.message);
        const patchCard = await waitFor('the patch\'s card', async () => (await decide('list'))[0]);
        assert.equal(patchCard.tool, 'agent:patch');
        await decide('decline', '--nonce', patchCard.nonce, '--reason', 'no');
        assert.match(await patch, /Declined/);
        const mystery = before('mystery_write_file', { path: 'x', content: 'y' }).then(() => 'ran', (e) => e.message);
        const mysteryCard = await waitFor('the unknown tool\'s card', async () => (await decide('list'))[0]);
        assert.equal(mysteryCard.tool, 'agent:other');
        await decide('decline', '--nonce', mysteryCard.nonce, '--reason', 'no');
        assert.match(await mystery, /Declined/);
    });

    // pi's extension, registered with a stand-in for pi's API that keeps its handlers.
    assert.match(cli('hooks', 'install', 'pi'), /Installed Countersign's pi plugin/);
    const handlers = {};
    const piExtension = (await import(pathToFileURL(path.join(home, '.pi', 'agent', 'extensions', 'countersign.js')).href)).default;
    piExtension({ on: (event, handler) => { handlers[event] = handler; } });
    const toolCall = (toolName, input) => handlers.tool_call({ type: 'tool_call', toolName, toolCallId: `call_${++ids}`, input }, { cwd: ws });

    await check("opencode's name for this console's own MCP tool (countersign_write_file) is not asked about twice; a name that is not one of its tools, or another server's, is", async () => {
        await before('countersign_write_file', { path: 'notes2.md', content: 'x' }); // gated as the MCP call itself
        assert.deepEqual(await decide('list'), []);
        for (const tool of ['countersign_no_such_tool', 'countersignx_write_file']) {
            const held = before(tool, { path: 'notes2.md' }).then(() => 'ran', (e) => e.message);
            const card = await waitFor('the card', async () => (await decide('list'))[0]);
            await decide('decline', '--nonce', card.nonce, '--reason', 'not this console\'s');
            assert.match(await held, /not this console's/);
        }
    });

    await check('pi: a read runs; rm -rf declined blocks with the console\'s words; an edit list beside a top-level edit blocks with no card', async () => {
        assert.equal(await toolCall('read', { path: path.join(ws, 'notes.md') }), undefined);
        const held = toolCall('bash', { command: 'rm -rf build' });
        const card = await waitFor('the card', async () => (await decide('list'))[0]);
        assert.equal(card.tool, 'agent:shell');
        await decide('decline', '--nonce', card.nonce, '--reason', 'not the build');
        const answer = await held;
        assert.equal(answer?.block, true, JSON.stringify(answer));
        assert.match(answer.reason, /Declined by .*: not the build/);
        const both = await toolCall('edit', { path: path.join(ws, 'notes.md'), edits: [{ oldText: 'notes', newText: 'x' }], oldText: 'notes', newText: 'y' });
        assert.equal(both?.block, true);
        assert.match(both.reason, /both an edits list and a top-level edit/);
        assert.deepEqual(await decide('list'), []);
        assert.ok(existsSync(path.join(ws, 'build', 'out.o')));
    });

    await check('the console gone: every known tool of either agent is stopped, nothing is allowed', async () => {
        await server.stop();
        for (const [tool, args] of [['read', { filePath: path.join(ws, 'notes.md') }], ['bash', { command: 'echo hi' }]]) {
            const r = await before(tool, args).then(() => 'ran', (e) => e.message);
            assert.notEqual(r, 'ran', `${tool} must not run with the console gone`);
        }
        const blocked = await toolCall('read', { path: path.join(ws, 'notes.md') });
        assert.equal(blocked?.block, true, JSON.stringify(blocked));
    });

    await check('remove deletes only its own plugin', async () => {
        assert.match(cli('hooks', 'remove', 'opencode'), /Removed Countersign's opencode plugin/);
        assert.equal(existsSync(pluginFile), false);
        assert.match(cli('hooks', 'remove', 'pi'), /Removed Countersign's pi plugin/);
        assert.equal(existsSync(path.join(home, '.pi', 'agent', 'extensions', 'countersign.js')), false);
    });
} finally {
    await server.stop().catch(() => {});
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
