#include "commandeffects.h"

#include "commandcatalog.h"
#include "shellbuiltins.h"
#include "shellparser.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>

namespace Countersign::Shell {

namespace {

// Bash's brace expansion of one word ("{a,b}c", "x{1..3}"), bounded; a word with no brace is
// itself. Each result starting with "~/" is a home path again, as bash expands the tilde after.
QStringList braceExpanded(const QString &text, int budget = 64)
{
    const qsizetype open = text.indexOf(QLatin1Char('{'));
    if (open < 0 || budget <= 0)
        return {text};
    int depth = 0;
    qsizetype close = -1;
    QList<qsizetype> commas;
    for (qsizetype k = open; k < text.size(); ++k) {
        const QChar c = text.at(k);
        if (c == QLatin1Char('{'))
            ++depth;
        else if (c == QLatin1Char('}') && --depth == 0) {
            close = k;
            break;
        } else if (c == QLatin1Char(',') && depth == 1)
            commas.append(k);
    }
    if (close < 0)
        return {text};
    const QString head = text.left(open), tail = text.mid(close + 1);
    QStringList parts;
    if (!commas.isEmpty()) {
        qsizetype from = open + 1;
        for (qsizetype comma : commas) {
            parts.append(text.mid(from, comma - from));
            from = comma + 1;
        }
        parts.append(text.mid(from, close - from));
    } else {
        const QStringList range = text.mid(open + 1, close - open - 1).split(QStringLiteral(".."));
        bool okA = false, okB = false;
        const int a = range.value(0).toInt(&okA), b = range.value(1).toInt(&okB);
        if (range.size() == 2 && okA && okB && qAbs(b - a) < 64) {
            for (int v = a; a <= b ? v <= b : v >= b; v += a <= b ? 1 : -1)
                parts.append(QString::number(v));
        } else if (range.size() == 2 && range.at(0).size() == 1 && range.at(1).size() == 1) {
            const ushort x = range.at(0).at(0).unicode(), y = range.at(1).at(0).unicode();
            for (ushort v = x; x <= y ? v <= y : v >= y; v += x <= y ? 1 : -1) {
                parts.append(QChar(v));
                if (v == y)
                    break;
            }
        } else {
            return {head + text.mid(open, close - open + 1) + braceExpanded(tail, budget).value(0)};
        }
    }
    QStringList out;
    for (const QString &part : parts) {
        for (const QString &rest : braceExpanded(part + tail, budget - int(out.size()))) {
            out.append(head + rest);
            if (out.size() >= budget)
                return out;
        }
    }
    return out;
}

class Interpreter final
{
public:
    explicit Interpreter(const CommandEffects::Context &context) : m_home(context.home) {}

    QList<Effect> effects;

    void script(const Script &s, QString &cwd, int depth);
    void run(const QList<Arg> &args, const Invocation &how, int depth);
    // Code read by reader (Python, JavaScript), its effects added to the line's.
    void code(CommandEffects::CodeReader reader, const QString &code, const QString &origin,
              const Invocation &how, const QString &folder);
    // A catalog that reads the lines and commands it is handed back through this interpreter.
    CommandCatalog catalog(const Invocation &how);
    // The effects from index from on, without a source of their own, come from source's code.
    void sourced(qsizetype from, const QString &source);

private:
    void pipeline(const Pipeline &p, QString &cwd, int depth);
    void command(const Command &c, QString &cwd, Stdin stdinKind, const QString &stdinText, bool alone,
                 int depth);
    Arg argOf(const Word &w, const QString &cwd) const;
    // The words as arguments, brace expansions expanded (each a path of its own, ~ again a home).
    QList<Arg> argsOf(const QList<Word> &words, const QString &cwd) const;
    // Code hidden for later: an array subscript that substitutes ("a[$(cmd)]") runs when the name
    // is read as arithmetic; it is never read.
    void hiddenCode(const QString &text, const Invocation &how);
    void add(Effect::Kind kind, const QString &what, const Invocation &how, const QString &path = {},
             bool known = true);

    QStringList pathsPrinted(const Command &c, const QString &cwd) const;

    QString m_home;
    QStringList m_stdinPaths;
    QHash<QString, Arg> m_bound; // for loops' variables
    bool m_assigns = false;      // the line sets a variable (an assignment, read, printf -v, for...)
};

// The folders under which a command prints paths (find DIR..., fd, git ls-files, ls, rg -l, grep -l),
// one path per line; none when it prints anything else.
QStringList Interpreter::pathsPrinted(const Command &c, const QString &cwd) const
{
    if (c.kind != Command::Kind::Simple || c.words.isEmpty() || !c.words.first().literal || cwd.isEmpty())
        return {};
    QList<Arg> args;
    for (const Word &w : c.words)
        args.append(argOf(w, cwd));
    const QString program = args.first().text;
    const bool gitFiles = program == QLatin1String("git") && args.value(1).text == QLatin1String("ls-files");
    // git ls-files -o/-i (untracked, ignored) and fd -H/-I list what git does not keep: .env among it.
    for (const Arg &a : args.mid(1)) {
        if ((gitFiles && (a.text == QLatin1String("-o") || a.text == QLatin1String("-i") ||
                          a.text.startsWith(QLatin1String("--others")) ||
                          a.text.startsWith(QLatin1String("--ignored")))) ||
            ((program == QLatin1String("fd") || program == QLatin1String("fdfind")) &&
             a.text.startsWith(QLatin1Char('-'))))
            return {};
    }
    const bool lists = gitFiles || program == QLatin1String("fd") || program == QLatin1String("fdfind");
    if (program == QLatin1String("find")) {
        QStringList folders;
        qsizetype k = 1;
        for (; k < args.size(); ++k) {
            const Arg &a = args.at(k);
            if (a.text.startsWith(QLatin1Char('-')) || a.text == QLatin1String("(") ||
                a.text == QLatin1String("!"))
                break;
            const QString path = CommandCatalog::absolute(a, cwd);
            if (path.isEmpty() || a.glob)
                return {};
            folders.append(path);
        }
        if (folders.isEmpty())
            folders.append(cwd);
        // find -name PATTERN prints what matches it: the pattern in each folder stands for those
        // (a secret's name asks), and a name that starts with a dot is never a plain listing.
        for (; k < args.size(); ++k) {
            const QString t = args.at(k).text;
            if ((t == QLatin1String("-name") || t == QLatin1String("-iname") || t == QLatin1String("-path") ||
                 t == QLatin1String("-regex")) &&
                k + 1 < args.size()) {
                QStringList named;
                for (const QString &f : folders)
                    named.append(f + QStringLiteral("/**/") + args.at(k + 1).text);
                return named;
            }
        }
        return folders;
    }
    if (lists)
        return {cwd};
    return {};
}

Arg Interpreter::argOf(const Word &w, const QString &cwd) const
{
    // "$f" in a for loop over one word (for f in *.txt): that word.
    if (w.variables.size() == 1 && !w.substitutes && m_bound.contains(w.variables.first()) &&
        (w.text == QLatin1Char('$') + w.variables.first() ||
         w.text == QStringLiteral("${%1}").arg(w.variables.first())))
        return m_bound.value(w.variables.first());
    Arg a;
    a.text = w.text;
    a.glob = w.glob;
    a.known = w.literal || w.glob;
    if (w.processSubstitution) { // its inner script is read on its own; the command gets a pipe
        a.known = true;
        a.variables = w.variables;
        return a;
    }
    if (w.tilde && !w.tildeOther)
        a.text = m_home + w.text.mid(1);
    if (w.tildeAfterEquals) {
        const qsizetype eq = a.text.indexOf(QLatin1String("=~"));
        if (eq >= 0)
            a.text = a.text.left(eq + 1) + m_home + a.text.mid(eq + 2);
    }
    if (!w.literal && !w.substitutes && !w.tildeOther) {
        // $HOME and $PWD are known; anything else is not.
        bool onlyKnown = !w.variables.isEmpty();
        for (const QString &v : w.variables)
            onlyKnown = onlyKnown && (v == QLatin1String("HOME") || v == QLatin1String("PWD"));
        if (onlyKnown && !cwd.isEmpty()) {
            QString t = a.text;
            t.replace(QLatin1String("${HOME}"), m_home).replace(QLatin1String("$HOME"), m_home);
            t.replace(QLatin1String("${PWD}"), cwd).replace(QLatin1String("$PWD"), cwd);
            a.text = t;
            a.known = true;
        }
    }
    a.variables = w.variables;
    return a;
}

QList<Arg> Interpreter::argsOf(const QList<Word> &words, const QString &cwd) const
{
    QList<Arg> args;
    for (const Word &w : words) {
        const Arg a = argOf(w, cwd);
        if (!w.glob || !w.text.contains(QLatin1Char('{'))) {
            args.append(a);
            continue;
        }
        for (const QString &alternative : braceExpanded(w.text)) {
            Arg each = a;
            each.text = alternative.startsWith(QLatin1String("~/")) || alternative == QLatin1String("~")
                            ? m_home + alternative.mid(1)
                            : alternative;
            static const QRegularExpression wild(QStringLiteral("[*?\\[]"));
            each.glob = wild.match(alternative).hasMatch();
            args.append(each);
        }
    }
    return args;
}

void Interpreter::hiddenCode(const QString &text, const Invocation &how)
{
    static const QRegularExpression subscript(QStringLiteral("\\[[^\\]]*(\\$\\(|`)"));
    if (subscript.match(text).hasMatch())
        add(Effect::Kind::Unknown,
            QStringLiteral("an array subscript that runs code when it is read (%1)").arg(text.left(60)), how);
}

void Interpreter::add(Effect::Kind kind, const QString &what, const Invocation &how, const QString &path,
                      bool known)
{
    Effect e;
    e.kind = kind;
    e.what = what;
    e.cwd = how.cwd;
    e.argv = how.argv;
    e.path = path;
    e.pathKnown = known;
    effects.append(std::move(e));
}

void Interpreter::script(const Script &s, QString &cwd, int depth)
{
    for (const QString &why : s.problems)
        effects.append(Effect{Effect::Kind::Unknown,
                              Effect::Code::None,
                              {},
                              false,
                              false,
                              false,
                              {},
                              cwd,
                              {},
                              QStringLiteral("the line holds %1, which Countersign does not read").arg(why),
                              Effect::Note::None,
                              {}});
    for (const QString &v : s.variables) {
        if (CommandCatalog::secretName(v))
            effects.append(Effect{Effect::Kind::Secret,
                                  Effect::Code::None,
                                  {},
                                  true,
                                  false,
                                  false,
                                  {},
                                  cwd,
                                  {},
                                  QStringLiteral("reads the secret variable $%1").arg(v),
                                  Effect::Note::None,
                                  {}});
    }
    for (const Pipeline &p : s.pipelines)
        pipeline(p, cwd, depth);
    if (s.arithmetic && m_assigns)
        effects.append(
            Effect{Effect::Kind::Unknown,
                   Effect::Code::None,
                   {},
                   true,
                   false,
                   false,
                   {},
                   cwd,
                   {},
                   QStringLiteral("the line sets a variable and evaluates arithmetic: a value can hide code"),
                   Effect::Note::None,
                   {}});
}

void Interpreter::pipeline(const Pipeline &p, QString &cwd, int depth)
{
    // A pipeline of one command in the foreground runs in this shell: its cd counts after it.
    const bool alone = p.commands.size() == 1 && !p.background;
    QStringList printed; // the folders the paths the previous part prints are under
    for (qsizetype k = 0; k < p.commands.size(); ++k) {
        // Each part of a pipeline runs in a subshell: a cd there changes nothing after it.
        QString stageCwd = cwd;
        m_stdinPaths = printed;
        const qsizetype from = effects.size();
        command(p.commands.at(k), alone ? cwd : stageCwd, k > 0 ? Stdin::Pipe : Stdin::None, {}, alone,
                depth);
        printed = pathsPrinted(p.commands.at(k), stageCwd);
        // env | grep java: only the lines that hold a word naming no secret are printed.
        // (Only env or printenv itself: a dump inside a substitution or a group, joined on one
        // line, would be printed whole by any word.)
        const Command &stage = p.commands.at(k);
        const bool dump = stage.kind == Command::Kind::Simple && stage.inner.isEmpty() &&
                          stage.redirections.isEmpty() && !stage.words.isEmpty() &&
                          stage.words.first().literal &&
                          (stage.words.first().text == QLatin1String("env") ||
                           stage.words.first().text == QLatin1String("printenv"));
        const QString word = dump && k + 1 < p.commands.size()
                                 ? ShellBuiltins::environmentFilter(p.commands.at(k + 1))
                                 : QString();
        for (qsizetype e = from; e < effects.size() && !word.isEmpty(); ++e) {
            if (effects[e].kind == Effect::Kind::Secret && effects[e].note == Effect::Note::Dump) {
                effects[e].kind = Effect::Kind::Reads;
                effects[e].note = Effect::Note::None;
                effects[e].what =
                    QStringLiteral("prints the environment variables whose line holds %1").arg(word);
            }
        }
    }
    m_stdinPaths.clear();
}

void Interpreter::command(const Command &c, QString &cwd, Stdin stdinKind, const QString &stdinText,
                          bool alone, int depth)
{
    Q_UNUSED(stdinText)
    Invocation how;
    how.cwd = cwd;
    how.depth = depth;
    for (const auto &inner : c.inner) {
        QString innerCwd = cwd;
        script(*inner, innerCwd, depth + 1);
    }
    if (!c.loopVariable.isEmpty()) {
        m_assigns = true;
        for (const Word &w : c.loopWords)
            hiddenCode(w.text, how);
        if (c.loopWords.size() == 1)
            m_bound.insert(c.loopVariable, argOf(c.loopWords.first(), cwd));
        else
            m_bound.remove(c.loopVariable);
    }
    // Redirections: reads and writes, and a here-document as what the command reads.
    how.stdinKind = stdinKind;
    how.stdinPaths = stdinKind == Stdin::Pipe ? m_stdinPaths : QStringList();
    for (const Redirection &r : c.redirections) {
        if (r.dup)
            continue;
        if (r.hereDocument) {
            how.stdinKind = Stdin::Text;
            how.stdinText = *r.hereDocument;
            how.stdinDynamic = r.hereDynamic && *r.hereDynamic;
            continue;
        }
        const Arg target = argOf(r.target, cwd);
        const QString path = CommandCatalog::absolute(target, cwd);
        const bool reading = r.op == QLatin1String("<");
        if (reading) {
            how.stdinKind = Stdin::File;
            how.stdinPath = path;
        }
        Effect e;
        e.kind = reading ? Effect::Kind::Reads : Effect::Kind::Writes;
        e.path = path;
        e.pathKnown = target.known && !path.isEmpty();
        e.glob = target.glob;
        e.replaces = r.op == QLatin1String(">") || r.op == QLatin1String(">|") ||
                     r.op == QLatin1String("&>") || r.op == QLatin1String("<>");
        e.cwd = cwd;
        e.what = reading ? QStringLiteral("reads %1 (<)").arg(r.target.text)
                         : QStringLiteral("writes %1 (%2)").arg(r.target.text, r.op);
        effects.append(e);
        if (r.op == QLatin1String("<>"))
            effects.append(Effect{Effect::Kind::Reads,
                                  Effect::Code::None,
                                  path,
                                  e.pathKnown,
                                  e.glob,
                                  false,
                                  {},
                                  cwd,
                                  {},
                                  QStringLiteral("reads %1 (<>)").arg(r.target.text),
                                  Effect::Note::None,
                                  {}});
    }
    if (c.kind == Command::Kind::Group) {
        if (!c.body)
            return;
        if (c.subshell || !alone) {
            QString groupCwd = cwd;
            script(*c.body, groupCwd, depth + 1);
        } else {
            script(*c.body, cwd, depth + 1);
        }
        return;
    }
    for (const auto &[name, value] : c.assignments) {
        for (Effect e : CommandCatalog::settingEffects(name, value.text, how.cwd, m_home)) {
            e.argv = how.argv;
            effects.append(std::move(e));
        }
        hiddenCode(value.text, how);
        m_bound.remove(name);
        m_assigns = true;
        how.assigned.append(name);
    }
    if (c.words.isEmpty())
        return;
    QList<Arg> args = argsOf(c.words, cwd);
    // Commands that set variables: a for loop's variable is no longer known after them.
    static const QStringList setters = {
        QStringLiteral("read"),      QStringLiteral("printf"),  QStringLiteral("mapfile"),
        QStringLiteral("readarray"), QStringLiteral("getopts"), QStringLiteral("let"),
        QStringLiteral("declare"),   QStringLiteral("typeset"), QStringLiteral("local"),
        QStringLiteral("export"),    QStringLiteral("eval"),    QStringLiteral("source"),
        QStringLiteral(".")};
    if (setters.contains(args.first().text)) {
        m_bound.clear();
        m_assigns = true;
    }
    for (const Arg &a : args)
        hiddenCode(a.text, how);
    // cd changes the folder of what follows in the same shell; one that may fail (a folder that is
    // not there, nor made earlier in the line) leaves the folder unknown.
    const QString name = args.first().known ? args.first().text : QString();
    if (name == QLatin1String("cd") || name == QLatin1String("pushd")) {
        QList<Arg> rest = args.mid(1);
        while (!rest.isEmpty() && rest.first().text.startsWith(QLatin1Char('-')) &&
               rest.first().text != QLatin1String("-"))
            rest.removeFirst();
        if (rest.isEmpty()) {
            cwd = m_home;
        } else if (!rest.first().known || rest.first().glob || rest.first().text == QLatin1String("-") ||
                   rest.size() > 1) {
            cwd.clear(); // not known from here on
        } else {
            const QString target = CommandCatalog::absolute(rest.first(), cwd);
            const bool made = std::any_of(effects.cbegin(), effects.cend(), [&target](const Effect &e) {
                return e.kind == Effect::Kind::Writes && e.pathKnown && !e.glob && e.path == target;
            });
            cwd = !target.isEmpty() && (QFileInfo(target).isDir() || made) ? target : QString();
        }
        return;
    }
    if (name == QLatin1String("popd")) {
        cwd.clear();
        return;
    }
    // A cd run another way (command cd, builtin cd, eval cd, a cd inside sh -c that sources) may
    // change this shell's folder: from here on it is not known.
    if (name == QLatin1String("command") || name == QLatin1String("builtin") ||
        name == QLatin1String("eval")) {
        for (const Arg &a : args.mid(1)) {
            if (a.text.contains(QLatin1String("cd")) || a.text.contains(QLatin1String("pushd")) ||
                a.text.contains(QLatin1String("popd")) || !a.known)
                cwd.clear();
        }
    }
    run(args, how, depth);
}

void Interpreter::run(const QList<Arg> &args, const Invocation &how, int depth)
{
    if (depth > ShellParser::kMaxDepth) {
        add(Effect::Kind::Unknown,
            QStringLiteral("commands nested deeper than %1 levels").arg(ShellParser::kMaxDepth), how);
        return;
    }
    CommandCatalog c = catalog(how);
    const qsizetype before = effects.size();
    effects += c.effectsOf(args);
    sourced(before, how.source);
}

void Interpreter::sourced(qsizetype from, const QString &source)
{
    for (qsizetype k = from; k < effects.size() && !source.isEmpty(); ++k) {
        if (effects[k].source.isEmpty())
            effects[k].source = source;
    }
}

CommandCatalog Interpreter::catalog(const Invocation &how)
{
    return CommandCatalog(
        how, m_home,
        [this](const QString &line, const QString &cwd, int d, const QString &source) {
            QString folder = cwd;
            const qsizetype before = effects.size();
            script(ShellParser::parse(line), folder, d);
            sourced(before, source);
        },
        [this](const QList<Arg> &inner, const Invocation &innerHow) {
            run(inner, innerHow, innerHow.depth);
        });
}

void Interpreter::code(CommandEffects::CodeReader reader, const QString &code, const QString &origin,
                       const Invocation &how, const QString &folder)
{
    CommandCatalog c = catalog(how);
    reader(c, code, origin, folder);
    effects += c.takeEffects();
}

} // namespace

QList<Effect> CommandEffects::read(const QString &line, const Context &context)
{
    Interpreter interpreter(context);
    QString cwd = context.cwd;
    interpreter.script(ShellParser::parse(line), cwd, 0);
    return interpreter.effects;
}

QList<Effect> CommandEffects::readCode(CodeReader reader, const QString &code, const QString &origin,
                                       const Context &context, const QString &folder)
{
    Interpreter interpreter(context);
    Invocation how;
    how.cwd = context.cwd;
    how.depth = 1;
    interpreter.code(reader, code, origin, how, folder);
    return interpreter.effects;
}

QList<Effect> CommandEffects::ofArgv(const QStringList &argv, const Context &context)
{
    Interpreter interpreter(context);
    QList<Arg> args;
    for (const QString &a : argv)
        args.append(Arg{a, true, false, {}});
    Invocation how;
    how.cwd = context.cwd;
    if (!args.isEmpty())
        interpreter.run(args, how, 0);
    return interpreter.effects;
}

} // namespace Countersign::Shell
