#pragma once

#include "commandeffects.h"

#include <QString>
#include <QStringList>

namespace Countersign::Shell::CodeStrings {

// Where in code an effect comes from, for the card: "python3 -c, line 3 (shutil.rmtree('build'))"
// (line counted from 1 in lines; the line trimmed and quoted()).
QString source(const QString &origin, int line, const QStringList &lines);
// A piece of code as a card quotes it: at most 100 characters; a longer one keeps its beginning and
// its end, where a long path's last names and the call's closing arguments are, and cuts the middle.
QString quoted(const QString &code);
// An effect of code the readers found at source, saying it before what it does.
Effect effect(Effect::Kind kind, const QString &source, const QString &what, const QString &path, bool known,
              bool replaces);

// What a string literal in code an agent runs (Python, JavaScript) names, however the code then
// puts a path together: nothing; a piece of a secret's path (".ssh", "id_rsa", ".env", not an
// .example); or a path the readers judge where it leads (absolute, from a home folder, or
// climbing above the folder). Most strings name nothing: only one with a slash, a leading dot or
// tilde, or a key's name can; a URL does not.
enum class Named { Nothing, SecretPiece, Path };
Named named(const QString &text);

} // namespace Countersign::Shell::CodeStrings
