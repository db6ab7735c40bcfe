#pragma once

// The reader behind JavaScriptCode, shared by its three files (javascriptcode.cpp: the statements
// and expressions it parses, and the names each binds; javascriptcalls.cpp: what each name reaches
// and which calls it follows; javascripteffects.cpp: the effects of files, programs and the
// network, each saying its line). Private to shared/shell.

#include "commandcatalog.h"
#include "javascripttokens.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QStringList>

#include <optional>

namespace Countersign::Shell::JavaScriptCode::Detail {

using JavaScript::Token;

// A set of words, written apart by spaces.
inline QSet<QString> wordSet(const char *spaced)
{
    const QStringList words = QString::fromLatin1(spaced).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    return QSet<QString>(words.cbegin(), words.cend());
}

// The modules that reach the network (their calls are Network effects).
inline bool jsNetworkModule(const QString &module)
{
    static const QSet<QString> names =
        wordSet("http https net tls dgram http2 dns dns/promises axios node-fetch undici ws got "
                "request superagent socket.io-client");
    return names.contains(module);
}

// Words that cannot start an operand: the parser is somewhere it does not follow.
inline bool statementWord(const QString &word)
{
    static const QSet<QString> words =
        wordSet("break case catch continue debugger default do else export extends finally for if "
                "return switch throw try var const let while with in instanceof class enum static "
                "implements interface package private protected public");
    return words.contains(word);
}

// What an expression is, as far as the reader follows it.
struct Value final
{
    enum class Kind {
        Data,     // a value the code computed (a literal, a local, what an allowed call returns)
        Function, // a function the code wrote (a literal, or a name only ever bound to one)
        Module,   // a module require() gave (path: "fs", "fs.promises", "child_process")
        Member,   // a module's function (path: "fs.rmSync")
        Global,   // a name of node's own (path: "console.log", "process.env.HOME")
        Require,  // require itself
        Project,  // what a module of the project exports, and what calling it gives (path: its file)
        Exports,  // module, module.exports or exports, in a module file: only assigned to
        Refused,  // already said to be Unknown
    };
    // An object literal's property: its value when literal.
    struct Property final
    {
        std::optional<QString> text;
        std::optional<bool> boolean;
    };
    Kind kind = Kind::Data;
    QString path;
    QString method;              // Data reached as x.name: the name, if it is called
    std::optional<QString> text; // a string whose value is known
    bool written = false;        // text is one string as written (not joined by +)
    std::optional<bool> boolean; // true or false, written so
    bool number = false;         // a number literal
    bool object = false;         // an object literal: its properties in properties
    bool opaque = false;         // an object literal with a spread or computed key
    QHash<QString, Property> properties;
    bool array = false; // an array literal: its items' values (unknown ones empty)
    QList<std::optional<QString>> items;
    qsizetype at = -1; // its first token
};

class Reader final
{
public:
    // moduleFolder: the folder of a module file (JavaScriptCode::read); empty for inline code.
    Reader(CommandCatalog &c, const QList<Token> &tokens, const QStringList &lines, QString origin,
           QString moduleFolder = {});

    // Reads the code twice (the names it binds, then what it does); false with why when it cannot
    // be parsed, or nests deeper than the reader follows.
    bool run(QString *why);

private:
    // A name bound by the code: how often, and to what.
    struct Binding final
    {
        int count = 0;
        bool declared = false; // by var, let, const, function, a parameter (not only assigned)
        bool functions = true; // every binding is a function the code wrote
        Value::Kind moduleKind = Value::Kind::Data;
        QString module; // bound to a module or a module's function (once: more is refused)
        std::optional<QString> constant;
    };
    // Guards the parser's recursion.
    class Nesting;

    // Tokens.
    bool isPunct(qsizetype i, const char *text) const
    {
        return i >= 0 && i < m_t.size() && m_t.at(i).kind == Token::Kind::Punct &&
               m_t.at(i).text == QLatin1String(text);
    }
    bool isName(qsizetype i, const char *text) const
    {
        return i >= 0 && i < m_t.size() && m_t.at(i).kind == Token::Kind::Name &&
               m_t.at(i).text == QLatin1String(text);
    }
    bool isNameAt(qsizetype i) const
    {
        return i >= 0 && i < m_t.size() && m_t.at(i).kind == Token::Kind::Name;
    }
    bool isKind(qsizetype i, Token::Kind kind) const
    {
        return i >= 0 && i < m_t.size() && m_t.at(i).kind == kind;
    }
    bool at(const char *text) const { return isPunct(m_i, text); }
    bool accept(const char *text);
    void expect(const char *text);
    void fail(const QString &why);
    bool ok() const { return !m_failed; }

    // Statements.
    void statements(const char *until);
    void statement();
    void declaration();
    void functionRest(qsizetype nameAt);
    void parameters();
    void body();
    void forStatement();
    void endStatement();
    // A binding pattern (NAME, {a, b: c = 1}, [x, ...y]) bound to init.
    void pattern(const Value &init, bool parameter);

    // Expressions.
    Value expression();
    Value assignment(bool keepModule = false);
    Value conditional();
    Value binary();
    Value unary();
    Value postfix(Value v);
    Value primary();
    Value arrow(bool async);
    Value arrayLiteral();
    Value objectLiteral();
    Value templateLiteral();
    QList<Value> arguments();
    bool arrowAhead() const;
    void assigned(qsizetype from, qsizetype to);

    // What names reach (javascriptcalls.cpp) and the effects of calls (javascripteffects.cpp).
    void bind(const QString &name, qsizetype at, const Value &init, bool function);
    Value resolve(qsizetype at);
    Value global(const QString &name, qsizetype at);
    Value member(const Value &v, const QString &name, qsizetype at);
    Value index(const Value &v, const Value &key, qsizetype at);
    Value call(const Value &callee, const QList<Value> &args, qsizetype at);
    Value construct(const Value &callee, const QList<Value> &args, qsizetype at);
    Value globalCall(const QString &name, const QList<Value> &args, qsizetype at);
    Value require(const QList<Value> &args, qsizetype at);
    // require of a path (base: absolute), resolved as node resolves it.
    Value projectModule(const QString &name, const QString &base, qsizetype at);
    void use(Value &v);
    void assignTo(const Value &target, qsizetype at);
    void fsCall(const QString &function, const QList<Value> &args, qsizetype at);
    void processCall(const QString &function, const QList<Value> &args, qsizetype at);
    void network(const QString &name, const QList<Value> &args, qsizetype at);
    std::optional<QString> pathCall(const QString &function, const QList<Value> &args) const;

    // Effects.
    QString sourceOf(qsizetype at) const;
    void add(Effect::Kind kind, qsizetype at, const QString &what, const QString &path = {},
             bool known = true, bool replaces = false);
    Value unknown(qsizetype at, const QString &why);
    QString absolute(const QString &path) const;
    void literalPath(qsizetype at, const QString &text);
    void pathEffect(Effect::Kind kind, qsizetype at, const QList<Value> &args, int n, const QString &what,
                    bool replaces = false);

    CommandCatalog &m_c;
    const QList<Token> &m_t;
    const QStringList &m_lines;
    QString m_origin;
    QString m_moduleFolder;
    QList<qsizetype> m_match; // each bracket's partner
    QHash<QString, Binding> m_bindings;
    qsizetype m_i = 0;
    int m_depth = 0;
    bool m_checking = false; // the second reading: effects are added
    bool m_failed = false;
    QString m_why;
    int m_effects = 0;

    static constexpr int kMaxEffects = 64;
    static constexpr int kMaxDepth = 200;
};

class Reader::Nesting final
{
public:
    explicit Nesting(Reader &r) : m_r(r)
    {
        if (++m_r.m_depth > kMaxDepth)
            m_r.fail(QStringLiteral("code nested deeper than Countersign reads"));
    }
    ~Nesting() { --m_r.m_depth; }
    Nesting(const Nesting &) = delete;
    Nesting &operator=(const Nesting &) = delete;

private:
    Reader &m_r;
};

} // namespace Countersign::Shell::JavaScriptCode::Detail
