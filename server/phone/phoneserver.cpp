#include "phoneserver.h"

#include "approvalqueue.h"
#include "auditstore.h"
#include "blastradiustext.h"
#include "cardface.h"
#include "cardsightings.h"
#include "clock.h"
#include "devicekey.h"
#include "grants.h"
#include "httprequest.h"
#include "httpresponse.h"
#include "httpserver.h"
#include "phonecertificate.h"
#include "phonedevices.h"
#include "phonepairing.h"
#include "visibletext.h"

#include <QFile>
#include <QHostAddress>
#include <QLoggingCategory>
#include <QSet>
#include <QSslCipher>
#include <QSslConfiguration>
#include <QSslServer>
#include <QTimer>
#include <QUrlQuery>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <utility>

// The page's files are compiled into this static library: registered once it is used.
static void initPhoneResources()
{
    Q_INIT_RESOURCE(phone);
}

namespace Countersign {

Q_LOGGING_CATEGORY(lcPhone, "countersign.phone")

namespace {

using json = nlohmann::json;

constexpr char kSignedPrefix[] = "countersign-phone-1";
constexpr qsizetype kMaxDiffChars = 64 * 1024;
constexpr int kHeartbeatMs = 25'000;
constexpr qsizetype kMaxArgumentsChars = 16 * 1024;
constexpr qsizetype kMaxPromptChars = 16 * 1024;
// Bodies are parsed in the window's thread: a small one is all these requests need, and nothing is
// parsed for a request that cannot succeed.
constexpr qsizetype kMaxUnsignedBody = 4 * 1024;
constexpr qsizetype kMaxSignedBody = 64 * 1024;
constexpr int kMaxChallengesPerDevice = 16;
constexpr int kMaxStreamsPerDevice = 2;
const QByteArray kCsp = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                        "img-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; "
                        "frame-ancestors 'none'";

HttpResponse withPageHeaders(HttpResponse r)
{
    r.headers.append(qMakePair(QByteArray("Content-Security-Policy"), QByteArray(kCsp)));
    r.headers.append(qMakePair(QByteArray("Referrer-Policy"), QByteArray("no-referrer")));
    r.headers.append(qMakePair(QByteArray("X-Frame-Options"), QByteArray("DENY")));
    r.headers.append(qMakePair(QByteArray("Cross-Origin-Opener-Policy"), QByteArray("same-origin")));
    r.headers.append(qMakePair(QByteArray("Strict-Transport-Security"), QByteArray("max-age=31536000")));
    return r;
}

HttpResponse reply(int status, const json &body)
{
    return withPageHeaders(HttpResponse::json(status, QByteArray::fromStdString(body.dump())));
}

HttpResponse refused(int status, const QString &why)
{
    return reply(status, {{"error", why.toStdString()}});
}

QByteArray fromBase64Url(const QByteArray &text)
{
    auto decoded = QByteArray::fromBase64Encoding(text, QByteArray::Base64UrlEncoding |
                                                            QByteArray::AbortOnBase64DecodingErrors);
    return decoded ? *decoded : QByteArray();
}

QString str(const json &o, const char *key)
{
    return o.is_object() && o.contains(key) && o[key].is_string()
               ? QString::fromStdString(o[key].get<std::string>())
               : QString();
}

// At most max characters of text; *cut is set when it was longer.
QString capped(const QString &text, qsizetype max, bool *cut)
{
    if (text.size() <= max)
        return text;
    *cut = true;
    return text.left(max) +
           QStringLiteral("\n… (%1 more characters: the window shows all of it)").arg(text.size() - max);
}

// The card as the page shows it: what the window's card shows, as text. A card whose text had to be
// cut for the phone can be declined there, not approved (truncated).
json cardJson(const Operation &op)
{
    json targets = json::array();
    for (const QString &t : op.plan.targets)
        targets.push_back(visibleText(t).toStdString());
    bool cut = false;
    const QString diff = capped(op.plan.diff, kMaxDiffChars, &cut);
    const QString prompt = capped(op.plan.prompt, kMaxPromptChars, &cut);
    const QString arguments = capped(QString::fromStdString(op.arguments.dump(2)), kMaxArgumentsChars, &cut);
    // The card's words, as the window shows them (CardFace): headline, command, why, evidence, who.
    const CardFace words = CardFace::of(op);
    const auto shown = [](const QStringList &lines) {
        json out = json::array();
        for (const QString &line : lines)
            out.push_back(visibleText(line).toStdString());
        return out;
    };
    const json face = {
        {"request", visibleText(words.request).toStdString()},
        {"headline", visibleText(words.headline).toStdString()},
        {"risk", visibleText(words.riskWords).toStdString()},
        {"command", visibleText(capped(words.command, kMaxPromptChars, &cut)).toStdString()},
        {"folder", visibleText(words.folder).toStdString()},
        {"why", shown(words.why)},
        {"also", shown(words.also)},
        {"summary", visibleText(words.summary).toStdString()},
        {"evidenceTitle", visibleText(words.evidenceTitle).toStdString()},
        {"evidenceText", visibleText(capped(words.evidenceText, kMaxDiffChars, &cut)).toStdString()},
        {"who", visibleText(words.who).toStdString()}};
    return {{"nonce", op.nonce.toStdString()},
            {"face", face},
            {"tool", visibleText(op.tool).toStdString()},
            {"title", visibleText(op.plan.title).toStdString()},
            {"summary", visibleText(op.plan.summary).toStdString()},
            {"prompt", visibleText(prompt).toStdString()},
            {"arguments", visibleText(arguments).toStdString()},
            {"diff", visibleText(diff).toStdString()},
            {"targets", targets},
            // The window's words: what the call reaches and loses, whether it can be taken back,
            // and the rule that asked.
            {"blastRadius", visibleText(BlastRadiusText::text(op.plan.blastRadius)).toStdString()},
            {"irreversible", op.plan.isIrreversible()},
            {"rule", visibleText(op.rule).toStdString()},
            {"risk", riskName(op.plan.risk).toStdString()},
            {"planDigest", op.planDigest.toStdString()},
            {"connection", visibleText(op.principal).toStdString()},
            {"client", visibleText(op.clientName()).toStdString()},
            {"createdMs", op.createdMs},
            {"expiresMs", op.deadlineMs()}, // counted from when a human first saw it, once one has
            {"truncated", cut},
            {"typed",
             op.needsTypedConfirmation() ? json(visibleText(op.confirmationText()).toStdString()) : json()}};
}

// The page's files, from the resources compiled in.
HttpResponse page(const QByteArray &path)
{
    static const QHash<QByteArray, QPair<QString, QByteArray>> files = {
        {"/", {QStringLiteral(":/phone/index.html"), "text/html; charset=utf-8"}},
        {"/phone.js", {QStringLiteral(":/phone/phone.js"), "text/javascript; charset=utf-8"}},
        {"/phone.css", {QStringLiteral(":/phone/phone.css"), "text/css; charset=utf-8"}},
    };
    const auto found = files.constFind(path);
    QFile file(found == files.cend() ? QString() : found->first);
    if (found == files.cend() || !file.open(QIODevice::ReadOnly))
        return refused(404, QStringLiteral("not found"));
    HttpResponse r;
    r.body = file.readAll();
    r.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray(found->second)));
    return withPageHeaders(r);
}

} // namespace

PhoneServer::PhoneServer(ApprovalQueue &queue, AuditStore &audit, PhoneDevices &devices,
                         PhonePairing &pairing, const Clock &clock, QObject *parent)
    : QObject(parent), m_queue(queue), m_audit(audit), m_devices(devices), m_pairing(pairing), m_clock(clock)
{
    initPhoneResources();
    connect(&m_queue, &ApprovalQueue::cardAdded, this, &PhoneServer::announce);
    connect(&m_queue, &ApprovalQueue::cardRemoved, this, &PhoneServer::announce);
    connect(&m_queue, &ApprovalQueue::cardChanged, this, &PhoneServer::announce);
    connect(&m_queue, &ApprovalQueue::deadlineChanged, this, &PhoneServer::announce);
    auto *heartbeat = new QTimer(this);
    connect(heartbeat, &QTimer::timeout, this, [this] {
        for (Stream &s : m_streams)
            if (s.connection)
                s.respond(HttpResponse{200, {}, ": still here\n\n", false, HttpResponse::Stream::More});
    });
    heartbeat->start(kHeartbeatMs);
}

PhoneServer::~PhoneServer() = default;

Result<quint16> PhoneServer::listen(const QString &host, quint16 port, const PhoneCertificate &certificate)
{
    auto *tls = new QSslServer;
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    config.setLocalCertificate(certificate.certificate);
    config.setPrivateKey(certificate.key);
    config.setProtocol(QSsl::TlsV1_2OrLater);
    // Forward-secret AEAD suites only (TLS 1.3's, and TLS 1.2's ECDHE with AES-GCM or ChaCha20):
    // no CBC, no SHA-1 MAC, which every phone browser of the last years does without.
    QList<QSslCipher> modern;
    for (const QSslCipher &cipher : QSslConfiguration::supportedCiphers()) {
        const QString name = cipher.name();
        if (name.startsWith(QLatin1String("TLS_")) ||
            (name.startsWith(QLatin1String("ECDHE-")) &&
             (name.contains(QLatin1String("-GCM-")) || name.contains(QLatin1String("CHACHA20")))))
            modern.append(cipher);
    }
    config.setCiphers(modern);
    config.setPeerVerifyMode(QSslSocket::VerifyNone);
    tls->setSslConfiguration(config);
    // A connection that never finishes its handshake holds one of the pending slots: short, and many.
    tls->setHandshakeTimeout(2000);
    tls->setMaxPendingConnections(256);
    m_http = std::make_unique<HttpServer>(
        tls,
        [this](const HttpRequest &request, HttpConnection::Responder respond) {
            route(request, std::move(respond));
        },
        [](int status, const QString &reason) { return refused(status, reason); },
        HttpConnection::Timeouts{});
    m_http->setMaxConnections(kMaxConnections);
    auto bound = m_http->listen(host, port);
    if (!bound) {
        m_http.reset();
        return bound;
    }
    // As a browser writes it in Host: an address in its shortest form, an IPv6 one in brackets.
    const QHostAddress address(host);
    const QString shortest = address.isNull() ? host : address.toString();
    const bool v6 = address.protocol() == QAbstractSocket::IPv6Protocol;
    m_authority = (v6 ? QLatin1Char('[') + shortest + QLatin1Char(']') : shortest) + QLatin1Char(':') +
                  QString::number(bound.value());
    qCInfo(lcPhone) << "phone approvals on" << url();
    return bound;
}

int PhoneServer::connectionCount() const
{
    return m_http ? m_http->connectionCount() : 0;
}

QString PhoneServer::url() const
{
    return QStringLiteral("https://%1/").arg(m_authority);
}

void PhoneServer::route(const HttpRequest &request, HttpConnection::Responder respond)
{
    const QByteArray path = request.path();
    // Every request names this listener: a page of another name cannot reach it through DNS tricks.
    if (QString::fromLatin1(request.header("host").value_or(QByteArray()))
            .compare(m_authority, Qt::CaseInsensitive))
        return respond(refused(421, QStringLiteral("this is not the address of Countersign's phone page")));
    const bool post = request.method == "POST";
    if (post && request.header("origin").value_or(QByteArray()) != ("https://" + m_authority).toLatin1())
        return respond(refused(403, QStringLiteral("a request from another page")));
    if (request.method == "GET" && !path.startsWith("/api/"))
        return respond(page(path));
    const bool unsigned_ = path == "/api/pair" || path == "/api/challenge";
    if (request.body.size() > (unsigned_ ? kMaxUnsignedBody : kMaxSignedBody))
        return respond(refused(413, QStringLiteral("the request is larger than this page ever sends")));
    if (post && path == "/api/pair")
        return pair(request, std::move(respond));
    if (request.method == "GET" && path.startsWith("/api/pair/"))
        return pairState(QString::fromLatin1(path.mid(10)), std::move(respond));
    if (post && path == "/api/challenge")
        return challenge(request, std::move(respond));
    const bool known = (post && (path == "/api/cards" || path == "/api/decide" || path == "/api/grants" ||
                                 path == "/api/grants/revoke")) ||
                       (request.method == "GET" && path == "/api/events");
    if (!known)
        return respond(refused(404, QStringLiteral("not found")));
    auto device = authenticate(request, path);
    if (!device)
        return respond(refused(401, device.error()));
    if (path == "/api/cards")
        return cards(device.value(), request, std::move(respond));
    if (path == "/api/decide")
        return decide(device.value(), request, path, std::move(respond));
    if (path.startsWith("/api/grants"))
        return grants(device.value(), request, path, std::move(respond));
    openStream(device.value(), request, std::move(respond));
}

Result<QString> PhoneServer::authenticate(const HttpRequest &request, const QByteArray &path)
{
    QByteArray device = request.header("x-countersign-device").value_or(QByteArray());
    QByteArray challenge = request.header("x-countersign-challenge").value_or(QByteArray());
    QByteArray signature = request.header("x-countersign-signature").value_or(QByteArray());
    if (request.method == "GET") { // EventSource sets no headers: the query carries them
        const QUrlQuery query(QString::fromLatin1(request.target.mid(request.target.indexOf('?') + 1)));
        device = query.queryItemValue(QStringLiteral("device")).toLatin1();
        challenge = query.queryItemValue(QStringLiteral("challenge")).toLatin1();
        signature = query.queryItemValue(QStringLiteral("signature")).toLatin1();
    }
    const auto found = m_challenges.constFind(QString::fromLatin1(challenge));
    if (found == m_challenges.cend())
        return failure(QStringLiteral("no such challenge (used already, or never given)"));
    const Challenge given = *found;
    m_challenges.erase(found); // used up by this attempt, whatever comes of it
    const auto known = m_devices.vouched(QString::fromLatin1(device));
    if (!known || given.device != known->id)
        return failure(QStringLiteral("this phone is not paired, or was revoked on the desktop"));
    if (m_clock.nowMs() >= given.expiresMs)
        return failure(QStringLiteral("the challenge expired"));
    const QByteArray message = QByteArray(kSignedPrefix) + '\n' + request.method + '\n' + path + '\n' +
                               challenge + '\n' + (request.method == "GET" ? QByteArray() : request.body);
    if (!DeviceKey::verify(known->publicKey, message, fromBase64Url(signature)))
        return failure(QStringLiteral("the signature does not match this phone's key"));
    m_devices.touch(known->id);
    return known->id;
}

void PhoneServer::pair(const HttpRequest &request, HttpConnection::Responder respond)
{
    const json body = json::parse(request.body.toStdString(), nullptr, false);
    const QByteArray key = fromBase64Url(str(body, "publicKey").toLatin1());
    auto offer = m_pairing.offer(str(body, "secret"), str(body, "name"), key);
    if (!offer)
        return respond(refused(403, offer.error()));
    respond(
        reply(200, {{"offer", offer.value().id.toStdString()}, {"code", offer.value().code.toStdString()}}));
}

void PhoneServer::pairState(const QString &offer, HttpConnection::Responder respond)
{
    QString device;
    const PhonePairing::State state = m_pairing.state(offer, &device);
    static const char *const names[] = {"unknown", "waiting", "paired", "refused", "lapsed"};
    json out = {{"state", names[int(state)]}};
    if (state == PhonePairing::State::Paired)
        out["device"] = device.toStdString();
    respond(reply(state == PhonePairing::State::Unknown ? 404 : 200, out));
}

void PhoneServer::challenge(const HttpRequest &request, HttpConnection::Responder respond)
{
    const json body = json::parse(request.body.toStdString(), nullptr, false);
    const auto device = m_devices.vouched(str(body, "device"));
    if (!device)
        return respond(
            refused(403, QStringLiteral("this phone is not paired, or was revoked on the desktop")));
    const qint64 now = m_clock.nowMs();
    int ofDevice = 0;
    for (auto it = m_challenges.begin(); it != m_challenges.end();) {
        if (now >= it->expiresMs) {
            it = m_challenges.erase(it);
            continue;
        }
        ofDevice += it->device == device->id && it->peer == request.peer ? 1 : 0;
        ++it;
    }
    // A device's challenges are counted per address that asks: a stranger who knows a device's id
    // fills its own quota, not the phone's. When all are taken, the oldest goes (its phone asks
    // again): nobody can hold the listener shut.
    if (ofDevice >= kMaxChallengesPerDevice)
        return respond(
            refused(429, QStringLiteral("too many challenges outstanding; try again in a minute")));
    if (m_challenges.size() >= kMaxChallenges) {
        // The oldest of the address holding the most: a stranger asking from many addresses
        // pushes out its own challenges before the phone's single one.
        QHash<QString, int> byPeer;
        for (const Challenge &c : std::as_const(m_challenges))
            ++byPeer[c.peer];
        const QString busiest =
            std::max_element(byPeer.cbegin(), byPeer.cend(), [](int a, int b) { return a < b; }).key();
        auto oldest = m_challenges.end();
        for (auto it = m_challenges.begin(); it != m_challenges.end(); ++it) {
            if (it->peer == busiest && (oldest == m_challenges.end() || it->expiresMs < oldest->expiresMs))
                oldest = it;
        }
        m_challenges.erase(oldest);
    }
    const QString token = PhonePairing::randomSecret(32);
    m_challenges.insert(token, Challenge{device->id, now + kChallengeMs, request.peer});
    respond(reply(200, {{"challenge", token.toStdString()}, {"expiresMs", now + kChallengeMs}}));
}

void PhoneServer::cards(const QString &device, const HttpRequest &request, HttpConnection::Responder respond)
{
    json list = json::array();
    const qint64 now = m_clock.nowMs();
    // The page says whether it is visible now (the Page Visibility API): only then were its cards seen.
    const json body = json::parse(request.body.toStdString(), nullptr, false);
    const bool visible = body.is_object() && body.value("visible", json()) == json(true);
    const auto phone = visible && m_sightings ? m_devices.find(device) : std::nullopt;
    QSet<QString> waiting;
    for (const Operation &op : m_queue.pending()) {
        waiting.insert(op.nonce);
        if (op.isExpiredAt(now))
            continue;
        if (phone)
            (void)m_sightings->markSeen(op.nonce, QStringLiteral("phone:") + phone->name);
        json card = cardJson(op);
        card["unseen"] = m_sightings && m_sightings->saidUnseen(op.nonce);
        list.push_back(std::move(card));
        const QString key = device + QLatin1Char(' ') + op.nonce;
        if (!m_shown.contains(key))
            m_shown.insert(key, now);
    }
    // What was shown of cards no longer waiting is forgotten.
    m_shown.removeIf(
        [&waiting](const auto &it) { return !waiting.contains(it.key().section(QLatin1Char(' '), 1)); });
    respond(reply(200, {{"cards", list}, {"nowMs", now}, {"cardMinimumMs", m_cardMinimumMs}}));
}

// The live grants as the phone lists them (what each covers, allow or deny, until when, how many
// calls it decided), or one revoked, by this phone.
void PhoneServer::grants(const QString &deviceId, const HttpRequest &request, const QByteArray &path,
                         HttpConnection::Responder respond)
{
    if (!m_grants)
        return respond(reply(200, {{"grants", json::array()}}));
    (void)m_grants->refresh(); // what another process added or revoked since, too
    if (path == "/api/grants/revoke") {
        const json body = json::parse(request.body.toStdString(), nullptr, false);
        const QString id = str(body, "id");
        const auto device = m_devices.vouched(deviceId);
        if (!device)
            return respond(
                refused(401, QStringLiteral("this phone is not paired, or was revoked on the desktop")));
        if (id.isEmpty() || !m_grants->find(id))
            return respond(refused(404, QStringLiteral("no such grant (it was revoked or expired)")));
        if (auto revoked = m_grants->revoke(id, QStringLiteral("phone:") + device->name); !revoked)
            return respond(refused(500, revoked.error()));
        qCInfo(lcPhone) << "grant" << id << "revoked from phone" << device->name;
    }
    json list = json::array();
    for (const Grant &g : m_grants->live())
        list.push_back({{"id", g.id.toStdString()},
                        {"verdict", g.verdict == Verdict::Allow ? "allow" : "deny"},
                        {"covers", visibleText(g.describe()).toStdString()},
                        {"expiresMs", g.expiresMs},
                        {"uses", m_grants->uses(g)}});
    respond(reply(200, {{"grants", list}}));
}

void PhoneServer::decide(const QString &deviceId, const HttpRequest &request, const QByteArray &path,
                         HttpConnection::Responder respond)
{
    const json body = json::parse(request.body.toStdString(), nullptr, false);
    const QString nonce = str(body, "nonce");
    const QString verb = str(body, "decision");
    const qint64 now = m_clock.nowMs();
    if (!body.is_object() || (verb != QLatin1String("approve") && verb != QLatin1String("decline")) ||
        !body.contains("time") || !body["time"].is_number_integer())
        return respond(refused(
            400, QStringLiteral("a decision needs a nonce, a planDigest, approve or decline, and a time")));
    if (std::abs(body["time"].get<qint64>() - now) > kClockSkewMs)
        return respond(
            refused(400, QStringLiteral("the decision's time is more than five minutes from the desktop's")));
    const auto card = m_queue.find(nonce);
    if (!card || card->status != Operation::Status::Pending || card->isExpiredAt(now))
        return respond(
            refused(409, QStringLiteral("this card is no longer waiting: it was decided or expired")));
    if (str(body, "planDigest") != card->planDigest)
        return respond(
            refused(409, QStringLiteral("the card's plan is not the one this decision was signed for")));
    const auto device = m_devices.vouched(deviceId);
    if (!device)
        return respond(
            refused(401, QStringLiteral("this phone is not paired, or was revoked on the desktop")));
    const QString by = QStringLiteral("phone:") + device->name;
    if (str(body, "reason").trimmed().size() > ApprovalQueue::kMaxReasonChars)
        return respond(refused(400, QStringLiteral("a reason to decline is at most %1 characters")
                                        .arg(ApprovalQueue::kMaxReasonChars)));
    // As the window holds its Approve button: the card on this phone for the least time first. A
    // decline needs no wait.
    const auto shown = m_shown.constFind(deviceId + QLatin1Char(' ') + nonce);
    if (verb == QLatin1String("approve") && shown == m_shown.constEnd())
        return respond(refused(409, QStringLiteral("this phone has not been shown the card yet")));
    if (verb == QLatin1String("approve") && now - shown.value() < m_cardMinimumMs)
        return respond(refused(409, QStringLiteral("a card can be approved %1 s after it is shown; this one "
                                                   "was shown %2 s ago")
                                        .arg(QString::number(m_cardMinimumMs / 1000.0),
                                             QString::number((now - shown.value()) / 1000.0))));
    if (verb == QLatin1String("approve") && cardJson(*card).value("truncated", false))
        return respond(
            refused(409, QStringLiteral("this card is too long to show whole on a phone: approve it "
                                        "in the window, or decline it here")));
    if (verb == QLatin1String("approve") && !card->review.refusal(by).isEmpty())
        return respond(refused(409, card->review.refusal(by)));
    if (verb == QLatin1String("approve") && card->needsTypedConfirmation() &&
        str(body, "typed") != card->confirmationText())
        return respond(refused(
            409, QStringLiteral("to approve, type %1 exactly").arg(visibleText(card->confirmationText()))));
    // The signed decision enters the chain first: what the phone signed, and its key.
    const QByteArray message = QByteArray(kSignedPrefix) + '\n' + request.method + '\n' + path + '\n' +
                               request.header("x-countersign-challenge").value_or(QByteArray()) + '\n' +
                               request.body;
    auto recorded = m_audit.recordEvent(
        QStringLiteral("phone-decision"), nonce,
        {{"device", device->id.toStdString()},
         {"name", device->name.toStdString()},
         {"publicKey", device->publicKey.toHex().toStdString()},
         {"signed", message.toStdString()},
         {"signature", request.header("x-countersign-signature").value_or(QByteArray()).toStdString()}});
    if (!recorded)
        return respond(
            refused(500, QStringLiteral("the decision could not be recorded, so it was not taken: %1")
                             .arg(recorded.error())));
    const auto decided = verb == QLatin1String("approve") ? m_queue.approve(nonce, by, str(body, "typed"))
                                                          : m_queue.decline(nonce, by, str(body, "reason"));
    if (!decided)
        return respond(refused(409, decided.error()));
    qCInfo(lcPhone) << "card" << nonce << verb << "from" << by;
    respond(reply(200, {{"outcome", statusName(decided.value().outcome).toStdString()}}));
}

void PhoneServer::openStream(const QString &device, const HttpRequest &request,
                             HttpConnection::Responder respond)
{
    HttpResponse head;
    head.stream = HttpResponse::Stream::Open;
    head.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("text/event-stream")));
    head.body = "retry: 3000\n\nevent: cards\ndata: " + QByteArray::number(m_queue.pending().size()) + "\n\n";
    respond(withPageHeaders(head));
    // A phone keeps one page open; an older stream of it beyond a second one is ended.
    m_streams.removeIf([](const Stream &s) { return !s.connection; });
    int open = 0;
    for (qsizetype i = m_streams.size() - 1; i >= 0; --i) {
        if (m_streams.at(i).device != device || ++open < kMaxStreamsPerDevice)
            continue;
        m_streams[i].respond(HttpResponse{200, {}, QByteArray(), false, HttpResponse::Stream::End});
        m_streams.removeAt(i);
    }
    m_streams.append(Stream{device, request.connection, std::move(respond)});
}

void PhoneServer::setSightings(CardSightings *sightings)
{
    if (m_sightings)
        disconnect(m_sightings, nullptr, this, nullptr);
    m_sightings = sightings;
    if (!sightings)
        return;
    connect(sightings, &CardSightings::unseen, this, [this](const Operation &op) {
        // The nonce only (hex): the page reads the card itself with its signed request.
        const QByteArray event = "event: unseen\ndata: " + op.nonce.toLatin1().toHex().left(128) + "\n\n";
        m_streams.removeIf([](const Stream &s) { return !s.connection; });
        for (Stream &s : m_streams)
            s.respond(HttpResponse{200, {}, event, false, HttpResponse::Stream::More});
    });
}

void PhoneServer::announce()
{
    const QByteArray event = "event: cards\ndata: " + QByteArray::number(m_queue.pending().size()) + "\n\n";
    m_streams.removeIf([](const Stream &s) { return !s.connection; });
    // A device revoked elsewhere (`countersign phone revoke`, another console on a shared store)
    // hears no more: its streams end as the window's revocation ends them.
    QStringList gone;
    for (const Stream &s : std::as_const(m_streams)) {
        if (!gone.contains(s.device) && !m_devices.vouched(s.device))
            gone.append(s.device);
    }
    for (const QString &device : gone)
        deviceRevoked(device);
    for (Stream &s : m_streams)
        s.respond(HttpResponse{200, {}, event, false, HttpResponse::Stream::More});
}

void PhoneServer::deviceRevoked(const QString &deviceId)
{
    for (Stream &s : m_streams)
        if (s.device == deviceId && s.connection)
            s.respond(HttpResponse{200, {}, "event: revoked\ndata: 1\n\n", false, HttpResponse::Stream::End});
    m_streams.removeIf([&](const Stream &s) { return s.device == deviceId || !s.connection; });
    for (auto it = m_challenges.begin(); it != m_challenges.end();)
        it = it->device == deviceId ? m_challenges.erase(it) : std::next(it);
}

} // namespace Countersign
