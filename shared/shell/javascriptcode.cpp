#include "javascriptcode.h"

#include "javascriptreader.h"

namespace Countersign::Shell::JavaScriptCode {

namespace Detail {

Reader::Reader(CommandCatalog &c, const QList<Token> &tokens, const QStringList &lines, QString origin,
               QString moduleFolder)
    : m_c(c), m_t(tokens), m_lines(lines), m_origin(std::move(origin)),
      m_moduleFolder(std::move(moduleFolder)), m_match(tokens.size(), -1)
{
    QList<qsizetype> open;
    for (qsizetype i = 0; i < m_t.size(); ++i) {
        if (isPunct(i, "(") || isPunct(i, "[") || isPunct(i, "{")) {
            open.append(i);
        } else if ((isPunct(i, ")") || isPunct(i, "]") || isPunct(i, "}")) && !open.isEmpty()) {
            m_match[i] = open.last();
            m_match[open.takeLast()] = i;
        }
    }
}

bool Reader::run(QString *why)
{
    for (const bool checking : {false, true}) {
        m_checking = checking;
        m_i = 0;
        m_depth = 0;
        statements(nullptr);
        if (m_failed) {
            *why = m_why;
            return false;
        }
    }
    return true;
}

bool Reader::accept(const char *text)
{
    if (!at(text))
        return false;
    ++m_i;
    return true;
}

void Reader::expect(const char *text)
{
    if (!accept(text))
        fail(QStringLiteral("\"%1\" was expected").arg(QLatin1String(text)));
}

void Reader::fail(const QString &why)
{
    if (m_failed)
        return;
    m_failed = true;
    m_why = QStringLiteral("%1 (%2)").arg(why, sourceOf(std::min(m_i, m_t.size() - 1)));
    m_i = m_t.size(); // every loop ends
}

void Reader::statements(const char *until)
{
    while (ok() && m_i < m_t.size() && !(until && at(until)))
        statement();
}

void Reader::statement()
{
    Nesting nesting(*this);
    if (!ok() || m_i >= m_t.size())
        return;
    if (accept("{")) {
        statements("}");
        return expect("}");
    }
    if (accept(";"))
        return;
    const QString word = isNameAt(m_i) ? m_t.at(m_i).text : QString();
    if (word == QLatin1String("var") || word == QLatin1String("let") || word == QLatin1String("const")) {
        declaration();
        return endStatement();
    }
    if (word == QLatin1String("function") ||
        (word == QLatin1String("async") && isName(m_i + 1, "function") && !m_t.at(m_i + 1).newline)) {
        m_i += word == QLatin1String("async") ? 2 : 1;
        return functionRest(m_i);
    }
    if (word == QLatin1String("if")) {
        ++m_i;
        expect("(");
        expression();
        expect(")");
        statement();
        if (isName(m_i, "else")) {
            ++m_i;
            statement();
        }
        return;
    }
    if (word == QLatin1String("for"))
        return forStatement();
    if (word == QLatin1String("while")) {
        ++m_i;
        expect("(");
        expression();
        expect(")");
        return statement();
    }
    if (word == QLatin1String("do")) {
        ++m_i;
        statement();
        if (!isName(m_i, "while"))
            return fail(QStringLiteral("\"while\" was expected"));
        ++m_i;
        expect("(");
        expression();
        expect(")");
        accept(";");
        return;
    }
    if (word == QLatin1String("switch")) {
        ++m_i;
        expect("(");
        expression();
        expect(")");
        expect("{");
        while (ok() && !at("}")) {
            if (isName(m_i, "case")) {
                ++m_i;
                expression();
                expect(":");
            } else if (isName(m_i, "default")) {
                ++m_i;
                expect(":");
            } else {
                statement();
            }
        }
        return expect("}");
    }
    if (word == QLatin1String("try")) {
        ++m_i;
        body();
        bool handled = false;
        if (isName(m_i, "catch")) {
            ++m_i;
            if (accept("(")) {
                pattern(Value{}, true);
                expect(")");
            }
            body();
            handled = true;
        }
        if (isName(m_i, "finally")) {
            ++m_i;
            body();
            handled = true;
        }
        if (!handled)
            fail(QStringLiteral("a try with neither catch nor finally"));
        return;
    }
    if (word == QLatin1String("return") || word == QLatin1String("throw")) {
        ++m_i;
        if (m_i < m_t.size() && !at(";") && !at("}") && !m_t.at(m_i).newline)
            expression();
        return endStatement();
    }
    if (word == QLatin1String("break") || word == QLatin1String("continue")) {
        ++m_i;
        if (isNameAt(m_i) && !m_t.at(m_i).newline)
            ++m_i;
        return endStatement();
    }
    if (word == QLatin1String("debugger")) {
        ++m_i;
        return endStatement();
    }
    if (word == QLatin1String("class") || word == QLatin1String("import") ||
        word == QLatin1String("export") || word == QLatin1String("with"))
        return fail(QStringLiteral("%1, which Countersign does not read").arg(word));
    if (!word.isEmpty() && isPunct(m_i + 1, ":") && !statementWord(word)) {
        m_i += 2; // a label
        return statement();
    }
    expression();
    endStatement();
}

void Reader::endStatement()
{
    if (!ok() || accept(";") || m_i >= m_t.size() || at("}") || m_t.at(m_i).newline)
        return;
    fail(QStringLiteral("a statement goes on where Countersign expects it to end"));
}

void Reader::declaration()
{
    ++m_i; // var, let, const
    do {
        if (!ok())
            return;
        const qsizetype target = m_i;
        qsizetype afterTarget = -1;
        if (isNameAt(m_i))
            afterTarget = m_i + 1;
        else if ((at("{") || at("[")) && m_match.at(m_i) > m_i)
            afterTarget = m_match.at(m_i) + 1;
        if (afterTarget < 0)
            return fail(QStringLiteral("a declaration Countersign does not read"));
        m_i = afterTarget;
        Value init;
        init.at = target;
        if (accept("="))
            init = assignment(true);
        const qsizetype end = m_i;
        if (!ok())
            return;
        // The names bound, and the defaults in the pattern, read after the value they take.
        m_i = target;
        pattern(init, false);
        if (ok() && m_i != afterTarget)
            return fail(QStringLiteral("a declaration Countersign does not read"));
        m_i = end;
    } while (accept(","));
}

void Reader::pattern(const Value &init, bool parameter)
{
    Nesting nesting(*this);
    if (!ok())
        return;
    const bool module = init.kind == Value::Kind::Module || init.kind == Value::Kind::Member;
    if (isNameAt(m_i) && !statementWord(m_t.at(m_i).text)) {
        bind(m_t.at(m_i).text, m_i, init, !parameter && init.kind == Value::Kind::Function);
        ++m_i;
        return;
    }
    if (accept("[")) {
        if (module && m_checking)
            unknown(m_i - 1, QStringLiteral("takes a module apart as a list"));
        while (ok() && !at("]")) {
            if (accept(","))
                continue; // a hole
            accept("...");
            pattern(Value{}, parameter);
            if (accept("="))
                assignment();
            if (!at("]"))
                expect(",");
        }
        return expect("]");
    }
    if (!accept("{"))
        return fail(QStringLiteral("a binding Countersign does not read"));
    while (ok() && !at("}")) {
        if (accept("...")) {
            if (module && m_checking)
                unknown(m_i - 1,
                        QStringLiteral("takes the rest of a module, where its uses are not followed"));
            pattern(Value{}, parameter);
        } else {
            const qsizetype keyAt = m_i;
            if (!(isNameAt(m_i) || isKind(m_i, Token::Kind::String) || isKind(m_i, Token::Kind::Number)))
                return fail(QStringLiteral("a key Countersign does not read in a binding"));
            const QString key = m_t.at(m_i++).text;
            const Value part = member(init, key, keyAt);
            if (accept(":")) {
                pattern(part, parameter);
            } else {
                if (!isNameAt(keyAt) || statementWord(key))
                    return fail(QStringLiteral("a binding Countersign does not read"));
                bind(key, keyAt, part, false);
            }
            if (accept("="))
                assignment();
        }
        if (!at("}"))
            expect(",");
    }
    expect("}");
}

void Reader::functionRest(qsizetype nameAt)
{
    accept("*");
    Value self;
    self.kind = Value::Kind::Function;
    if (isNameAt(m_i) && !isPunct(m_i, "(")) {
        bind(m_t.at(m_i).text, m_i, self, true);
        ++m_i;
    } else if (nameAt >= 0 && !isNameAt(nameAt)) {
        return fail(QStringLiteral("a function with no name"));
    }
    parameters();
    body();
}

void Reader::parameters()
{
    expect("(");
    while (ok() && !at(")")) {
        accept("...");
        pattern(Value{}, true);
        if (accept("="))
            assignment();
        if (!at(")"))
            expect(",");
    }
    expect(")");
}

void Reader::body()
{
    expect("{");
    statements("}");
    expect("}");
}

void Reader::forStatement()
{
    ++m_i;
    if (isName(m_i, "await"))
        ++m_i;
    expect("(");
    if (isName(m_i, "var") || isName(m_i, "let") || isName(m_i, "const")) {
        const qsizetype k = m_i + 1;
        const qsizetype afterTarget = isNameAt(k) ? k + 1
                                      : (isPunct(k, "{") || isPunct(k, "[")) && m_match.at(k) > k
                                          ? m_match.at(k) + 1
                                          : -1;
        if (afterTarget > 0 && (isName(afterTarget, "of") || isName(afterTarget, "in"))) {
            m_i = k;
            pattern(Value{}, true);
            ++m_i; // of, in
            expression();
            expect(")");
            return statement();
        }
        declaration();
    } else if (isNameAt(m_i) && (isName(m_i + 1, "of") || isName(m_i + 1, "in"))) {
        assigned(m_i, m_i + 1);
        assignTo(resolve(m_i), m_i);
        m_i += 2;
        expression();
        expect(")");
        return statement();
    } else if (!at(";")) {
        expression();
    }
    expect(";");
    if (!at(";"))
        expression();
    expect(";");
    if (!at(")"))
        expression();
    expect(")");
    statement();
}

} // namespace Detail

namespace {

// What one decision reads of JavaScript, nested reads included (code that runs node -e code
// ...): past it, the rest is not read.
struct JsBudget final
{
    int depth = 0;
    qsizetype tokens = 0;
};
JsBudget &jsBudget()
{
    thread_local JsBudget b;
    return b;
}

} // namespace

void read(CommandCatalog &c, const QString &input, const QString &origin, const QString &moduleFolder)
{
    JsBudget &b = jsBudget();
    if (b.depth == 0)
        b.tokens = 0;
    if (b.depth >= 4) {
        c.unknown(
            QStringLiteral("%1: JavaScript nested in JavaScript deeper than Countersign reads").arg(origin));
        return;
    }
    struct Nested final
    {
        JsBudget &b;
        explicit Nested(JsBudget &budget) : b(budget) { ++b.depth; }
        ~Nested() { --b.depth; }
        Nested(const Nested &) = delete;
        Nested &operator=(const Nested &) = delete;
    } nested(b);
    if (input.size() > kMaxCodeChars) {
        c.unknown(QStringLiteral("%1: more JavaScript than Countersign reads").arg(origin));
        return;
    }
    QString code = input;
    code.replace(QLatin1String("\r\n"), QLatin1String("\n"));
    if (code.contains(QLatin1Char('\r'))) {
        c.unknown(
            QStringLiteral("%1 code Countersign cannot read (a carriage return alone, which node reads as a "
                           "line break)")
                .arg(origin));
        return;
    }
    QList<JavaScript::Token> tokens;
    QString why;
    if (!JavaScript::tokenize(code, &tokens, &why)) {
        c.unknown(QStringLiteral("%1 code Countersign cannot read (%2)").arg(origin, why));
        return;
    }
    b.tokens += tokens.size();
    if (b.tokens > JavaScript::kMaxTokens) {
        c.unknown(QStringLiteral("%1: more JavaScript than Countersign reads in one command").arg(origin));
        return;
    }
    const QStringList lines = code.split(QLatin1Char('\n'));
    if (!Detail::Reader(c, tokens, lines, origin, moduleFolder).run(&why)) {
        c.unknown(QStringLiteral("%1 code Countersign cannot read: %2").arg(origin, why));
        return;
    }
    Effect e;
    e.kind = Effect::Kind::Runs;
    e.code = Effect::Code::Read;
    e.what = QStringLiteral(
                 "runs %1, JavaScript Countersign read: it reads, computes and writes only what it names")
                 .arg(origin);
    c.append(std::move(e));
}

} // namespace Countersign::Shell::JavaScriptCode
