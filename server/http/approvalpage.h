#pragma once

#include "httpresponse.h"

#include <QObject>
#include <QString>

#include <optional>

namespace Countersign {

struct HttpRequest;

// GET /approvals/NONCE, the address a held call's answer gives the agent to show its human: the
// page only brings that card forward in the window (revealRequested) and says so. Deciding happens
// in the window and nowhere else; nothing here approves or declines.
class ApprovalPage final : public QObject
{
    Q_OBJECT
public:
    static constexpr char kPath[] = "/approvals/";

    using QObject::QObject;

    // Nothing for anything but a GET of /approvals/ and 32 hexadecimal digits (404).
    std::optional<HttpResponse> serve(const HttpRequest &request);

Q_SIGNALS:
    void revealRequested(const QString &nonce);
};

} // namespace Countersign
