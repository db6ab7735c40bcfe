#include "pythoncode.h"

#include "codestrings.h"
#include "pythonreader.h"

#include <QDir>
#include <QRegularExpression>

namespace Countersign::Shell::PythonCode::Detail {

Reader::Reader(CommandCatalog &c, const QList<Token> &tokens, const QStringList &lines, QString origin,
               QString importFolder)
    : m_c(c), m_t(tokens), m_lines(lines), m_origin(std::move(origin)), m_cwd(c.how().cwd),
      m_importFolder(importFolder.isEmpty() ? c.how().cwd : std::move(importFolder)),
      m_match(tokens.size(), -1)
{
    QList<qsizetype> open;
    for (qsizetype i = 0; i < m_t.size(); ++i) {
        if (m_t.at(i).kind != Token::Kind::Op)
            continue;
        const QString &op = m_t.at(i).text;
        if (op == QLatin1String("(") || op == QLatin1String("[") || op == QLatin1String("{")) {
            open.append(i);
        } else if ((op == QLatin1String(")") || op == QLatin1String("]") || op == QLatin1String("}")) &&
                   !open.isEmpty()) {
            m_match[i] = open.last();
            m_match[open.takeLast()] = i;
        }
    }
    // A folder changed anywhere (os.chdir, contextlib.chdir, ...): relative paths are not known.
    for (const Token &t : m_t) {
        if (t.kind == Token::Kind::Name &&
            (t.text == QLatin1String("chdir") || t.text == QLatin1String("fchdir")))
            m_cwd.clear();
    }
}

void Reader::run()
{
    bindings();
    qsizetype import = 0;
    for (qsizetype i = 0; i < m_t.size(); ++i) {
        const Token &t = m_t.at(i);
        // A dunder that reaches internals, wherever it stands (after a keyword, a number, in a
        // string that str.format walks: "{0.__globals__}").
        static const QRegularExpression dunder(QStringLiteral("__[A-Za-z0-9_]+__"));
        if (t.kind == Token::Kind::String || t.kind == Token::Kind::Name) {
            for (auto it = dunder.globalMatch(t.text); it.hasNext();) {
                const QString name = it.next().captured(0);
                if (!PythonNames::dunderAllowed(name)) {
                    unknown(i, QStringLiteral("reaches %1, through which code cannot be followed").arg(name));
                    break;
                }
            }
        }
        if (t.kind == Token::Kind::String && t.literal) {
            // Adjacent strings are one ("'.e' 'nv'").
            QString text = t.text;
            qsizetype j = i;
            while (j + 1 < m_t.size() && m_t.at(j + 1).kind == Token::Kind::String && m_t.at(j + 1).literal)
                text += m_t.at(++j).text;
            literalPath(i, text);
            i = j;
            continue;
        }
        const bool value = t.text == QLatin1String("None") || t.text == QLatin1String("True") ||
                           t.text == QLatin1String("False");
        if (t.kind != Token::Kind::Name || (PythonNames::keyword(t.text) && !value))
            continue;
        while (import < m_imports.size() && m_imports.at(import).second <= i)
            ++import;
        if (import < m_imports.size() && m_imports.at(import).first <= i)
            continue; // the import statement's own names
        // A name after a dot starts a chain only on an expression (CALL(...).name, "x".name).
        if (isOp(i - 1, ".") && isNameAt(i - 2))
            continue;
        i = chain(i);
    }
}

void Reader::add(Effect::Kind kind, qsizetype at, const QString &what, const QString &path, bool known,
                 bool replaces)
{
    if (++m_effects > kMaxEffects) {
        if (m_effects == kMaxEffects + 1)
            m_c.unknown(QStringLiteral("%1 does more than Countersign lists").arg(m_origin));
        return;
    }
    m_c.append(CodeStrings::effect(kind, sourceOf(at), what, path, known, replaces));
}

QString Reader::sourceOf(qsizetype at) const
{
    return CodeStrings::source(m_origin, at >= 0 && at < m_t.size() ? m_t.at(at).line : 1, m_lines);
}

QString Reader::absolute(const QString &path) const
{
    if (path.startsWith(QLatin1String("~/")) || path == QLatin1String("~"))
        return m_c.home() + path.mid(1);
    if (path.startsWith(QLatin1Char('~')))
        return {}; // ~user: another home folder
    if (path.startsWith(QLatin1Char('/')))
        return QDir::cleanPath(path);
    if (m_cwd.isEmpty())
        return {};
    const QString joined = m_cwd + QLatin1Char('/') + path;
    return joined.split(QLatin1Char('/')).contains(QStringLiteral("..")) ? joined : QDir::cleanPath(joined);
}

void Reader::literalPath(qsizetype at, const QString &s)
{
    switch (CodeStrings::named(s)) {
    case CodeStrings::Named::Nothing:
        return;
    case CodeStrings::Named::SecretPiece:
        return add(Effect::Kind::Secret, at, QStringLiteral("names %1, a secret's file").arg(s));
    case CodeStrings::Named::Path: {
        const QString path = absolute(s);
        return add(Effect::Kind::Reads, at, QStringLiteral("names %1").arg(s), path, !path.isEmpty());
    }
    }
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
    // Names bound anywhere else (parameters, for, as, global, del, :=, +=): not constants.
    qsizetype lambda = -1, forAt = -1, import = 0;
    for (qsizetype i = 0; i < m_t.size(); ++i) {
        const Token &t = m_t.at(i);
        while (import < m_imports.size() && m_imports.at(import).second <= i)
            ++import;
        if (import < m_imports.size() && m_imports.at(import).first <= i)
            continue; // an import's own "as"
        if (isName(i, "lambda"))
            lambda = i;
        else if (isName(i, "for"))
            forAt = i;
        if (lambda >= 0 && isOp(i, ":"))
            lambda = -1;
        if (forAt >= 0 && isName(i, "in"))
            forAt = -1;
        if (t.kind != Token::Kind::Name)
            continue;
        static const QString none;
        const QString &next =
            i + 1 < m_t.size() && m_t.at(i + 1).kind == Token::Kind::Op ? m_t.at(i + 1).text : none;
        const bool augmented = next.size() >= 2 && next.endsWith(QLatin1Char('=')) &&
                               next != QLatin1String("==") && next != QLatin1String("!=") &&
                               next != QLatin1String("<=") && next != QLatin1String(">=");
        static const QSet<QString> binders = {QStringLiteral("as"), QStringLiteral("global"),
                                              QStringLiteral("nonlocal"), QStringLiteral("del")};
        const bool bound = lambda >= 0 || forAt >= 0 || augmented ||
                           (isNameAt(i - 1) && binders.contains(m_t.at(i - 1).text));
        if (bound)
            assigned[t.text] += 2;
    }
    // "as (p, q)" and "for (a, b) in": every name in the brackets.
    for (qsizetype i = 0; i + 1 < m_t.size(); ++i) {
        if (!(isName(i, "as") || isName(i, "for")) || !(isOp(i + 1, "(") || isOp(i + 1, "[")) ||
            m_match.at(i + 1) < 0)
            continue;
        for (qsizetype k = i + 2; k < m_match.at(i + 1); ++k) {
            if (isNameAt(k))
                assigned[m_t.at(k).text] += 2;
        }
    }
    // A def's parameters.
    for (qsizetype i = 0; i + 2 < m_t.size(); ++i) {
        if (!isName(i, "def") || !isOp(i + 2, "(") || m_match.at(i + 2) < 0)
            continue;
        for (qsizetype k = i + 3; k < m_match.at(i + 2); ++k) {
            if (isNameAt(k))
                assigned[m_t.at(k).text] += 2;
        }
    }
    for (auto it = assigned.cbegin(); it != assigned.cend(); ++it)
        m_bound.insert(it.key());
    for (auto it = assigned.cbegin(); it != assigned.cend(); ++it) {
        if (it.value() > 1) {
            m_constants.remove(it.key());
            m_alias.remove(it.key());
        }
        if (importBound(it.key()))
            unknown(0, QStringLiteral("binds %1, a name an import made, to something else").arg(it.key()));
        else if (PythonNames::trustedName(it.key()))
            unknown(0, QStringLiteral("binds %1, a name the reader trusts, to something else").arg(it.key()));
    }
}

void Reader::statement(qsizetype from, qsizetype to, QHash<QString, int> &assigned)
{
    if (from >= to)
        return;
    // An import, also after a compound statement's colon ("if 1: import os as o").
    for (qsizetype k = from; k < to; ++k) {
        if (!(isName(k, "import") || isName(k, "from")) || (k > from && !isOp(k - 1, ":")))
            continue;
        m_imports.append({k, to});
        return importStatement(k, to);
    }
    for (qsizetype k = from; k < to; ++k) {
        if (isName(k, "import"))
            return unknown(k, QStringLiteral("an import Countersign does not read"));
    }
    // A pattern's names are bound by the value matched ("case p:").
    if (isName(from, "case")) {
        for (qsizetype k = from + 1; k < to && !isOp(k, ":"); ++k) {
            if (isNameAt(k))
                assigned[m_t.at(k).text] += 2;
        }
    }
    if ((isName(from, "def") || isName(from, "class")) && isNameAt(from + 1)) {
        assigned[m_t.at(from + 1).text] += 2;
        return;
    }
    // The targets: what comes before the last "=" outside brackets.
    qsizetype equals = -1;
    for (qsizetype i = from; i < to; ++i) {
        if (isOp(i, "(") || isOp(i, "[") || isOp(i, "{")) {
            i = m_match.at(i) < 0 ? to : m_match.at(i);
            continue;
        }
        if (isOp(i, "="))
            equals = i;
    }
    if (equals < 0) {
        if (isNameAt(from) && isOp(from + 1, ":")) // an annotation with no value
            assigned[m_t.at(from).text] += 2;
        return;
    }
    if (equals == from + 1 && isNameAt(from)) {
        const QString name = m_t.at(from).text;
        assigned[name] += 1;
        if (const auto value = literalOf(from + 2, to)) {
            m_constants.insert(name, *value);
        } else {
            // NAME = a.b.c where a is an import's: another name for it (o = os.path, f = os.remove).
            QString text;
            for (qsizetype k = from + 2; k < to; ++k)
                text += m_t.at(k).text;
            if (chainEnd(from + 2) + 1 == to && importBound(m_t.at(from + 2).text))
                m_alias.insert(name, resolved(text));
        }
        return;
    }
    // Tuples, annotations, subscripts, attributes, chained assignments: every name on the left.
    for (qsizetype i = from; i < equals; ++i) {
        if (isNameAt(i))
            assigned[m_t.at(i).text] += 2;
    }
}

void Reader::importStatement(qsizetype from, qsizetype to)
{
    const auto dotted = [&](qsizetype &i) {
        QString module;
        while (isOp(i, ".")) // a relative import's dots
            module += m_t.at(i++).text;
        if (isNameAt(i))
            module += m_t.at(i++).text;
        while (isOp(i, ".") && isNameAt(i + 1)) {
            module += QLatin1Char('.') + m_t.at(i + 1).text;
            i += 2;
        }
        return module;
    };
    if (isName(from, "import")) {
        for (qsizetype i = from + 1; i < to;) {
            const QString module = dotted(i);
            if (isName(i, "as") && isNameAt(i + 1)) {
                m_modules.insert(m_t.at(i + 1).text, module);
                i += 2;
            } else if (!module.isEmpty()) {
                m_modules.insert(module.section(QLatin1Char('.'), 0, 0),
                                 module.section(QLatin1Char('.'), 0, 0));
            }
            if (!isOp(i, ",") && i < to)
                return unknown(from, QStringLiteral("an import Countersign does not read"));
            importRead(module, from);
            ++i;
        }
        return;
    }
    qsizetype i = from + 1;
    const QString module = dotted(i);
    if (!isName(i, "import"))
        return unknown(from, QStringLiteral("an import Countersign does not read"));
    for (++i; i < to; ++i) {
        if (isOp(i, "(") || isOp(i, ")") || isOp(i, ","))
            continue;
        if (isOp(i, "*")) {
            const QString root = module.section(QLatin1Char('.'), 0, 0);
            if (!PythonNames::computes(root) || root == QLatin1String("os") ||
                root == QLatin1String("shutil") || root == QLatin1String("subprocess") ||
                root == QLatin1String("sys") || root == QLatin1String("pathlib") ||
                root == QLatin1String("io"))
                unknown(from,
                        QStringLiteral("imports every name of %1, whose uses Countersign does not follow")
                            .arg(module));
            continue;
        }
        if (!isNameAt(i))
            return unknown(from, QStringLiteral("an import Countersign does not read"));
        const QString name = m_t.at(i).text;
        QString bound = name;
        if (isName(i + 1, "as") && isNameAt(i + 2)) {
            bound = m_t.at(i + 2).text;
            i += 2;
        }
        m_imported.insert(bound, module + QLatin1Char('.') + name);
        // from . import x, from pkg import mod: the name may be a module file of its own.
        importRead(module.endsWith(QLatin1Char('.')) ? module + name : module + QLatin1Char('.') + name,
                   from);
    }
    if (!module.endsWith(QLatin1Char('.')))
        importRead(module, from);
}

QString Reader::resolved(const QString &chain, int depth) const
{
    const QString head = chain.section(QLatin1Char('.'), 0, 0);
    const QString rest = chain.mid(head.size());
    if (depth > 8)
        return QStringLiteral("(an alias of an alias)") + rest;
    if (const auto it = m_alias.constFind(head); it != m_alias.cend())
        return resolved(*it, depth + 1) + rest;
    if (const auto it = m_imported.constFind(head); it != m_imported.cend())
        return *it + rest;
    if (const auto it = m_modules.constFind(head); it != m_modules.cend())
        return *it + rest;
    return chain;
}

std::optional<QString> Reader::literalOf(qsizetype from, qsizetype to, int depth) const
{
    if (from >= to || depth > 16 || to - from > 256)
        return std::nullopt;
    // Split at the last "/" or "+" outside brackets.
    for (qsizetype i = to - 1; i > from; --i) {
        if (m_t.at(i).kind != Token::Kind::Op)
            continue;
        if ((isOp(i, ")") || isOp(i, "]") || isOp(i, "}")) && m_match.at(i) >= from) {
            i = m_match.at(i);
            continue;
        }
        if (isOp(i, "/") || isOp(i, "+")) {
            const auto left = literalOf(from, i, depth + 1), right = literalOf(i + 1, to, depth + 1);
            if (!left || !right)
                return std::nullopt;
            if (isOp(i, "+"))
                return *left + *right;
            // pathlib joins as os.path.join does: an absolute part starts the path again.
            return right->startsWith(QLatin1Char('/')) ? *right : *left + QLatin1Char('/') + *right;
        }
    }
    // Strings, adjacent ones joined.
    if (m_t.at(from).kind == Token::Kind::String) {
        QString text;
        for (qsizetype i = from; i < to; ++i) {
            if (m_t.at(i).kind != Token::Kind::String || !m_t.at(i).literal)
                return std::nullopt;
            text += m_t.at(i).text;
        }
        return text;
    }
    if (to - from == 1)
        return isNameAt(from) && m_constants.contains(m_t.at(from).text)
                   ? std::optional<QString>(m_constants.value(m_t.at(from).text))
                   : std::nullopt;
    // CALLEE(args): a path-making call of literals.
    qsizetype open = from;
    while (open < to && !isOp(open, "("))
        ++open;
    if (open >= to || m_match.at(open) != to - 1)
        return std::nullopt;
    QString callee;
    for (qsizetype i = from; i < open; ++i) {
        if (!(isNameAt(i) || isOp(i, ".")))
            return std::nullopt;
        callee += m_t.at(i).text;
    }
    callee = resolved(callee);
    // The home folder as the absolute path it is: joined after anything, it starts the path again.
    if (callee == QLatin1String("pathlib.Path.home") || callee == QLatin1String("pathlib.Path.cwd"))
        return callee.endsWith(QLatin1String("home")) ? m_c.home() : QStringLiteral(".");
    static const QStringList wrappers = {
        QStringLiteral("pathlib.Path"),      QStringLiteral("pathlib.PurePath"),
        QStringLiteral("pathlib.PosixPath"), QStringLiteral("str"),
        QStringLiteral("os.path.join"),      QStringLiteral("os.path.expanduser"),
        QStringLiteral("os.path.abspath"),   QStringLiteral("os.path.normpath"),
        QStringLiteral("os.fspath"),         QStringLiteral("os.path.realpath")};
    if (!wrappers.contains(callee))
        return std::nullopt;
    QString path;
    int parts = 0;
    for (const auto &[a, b] : arguments(open)) {
        const auto v = literalOf(a, b, depth + 1);
        if (!v)
            return std::nullopt;
        path = parts++ == 0 || v->startsWith(QLatin1Char('/')) ? *v : path + QLatin1Char('/') + *v;
    }
    if (parts == 0)
        return callee.endsWith(QLatin1String("Path")) ? std::optional<QString>(QStringLiteral("."))
                                                      : std::nullopt;
    if (callee == QLatin1String("os.path.expanduser") && path.startsWith(QLatin1Char('~'))) {
        if (path != QLatin1String("~") && !path.startsWith(QLatin1String("~/")))
            return std::nullopt; // ~user: another home folder
        return m_c.home() + path.mid(1);
    }
    return path;
}

QList<Reader::Range> Reader::arguments(qsizetype open) const
{
    QList<Range> out;
    const qsizetype close = open >= 0 && open < m_match.size() ? m_match.at(open) : -1;
    if (close < 0)
        return out;
    qsizetype start = open + 1;
    for (qsizetype i = open + 1; i < close; ++i) {
        if ((isOp(i, "(") || isOp(i, "[") || isOp(i, "{")) && m_match.at(i) > i) {
            i = m_match.at(i);
            continue;
        }
        if (isOp(i, ",")) {
            out.append({start, i});
            start = i + 1;
        }
    }
    if (close > start)
        out.append({start, close});
    return out;
}

std::optional<Reader::Range> Reader::argument(qsizetype open, int n, const char *keyword) const
{
    int positional = 0;
    for (const Range &arg : arguments(open)) {
        const bool isKeyword = arg.second - arg.first >= 2 && isNameAt(arg.first) && isOp(arg.first + 1, "=");
        if (isKeyword) {
            if (keyword && m_t.at(arg.first).text == QLatin1String(keyword))
                return Range{arg.first + 2, arg.second};
            continue;
        }
        if (isOp(arg.first, "*") || isOp(arg.first, "**"))
            return n >= 0 ? std::optional<Range>(arg) : std::nullopt; // spread: not known which
        if (n >= 0 && positional++ == n)
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

qsizetype Reader::chainEnd(qsizetype at) const
{
    qsizetype end = at;
    while (isOp(end + 1, ".") && isNameAt(end + 2))
        end += 2;
    return end;
}

qsizetype Reader::chain(qsizetype i)
{
    const qsizetype end = chainEnd(i);
    if (end - i > 64) {
        unknown(i, QStringLiteral("a chain of more names than Countersign follows"));
        return end;
    }
    const bool onExpression = isOp(i - 1, ".");
    for (qsizetype k = i; k <= end; k += 2) {
        const QString &part = m_t.at(k).text;
        if (part.startsWith(QLatin1String("__")) && part.endsWith(QLatin1String("__")) &&
            !PythonNames::dunderAllowed(part)) {
            unknown(i, QStringLiteral("reaches %1, through which code cannot be followed").arg(part));
            return end;
        }
    }
    const qsizetype open = isOp(end + 1, "(") ? end + 1 : -1;
    if (onExpression) {
        methodCall(m_t.at(end).text, i, open, end > i ? end - 1 : i - 1);
        return end;
    }
    const QString &head = m_t.at(i).text;
    // A value's name (not an import's): a builtin, or a method of the value.
    if (!importBound(head) && !m_alias.contains(head)) {
        if (end == i)
            builtin(head, i, open);
        else
            methodCall(m_t.at(end).text, i, open, end - 1);
        return end;
    }
    QString text;
    for (qsizetype k = i; k <= end; ++k)
        text += m_t.at(k).text;
    // A module handed around bare ((os).system, a, b = os, 1, f(os)): its uses are not followed;
    // only printing it or getattr of a name (read as module.name) keep it in view.
    const auto inspected = [&] {
        static const QStringList viewers = {QStringLiteral("getattr"), QStringLiteral("hasattr"),
                                            QStringLiteral("print"),   QStringLiteral("repr"),
                                            QStringLiteral("dir"),     QStringLiteral("type"),
                                            QStringLiteral("id")};
        return isOp(i - 1, "(") && isNameAt(i - 2) && !isOp(i - 3, ".") &&
               viewers.contains(m_t.at(i - 2).text) && !m_bound.contains(m_t.at(i - 2).text) &&
               (isOp(i + 1, ",") || isOp(i + 1, ")"));
    };
    if (m_modules.contains(head) && end == i && !isOp(i + 1, ".") && !inspected())
        unknown(i, QStringLiteral("hands the module %1 around, where its uses are not followed").arg(head));
    classify(resolved(text), i, open, end > i ? end - 1 : -1);
    return end;
}

void Reader::classify(const QString &name, qsizetype at, qsizetype open, qsizetype dot)
{
    const QStringList parts = name.split(QLatin1Char('.'));
    const QString head = m_t.at(at).text;
    const bool fromImport = importBound(head) || m_alias.contains(head);
    if (!fromImport) {
        if (parts.size() == 1)
            return builtin(name, at, open);
        // A method of a value (s.replace, p.write_text, f.write).
        return methodCall(parts.last(), at, open, dot);
    }
    moduleName(parts, at, open);
    // Module.Class.method(...) holds its receiver as an argument: the path methods ask then.
    if (parts.size() >= 3)
        methodCall(parts.last(), at, open, -1);
}

} // namespace Countersign::Shell::PythonCode::Detail
