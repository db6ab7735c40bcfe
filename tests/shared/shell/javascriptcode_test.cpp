// The JavaScript reader on its own (shared/shell/javascriptcode), through the node command lines
// that give it code: the line each effect quotes, strings, comments, regular expressions and
// templates, the code it refuses to read, and inputs written to crash or stall it. What the judge
// then decides is commandjudge_test's (the corpus and tests/shell/inline-code.json).
#include "commandeffects.h"

#include <QTest>

using namespace Countersign::Shell;

namespace {

QString quoted(QString code)
{
    code.replace(QLatin1String("'"), QLatin1String("'\\''"));
    return QLatin1Char('\'') + code + QLatin1Char('\'');
}

const CommandEffects::Context kContext = {QStringLiteral("/ws"), QStringLiteral("/home/u")};

QList<Effect> effectsOf(const QString &code)
{
    return CommandEffects::ofLine(QStringLiteral("node -e ") + quoted(code), kContext);
}

QList<Effect> hereDocument(const QString &code)
{
    return CommandEffects::ofLine(QStringLiteral("node <<'EOF'\n%1\nEOF").arg(code), kContext);
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

// Read as a whole, and nothing in it asks by itself.
bool quiet(const QList<Effect> &effects)
{
    return readWhole(effects) && std::all_of(effects.cbegin(), effects.cend(), [](const Effect &e) {
               return e.kind == Effect::Kind::Reads || e.kind == Effect::Kind::Runs ||
                      e.kind == Effect::Kind::Writes;
           });
}

QString described(const QList<Effect> &effects)
{
    QStringList out;
    for (const Effect &e : effects)
        out.append(CommandEffects::kindName(e.kind) + QStringLiteral(": ") + e.what);
    return out.join(QLatin1String("\n"));
}

// The first effect of kind (with path, when one is given).
const Effect *first(const QList<Effect> &effects, Effect::Kind kind, const QString &path = {})
{
    const auto it = std::find_if(effects.cbegin(), effects.cend(), [&](const Effect &e) {
        return e.kind == kind && (path.isEmpty() || e.path == path);
    });
    return it == effects.cend() ? nullptr : &*it;
}

} // namespace

class JavaScriptCodeTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The card quotes the line of code that made it ask, with its number.
    void anEffect_quotesItsLine()
    {
        const QList<Effect> effects = hereDocument(
            QStringLiteral("const fs = require('fs');\n\nfs.rmSync('build', {recursive: true});"));
        const Effect *deletes = first(effects, Effect::Kind::Deletes);
        QVERIFY2(deletes, qPrintable(described(effects)));
        QCOMPARE(deletes->path, QStringLiteral("/ws/build"));
        QVERIFY2(deletes->what.contains(
                     QLatin1String("node's here-document, line 3 (fs.rmSync('build', {recursive: true});)")),
                 qPrintable(deletes->what));
        const QList<Effect> inlined = effectsOf(QStringLiteral("require('fs').unlinkSync('a.txt')"));
        const Effect *unlink = first(inlined, Effect::Kind::Deletes);
        QVERIFY2(unlink &&
                     unlink->what.startsWith(QLatin1String("node -e, line 1 (require('fs').unlinkSync")),
                 qPrintable(described(inlined)));
    }

    // Everyday one-liners: read, computed and printed with nothing that asks.
    void harmlessCode_isReadQuietly_data()
    {
        QTest::addColumn<QString>("code");
        QTest::newRow("print") << "console.log(1 + 1)";
        QTest::newRow("version") << "process.versions.node";
        // (require('./package.json') is read only where the file is: tests/shell/corpus.json.)
        QTest::newRow("path") << "console.log(require('path').join('a', 'b'))";
        QTest::newRow("line count")
            << "const fs=require('fs'); console.log(fs.readFileSync('README.md','utf8').split('\\n').length)";
        QTest::newRow("destructured") << "const {readFileSync, writeFileSync} = require('node:fs');\n"
                                         "const s = readFileSync('src/main.rs', 'utf8');\n"
                                         "writeFileSync('src/main.rs', s.replace(/hi/g, 'hello'));";
        QTest::newRow("functions") << "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }\n"
                                      "const sq = x => x * x;\n"
                                      "console.log([1, 2, 3].map(sq).filter(Boolean), fib(10));";
        QTest::newRow("control")
            << "let t = 0;\nfor (let i = 0; i < 10; i++) { if (i % 2) continue; t += i }\n"
               "for (const [k, v] of Object.entries({a: 1})) console.log(k, v);\n"
               "switch (t) { case 20: console.log('twenty'); break; default: }\n"
               "try { JSON.parse('x') } catch (e) { console.error(e.message) } finally {}\n"
               "while (t > 0) t -= 7;\ndo { t++ } while (t < 3);";
        QTest::newRow("json") << "const p = JSON.parse(require('fs').readFileSync('package.json', 'utf8'));\n"
                                 "console.log(Object.keys(p.scripts).sort().join(', '))";
        QTest::newRow("templates")
            << "const n = 3; console.log(`${n} items, ${[1, 2].map(x => `<${x}>`).join('')}`)";
        QTest::newRow("regex")
            << "const m = 'a1b22'.match(/[0-9]+/g); if (m) /x/.test('x'); console.log(m, 4 / 2 / 1)";
        QTest::newRow("async")
            << "(async () => { const s = await require('fs').promises.readFile('a.txt', 'utf8');\n"
               "console.log(s.trim()) })().catch(e => { console.error(e); process.exit(1) })";
        QTest::newRow("path") << "const path = require('path'); console.log(path.join('src', 'main.rs'), "
                                 "path.basename('/x/y.js', '.js'), ['a/b'].map(path.dirname))";
        QTest::newRow("stdin") << "let d = ''; process.stdin.setEncoding('utf8').on('data', c => d += c)"
                                  ".on('end', () => console.log(JSON.parse(d).name))";
        QTest::newRow("env")
            << "console.log(process.env.NODE_ENV || 'dev', process.env['PATH'].split(':').length)";
        QTest::newRow("git log") << "const {execSync} = require('child_process');\n"
                                    "console.log(execSync('git log --oneline -3').toString())";
        QTest::newRow("spawnSync")
            << "const r = require('child_process').spawnSync('git', ['status', '--short'], "
               "{encoding: 'utf8'}); console.log(r.stdout)";
        QTest::newRow("map and set")
            << "const m = new Map([[1, 'a']]); const s = new Set([1, 2]);\n"
               "m.set(2, 'b'); s.add(3); s.delete(1); console.log(m.get(2), s.has(3), [...s])";
        QTest::newRow("crypto") << "const c = require('crypto');\nconsole.log(c.createHash('sha256').update("
                                   "require('fs').readFileSync('a.txt')).digest('hex'))";
        QTest::newRow("labels and objects")
            << "outer: for (const x of [1]) { for (;;) break outer }\n"
               "const o = {a: 1, 'b': 2, f() { return 1 }, get g() { return 2 }};\n"
               "const {a, b: renamed = 3, ...rest} = o; console.log(a, renamed, rest)";
        QTest::newRow("hashbang")
            << "#!/usr/bin/env node\nconsole.log(Math.max(...[1, 2]), Number('3'), 0x1f, 1e3, 10n)";
    }
    void harmlessCode_isReadQuietly()
    {
        QFETCH(QString, code);
        const QList<Effect> effects = effectsOf(code);
        QVERIFY2(quiet(effects), qPrintable(described(effects)));
        QVERIFY2(quiet(hereDocument(code)), qPrintable(described(hereDocument(code))));
    }

    // What asks, with the kind of effect it makes.
    void effects_areNamed_data()
    {
        QTest::addColumn<QString>("code");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("path");
        const auto k = [](Effect::Kind kind) { return int(kind); };
        QTest::newRow("rmSync") << "require('fs').rmSync('build', {recursive: true})"
                                << k(Effect::Kind::Deletes) << "/ws/build";
        QTest::newRow("fs.promises.rm")
            << "require('fs/promises').rm('build')" << k(Effect::Kind::Deletes) << "/ws/build";
        QTest::newRow("unknown path")
            << "const fs = require('fs'); fs.unlinkSync(process.argv[1])" << k(Effect::Kind::Deletes) << "";
        QTest::newRow("writeFile outside")
            << "require('fs').writeFileSync('/etc/hosts', 'x')" << k(Effect::Kind::Writes) << "/etc/hosts";
        QTest::newRow("rename") << "require('fs').renameSync('a.txt', 'b.txt')" << k(Effect::Kind::Writes)
                                << "/ws/a.txt";
        QTest::newRow("ssh key")
            << "require('fs').readFileSync(require('path').join(require('os').homedir(), "
               "'.ssh', 'id_rsa'))"
            << k(Effect::Kind::Reads) << "/home/u/.ssh/id_rsa";
        QTest::newRow("secret string") << "console.log('.env')" << k(Effect::Kind::Secret) << "";
        QTest::newRow("secret variable")
            << "console.log(process.env.GITHUB_TOKEN)" << k(Effect::Kind::Secret) << "";
        QTest::newRow("whole environment")
            << "console.log(JSON.stringify(process.env))" << k(Effect::Kind::Secret) << "";
        QTest::newRow("computed variable")
            << "const k = process.argv[2]; console.log(process.env[k])" << k(Effect::Kind::Secret) << "";
        QTest::newRow("fetch") << "fetch('https://x.example/upload', {method: 'POST'})"
                               << k(Effect::Kind::Network) << "x.example";
        QTest::newRow("https") << "require('https').get('https://h.example/x', r => r.pipe(process.stdout))"
                               << k(Effect::Kind::Network) << "h.example";
        QTest::newRow("execSync rm") << "require('child_process').execSync('rm -rf build')"
                                     << k(Effect::Kind::Deletes) << "/ws/build";
        QTest::newRow("spawn rm") << "require('child_process').spawn('rm', ['-rf', 'src'])"
                                  << k(Effect::Kind::Deletes) << "/ws/src";
        QTest::newRow("spawn cwd") << "require('child_process').spawnSync('rm', ['-rf', 'x'], {cwd: '/tmp'})"
                                   << k(Effect::Kind::Deletes) << "/tmp/x";
        QTest::newRow("spawn env") << "require('child_process').spawnSync('ls', [], {env: {PATH: '/x'}})"
                                   << k(Effect::Kind::Environment) << "";
        QTest::newRow("symlink") << "require('fs').symlinkSync('/home/u/.ssh/id_rsa', 'k')"
                                 << k(Effect::Kind::Reads) << "/home/u/.ssh/id_rsa";
    }
    void effects_areNamed()
    {
        QFETCH(QString, code);
        QFETCH(int, kind);
        QFETCH(QString, path);
        const QList<Effect> effects = effectsOf(code);
        const Effect *e = first(effects, Effect::Kind(kind), path);
        QVERIFY2(e, qPrintable(described(effects)));
        QVERIFY2(!e->source.isEmpty() || e->what.contains(QLatin1String("node -e")), qPrintable(e->what));
    }

    // Code the reader cannot follow: Unknown, with the line it is on.
    void codeItCannotFollow_isUnknown_data()
    {
        QTest::addColumn<QString>("code");
        QTest::newRow("eval") << "eval(Buffer.from('cmVxdWlyZSgiY2hpbGRfcHJvY2VzcyIp', 'base64').toString())";
        QTest::newRow("Function") << "new Function('return process')()";
        QTest::newRow("constructor chain") << "[].constructor.constructor('return process')()";
        QTest::newRow("computed constructor")
            << "const x = {}; x['con' + 'structor']['con' + 'structor']('x')()";
        QTest::newRow("literal constructor") << "''['constructor']";
        QTest::newRow("escaped constructor") << "''['\\x63onstructor']";
        QTest::newRow("joined key") << "require('child_process')['exec' + 'Sync']('id')";
        QTest::newRow("constant key") << "const k = 'execSync'; require('child_process')[k]('id')";
        QTest::newRow("computed index") << "const a = [1]; const i = 0; console.log(a[i])";
        QTest::newRow("prototype") << "Object.getPrototypeOf(async function () {}).constructor";
        QTest::newRow("descriptor") << "Object.getOwnPropertyDescriptor(globalThis, 'process')";
        QTest::newRow("__proto__") << "({}).__proto__.x = 1";
        QTest::newRow("vm") << "require('vm').runInThisContext('1')";
        QTest::newRow("worker") << "require('worker_threads')";
        QTest::newRow("package") << "require('left-pad')('x', 3)";
        QTest::newRow("project module") << "require('./scripts/build')";
        QTest::newRow("computed require") << "require('child' + '_process' + process.argv[2])";
        QTest::newRow("require handed") << "const r = require; r('child_process').execSync('id')";
        QTest::newRow("module handed")
            << "const cp = require('child_process'); const m = [cp]; m[0].execSync('id')";
        QTest::newRow("function handed") << "const {rmSync} = require('fs'); ['build'].forEach(rmSync)";
        QTest::newRow("module rebound")
            << "let fs = require('fs'); fs = require('child_process'); fs.execSync('id')";
        QTest::newRow("dynamic import") << "import('child_process').then(c => c.execSync('id'))";
        QTest::newRow("import statement") << "import fs from 'fs'";
        QTest::newRow("process.binding") << "process.binding('spawn_sync')";
        QTest::newRow("process.kill") << "process.kill(1)";
        QTest::newRow("process.chdir") << "process.chdir('/')";
        QTest::newRow("globalThis") << "globalThis.process";
        QTest::newRow("this") << "(function () { return this })().process";
        QTest::newRow("arguments") << "(function () { return arguments.callee })()";
        QTest::newRow("setTimeout string") << "setTimeout('console.log(1)', 1)";
        QTest::newRow("calls a parameter") << "function f(g) { return g('x') } f(console.log)";
        QTest::newRow("tagged template") << "const t = (s) => s; t`x`";
        QTest::newRow("with") << "with (Math) { max(1) }";
        QTest::newRow("class") << "class A { constructor() {} }";
        QTest::newRow("Reflect") << "Reflect.apply(console.log, null, [1])";
        QTest::newRow("binds a trusted name") << "const require = () => 1; require('x')";
        QTest::newRow("undeclared global") << "x = 1";
        QTest::newRow("unknown method") << "const s = 'x'; s.anchor('y')";
        QTest::newRow("call apply bind") << "console.log.call(null, 1)";
        QTest::newRow("console handed") << "const c = console; c.log(1)";
        QTest::newRow("exec of a variable")
            << "const c = process.argv[2]; require('child_process').execSync(c)";
        QTest::newRow("exec input") << "require('child_process').execSync('sh', {input: 'rm -rf /'})";
        QTest::newRow("fs other") << "require('fs').openAsBlob('x')";
        QTest::newRow("os userInfo") << "require('os').userInfo()";
        QTest::newRow("Error.prepareStackTrace") << "Error.prepareStackTrace = (e, s) => s";
    }
    void codeItCannotFollow_isUnknown()
    {
        QFETCH(QString, code);
        const QList<Effect> effects = effectsOf(code);
        const Effect *e = first(effects, Effect::Kind::Unknown);
        QVERIFY2(e, qPrintable(described(effects)));
        QVERIFY2(e->what.contains(QLatin1String("node -e")), qPrintable(e->what));
    }

    // Strings, comments, regular expressions and templates hold no code the reader mistakes for
    // calls, and hide none.
    void stringsCommentsAndTemplates()
    {
        QVERIFY(quiet(effectsOf(QStringLiteral("console.log('require(\"child_process\").execSync(\"rm\")') "
                                               "// require('fs').rmSync('x')\n/* eval('x') */"))));
        QVERIFY(quiet(effectsOf(QStringLiteral("console.log(`eval(x) ${'y'} require('vm')`)"))));
        QVERIFY(quiet(
            effectsOf(QStringLiteral("console.log(/eval\\(x\\)[/]/.source, 'a'.replace(/'/g, '\"'))"))));
        // A template's ${expression} is code: what it does is read.
        QVERIFY(has(effectsOf(QStringLiteral("console.log(`${require('fs').rmSync('build')}`)")),
                    Effect::Kind::Deletes));
        // A division is no regular expression: the code after it is read.
        QVERIFY(
            has(effectsOf(QStringLiteral("const a = 4, b = 2; const c = a / b; require('fs').rmSync('x'); "
                                         "const d = c / 2")),
                Effect::Kind::Deletes));
        QVERIFY(has(effectsOf(QStringLiteral(
                        "const a = [4]; const c = a[0] / 2; require('fs').rmSync('x'); a[0] / 1")),
                    Effect::Kind::Deletes));
    }

    // Forms node reads otherwise than a tokenizer might, or that cannot be read for sure: refused
    // as a whole.
    void formsReadOtherwise_areRefused_data()
    {
        QTest::addColumn<QString>("code");
        QTest::newRow("unterminated string") << "console.log('x)";
        QTest::newRow("unterminated comment") << "/* console.log(1)";
        QTest::newRow("unterminated template") << "console.log(`x ${1}";
        QTest::newRow("unterminated regex") << "const r = /abc";
        QTest::newRow("html comment") << "console.log(1) <!-- require('fs').rmSync('x')";
        QTest::newRow("html close") << "x\n--> require('fs').rmSync('x')";
        QTest::newRow("hashbang later") << "console.log(1)\n#!/bin/sh";
        QTest::newRow("non-ASCII name") << "const \u0435val = 1";
        QTest::newRow("escaped name") << "\\u0065val('x')";
        QTest::newRow("line separator in comment") << QStringLiteral("// x\u2028require('fs').rmSync('x')");
        QTest::newRow("lone carriage return") << "// x\rrequire('fs').rmSync('x')";
        QTest::newRow("slash after brace") << "if (1) {} /x/.test('x')";
        QTest::newRow("unbalanced") << "console.log((1)";
        QTest::newRow("private name") << "#x";
        QTest::newRow("two operands") << "console.log(1) console.log(2)";
    }
    void formsReadOtherwise_areRefused()
    {
        QFETCH(QString, code);
        const QList<Effect> effects = effectsOf(code);
        QVERIFY2(!readWhole(effects) && has(effects, Effect::Kind::Unknown), qPrintable(described(effects)));
    }

    // node's options around the code: ones after it may load code first.
    void optionsAfterTheCode_ask()
    {
        QVERIFY(!readWhole(
            CommandEffects::ofLine(QStringLiteral("node -e 'console.log(1)' -r ./evil.js"), kContext)));
        QVERIFY(readWhole(CommandEffects::ofLine(QStringLiteral("node -p '1 + 1' -- --x"), kContext)));
        QVERIFY(readWhole(CommandEffects::ofLine(QStringLiteral("node --eval='console.log(2)'"), kContext)));
        QVERIFY(readWhole(CommandEffects::ofLine(QStringLiteral("nodejs --print 'process.arch'"), kContext)));
        QVERIFY(readWhole(
            CommandEffects::ofLine(QStringLiteral("node - <<'EOF'\nconsole.log(1)\nEOF"), kContext)));
        QVERIFY(!readWhole(CommandEffects::ofLine(QStringLiteral("node -e \"$CODE\""), kContext)));
    }

    // Inputs written to crash or stall the reader: each is read or refused, and returns.
    void hostileInputs_returnAndFailClosed()
    {
        QString deep = QStringLiteral("console.log(");
        for (int i = 0; i < 5000; ++i)
            deep += QStringLiteral("[");
        deep += QString(5000, QLatin1Char(']')) + QStringLiteral(")");
        QVERIFY(has(effectsOf(deep), Effect::Kind::Unknown));
        QString unary = QStringLiteral("console.log(");
        for (int i = 0; i < 20000; ++i)
            unary += QStringLiteral("- ");
        QVERIFY(has(effectsOf(unary + QStringLiteral("1)")), Effect::Kind::Unknown));
        QString arrows = QStringLiteral("const f = ");
        for (int i = 0; i < 5000; ++i)
            arrows += QStringLiteral("x => ");
        QVERIFY(has(effectsOf(arrows + QStringLiteral("1")), Effect::Kind::Unknown));
        QString sum = QStringLiteral("const x = 1");
        for (int i = 0; i < 20000; ++i)
            sum += QStringLiteral("+1");
        QVERIFY(readWhole(effectsOf(sum)));
        QString strings = QStringLiteral("const s = 'a'");
        for (int i = 0; i < 20000; ++i)
            strings += QStringLiteral("+'aaaaaaaa'");
        QVERIFY(readWhole(effectsOf(strings)));
        QString wide;
        for (int i = 0; i < 3000; ++i)
            wide += QStringLiteral("fetch('http://h%1.example')\n").arg(i);
        const QList<Effect> many = hereDocument(wide);
        QVERIFY(many.size() <= 70);
        QVERIFY(has(many, Effect::Kind::Unknown));
        QString ifs;
        for (int i = 0; i < 3000; ++i)
            ifs += QStringLiteral("if (1) ");
        QVERIFY(has(effectsOf(ifs + QStringLiteral("console.log(1)")), Effect::Kind::Unknown));
        QString big =
            QStringLiteral("console.log('") + QString(300 * 1024, QLatin1Char('a')) + QStringLiteral("')");
        QVERIFY(has(hereDocument(big), Effect::Kind::Unknown));
        for (const QString &cut :
             {QStringLiteral("("), QStringLiteral("`${"), QStringLiteral("{"), QStringLiteral("a."),
              QStringLiteral("new"), QStringLiteral("const"), QStringLiteral("x =>"), QStringLiteral("'\\"),
              QStringLiteral("/"), QStringLiteral("for (;;"), QStringLiteral("a ? b")})
            QVERIFY2(has(effectsOf(cut), Effect::Kind::Unknown), qPrintable(cut));
    }
};

QTEST_GUILESS_MAIN(JavaScriptCodeTest)
#include "javascriptcode_test.moc"
