#!/usr/bin/env node
// The README and docs/design.md say what the code does (issue 27): every command and option the
// README's tables name is one the binary's --help lists, and every command --help lists is in the
// README; every key the README's "Configuration keys" names is a setting the configuration accepts
// (the real binary, given a file with that key, never says "unknown setting"), and every setting the
// code accepts is named in the README; every source file the two documents name exists.
//   node docs-match.mjs COUNTERSIGN_BINARY SOURCE_DIR
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { check, exitWithSummary } from './checks.mjs';

const [binary, source] = process.argv.slice(2);
if (!binary || !source) { console.error('usage: docs-match.mjs COUNTERSIGN_BINARY SOURCE_DIR'); process.exit(2); }
const readme = readFileSync(path.join(source, 'README.md'), 'utf8');
const design = readFileSync(path.join(source, 'docs', 'design.md'), 'utf8');
const help = spawnSync(binary, ['--help'], { encoding: 'utf8', env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' } }).stdout;
const commandsHelp = help.slice(help.indexOf('Commands:'), help.indexOf('Options:'));

// The first cell of each row of the README's table that follows a line starting with `heading`.
function tableCells(heading) {
    const start = readme.indexOf(heading);
    assert.ok(start >= 0, `no "${heading}" in the README`);
    const rows = readme.slice(start).split('\n').slice(1);
    const cells = [];
    let inTable = false;
    for (const row of rows) {
        if (row.startsWith('|')) { inTable = true; } else if (inTable) break; else continue;
        const first = row.split(/(?<!\\)\|/)[1]?.trim() ?? '';
        if (/^`/.test(first)) cells.push(first);
    }
    return cells;
}

try {
    await check('every command the README lists is in --help, and every command --help lists is in the README', async () => {
        const words = new Set();
        for (const cell of tableCells('| command |')) {
            for (const spelled of cell.match(/`[^`]+`/g) ?? []) {
                const [first, second] = spelled.slice(1, -1).split(/\s+/);
                const name = /^[a-z]+$/.test(second ?? '') ? `${first} ${second}` : first;
                words.add(name.replace(/\\\|.*$/, ''));
            }
        }
        assert.ok(words.size >= 7, [...words].join(', '));
        for (const word of words)
            assert.ok(new RegExp(`^  ${word.replace(/[-]/g, '\\$&')}\\b`, 'm').test(commandsHelp), `--help does not list "${word}":\n${commandsHelp}`);
        for (const line of commandsHelp.split('\n').filter((l) => /^  [a-z]/.test(l))) {
            const name = line.trim().split(/\s+/)[0];
            assert.ok(readme.includes(`\`${name}`), `the README does not name the command "${name}"`);
        }
    });

    await check('every option the README lists is one the binary takes', async () => {
        const options = tableCells('| option |').flatMap((cell) => cell.match(/--[a-z-]+/g) ?? []);
        assert.ok(options.length >= 6, options.join(', '));
        for (const option of options) assert.ok(help.includes(option), `--help does not list ${option}`);
    });

    await check('every key of "Configuration keys" is a setting the configuration takes, and every setting is in the README', async () => {
        const paragraph = readme.slice(readme.indexOf('Configuration keys:'), readme.indexOf('A bad file is refused'));
        const keys = [...new Set((paragraph.match(/`[a-zA-Z]+`/g) ?? []).map((k) => k.slice(1, -1)))]
            .filter((k) => !['standard', 'strict', 'keychain', 'file'].includes(k));
        assert.ok(keys.length >= 12, keys.join(', '));
        const work = mkdtempSync(path.join(tmpdir(), 'countersign-docs-'));
        for (const key of keys) {
            const config = path.join(work, `${key}.json`);
            writeFileSync(config, JSON.stringify({ [key]: { 'not-a-value': true } }));
            const r = spawnSync(binary, ['token', 'list', '--config', config, '--data-dir', path.join(work, 'data')], { encoding: 'utf8' });
            assert.doesNotMatch(r.stderr + r.stdout, /unknown setting/, `"${key}" is documented but not a setting`);
        }
        const accepted = [...readFileSync(path.join(source, 'shared', 'config', 'config.cpp'), 'utf8').matchAll(/key == "([A-Za-z]+)"/g)].map((m) => m[1]);
        assert.ok(accepted.length >= 15, accepted.join(', '));
        for (const key of new Set(accepted)) assert.ok(readme.includes(`\`${key}\``) || readme.includes(`"${key}"`), `the setting "${key}" is not in the README`);
    });

    await check('every source file the README and docs/design.md name exists', async () => {
        const named = [...`${readme}\n${design}`.matchAll(/`((?:app|server|shared|ui|tests|packaging|docs)\/[A-Za-z0-9_./-]+\.(?:cpp|h|mjs|sh|md|json))`/g)].map((m) => m[1]);
        assert.ok(named.length >= 10, named.join(', '));
        for (const file of new Set(named)) assert.ok(existsSync(path.join(source, file)), `${file} is named but does not exist`);
    });
} finally {
    exitWithSummary();
}
