#pragma once

#include <QString>
#include <QTest>

// A test helper that cannot do its job reports it here instead of aborting the executable: the
// message is recorded as the running test function's failure (that test fails; the next one runs),
// and false is returned so that the caller writes QVERIFY(helper(...)) and stops there.
inline bool helperFailed(const QString &message, const char *file = __builtin_FILE(),
                         int line = __builtin_LINE())
{
    QTest::qFail(qPrintable(message), file, line);
    return false;
}
