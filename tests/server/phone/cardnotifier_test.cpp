// The notifier for a card that waits unseen (notifyUrl): a real HTTP POST to a listener on
// 127.0.0.1 that carries no card content (the fixed words, the title, the phone page's address as
// ntfy's Click header), follows no redirect, and says when the server refuses it or is not there.
#include "cardnotifier.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace Countersign;

class CardNotifierTest : public QObject
{
    Q_OBJECT
private:
    // Answers each request with `status` and keeps what it was sent.
    struct Listener
    {
        QTcpServer server;
        QByteArray received;
        explicit Listener(const QByteArray &status)
        {
            QVERIFY(server.listen(QHostAddress::LocalHost));
            QObject::connect(&server, &QTcpServer::newConnection, &server, [this, status] {
                QTcpSocket *socket = server.nextPendingConnection();
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, status] {
                    received += socket->readAll();
                    const qsizetype end = received.indexOf("\r\n\r\n");
                    if (end < 0 || !received.mid(end + 4).contains("answer."))
                        return;
                    socket->write("HTTP/1.1 " + status +
                                  "\r\nContent-Length: 0\r\nLocation: http://127.0.0.1:1/\r\n"
                                  "Connection: close\r\n\r\n");
                    socket->disconnectFromHost();
                });
            });
        }
        QUrl url() const
        {
            return QUrl(QStringLiteral("http://127.0.0.1:%1/cards").arg(server.serverPort()));
        }
    };

private Q_SLOTS:
    void posts_theFixedWordsAndThePageAddress_only()
    {
        Listener listener("200 OK");
        CardNotifier notifier;
        QSignalSpy sent(&notifier, &CardNotifier::sent);
        notifier.setUrl(listener.url());
        notifier.setPageUrl(QStringLiteral("https://192.168.1.20:8443/"));
        notifier.notify();
        QTRY_COMPARE(sent.count(), 1);
        QCOMPARE(sent.first().first().toInt(), 200);
        const QByteArray request = listener.received;
        QVERIFY2(request.startsWith("POST /cards HTTP/1.1\r\n"), request.constData());
        QVERIFY(request.contains("\r\nTitle: Countersign\r\n"));
        QVERIFY(request.contains("\r\nClick: https://192.168.1.20:8443/\r\n"));
        QVERIFY(request.endsWith("\r\n\r\nA Countersign card waits for your answer."));
    }

    void refusedOrRedirected_orNoOneThere_saysSo()
    {
        for (const QByteArray &status : {QByteArray("500 Internal Server Error"), QByteArray("302 Found")}) {
            Listener listener(status);
            CardNotifier notifier;
            QSignalSpy failed(&notifier, &CardNotifier::failed);
            notifier.setUrl(listener.url());
            notifier.notify();
            QTRY_COMPARE(failed.count(), 1);
            QVERIFY2(failed.first().first().toString().contains(QString::fromLatin1(status.left(3))),
                     qPrintable(failed.first().first().toString()));
        }
        CardNotifier nowhere;
        QSignalSpy failed(&nowhere, &CardNotifier::failed);
        nowhere.setUrl(QUrl(QStringLiteral("http://127.0.0.1:1/")));
        nowhere.notify();
        QTRY_COMPARE(failed.count(), 1);
    }

    void noUrl_sendsNothing()
    {
        CardNotifier notifier;
        QSignalSpy sent(&notifier, &CardNotifier::sent);
        QSignalSpy failed(&notifier, &CardNotifier::failed);
        notifier.notify();
        QTest::qWait(100);
        QCOMPARE(sent.count() + failed.count(), 0);
    }
};

QTEST_MAIN(CardNotifierTest)
#include "cardnotifier_test.moc"
