// Countersign's phone page: pairs this browser (a key it makes and cannot export), then shows the
// waiting cards and signs each decision with that key. Everything an agent wrote is put on the page
// as text (textContent), never as markup; the server has already marked invisible characters.
'use strict';

const $ = (id) => document.getElementById(id);
const enc = new TextEncoder();
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const fromB64url = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4)), (c) => c.charCodeAt(0));

// ---- the device, kept in IndexedDB (the private key is a CryptoKey that cannot be exported) ----
function db() {
    return new Promise((resolve, reject) => {
        const open = indexedDB.open('countersign', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('device');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
    });
}
async function loadDevice() {
    const d = await db();
    return new Promise((resolve, reject) => {
        const get = d.transaction('device').objectStore('device').get('this');
        get.onsuccess = () => resolve(get.result ?? null);
        get.onerror = () => reject(get.error);
    });
}
async function saveDevice(device) {
    const d = await db();
    return new Promise((resolve, reject) => {
        const tx = d.transaction('device', 'readwrite');
        if (device) tx.objectStore('device').put(device, 'this'); else tx.objectStore('device').delete('this');
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
    });
}

// ---- signed requests ----
let device = null;
async function signed(method, path, body) {
    const c = await fetch('/api/challenge', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ device: device.id }) });
    const given = await c.json();
    if (!c.ok) throw Object.assign(new Error(given.error ?? `challenge: ${c.status}`), { status: c.status });
    const text = body === undefined ? '' : JSON.stringify(body);
    const message = `countersign-phone-1\n${method}\n${path}\n${given.challenge}\n${text}`;
    const signature = b64url(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, device.keys.privateKey, enc.encode(message)));
    return { challenge: given.challenge, signature, text };
}
async function call(method, path, body) {
    const s = await signed(method, path, body);
    const r = await fetch(path, {
        method,
        headers: { 'Content-Type': 'application/json', 'X-Countersign-Device': device.id, 'X-Countersign-Challenge': s.challenge, 'X-Countersign-Signature': s.signature },
        body: s.text,
    });
    const out = await r.json().catch(() => ({}));
    if (!r.ok) throw Object.assign(new Error(out.error ?? `${path}: ${r.status}`), { status: r.status });
    return out;
}

// ---- pairing ----
async function pairingCode(secret, publicKey) {
    const key = await crypto.subtle.importKey('raw', fromB64url(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, publicKey));
    const n = ((mac[0] << 24) >>> 0) + (mac[1] << 16) + (mac[2] << 8) + mac[3];
    const digits = String(n % 1000000).padStart(6, '0');
    return `${digits.slice(0, 3)} ${digits.slice(3)}`;
}
async function pair(secret) {
    $('pair').disabled = true;
    const name = $('name').value.trim() || 'phone';
    const keys = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', keys.publicKey));
    const r = await fetch('/api/pair', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ secret, name, publicKey: b64url(publicKey) }) });
    const out = await r.json().catch(() => ({}));
    if (!r.ok) { say(out.error ?? `pairing refused (${r.status})`); $('pair').disabled = false; return; }
    $('code').textContent = await pairingCode(secret, publicKey);
    $('code-box').hidden = false;
    say('Waiting for the desktop to confirm…');
    for (;;) {
        await new Promise((ok) => setTimeout(ok, 1000));
        const s = await fetch(`/api/pair/${encodeURIComponent(out.offer)}`).then((x) => x.json()).catch(() => ({}));
        if (s.state === 'paired') {
            device = { id: s.device, name, keys };
            await saveDevice(device);
            history.replaceState(null, '', '/');
            return showCards();
        }
        if (s.state && s.state !== 'waiting') { say(`The desktop did not pair this phone (${s.state}).`); return; }
    }
}

// ---- the cards ----
let skewMs = 0;
let shown = -1;
function say(text) { $('status').textContent = text; }
// The list is kept in place: a card stays where it was drawn, a new one is added below, one that
// left is taken out. A card's Approve is armed only after it has been on screen, visible, for
// kArmMs: a card that appears (or a page that comes back) under a finger about to tap is not
// approved by that tap.
const kArmMs = 1500;
let minimumMs = 0; // the console's minimum time on screen, which the server holds the phone to too
function arm(li) {
    const approve = li.querySelector('.approve');
    approve.disabled = true;
    clearTimeout(li.armTimer);
    if (document.visibilityState !== 'visible' || li.dataset.cut === '1') return;
    li.armTimer = setTimeout(() => { if (!li.dataset.busy) approve.disabled = false; }, Math.max(kArmMs, minimumMs));
}
document.addEventListener('visibilitychange', () => {
    for (const li of document.querySelectorAll('#list .card')) arm(li);
    if (document.visibilityState === 'visible' && device && !$('cards').hidden) refresh(); // now seen
});
function cardElement(card) {
    const li = $('card').content.firstElementChild.cloneNode(true);
    const q = (c) => li.querySelector(c);
    // The card's words as the window shows them (the server's face): what happens and what is lost,
    // the risk, who asks, the command, why it asks, the evidence; the rest folded away.
    const face = card.face;
    q('.title').textContent = face.headline;
    q('.request').textContent = face.request ?? '';
    q('.request').hidden = !face.request;
    q('.risk').textContent = face.risk;
    q('.risk').classList.add(card.risk);
    q('.who').textContent = face.who;
    q('.command').textContent = face.command + (face.folder ? `\nin ${face.folder}` : '');
    for (const line of [...face.why.map((w) => `Asks because ${w}`), ...face.also.map((a) => `Also: ${a}`)]) {
        const item = document.createElement('li'); item.textContent = line; q('.why').append(item);
    }
    q('.summary').textContent = face.summary;
    q('.evidence-title').textContent = face.evidenceTitle;
    q('.diff').textContent = face.evidenceText;
    q('.blast').textContent = card.blastRadius;
    q('.rule').textContent = card.rule ? `Rule: ${card.rule}` : '';
    q('.prompt').textContent = card.prompt;
    for (const t of card.targets) { const item = document.createElement('li'); item.textContent = t; q('.targets').append(item); }
    q('.arguments').textContent = card.arguments;
    q('.left').dataset.expires = String(card.expiresMs);
    if (card.typed !== null) { q('.typed-box').hidden = false; q('.typed-text').textContent = card.typed; }
    if (card.truncated) { q('.cut').hidden = false; li.dataset.cut = '1'; }
    const decide = async (decision) => {
        li.dataset.busy = '1';
        for (const b of li.querySelectorAll('button')) b.disabled = true;
        try {
            const out = await call('POST', '/api/decide', {
                nonce: card.nonce, planDigest: card.planDigest, decision,
                reason: q('.reason').value, typed: q('.typed').value, time: Date.now() + skewMs,
            });
            q('.result').textContent = `${out.outcome}`;
            // The card leaves the list at the next refresh: what became of it stays said.
            $('last').textContent = `${out.outcome === 'approved' ? 'Approved' : 'Declined'}: ${card.face.headline}`;
        } catch (e) {
            q('.result').textContent = e.message;
            delete li.dataset.busy;
            q('.decline').disabled = false;
            arm(li);
        }
    };
    q('.approve').addEventListener('click', () => decide('approve'));
    q('.decline').addEventListener('click', () => decide('decline'));
    li.dataset.nonce = card.nonce;
    return li;
}
function render(cards) {
    const list = $('list');
    const waiting = new Set(cards.map((c) => c.nonce));
    for (const li of [...list.children]) if (!waiting.has(li.dataset.nonce)) li.remove();
    const shownNow = new Map([...list.children].map((li) => [li.dataset.nonce, li]));
    for (const card of [...cards].sort((a, b) => a.createdMs - b.createdMs)) {
        let li = shownNow.get(card.nonce);
        if (!li) {
            li = cardElement(card);
            list.append(li);
            arm(li);
        }
        // Said unseen by the desktop (also when this page was not listening then), until seen.
        li.querySelector('.unseen').hidden = !card.unseen;
    }
    $('none').hidden = cards.length > 0;
    document.title = document.querySelector('#list .unseen:not([hidden])') ? 'Waiting unseen · Countersign' : 'Countersign';
    tick();
}
function tick() {
    for (const el of document.querySelectorAll('.left')) {
        const s = Math.max(0, Math.round((Number(el.dataset.expires) - (Date.now() + skewMs)) / 1000));
        el.textContent = s > 0 ? `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')} left` : 'expired';
    }
}
async function refresh() {
    try {
        // Whether this page is visible now: only then does the desktop count its cards as seen.
        const out = await call('POST', '/api/cards', { visible: document.visibilityState === 'visible' });
        skewMs = out.nowMs - Date.now();
        minimumMs = Number(out.cardMinimumMs) || 0;
        if (shown >= 0 && out.cards.length > shown) announce(out.cards[0]);
        shown = out.cards.length;
        render(out.cards);
        await showGrants();
        say('');
    } catch (e) {
        if (e.status === 401 || e.status === 403) return unpaired(e.message);
        say(`Cannot reach the desktop: ${e.message}`);
    }
}
// The live grants made from cards on the desktop, each revocable here (after a question).
async function showGrants() {
    const out = await call('POST', '/api/grants', {});
    renderGrants(out.grants);
}
function renderGrants(grants) {
    const list = $('grants');
    list.replaceChildren();
    for (const g of grants) {
        const item = document.createElement('li');
        item.className = 'grant';
        const until = g.expiresMs === 0 ? 'until revoked' : `until ${new Date(g.expiresMs).toLocaleString()}`;
        const words = document.createElement('p');
        words.textContent = `${g.verdict === 'allow' ? 'Allow' : 'Deny'} ${g.covers}, ${until}; used ${g.uses < 0 ? '?' : g.uses} times`;
        const revoke = document.createElement('button');
        revoke.type = 'button';
        revoke.className = 'revoke-grant';
        revoke.textContent = 'Revoke';
        revoke.addEventListener('click', async () => {
            if (!confirm('Revoke this grant? The calls it covers ask again at once.')) return;
            revoke.disabled = true;
            try { renderGrants((await call('POST', '/api/grants/revoke', { id: g.id })).grants); } catch (e) { say(e.message); revoke.disabled = false; }
        });
        item.append(words, revoke);
        list.append(item);
    }
    $('grants-box').hidden = grants.length === 0;
}
function announce(card) {
    navigator.vibrate?.([200, 100, 200]);
    if ('Notification' in window && Notification.permission === 'granted')
        new Notification('Countersign: a card is waiting', { body: card.face.headline, tag: card.nonce });
}
// The desktop says a card has waited unseen (cardUnseenSeconds, the window not looked at and no
// page showing it): said again here, louder, and marked on the card until it goes.
async function remind(hexNonce) {
    const nonce = (hexNonce.match(/../g) ?? []).map((h) => String.fromCharCode(parseInt(h, 16))).join('');
    await refresh();
    const li = [...document.querySelectorAll('#list .card')].find((c) => c.dataset.nonce === nonce);
    if (!li || li.querySelector('.unseen').hidden) return; // gone, or seen by now
    navigator.vibrate?.([400, 200, 400, 200, 400]);
    if ('Notification' in window && Notification.permission === 'granted')
        new Notification('Countersign: a card waits unseen', { body: li.querySelector('.title').textContent, tag: `${nonce}-unseen`, renotify: true });
}
let events = null;
async function listen() {
    events?.close();
    try {
        const s = await signed('GET', '/api/events');
        const q = new URLSearchParams({ device: device.id, challenge: s.challenge, signature: s.signature });
        events = new EventSource(`/api/events?${q}`);
        events.addEventListener('cards', refresh);
        events.addEventListener('unseen', (e) => remind(e.data));
        events.addEventListener('revoked', () => { events.close(); unpaired('This phone was revoked on the desktop.'); });
        events.onerror = () => { events.close(); setTimeout(listen, 3000); };
    } catch (e) {
        if (e.status === 401 || e.status === 403) return unpaired(e.message);
        setTimeout(listen, 3000);
    }
}
async function showCards() {
    $('pairing').hidden = true;
    $('unpaired').hidden = true;
    $('cards').hidden = false;
    $('who').textContent = device.name;
    if ('Notification' in window && Notification.permission === 'default') Notification.requestPermission().catch(() => {});
    await refresh();
    listen();
}
function unpaired(why) {
    events?.close();
    $('cards').hidden = true;
    $('unpaired').hidden = false;
    $('forget').hidden = !device;
    say(why ?? '');
}

addEventListener('DOMContentLoaded', async () => {
    setInterval(tick, 1000);
    const secret = new URLSearchParams(location.hash.slice(1)).get('pair');
    device = await loadDevice();
    $('forget').addEventListener('click', async () => { await saveDevice(null); device = null; location.reload(); });
    if (secret && !device) {
        $('pairing').hidden = false;
        $('pair').addEventListener('click', () => pair(secret).catch((e) => { say(e.message); $('pair').disabled = false; }));
        return;
    }
    if (!device) return unpaired();
    showCards();
});
