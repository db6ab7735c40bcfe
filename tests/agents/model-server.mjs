// A scripted model for the real agent CLIs: one small HTTP server on 127.0.0.1 (port 0) that answers
// each client's model API in the client's own wire format, and makes the agent call one MCP tool.
//
//   Anthropic Messages        POST /v1/messages (streaming SSE or not), /v1/messages/count_tokens   Claude Code
//   Gemini                    POST /v1beta/models/M:generateContent | :streamGenerateContent | :countTokens   Gemini CLI
//   OpenAI Responses          POST /v1/responses (streaming SSE or not)                            Codex
//   OpenAI Chat Completions   POST /v1/chat/completions (streaming or not)                         opencode, Qwen Code
//   GET /v1/models and other side endpoints get a short, sane answer.
//
// The script, the same for every API: on a model request that offers the named MCP tool (by the
// client's own name for it, found in the tool list the request carries: mcp__cs__write_file,
// mcp_cs_write_file, cs_write_file, ...), answer with a call to it with the given arguments. When
// the conversation carries the tool's result back, record it (the time it first arrived, its text,
// its structured parts) and, if it says the call is still waiting ("call again with the same
// arguments", a client's own timeout), call again with the same arguments (at most maxCalls calls);
// otherwise answer a final text. The decision is made from the conversation the request carries
// (the k-th result answers the k-th call), so a client that repeats a model request gets the same
// answer. Any other model request (a title, a summary, a next-speaker check) gets a short text, or,
// when it asks for JSON with a schema, the smallest object that schema accepts.
//
//   const model = await startModelServer({ tool: 'write_file', server: 'cs', args: { path, content } });
//   (or steps: [args1, args2, ...]: each called until it settles, then the next)
//   model.urls.anthropic / .gemini / .openai   the base URLs to give each client
//   model.results, model.calls, model.requests  what it saw (times are Date.now() values)
//   await model.waitFor((m) => m.results.length > 0, 60000)
//   await model.close()
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';

// A result that asks to be called again: Countersign's "still waiting" text, and the clients' own
// time-outs (the model calling again is what a real model does with them).
export const STILL_WAITING = /again with the same arguments|still required input|timed? ?out|request timeout|-32001|still (pending|waiting)|aborted/i;
// A result that ends the script whatever else it says.
export const SETTLED = /Declined by|Approval expired|Denied by Countersign|^wrote |\bwrote \S|superseded|Outcome unknown|revoked/i;

export function startModelServer({
    tool = 'write_file',
    server = 'cs',
    exactTool = null, // a client's own tool by its exact name (Bash, run_shell_command), not an MCP one;
                      // or a list of them: a session, each step { tool, args } calling its own tool
    args = {},
    steps = [args], // several calls in a row: each called until it settles, then the next
    maxCalls = 20,
    isPending = (text) => STILL_WAITING.test(text) && !SETTLED.test(text),
    finalText = 'Done: the tool call has finished.',
    sideText = 'OK.',
    log = (line) => process.stderr.write(`${line}\n`),
    label = 'model',
} = {}) {
    const started = Date.now();
    const state = {
        requests: [], // { at, api, path, stream, offered: [names], matched, answer }
        calls: [], // { n, at, api, name, id }
        results: [], // { n, at, api, text, structured, isError, raw }
        unknown: [], // requests to endpoints this server does not know
        toolNames: new Set(), // every tool name any request offered
        toolSearches: [], // { at, api, query }: the tool was deferred behind the client's tool search
    };
    const say = (line) => log(`${label} +${((Date.now() - started) / 1000).toFixed(3)}s ${line}`);
    const waiters = new Set();
    let dumped = 0;
    const notify = () => { for (const w of waiters) w(); };

    // The client's own name for the tool, among the names offered.
    const escaped = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const named = new RegExp(`(^|[^a-z0-9])${escaped(server)}[^a-z0-9]+${escaped(tool)}$`, 'i');
    const session = Array.isArray(exactTool) ? new Set(exactTool) : null;
    const matchTool = (names) => names.find((n) => (session ? session.has(n) : exactTool ? n === exactTool : named.test(n))) ?? null;
    // Whether a call in the conversation is one of the script's (its result counts).
    const ours = (name, toolName) => (session ? session.has(name) : name === toolName);

    // Decides the next answer from the results the conversation carries. results: [{ text, structured,
    // isError, raw }] in order; records the ones not seen before (with the step each answers).
    function decide(api, toolName, results) {
        let step = 0;
        let inStep = 0; // calls of this step that were answered "still waiting"
        results.forEach((r, k) => {
            const pending = isPending(r.text);
            if (k >= state.results.length) {
                const entry = { n: k + 1, step, at: Date.now(), api, pending, ...r };
                state.results.push(entry);
                say(`${api}: result #${entry.n} (step ${step + 1})${r.isError ? ' (isError)' : ''}${pending ? ' (still waiting)' : ''}: ${oneLine(r.text, 400)}`);
            }
            if (pending) inStep++; else { step++; inStep = 0; }
        });
        if (results.length) notify();
        if (step < steps.length && inStep < maxCalls) {
            const n = results.length + 1;
            const id = `call_${n}_${Math.random().toString(36).slice(2, 10)}`;
            const name = session ? steps[step].tool : toolName;
            const args = session ? steps[step].args : steps[step];
            if (n > state.calls.length) {
                state.calls.push({ n, step, at: Date.now(), api, name, id, args });
                notify();
            }
            say(`${api}: tool call #${n} (step ${step + 1}) ${name}(${oneLine(JSON.stringify(args), 200)})`);
            return { kind: 'call', name, id, args };
        }
        say(`${api}: final text after ${results.length} result(s)${inStep >= maxCalls ? `: gave up after ${maxCalls} calls` : ''}`);
        return { kind: 'text', text: finalText };
    }

    function sideAnswer(api, schema) {
        if (schema) {
            const value = fromSchema(schema);
            say(`${api}: side request asking for JSON: ${oneLine(JSON.stringify(value), 200)}`);
            return { kind: 'text', text: JSON.stringify(value) };
        }
        say(`${api}: side request: "${sideText}"`);
        return { kind: 'text', text: sideText };
    }

    // ---- Anthropic Messages -------------------------------------------------------------------
    function anthropic(body, res, path) {
        if (/\/count_tokens/.test(path)) return json(res, 200, { input_tokens: approxTokens(body) });
        const names = (body.tools ?? []).map((t) => t.name).filter(Boolean);
        const toolName = matchTool(names);
        let answer;
        if (toolName) {
            const results = [];
            const ids = new Map();
            for (const m of body.messages ?? []) {
                if (!Array.isArray(m.content)) continue;
                for (const b of m.content) {
                    if (m.role === 'assistant' && b.type === 'tool_use' && ours(b.name, toolName)) ids.set(b.id, true);
                    if (m.role === 'user' && b.type === 'tool_result' && ids.has(b.tool_use_id)) {
                        results.push({ text: flatten(b.content), structured: b.content, isError: !!b.is_error, raw: b });
                    }
                }
            }
            answer = decide('anthropic', toolName, results);
        } else answer = sideAnswer('anthropic', body.output_format?.schema ?? body.output_config?.format?.schema);
        record('anthropic', path, body, names, toolName, answer);
        const id = `msg_${Math.random().toString(36).slice(2, 12)}`;
        const model = body.model ?? 'claude-sonnet-4-5';
        const usage = { input_tokens: approxTokens(body), output_tokens: 8, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
        const block = answer.kind === 'call'
            ? { type: 'tool_use', id: `toolu_${answer.id}`, name: answer.name, input: answer.args }
            : { type: 'text', text: answer.text };
        const stop = answer.kind === 'call' ? 'tool_use' : 'end_turn';
        if (!body.stream) {
            return json(res, 200, { id, type: 'message', role: 'assistant', model, content: [block], stop_reason: stop, stop_sequence: null, usage });
        }
        sse(res);
        const ev = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        ev('message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
        if (answer.kind === 'call') {
            ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
            ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(answer.args) } });
        } else {
            ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
            ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: answer.text } });
        }
        ev('content_block_stop', { type: 'content_block_stop', index: 0 });
        ev('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 8 } });
        ev('message_stop', { type: 'message_stop' });
        res.end();
    }

    // ---- Gemini generateContent ---------------------------------------------------------------
    function gemini(body, res, path) {
        const m = /\/models\/([^/:]+):(\w+)/.exec(path);
        const model = m?.[1] ?? 'gemini-2.5-pro';
        const method = m?.[2] ?? 'generateContent';
        if (method === 'countTokens') return json(res, 200, { totalTokens: approxTokens(body) });
        if (method === 'embedContent') return json(res, 200, { embedding: { values: [0, 0, 0] } });
        const names = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name).filter(Boolean);
        const toolName = matchTool(names);
        let answer;
        if (toolName) {
            const results = [];
            for (const c of body.contents ?? []) {
                for (const p of c.parts ?? []) {
                    if (p.functionResponse && ours(p.functionResponse.name, toolName)) {
                        const r = p.functionResponse.response ?? {};
                        results.push({ text: flatten(r), structured: r, isError: 'error' in r, raw: p.functionResponse });
                    }
                }
            }
            answer = decide('gemini', toolName, results);
        } else {
            const g = body.generationConfig ?? body.config ?? {};
            answer = sideAnswer('gemini', g.responseJsonSchema ?? g.responseSchema ?? (g.responseMimeType === 'application/json' ? {} : null));
        }
        record('gemini', path, body, names, toolName, answer);
        const part = answer.kind === 'call' ? { functionCall: { id: answer.id, name: answer.name, args: answer.args } } : { text: answer.text };
        const chunk = {
            candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
            usageMetadata: { promptTokenCount: approxTokens(body), candidatesTokenCount: 8, totalTokenCount: approxTokens(body) + 8 },
            modelVersion: model,
            responseId: `resp_${Math.random().toString(36).slice(2, 12)}`,
        };
        if (method !== 'streamGenerateContent') return json(res, 200, chunk);
        sse(res);
        res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
        res.end();
    }

    // ---- OpenAI Responses ---------------------------------------------------------------------
    // Tools are { type: 'function', name } or grouped ({ type: 'namespace', name, tools: [...] }).
    function responseToolNames(tools) {
        const out = [];
        for (const t of tools ?? []) {
            if (Array.isArray(t.tools)) for (const n of responseToolNames(t.tools)) { out.push(n); if (t.name) out.push(`${t.name}${t.name.endsWith('_') ? '' : '__'}${n}`); }
            else if (t.name) out.push(t.name);
            else if (t.function?.name) out.push(t.function.name);
        }
        return out;
    }
    // For a namespaced tool, the namespace and the tool's own name, as the call must carry them.
    function responseCallName(tools, matched) {
        for (const t of tools ?? []) {
            if (!Array.isArray(t.tools)) continue;
            for (const inner of t.tools) {
                const n = inner.name ?? inner.function?.name;
                if (n && (`${t.name}${t.name.endsWith('_') ? '' : '__'}${n}` === matched)) return { namespace: t.name, name: n };
            }
        }
        return { name: matched };
    }
    function responses(body, res, path) {
        const input = Array.isArray(body.input) ? body.input : [];
        // Tools a client-side tool search brought in (Codex defers MCP tools behind tool_search
        // for models that support it): they count as offered.
        const searched = input.filter((i) => i.type === 'tool_search_output').flatMap((i) => i.tools ?? []);
        const tools = [...(body.tools ?? []), ...searched];
        const names = responseToolNames(tools);
        const toolName = matchTool(names);
        let answer;
        let call = null;
        if (toolName) {
            call = responseCallName(tools, toolName);
            const ids = new Set();
            const results = [];
            for (const item of input) {
                if ((item.type === 'function_call' || item.type === 'custom_tool_call') && (item.name === call.name || ours(item.name, toolName))) ids.add(item.call_id);
                if ((item.type === 'function_call_output' || item.type === 'custom_tool_call_output') && ids.has(item.call_id)) {
                    const out = item.output;
                    let structured = out;
                    if (typeof out === 'string') { try { structured = JSON.parse(out); } catch { /* text */ } }
                    results.push({ text: flatten(structured), structured, isError: /"?isError"?\s*[:=]\s*true|"success"\s*:\s*false/.test(typeof out === 'string' ? out : JSON.stringify(out)), raw: item });
                }
            }
            answer = decide('responses', toolName, results);
            if (session && answer.kind === 'call') call = responseCallName(tools, answer.name);
        } else if ((body.tools ?? []).some((t) => t.type === 'tool_search') && !input.some((i) => i.type === 'tool_search_call')) {
            // What a model does when the tool it wants is deferred: search for it.
            const query = `${server} ${tool}`;
            state.toolSearches.push({ at: Date.now(), api: 'responses', query });
            say(`responses: tool_search for "${query}" (the tool is deferred)`);
            answer = { kind: 'search', id: `search_${Math.random().toString(36).slice(2, 10)}`, query };
        } else answer = sideAnswer('responses', body.text?.format?.schema);
        record('responses', path, body, names, toolName, answer);
        const respId = `resp_${Math.random().toString(36).slice(2, 12)}`;
        const model = body.model ?? 'gpt-5';
        // A freeform tool (Codex's apply_patch for some models: "type": "custom") is called with its
        // raw input text, args.input.
        const custom = answer.kind === 'call' && tools.some((t) => t.type === 'custom' && t.name === call.name);
        const item = custom
            ? { type: 'custom_tool_call', id: `ctc_${answer.id}`, call_id: answer.id, name: call.name, input: String(answer.args.input ?? ''), status: 'completed' }
            : answer.kind === 'call'
            ? { type: 'function_call', id: `fc_${answer.id}`, call_id: answer.id, name: call.name, ...(call.namespace ? { namespace: call.namespace } : {}), arguments: JSON.stringify(answer.args), status: 'completed' }
            : answer.kind === 'search'
                ? { type: 'tool_search_call', id: `tsc_${answer.id}`, call_id: answer.id, status: 'completed', execution: 'client', arguments: { query: answer.query, limit: 8 } }
                : { type: 'message', id: `msg_${respId}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: answer.text, annotations: [] }] };
        const usage = { input_tokens: approxTokens(body), input_tokens_details: { cached_tokens: 0 }, output_tokens: 8, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: approxTokens(body) + 8 };
        const response = { id: respId, object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'completed', model, output: [item], usage };
        if (!body.stream) return json(res, 200, response);
        sse(res);
        let seq = 0;
        const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
        ev('response.created', { response: { ...response, status: 'in_progress', output: [] } });
        ev('response.in_progress', { response: { ...response, status: 'in_progress', output: [] } });
        ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } });
        if (answer.kind === 'text') {
            ev('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: answer.text });
            ev('response.output_text.done', { item_id: item.id, output_index: 0, content_index: 0, text: answer.text });
        } else if (custom) {
            ev('response.custom_tool_call_input.delta', { item_id: item.id, output_index: 0, delta: item.input });
            ev('response.custom_tool_call_input.done', { item_id: item.id, output_index: 0, input: item.input });
        } else if (answer.kind === 'call') {
            ev('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: item.arguments });
            ev('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: item.arguments });
        }
        ev('response.output_item.done', { output_index: 0, item });
        ev('response.completed', { response });
        res.end();
    }

    // ---- OpenAI Chat Completions --------------------------------------------------------------
    function chat(body, res, path) {
        const names = (body.tools ?? []).map((t) => t.function?.name ?? t.name).filter(Boolean);
        const toolName = matchTool(names);
        let answer;
        if (toolName) {
            const ids = new Set();
            const results = [];
            for (const m of body.messages ?? []) {
                if (m.role === 'assistant') for (const c of m.tool_calls ?? []) if (ours(c.function?.name, toolName)) ids.add(c.id);
                if (m.role === 'tool' && ids.has(m.tool_call_id)) {
                    let structured = m.content;
                    if (typeof structured === 'string') { try { structured = JSON.parse(structured); } catch { /* text */ } }
                    results.push({ text: flatten(structured), structured, isError: false, raw: m });
                }
            }
            answer = decide('chat', toolName, results);
        } else answer = sideAnswer('chat', body.response_format?.json_schema?.schema ?? (body.response_format?.type === 'json_object' ? {} : null));
        record('chat', path, body, names, toolName, answer);
        const id = `chatcmpl-${Math.random().toString(36).slice(2, 12)}`;
        const model = body.model ?? 'gpt-4o';
        const created = Math.floor(Date.now() / 1000);
        const usage = { prompt_tokens: approxTokens(body), completion_tokens: 8, total_tokens: approxTokens(body) + 8 };
        const toolCall = answer.kind === 'call' ? { id: answer.id, type: 'function', function: { name: answer.name, arguments: JSON.stringify(answer.args) } } : null;
        const finish = toolCall ? 'tool_calls' : 'stop';
        if (!body.stream) {
            const message = toolCall ? { role: 'assistant', content: null, tool_calls: [toolCall] } : { role: 'assistant', content: answer.text };
            return json(res, 200, { id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
        }
        sse(res);
        const chunk = (choices, extra = {}) => res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`);
        if (toolCall) chunk([{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, ...toolCall }] }, finish_reason: null }]);
        else chunk([{ index: 0, delta: { role: 'assistant', content: answer.text }, finish_reason: null }]);
        chunk([{ index: 0, delta: {}, finish_reason: finish }]);
        if (body.stream_options?.include_usage) chunk([], { usage });
        res.write('data: [DONE]\n\n');
        res.end();
    }

    function record(api, path, body, offered, matched, answer) {
        for (const n of offered) state.toolNames.add(n);
        state.requests.push({ at: Date.now(), api, path, stream: !!body.stream, model: body.model, offered, matched, answer: answer.kind === 'call' ? `call ${answer.name}` : answer.kind });
        notify();
    }

    const http = createServer((req, res) => {
        const chunks = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            let body = {};
            if (raw) { try { body = JSON.parse(raw); } catch { body = {}; } }
            const url = new URL(req.url, 'http://x');
            const path = url.pathname;
            // COUNTERSIGN_AGENTS_DUMP=DIR: every model request's body in a file of its own there.
            if (process.env.COUNTERSIGN_AGENTS_DUMP && raw) {
                dumped++;
                writeFileSync(`${process.env.COUNTERSIGN_AGENTS_DUMP}/${label.replace(/\W+/g, '-')}-${String(dumped).padStart(3, '0')}.json`, raw);
            }
            try {
                if (req.method === 'POST' && /\/messages(\/count_tokens)?$/.test(path)) return anthropic(body, res, path);
                if (req.method === 'POST' && /\/models\/[^/]+:\w+$/.test(path)) return gemini(body, res, path + url.search);
                if (req.method === 'POST' && /\/responses$/.test(path)) return responses(body, res, path);
                if (req.method === 'POST' && /\/chat\/completions$/.test(path)) return chat(body, res, path);
                if (req.method === 'GET' && /\/models$/.test(path)) {
                    say(`GET ${path}: an empty model list`);
                    return json(res, 200, { object: 'list', data: [], models: [] });
                }
                state.unknown.push({ at: Date.now(), method: req.method, path: req.url });
                say(`unknown ${req.method} ${req.url}: 404`);
                return json(res, 404, { error: { type: 'not_found_error', message: `no ${req.method} ${path} here` } });
            } catch (e) {
                say(`error answering ${req.method} ${req.url}: ${e?.stack ?? e}`);
                if (!res.headersSent) json(res, 500, { error: { message: String(e) } }); else res.end();
            }
        });
    });

    return new Promise((resolve, reject) => {
        http.once('error', reject);
        http.listen(0, '127.0.0.1', () => {
            const base = `http://127.0.0.1:${http.address().port}`;
            say(`listening on ${base}`);
            resolve({
                url: base,
                urls: { anthropic: base, gemini: base, openai: `${base}/v1` },
                get requests() { return state.requests; },
                get calls() { return state.calls; },
                get results() { return state.results; },
                get unknown() { return state.unknown; },
                get toolNames() { return [...state.toolNames]; },
                get toolSearches() { return state.toolSearches; },
                // Resolves with predicate(model) once it is truthy (asked at each request and every
                // 100 ms, for predicates that look elsewhere too), or rejects after ms.
                waitFor(predicate, ms, what = 'the model server') {
                    return new Promise((ok, fail) => {
                        const check = () => { const v = predicate(this); if (v) { done(); ok(v); } };
                        const timer = setTimeout(() => { done(); fail(new Error(`timed out after ${ms} ms waiting for ${what}`)); }, ms);
                        const poll = setInterval(check, 100);
                        const done = () => { clearTimeout(timer); clearInterval(poll); waiters.delete(check); };
                        waiters.add(check);
                        check();
                    });
                },
                close() {
                    return new Promise((ok) => { http.closeAllConnections?.(); http.close(() => ok()); });
                },
            });
        });
    });
}

// ---- helpers ----------------------------------------------------------------------------------
function json(res, status, value) {
    const body = JSON.stringify(value);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
}
function sse(res) {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
}
function approxTokens(body) {
    return Math.max(1, Math.round(JSON.stringify(body ?? {}).length / 4));
}
export function oneLine(s, max = 300) {
    const t = String(s ?? '').replace(/\s+/g, ' ').trim();
    return t.length > max ? `${t.slice(0, max)}…` : t;
}
// Every string in a result, text parts first, joined: what a model would read.
export function flatten(v) {
    const out = [];
    const walk = (x) => {
        if (x == null) return;
        if (typeof x === 'string') { out.push(x); return; }
        if (typeof x !== 'object') { out.push(String(x)); return; }
        if (Array.isArray(x)) { x.forEach(walk); return; }
        if (typeof x.text === 'string') out.push(x.text);
        for (const [k, val] of Object.entries(x)) if (k !== 'text' && k !== 'type') walk(val);
    };
    walk(v);
    return out.join('\n');
}
// The smallest value a JSON schema (or a Gemini Schema, with upper-case types) accepts.
export function fromSchema(schema) {
    if (!schema || typeof schema !== 'object') return {};
    if (schema.enum?.length) return schema.enum[0];
    if ('const' in schema) return schema.const;
    const alt = schema.anyOf ?? schema.oneOf;
    if (alt?.length) return fromSchema(alt[0]);
    const type = String(Array.isArray(schema.type) ? schema.type[0] : schema.type ?? (schema.properties ? 'object' : 'object')).toLowerCase();
    switch (type) {
    case 'object': {
        const o = {};
        for (const k of schema.required ?? Object.keys(schema.properties ?? {})) o[k] = fromSchema(schema.properties?.[k]);
        return o;
    }
    case 'array': return schema.minItems ? Array.from({ length: schema.minItems }, () => fromSchema(schema.items)) : [];
    case 'string': return 'user';
    case 'number': case 'integer': return schema.minimum ?? 0;
    case 'boolean': return false;
    case 'null': return null;
    default: return {};
    }
}
