#!/usr/bin/env node
// A loopback proxy that adds `Authorization: Bearer <token>` to every request and forwards it,
// byte for byte otherwise, to a Countersign server. Tools that cannot send headers of their own
// (the official conformance suite, raw wire probes) reach the real, authenticated server through it.
//
//   node auth-proxy.mjs --target http://127.0.0.1:PORT --token TOKEN   # prints "proxy: http://127.0.0.1:P"
import http from 'node:http';

const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const target = new URL(opt('--target') ?? '');
const token = opt('--token');
if (!token) { console.error('usage: auth-proxy.mjs --target URL --token TOKEN'); process.exit(1); }

const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    const up = http.request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers },
        (upRes) => { res.writeHead(upRes.statusCode, upRes.headers); upRes.pipe(res); });
    up.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
    req.pipe(up);
});
server.listen(0, '127.0.0.1', () => console.log(`proxy: http://127.0.0.1:${server.address().port}`));
