#include "javascriptcode.h"

#include "javascriptreader.h"

namespace Countersign::Shell::JavaScriptCode::Detail {

namespace {

bool jsAssignOperator(const QString &op)
{
    static const QSet<QString> ops = wordSet("= += -= *= /= %= **= <<= >>= >>>= &= |= ^= &&= ||= ?\?=");
    return ops.contains(op);
}

bool jsBinaryOperator(const QString &op)
{
    static const QSet<QString> ops = wordSet("+ - * / % ** == != === !== < > <= >= << >> >>> & | ^ && || ??");
    return ops.contains(op);
}

} // namespace

Value Reader::expression()
{
    Value v = assignment();
    while (ok() && accept(","))
        v = assignment();
    return v;
}

bool Reader::arrowAhead() const
{
    const auto parenthesized = [&](qsizetype k) {
        return isPunct(k, "(") && m_match.at(k) > k && isPunct(m_match.at(k) + 1, "=>");
    };
    if (isNameAt(m_i) && isPunct(m_i + 1, "=>"))
        return true;
    if (isName(m_i, "async") && m_i + 1 < m_t.size() && !m_t.at(m_i + 1).newline &&
        ((isNameAt(m_i + 1) && isPunct(m_i + 2, "=>")) || parenthesized(m_i + 1)))
        return true;
    return parenthesized(m_i);
}

Value Reader::arrow(bool async)
{
    Value f;
    f.kind = Value::Kind::Function;
    f.at = m_i;
    if (async)
        ++m_i;
    if (isNameAt(m_i))
        pattern(Value{}, true);
    else
        parameters();
    expect("=>");
    if (at("{")) {
        body();
    } else {
        Value result = assignment();
        use(result);
    }
    return f;
}

void Reader::assigned(qsizetype from, qsizetype to)
{
    const auto one = [&](qsizetype k) {
        const QString &name = m_t.at(k).text;
        if (m_checking) {
            if (!m_bindings.value(name).declared)
                unknown(k, QStringLiteral("assigns %1, a name the code does not declare").arg(name));
            return;
        }
        Binding &b = m_bindings[name];
        b.count += 1;
        b.functions = false;
        b.constant.reset();
    };
    // (p) = x and ((p)) = x assign p.
    while (to - from >= 3 && isPunct(from, "(") && m_match.at(from) == to - 1) {
        ++from;
        --to;
    }
    if (to - from == 1 && isNameAt(from)) {
        one(from);
        return;
    }
    if (!(isPunct(from, "[") || isPunct(from, "{")))
        return;
    for (qsizetype k = from; k < to; ++k) {
        if (isNameAt(k) && !isPunct(k - 1, ".") && !isPunct(k - 1, "?.") && !isPunct(k + 1, ":"))
            one(k);
    }
}

Value Reader::assignment(bool keepModule)
{
    Nesting nesting(*this);
    if (!ok())
        return {};
    if (arrowAhead())
        return arrow(isName(m_i, "async") && !isPunct(m_i + 1, "=>"));
    const qsizetype from = m_i;
    Value left = conditional();
    if (ok() && isKind(m_i, Token::Kind::Punct) && jsAssignOperator(m_t.at(m_i).text)) {
        const bool plain = at("=");
        const qsizetype opAt = m_i++;
        assigned(from, opAt);
        if (m_checking)
            assignTo(left, from);
        Value right = assignment();
        Value result;
        result.at = from;
        if (plain)
            result.text = right.text;
        return result;
    }
    if (!keepModule || (left.kind != Value::Kind::Module && left.kind != Value::Kind::Member))
        use(left);
    return left;
}

Value Reader::conditional()
{
    Value v = binary();
    if (!ok() || !accept("?"))
        return v;
    use(v);
    assignment();
    expect(":");
    assignment();
    Value result;
    result.at = v.at;
    return result;
}

Value Reader::binary()
{
    Value left = unary();
    while (ok() && ((isKind(m_i, Token::Kind::Punct) && jsBinaryOperator(m_t.at(m_i).text)) ||
                    isName(m_i, "in") || isName(m_i, "instanceof"))) {
        const bool plus = at("+");
        ++m_i;
        use(left);
        Value right = unary();
        use(right);
        Value result;
        result.at = left.at;
        if (plus && left.text && right.text && left.text->size() + right.text->size() <= 4096)
            result.text = *left.text + *right.text;
        left = std::move(result);
    }
    return left;
}

Value Reader::unary()
{
    Nesting nesting(*this);
    if (!ok() || m_i >= m_t.size())
        return fail(QStringLiteral("the code ends where an operand was expected")), Value{};
    const qsizetype start = m_i;
    Value result;
    result.at = start;
    if (at("!") || at("~") || at("+") || at("-")) {
        ++m_i;
        Value v = unary();
        use(v);
        return result;
    }
    if (at("++") || at("--")) {
        ++m_i;
        Value v = unary();
        assigned(start + 1, m_i);
        if (m_checking)
            assignTo(v, start);
        return result;
    }
    if (isName(m_i, "typeof")) {
        ++m_i;
        unary(); // the type of anything is harmless to know
        return result;
    }
    if (isName(m_i, "void") || isName(m_i, "delete") || isName(m_i, "await")) {
        ++m_i;
        Value v = unary();
        use(v);
        return result;
    }
    if (isName(m_i, "yield")) {
        ++m_i;
        accept("*");
        if (m_i < m_t.size() && !m_t.at(m_i).newline && !at(")") && !at("]") && !at("}") && !at(",") &&
            !at(";") && !at(":"))
            assignment();
        return result;
    }
    if (isName(m_i, "new")) {
        ++m_i;
        if (at("."))
            return fail(QStringLiteral("new.target, which Countersign does not read")), Value{};
        Value callee = isName(m_i, "new") ? unary() : primary();
        while (ok()) {
            if (accept(".")) {
                if (!isNameAt(m_i))
                    return fail(QStringLiteral("a name was expected after \".\"")), Value{};
                callee = member(callee, m_t.at(m_i).text, m_i);
                ++m_i;
            } else if (at("[")) {
                const qsizetype open = m_i++;
                const Value key = expression();
                expect("]");
                callee = index(callee, key, open);
            } else {
                break;
            }
        }
        const QList<Value> args = at("(") ? arguments() : QList<Value>{};
        return postfix(construct(callee, args, start));
    }
    return postfix(primary());
}

Value Reader::postfix(Value v)
{
    while (ok() && m_i < m_t.size()) {
        if (at(".") || at("?.")) {
            const bool optional = at("?.");
            ++m_i;
            if (optional && at("(")) {
                const QList<Value> args = arguments();
                v = call(v, args, v.at);
                continue;
            }
            if (optional && at("[")) {
                const qsizetype open = m_i++;
                const Value key = expression();
                expect("]");
                v = index(v, key, open);
                continue;
            }
            if (!isNameAt(m_i))
                return fail(QStringLiteral("a name was expected after \".\"")), v;
            v = member(v, m_t.at(m_i).text, m_i);
            ++m_i;
        } else if (at("[")) {
            const qsizetype open = m_i++;
            const Value key = expression();
            expect("]");
            v = index(v, key, open);
        } else if (at("(")) {
            const QList<Value> args = arguments();
            v = call(v, args, v.at);
        } else if (isKind(m_i, Token::Kind::Template) || isKind(m_i, Token::Kind::TemplateHead)) {
            if (m_checking && v.kind != Value::Kind::Refused &&
                !(v.kind == Value::Kind::Global && v.path == QLatin1String("String.raw")))
                unknown(v.at,
                        QStringLiteral("a tagged template, which calls its tag with the template's parts"));
            if (isKind(m_i, Token::Kind::Template))
                ++m_i;
            else
                templateLiteral();
            Value result;
            result.at = v.at;
            v = std::move(result);
        } else if ((at("++") || at("--")) && !m_t.at(m_i).newline) {
            assigned(v.at, m_i);
            if (m_checking)
                assignTo(v, v.at);
            ++m_i;
            Value result;
            result.at = v.at;
            return result;
        } else {
            break;
        }
    }
    return v;
}

QList<Value> Reader::arguments()
{
    QList<Value> args;
    expect("(");
    while (ok() && !at(")")) {
        const bool spread = accept("...");
        Value a = assignment();
        if (spread) {
            a = Value{};
            a.opaque = true;
        }
        args.append(std::move(a));
        if (!at(")"))
            expect(",");
    }
    expect(")");
    return args;
}

Value Reader::primary()
{
    Value v;
    v.at = m_i;
    if (m_i >= m_t.size())
        return fail(QStringLiteral("the code ends where an operand was expected")), v;
    const Token &t = m_t.at(m_i);
    switch (t.kind) {
    case Token::Kind::String:
    case Token::Kind::Template:
        ++m_i;
        if (t.literal) {
            v.text = t.text;
            v.written = true;
            if (m_checking)
                literalPath(v.at, t.text);
        }
        return v;
    case Token::Kind::Number:
        ++m_i;
        v.number = true;
        return v;
    case Token::Kind::Regex:
        ++m_i;
        return v;
    case Token::Kind::TemplateHead:
        return templateLiteral();
    case Token::Kind::TemplateMiddle:
    case Token::Kind::TemplateTail:
        return fail(QStringLiteral("a template Countersign does not read")), v;
    case Token::Kind::Punct:
        if (accept("(")) {
            Value inner = expression();
            expect(")");
            return inner;
        }
        if (at("["))
            return arrayLiteral();
        if (at("{"))
            return objectLiteral();
        return fail(QStringLiteral("\"%1\" where an operand was expected").arg(t.text)), v;
    case Token::Kind::Name:
        break;
    }
    if (t.text == QLatin1String("function") ||
        (t.text == QLatin1String("async") && isName(m_i + 1, "function") && !m_t.at(m_i + 1).newline)) {
        m_i += t.text == QLatin1String("async") ? 2 : 1;
        functionRest(-1);
        v.kind = Value::Kind::Function;
        return v;
    }
    if (t.text == QLatin1String("true") || t.text == QLatin1String("false")) {
        ++m_i;
        v.boolean = t.text == QLatin1String("true");
        return v;
    }
    if (t.text == QLatin1String("null")) {
        ++m_i;
        return v;
    }
    if (statementWord(t.text))
        return fail(QStringLiteral("%1 where an operand was expected").arg(t.text)), v;
    ++m_i;
    return resolve(v.at);
}

Value Reader::templateLiteral()
{
    Value v;
    v.at = m_i;
    ++m_i; // the head
    while (ok()) {
        expression();
        if (isKind(m_i, Token::Kind::TemplateMiddle)) {
            ++m_i;
        } else if (isKind(m_i, Token::Kind::TemplateTail)) {
            ++m_i;
            break;
        } else {
            fail(QStringLiteral("a template Countersign does not read"));
        }
    }
    return v;
}

Value Reader::arrayLiteral()
{
    Value v;
    v.at = m_i;
    v.array = true;
    expect("[");
    while (ok() && !at("]")) {
        if (accept(",")) {
            v.items.append(std::nullopt); // a hole
            continue;
        }
        const bool spread = accept("...");
        const Value item = assignment();
        v.opaque = v.opaque || spread;
        v.items.append(item.text);
        if (!at("]"))
            expect(",");
    }
    expect("]");
    return v;
}

Value Reader::objectLiteral()
{
    Value v;
    v.at = m_i;
    v.object = true;
    expect("{");
    while (ok() && !at("}")) {
        if (accept("...")) {
            assignment();
            v.opaque = true;
        } else {
            const auto modifier = [&] {
                return (isName(m_i, "get") || isName(m_i, "set") || isName(m_i, "async")) &&
                       !(isPunct(m_i + 1, ":") || isPunct(m_i + 1, "(") || isPunct(m_i + 1, ",") ||
                         isPunct(m_i + 1, "}"));
            };
            if (modifier())
                ++m_i;
            accept("*");
            const qsizetype keyAt = m_i;
            QString key;
            if (at("[")) {
                if (m_checking)
                    unknown(m_i, QStringLiteral("a computed key, whose name is only known when it runs"));
                ++m_i;
                expression();
                expect("]");
                v.opaque = true;
            } else if (isNameAt(m_i) || isKind(m_i, Token::Kind::String) ||
                       isKind(m_i, Token::Kind::Number)) {
                key = m_t.at(m_i++).text;
                if (m_checking && isKind(keyAt, Token::Kind::String) && !m_t.at(keyAt).literal)
                    unknown(keyAt, QStringLiteral("a key with an escape Countersign does not decode"));
                member(Value{}, key, keyAt); // a name that reaches internals is refused as a key too
            } else {
                return fail(QStringLiteral("an object Countersign does not read")), v;
            }
            if (at("(")) {
                parameters();
                body();
            } else if (accept(":")) {
                const Value value = assignment();
                v.properties.insert(key, Value::Property{value.text, value.boolean});
            } else {
                if (!isNameAt(keyAt) || statementWord(key))
                    return fail(QStringLiteral("an object Countersign does not read")), v;
                Value value = resolve(keyAt);
                use(value);
                v.properties.insert(key, Value::Property{value.text, value.boolean});
            }
        }
        if (!at("}"))
            expect(",");
    }
    expect("}");
    return v;
}

} // namespace Countersign::Shell::JavaScriptCode::Detail
