#include "stdiotransport.h"

#include "dispatcher.h"
#include "jsonbody.h"
#include "jsonrpc.h"

#include <QThread>

#include <cstdio>
#include <iostream>
#include <string>

namespace Countersign {

StdioTransport::StdioTransport(const Dispatcher &dispatcher, Principal principal, QObject *parent)
    : QObject(parent), m_dispatcher(dispatcher), m_principal(std::move(principal))
{
}

StdioTransport::~StdioTransport()
{
    if (m_reader) {
        m_reader->wait(100); // blocked in a read only if stdin is still open; the process is ending
    }
}

void StdioTransport::handleLine(const QByteArray &line, std::function<void(QByteArray)> write) const
{
    if (line.trimmed().isEmpty())
        return;
    const auto encode = [](const nlohmann::json &reply) {
        return QByteArray::fromStdString(
                   reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
               '\n';
    };
    if (line.size() > kMaxLineBytes)
        return write(
            encode(JsonRpc::error(nullptr, JsonRpc::kInvalidRequest,
                                  QStringLiteral("message larger than %1 bytes").arg(kMaxLineBytes))));
    auto parsed = JsonBody::parse(line);
    if (!parsed)
        return write(encode(JsonRpc::error(nullptr, JsonRpc::kParseError,
                                           QStringLiteral("Parse error: %1").arg(parsed.error()))));
    m_dispatcher.dispatch(parsed.value(), CallContext{m_principal, Transport::Stdio},
                          [write = std::move(write), encode](Reply reply) {
                              if (reply.body)
                                  write(encode(*reply.body));
                          });
}

void StdioTransport::start()
{
    m_reader = QThread::create([this] {
        std::string line;
        while (true) {
            line.clear();
            bool tooLong = false;
            int c;
            while ((c = std::getchar()) != EOF && c != '\n') {
                if (static_cast<qsizetype>(line.size()) <= kMaxLineBytes)
                    line.push_back(static_cast<char>(c));
                else
                    tooLong = true;
            }
            if (c == EOF && line.empty())
                break;
            QByteArray bytes = QByteArray::fromStdString(line);
            if (tooLong)
                bytes.append(QByteArray(1, ' ')); // keeps it over the limit so it is refused, not truncated
            QMetaObject::invokeMethod(
                this,
                [this, bytes] {
                    handleLine(bytes, [](const QByteArray &out) {
                        std::fwrite(out.constData(), 1, static_cast<size_t>(out.size()), stdout);
                        std::fflush(stdout);
                    });
                },
                Qt::QueuedConnection);
            if (c == EOF)
                break;
        }
        QMetaObject::invokeMethod(
            this, [this] { Q_EMIT finished(); }, Qt::QueuedConnection);
    });
    m_reader->setParent(this);
    m_reader->start();
}

} // namespace Countersign
