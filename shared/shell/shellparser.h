#pragma once

#include "shellscript.h"

#include <QString>

namespace Countersign::Shell {

// Reads a command line the way bash reads it, without running or expanding anything: words,
// quotes ('', "", $'', backslashes), ";", "&&", "||", "|", "&" and line breaks, "( )" and "{ }",
// command substitutions ($( ) and backquotes) and process substitutions (<( ), >( )), each read
// as a script of its own, redirections, here-documents (their bodies too) and here-strings,
// assignments in front of a command, comments, and the control words of if, while, until and for.
// What it does not read (case, function definitions, an unterminated quote, nesting deeper than
// kMaxDepth) is named in Script::problems; the rest is read as far as it goes.
class ShellParser final
{
public:
    static Script parse(const QString &line);

    static constexpr int kMaxDepth = 32;
};

} // namespace Countersign::Shell
