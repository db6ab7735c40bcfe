#include "javascripttokens.h"

#include <QStringView>

namespace Countersign::Shell::JavaScript {

namespace {

QChar jsCharAt(const QString &s, qsizetype k)
{
    return k >= 0 && k < s.size() ? s.at(k) : QChar();
}

// ASCII only: a name in other letters, or written with \u escapes, may not be the name it reads as.
bool jsNameStart(QChar c)
{
    return c.unicode() < 128 && (c.isLetter() || c == QLatin1Char('_') || c == QLatin1Char('$'));
}

bool jsNameChar(QChar c)
{
    return jsNameStart(c) || (c.unicode() < 128 && c.isDigit());
}

// Words after which a "/" starts a regular expression (an operand follows them).
bool jsBeforeOperand(const QString &word)
{
    static const QStringList words = {
        QStringLiteral("return"), QStringLiteral("typeof"), QStringLiteral("case"),
        QStringLiteral("do"),     QStringLiteral("else"),   QStringLiteral("in"),
        QStringLiteral("of"),     QStringLiteral("new"),    QStringLiteral("delete"),
        QStringLiteral("void"),   QStringLiteral("throw"),  QStringLiteral("instanceof"),
        QStringLiteral("yield"),  QStringLiteral("await")};
    return words.contains(word);
}

class JsLexer final
{
public:
    JsLexer(const QString &code, QList<Token> &out) : m_s(code), m_out(out) {}

    bool run(QString *why)
    {
        if (m_s.startsWith(QLatin1String("#!"))) {
            while (m_i < m_s.size() && m_s.at(m_i) != QLatin1Char('\n'))
                ++m_i;
        }
        while (m_i < m_s.size()) {
            if (m_out.size() > kMaxTokens)
                return fail(why, QStringLiteral("more than %1 tokens").arg(kMaxTokens));
            const QChar c = m_s.at(m_i);
            const QChar next = jsCharAt(m_s, m_i + 1);
            if (c == QLatin1Char('\n')) {
                ++m_line;
                ++m_i;
                m_newline = true;
            } else if (c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\v') ||
                       c == QLatin1Char('\f')) {
                ++m_i;
            } else if (c.unicode() >= 128 || c == QLatin1Char('\r')) {
                return fail(
                    why, QStringLiteral("a character outside ASCII outside a string (line %1)").arg(m_line));
            } else if (c == QLatin1Char('/') && next == QLatin1Char('/')) {
                while (m_i < m_s.size() && m_s.at(m_i) != QLatin1Char('\n')) {
                    if (m_s.at(m_i) == QChar(0x2028) || m_s.at(m_i) == QChar(0x2029))
                        return fail(why,
                                    QStringLiteral("a line separator in a comment (line %1)").arg(m_line));
                    ++m_i;
                }
            } else if (c == QLatin1Char('/') && next == QLatin1Char('*')) {
                const qsizetype end = m_s.indexOf(QLatin1String("*/"), m_i + 2);
                if (end < 0)
                    return fail(why, QStringLiteral("a comment is not closed (line %1)").arg(m_line));
                const QStringView body = QStringView(m_s).mid(m_i, end - m_i);
                if (body.contains(QChar(0x2028)) || body.contains(QChar(0x2029)))
                    return fail(why, QStringLiteral("a line separator in a comment (line %1)").arg(m_line));
                const auto lines = body.count(QLatin1Char('\n'));
                m_line += int(lines);
                m_newline = m_newline || lines > 0;
                m_i = end + 2;
            } else if (c == QLatin1Char('\\')) {
                return fail(why, QStringLiteral("a backslash outside a string (line %1)").arg(m_line));
            } else if (c == QLatin1Char('#') || c == QLatin1Char('@')) {
                return fail(why,
                            QStringLiteral("a %1 Countersign does not read (line %2)").arg(c).arg(m_line));
            } else if (jsNameStart(c)) {
                const qsizetype start = m_i;
                while (m_i < m_s.size() && jsNameChar(m_s.at(m_i)))
                    ++m_i;
                if (jsCharAt(m_s, m_i) == QLatin1Char('\\'))
                    return fail(why, QStringLiteral("a name with an escape (line %1)").arg(m_line));
                push(Token::Kind::Name, m_s.mid(start, m_i - start));
            } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
                if (!string(why))
                    return false;
            } else if (c == QLatin1Char('`')) {
                ++m_i;
                if (!templatePart(true, why))
                    return false;
            } else if (c.isDigit() || (c == QLatin1Char('.') && next.isDigit())) {
                if (!number(why))
                    return false;
            } else if (c == QLatin1Char('/') && regexAllowed(why)) {
                if (!regex(why))
                    return false;
            } else if (!why->isEmpty()) {
                return false; // a "/" whose meaning is not sure
            } else if (!punctuator(why)) {
                return false;
            }
        }
        if (!m_open.isEmpty())
            return fail(why, m_open.last().templated ? QStringLiteral("a template is not closed")
                                                     : QStringLiteral("a bracket is not closed"));
        return true;
    }

private:
    struct Open final
    {
        QChar bracket;
        bool control = false;   // "(" after if, while, for, with: a "/" after its ")" starts a regex
        bool templated = false; // "${": its "}" goes on with the template
    };

    bool fail(QString *why, const QString &text)
    {
        *why = text;
        return false;
    }

    void push(Token::Kind kind, const QString &text, bool literal = true, int line = 0)
    {
        Token t;
        t.kind = kind;
        t.text = text;
        t.line = line > 0 ? line : m_line;
        t.literal = literal;
        t.newline = m_newline;
        m_newline = false;
        m_out.append(std::move(t));
    }

    bool isPunct(const Token &t, const char *text) const
    {
        return t.kind == Token::Kind::Punct && t.text == QLatin1String(text);
    }

    // Whether a "/" here starts a regular expression: where an operand cannot come before it.
    // After "}" (a block's end or an object's) or "++" it is not sure, and why says so.
    bool regexAllowed(QString *why)
    {
        if (m_out.isEmpty())
            return true;
        const Token &last = m_out.last();
        switch (last.kind) {
        case Token::Kind::Number:
        case Token::Kind::String:
        case Token::Kind::Template:
        case Token::Kind::Regex:
        case Token::Kind::TemplateTail:
            return false;
        case Token::Kind::TemplateHead:
        case Token::Kind::TemplateMiddle:
            return true;
        case Token::Kind::Name: {
            const bool property = m_out.size() >= 2 && (isPunct(m_out.at(m_out.size() - 2), ".") ||
                                                        isPunct(m_out.at(m_out.size() - 2), "?."));
            // of, yield and await are names as well as words (x?.of / 1, typeof await / 1 in a
            // script): which one the parser meets is not sure here.
            if (!property && (last.text == QLatin1String("of") || last.text == QLatin1String("yield") ||
                              last.text == QLatin1String("await"))) {
                *why = QStringLiteral(
                           "a \"/\" after %1, which may divide or start a regular expression (line %2)")
                           .arg(last.text)
                           .arg(m_line);
                return false;
            }
            return !property && jsBeforeOperand(last.text);
        }
        case Token::Kind::Punct:
            break;
        }
        if (isPunct(last, ")"))
            return m_lastCloseControl;
        if (isPunct(last, "]"))
            return false;
        if (isPunct(last, "}") || isPunct(last, "++") || isPunct(last, "--")) {
            *why =
                QStringLiteral("a \"/\" that may divide or start a regular expression (line %1)").arg(m_line);
            return false;
        }
        return true;
    }

    bool regex(QString *why)
    {
        const qsizetype start = m_i++;
        bool inClass = false;
        for (;;) {
            const QChar c = jsCharAt(m_s, m_i);
            if (c.isNull() || c == QLatin1Char('\n') || c == QLatin1Char('\r') || c == QChar(0x2028) ||
                c == QChar(0x2029))
                return fail(why, QStringLiteral("a regular expression is not closed (line %1)").arg(m_line));
            if (c == QLatin1Char('\\')) {
                const QChar n = jsCharAt(m_s, m_i + 1);
                if (n.isNull() || n == QLatin1Char('\n'))
                    return fail(why,
                                QStringLiteral("a regular expression is not closed (line %1)").arg(m_line));
                m_i += 2;
                continue;
            }
            ++m_i;
            if (c == QLatin1Char('['))
                inClass = true;
            else if (c == QLatin1Char(']'))
                inClass = false;
            else if (c == QLatin1Char('/') && !inClass)
                break;
        }
        while (m_i < m_s.size() && jsNameChar(m_s.at(m_i)))
            ++m_i;
        push(Token::Kind::Regex, m_s.mid(start, m_i - start));
        return true;
    }

    bool number(QString *why)
    {
        const qsizetype start = m_i;
        const auto digits = [&](bool hex) {
            while (m_i < m_s.size() && (m_s.at(m_i).isDigit() || m_s.at(m_i) == QLatin1Char('_') ||
                                        (hex && QStringView(u"abcdefABCDEF").contains(m_s.at(m_i)))))
                ++m_i;
        };
        const QChar second = jsCharAt(m_s, m_i + 1).toLower();
        if (m_s.at(m_i) == QLatin1Char('0') &&
            (second == QLatin1Char('x') || second == QLatin1Char('o') || second == QLatin1Char('b'))) {
            m_i += 2;
            digits(true);
        } else {
            digits(false);
            if (jsCharAt(m_s, m_i) == QLatin1Char('.')) {
                ++m_i;
                digits(false);
            }
            const QChar e = jsCharAt(m_s, m_i).toLower(), sign = jsCharAt(m_s, m_i + 1);
            if (e == QLatin1Char('e') &&
                (sign.isDigit() || ((sign == QLatin1Char('+') || sign == QLatin1Char('-')) &&
                                    jsCharAt(m_s, m_i + 2).isDigit()))) {
                m_i += 2;
                digits(false);
            }
        }
        if (jsCharAt(m_s, m_i) == QLatin1Char('n'))
            ++m_i;
        if (jsNameChar(jsCharAt(m_s, m_i)) || jsCharAt(m_s, m_i) == QLatin1Char('\\'))
            return fail(why, QStringLiteral("a number followed by a letter (line %1)").arg(m_line));
        push(Token::Kind::Number, m_s.mid(start, m_i - start));
        return true;
    }

    // One escape from m_i (at the backslash), its value appended; false: not decoded.
    bool escape(QString &value)
    {
        const QChar n = jsCharAt(m_s, m_i + 1);
        m_i += 2;
        static const QString simple = QStringLiteral("ntrbfv");
        static const QString decoded = QStringLiteral("\n\t\r\b\f\v");
        if (n == QLatin1Char('\n')) {
            ++m_line;
            return true; // a line continuation
        }
        if (const auto k = simple.indexOf(n); k >= 0) {
            value += decoded.at(k);
            return true;
        }
        if (n == QLatin1Char('0') && !jsCharAt(m_s, m_i).isDigit()) {
            value += QChar(0);
            return true;
        }
        if (n.isDigit() || n == QLatin1Char('x') || n == QLatin1Char('u') || n == QChar(0x2028) ||
            n == QChar(0x2029)) {
            value += QLatin1Char('\\');
            value += n;
            return false;
        }
        value += n;
        return true;
    }

    bool string(QString *why)
    {
        const QChar quote = m_s.at(m_i++);
        const int startLine = m_line;
        QString value;
        bool literal = true;
        for (;;) {
            const QChar c = jsCharAt(m_s, m_i);
            if (c.isNull() || c == QLatin1Char('\n') || c == QLatin1Char('\r'))
                return fail(why, QStringLiteral("a string is not closed (line %1)").arg(startLine));
            if (c == QLatin1Char('\\')) {
                if (m_i + 1 >= m_s.size())
                    return fail(why, QStringLiteral("a string is not closed (line %1)").arg(startLine));
                literal = escape(value) && literal;
                continue;
            }
            ++m_i;
            if (c == quote)
                break;
            value += c;
        }
        push(Token::Kind::String, value, literal, startLine);
        return true;
    }

    // A template's text from m_i (after "`" or the "}" ending a ${...}) to "`" or "${".
    bool templatePart(bool first, QString *why)
    {
        const int startLine = m_line;
        QString value;
        bool literal = true;
        for (;;) {
            const QChar c = jsCharAt(m_s, m_i);
            if (c.isNull())
                return fail(why, QStringLiteral("a template is not closed (line %1)").arg(startLine));
            if (c == QLatin1Char('\\')) {
                if (m_i + 1 >= m_s.size())
                    return fail(why, QStringLiteral("a template is not closed (line %1)").arg(startLine));
                literal = escape(value) && literal;
                continue;
            }
            if (c == QLatin1Char('`')) {
                ++m_i;
                push(first ? Token::Kind::Template : Token::Kind::TemplateTail, value, literal, startLine);
                return true;
            }
            if (c == QLatin1Char('$') && jsCharAt(m_s, m_i + 1) == QLatin1Char('{')) {
                m_i += 2;
                push(first ? Token::Kind::TemplateHead : Token::Kind::TemplateMiddle, value, false,
                     startLine);
                if (m_open.size() >= kMaxNesting)
                    return fail(why, QStringLiteral("brackets nested deeper than Countersign reads"));
                Open o;
                o.bracket = QLatin1Char('{');
                o.templated = true;
                m_open.append(o);
                return true;
            }
            if (c == QLatin1Char('\n'))
                ++m_line;
            value += c;
            ++m_i;
        }
    }

    bool punctuator(QString *why)
    {
        static const QStringList longest = {
            QStringLiteral(">>>="), QStringLiteral("..."), QStringLiteral("==="),  QStringLiteral("!=="),
            QStringLiteral("**="),  QStringLiteral("<<="), QStringLiteral(">>="),  QStringLiteral(">>>"),
            QStringLiteral("&&="),  QStringLiteral("||="), QStringLiteral("?\?="), QStringLiteral("=>"),
            QStringLiteral("=="),   QStringLiteral("!="),  QStringLiteral("<="),   QStringLiteral(">="),
            QStringLiteral("&&"),   QStringLiteral("||"),  QStringLiteral("??"),   QStringLiteral("?."),
            QStringLiteral("++"),   QStringLiteral("--"),  QStringLiteral("+="),   QStringLiteral("-="),
            QStringLiteral("*="),   QStringLiteral("/="),  QStringLiteral("%="),   QStringLiteral("&="),
            QStringLiteral("|="),   QStringLiteral("^="),  QStringLiteral("**"),   QStringLiteral("<<"),
            QStringLiteral(">>")};
        const QStringView rest = QStringView(m_s).mid(m_i);
        if (rest.startsWith(QLatin1String("<!--")) || rest.startsWith(QLatin1String("-->")))
            return fail(why, QStringLiteral("an HTML-like comment (line %1)").arg(m_line));
        QString op;
        for (const QString &p : longest) {
            if (rest.startsWith(p)) {
                op = p;
                break;
            }
        }
        if (op == QLatin1String("?.") && jsCharAt(m_s, m_i + 2).isDigit())
            op.clear(); // a ? .5 : b
        if (op.isEmpty()) {
            const QChar c = m_s.at(m_i);
            if (!QStringView(u"{}()[];,<>+-*/%&|^!~?:=.").contains(c))
                return fail(why,
                            QStringLiteral("a character Countersign does not read (line %1)").arg(m_line));
            op = QString(c);
        }
        m_i += op.size();
        const QChar c = op.at(0);
        if (op.size() == 1 && (c == QLatin1Char('(') || c == QLatin1Char('[') || c == QLatin1Char('{'))) {
            if (m_open.size() >= kMaxNesting)
                return fail(why, QStringLiteral("brackets nested deeper than Countersign reads"));
            Open o;
            o.bracket = c;
            static const QStringList controls = {QStringLiteral("if"), QStringLiteral("while"),
                                                 QStringLiteral("for"), QStringLiteral("with")};
            o.control = c == QLatin1Char('(') && !m_out.isEmpty() && m_out.last().kind == Token::Kind::Name &&
                        controls.contains(m_out.last().text) &&
                        !(m_out.size() >= 2 && (isPunct(m_out.at(m_out.size() - 2), ".") ||
                                                isPunct(m_out.at(m_out.size() - 2), "?."))); // a.if(x) / 2
            m_open.append(o);
        } else if (op.size() == 1 &&
                   (c == QLatin1Char(')') || c == QLatin1Char(']') || c == QLatin1Char('}'))) {
            const QChar opening = c == QLatin1Char(')')   ? QLatin1Char('(')
                                  : c == QLatin1Char(']') ? QLatin1Char('[')
                                                          : QLatin1Char('{');
            if (m_open.isEmpty() || m_open.last().bracket != opening)
                return fail(why,
                            QStringLiteral("a bracket closes that was not opened (line %1)").arg(m_line));
            const Open o = m_open.takeLast();
            if (o.templated)
                return templatePart(false, why);
            m_lastCloseControl = o.control;
        }
        push(Token::Kind::Punct, op);
        return true;
    }

    const QString &m_s;
    QList<Token> &m_out;
    QList<Open> m_open;
    qsizetype m_i = 0;
    int m_line = 1;
    bool m_newline = false;
    bool m_lastCloseControl = false;
};

} // namespace

bool tokenize(const QString &code, QList<Token> *tokens, QString *why)
{
    why->clear();
    JsLexer lexer(code, *tokens);
    return lexer.run(why);
}

} // namespace Countersign::Shell::JavaScript
