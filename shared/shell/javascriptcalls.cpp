#include "javascriptcode.h"

#include "javascriptreader.h"

#include <QSet>

namespace Countersign::Shell::JavaScriptCode::Detail {

namespace {

// Properties through which a value reaches code or node's internals: refused on anything.
bool jsForbiddenProperty(const QString &name)
{
    static const QSet<QString> names =
        wordSet("constructor prototype __proto__ __defineGetter__ __defineSetter__ "
                "__lookupGetter__ __lookupSetter__ caller callee arguments mainModule binding "
                "_linkedBinding dlopen getBuiltinModule require module globalThis global call "
                "apply bind");
    return names.contains(name);
}

// Names that run code or reach what the reader cannot follow.
bool jsForbiddenGlobal(const QString &name)
{
    static const QSet<QString> names =
        wordSet("eval Function globalThis global window self this arguments Reflect Proxy "
                "WebAssembly Atomics SharedArrayBuffer module exports import super Symbol Worker "
                "AsyncFunction GeneratorFunction Deno Bun");
    return names.contains(name);
}

// node's own names the reader knows (each one's members are checked in member()).
bool jsKnownGlobal(const QString &name)
{
    static const QSet<QString> names =
        wordSet("console JSON Math Number String Boolean BigInt Array Object Date RegExp Map Set "
                "WeakMap WeakSet Promise Buffer process Intl Error TypeError RangeError "
                "SyntaxError ReferenceError URL URLSearchParams TextEncoder TextDecoder "
                "Uint8Array Int8Array Uint16Array Int16Array Uint32Array Int32Array Float32Array "
                "Float64Array structuredClone parseInt parseFloat isNaN isFinite "
                "encodeURIComponent decodeURIComponent encodeURI decodeURI escape unescape atob "
                "btoa setTimeout setInterval setImmediate clearTimeout clearInterval "
                "clearImmediate queueMicrotask fetch WebSocket performance");
    return names.contains(name);
}

// Names the code may not bind: node's own, and words the tokenizer reads as keywords.
bool jsTrustedName(const QString &name)
{
    static const QSet<QString> words =
        wordSet("require undefined NaN Infinity __dirname __filename of let async await yield "
                "static");
    return jsKnownGlobal(name) || jsForbiddenGlobal(name) || words.contains(name);
}

// Globals that are plain values (the rest are functions or namespaces, not handed around).
bool jsGlobalValue(const QString &path)
{
    static const QSet<QString> values =
        wordSet("process.version process.versions process.platform process.arch process.argv "
                "process.pid process.ppid process.exitCode process.execPath process.release "
                "process.stdout.isTTY process.stdout.columns process.stdout.rows "
                "process.stderr.isTTY process.stdin process.stdin.isTTY Number String Boolean "
                "BigInt");
    return values.contains(path) || path.startsWith(QLatin1String("process.env.")) ||
           path.startsWith(QLatin1String("Math.")) || path.startsWith(QLatin1String("Number.MAX")) ||
           path.startsWith(QLatin1String("Number.MIN")) || path == QLatin1String("Number.EPSILON");
}

// The members of node's namespaces the reader knows, by the namespace's path.
bool jsGlobalMember(const QString &of, const QString &name)
{
    static const QHash<QString, QSet<QString>> members = {
        {QStringLiteral("console"),
         wordSet("log error info warn debug dir table trace time timeEnd timeLog group groupEnd "
                 "groupCollapsed assert count countReset")},
        {QStringLiteral("JSON"), wordSet("parse stringify")},
        {QStringLiteral("Number"),
         wordSet("isInteger isFinite isNaN isSafeInteger parseFloat parseInt MAX_SAFE_INTEGER "
                 "MIN_SAFE_INTEGER MAX_VALUE MIN_VALUE EPSILON")},
        {QStringLiteral("String"), wordSet("fromCharCode fromCodePoint raw")},
        {QStringLiteral("Object"),
         wordSet("keys values entries assign fromEntries freeze isFrozen seal isSealed is groupBy "
                 "hasOwn")},
        {QStringLiteral("Array"), wordSet("isArray from of")},
        {QStringLiteral("Promise"), wordSet("resolve reject all allSettled race any")},
        {QStringLiteral("Buffer"), wordSet("from alloc byteLength concat isBuffer compare")},
        {QStringLiteral("Date"), wordSet("now parse UTC")},
        {QStringLiteral("BigInt"), wordSet("asIntN asUintN")},
        {QStringLiteral("performance"), wordSet("now")},
        {QStringLiteral("Intl"),
         wordSet("NumberFormat DateTimeFormat Collator PluralRules RelativeTimeFormat ListFormat "
                 "Segmenter")},
        {QStringLiteral("process"),
         wordSet("version versions platform arch argv pid ppid env exitCode cwd exit stdout stderr "
                 "stdin hrtime uptime memoryUsage nextTick execPath release")},
        {QStringLiteral("process.stdout"), wordSet("write isTTY columns rows")},
        {QStringLiteral("process.stderr"), wordSet("write isTTY")},
        {QStringLiteral("process.hrtime"), wordSet("bigint")}};
    if (of == QLatin1String("Math"))
        return true;
    return members.value(of).contains(name);
}

// Methods of values the code computed (strings, arrays, objects, maps, dates, buffers, promises,
// what fs and child_process return): they compute, or call only functions the code wrote.
bool jsValueMethod(const QString &name)
{
    static const QSet<QString> names =
        wordSet("map filter reduce reduceRight forEach join split trim trimStart trimEnd slice "
                "substring substr includes indexOf lastIndexOf replace replaceAll match matchAll "
                "search startsWith endsWith toLowerCase toUpperCase toLocaleLowerCase "
                "toLocaleUpperCase padStart padEnd repeat charAt charCodeAt codePointAt at "
                "normalize localeCompare sort reverse push pop shift unshift splice concat flat "
                "flatMap find findIndex findLast findLastIndex some every keys values entries has "
                "get set add delete clear fill toFixed toPrecision toExponential toString toJSON "
                "toISOString toLocaleString toLocaleDateString toLocaleTimeString toDateString "
                "toTimeString toUTCString valueOf getTime getFullYear getMonth getDate getDay "
                "getHours getMinutes getSeconds getMilliseconds getTimezoneOffset getUTCFullYear "
                "getUTCMonth getUTCDate getUTCHours then catch finally test exec isFile "
                "isDirectory isSymbolicLink update digest hasOwnProperty toSorted toReversed "
                "toSpliced with format formatToParts compare equals write end on once trimLeft "
                "trimRight readUInt8 readUInt32BE readUInt32LE subarray writeUInt8 json text "
                "arrayBuffer encode decode setEncoding resume pause");
    return names.contains(name);
}

// Modules whose functions only compute (some of them), by module.
bool jsQuietCall(const QString &module, const QString &function)
{
    static const QHash<QString, QSet<QString>> calls = {
        {QStringLiteral("path"),
         wordSet("join resolve normalize dirname basename extname relative isAbsolute parse format "
                 "toNamespacedPath matchesGlob")},
        {QStringLiteral("os"),
         wordSet("tmpdir platform arch cpus type release hostname totalmem freemem uptime "
                 "endianness loadavg availableParallelism version machine")},
        {QStringLiteral("crypto"),
         wordSet("createHash createHmac randomUUID randomBytes randomInt timingSafeEqual getHashes "
                 "hash")},
        {QStringLiteral("util"), wordSet("format inspect isDeepStrictEqual stripVTControlCharacters")},
        {QStringLiteral("url"), wordSet("fileURLToPath pathToFileURL parse format URL URLSearchParams")},
        {QStringLiteral("querystring"), wordSet("parse stringify escape unescape")},
        {QStringLiteral("zlib"),
         wordSet("gzipSync gunzipSync deflateSync inflateSync deflateRawSync inflateRawSync "
                 "unzipSync brotliCompressSync brotliDecompressSync")}};
    return module == QLatin1String("assert") || calls.value(module).contains(function);
}

} // namespace

void Reader::bind(const QString &name, qsizetype at, const Value &init, bool function)
{
    if (m_checking) {
        if (jsTrustedName(name))
            unknown(at, QStringLiteral("binds %1, a name Countersign trusts, to something else").arg(name));
        return;
    }
    Binding &b = m_bindings[name];
    b.count += 1;
    b.declared = true;
    b.functions = b.functions && function;
    if (init.kind == Value::Kind::Module || init.kind == Value::Kind::Member ||
        init.kind == Value::Kind::Project) {
        b.module = init.path;
        b.moduleKind = init.kind;
    }
    b.constant = b.count == 1 ? init.text : std::nullopt;
}

Value Reader::resolve(qsizetype at)
{
    const QString &name = m_t.at(at).text;
    Value v;
    v.at = at;
    if (const auto it = m_bindings.constFind(name); it != m_bindings.cend() && it->count > 0) {
        if (!it->module.isEmpty()) {
            if (it->count > 1)
                return unknown(at, QStringLiteral("binds %1, a module's name, more than once").arg(name));
            v.kind = it->moduleKind;
            v.path = it->module;
            return v;
        }
        v.kind = it->functions ? Value::Kind::Function : Value::Kind::Data;
        if (it->count == 1)
            v.text = it->constant;
        return v;
    }
    return global(name, at);
}

Value Reader::global(const QString &name, qsizetype at)
{
    Value v;
    v.at = at;
    if (!m_moduleFolder.isEmpty() && (name == QLatin1String("module") || name == QLatin1String("exports"))) {
        v.kind = Value::Kind::Exports; // a module file's own exports, only assigned to
        v.path = name;
        return v;
    }
    if (jsForbiddenGlobal(name))
        return unknown(at, QStringLiteral("%1 runs or reaches code Countersign cannot follow").arg(name));
    if (name == QLatin1String("undefined") || name == QLatin1String("NaN") ||
        name == QLatin1String("Infinity"))
        return v;
    if (name == QLatin1String("__dirname") || name == QLatin1String("__filename")) {
        if (name == QLatin1String("__dirname"))
            v.text = QStringLiteral(".");
        return v;
    }
    if (name == QLatin1String("require")) {
        v.kind = Value::Kind::Require;
        return v;
    }
    if (!jsKnownGlobal(name))
        return unknown(at, QStringLiteral("%1 is a name Countersign does not know").arg(name));
    v.kind = Value::Kind::Global;
    v.path = name;
    return v;
}

Value Reader::member(const Value &v, const QString &name, qsizetype at)
{
    if (jsForbiddenProperty(name))
        return unknown(at, QStringLiteral("reaches %1, through which code cannot be followed").arg(name));
    Value r;
    r.at = v.at;
    switch (v.kind) {
    case Value::Kind::Refused:
        return v;
    case Value::Kind::Data:
    case Value::Kind::Function:
        r.method = name;
        return r;
    case Value::Kind::Require:
        return unknown(at, QStringLiteral("require.%1, which Countersign does not follow").arg(name));
    case Value::Kind::Project:
        r.kind = Value::Kind::Project; // the project's code: what it exports, and their members
        r.path = v.path;
        return r;
    case Value::Kind::Exports:
        // module.exports, exports.NAME, module.exports.NAME: to be assigned; module's others
        // (require, constructor, paths, parent) reach code.
        if (v.path == QLatin1String("module") && name != QLatin1String("exports"))
            return unknown(at, QStringLiteral("module.%1, which Countersign does not follow").arg(name));
        r.kind = Value::Kind::Exports;
        r.path = v.path + QLatin1Char('.') + name;
        return r;
    case Value::Kind::Member:
        if (v.path.startsWith(QLatin1String("path.")))
            return r; // path's functions compute: their properties too
        return unknown(at,
                       QStringLiteral("reaches %1.%2, where its uses are not followed").arg(v.path, name));
    case Value::Kind::Module:
        if ((v.path == QLatin1String("fs") && name == QLatin1String("constants")) ||
            (v.path == QLatin1String("os") &&
             (name == QLatin1String("EOL") || name == QLatin1String("constants"))) ||
            (v.path == QLatin1String("path") &&
             (name == QLatin1String("sep") || name == QLatin1String("delimiter"))))
            return r;
        r.kind = Value::Kind::Module;
        if (v.path == QLatin1String("fs") && name == QLatin1String("promises"))
            r.path = QStringLiteral("fs.promises");
        else if (v.path == QLatin1String("path") &&
                 (name == QLatin1String("posix") || name == QLatin1String("win32")))
            r.path = v.path;
        else
            r.kind = Value::Kind::Member, r.path = v.path + QLatin1Char('.') + name;
        return r;
    case Value::Kind::Global:
        break;
    }
    if (jsGlobalValue(v.path) && v.path != QLatin1String("Number") && v.path != QLatin1String("String") &&
        v.path != QLatin1String("BigInt")) {
        r.method = name; // a value's own property or method
        return r;
    }
    if (v.path == QLatin1String("process.env")) {
        r.kind = Value::Kind::Global;
        r.path = QStringLiteral("process.env.") + name;
        if (CommandCatalog::secretName(name))
            add(Effect::Kind::Secret, at, QStringLiteral("reads the secret variable %1").arg(name));
        else if (name == QLatin1String("HOME"))
            add(Effect::Kind::Reads, at, QStringLiteral("names your home folder"), m_c.home());
        return r;
    }
    if (!jsGlobalMember(v.path, name))
        return unknown(at, QStringLiteral("%1.%2 is a name Countersign does not read").arg(v.path, name));
    r.kind = Value::Kind::Global;
    r.path = v.path + QLatin1Char('.') + name;
    return r;
}

Value Reader::index(const Value &v, const Value &key, qsizetype at)
{
    if (key.text && key.written) // x['name'] is x.name; a name put together is not followed
        return member(v, *key.text, at);
    if (v.kind == Value::Kind::Global && v.path == QLatin1String("process.env")) {
        add(Effect::Kind::Secret, at,
            QStringLiteral("reads a variable whose name is only known when it runs"));
        Value r;
        r.at = v.at;
        r.kind = Value::Kind::Global;
        r.path = QStringLiteral("process.env.?");
        return r;
    }
    if (key.number && (v.kind == Value::Kind::Data || v.kind == Value::Kind::Function ||
                       (v.kind == Value::Kind::Global && jsGlobalValue(v.path)))) {
        Value r;
        r.at = v.at;
        return r;
    }
    if (v.kind == Value::Kind::Refused)
        return v;
    return unknown(at, QStringLiteral("a property whose name is only known when it runs"));
}

void Reader::use(Value &v)
{
    switch (v.kind) {
    case Value::Kind::Data:
    case Value::Kind::Function:
    case Value::Kind::Refused:
    case Value::Kind::Project:
        return;
    case Value::Kind::Exports:
        v = unknown(v.at, QStringLiteral("hands %1 around, where its uses are not followed").arg(v.path));
        return;
    case Value::Kind::Module:
        v = unknown(
            v.at, QStringLiteral("hands the module %1 around, where its uses are not followed").arg(v.path));
        return;
    case Value::Kind::Member:
        if (v.path.startsWith(QLatin1String("path."))) {
            v.kind = Value::Kind::Data;
            return;
        }
        v = unknown(v.at, QStringLiteral("hands %1 around, where its uses are not followed").arg(v.path));
        return;
    case Value::Kind::Require:
        v = unknown(v.at, QStringLiteral("hands require around, where its uses are not followed"));
        return;
    case Value::Kind::Global:
        if (v.path == QLatin1String("process.env")) {
            add(Effect::Kind::Secret, v.at, QStringLiteral("reads the whole environment (secrets included)"));
        } else if (!jsGlobalValue(v.path)) {
            v = unknown(
                v.at, QStringLiteral("hands %1 on as a value, where its uses are not followed").arg(v.path));
            return;
        }
        v.kind = Value::Kind::Data;
        v.path.clear();
        return;
    }
}

void Reader::assignTo(const Value &target, qsizetype at)
{
    if (target.kind == Value::Kind::Data || target.kind == Value::Kind::Function ||
        target.kind == Value::Kind::Refused || target.kind == Value::Kind::Exports ||
        target.path == QLatin1String("process.exitCode"))
        return;
    if (target.kind == Value::Kind::Project)
        return (void)unknown(at, QStringLiteral("changes what a module of the project exports"));
    if (target.path.startsWith(QLatin1String("process.env."))) {
        const QString name = target.path.mid(12);
        if (CommandCatalog::poisons(name) || name == QLatin1String("?"))
            add(Effect::Kind::Environment, at,
                QStringLiteral("sets %1, which changes what the programs it runs load").arg(name));
        return;
    }
    unknown(at, QStringLiteral("changes %1, which Countersign does not follow").arg(target.path));
}

Value Reader::call(const Value &callee, const QList<Value> &args, qsizetype at)
{
    Value r;
    r.at = callee.at >= 0 ? callee.at : at;
    switch (callee.kind) {
    case Value::Kind::Refused:
        return callee;
    case Value::Kind::Function:
        if (!callee.method.isEmpty())
            return unknown(
                at,
                QStringLiteral(".%1() of a function, which Countersign does not follow").arg(callee.method));
        return r;
    case Value::Kind::Data:
        if (callee.method.isEmpty())
            return unknown(at, QStringLiteral("calls a value Countersign cannot follow"));
        if (!jsValueMethod(callee.method))
            return unknown(
                at, QStringLiteral(".%1() is a method Countersign does not follow").arg(callee.method));
        return r;
    case Value::Kind::Require:
        return require(args, at);
    case Value::Kind::Project:
        r.kind = Value::Kind::Project; // the project's code runs, judged with its file
        r.path = callee.path;
        return r;
    case Value::Kind::Exports:
        return unknown(at, QStringLiteral("calls %1, which Countersign does not follow").arg(callee.path));
    case Value::Kind::Global:
        return globalCall(callee.path, args, at);
    case Value::Kind::Module:
        if (jsNetworkModule(callee.path))
            network(callee.path, args, at);
        else if (callee.path != QLatin1String("assert"))
            return unknown(
                at,
                QStringLiteral("calls the module %1, which Countersign does not follow").arg(callee.path));
        return r;
    case Value::Kind::Member:
        break;
    }
    const QString root = callee.path.section(QLatin1Char('.'), 0, 0);
    const QString function = callee.path.section(QLatin1Char('.'), -1);
    if (root == QLatin1String("fs") && callee.path.count(QLatin1Char('.')) <= 2)
        fsCall(function, args, at);
    else if (root == QLatin1String("child_process"))
        processCall(function, args, at);
    else if (jsNetworkModule(root))
        network(callee.path, args, at);
    else if (root == QLatin1String("os") && function == QLatin1String("homedir")) {
        add(Effect::Kind::Reads, at, QStringLiteral("names your home folder"), m_c.home());
        r.text = m_c.home();
    } else if (jsQuietCall(root, function)) {
        if (root == QLatin1String("path"))
            r.text = pathCall(function, args);
    } else {
        return unknown(at, QStringLiteral("%1() is a call Countersign does not read").arg(callee.path));
    }
    return r;
}

Value Reader::construct(const Value &callee, const QList<Value> &args, qsizetype at)
{
    Value r;
    r.at = at;
    static const QSet<QString> constructors =
        wordSet("Date Map Set WeakMap WeakSet RegExp Error TypeError RangeError SyntaxError "
                "ReferenceError URL URLSearchParams Array Object TextEncoder TextDecoder "
                "Uint8Array Int8Array Uint16Array Int16Array Uint32Array Int32Array Float32Array "
                "Float64Array Number String Boolean Intl.NumberFormat Intl.DateTimeFormat "
                "Intl.Collator Intl.PluralRules Intl.RelativeTimeFormat Intl.ListFormat "
                "Intl.Segmenter");
    switch (callee.kind) {
    case Value::Kind::Refused:
        return callee;
    case Value::Kind::Function:
        if (callee.method.isEmpty())
            return r;
        break;
    case Value::Kind::Global:
        if (callee.path == QLatin1String("WebSocket")) {
            network(callee.path, args, at);
            return r;
        }
        if (callee.path == QLatin1String("Promise") && !args.isEmpty() &&
            args.first().kind == Value::Kind::Function)
            return r;
        if (constructors.contains(callee.path))
            return r;
        break;
    case Value::Kind::Module:
    case Value::Kind::Member:
        if (jsNetworkModule(callee.path.section(QLatin1Char('.'), 0, 0))) {
            network(callee.path, args, at);
            return r;
        }
        if (callee.path == QLatin1String("url.URL") || callee.path == QLatin1String("url.URLSearchParams"))
            return r;
        break;
    case Value::Kind::Project:
        r.kind = Value::Kind::Project;
        r.path = callee.path;
        return r;
    case Value::Kind::Data:
    case Value::Kind::Require:
    case Value::Kind::Exports:
        break;
    }
    return unknown(at, QStringLiteral("new of something Countersign does not follow"));
}

Value Reader::globalCall(const QString &name, const QList<Value> &args, qsizetype at)
{
    Value r;
    r.at = at;
    const QString root = name.section(QLatin1Char('.'), 0, 0);
    static const QSet<QString> computing =
        wordSet("parseInt parseFloat isNaN isFinite encodeURIComponent decodeURIComponent "
                "encodeURI decodeURI escape unescape atob btoa structuredClone clearTimeout "
                "clearInterval clearImmediate Number String Boolean BigInt Array Object Date "
                "RegExp Error TypeError RangeError SyntaxError ReferenceError process.exit "
                "process.stdout.write process.stderr.write process.hrtime process.hrtime.bigint "
                "process.uptime process.memoryUsage");
    static const QSet<QString> namespaces =
        wordSet("console JSON Math Number String Object Array Promise Buffer Date BigInt "
                "performance Intl");
    if (computing.contains(name) || (namespaces.contains(root) && name != root))
        return r;
    if (name == QLatin1String("process.cwd")) {
        if (!m_c.how().cwd.isEmpty())
            r.text = m_c.how().cwd;
        return r;
    }
    static const QSet<QString> scheduling =
        wordSet("setTimeout setInterval setImmediate queueMicrotask process.nextTick");
    if (scheduling.contains(name)) {
        if (args.isEmpty() || args.first().kind != Value::Kind::Function)
            return unknown(at,
                           QStringLiteral("%1 of something other than a function the code wrote").arg(name));
        return r;
    }
    if (name == QLatin1String("fetch") || name == QLatin1String("WebSocket")) {
        network(name, args, at);
        return r;
    }
    return unknown(at, QStringLiteral("%1() is a call Countersign does not read").arg(name));
}

} // namespace Countersign::Shell::JavaScriptCode::Detail
