#include "pythonnames.h"

#include <QHash>

#include <initializer_list>

namespace Countersign::Shell::PythonNames {

namespace {

QSet<QString> setOf(std::initializer_list<const char *> list)
{
    QSet<QString> out;
    for (const char *w : list)
        out.insert(QLatin1String(w));
    return out;
}

} // namespace

bool computes(const QString &module)
{
    // Pure computation, parsing of what it is handed, or names read call by call in the reader
    // (os, sys, shutil, subprocess, io, codecs, pathlib, tempfile, sqlite3, logging, unittest,
    // argparse, warnings, zipfile, tarfile, gzip, bz2, lzma). Whatever of the standard library is
    // not here asks (a module that reads files by name, evaluates text, or writes).
    static const QSet<QString> names = setOf({"json",
                                              "re",
                                              "math",
                                              "cmath",
                                              "statistics",
                                              "decimal",
                                              "fractions",
                                              "random",
                                              "string",
                                              "textwrap",
                                              "difflib",
                                              "collections",
                                              "itertools",
                                              "functools",
                                              "heapq",
                                              "bisect",
                                              "copy",
                                              "pprint",
                                              "reprlib",
                                              "enum",
                                              "dataclasses",
                                              "typing",
                                              "typing_extensions",
                                              "abc",
                                              "numbers",
                                              "datetime",
                                              "time",
                                              "calendar",
                                              "zoneinfo",
                                              "uuid",
                                              "hashlib",
                                              "hmac",
                                              "base64",
                                              "binascii",
                                              "zlib",
                                              "struct",
                                              "array",
                                              "unicodedata",
                                              "shlex",
                                              "fnmatch",
                                              "glob",
                                              "csv",
                                              "ast",
                                              "keyword",
                                              "operator",
                                              "html",
                                              "ipaddress",
                                              "colorsys",
                                              "errno",
                                              "stat",
                                              "secrets",
                                              "graphlib",
                                              "queue",
                                              "weakref",
                                              "__future__",
                                              "pathlib",
                                              "io",
                                              "codecs",
                                              "tempfile",
                                              "sqlite3",
                                              "logging",
                                              "unittest",
                                              "argparse",
                                              "warnings",
                                              "contextlib",
                                              "platform",
                                              "sysconfig",
                                              "locale",
                                              "traceback",
                                              "zipfile",
                                              "tarfile",
                                              "gzip",
                                              "bz2",
                                              "lzma",
                                              "os",
                                              "sys",
                                              "shutil",
                                              "subprocess",
                                              "urllib"});
    return names.contains(module);
}

// Per module read call by call: the names that only compute (anything else of it asks).
bool callable(const QString &module, const QString &name)
{
    static const QHash<QString, QSet<QString>> names = {
        {QStringLiteral("logging"),
         setOf({"getLogger", "basicConfig", "debug",         "info",     "warning",         "warn",
                "error",     "exception",   "critical",      "log",      "DEBUG",           "INFO",
                "WARNING",   "WARN",        "ERROR",         "CRITICAL", "NOTSET",          "StreamHandler",
                "Formatter", "Logger",      "LoggerAdapter", "disable",  "captureWarnings", "getLevelName",
                "Filter",    "NullHandler", "FileHandler",   "root",     "lastResort"})},
        {QStringLiteral("unittest"),
         setOf({"TestCase", "main", "skip", "skipIf", "skipUnless", "expectedFailure", "TestSuite",
                "TextTestRunner", "TestLoader", "defaultTestLoader", "IsolatedAsyncioTestCase", "SkipTest"})},
        {QStringLiteral("warnings"),
         setOf({"warn", "filterwarnings", "simplefilter", "catch_warnings", "resetwarnings"})},
        {QStringLiteral("typing"), setOf({})}, // every name but the evaluating ones (below)
        {QStringLiteral("zipfile"), setOf({"ZipFile", "PyZipFile", "is_zipfile", "ZipInfo", "BadZipFile",
                                           "ZIP_DEFLATED", "ZIP_STORED", "ZIP_BZIP2", "ZIP_LZMA", "Path"})},
        {QStringLiteral("tarfile"),
         setOf({"open", "TarFile", "is_tarfile", "TarInfo", "TarError", "ReadError"})},
        {QStringLiteral("tempfile"), setOf({"mkdtemp", "mkstemp", "NamedTemporaryFile", "TemporaryFile",
                                            "TemporaryDirectory", "SpooledTemporaryFile", "gettempdir"})},
        {QStringLiteral("urllib"), setOf({"parse"})},
    };
    static const QSet<QString> evaluating =
        setOf({"get_type_hints", "ForwardRef", "_eval_type", "evaluate_forward_ref", "get_annotations"});
    if (module == QLatin1String("typing") || module == QLatin1String("typing_extensions"))
        return !evaluating.contains(name);
    const auto it = names.constFind(module);
    return it == names.cend() || it->contains(name);
}

bool network(const QString &module)
{
    static const QSet<QString> names =
        setOf({"requests",   "urllib2",      "urllib3",    "http",   "httpx",    "aiohttp",   "socket",
               "_socket",    "ftplib",       "smtplib",    "poplib", "imaplib",  "telnetlib", "xmlrpc",
               "paramiko",   "websocket",    "websockets", "grpc",   "boto3",    "botocore",  "pycurl",
               "webbrowser", "socketserver", "asyncssh",   "fabric", "ssl",      "_ssl",      "httplib2",
               "tornado",    "twisted",      "nntplib",    "smtpd",  "asyncore", "asynchat"});
    return names.contains(module);
}

bool unread(const QString &module)
{
    static const QSet<QString> names = setOf({"ctypes",
                                              "_ctypes",
                                              "cffi",
                                              "importlib",
                                              "runpy",
                                              "code",
                                              "codeop",
                                              "marshal",
                                              "pickle",
                                              "_pickle",
                                              "cPickle",
                                              "dill",
                                              "cloudpickle",
                                              "shelve",
                                              "pty",
                                              "pexpect",
                                              "sh",
                                              "plumbum",
                                              "invoke",
                                              "docker",
                                              "kubernetes",
                                              "git",
                                              "psutil",
                                              "send2trash",
                                              "keyring",
                                              "dotenv",
                                              "pyautogui",
                                              "builtins",
                                              "__builtin__",
                                              "gc",
                                              "signal",
                                              "resource",
                                              "mmap",
                                              "fcntl",
                                              "posix",
                                              "nt",
                                              "_posixsubprocess",
                                              "posixpath",
                                              "ntpath",
                                              "pkgutil",
                                              "pydoc",
                                              "cProfile",
                                              "profile",
                                              "trace",
                                              "pdb",
                                              "bdb",
                                              "inspect",
                                              "types",
                                              "multiprocessing",
                                              "concurrent",
                                              "threading",
                                              "_thread",
                                              "asyncio",
                                              "select",
                                              "selectors",
                                              "site",
                                              "zipimport",
                                              "atexit",
                                              "faulthandler",
                                              "sys_monitoring",
                                              "_winapi",
                                              "winreg",
                                              "msvcrt",
                                              "readline",
                                              "rlcompleter",
                                              "tty",
                                              "termios",
                                              "crypt",
                                              "pwd",
                                              "grp",
                                              "spwd",
                                              "syslog",
                                              "venv",
                                              "ensurepip",
                                              "distutils",
                                              "setuptools",
                                              "pip",
                                              "_io",
                                              "_os",
                                              "_imp",
                                              "imp",
                                              "_frozen_importlib",
                                              "sitecustomize",
                                              "usercustomize",
                                              "timeit",
                                              "doctest",
                                              "linecache",
                                              "configparser",
                                              "tokenize",
                                              "uu",
                                              "xml",
                                              "mimetypes",
                                              "email",
                                              "filecmp",
                                              "quopri",
                                              "pickletools",
                                              "symtable",
                                              "dis",
                                              "gettext",
                                              "token",
                                              "dbm",
                                              "cgi",
                                              "cgitb",
                                              "webbrowser",
                                              "pstats",
                                              "code",
                                              "tabnanny",
                                              "py_compile",
                                              "compileall",
                                              "zipapp",
                                              "fileinput",
                                              "getpass",
                                              "netrc",
                                              "tkinter",
                                              "turtle",
                                              "idlelib",
                                              "ossaudiodev",
                                              "curses"});
    return names.contains(module) || module.startsWith(QLatin1Char('_'));
}

bool standard(const QString &module)
{
    // Python 3.11's sys.stdlib_module_names that the lists above do not hold.
    static const QSet<QString> names =
        setOf({"aifc",         "antigravity", "audioop",     "cgi",           "cgitb",       "chunk",
               "cmd",          "compileall",  "contextvars", "copyreg",       "crypt",       "curses",
               "dbm",          "encodings",   "fileinput",   "formatter",     "genericpath", "getopt",
               "getpass",      "idlelib",     "imghdr",      "lib2to3",       "mailbox",     "mailcap",
               "modulefinder", "msilib",      "netrc",       "nis",           "opcode",      "optparse",
               "ossaudiodev",  "pipes",       "plistlib",    "py_compile",    "pyclbr",      "pyexpat",
               "sched",        "sndhdr",      "sre_compile", "sre_constants", "sre_parse",   "stringprep",
               "sunau",        "this",        "turtledemo",  "wave",          "wsgiref",     "xdrlib",
               "lib",          "nturl2path",  "os2emxpath",  "macpath",       "tracemalloc"});
    return names.contains(module) || computes(module) || network(module) || unread(module);
}

bool reachedThrough(const QString &prefix, const QString &name)
{
    // Real submodules reached as attributes after their package is imported.
    static const QSet<QString> submodules = setOf({"os.path",
                                                   "urllib.parse",
                                                   "collections.abc",
                                                   "xml.etree",
                                                   "xml.etree.ElementTree",
                                                   "xml.dom",
                                                   "xml.dom.minidom",
                                                   "email.mime",
                                                   "email.message",
                                                   "email.utils",
                                                   "logging.handlers",
                                                   "importlib.metadata",
                                                   "json.decoder",
                                                   "unittest.mock",
                                                   "concurrent.futures",
                                                   "http.client",
                                                   "urllib.request",
                                                   "urllib.error",
                                                   "xml.sax",
                                                   "email.parser",
                                                   "html.parser",
                                                   "dbm.dumb"});
    if (submodules.contains(prefix + QLatin1Char('.') + name))
        return false;
    // The modules read call by call, and any module this reader does not read: reached as an
    // attribute, they would be used under a name the reader does not know them by.
    static const QSet<QString> readCallByCall = setOf(
        {"os",      "sys",        "shutil",   "subprocess", "io",      "pathlib", "tempfile", "codecs",
         "logging", "contextlib", "glob",     "sqlite3",    "zipfile", "tarfile", "platform", "sysconfig",
         "timeit",  "doctest",    "unittest", "urllib",     "email",   "xml",     "http"});
    return readCallByCall.contains(name) || unread(name) || network(name) ||
           (standard(name) && !computes(name));
}

bool osReads(const QString &function)
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
                                              "getloadavg",
                                              "stat_result",
                                              "readlink",
                                              "samefile",
                                              "get_blocking",
                                              "getrandom"});
    return names.contains(function);
}

bool osPathReads(const QString &function)
{
    static const QSet<QString> names =
        setOf({"join",     "exists",   "lexists",  "isfile",   "isdir",      "islink",       "ismount",
               "isabs",    "basename", "dirname",  "split",    "splitext",   "splitdrive",   "abspath",
               "realpath", "normpath", "normcase", "relpath",  "commonpath", "commonprefix", "getsize",
               "getmtime", "getatime", "getctime", "samefile", "sep",        "curdir",       "pardir",
               "extsep",   "altsep",   "pathsep",  "defpath",  "devnull",    "expanduser"});
    return names.contains(function);
}

bool sysReads(const QString &attribute)
{
    static const QSet<QString> names = setOf({"version",
                                              "version_info",
                                              "argv",
                                              "orig_argv",
                                              "executable",
                                              "platform",
                                              "path",
                                              "exit",
                                              "stdout",
                                              "stderr",
                                              "stdin",
                                              "maxsize",
                                              "maxunicode",
                                              "byteorder",
                                              "getrecursionlimit",
                                              "setrecursionlimit",
                                              "getsizeof",
                                              "implementation",
                                              "prefix",
                                              "base_prefix",
                                              "exec_prefix",
                                              "base_exec_prefix",
                                              "exc_info",
                                              "float_info",
                                              "int_info",
                                              "flags",
                                              "hexversion",
                                              "api_version",
                                              "copyright",
                                              "stdlib_module_names",
                                              "builtin_module_names",
                                              "getdefaultencoding",
                                              "getfilesystemencoding",
                                              "platlibdir",
                                              "exception",
                                              "dont_write_bytecode",
                                              "pycache_prefix",
                                              "thread_info",
                                              "hash_info",
                                              "getrefcount",
                                              "intern"});
    return names.contains(attribute);
}

bool dynamicBuiltin(const QString &name)
{
    static const QSet<QString> names =
        setOf({"eval", "exec", "compile", "__import__", "breakpoint", "globals", "vars", "setattr", "delattr",
               "__builtins__", "memoryview", "locals"});
    return names.contains(name);
}

bool trustedName(const QString &name)
{
    static const QSet<QString> names =
        setOf({"open", "str", "getattr", "hasattr", "Path", "PurePath", "PosixPath", "os", "sys"});
    return names.contains(name);
}

bool dunderAllowed(const QString &name)
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

bool guardedMethod(const QString &name)
{
    static const QSet<QString> names =
        setOf({"system",       "popen",     "Popen",           "rmtree",  "removedirs", "check_output",
               "check_call",   "getoutput", "getstatusoutput", "fork",    "forkpty",    "kill",
               "killpg",       "execv",     "execve",          "execvp",  "execvpe",    "execl",
               "execle",       "execlp",    "execlpe",         "spawnv",  "spawnve",    "spawnvp",
               "spawnvpe",     "spawnl",    "spawnle",         "spawnlp", "spawnlpe",   "posix_spawn",
               "posix_spawnp", "startfile", "putenv"});
    return names.contains(name);
}

bool keyword(const QString &name)
{
    static const QSet<QString> names = setOf(
        {"False",    "None",   "True",  "and",  "as",     "assert",   "async",   "await", "break", "class",
         "continue", "def",    "del",   "elif", "else",   "except",   "finally", "for",   "from",  "global",
         "if",       "import", "in",    "is",   "lambda", "nonlocal", "not",     "or",    "pass",  "raise",
         "return",   "try",    "while", "with", "yield",  "match",    "case"});
    return names.contains(name);
}

} // namespace Countersign::Shell::PythonNames
