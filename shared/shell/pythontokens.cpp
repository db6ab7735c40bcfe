#include "pythontokens.h"

#include <QRegularExpression>

namespace Countersign::Shell::Python {

namespace {

QChar charAt(const QString &s, qsizetype k)
{
    return k >= 0 && k < s.size() ? s.at(k) : QChar();
}

// ASCII only: Python folds other letters to these (NFKC), so a name in them is not what it reads as.
bool nameStart(QChar c)
{
    return c == QLatin1Char('_') || (c.unicode() < 128 && c.isLetter());
}

bool nameChar(QChar c)
{
    return nameStart(c) || c.isDigit();
}

class Lexer final
{
public:
    Lexer(const QString &code, int line, QList<Token> &out) : m_s(code), m_line(line), m_out(out) {}

    bool run(QString *why, int depth)
    {
        if (depth > 8) {
            *why = QStringLiteral("f-strings nested too deep");
            return false;
        }
        m_depth = depth;
        int brackets = 0;
        while (m_i < m_s.size()) {
            const QChar c = m_s.at(m_i);
            if (c == QLatin1Char('#')) {
                while (m_i < m_s.size() && m_s.at(m_i) != QLatin1Char('\n'))
                    ++m_i;
            } else if (c == QLatin1Char('\\') && charAt(m_s, m_i + 1) == QLatin1Char('\n')) {
                m_i += 2;
                ++m_line;
            } else if (c == QLatin1Char('\n')) {
                if (brackets == 0)
                    push(Token::Kind::Op, QStringLiteral("\n"));
                ++m_line;
                ++m_i;
            } else if (c.unicode() >= 128 || c == QLatin1Char('\r')) {
                *why = c == QLatin1Char('\r')
                           ? QStringLiteral("a carriage return alone, which Python reads as a line break")
                           : QStringLiteral(
                                 "a character outside ASCII, which Python may read as a letter (line %1)")
                                 .arg(m_line);
                return false;
            } else if (c.isSpace()) {
                ++m_i;
            } else if (nameStart(c)) {
                const qsizetype start = m_i;
                while (m_i < m_s.size() && nameChar(m_s.at(m_i)))
                    ++m_i;
                const QString name = m_s.mid(start, m_i - start);
                const QChar next = charAt(m_s, m_i);
                static const QStringList prefixes = {
                    QStringLiteral("r"),  QStringLiteral("u"),  QStringLiteral("b"),  QStringLiteral("f"),
                    QStringLiteral("t"),  QStringLiteral("br"), QStringLiteral("rb"), QStringLiteral("fr"),
                    QStringLiteral("rf"), QStringLiteral("tr"), QStringLiteral("rt")};
                if ((next == QLatin1Char('"') || next == QLatin1Char('\'')) &&
                    prefixes.contains(name.toLower())) {
                    if (!string(name.toLower(), why))
                        return false;
                } else {
                    push(Token::Kind::Name, name);
                }
            } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
                if (!string(QString(), why))
                    return false;
            } else if (c.isDigit() || (c == QLatin1Char('.') && charAt(m_s, m_i + 1).isDigit())) {
                // As Python reads a number: 0x/0o/0b digits, or digits, one point, an exponent and
                // j; "1.0.__class__" is a number, a dot and a name.
                const qsizetype start = m_i;
                const auto digits = [&](bool hex) {
                    while (m_i < m_s.size() && (m_s.at(m_i).isDigit() || m_s.at(m_i) == QLatin1Char('_') ||
                                                (hex && QStringView(u"abcdefABCDEF").contains(m_s.at(m_i)))))
                        ++m_i;
                };
                const QChar second = charAt(m_s, m_i + 1).toLower();
                if (c == QLatin1Char('0') && (second == QLatin1Char('x') || second == QLatin1Char('o') ||
                                              second == QLatin1Char('b'))) {
                    m_i += 2;
                    digits(true);
                } else {
                    digits(false);
                    if (charAt(m_s, m_i) == QLatin1Char('.')) {
                        ++m_i;
                        digits(false);
                    }
                    if (charAt(m_s, m_i).toLower() == QLatin1Char('e') &&
                        (charAt(m_s, m_i + 1).isDigit() || ((charAt(m_s, m_i + 1) == QLatin1Char('+') ||
                                                             charAt(m_s, m_i + 1) == QLatin1Char('-')) &&
                                                            charAt(m_s, m_i + 2).isDigit()))) {
                        m_i += 2;
                        digits(false);
                    }
                    if (charAt(m_s, m_i).toLower() == QLatin1Char('j'))
                        ++m_i;
                }
                push(Token::Kind::Number, m_s.mid(start, m_i - start));
            } else {
                const QChar b = charAt(m_s, m_i + 1), d = charAt(m_s, m_i + 2);
                const auto is = [](QChar x, char y) { return x == QLatin1Char(y); };
                int size = 1;
                if ((is(c, '*') && is(b, '*') && is(d, '=')) || (is(c, '/') && is(b, '/') && is(d, '=')) ||
                    (is(c, '>') && is(b, '>') && is(d, '=')) || (is(c, '<') && is(b, '<') && is(d, '=')) ||
                    (is(c, '.') && is(b, '.') && is(d, '.')))
                    size = 3;
                else if ((is(b, '=') && QStringView(u"=!<>+-*/%&|^:@").contains(c)) ||
                         (is(c, '-') && is(b, '>')) ||
                         (c == b && (is(c, '*') || is(c, '/') || is(c, '<') || is(c, '>'))))
                    size = 2;
                const QString op = m_s.mid(m_i, size);
                if (op == QLatin1String("(") || op == QLatin1String("[") || op == QLatin1String("{")) {
                    if (++brackets > 64) {
                        *why = QStringLiteral("brackets nested deeper than Countersign reads");
                        return false;
                    }
                } else if (op == QLatin1String(")") || op == QLatin1String("]") || op == QLatin1String("}"))
                    --brackets;
                if (brackets < 0) {
                    *why = QStringLiteral("a bracket closes that was not opened (line %1)").arg(m_line);
                    return false;
                }
                m_i += op.size();
                push(Token::Kind::Op, op);
            }
        }
        if (brackets != 0) {
            *why = QStringLiteral("a bracket is not closed");
            return false;
        }
        return true;
    }

private:
    void push(Token::Kind kind, const QString &text, bool literal = true)
    {
        m_out.append(Token{kind, text, m_line, literal});
    }

    // A string from m_i (at its quote), prefix lower-cased ("r", "b", "f", "rb", ...).
    bool string(const QString &prefix, QString *why)
    {
        const bool raw = prefix.contains(QLatin1Char('r'));
        const bool formatted = prefix.contains(QLatin1Char('f')) || prefix.contains(QLatin1Char('t'));
        const QChar quote = m_s.at(m_i);
        const bool triple = m_s.mid(m_i, 3) == QString(3, quote);
        const int startLine = m_line;
        m_i += triple ? 3 : 1;
        QString value;
        int braces = 0;
        bool undecoded = false;
        for (;;) {
            if (m_i >= m_s.size() || (!triple && m_s.at(m_i) == QLatin1Char('\n'))) {
                *why = QStringLiteral("a string is not closed (line %1)").arg(startLine);
                return false;
            }
            const QChar c = m_s.at(m_i);
            if (c == QLatin1Char('\\') && m_i + 1 < m_s.size()) {
                const QChar n = m_s.at(m_i + 1);
                if (n == QLatin1Char('\n'))
                    ++m_line;
                if (raw) {
                    value += c;
                    value += n;
                } else if (n == QLatin1Char('n')) {
                    value += QLatin1Char('\n');
                } else if (n == QLatin1Char('t')) {
                    value += QLatin1Char('\t');
                } else if (n == QLatin1Char('\\') || n == QLatin1Char('\'') || n == QLatin1Char('"')) {
                    value += n;
                } else if (n != QLatin1Char('\n')) {
                    value += c;
                    value += n;
                    undecoded = true;
                }
                m_i += 2;
                continue;
            }
            // Since Python 3.12 an f-string's {expression} may hold its own quotes: one that does is
            // not read (where it ends depends on the Python that runs it).
            if (formatted && c == QLatin1Char('{')) {
                if (charAt(m_s, m_i + 1) == QLatin1Char('{'))
                    value += c, ++m_i;
                else
                    ++braces;
            } else if (formatted && c == QLatin1Char('}') && braces > 0) {
                --braces;
            }
            if (c == quote && braces > 0) {
                *why = QStringLiteral("an f-string whose expression holds its own quotes (line %1)")
                           .arg(startLine);
                return false;
            }
            if (c == quote && (!triple || m_s.mid(m_i, 3) == QString(3, quote))) {
                m_i += triple ? 3 : 1;
                break;
            }
            if (c == QLatin1Char('\n'))
                ++m_line;
            value += c;
            ++m_i;
        }
        // An escape this reader does not decode (\x, \u, \N{...}, octal) leaves the value unknown.
        m_out.append(Token{Token::Kind::String, value, startLine, !formatted && !undecoded});
        if (formatted)
            return expressions(value, startLine, why);
        return true;
    }

    // The {expressions} of an f-string, tokenized after it.
    bool expressions(const QString &value, int line, QString *why)
    {
        for (qsizetype k = 0; k < value.size(); ++k) {
            if (value.at(k) != QLatin1Char('{'))
                continue;
            if (charAt(value, k + 1) == QLatin1Char('{')) {
                ++k;
                continue;
            }
            int depth = 0;
            qsizetype end = k;
            for (; end < value.size(); ++end) {
                if (value.at(end) == QLatin1Char('{'))
                    ++depth;
                else if (value.at(end) == QLatin1Char('}') && --depth == 0)
                    break;
            }
            QList<Token> inner;
            const QString expression = value.mid(k + 1, end - k - 1);
            Lexer lexer(expression, line, inner);
            QString innerWhy;
            if (!lexer.run(&innerWhy, m_depth + 1)) {
                // A format spec (":>10") or "!r" is not code: only what comes before it is.
                const QString head =
                    expression.section(QLatin1Char(':'), 0, 0).section(QLatin1Char('!'), 0, 0);
                inner.clear();
                Lexer again(head, line, inner);
                if (!again.run(&innerWhy, m_depth + 1)) {
                    *why = QStringLiteral("an f-string's expression: %1").arg(innerWhy);
                    return false;
                }
            }
            m_out.append(inner);
            k = end;
        }
        return true;
    }

    const QString &m_s;
    qsizetype m_i = 0;
    int m_line = 1;
    int m_depth = 0;
    QList<Token> &m_out;
};

} // namespace

bool tokenize(const QString &input, QList<Token> *tokens, QString *why)
{
    QString code = input;
    code.replace(QLatin1String("\r\n"), QLatin1String("\n"));
    if (code.contains(QLatin1Char('\r'))) {
        *why = QStringLiteral("a carriage return alone, which Python reads as a line break");
        return false;
    }
    // A coding declaration other than UTF-8 makes Python read other text than this reader does.
    static const QRegularExpression cookie(QStringLiteral("^[ \\t\\f]*#.*?coding[:=][ \\t]*([-\\w.]+)"));
    for (const QString &line : code.section(QLatin1Char('\n'), 0, 1).split(QLatin1Char('\n'))) {
        const auto m = cookie.match(line);
        const QString encoding = m.captured(1).toLower().replace(QLatin1Char('_'), QLatin1Char('-'));
        if (m.hasMatch() && encoding != QLatin1String("utf-8") && encoding != QLatin1String("utf8") &&
            !encoding.startsWith(QLatin1String("utf-8-"))) {
            *why = QStringLiteral("a coding declaration (%1) other than UTF-8").arg(m.captured(1));
            return false;
        }
    }
    Lexer lexer(code, 1, *tokens);
    if (!lexer.run(why, 0))
        return false;
    if (tokens->size() > kMaxTokens) {
        *why = QStringLiteral("more than %1 tokens").arg(kMaxTokens);
        return false;
    }
    return true;
}

} // namespace Countersign::Shell::Python
