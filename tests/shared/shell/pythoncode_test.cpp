// The Python reader on its own (shared/shell/pythoncode): the line each effect quotes, code it
// refuses to read, and inputs written to crash or stall it (it runs on every command an agent
// sends, inside the console). What the judge then decides is commandjudge_test's (the corpus).
#include "commandeffects.h"

#include <QTest>

using namespace Countersign::Shell;

namespace {

QList<Effect> effectsOf(const QString &code)
{
    return CommandEffects::ofPython(code, QStringLiteral("t.py"),
                                    {QStringLiteral("/ws"), QStringLiteral("/home/u")});
}

bool readWhole(const QList<Effect> &effects)
{
    return std::any_of(effects.cbegin(), effects.cend(), [](const Effect &e) {
        return e.kind == Effect::Kind::Runs && e.code == Effect::Code::Read;
    });
}

bool has(const QList<Effect> &effects, Effect::Kind kind)
{
    return std::any_of(effects.cbegin(), effects.cend(), [kind](const Effect &e) { return e.kind == kind; });
}

} // namespace

class PythonCodeTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The card quotes the line of code that made it ask, with its number.
    void anEffect_quotesItsLine()
    {
        const QList<Effect> effects = effectsOf(QStringLiteral("import shutil\n\nshutil.rmtree('build')\n"));
        const auto deletes = std::find_if(effects.cbegin(), effects.cend(),
                                          [](const Effect &e) { return e.kind == Effect::Kind::Deletes; });
        QVERIFY(deletes != effects.cend());
        QCOMPARE(deletes->path, QStringLiteral("/ws/build"));
        QVERIFY2(deletes->what.contains(QLatin1String("t.py, line 3 (shutil.rmtree('build'))")),
                 qPrintable(deletes->what));
    }

    // Strings, comments and f-strings hold no code the reader mistakes for calls, and hide none.
    void stringsAndComments()
    {
        QVERIFY(!has(effectsOf(QStringLiteral("print('os.system(\"rm -rf /\")')  # os.remove('x')\n")),
                     Effect::Kind::Unknown));
        QVERIFY(!has(effectsOf(QStringLiteral("s = '''\nimport os\nos.system('x')\n'''\nprint(s)\n")),
                     Effect::Kind::Unknown));
        // An f-string's expression is code: what it runs is read.
        QVERIFY(has(effectsOf(QStringLiteral("import os\nprint(f\"{os.system('rm -rf build')}\")\n")),
                    Effect::Kind::Deletes));
        QVERIFY(!has(effectsOf(QStringLiteral("x = 3\nprint(f'{x:>10} {{literal}} {x!r}')\n")),
                     Effect::Kind::Unknown));
    }

    // Forms Python reads otherwise than a tokenizer might: refused as a whole.
    void formsPythonReadsOtherwise_areRefused()
    {
        for (const QString &code : {QStringLiteral("print(1) # x\rimport os; os.system('id')"),
                                    QStringLiteral("# -*- coding: utf-7 -*-\nprint(1)\n"),
                                    QStringLiteral("import os\n\uff4f\uff53.system('id')\n"),
                                    QStringLiteral("print(f\"{\"\"+x+\"\"}\")\n"),
                                    QStringLiteral("print('unclosed\n"), QStringLiteral("f(((\n")}) {
            const QList<Effect> effects = effectsOf(code);
            QVERIFY2(!readWhole(effects) && has(effects, Effect::Kind::Unknown), qPrintable(code));
        }
        // CRLF line ends and a UTF-8 declaration are read.
        QVERIFY(readWhole(effectsOf(QStringLiteral("# -*- coding: utf-8 -*-\r\nprint(1)\r\n"))));
    }

    // Inputs that once crashed or stalled the reader: a name bound to its own attribute, a long
    // sum, deep calls. Each is read or refused, and returns.
    void hostileInputs_returnAndFailClosed()
    {
        QVERIFY(readWhole(effectsOf(QStringLiteral("node = node.next\np = p.parent\nprint(node, p)\n"))));
        QString sum = QStringLiteral("x = 1");
        for (int i = 0; i < 20000; ++i)
            sum += QStringLiteral("+1");
        effectsOf(sum); // returns: the sum is no path, and deep recursion is bounded
        QString nested = QStringLiteral("import socket as s\nx = ");
        for (int i = 0; i < 5000; ++i)
            nested += QStringLiteral("s.f(");
        nested += QString(5000, QLatin1Char(')'));
        const QList<Effect> deep = effectsOf(nested);
        QVERIFY(has(deep, Effect::Kind::Unknown)); // brackets nested past the bound: refused
        QString wide = QStringLiteral("import requests\n");
        for (int i = 0; i < 3000; ++i)
            wide += QStringLiteral("requests.get('http://h%1.example')\n").arg(i);
        const QList<Effect> many = effectsOf(wide);
        QVERIFY(many.size() <= 70); // effects are bounded, the rest said in one
        QVERIFY(has(many, Effect::Kind::Unknown));
        // Python that runs Python that runs Python, 30 times at each level: one budget for the
        // whole reading (it grew as N^4 with a budget per reading).
        const auto quoted = [](QString code) {
            code.replace(QLatin1String("\\"), QLatin1String("\\\\"))
                .replace(QLatin1String("'"), QLatin1String("\\'"))
                .replace(QLatin1String("\n"), QLatin1String("\\n"));
            return QLatin1Char('\'') + code + QLatin1Char('\'');
        };
        QString level = QStringLiteral("print(1)\n");
        for (int depth = 0; depth < 3; ++depth) {
            QString next = QStringLiteral("import subprocess\np = %1\n").arg(quoted(level));
            for (int k = 0; k < 30; ++k)
                next += QStringLiteral("subprocess.run(['python3', '-c', p])\n");
            level = next;
        }
        const QList<Effect> nested3 = effectsOf(level);
        QVERIFY(std::any_of(nested3.cbegin(), nested3.cend(), [](const Effect &e) {
            return e.kind == Effect::Kind::Unknown &&
                   e.what.contains(QLatin1String("more Python than Countersign reads"));
        }));
    }
};

QTEST_GUILESS_MAIN(PythonCodeTest)
#include "pythoncode_test.moc"
