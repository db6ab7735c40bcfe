#pragma once

// The reader behind ShellParser, shared by its two files (shellparser.cpp: lines, pipelines,
// commands, redirections and here-documents; shellwords.cpp: words, quotes and expansions).
// Private to shared/shell.

#include "shellparser.h"

#include <QRegularExpression>

namespace Countersign::Shell::Detail {

inline bool isBlank(QChar c)
{
    return c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\r');
}

// Characters that end an unquoted word.
inline bool isMeta(QChar c)
{
    return isBlank(c) || c == QLatin1Char('\n') || c == QLatin1Char('|') || c == QLatin1Char('&') ||
           c == QLatin1Char(';') || c == QLatin1Char('(') || c == QLatin1Char(')') || c == QLatin1Char('<') ||
           c == QLatin1Char('>');
}

inline bool isNameStart(QChar c)
{
    return c == QLatin1Char('_') || (c.unicode() < 128 && c.isLetter());
}

inline bool isNameChar(QChar c)
{
    return isNameStart(c) || (c.unicode() < 128 && c.isDigit());
}

inline bool isName(const QString &s)
{
    if (s.isEmpty() || !isNameStart(s.at(0)))
        return false;
    for (const QChar c : s) {
        if (!isNameChar(c))
            return false;
    }
    return true;
}

// The control words of if, while, until and for: in front of a command they are not its name.
inline bool isControlWord(const QString &w)
{
    static const QStringList words = {
        QStringLiteral("if"),    QStringLiteral("then"), QStringLiteral("elif"), QStringLiteral("else"),
        QStringLiteral("fi"),    QStringLiteral("do"),   QStringLiteral("done"), QStringLiteral("while"),
        QStringLiteral("until"), QStringLiteral("!"),    QStringLiteral("time")};
    return words.contains(w);
}

// Whether text is what bash reads as arithmetic: numbers, names, operators and parentheses. A
// command in arithmetic's clothing ("$((echo a); (rm x))") is not: bash runs it as a substitution.
inline bool looksArithmetic(const QString &text)
{
    static const QRegularExpression allowed(QStringLiteral("^[A-Za-z0-9_\\s+\\-*/%<>=!&|^~?:,()\\[\\]#.]*$"));
    static const QRegularExpression adjacentWords(QStringLiteral("[A-Za-z0-9_.]\\s+[A-Za-z_.]"));
    int depth = 0;
    for (const QChar c : text) {
        depth += c == QLatin1Char('(') ? 1 : c == QLatin1Char(')') ? -1 : 0;
        if (depth < 0)
            return false; // "((a) | (b))": two subshells, not arithmetic
    }
    return depth == 0 && allowed.match(text).hasMatch() && !adjacentWords.match(text).hasMatch() &&
           !text.contains(QLatin1Char('\n'));
}

struct PendingHereDocument final
{
    QString delimiter;
    bool stripTabs = false;
    bool expands = true;
    std::shared_ptr<QString> body;
    std::shared_ptr<bool> dynamic;
    std::shared_ptr<Script> inner; // what the body runs when it expands
};

class Reader final
{
public:
    // What every reader of one line shares: what it could not read, the variables, arithmetic.
    struct Notes final
    {
        QStringList problems;
        QStringList variables;
        bool arithmetic = false;
    };

    Reader(const QString &text, int depth, Notes &notes) : m_s(text), m_depth(depth), m_notes(notes) {}

    // Reads pipelines until end (EOF, or the closing character of a group or substitution).
    Script list(QChar end = QChar());

    qsizetype position() const { return m_i; }
    void setPosition(qsizetype i) { m_i = i; }

private:
    QChar at(qsizetype k = 0) const { return m_i + k < m_s.size() ? m_s.at(m_i + k) : QChar(); }
    bool atEnd() const { return m_i >= m_s.size(); }
    bool startsWith(const char *text) const
    {
        return QStringView(m_s).mid(m_i).startsWith(QLatin1String(text));
    }
    void problem(const QString &why)
    {
        if (!m_notes.problems.contains(why))
            m_notes.problems.append(why);
    }

    void skipBlanks();
    // Skips blanks, comments and line breaks (reading the bodies of the here-documents they end).
    void skipSeparators();
    void lineBreak();
    bool pipeline(Pipeline &into, QChar end);
    bool command(Command &into, QChar end);
    bool redirection(Command &into);
    Word word(Command &owner, bool *assignment = nullptr);
    void dollar(Word &w, QString &text, Command &owner);
    std::shared_ptr<Script> nested(QChar close);
    void backquote(Word &w, QString &text, Command &owner);
    void expandBody(const QString &body, const std::shared_ptr<Script> &inner);
    bool groupEnd(QChar end) const;

    const QString &m_s;
    qsizetype m_i = 0;
    int m_depth = 0;
    Notes &m_notes;
    QList<PendingHereDocument> m_pending;
};

} // namespace Countersign::Shell::Detail
