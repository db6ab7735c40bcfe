#pragma once

#include <QString>

namespace Countersign::Shell::CodeStrings {

// What a string literal in code an agent runs (Python, JavaScript) names, however the code then
// puts a path together: nothing; a piece of a secret's path (".ssh", "id_rsa", ".env", not an
// .example); or a path the readers judge where it leads (absolute, from a home folder, or
// climbing above the folder). Most strings name nothing: only one with a slash, a leading dot or
// tilde, or a key's name can; a URL does not.
enum class Named { Nothing, SecretPiece, Path };
Named named(const QString &text);

} // namespace Countersign::Shell::CodeStrings
