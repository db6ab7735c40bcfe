#include "shellreader.h"

#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcShellReads, "countersign.shell.reads", QtWarningMsg)

namespace Countersign::Shell {

namespace Detail {

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

} // namespace Detail

Script ShellParser::parse(const QString &line)
{
    // Off unless asked for (QT_LOGGING_RULES="countersign.shell.reads.debug=true"): a test counts
    // how often one call's line is read.
    qCDebug(lcShellReads, "reads a line of %d characters", int(line.size()));
    Detail::Reader::Notes notes;
    Detail::Reader reader(line, 0, notes);
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
