#include "shellreader.h"

#include <cctype>

namespace Countersign::Shell::Detail {

void Reader::backquote(Word &w, QString &text, Command &owner)
{
    ++m_i;
    QString inside;
    bool closed = false;
    while (!atEnd()) {
        const QChar c = at();
        if (c == QLatin1Char('\\') &&
            (at(1) == QLatin1Char('`') || at(1) == QLatin1Char('\\') || at(1) == QLatin1Char('$'))) {
            inside += at(1);
            m_i += 2;
            continue;
        }
        if (c == QLatin1Char('`')) {
            closed = true;
            ++m_i;
            break;
        }
        inside += c;
        ++m_i;
    }
    if (!closed)
        problem(QStringLiteral("a backquote is never closed"));
    Reader sub(inside, m_depth + 1, m_notes);
    owner.inner.append(std::make_shared<Script>(sub.list()));
    w.literal = false;
    w.substitutes = true;
    text += QLatin1Char('`') + inside + QLatin1Char('`');
}

void Reader::dollar(Word &w, QString &text, Command &owner)
{
    // at() is '$'
    const QChar next = at(1);
    if (next == QLatin1Char('(') && at(2) == QLatin1Char('(')) {
        // $(( arithmetic )): its value is unknown; a substitution inside it is not read.
        int depth = 0;
        const qsizetype start = m_i;
        m_i += 1;
        while (!atEnd()) {
            if (at() == QLatin1Char('('))
                ++depth;
            else if (at() == QLatin1Char(')') && --depth == 0) {
                ++m_i;
                break;
            }
            ++m_i;
        }
        const QString expr = m_s.mid(start, m_i - start);
        if (depth != 0 || !looksArithmetic(expr.mid(3, expr.size() - 5)))
            problem(QStringLiteral("arithmetic that is not plain arithmetic"));
        m_notes.arithmetic = true;
        text += expr;
        w.literal = false;
        return;
    }
    if (next == QLatin1Char('(')) {
        m_i += 2;
        owner.inner.append(nested(QLatin1Char(')')));
        text += QStringLiteral("$(...)");
        w.literal = false;
        w.substitutes = true;
        return;
    }
    if (next == QLatin1Char('[')) {
        // $[ ]: the old spelling of arithmetic.
        const qsizetype close = m_s.indexOf(QLatin1Char(']'), m_i + 2);
        if (close < 0 || !looksArithmetic(m_s.mid(m_i + 2, close - m_i - 2)))
            problem(QStringLiteral("arithmetic that is not plain arithmetic"));
        m_notes.arithmetic = true;
        text += close < 0 ? m_s.mid(m_i) : m_s.mid(m_i, close + 1 - m_i);
        m_i = close < 0 ? m_s.size() : close + 1;
        w.literal = false;
        return;
    }
    if (next == QLatin1Char('{') &&
        (isBlank(at(2)) || at(2) == QLatin1Char('\n') || at(2) == QLatin1Char('|'))) {
        problem(QStringLiteral("a \"${ command; }\" substitution"));
        m_i = m_s.size();
        w.literal = false;
        return;
    }
    if (next == QLatin1Char('{')) {
        // Up to the first "}": what bash does with a quote, a brace or an expansion inside is not
        // read here (it may end elsewhere and hide a command), so any of them is a problem.
        qsizetype k = m_i + 2;
        int depth = 1;
        while (k < m_s.size() && depth > 0) {
            if (m_s.at(k) == QLatin1Char('}'))
                --depth;
            ++k;
        }
        if (depth != 0) {
            problem(QStringLiteral("a \"${\" is never closed"));
            m_i = m_s.size();
            w.literal = false;
            return;
        }
        const QString inside = m_s.mid(m_i + 2, k - m_i - 3);
        qsizetype n = 0;
        if (n < inside.size() && (inside.at(n) == QLatin1Char('!') || inside.at(n) == QLatin1Char('#')))
            ++n;
        const qsizetype nameStart = n;
        while (n < inside.size() && isNameChar(inside.at(n)))
            ++n;
        QString name = inside.mid(nameStart, n - nameStart);
        if (name.isEmpty() && n < inside.size())
            name = inside.at(n); // ${@}, ${1}
        w.variables.append(name);
        static const QRegularExpression unread(QStringLiteral("[$`'\"{(\\\\]"));
        if (unread.match(inside).hasMatch())
            problem(QStringLiteral("a \"${...}\" with quotes, braces or expansions inside it"));
        if (inside.startsWith(QLatin1Char('!')))
            problem(QStringLiteral("an indirect expansion (${!name})"));
        if (inside.contains(QLatin1Char('@')) && inside != QLatin1String("@") &&
            inside != QLatin1String("#@") && !inside.endsWith(QLatin1String("[@]")))
            problem(QStringLiteral("a \"${name@...}\" transformation (@P runs what the value holds)"));
        if (inside.contains(QLatin1Char('[')))
            m_notes.arithmetic = true; // a subscript is arithmetic
        text += m_s.mid(m_i, k - m_i);
        m_i = k;
        w.literal = false;
        return;
    }
    if (isNameStart(next)) {
        qsizetype k = m_i + 1;
        while (k < m_s.size() && isNameChar(m_s.at(k)))
            ++k;
        w.variables.append(m_s.mid(m_i + 1, k - m_i - 1));
        text += m_s.mid(m_i, k - m_i);
        m_i = k;
        w.literal = false;
        return;
    }
    if (next.isDigit() || QStringLiteral("@*#?$!-").contains(next)) {
        w.variables.append(next);
        text += m_s.mid(m_i, 2);
        m_i += 2;
        w.literal = false;
        return;
    }
    text += QLatin1Char('$'); // a lone $
    ++m_i;
}

// ANSI-C quoting, $'...': the escapes bash reads in it.
static QString ansiC(const QString &s, qsizetype &i, bool &closed)
{
    QString out;
    closed = false;
    while (i < s.size()) {
        const QChar c = s.at(i);
        if (c == QLatin1Char('\'')) {
            closed = true;
            ++i;
            break;
        }
        if (c != QLatin1Char('\\') || i + 1 >= s.size()) {
            out += c;
            ++i;
            continue;
        }
        const QChar e = s.at(i + 1);
        i += 2;
        static const QString simple = QStringLiteral("abefnrtv\\'\"?");
        static const QString values = QStringLiteral("\a\b\x1b\f\n\r\t\v\\'\"?");
        if (const qsizetype k = simple.indexOf(e); k >= 0) {
            out += values.at(k);
        } else if (e == QLatin1Char('x') || e == QLatin1Char('u') || e == QLatin1Char('U')) {
            const int max = e == QLatin1Char('x') ? 2 : e == QLatin1Char('u') ? 4 : 8;
            qsizetype n = 0;
            while (n < max && i + n < s.size() && isxdigit(s.at(i + n).toLatin1()))
                ++n;
            const uint code = s.mid(i, n).toUInt(nullptr, 16);
            i += n;
            if (n == 0)
                out += QLatin1Char('\\') + e;
            else if (code < 0x110000)
                out += QString::fromUcs4(reinterpret_cast<const char32_t *>(&code), 1);
        } else if (e >= QLatin1Char('0') && e <= QLatin1Char('7')) {
            qsizetype n = 0;
            --i;
            while (n < 3 && i + n < s.size() && s.at(i + n) >= QLatin1Char('0') &&
                   s.at(i + n) <= QLatin1Char('7'))
                ++n;
            out += QChar(s.mid(i, n).toUInt(nullptr, 8) & 0xff);
            i += n;
        } else if (e == QLatin1Char('c') && i < s.size()) {
            out += QChar(s.at(i).unicode() & 0x1f);
            ++i;
        } else {
            out += QLatin1Char('\\') + e;
        }
    }
    return out;
}

Word Reader::word(Command &owner, bool *assignment)
{
    Word w;
    QString text;
    bool quotedSoFar = false; // a quote came before the first '='
    bool sawEquals = false;
    bool first = true;
    // Process substitution at the start of a word.
    if ((at() == QLatin1Char('<') || at() == QLatin1Char('>')) && at(1) == QLatin1Char('(')) {
        m_i += 2;
        owner.inner.append(nested(QLatin1Char(')')));
        w.literal = false;
        w.substitutes = true;
        w.processSubstitution = true;
        w.text = QStringLiteral("/dev/fd/63"); // what the command is given: a pipe's name
        return w;
    }
    if (at() == QLatin1Char('~')) {
        qsizetype k = m_i + 1;
        while (k < m_s.size() && !isMeta(m_s.at(k)) && m_s.at(k) != QLatin1Char('/') &&
               (isNameChar(m_s.at(k)) || m_s.at(k) == QLatin1Char('-') || m_s.at(k) == QLatin1Char('.')))
            ++k;
        if (k == m_s.size() || isMeta(m_s.at(k)) || m_s.at(k) == QLatin1Char('/')) {
            w.tilde = true;
            w.tildeOther = k > m_i + 1;
            if (w.tildeOther)
                w.literal = false;
            text += m_s.mid(m_i, k - m_i);
            m_i = k;
            first = false;
        }
    }
    while (!atEnd()) {
        const QChar c = at();
        if (isMeta(c))
            break;
        if (c == QLatin1Char('\\')) {
            if (at(1) == QLatin1Char('\n')) {
                m_i += 2;
                continue;
            }
            quotedSoFar = quotedSoFar || !sawEquals;
            if (m_i + 1 < m_s.size())
                text += at(1);
            m_i += 2;
        } else if (c == QLatin1Char('\'')) {
            quotedSoFar = quotedSoFar || !sawEquals;
            const qsizetype close = m_s.indexOf(QLatin1Char('\''), m_i + 1);
            if (close < 0) {
                problem(QStringLiteral("a quote (') is never closed"));
                text += m_s.mid(m_i + 1);
                m_i = m_s.size();
                w.literal = false;
                break;
            }
            text += m_s.mid(m_i + 1, close - m_i - 1);
            m_i = close + 1;
        } else if (c == QLatin1Char('$') && at(1) == QLatin1Char('\'')) {
            quotedSoFar = quotedSoFar || !sawEquals;
            m_i += 2;
            bool closed = false;
            text += ansiC(m_s, m_i, closed);
            if (!closed) {
                problem(QStringLiteral("a quote ($') is never closed"));
                w.literal = false;
            }
        } else if (c == QLatin1Char('"') || (c == QLatin1Char('$') && at(1) == QLatin1Char('"'))) {
            quotedSoFar = quotedSoFar || !sawEquals;
            m_i += c == QLatin1Char('$') ? 2 : 1;
            bool closed = false;
            while (!atEnd()) {
                const QChar d = at();
                if (d == QLatin1Char('"')) {
                    closed = true;
                    ++m_i;
                    break;
                }
                if (d == QLatin1Char('\\') && QStringLiteral("$`\"\\\n").contains(at(1)) &&
                    m_i + 1 < m_s.size()) {
                    if (at(1) != QLatin1Char('\n'))
                        text += at(1);
                    m_i += 2;
                } else if (d == QLatin1Char('$')) {
                    dollar(w, text, owner);
                } else if (d == QLatin1Char('`')) {
                    backquote(w, text, owner);
                } else {
                    text += d;
                    ++m_i;
                }
            }
            if (!closed) {
                problem(QStringLiteral("a quote (\") is never closed"));
                w.literal = false;
            }
        } else if (c == QLatin1Char('$')) {
            dollar(w, text, owner);
        } else if (c == QLatin1Char('`')) {
            backquote(w, text, owner);
        } else {
            if (c == QLatin1Char('*') || c == QLatin1Char('?')) {
                w.glob = true;
            } else if (c == QLatin1Char('[')) {
                // A bracket expression only when a "]" closes it in the same word ("[" alone is test).
                for (qsizetype k = m_i + 1; k < m_s.size() && !isMeta(m_s.at(k)); ++k) {
                    if (m_s.at(k) == QLatin1Char(']') && k > m_i + 1) {
                        w.glob = true;
                        break;
                    }
                }
            } else if (c == QLatin1Char('{')) {
                // Brace expansion: {a,b} or {1..3}, unquoted, before its closing brace.
                const qsizetype close = m_s.indexOf(QLatin1Char('}'), m_i);
                if (close > m_i + 1) {
                    const QString inside = m_s.mid(m_i + 1, close - m_i - 1);
                    if (inside.contains(QLatin1Char(',')) || inside.contains(QLatin1String("..")))
                        w.glob = true;
                }
            } else if (c == QLatin1Char('=') && !sawEquals) {
                sawEquals = true;
                // name=~/x: bash expands this ~ as in an assignment, in any word that looks like one.
                if (at(1) == QLatin1Char('~') &&
                    (m_i + 2 >= m_s.size() || at(2) == QLatin1Char('/') || isMeta(at(2))))
                    w.tildeAfterEquals = true;
                if (assignment && !quotedSoFar && w.literal && w.variables.isEmpty() &&
                    (isName(text) || (text.endsWith(QLatin1Char('+')) && isName(text.chopped(1)))))
                    *assignment = true;
            }
            text += c;
            ++m_i;
        }
        first = false;
    }
    Q_UNUSED(first)
    w.text = text;
    if (w.glob)
        w.literal = false;
    m_notes.variables += w.variables;
    return w;
}

} // namespace Countersign::Shell::Detail
