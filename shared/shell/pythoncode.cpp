#include "pythoncode.h"

#include "pythonreader.h"

namespace Countersign::Shell::PythonCode {

namespace Detail {

void Reader::run()
{
    bindings();
    for (qsizetype i = 0; i < m_t.size(); ++i) {
        const Token &t = m_t.at(i);
        if (t.kind == Token::Kind::String && t.literal)
            literalPath(i);
        if (t.kind != Token::Kind::Name)
            continue;
        // A name after a dot starts a chain only on an expression (CALL(...).name, "x".name).
        if (isOp(i - 1, ".") && i >= 2 && m_t.at(i - 2).kind == Token::Kind::Name)
            continue;
        i = chain(i);
    }
}

void Reader::add(Effect::Kind kind, qsizetype at, const QString &what, const QString &path, bool known,
                 bool replaces)
{
    const int line = m_t.value(at).line;
    QString quoted = m_lines.value(line - 1).trimmed();
    if (quoted.size() > 100)
        quoted = quoted.left(97) + QStringLiteral("...");
    Effect e;
    e.kind = kind;
    e.what = QStringLiteral("%1, line %2 (%3): %4").arg(m_origin).arg(line).arg(quoted, what);
    e.path = path;
    e.pathKnown = known && !path.isEmpty();
    e.replaces = replaces;
    if (kind == Effect::Kind::Network && !path.isEmpty())
        e.pathKnown = true;
    m_c.append(std::move(e));
}

QString Reader::absolute(const QString &path) const
{
    if (path.startsWith(QLatin1String("~/")) || path == QLatin1String("~"))
        return m_c.home() + path.mid(1);
    if (path.startsWith(QLatin1Char('/')))
        return QDir::cleanPath(path);
    if (m_cwd.isEmpty())
        return {};
    const QString joined = m_cwd + QLatin1Char('/') + path;
    return joined.split(QLatin1Char('/')).contains(QStringLiteral("..")) ? joined : QDir::cleanPath(joined);
}

void Reader::literalPath(qsizetype at)
{
    const Token &t = m_t.at(at);
    const QString &s = t.text;
    if (s.isEmpty() || s.size() > 512 || s.contains(QLatin1Char('\n')) || s.contains(QLatin1Char(' ')))
        return;
    static const QRegularExpression url(QStringLiteral("^[a-z][a-z0-9+.-]*://"));
    if (url.match(s).hasMatch())
        return;
    // A piece of a secret's path (".ssh", "id_rsa", "credentials"), however the path is put together.
    static const QRegularExpression secretPiece(QStringLiteral(
        "^(\\.ssh|\\.aws|\\.gnupg|\\.kube|\\.docker|\\.netrc|\\.git-credentials|\\.npmrc|\\.pypirc|"
        "id_(rsa|dsa|ecdsa|ed25519)|\\.env(\\.[a-z]+)?|"
        "\\.password-store|\\.vault-token|\\.boto|\\.s3cfg)$"));
    if (secretPiece.match(s.section(QLatin1Char('/'), -1)).hasMatch() && !s.startsWith(QLatin1Char('/')) &&
        !s.startsWith(QLatin1Char('~')) && !s.contains(QLatin1Char('/')) &&
        !QRegularExpression(QStringLiteral("\\.(example|sample|template|dist)$")).match(s).hasMatch())
        return add(Effect::Kind::Secret, at, QStringLiteral("names %1, a secret's file").arg(s));
    const bool pathLike = s.startsWith(QLatin1Char('/')) || s.startsWith(QLatin1Char('~')) ||
                          s.startsWith(QLatin1String("..")) || s.contains(QLatin1String("/../")) ||
                          s.startsWith(QLatin1String(".env")) || s.contains(QLatin1String("/.env"));
    if (!pathLike)
        return;
    const QString path = absolute(s);
    if (!path.isEmpty())
        add(Effect::Kind::Reads, at, QStringLiteral("names %1").arg(s), path);
}

void Reader::bindings()
{
    QHash<QString, int> assigned;
    qsizetype start = 0;
    for (qsizetype i = 0; i <= m_t.size(); ++i) {
        if (i < m_t.size() && !(m_t.at(i).kind == Token::Kind::Op && (m_t.at(i).text == QLatin1String("\n") ||
                                                                      m_t.at(i).text == QLatin1String(";"))))
            continue;
        statement(start, i, assigned);
        start = i + 1;
    }
    // Any other binding of a name (for x in, with ... as x, x += ..., a, b = ...): not a constant.
    for (qsizetype i = 0; i < m_t.size(); ++i) {
        const Token &t = m_t.at(i);
        if (t.kind != Token::Kind::Name)
            continue;
        const bool bound =
            (i > 0 && (isName(i - 1, "for") || isName(i - 1, "as") || isName(i - 1, "def") ||
                       isName(i - 1, "class") || isName(i - 1, "global") || isName(i - 1, "nonlocal"))) ||
            (i + 1 < m_t.size() && m_t.at(i + 1).kind == Token::Kind::Op &&
             (m_t.at(i + 1).text.endsWith(QLatin1Char('=')) && m_t.at(i + 1).text != QLatin1String("=") &&
              m_t.at(i + 1).text != QLatin1String("==") && m_t.at(i + 1).text != QLatin1String("!=") &&
              m_t.at(i + 1).text != QLatin1String("<=") && m_t.at(i + 1).text != QLatin1String(">="))) ||
            (isOp(i + 1, ",") && !isOp(i - 1, "(") && !isOp(i - 1, ","));
        if (bound)
            assigned[t.text] += 2;
    }
    for (auto it = assigned.cbegin(); it != assigned.cend(); ++it) {
        if (it.value() > 1)
            m_constants.remove(it.key());
    }
}

void Reader::statement(qsizetype from, qsizetype to, QHash<QString, int> &assigned)
{
    if (from >= to)
        return;
    if (isName(from, "import")) {
        for (qsizetype i = from + 1; i < to;) {
            QString module;
            if (i < to && m_t.at(i).kind == Token::Kind::Name)
                module = m_t.at(i++).text;
            while (isOp(i, ".") && i + 1 < to && m_t.at(i + 1).kind == Token::Kind::Name) {
                module += QLatin1Char('.') + m_t.at(i + 1).text;
                i += 2;
            }
            QString bound = module.section(QLatin1Char('.'), 0, 0);
            QString target = bound;
            if (isName(i, "as") && i + 1 < to) {
                bound = m_t.at(i + 1).text;
                target = module;
                i += 2;
            }
            if (!bound.isEmpty())
                m_alias.insert(bound, target);
            ++i; // the comma
        }
        return;
    }
    if (isName(from, "from")) {
        QString module;
        qsizetype i = from + 1;
        while (i < to && (m_t.at(i).kind == Token::Kind::Name || isOp(i, ".")) && !isName(i, "import"))
            module += m_t.at(i++).text;
        if (!isName(i, "import"))
            return;
        for (++i; i < to; ++i) {
            if (isOp(i, "*")) {
                // Every name of a module that deletes, writes, runs or connects, under no prefix:
                // which of them the code uses is not followed.
                const QString root = module.section(QLatin1Char('.'), 0, 0);
                if (networkModules().contains(root) || unreadModules().contains(root) ||
                    root == QLatin1String("os") || root == QLatin1String("shutil") ||
                    root == QLatin1String("subprocess") || root == QLatin1String("pathlib"))
                    add(Effect::Kind::Unknown, from,
                        QStringLiteral("imports every name of %1, whose uses Countersign does not follow")
                            .arg(module));
                continue;
            }
            if (m_t.at(i).kind != Token::Kind::Name)
                continue;
            const QString name = m_t.at(i).text;
            QString bound = name;
            if (isName(i + 1, "as") && i + 2 < to) {
                bound = m_t.at(i + 2).text;
                i += 2;
            }
            m_alias.insert(bound, module + QLatin1Char('.') + name);
        }
        return;
    }
    if (m_t.at(from).kind == Token::Kind::Name && isOp(from + 1, "=")) {
        const QString name = m_t.at(from).text;
        assigned[name] += 1;
        if (const auto value = literalOf(from + 2, to))
            m_constants.insert(name, *value);
        else if (to - from >= 3 && onlyChain(from + 2, to))
            m_alias.insert(name, resolved(chainText(from + 2, to)));
    }
}

QString Reader::resolved(const QString &chain) const
{
    const QString head = chain.section(QLatin1Char('.'), 0, 0);
    const QString rest = chain.mid(head.size());
    if (const auto it = m_alias.constFind(head); it != m_alias.cend() && *it != head)
        return resolved(*it) + rest;
    return chain;
}

std::optional<QString> Reader::literalOf(qsizetype from, qsizetype to) const
{
    if (from >= to)
        return std::nullopt;
    // Split at a top-level "/" or "+".
    int depth = 0;
    for (qsizetype i = to - 1; i > from; --i) {
        const QString &op = m_t.at(i).text;
        if (m_t.at(i).kind == Token::Kind::Op) {
            if (op == QLatin1String(")") || op == QLatin1String("]"))
                ++depth;
            else if (op == QLatin1String("(") || op == QLatin1String("["))
                --depth;
            else if (depth == 0 && (op == QLatin1String("/") || op == QLatin1String("+"))) {
                const auto left = literalOf(from, i), right = literalOf(i + 1, to);
                if (!left || !right)
                    return std::nullopt;
                return op == QLatin1String("/") ? *left + QLatin1Char('/') + *right : *left + *right;
            }
        }
    }
    if (to - from == 1) {
        const Token &t = m_t.at(from);
        if (t.kind == Token::Kind::String && t.literal)
            return t.text;
        if (t.kind == Token::Kind::Name && m_constants.contains(t.text))
            return m_constants.value(t.text);
        return std::nullopt;
    }
    // CALLEE(args): a path-making call of literals.
    qsizetype open = from;
    while (open < to && !isOp(open, "("))
        ++open;
    if (open >= to || !isOp(to - 1, ")") || !onlyChain(from, open))
        return std::nullopt;
    const QString callee = resolved(chainText(from, open));
    static const QSet<QString> wrappers =
        setOf({"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "Path", "str", "os.path.join",
               "os.path.expanduser", "os.path.abspath", "os.path.normpath", "os.fspath", "os.path.realpath"});
    if (callee == QLatin1String("pathlib.Path.home") || callee == QLatin1String("Path.home"))
        return QStringLiteral("~");
    if (!wrappers.contains(callee))
        return std::nullopt;
    QStringList parts;
    for (const auto &[a, b] : arguments(open)) {
        const auto v = literalOf(a, b);
        if (!v)
            return std::nullopt;
        parts.append(*v);
    }
    if (parts.isEmpty())
        return callee.endsWith(QLatin1String("Path")) ? std::optional<QString>(QStringLiteral("."))
                                                      : std::nullopt;
    return parts.join(QLatin1Char('/'));
}

QList<std::pair<qsizetype, qsizetype>> Reader::arguments(qsizetype open) const
{
    QList<std::pair<qsizetype, qsizetype>> out;
    int depth = 0;
    qsizetype start = open + 1;
    for (qsizetype i = open; i < m_t.size(); ++i) {
        const Token &t = m_t.at(i);
        if (t.kind != Token::Kind::Op)
            continue;
        if (t.text == QLatin1String("(") || t.text == QLatin1String("[") || t.text == QLatin1String("{"))
            ++depth;
        else if (t.text == QLatin1String(")") || t.text == QLatin1String("]") ||
                 t.text == QLatin1String("}")) {
            if (--depth == 0) {
                if (i > start)
                    out.append({start, i});
                return out;
            }
        } else if (depth == 1 && t.text == QLatin1String(",")) {
            out.append({start, i});
            start = i + 1;
        }
    }
    return out;
}

std::optional<std::pair<qsizetype, qsizetype>> Reader::argument(qsizetype open, int n,
                                                                const char *keyword) const
{
    int positional = 0;
    for (const auto &arg : arguments(open)) {
        const bool isKeyword = arg.second - arg.first >= 2 && m_t.at(arg.first).kind == Token::Kind::Name &&
                               isOp(arg.first + 1, "=");
        if (isKeyword) {
            if (keyword && m_t.at(arg.first).text == QLatin1String(keyword))
                return std::make_pair(arg.first + 2, arg.second);
            continue;
        }
        if (positional++ == n)
            return arg;
    }
    return std::nullopt;
}

std::optional<QString> Reader::literalArgument(qsizetype open, int n, const char *keyword) const
{
    const auto arg = argument(open, n, keyword);
    return arg ? literalOf(arg->first, arg->second) : std::nullopt;
}

void Reader::pathEffect(Effect::Kind kind, qsizetype at, qsizetype open, int n, const QString &what,
                        const char *keyword, bool replaces)
{
    const auto value = open >= 0 ? literalArgument(open, n, keyword) : std::nullopt;
    const QString path = value ? absolute(*value) : QString();
    add(kind, at,
        value ? QStringLiteral("%1 %2").arg(what, *value)
              : QStringLiteral("%1 a path not known before it runs").arg(what),
        path, !path.isEmpty(), replaces);
}

qsizetype Reader::chain(qsizetype i)
{
    qsizetype end = i;
    while (isOp(end + 1, ".") && end + 2 < m_t.size() && m_t.at(end + 2).kind == Token::Kind::Name)
        end += 2;
    const QString text = chainText(i, end + 1);
    // A method on an expression (Path("x").unlink(), "..".join(...)): its receiver is before the dot.
    const bool onExpression = isOp(i - 1, ".");
    for (qsizetype k = i; k <= end; k += 2) {
        const QString &part = m_t.at(k).text;
        if (part.startsWith(QLatin1String("__")) && part.endsWith(QLatin1String("__")) &&
            !dunderAllowed(part)) {
            add(Effect::Kind::Unknown, i,
                QStringLiteral("reaches %1, through which code cannot be followed").arg(part));
            return end;
        }
    }
    const qsizetype open = isOp(end + 1, "(") ? end + 1 : -1;
    QString name = onExpression ? QStringLiteral("(expression).") + text : resolved(text);
    classify(name, i, open, onExpression ? i - 1 : (end > i ? end - 1 : -1));
    return end;
}

std::optional<QString> Reader::receiverPath(qsizetype dot) const
{
    if (dot < 1)
        return std::nullopt;
    const qsizetype before = dot - 1;
    if (m_t.at(before).kind == Token::Kind::Name) {
        // NAME.method: a constant's value; a.b.method: not known.
        if (isOp(before - 1, "."))
            return std::nullopt;
        return m_constants.contains(m_t.at(before).text)
                   ? std::optional<QString>(m_constants.value(m_t.at(before).text))
                   : std::nullopt;
    }
    if (!isOp(before, ")"))
        return std::nullopt;
    // CALL(...).method: the call's own tokens.
    int depth = 0;
    qsizetype k = before;
    for (; k >= 0; --k) {
        if (isOp(k, ")"))
            ++depth;
        else if (isOp(k, "(") && --depth == 0)
            break;
    }
    qsizetype start = k - 1;
    while (start >= 2 && isOp(start - 1, ".") && m_t.at(start - 2).kind == Token::Kind::Name)
        start -= 2;
    if (k < 1 || m_t.at(k - 1).kind != Token::Kind::Name)
        return std::nullopt;
    return literalOf(start, before + 1);
}

void Reader::classify(const QString &name, qsizetype at, qsizetype open, qsizetype dot)
{
    QString n = name;
    if (n.startsWith(QLatin1String("builtins.")))
        n = n.mid(9);
    const QStringList parts = n.split(QLatin1Char('.'));
    const QString root = parts.first();
    const QString second = parts.value(1);
    const QString last = parts.last();
    const bool single = parts.size() == 1;
    const auto unknown = [&](const QString &why) { add(Effect::Kind::Unknown, at, why); };
    if (single) {
        static const QSet<QString> dynamic = setOf(
            {"eval", "exec", "compile", "__import__", "breakpoint", "globals", "vars", "setattr", "delattr"});
        if (dynamic.contains(n))
            return unknown(QStringLiteral("%1 runs or reaches code Countersign cannot follow").arg(n));
        if (n == QLatin1String("getattr")) {
            const auto attribute = open >= 0 ? literalArgument(open, 1) : std::nullopt;
            if (!attribute || guardedNames().contains(*attribute) ||
                (attribute->startsWith(QLatin1Char('_')) && !dunderAllowed(*attribute)))
                return unknown(QStringLiteral("getattr of a name Countersign does not follow"));
            return;
        }
        if (n == QLatin1String("open") && !m_alias.contains(n))
            return openCall(at, open, -1);
    }
    if (networkModules().contains(root) ||
        (root == QLatin1String("asyncio") &&
         (last == QLatin1String("open_connection") || last == QLatin1String("start_server"))))
        return network(n, at, open);
    if (unreadModules().contains(root))
        return unknown(
            QStringLiteral("uses %1, through which Countersign cannot follow what runs").arg(root));
    if (root == QLatin1String("subprocess") ||
        (root == QLatin1String("asyncio") && last.startsWith(QLatin1String("create_subprocess")))) {
        static const QSet<QString> harmless =
            setOf({"PIPE", "STDOUT", "DEVNULL", "CalledProcessError", "TimeoutExpired", "CompletedProcess",
                   "SubprocessError", "list2cmdline"});
        if (root == QLatin1String("subprocess") && (single || harmless.contains(last)))
            return;
        return process(n, at, open);
    }
    if (root == QLatin1String("os"))
        return osCall(parts, at, open);
    if (root == QLatin1String("shutil"))
        return shutilCall(last, at, open);
    if ((root == QLatin1String("io") || root == QLatin1String("codecs")) && last == QLatin1String("open"))
        return openCall(at, open, -1);
    if (root == QLatin1String("sqlite3") && last == QLatin1String("connect")) {
        if (open >= 0 && literalArgument(open, 0) == QStringLiteral(":memory:"))
            return;
        return pathEffect(Effect::Kind::Writes, at, open, 0, QStringLiteral("opens the database"));
    }
    if (root == QLatin1String("sys") &&
        (second == QLatin1String("modules") || second == QLatin1String("settrace") ||
         second == QLatin1String("setprofile") || second == QLatin1String("addaudithook")))
        return unknown(QStringLiteral("sys.%1 reaches code Countersign cannot follow").arg(second));
    if (root == QLatin1String("operator") &&
        (last == QLatin1String("methodcaller") || last == QLatin1String("attrgetter")))
        return unknown(QStringLiteral("operator.%1 calls a method by its name").arg(last));
    if (root == QLatin1String("types") &&
        (last == QLatin1String("FunctionType") || last == QLatin1String("CodeType")))
        return unknown(QStringLiteral("types.%1 makes code").arg(last));
    if (single || dot < 0)
        return;
    methodCall(last, at, open, dot);
}

} // namespace Detail

} // namespace Countersign::Shell::PythonCode
