#pragma once

#include "httpconnection.h"
#include "result.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

namespace Countersign {

class ApprovalQueue;
class CardSightings;
class Grants;
class AuditStore;
class Clock;
class HttpServer;
class PhoneDevices;
class PhonePairing;
struct HttpRequest;
struct Operation;
struct PhoneCertificate;

// The phone's listener (issue 29): HTTPS on the LAN address the person chose, serving the phone page
// and its small API, and nothing else (no /mcp, no /approvals: MCP never leaves loopback). Main
// thread, beside the window: it decides through the same approval queue.
//
//   GET  /, /phone.js, /phone.css   the page (strict Content-Security-Policy, no third-party code)
//   POST /api/pair                  {secret, name, publicKey}: an offer; {offer, code}
//   GET  /api/pair/OFFER            {state: waiting | paired | refused | lapsed, device}
//   POST /api/challenge             {device}: a challenge, single use, 60 s
//   POST /api/cards          (signed) the waiting cards, as plain text with invisible characters marked
//   POST /api/decide         (signed) {nonce, planDigest, decision: approve | decline, reason, typed, time}
//   GET  /api/events?device=&challenge=&signature=   (signed) server-sent events: "cards" on each change
//
// A signed request carries X-Countersign-Device, -Challenge and -Signature: the device's ECDSA P-256
// signature (WebCrypto's r || s, base64url) over "countersign-phone-1\nMETHOD\nPATH\nCHALLENGE\nBODY".
// The challenge is used up by the attempt, so a request (a decision above all) cannot be replayed;
// a revoked device's challenge is refused and its event stream ends. A decision is checked against
// the card as it waits (still pending, the same plan digest, its time within five minutes; an
// approval no sooner than the console's minimum time on screen after /api/cards first gave this
// phone the card, as the window holds its Approve button: the page's own wait is the page's), written
// into the audit chain with its signature (event "phone-decision"), then taken as "phone:<name>".
// Every request must name this listener in Host, and a POST must come from its own Origin.
class PhoneServer final : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 kChallengeMs = 60'000;
    static constexpr qint64 kClockSkewMs = 300'000;
    static constexpr int kMaxChallenges = 256;
    // Connections open at once: a phone or two keep a page, its event stream and a fetch. Each may
    // hold a few MiB of pipelined requests and unread answers, so a stranger's flood of them is
    // bounded here (the longest idle goes for a new one: HttpServer).
    static constexpr int kMaxConnections = 32;

    PhoneServer(ApprovalQueue &queue, AuditStore &audit, PhoneDevices &devices, PhonePairing &pairing,
                const Clock &clock, QObject *parent = nullptr);
    ~PhoneServer() override;
    Q_DISABLE_COPY_MOVE(PhoneServer)

    // host: a LAN address (or name) the phone reaches this machine at; port 0 picks one.
    Result<quint16> listen(const QString &host, quint16 port, const PhoneCertificate &certificate);
    // https://HOST:PORT/
    QString url() const;
    int connectionCount() const;
    // Ends the streams of a device just revoked.
    void deviceRevoked(const QString &deviceId);
    // The least time a card is on a phone before that phone may approve it (cardMinimumSeconds).
    void setCardMinimumMs(qint64 ms) { m_cardMinimumMs = ms; }
    // Where a card the page shows while it is visible ("visible": true in /api/cards) is noted as
    // seen on this phone.
    // Where the page's visibility marks cards seen; and a card nobody has seen after
    // cardUnseenSeconds is told to every paired page again ("unseen": the escalation to the phone).
    void setSightings(CardSightings *sightings);
    // The live "from now on" grants, listed on the phone (/api/grants) and revocable there
    // (/api/grants/revoke, by "phone:<name>"); unset: the phone lists none.
    void setGrants(Grants *grants) { m_grants = grants; }

private:
    struct Challenge
    {
        QString device;
        qint64 expiresMs = 0;
        QString peer; // the address that asked for it
    };
    struct Stream
    {
        QString device;
        QPointer<QObject> connection;
        HttpConnection::Responder respond;
    };
    void route(const HttpRequest &request, HttpConnection::Responder respond);
    // The device a signed request comes from, or why it is refused.
    Result<QString> authenticate(const HttpRequest &request, const QByteArray &path);
    void pair(const HttpRequest &request, HttpConnection::Responder respond);
    void pairState(const QString &offer, HttpConnection::Responder respond);
    void challenge(const HttpRequest &request, HttpConnection::Responder respond);
    void cards(const QString &device, const HttpRequest &request, HttpConnection::Responder respond);
    void grants(const QString &device, const HttpRequest &request, const QByteArray &path,
                HttpConnection::Responder respond);
    void decide(const QString &device, const HttpRequest &request, const QByteArray &path,
                HttpConnection::Responder respond);
    void openStream(const QString &device, const HttpRequest &request, HttpConnection::Responder respond);
    void announce();

    ApprovalQueue &m_queue;
    AuditStore &m_audit;
    PhoneDevices &m_devices;
    PhonePairing &m_pairing;
    const Clock &m_clock;
    std::unique_ptr<HttpServer> m_http;
    QString m_authority; // HOST:PORT, as Host must say it
    QHash<QString, Challenge> m_challenges;
    QList<Stream> m_streams;
    qint64 m_cardMinimumMs = 0;
    // When /api/cards first gave each device each waiting card: "DEVICE NONCE" -> ms.
    QHash<QString, qint64> m_shown;
    CardSightings *m_sightings = nullptr;
    Grants *m_grants = nullptr;
};

} // namespace Countersign
