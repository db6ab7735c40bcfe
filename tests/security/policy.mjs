#!/usr/bin/env node
// Policy changes against whoever can write the configuration (issue 12, "Policy opens silently"):
// an edit from ask to allow took effect about 250 ms later, with one stderr line and no audit event.
// Headless, a widening edit now waits for the next start and says so; a narrowing edit applies at
// once; both are audit events. Real binary, real config file and its watcher, raw HTTP.
//   node policy.mjs COUNTERSIGN_BINARY DECIDE_BINARY
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

    await check('an allow rule written into the config while serving headless: the call still asks, stderr says it waits for a restart', async () => {
        await rewriteConfig({ ...base, rules: [allowRule] });
        const r = await touch('widened');
        assert.ok(asked(r), `the widening is not in force: ${JSON.stringify(r)}`);
        await new Promise((res) => setTimeout(res, 300));
        assert.ok(!existsSync(marker('widened')), 'nothing ran');
        assert.match(server.stderr(), /widens what runs without a human \(.*\); with no window to accept it in, it takes effect only at the next start, and the previous configuration stays in force/);
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

    await check('after a restart on the same folder: the widening written before it applies at start, recorded and warned about; the call runs without a card', async () => {
        await rewriteConfig({ ...base, rules: [denyRule, allowRule] });
        const waiting = await touch('still-waiting');
        assert.ok(asked(waiting), `still waiting before the restart: ${JSON.stringify(waiting)}`);
        await declineAll();
        await server.stop({ keepFiles: true });
        assert.deepEqual(JSON.parse(readFileSync(configPath, 'utf8')).rules, [denyRule, allowRule]);
        server = await startCountersign(binary, { restartOf: server });
        // Not silently: the start records and says that the policy it found is wider.
        assert.ok(auditEvents().includes('policy-widened-at-start'), auditEvents().join(' '));
        assert.match(server.stderr(), /changed while Countersign was stopped and now lets more run without you/);
        const r = await touch('after-restart');
        assert.ok(ranWithoutCard(r), JSON.stringify(r));
        assert.ok(existsSync(marker('after-restart')), 'the apply command ran');
        assert.deepEqual(await decide(server, decideBinary, 'list', '--wait-ms', '0'), [], 'no card');
        const denied = await touch('prod-web');
        assert.equal(denied.result?.isError, true, JSON.stringify(denied));
        assert.ok(!existsSync(marker('prod-web')));
    });
} finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
}
exitWithSummary();
