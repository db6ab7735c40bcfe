// An OTLP/HTTP receiver of the tests' own, on plain node:http: records every request (method, path,
// headers, body as text and as JSON) and answers as its mode says: 'ok' (200 and {}), 'error'
// (500), 'garbage' (bytes that are not HTTP, then the connection closed) or 'silent' (reads the
// request and never answers). The mode may be changed while it runs.
import http from 'node:http';

export async function startOtlpReceiver({ mode = 'ok' } = {}) {
    const requests = [];
    const receiver = { mode, requests };
    const server = http.createServer((req, res) => {
        const chunks = [];
        req.on('data', (chunk) => chunks.push(chunk));
        req.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body = null;
            try { body = JSON.parse(text); } catch { /* recorded as text */ }
            requests.push({ method: req.method, url: req.url, headers: req.headers, text, body });
            if (receiver.mode === 'ok') {
                res.writeHead(200, { 'Content-Type': 'application/json' });
                res.end('{}');
            } else if (receiver.mode === 'error') {
                res.writeHead(500, { 'Content-Type': 'text/plain' });
                res.end('the collector is broken');
            } else if (receiver.mode === 'garbage') {
                res.socket.end(Buffer.from([0, 0xff, 0xfe, 0x7b, 0x0d, 0x0a, 0x0d, 0x0a]));
            } // 'silent': no answer at all
        });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${server.address().port}/v1/traces`;
    // Every span received, each with the resource it came under.
    receiver.spans = () => requests.flatMap((r) => (r.body?.resourceSpans ?? []).flatMap((rs) =>
        (rs.scopeSpans ?? []).flatMap((ss) => (ss.spans ?? []).map((span) => ({ ...span, resource: rs.resource, scope: ss.scope })))));
    receiver.close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); });
    return receiver;
}

// An attribute's value (string, int as its decimal string, or bool); undefined when absent.
export function attr(owner, key) {
    const a = (owner?.attributes ?? []).find((x) => x.key === key);
    return a ? (a.value.stringValue ?? a.value.intValue ?? a.value.boolValue) : undefined;
}
