#pragma once

// The reader behind PythonCode, shared by its two files (pythoncode.cpp: bindings, constants,
// literals and what each name reaches; pythoncalls.cpp: the calls that delete, write, run programs
// or reach the network). Private to shared/shell.

#include "commandcatalog.h"
#include "pythonnames.h"
#include "pythontokens.h"

#include <QHash>
#include <QList>
#include <QSet>

#include <optional>

namespace Countersign::Shell::PythonCode::Detail {

using Python::Token;

class Reader final
{
public:
    // importFolder: where the code's own modules are (a script's folder; python -c's is its cwd).
    Reader(CommandCatalog &c, const QList<Token> &tokens, const QStringList &lines, QString origin,
           QString importFolder);

    void run();

private:
    using Range = std::pair<qsizetype, qsizetype>; // tokens [first, second)

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
    bool isNameAt(qsizetype i) const
    {
        return i >= 0 && i < m_t.size() && m_t.at(i).kind == Token::Kind::Name;
    }

    // Where the token at is, for the card: "python3 -c, line 3 (shutil.rmtree('build'))".
    QString sourceOf(qsizetype at) const;
    // The effect, saying the line of code that made it (at most kMaxEffects; past it, one Unknown).
    void add(Effect::Kind kind, qsizetype at, const QString &what, const QString &path = {},
             bool known = true, bool replaces = false);
    void unknown(qsizetype at, const QString &why) { add(Effect::Kind::Unknown, at, why); }
    // A path as the code names it, made absolute from the folder it runs in ("~/" from the home
    // folder); empty when it cannot be known (~user, a folder changed by chdir).
    QString absolute(const QString &path) const;
    // A string that names a secret's file, or a path outside the folder or in the home folder.
    void literalPath(qsizetype at, const QString &text);

    // Statements, imports, definitions, constants and every other binding of a name.
    void bindings();
    void statement(qsizetype from, qsizetype to, QHash<QString, int> &assigned);
    void importStatement(qsizetype from, qsizetype to);

    // The name a chain stands for, through imports and aliases ("sp.run" -> "subprocess.run").
    QString resolved(const QString &chain, int depth = 0) const;
    bool importBound(const QString &name) const
    {
        return m_modules.contains(name) || m_imported.contains(name);
    }

    // The value of a literal path expression in [from, to): strings (adjacent ones joined), a
    // constant, Path(...), os.path.join(...), expanduser, a / b and a + b of those, as Python joins
    // them (an absolute part or ~ starts the path again).
    std::optional<QString> literalOf(qsizetype from, qsizetype to, int depth = 0) const;
    // The arguments of the call whose "(" is at open, keywords included.
    QList<Range> arguments(qsizetype open) const;
    // The positional argument n (keywords skipped; n < 0: none), or the keyword's.
    std::optional<Range> argument(qsizetype open, int n, const char *keyword = nullptr) const;
    std::optional<QString> literalArgument(qsizetype open, int n, const char *keyword = nullptr) const;
    // A path effect from argument n of the call at open (its path when literal, else not known).
    void pathEffect(Effect::Kind kind, qsizetype at, qsizetype open, int n, const QString &what,
                    const char *keyword = nullptr, bool replaces = false);

    qsizetype chain(qsizetype i);
    qsizetype chainEnd(qsizetype at) const;
    void classify(const QString &name, qsizetype at, qsizetype open, qsizetype dot);
    void builtin(const QString &name, qsizetype at, qsizetype open);
    void moduleName(const QStringList &parts, qsizetype at, qsizetype open);
    // A module imported that is a file beside the code (or where sys.path.insert put folders): a
    // script whose code the judge reads unless git keeps it as committed.
    void importRead(const QString &module, qsizetype at);
    void process(const QString &name, qsizetype at, qsizetype open);
    void network(const QString &name, qsizetype at, qsizetype open);
    void osCall(const QStringList &parts, qsizetype at, qsizetype open);
    void shutilCall(const QString &function, qsizetype at, qsizetype open);
    void openCall(qsizetype at, qsizetype open, qsizetype dot, int modeAt = 1,
                  const QString &defaultMode = {});
    void methodCall(const QString &method, qsizetype at, qsizetype open, qsizetype dot);
    std::optional<QString> receiverPath(qsizetype dot) const;

    CommandCatalog &m_c;
    const QList<Token> &m_t;
    const QStringList &m_lines;
    QString m_origin;
    QString m_cwd;
    QString m_importFolder;
    QList<qsizetype> m_match;            // each bracket's partner
    QList<Range> m_imports;              // the import statements' tokens, not read as uses
    QHash<QString, QString> m_modules;   // a name import binds -> the module ("np" -> "numpy")
    QHash<QString, QString> m_imported;  // a name from-import binds -> "module.name"
    QHash<QString, QString> m_alias;     // NAME = a.b.c once, a.b.c reached through an import
    QHash<QString, QString> m_constants; // NAME = literal once, and bound no other way
    QSet<QString> m_bound;               // every name the code binds, any way
    QStringList m_importFolders;         // sys.path.insert/append: where imports are found too
    int m_effects = 0;

    static constexpr int kMaxEffects = 64;
};

} // namespace Countersign::Shell::PythonCode::Detail
