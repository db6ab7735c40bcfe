#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <memory>
#include <utility>

namespace Countersign::Shell {

struct Script;

// One word as the shell will see it: quotes removed, escapes resolved, and what it expands left in
// view. A word whose text the reader knows exactly before the shell runs is literal.
struct Word final
{
    QString text;                     // quotes removed; an expansion kept as written ("$HOME", "$(...)")
    bool literal = true;              // nothing expands in it: text is what the program gets
    bool glob = false;                // an unquoted *, ? or [ (or a brace expansion): it names what matches
    bool tilde = false;               // an unquoted ~ or ~/ in front: the home folder
    bool tildeOther = false;          // ~name: another user's home, not known here
    QStringList variables;            // the names of $NAME and ${NAME...} it expands
    bool substitutes = false;         // $( ), backquotes or <( ) >( ) in it: their output is part of it
    bool processSubstitution = false; // the whole word is <( ) or >( ): a pipe's name (/dev/fd/N)
    bool tildeAfterEquals = false;    // name=~/...: bash expands that ~ too
};

// A redirection: "<", ">", ">>", ">|", "<>", "&>", "&>>", "<<" (here-document), "<<<" (here-string),
// or ">&" / "<&" onto another descriptor (then target is the descriptor and dup is true).
struct Redirection final
{
    QString op;
    int fd = -1; // the descriptor written in front ("2>"), -1 when none
    Word target;
    bool dup = false;
    // The body of "<<" (filled in when the line that names it ends), or the word of "<<<": for a
    // here-document that expands, as the program reads it (\$, \` and \\ unescaped).
    std::shared_ptr<QString> hereDocument;
    // A here-document or here-string whose text is only known when the line runs (it expands $ or `).
    std::shared_ptr<bool> hereDynamic;
};

// One command of a pipeline: a simple command (assignments, words, redirections), or a group
// ("( ... )", "{ ...; }") whose body runs as a script of its own.
struct Command final
{
    enum class Kind { Simple, Group };
    Kind kind = Kind::Simple;
    QList<std::pair<QString, Word>> assignments;
    QList<Word> words;
    QList<Redirection> redirections;
    std::shared_ptr<Script> body; // a group's
    bool subshell = false;        // "( )": a cd inside it does not change the folder after it
    // A for loop's head ("for NAME in WORDS"): the commands after it see NAME as one of WORDS.
    QString loopVariable;
    QList<Word> loopWords;
    // Scripts that run as part of this command: command and process substitutions in its words,
    // assignments and redirections, and in a here-document that expands.
    QList<std::shared_ptr<Script>> inner;
};

// Commands joined by "|"; connector says how the pipeline follows the one before it ("" for the
// first, ";", "&&", "||", "&", or a line break as ";").
struct Pipeline final
{
    QString connector;
    QList<Command> commands;
    bool background = false; // ended by "&": it runs in a subshell of its own
};

// A command line as the shell reads it. problems lists what the reader could not read (an
// unterminated quote, a case statement, a function definition): a line with any is not known.
struct Script final
{
    QList<Pipeline> pipelines;
    QStringList problems;
    // Every variable the line expands, anywhere (words, assignments, redirections, here-documents).
    QStringList variables;
    // The line evaluates arithmetic somewhere ((( )), $(( )), $[ ], [[ ]]): a variable's value is
    // then read as an expression, and an array subscript in it runs code.
    bool arithmetic = false;
};

} // namespace Countersign::Shell
