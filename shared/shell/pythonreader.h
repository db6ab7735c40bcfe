#pragma once

// The reader behind PythonCode, shared by its two files (pythoncode.cpp: names, bindings,
// literals and what a name reaches; pythoncalls.cpp: the calls that delete, write, run programs
// or reach the network). Private to shared/shell.

#include "commandcatalog.h"
#include "pythontokens.h"

#include <QDir>
#include <QHash>
#include <QRegularExpression>
#include <QSet>

#include <optional>

namespace Countersign::Shell::PythonCode::Detail {

using Python::Token;

inline QSet<QString> setOf(std::initializer_list<const char *> list)
{
    QSet<QString> out;
    for (const char *w : list)
        out.insert(QLatin1String(w));
    return out;
}

// Modules whose every use reaches the network.
inline const QSet<QString> &networkModules()
{
    static const QSet<QString> names =
        setOf({"requests",  "urllib",   "urllib2",  "urllib3",    "http",         "httpx",
               "aiohttp",   "socket",   "ftplib",   "smtplib",    "poplib",       "imaplib",
               "telnetlib", "xmlrpc",   "paramiko", "websocket",  "websockets",   "grpc",
               "boto3",     "botocore", "pycurl",   "webbrowser", "socketserver", "asyncssh",
               "fabric",    "ssl",      "httplib2", "tornado",    "twisted"});
    return names;
}

// Modules that run programs, reach other processes, or through which code cannot be followed.
inline const QSet<QString> &unreadModules()
{
    static const QSet<QString> names = setOf(
        {"ctypes",   "cffi",        "importlib", "runpy",  "code",       "codeop",  "marshal", "pickle",
         "cPickle",  "dill",        "shelve",    "pty",    "pexpect",    "sh",      "plumbum", "invoke",
         "docker",   "kubernetes",  "git",       "psutil", "send2trash", "keyring", "dotenv",  "pyautogui",
         "builtins", "__builtin__", "gc",        "signal", "resource",   "mmap",    "fcntl"});
    return names;
}

// os's functions that only read or compute.
inline const QSet<QString> &osReading()
{
    static const QSet<QString> names = setOf({"path",
                                              "getcwd",
                                              "getcwdb",
                                              "listdir",
                                              "scandir",
                                              "walk",
                                              "fwalk",
                                              "stat",
                                              "lstat",
                                              "fstat",
                                              "access",
                                              "getpid",
                                              "getppid",
                                              "getuid",
                                              "geteuid",
                                              "getgid",
                                              "getegid",
                                              "getlogin",
                                              "cpu_count",
                                              "sep",
                                              "altsep",
                                              "linesep",
                                              "pathsep",
                                              "curdir",
                                              "pardir",
                                              "extsep",
                                              "name",
                                              "fspath",
                                              "fsencode",
                                              "fsdecode",
                                              "urandom",
                                              "get_terminal_size",
                                              "devnull",
                                              "uname",
                                              "times",
                                              "isatty",
                                              "strerror",
                                              "getpgid",
                                              "sched_getaffinity",
                                              "terminal_size",
                                              "PathLike",
                                              "DirEntry",
                                              "error",
                                              "SEEK_SET",
                                              "SEEK_CUR",
                                              "SEEK_END",
                                              "umask",
                                              "get_exec_path",
                                              "getloadavg",
                                              "supports_follow_symlinks",
                                              "stat_result",
                                              "readlink",
                                              "samefile"});
    return names;
}

// Names whose literal use through getattr is a way around this reader.
inline const QSet<QString> &guardedNames()
{
    static const QSet<QString> names =
        setOf({"system",    "popen",      "Popen",       "run",   "call",       "check_call", "check_output",
               "getoutput", "remove",     "unlink",      "rmdir", "removedirs", "rmtree",     "rename",
               "replace",   "write_text", "write_bytes", "open",  "exec",       "eval",       "compile",
               "environ",   "getenv",     "symlink",     "chmod", "kill",       "fork",       "spawn"});
    return names;
}

inline bool dunderAllowed(const QString &name)
{
    static const QSet<QString> allowed =
        setOf({"__name__",   "__file__",         "__version__", "__doc__",      "__main__",
               "__init__",   "__all__",          "__path__",    "__package__",  "__annotations__",
               "__module__", "__qualname__",     "__len__",     "__str__",      "__repr__",
               "__eq__",     "__ne__",           "__lt__",      "__le__",       "__gt__",
               "__ge__",     "__hash__",         "__enter__",   "__exit__",     "__iter__",
               "__next__",   "__getitem__",      "__setitem__", "__contains__", "__bool__",
               "__future__", "__post_init__",    "__slots__",   "__add__",      "__sub__",
               "__mul__",    "__version_info__", "__author__"});
    return allowed.contains(name);
}

class Reader final
{
public:
    Reader(CommandCatalog &c, const QList<Token> &tokens, const QStringList &lines, QString origin)
        : m_c(c), m_t(tokens), m_lines(lines), m_origin(std::move(origin)), m_cwd(c.how().cwd)
    {
    }

    void run();

private:
    bool isOp(qsizetype i, const char *op) const
    {
        return i >= 0 && i < m_t.size() && m_t.at(i).kind == Token::Kind::Op &&
               m_t.at(i).text == QLatin1String(op);
    }
    bool isName(qsizetype i, const char *name) const
    {
        return i >= 0 && i < m_t.size() && m_t.at(i).kind == Token::Kind::Name &&
               m_t.at(i).text == QLatin1String(name);
    }

    // The effect, saying the line of code that made it.
    void add(Effect::Kind kind, qsizetype at, const QString &what, const QString &path = {},
             bool known = true, bool replaces = false);

    QString absolute(const QString &path) const;

    // A string that names a path outside the folder, in the home folder or a secret: a read.
    void literalPath(qsizetype at);

    // import and from ... import: the names they bind; NAME = literal once: a constant;
    // NAME = a.b.c: another name for it.
    void bindings();

    void statement(qsizetype from, qsizetype to, QHash<QString, int> &assigned);

    bool onlyChain(qsizetype from, qsizetype to) const
    {
        for (qsizetype i = from; i < to; ++i) {
            const bool name = m_t.at(i).kind == Token::Kind::Name;
            if ((i - from) % 2 == 0 ? !name : !isOp(i, "."))
                return false;
        }
        return (to - from) % 2 == 1;
    }
    QString chainText(qsizetype from, qsizetype to) const
    {
        QString out;
        for (qsizetype i = from; i < to; ++i)
            out += m_t.at(i).text;
        return out;
    }

    // The name a chain stands for, through imports and aliases ("sp.run" -> "subprocess.run").
    QString resolved(const QString &chain) const;

    // The value of a literal path expression in [from, to): a string, a constant, Path(...),
    // os.path.join(...), expanduser, a / b and a + b of those.
    std::optional<QString> literalOf(qsizetype from, qsizetype to) const;

    // The arguments of the call whose "(" is at open: each [from, to) of tokens, keywords included.
    QList<std::pair<qsizetype, qsizetype>> arguments(qsizetype open) const;

    // The positional argument n of the call at open (keywords skipped), or the keyword's.
    std::optional<std::pair<qsizetype, qsizetype>> argument(qsizetype open, int n,
                                                            const char *keyword = nullptr) const;

    std::optional<QString> literalArgument(qsizetype open, int n, const char *keyword = nullptr) const;

    // A path effect from argument n of the call at open (its path when literal, else unknown).
    void pathEffect(Effect::Kind kind, qsizetype at, qsizetype open, int n, const QString &what,
                    const char *keyword = nullptr, bool replaces = false);

    qsizetype chain(qsizetype i);
    qsizetype chainEnd(qsizetype at) const;
    void classify(const QString &name, qsizetype at, qsizetype open, qsizetype dot);
    void process(const QString &name, qsizetype at, qsizetype open);
    void network(const QString &name, qsizetype at, qsizetype open);
    void osCall(const QStringList &parts, qsizetype at, qsizetype open);
    void shutilCall(const QString &function, qsizetype at, qsizetype open);
    void openCall(qsizetype at, qsizetype open, qsizetype dot);
    void methodCall(const QString &method, qsizetype at, qsizetype open, qsizetype dot);
    std::optional<QString> receiverPath(qsizetype dot) const;

    CommandCatalog &m_c;
    const QList<Token> &m_t;
    const QStringList &m_lines;
    QString m_origin;
    QString m_cwd;
    QHash<QString, QString> m_alias;     // bound name -> what it stands for
    QHash<QString, QString> m_constants; // name -> its literal value (assigned once)
};

} // namespace Countersign::Shell::PythonCode::Detail
