#!/usr/bin/env node
// Policy changes against whoever can write the configuration (issue 12, "Policy opens silently"):
// an edit from ask to allow took effect about 250 ms later, with one stderr line and no audit event.
// Headless, a widening edit is held (only a window accepts it) and says so, across restarts too; a
// narrowing edit applies at once; both are audit events. A configuration file created after the
// start, in a folder that did not exist, is read; so is one in a folder renamed and made again
// (issue 25). Real binary, real config file and its watcher, raw HTTP.
//   node policy.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '../peer/checks.mjs';
import { callTool, check, decide, exitWithSummary, startCountersign, textOf } from './attacker.mjs';

const [binary, decideBinary] = process.argv.slice(2);
if (!binary || !decideBinary) { console.error('usage: policy.mjs COUNTERSIGN_BINARY DECIDE_BINARY'); process.exit(1); }

const work = mkdtempSync(path.join(tmpdir(), 'countersign-sec-policy-'));
const marker = (name) => path.join(work, `touched-${name}`);
const action = {
    name: 'touch_marker', title: 'Touch a marker file', risk: 'medium', workingDirectory: work,
    inputSchema: { type: 'object', properties: { name: { type: 'string', pattern: '^[a-z0-9-]+$' } }, required: ['name'], additionalProperties: false },
    plan: ['sh', '-c', 'echo "would touch touched-$1"', 'plan', '{name}'],
    apply: ['sh', '-c', 'touch "touched-$1"; echo touched "$1"', 'apply', '{name}'],
};
const base = { keyStore: 'file', pollWindowSeconds: 1, actions: [action] };
const allowRule = { tool: 'touch_marker', decision: 'allow' };
const denyRule = { tool: 'touch_marker', arguments: { name: 'prod-*' }, decision: 'deny', reason: 'production' };

let server = await startCountersign(binary, { config: base, tokenName: 'agent' });
const configPath = path.join(server.dir, 'config.json');
// The file edited as another process of the user would, then the watcher's debounce waited out.
async function rewriteConfig(config) {
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    await new Promise((r) => setTimeout(r, 1500));
}
const touch = (name) => callTool(server, 'touch_marker', { name });
const asked = (r) => r.result?.resultType === 'input_required';
const ranWithoutCard = (r) => r.result?.resultType === 'complete' && r.result.isError !== true;
const auditEvents = () => execFileSync('sqlite3', ['-cmd', '.timeout 5000', path.join(server.dataDir, 'countersign.db'),
    'SELECT event FROM audit_log ORDER BY seq']).toString().split('\n').filter(Boolean);
const declineAll = async () => {
    for (const card of await decide(server, decideBinary, 'list', '--wait-ms', '0'))
        await decide(server, decideBinary, 'decline', '--nonce', card.nonce, '--reason', 'test clean-up');
};

try {
    await check('before any edit: the gated action asks (no rule, default ask)', async () => {
        const r = await touch('before');
        assert.ok(asked(r), JSON.stringify(r));
        assert.ok(!existsSync(marker('before')));
        await declineAll();
    });

    await check('an allow rule written into the config while serving headless: the call still asks, stderr says it is held', async () => {
        await rewriteConfig({ ...base, rules: [allowRule] });
        const r = await touch('widened');
        assert.ok(asked(r), `the widening is not in force: ${JSON.stringify(r)}`);
        await new Promise((res) => setTimeout(res, 300));
        assert.ok(!existsSync(marker('widened')), 'nothing ran');
        assert.match(server.stderr(), /widens what runs without a human \(.*\); with no window to accept it in, it is held, and the configuration accepted last stays in force until it is accepted in Countersign's window/);
        assert.doesNotMatch(server.stderr(), /configuration reloaded/, 'the widening was not applied');
        await declineAll();
    });

    await check('a deny rule written into the config (narrowing): applies at once, the call is denied and nothing runs', async () => {
        await rewriteConfig({ ...base, rules: [denyRule] });
        const r = await touch('prod-db');
        assert.equal(r.result?.isError, true, JSON.stringify(r));
        assert.match(textOf(r), /^Denied by Countersign policy.*production.*Nothing was run\./);
        assert.ok(!existsSync(marker('prod-db')));
        assert.match(server.stderr(), /configuration reloaded from/);
        // The rest of the policy is what it was: still ask, not the allow that waits.
        const other = await touch('staging');
        assert.ok(asked(other), JSON.stringify(other));
        await declineAll();
    });

    await check('both edits are in the audit log: policy-widening-waiting and policy-narrowed', async () => {
        const events = auditEvents();
        assert.ok(events.includes('policy-widening-waiting'), events.join(' '));
        assert.ok(events.includes('policy-narrowed'), events.join(' '));
        assert.ok(events.indexOf('policy-widening-waiting') < events.indexOf('policy-narrowed'), 'in the order they happened');
        const verified = execFileSync(binary, ['audit', 'verify', '--data-dir', server.dataDir]).toString();
        assert.match(verified, /intact/);
    });

    await check('after a restart on the same folder: the widening written before it is still held, recorded and said; the call asks, the deny holds', async () => {
        await rewriteConfig({ ...base, rules: [denyRule, allowRule] });
        const waiting = await touch('still-waiting');
        assert.ok(asked(waiting), `still waiting before the restart: ${JSON.stringify(waiting)}`);
        await declineAll();
        const heldBefore = auditEvents().filter((e) => e === 'policy-widening-waiting').length;
        await server.stop({ keepFiles: true });
        assert.deepEqual(JSON.parse(readFileSync(configPath, 'utf8')).rules, [denyRule, allowRule]);
        server = await startCountersign(binary, { restartOf: server });
        // Not silently, and not applied: the start records it and says what runs.
        assert.equal(auditEvents().filter((e) => e === 'policy-widening-waiting').length, heldBefore + 1, auditEvents().join(' '));
        assert.ok(!auditEvents().includes('policy-widened-at-start'), auditEvents().join(' '));
        assert.match(server.stderr(), /widens what runs without a human \(rule tool touch_marker: none → allow\); with no window to accept it in, it is held/);
        const r = await touch('after-restart');
        assert.ok(asked(r), `the widening is not in force after the restart: ${JSON.stringify(r)}`);
        await new Promise((res) => setTimeout(res, 300));
        assert.ok(!existsSync(marker('after-restart')), 'nothing ran');
        await declineAll();
        const denied = await touch('prod-web');
        assert.equal(denied.result?.isError, true, JSON.stringify(denied));
        assert.ok(!existsSync(marker('prod-web')));
    });

    await check('a configuration file created after the start, in a folder that did not exist: read and judged at once; a renamed folder made again: read too', async () => {
        const late = await startCountersign(binary, { config: null, configAt: 'later/countersign/config.json', tokenName: 'late' });
        try {
            const events = () => execFileSync('sqlite3', ['-cmd', '.timeout 5000', path.join(late.dataDir, 'countersign.db'),
                'SELECT event FROM audit_log ORDER BY seq']).toString().split('\n').filter(Boolean);
            // A shorter TTL narrows the defaults: it applies at once.
            mkdirSync(path.dirname(late.configPath), { recursive: true });
            writeFileSync(late.configPath, JSON.stringify({ keyStore: 'file', ttlSeconds: 60 }));
            await waitFor('the new file read', () => /configuration reloaded from .*later\/countersign\/config\.json/.test(late.stderr()), 5000, () => late.stderr());
            assert.ok(events().includes('policy-narrowed'), events().join(' '));
            // The folder renamed away and made again, its file with a longer TTL (a widening): held.
            renameSync(path.dirname(late.configPath), `${path.dirname(late.configPath)}.old`);
            mkdirSync(path.dirname(late.configPath));
            writeFileSync(late.configPath, JSON.stringify({ keyStore: 'file', ttlSeconds: 600 }));
            await waitFor('the widening seen', () => /\(ttlSeconds: 60 → 600\); with no window to accept it in, it is held/.test(late.stderr()), 5000, () => late.stderr());
            assert.ok(events().includes('policy-widening-waiting'), events().join(' '));
        } finally {
            await late.stop();
        }
    });
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
