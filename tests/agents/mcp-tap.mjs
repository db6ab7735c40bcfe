// A transparent tap between an agent CLI and the console's /mcp: every request and response passes
// through unchanged (event streams byte for byte as they arrive, a client's disconnect passed on),
// and the JSON-RPC messages in both directions are recorded with the time they passed. From them:
// which era the client opens with, what it declares, what the server sends it while a call waits
// (input_required rounds, elicitation/create, progress), what it answers, and when the result of
// each tools/call reached it.
//
//   const tap = await startTap('http://127.0.0.1:PORT/mcp', { log, label });
//   tap.url          give this to the client
//   tap.messages     [{ at, dir: 'c2s' | 's2c', http, status, msg, request }]; request links a
//                    response to its request's message
//   tap.calls()      each tools/call: { id, at, answeredAt, ms, result, progress, elicitations, ... }
//   tap.summary()    the facts for the clients table
import { request as httpRequest, createServer } from 'node:http';

export function startTap(target, { log = () => {}, label = 'tap' } = {}) {
    const upstream = new URL(target);
    const started = Date.now();
    const messages = [];
    const requests = []; // each HTTP exchange: { at, method, status, contentType, ended, closedByClient }
    const say = (line) => log(`${label} +${((Date.now() - started) / 1000).toFixed(3)}s ${line}`);
    const pendingById = new Map(); // JSON-RPC id (client to server) -> its request message

    function record(dir, msg, exchange) {
        const entry = { at: Date.now(), dir, http: exchange.method, status: exchange.status, msg };
        if (dir === 'c2s' && msg.method && msg.id !== undefined) pendingById.set(`c:${msg.id}`, entry);
        if (dir === 's2c' && msg.method && msg.id !== undefined) pendingById.set(`s:${msg.id}`, entry);
        if (!msg.method && msg.id !== undefined) entry.request = pendingById.get(`${dir === 's2c' ? 'c' : 's'}:${msg.id}`) ?? null;
        messages.push(entry);
        say(`${dir === 'c2s' ? '→' : '←'} ${describe(msg, entry.request)}`);
    }

    const server = createServer((req, res) => {
        const chunks = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
            const body = Buffer.concat(chunks);
            const exchange = { at: Date.now(), method: req.method, status: null, contentType: null, ended: false, closedByClient: false };
            requests.push(exchange);
            if (body.length) {
                try {
                    const parsed = JSON.parse(body.toString('utf8'));
                    for (const m of Array.isArray(parsed) ? parsed : [parsed]) record('c2s', m, exchange);
                } catch { say(`→ ${req.method} (not JSON, ${body.length} bytes)`); }
            } else say(`→ ${req.method} ${req.url}${req.headers['mcp-session-id'] ? ' (session)' : ''}`);
            const headers = { ...req.headers, host: upstream.host };
            delete headers.connection;
            const up = httpRequest({ hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (upRes) => {
                exchange.status = upRes.statusCode;
                exchange.contentType = upRes.headers['content-type'] ?? '';
                const outHeaders = { ...upRes.headers };
                delete outHeaders.connection;
                res.writeHead(upRes.statusCode, outHeaders);
                res.flushHeaders?.();
                const sse = /text\/event-stream/.test(exchange.contentType);
                let buffer = '';
                const bodyChunks = [];
                upRes.on('data', (c) => {
                    res.write(c);
                    if (sse) {
                        buffer += c.toString('utf8');
                        let cut;
                        while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
                            const event = buffer.slice(0, cut);
                            buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
                            const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
                            if (!data) continue;
                            try { record('s2c', JSON.parse(data), exchange); } catch { say(`← event (not JSON): ${data.slice(0, 80)}`); }
                        }
                    } else bodyChunks.push(c);
                });
                upRes.on('end', () => {
                    exchange.ended = true;
                    res.end();
                    if (!sse && bodyChunks.length) {
                        const text = Buffer.concat(bodyChunks).toString('utf8');
                        try {
                            const parsed = JSON.parse(text);
                            for (const m of Array.isArray(parsed) ? parsed : [parsed]) record('s2c', m, exchange);
                        } catch { say(`← ${upRes.statusCode} ${text.slice(0, 120)}`); }
                    } else if (!sse) say(`← ${upRes.statusCode} (no body)`);
                });
                upRes.on('error', () => res.destroy());
            });
            up.on('error', (e) => { say(`upstream error: ${e.message}`); if (!res.headersSent) res.writeHead(502); res.end(); });
            // The client went away before the answer ended: so does the tap's request to the console.
            res.on('close', () => { if (!exchange.ended) { exchange.closedByClient = true; say(`✕ the client closed a ${req.method} before its answer ended`); up.destroy(); } });
            up.end(body);
        });
    });

    // The console's answers say "Keep-Alive: timeout=330" and pass through unchanged, so a client
    // keeps an idle connection that long. Node's server would close it after 5 s: a client that
    // reused it just then (a slow model step) read "other side closed", and Qwen Code, taking that
    // for a dropped server, refused to send its tool call at all. The tap keeps connections as long
    // as the console it stands for.
    server.keepAliveTimeout = 335_000;
    return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const url = `http://127.0.0.1:${server.address().port}${upstream.pathname}`;
            resolve({
                url,
                messages,
                requests,
                calls: () => toolCalls(messages),
                summary: () => summarize(messages, requests),
                close: () => new Promise((ok) => { server.closeAllConnections?.(); server.close(() => ok()); }),
            });
        });
    });
}

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';

function describe(msg, request) {
    if (msg.method) {
        const p = msg.params ?? {};
        let extra = '';
        if (msg.method === 'initialize') extra = ` ${p.protocolVersion} caps=${JSON.stringify(p.capabilities ?? {})} ${p.clientInfo?.name ?? ''}/${p.clientInfo?.version ?? ''}`;
        else if (msg.method === 'tools/call') extra = ` ${p.name}${p._meta?.[PV] ? ` (${p._meta[PV]})` : ''}${p.requestState ? ' +requestState' : ''}${p.inputResponses ? ` inputResponses=${JSON.stringify(p.inputResponses).slice(0, 160)}` : ''}${p._meta?.progressToken !== undefined ? ' +progressToken' : ''}`;
        else if (msg.method === 'elicitation/create') extra = ` mode=${p.mode ?? 'form'} ${p.url ?? ''} ${String(p.message ?? '').slice(0, 80)}`;
        else if (msg.method === 'notifications/progress') extra = ` ${p.progress}${p.total ? `/${p.total}` : ''} ${p.message ?? ''}`;
        else if (msg.method === 'notifications/cancelled') extra = ` request ${p.requestId} ${p.reason ?? ''}`;
        else if (p._meta?.[PV]) extra = ` (${p._meta[PV]})`;
        return `${msg.method}${msg.id !== undefined ? ` #${msg.id}` : ''}${extra}`;
    }
    const of = request?.msg?.method ?? '?';
    if (msg.error) return `error #${msg.id} for ${of}: ${msg.error.code} ${msg.error.message}`;
    const r = msg.result ?? {};
    if (of === 'tools/call') {
        const text = (r.content ?? []).map((c) => c.text ?? '').join(' ').replace(/\s+/g, ' ').slice(0, 160);
        return `result #${msg.id} for tools/call: ${r.resultType ?? 'complete'}${r.inputRequests ? ` inputRequests=${JSON.stringify(r.inputRequests).slice(0, 200)}` : ''}${r.isError ? ' isError' : ''} ${text}`;
    }
    if (of === 'elicitation/create') return `answer #${msg.id} to elicitation/create: ${r.action}`;
    if (of === 'initialize') return `result #${msg.id} for initialize: ${r.protocolVersion}`;
    return `result #${msg.id} for ${of}`;
}

// Each tools/call the client made, with what happened while it waited.
export function toolCalls(messages) {
    const calls = [];
    for (const m of messages) {
        if (m.dir !== 'c2s' || m.msg.method !== 'tools/call') continue;
        const answer = messages.find((x) => x.dir === 's2c' && x.request === m);
        const until = answer?.at ?? Infinity;
        const during = messages.filter((x) => x.at >= m.at && x.at <= until);
        const result = answer?.msg.result ?? null;
        calls.push({
            id: m.msg.id,
            at: m.at,
            answeredAt: answer?.at ?? null,
            ms: answer ? answer.at - m.at : null,
            era: m.msg.params?._meta?.[PV] ?? 'session',
            requestState: !!m.msg.params?.requestState,
            inputResponses: m.msg.params?.inputResponses ?? null,
            progressToken: m.msg.params?._meta?.progressToken !== undefined,
            result,
            error: answer?.msg.error ?? null,
            text: result ? (result.content ?? []).map((c) => c.text ?? '').join('\n') : '',
            resultType: result?.resultType ?? (result ? 'complete' : null),
            inputRequests: result?.inputRequests ?? null,
            progress: during.filter((x) => x.dir === 's2c' && x.msg.method === 'notifications/progress').length,
            elicitations: during.filter((x) => x.dir === 's2c' && x.msg.method === 'elicitation/create').map((x) => ({
                at: x.at, mode: x.msg.params?.mode ?? 'form', url: x.msg.params?.url ?? null,
                answer: messages.find((y) => y.dir === 'c2s' && y.request === x)?.msg ?? null,
                answeredAt: messages.find((y) => y.dir === 'c2s' && y.request === x)?.at ?? null,
            })),
            cancelled: messages.some((x) => x.dir === 'c2s' && x.msg.method === 'notifications/cancelled' && String(x.msg.params?.requestId) === String(m.msg.id)),
        });
    }
    return calls;
}

// What the clients table needs: the era it opened with, what it declared, how its calls waited.
export function summarize(messages, requests = []) {
    const first = messages.find((m) => m.dir === 'c2s' && m.msg.method);
    const init = messages.find((m) => m.dir === 'c2s' && m.msg.method === 'initialize');
    const initResult = init && messages.find((m) => m.dir === 's2c' && m.request === init);
    const discover = messages.find((m) => m.dir === 'c2s' && m.msg.method === 'server/discover');
    const modernCall = messages.find((m) => m.dir === 'c2s' && m.msg.params?._meta?.[PV]);
    const caps = modernCall ? modernCall.msg.params._meta[CAPS] ?? {} : init?.msg.params?.capabilities ?? {};
    const calls = toolCalls(messages);
    return {
        opensWith: first?.msg.method ?? null,
        discover: !!discover,
        era: modernCall ? modernCall.msg.params._meta[PV] : initResult?.msg.result?.protocolVersion ?? init?.msg.params?.protocolVersion ?? null,
        asked: init?.msg.params?.protocolVersion ?? null,
        clientInfo: init?.msg.params?.clientInfo ?? modernCall?.msg.params?._meta?.['io.modelcontextprotocol/clientInfo'] ?? null,
        capabilities: caps,
        elicitation: caps.elicitation ? Object.keys(caps.elicitation).length ? Object.keys(caps.elicitation).join('+') : 'form' : 'none',
        calls,
        cancelledNotes: messages.filter((m) => m.dir === 'c2s' && m.msg.method === 'notifications/cancelled').length,
        closedByClient: requests.filter((r) => r.closedByClient).length,
    };
}
