#pragma once

#include <QString>

namespace Countersign::FilePath {

// Whether a path names a file from the root of the file system. Qt's QDir::isAbsolutePath and
// QFileInfo also call ":name" absolute (a path into the program's compiled-in resources): an
// agent's ":src/a" is a real file in its folder, and judged as a resource it was neither inside nor
// outside a root (a walk up its folders never reached "/").
inline bool isAbsolute(const QString &path)
{
    return path.startsWith(QLatin1Char('/'));
}

} // namespace Countersign::FilePath
