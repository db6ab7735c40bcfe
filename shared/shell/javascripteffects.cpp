#include "javascriptcode.h"

#include "codestrings.h"
#include "javascriptreader.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

namespace Countersign::Shell::JavaScriptCode::Detail {

QString Reader::sourceOf(qsizetype at) const
{
    return CodeStrings::source(m_origin, at >= 0 && at < m_t.size() ? m_t.at(at).line : 1, m_lines);
}

void Reader::add(Effect::Kind kind, qsizetype at, const QString &what, const QString &path, bool known,
                 bool replaces)
{
    if (!m_checking)
        return; // the first reading only learns the names
    if (++m_effects > kMaxEffects) {
        if (m_effects == kMaxEffects + 1)
            m_c.unknown(QStringLiteral("%1 does more than Countersign lists").arg(m_origin));
        return;
    }
    m_c.append(CodeStrings::effect(kind, sourceOf(at), what, path, known, replaces));
}

Value Reader::unknown(qsizetype at, const QString &why)
{
    add(Effect::Kind::Unknown, at, why);
    Value v;
    v.kind = Value::Kind::Refused;
    v.at = at;
    return v;
}

QString Reader::absolute(const QString &path) const
{
    if (path.startsWith(QLatin1String("~/")) || path == QLatin1String("~"))
        return {}; // node does not expand ~: a folder named "~" under the one it runs in
    if (path.startsWith(QLatin1Char('/')))
        return QDir::cleanPath(path);
    const QString cwd = m_c.how().cwd;
    if (cwd.isEmpty() || path.isEmpty())
        return {};
    const QString joined = cwd + QLatin1Char('/') + path;
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
        // "~/x" is the home folder's for the shell a command line holding it runs in.
        const QString path = s.startsWith(QLatin1String("~/")) || s == QLatin1String("~")
                                 ? m_c.home() + s.mid(1)
                                 : absolute(s);
        return add(Effect::Kind::Reads, at, QStringLiteral("names %1").arg(s), path, !path.isEmpty());
    }
    }
}

void Reader::pathEffect(Effect::Kind kind, qsizetype at, const QList<Value> &args, int n, const QString &what,
                        bool replaces)
{
    const std::optional<QString> value = n < args.size() ? args.at(n).text : std::nullopt;
    const QString path = value ? absolute(*value) : QString();
    add(kind, at,
        value ? QStringLiteral("%1 %2").arg(what, *value)
              : QStringLiteral("%1 a path not known before it runs").arg(what),
        path, !path.isEmpty(), replaces);
}

std::optional<QString> Reader::pathCall(const QString &function, const QList<Value> &args) const
{
    if (args.isEmpty() || function == QLatin1String("relative"))
        return std::nullopt;
    QString path;
    for (qsizetype k = 0; k < args.size(); ++k) {
        if (!args.at(k).text)
            return std::nullopt;
        const QString &part = *args.at(k).text;
        if (function == QLatin1String("join") || function == QLatin1String("normalize"))
            path = k == 0 ? part : path + QLatin1Char('/') + part;
        else if (function == QLatin1String("resolve"))
            path = k == 0 || part.startsWith(QLatin1Char('/')) ? part : path + QLatin1Char('/') + part;
        else
            return std::nullopt;
    }
    return path;
}

void Reader::fsCall(const QString &function, const QList<Value> &args, qsizetype at)
{
    QString f = function;
    if (f.endsWith(QLatin1String("Sync")))
        f.chop(4);
    const QString name = QStringLiteral("fs.") + function;
    static const QSet<QString> reading = {QStringLiteral("readFile"),
                                          QStringLiteral("readdir"),
                                          QStringLiteral("exists"),
                                          QStringLiteral("stat"),
                                          QStringLiteral("lstat"),
                                          QStringLiteral("realpath"),
                                          QStringLiteral("access"),
                                          QStringLiteral("opendir"),
                                          QStringLiteral("readlink"),
                                          QStringLiteral("statfs"),
                                          QStringLiteral("createReadStream"),
                                          QStringLiteral("watch"),
                                          QStringLiteral("watchFile"),
                                          QStringLiteral("unwatchFile")};
    // What takes a descriptor the code opened (open() said where) or standard input and output.
    static const QSet<QString> descriptors = {QStringLiteral("write"), QStringLiteral("read"),
                                              QStringLiteral("close"), QStringLiteral("fsync"),
                                              QStringLiteral("fstat"), QStringLiteral("fdatasync")};
    if (reading.contains(f)) {
        if (!args.isEmpty() && args.first().number)
            return; // a descriptor: standard input (readFileSync(0))
        return pathEffect(Effect::Kind::Reads, at, args, 0, QStringLiteral("%1 reads").arg(name));
    }
    if (descriptors.contains(f))
        return;
    if (f == QLatin1String("writeFile") || f == QLatin1String("truncate"))
        return pathEffect(Effect::Kind::Writes, at, args, 0, QStringLiteral("%1 replaces").arg(name), true);
    if (f == QLatin1String("createWriteStream")) {
        const auto flags = args.value(1).properties.value(QStringLiteral("flags")).text;
        return pathEffect(Effect::Kind::Writes, at, args, 0, QStringLiteral("%1 writes").arg(name),
                          !(flags && flags->startsWith(QLatin1Char('a'))));
    }
    static const QSet<QString> changing = {
        QStringLiteral("appendFile"), QStringLiteral("mkdir"),   QStringLiteral("mkdtemp"),
        QStringLiteral("utimes"),     QStringLiteral("lutimes"), QStringLiteral("chmod"),
        QStringLiteral("lchmod"),     QStringLiteral("chown"),   QStringLiteral("lchown")};
    if (changing.contains(f))
        return pathEffect(Effect::Kind::Writes, at, args, 0, QStringLiteral("%1 changes").arg(name));
    if (f == QLatin1String("rm") || f == QLatin1String("unlink") || f == QLatin1String("rmdir"))
        return pathEffect(Effect::Kind::Deletes, at, args, 0, QStringLiteral("%1 deletes").arg(name));
    if (f == QLatin1String("copyFile") || f == QLatin1String("cp")) {
        pathEffect(Effect::Kind::Reads, at, args, 0, QStringLiteral("%1 reads").arg(name));
        return pathEffect(Effect::Kind::Writes, at, args, 1, QStringLiteral("%1 writes").arg(name), true);
    }
    if (f == QLatin1String("symlink") || f == QLatin1String("link")) {
        pathEffect(Effect::Kind::Reads, at, args, 0, QStringLiteral("%1 links to").arg(name));
        return pathEffect(Effect::Kind::Writes, at, args, 1, QStringLiteral("%1 makes the link").arg(name));
    }
    if (f == QLatin1String("rename")) {
        pathEffect(Effect::Kind::Writes, at, args, 0, QStringLiteral("%1 moves").arg(name));
        return pathEffect(Effect::Kind::Writes, at, args, 1, QStringLiteral("%1 replaces").arg(name), true);
    }
    if (f == QLatin1String("open")) {
        const std::optional<QString> flags = args.size() > 1 ? args.at(1).text : QStringLiteral("r");
        if (flags && (*flags == QLatin1String("r") || *flags == QLatin1String("rs")))
            return pathEffect(Effect::Kind::Reads, at, args, 0, QStringLiteral("%1 reads").arg(name));
        return pathEffect(Effect::Kind::Writes, at, args, 0, QStringLiteral("%1 opens to write").arg(name),
                          !flags || !flags->startsWith(QLatin1Char('a')));
    }
    unknown(at, QStringLiteral("%1 is a call Countersign does not read").arg(name));
}

void Reader::processCall(const QString &function, const QList<Value> &args, qsizetype at)
{
    const QString name = QStringLiteral("child_process.") + function;
    const bool line = function == QLatin1String("exec") || function == QLatin1String("execSync");
    const bool file = function == QLatin1String("execFile") || function == QLatin1String("execFileSync") ||
                      function == QLatin1String("spawn") || function == QLatin1String("spawnSync");
    if (!line && !file)
        return void(unknown(at, QStringLiteral("%1 runs code Countersign does not follow").arg(name)));
    if (args.isEmpty() || !args.first().text)
        return void(unknown(at, QStringLiteral("%1 runs a command only known when it runs").arg(name)));
    // The arguments after the command: a list of words (spawn, execFile), options, a callback.
    QList<Arg> argv = {Arg{*args.first().text, true, false, {}}};
    const Value *options = nullptr;
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Value &a = args.at(k);
        if (a.array && k == 1 && file && !line) {
            for (const std::optional<QString> &item : a.items) {
                if (!item || a.opaque)
                    return void(unknown(
                        at, QStringLiteral("%1 runs a command whose words are only known when it runs")
                                .arg(name)));
                argv.append(Arg{*item, true, false, {}});
            }
        } else if (a.object && !options) {
            options = &a;
        } else if (a.kind != Value::Kind::Function || k + 1 != args.size()) {
            return void(unknown(
                at, QStringLiteral("%1 runs a command with settings only known when it runs").arg(name)));
        }
    }
    Invocation how = m_c.how();
    how.argv.clear();
    how.stdinKind = Stdin::None;
    how.stdinText.clear();
    how.stdinPath.clear();
    how.depth += 1;
    how.source = sourceOf(at);
    bool shell = line;
    if (options) {
        if (options->opaque)
            return void(unknown(
                at, QStringLiteral("%1 runs a command with settings only known when it runs").arg(name)));
        const auto &props = options->properties;
        if (props.contains(QStringLiteral("input")))
            return void(unknown(
                at, QStringLiteral("%1 feeds the command an input Countersign does not read").arg(name)));
        if (props.contains(QStringLiteral("cwd"))) {
            const auto cwd = props.value(QStringLiteral("cwd")).text;
            how.cwd = cwd ? absolute(*cwd) : QString();
        }
        if (props.contains(QStringLiteral("shell"))) {
            const Value::Property s = props.value(QStringLiteral("shell"));
            shell = shell || s.text || s.boolean.value_or(true);
            if (s.text || !s.boolean)
                add(Effect::Kind::Environment, at,
                    QStringLiteral("%1 runs the command in a shell it names").arg(name));
        }
        for (const char *setting : {"env", "uid", "gid", "argv0", "execPath", "execArgv"}) {
            if (props.contains(QLatin1String(setting)))
                add(Effect::Kind::Environment, at,
                    QStringLiteral("%1 runs a command with settings it builds (%2)")
                        .arg(name, QLatin1String(setting)));
        }
    }
    if (shell) {
        QStringList words;
        for (const Arg &a : argv)
            words.append(a.text);
        m_c.readLine(words.join(QLatin1Char(' ')), how.cwd, how.source);
    } else {
        m_c.run(argv, how);
    }
}

void Reader::network(const QString &name, const QList<Value> &args, qsizetype at)
{
    static const QRegularExpression url(QStringLiteral("^[a-zA-Z][a-zA-Z0-9+.-]*://([^/:?#\\s]+)"));
    QString host;
    for (const Value &a : args) {
        if (const auto m = url.match(a.text.value_or(QString())); m.hasMatch()) {
            host = m.captured(1);
            break;
        }
        const auto named = a.properties.value(QStringLiteral("hostname")).text;
        const auto hostKey = a.properties.value(QStringLiteral("host")).text;
        if (named || hostKey) {
            host = named ? *named : *hostKey;
            break;
        }
    }
    add(Effect::Kind::Network, at,
        host.isEmpty() ? QStringLiteral("%1 reaches the network").arg(name)
                       : QStringLiteral("%1 connects to %2").arg(name, host),
        host, !host.isEmpty());
}

Value Reader::projectModule(const QString &name, const QString &base, qsizetype at)
{
    Value r;
    r.at = at;
    // What node loads, in node's own order: base as a file (base, .js, .json, .node), then as a
    // folder (a package.json's "main" asks; index.js, index.json, index.node); a name ending in
    // "/" is a folder only. The first that is there is the one: a harmless x.js beside the x node
    // loads says nothing.
    QStringList candidates;
    if (!name.endsWith(QLatin1Char('/')))
        candidates = {base, base + QStringLiteral(".js"), base + QStringLiteral(".json"),
                      base + QStringLiteral(".node")};
    QString found;
    for (const QString &candidate : candidates) {
        if (QFileInfo(candidate).isFile()) {
            found = candidate;
            break;
        }
    }
    if (found.isEmpty() && QFileInfo(base).isDir()) {
        if (QFileInfo::exists(base + QStringLiteral("/package.json")))
            return unknown(
                at, QStringLiteral("loads the folder %1, whose package.json names what runs").arg(name));
        for (const QString &index :
             {QStringLiteral("/index.js"), QStringLiteral("/index.json"), QStringLiteral("/index.node")}) {
            if (QFileInfo(base + index).isFile()) {
                found = base + index;
                break;
            }
        }
    }
    if (found.isEmpty())
        return unknown(at, QStringLiteral("loads %1, which is no file Countersign can find").arg(name));
    // node loads the file a link leads to.
    const QString real = QFileInfo(found).canonicalFilePath();
    if (real.endsWith(QLatin1String(".json"))) {
        add(Effect::Kind::Reads, at, QStringLiteral("loads %1").arg(name), real, true);
        return r;
    }
    if (real.endsWith(QLatin1String(".node")) || real.endsWith(QLatin1String(".mjs")))
        return unknown(at, QStringLiteral("loads %1, code Countersign does not read").arg(name));
    // The project's own module: its code runs, judged as the project's tests' code is (read when
    // the agent changed it); what it exports may be called.
    if (m_checking)
        m_c.script(QStringLiteral("%1 loads %2").arg(m_origin, name), real, true, sourceOf(at));
    r.kind = Value::Kind::Project;
    r.path = real;
    return r;
}

Value Reader::require(const QList<Value> &args, qsizetype at)
{
    if (args.size() != 1 || !args.first().text)
        return unknown(at, QStringLiteral("require of a module only known when it runs"));
    QString name = *args.first().text;
    if (name.startsWith(QLatin1String("node:")))
        name = name.mid(5);
    Value r;
    r.at = at;
    const bool relative = name.startsWith(QLatin1String("./")) || name.startsWith(QLatin1String("../")) ||
                          name.startsWith(QLatin1Char('/')) || name.startsWith(QLatin1Char('~'));
    // require('./x') is x beside the module that requires it (inline code: the folder it runs in).
    const QString folder = m_moduleFolder.isEmpty() ? m_c.how().cwd : m_moduleFolder;
    const QString base = name.startsWith(QLatin1Char('/')) || folder.isEmpty()
                             ? name
                             : QDir::cleanPath(folder + QLatin1Char('/') + name);
    if (relative && !name.startsWith(QLatin1Char('~')) && base.startsWith(QLatin1Char('/')))
        return projectModule(name, base, at);
    if (relative)
        return unknown(at, QStringLiteral("loads %1, where node does not expand ~").arg(name));
    static const QHash<QString, QString> modules = {
        {QStringLiteral("fs"), QStringLiteral("fs")},
        {QStringLiteral("fs/promises"), QStringLiteral("fs.promises")},
        {QStringLiteral("path"), QStringLiteral("path")},
        {QStringLiteral("path/posix"), QStringLiteral("path")},
        {QStringLiteral("os"), QStringLiteral("os")},
        {QStringLiteral("child_process"), QStringLiteral("child_process")},
        {QStringLiteral("crypto"), QStringLiteral("crypto")},
        {QStringLiteral("util"), QStringLiteral("util")},
        {QStringLiteral("url"), QStringLiteral("url")},
        {QStringLiteral("querystring"), QStringLiteral("querystring")},
        {QStringLiteral("assert"), QStringLiteral("assert")},
        {QStringLiteral("assert/strict"), QStringLiteral("assert")},
        {QStringLiteral("zlib"), QStringLiteral("zlib")}};
    if (const auto it = modules.constFind(name); it != modules.cend()) {
        r.kind = Value::Kind::Module;
        r.path = *it;
        return r;
    }
    if (jsNetworkModule(name)) {
        r.kind = Value::Kind::Module;
        r.path = name;
        return r;
    }
    return unknown(at, QStringLiteral("loads %1, whose code Countersign does not read").arg(name));
}

} // namespace Countersign::Shell::JavaScriptCode::Detail
