#include "shellparser.h"

#include <QRegularExpression>

#include <cctype>

namespace Countersign::Shell {

namespace {

bool isBlank(QChar c)
{
    return c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\r');
}

// Characters that end an unquoted word.
bool isMeta(QChar c)
{
    return isBlank(c) || c == QLatin1Char('\n') || c == QLatin1Char('|') || c == QLatin1Char('&') ||
           c == QLatin1Char(';') || c == QLatin1Char('(') || c == QLatin1Char(')') || c == QLatin1Char('<') ||
           c == QLatin1Char('>');
}

bool isNameStart(QChar c)
{
    return c == QLatin1Char('_') || (c.unicode() < 128 && c.isLetter());
}

bool isNameChar(QChar c)
{
    return isNameStart(c) || (c.unicode() < 128 && c.isDigit());
}

bool isName(const QString &s)
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
bool isControlWord(const QString &w)
{
    static const QStringList words = {
        QStringLiteral("if"),    QStringLiteral("then"), QStringLiteral("elif"), QStringLiteral("else"),
        QStringLiteral("fi"),    QStringLiteral("do"),   QStringLiteral("done"), QStringLiteral("while"),
        QStringLiteral("until"), QStringLiteral("!"),    QStringLiteral("time")};
    return words.contains(w);
}

// Whether text is what bash reads as arithmetic: numbers, names, operators and parentheses. A
// command in arithmetic's clothing ("$((echo a); (rm x))") is not: bash runs it as a substitution.
bool looksArithmetic(const QString &text)
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

void Reader::skipBlanks()
{
    while (!atEnd()) {
        if (isBlank(at())) {
            ++m_i;
        } else if (at() == QLatin1Char('\\') && at(1) == QLatin1Char('\n')) {
            m_i += 2;
        } else if (at() == QLatin1Char('#')) {
            while (!atEnd() && at() != QLatin1Char('\n'))
                ++m_i;
        } else {
            break;
        }
    }
}

void Reader::skipSeparators()
{
    for (;;) {
        skipBlanks();
        if (at() != QLatin1Char('\n'))
            return;
        lineBreak();
    }
}

// A line break: the here-documents named on the line end now, their bodies on the lines after it.
void Reader::lineBreak()
{
    ++m_i;
    const QList<PendingHereDocument> pending = std::exchange(m_pending, {});
    for (const PendingHereDocument &doc : pending) {
        QString body;
        bool ended = false;
        while (!atEnd()) {
            qsizetype eol = m_s.indexOf(QLatin1Char('\n'), m_i);
            if (eol < 0)
                eol = m_s.size();
            QString line = m_s.mid(m_i, eol - m_i);
            m_i = eol < m_s.size() ? eol + 1 : eol;
            // In a body that expands, a backslash at the end of a line joins the next one to it,
            // before the line is compared with the delimiter.
            while (doc.expands && line.endsWith(QLatin1Char('\\')) && !line.endsWith(QLatin1String("\\\\")) &&
                   m_i < m_s.size()) {
                qsizetype next = m_s.indexOf(QLatin1Char('\n'), m_i);
                if (next < 0)
                    next = m_s.size();
                line = line.chopped(1) + m_s.mid(m_i, next - m_i);
                m_i = next < m_s.size() ? next + 1 : next;
            }
            if (doc.stripTabs) {
                while (line.startsWith(QLatin1Char('\t')))
                    line.remove(0, 1);
            }
            if (line == doc.delimiter ||
                (line.endsWith(QLatin1Char('\r')) && line.chopped(1) == doc.delimiter)) {
                ended = true;
                break;
            }
            body += line + QLatin1Char('\n');
        }
        Q_UNUSED(ended) // bash takes the rest of the input as the body, and so does the reader
        if (doc.expands) {
            expandBody(body, doc.inner);
            // What the program reads: \$, \` and \\ lose their backslash; an unescaped $ or ` makes
            // the text known only when the line runs.
            QString read;
            bool dynamic = false;
            for (qsizetype k = 0; k < body.size(); ++k) {
                const QChar c = body.at(k);
                if (c == QLatin1Char('\\') && k + 1 < body.size() &&
                    (body.at(k + 1) == QLatin1Char('$') || body.at(k + 1) == QLatin1Char('`') ||
                     body.at(k + 1) == QLatin1Char('\\'))) {
                    read += body.at(++k);
                    continue;
                }
                if (c == QLatin1Char('$') || c == QLatin1Char('`'))
                    dynamic = true;
                read += c;
            }
            *doc.body = read;
            *doc.dynamic = dynamic;
        } else {
            *doc.body = body;
        }
    }
}

// A here-document that expands is read as the inside of double quotes: what it substitutes runs.
void Reader::expandBody(const QString &body, const std::shared_ptr<Script> &inner)
{
    // The body as the inside of double quotes: a '"' is literal in a here-document, so each one not
    // already behind a backslash gets one (one behind a backslash stays as it is: "\\\"" reads as '"').
    QString quoted = QStringLiteral("\"");
    int backslashes = 0;
    for (const QChar c : body) {
        if (c == QLatin1Char('"') && backslashes % 2 == 0)
            quoted += QLatin1Char('\\');
        quoted += c;
        backslashes = c == QLatin1Char('\\') ? backslashes + 1 : 0;
    }
    if (backslashes % 2 == 1)
        quoted += QLatin1Char('\\');
    quoted += QLatin1Char('"');
    Reader sub(quoted, m_depth + 1, m_notes);
    Command owner;
    sub.word(owner);
    for (const auto &script : owner.inner)
        inner->pipelines += script->pipelines;
}

bool Reader::groupEnd(QChar end) const
{
    if (end.isNull())
        return atEnd();
    if (end == QLatin1Char('}'))
        return at() == QLatin1Char('}') && (m_i + 1 >= m_s.size() || isMeta(at(1)));
    return at() == end;
}

Script Reader::list(QChar end)
{
    Script script;
    if (m_depth > ShellParser::kMaxDepth) {
        problem(QStringLiteral("the line nests deeper than %1 levels").arg(ShellParser::kMaxDepth));
        m_i = m_s.size();
        return script;
    }
    QString connector;
    for (;;) {
        skipSeparators();
        if (atEnd() || groupEnd(end))
            break;
        Pipeline p;
        p.connector = connector;
        const qsizetype before = m_i;
        if (!pipeline(p, end))
            break;
        skipBlanks();
        p.background = at() == QLatin1Char('&') && at(1) != QLatin1Char('&') && at(1) != QLatin1Char('>');
        if (!p.commands.isEmpty())
            script.pipelines.append(std::move(p));
        if (startsWith("&&") || startsWith("||")) {
            connector = m_s.mid(m_i, 2);
            m_i += 2;
            skipSeparators();
        } else if (startsWith(";;")) {
            problem(QStringLiteral("a case statement"));
            m_i = m_s.size();
            break;
        } else if (at() == QLatin1Char(';') || at() == QLatin1Char('&')) {
            connector = at();
            ++m_i;
        } else if (at() == QLatin1Char('\n')) {
            connector = QStringLiteral(";");
            lineBreak();
        } else if (atEnd() || groupEnd(end)) {
            break;
        } else if (m_i == before) {
            problem(QStringLiteral("an unexpected \"%1\"").arg(at()));
            m_i = m_s.size();
            break;
        }
    }
    if (!m_pending.isEmpty() && (end.isNull() || atEnd())) {
        // Here-documents on the last line with nothing after it: empty bodies.
        for (const PendingHereDocument &doc : std::exchange(m_pending, {}))
            *doc.body = QString();
    }
    return script;
}

bool Reader::pipeline(Pipeline &into, QChar end)
{
    for (;;) {
        Command c;
        if (!command(c, end))
            return false;
        const bool empty = c.kind == Command::Kind::Simple && c.words.isEmpty() && c.assignments.isEmpty() &&
                           c.redirections.isEmpty() && c.inner.isEmpty() && c.loopVariable.isEmpty();
        if (!empty)
            into.commands.append(std::move(c));
        skipBlanks();
        if (at() == QLatin1Char('|') && at(1) != QLatin1Char('|')) {
            m_i += at(1) == QLatin1Char('&') ? 2 : 1;
            skipSeparators();
            continue;
        }
        return true;
    }
}

std::shared_ptr<Script> Reader::nested(QChar close)
{
    Reader sub(m_s, m_depth + 1, m_notes);
    sub.setPosition(m_i);
    auto script = std::make_shared<Script>(sub.list(close));
    m_i = sub.position();
    if (at() == close) {
        ++m_i;
    } else {
        problem(QStringLiteral("a \"%1\" is never closed")
                    .arg(close == QLatin1Char(')') ? QStringLiteral("(") : QStringLiteral("{")));
        m_i = m_s.size();
    }
    return script;
}

bool Reader::command(Command &into, QChar end)
{
    skipBlanks();
    if (at() == QLatin1Char('(')) {
        if (at(1) == QLatin1Char('(')) { // (( arithmetic )): harmless unless it substitutes
            const qsizetype close = m_s.indexOf(QLatin1String("))"), m_i + 2);
            const QString body = close < 0 ? m_s.mid(m_i + 2) : m_s.mid(m_i + 2, close - m_i - 2);
            if (close < 0 || !looksArithmetic(body))
                problem(QStringLiteral("an arithmetic command that is not plain arithmetic"));
            m_notes.arithmetic = true;
            m_i = close < 0 ? m_s.size() : close + 2;
            Word arithmetic;
            arithmetic.text = QStringLiteral("((");
            into.words.append(arithmetic);
            return true;
        }
        ++m_i;
        into.kind = Command::Kind::Group;
        into.subshell = true;
        into.body = nested(QLatin1Char(')'));
    } else if (at() == QLatin1Char('{') && (isBlank(at(1)) || at(1) == QLatin1Char('\n'))) {
        ++m_i;
        into.kind = Command::Kind::Group;
        into.body = nested(QLatin1Char('}'));
    }
    if (into.kind == Command::Kind::Group) {
        for (;;) { // redirections after the group apply to all of it
            skipBlanks();
            if (!redirection(into))
                break;
        }
        return true;
    }
    bool named = false;
    for (;;) {
        skipBlanks();
        if (atEnd() || at() == QLatin1Char('\n') || at() == QLatin1Char(';') || at() == QLatin1Char('|') ||
            (at() == QLatin1Char('&') && at(1) != QLatin1Char('>')) || at() == QLatin1Char(')') ||
            (named == false && into.words.isEmpty() && groupEnd(end) && !end.isNull()))
            return true;
        if (redirection(into))
            continue;
        if (at() == QLatin1Char('(')) {
            if (!into.words.isEmpty() && at(1) == QLatin1Char(')'))
                problem(QStringLiteral("a function definition"));
            else
                problem(QStringLiteral("an unexpected \"(\""));
            m_i = m_s.size();
            return false;
        }
        bool assignment = false;
        const qsizetype start = m_i;
        Word w = word(into, into.words.isEmpty() ? &assignment : nullptr);
        if (m_i == start) { // nothing read: never loop on it
            problem(QStringLiteral("an unexpected \"%1\"").arg(at()));
            m_i = m_s.size();
            return false;
        }
        if (assignment) {
            const qsizetype eq = w.text.indexOf(QLatin1Char('='));
            QString name = w.text.left(eq);
            if (name.endsWith(QLatin1Char('+')))
                name.chop(1);
            Word value = w;
            value.text = w.text.mid(eq + 1);
            into.assignments.append({name, value});
            continue;
        }
        if (into.words.isEmpty() && w.literal) {
            if (isControlWord(w.text))
                continue;
            if (w.text == QLatin1String("for") || w.text == QLatin1String("select")) {
                // for NAME [in WORDS...]; the words may substitute (kept in inner); the loop's
                // variable is unknown to the commands that use it.
                skipBlanks();
                if (startsWith("((")) {
                    problem(QStringLiteral("an arithmetic for loop"));
                    m_i = m_s.size();
                    return false;
                }
                Command loop;
                into.loopVariable = word(loop).text;
                skipBlanks();
                if (startsWith("in") && (m_i + 2 >= m_s.size() || isMeta(at(2)))) {
                    m_i += 2;
                    for (;;) {
                        skipBlanks();
                        if (atEnd() || at() == QLatin1Char(';') || at() == QLatin1Char('\n'))
                            break;
                        if (isMeta(at())) {
                            problem(QStringLiteral("an unexpected \"%1\" in a for loop").arg(at()));
                            m_i = m_s.size();
                            return false;
                        }
                        into.loopWords.append(word(loop));
                    }
                }
                into.inner += loop.inner;
                return true;
            }
            if (w.text == QLatin1String("case") || w.text == QLatin1String("esac")) {
                problem(QStringLiteral("a case statement"));
                m_i = m_s.size();
                return false;
            }
            if (w.text == QLatin1String("function") || w.text == QLatin1String("coproc")) {
                problem(QStringLiteral("a %1 definition").arg(w.text));
                m_i = m_s.size();
                return false;
            }
            if (w.text == QLatin1String("}")) {
                problem(QStringLiteral("an unexpected \"}\""));
                m_i = m_s.size();
                return false;
            }
        }
        named = true;
        into.words.append(std::move(w));
        if (into.words.size() == 1 && into.words.first().literal &&
            into.words.first().text == QLatin1String("[[")) {
            // [[ ... ]]: a test (-eq, -v and the like evaluate arithmetic); its words are read up to ]].
            m_notes.arithmetic = true;
            for (;;) {
                skipBlanks();
                if (atEnd())
                    break;
                if (isMeta(at()) && at() != QLatin1Char('<') && at() != QLatin1Char('>')) {
                    if (startsWith("&&") || startsWith("||") || at() == QLatin1Char('(') ||
                        at() == QLatin1Char(')')) {
                        m_i += (at() == QLatin1Char('(') || at() == QLatin1Char(')')) ? 1 : 2;
                        continue;
                    }
                    break;
                }
                if (at() == QLatin1Char('<') || at() == QLatin1Char('>')) {
                    ++m_i;
                    continue;
                }
                Word t = word(into);
                into.words.append(t);
                if (t.literal && t.text == QLatin1String("]]"))
                    break;
            }
        }
    }
}

bool Reader::redirection(Command &into)
{
    qsizetype k = 0;
    while (at(k).isDigit() && at(k).unicode() < 128)
        ++k;
    QString op;
    int fd = -1;
    if (k == 0 && (startsWith("&>>") || startsWith("&>"))) {
        op = startsWith("&>>") ? QStringLiteral("&>>") : QStringLiteral("&>");
    } else {
        const QChar c = at(k);
        if (c != QLatin1Char('<') && c != QLatin1Char('>'))
            return false;
        if (k > 0)
            fd = m_s.mid(m_i, k).toInt();
        static const char *const ops[] = {"<<<", "<<-", "<<", "<>", "<&", "<(",
                                          ">>",  ">|",  ">&", ">(", "<",  ">"};
        for (const char *candidate : ops) {
            if (QStringView(m_s).mid(m_i + k).startsWith(QLatin1String(candidate))) {
                op = QLatin1String(candidate);
                break;
            }
        }
        if (op == QLatin1String("<(") || op == QLatin1String(">(")) {
            if (k > 0)
                return false;
            return false; // a process substitution: a word, read by word()
        }
    }
    m_i += k + op.size();
    skipBlanks();
    Redirection r;
    r.op = op;
    r.fd = fd;
    if (atEnd() || (isMeta(at()) && !(at() == QLatin1Char('<') && at(1) == QLatin1Char('(')) &&
                    !(at() == QLatin1Char('>') && at(1) == QLatin1Char('(')))) {
        problem(QStringLiteral("a redirection \"%1\" with nothing after it").arg(op));
        m_i = m_s.size();
        return true;
    }
    if (op == QLatin1String("<<") || op == QLatin1String("<<-")) {
        const qsizetype start = m_i;
        Command scratch;
        Word delimiter = word(scratch);
        const QString raw = m_s.mid(start, m_i - start);
        PendingHereDocument doc;
        doc.delimiter = delimiter.text;
        doc.stripTabs = op == QLatin1String("<<-");
        doc.expands = !raw.contains(QLatin1Char('\'')) && !raw.contains(QLatin1Char('"')) &&
                      !raw.contains(QLatin1Char('\\'));
        doc.body = std::make_shared<QString>();
        doc.dynamic = std::make_shared<bool>(false);
        doc.inner = std::make_shared<Script>();
        r.target = delimiter;
        r.hereDocument = doc.body;
        r.hereDynamic = doc.dynamic;
        r.op = QStringLiteral("<<");
        into.inner.append(doc.inner);
        m_pending.append(doc);
        into.redirections.append(r);
        return true;
    }
    r.target = word(into);
    if (op == QLatin1String("<<<")) {
        r.hereDocument = std::make_shared<QString>(r.target.text + QLatin1Char('\n'));
        r.hereDynamic = std::make_shared<bool>(!r.target.literal);
    } else if (op == QLatin1String(">&") || op == QLatin1String("<&")) {
        bool digits = !r.target.text.isEmpty();
        for (const QChar c : r.target.text)
            digits = digits && c.isDigit() && c.unicode() < 128;
        if (r.target.literal && (digits || r.target.text == QLatin1String("-") ||
                                 (r.target.text.endsWith(QLatin1Char('-')) && r.target.text.size() > 1))) {
            r.dup = true;
        } else if (op == QLatin1String(">&") && fd < 0) {
            r.op = QStringLiteral("&>"); // >&file: stdout and stderr to file
        } else {
            r.dup = true; // n>&$var: a descriptor the reader cannot know; no file is named
            problem(QStringLiteral("a redirection onto a descriptor that expands"));
        }
    }
    into.redirections.append(r);
    return true;
}

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
QString ansiC(const QString &s, qsizetype &i, bool &closed)
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

} // namespace

Script ShellParser::parse(const QString &line)
{
    Reader::Notes notes;
    Reader reader(line, 0, notes);
    Script script = reader.list();
    if (reader.position() < line.size()) {
        // A ")" or "}" with no group open.
        notes.problems.append(QStringLiteral("an unexpected \"%1\"").arg(line.at(reader.position())));
    }
    script.problems += notes.problems;
    script.problems.removeDuplicates();
    script.variables = notes.variables;
    script.variables.removeDuplicates();
    script.arithmetic = notes.arithmetic;
    return script;
}

} // namespace Countersign::Shell
