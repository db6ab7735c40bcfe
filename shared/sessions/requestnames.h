#pragma once

#include <QString>
#include <QStringList>

namespace Countersign::RequestNames {

// The paths a call reaches that the user's request never named (docs/client-hooks.md, "Your
// request did not name"): names against names, never a guess at meaning. A path is named when the
// request names it, or a folder it is in, in any spelling resolved here: as written (absolute),
// with ~/ for home, relative to the call's folder, or by its file name alone (a word with no slash)
// for a path in the call's folder. Words so wide they name nothing in particular (".", "..", "/",
// "~", home itself) name nothing. A path is taken where it really is (its folder's links
// resolved). A parent of a named path is not named: asked to remove ~/.pi/agent/sessions, a
// deletion of ~/.pi is marked. targets: absolute paths; the result keeps their order, each spelled
// with ~ where it is under home.
QStringList unnamed(const QString &request, const QStringList &targets, const QString &cwd,
                    const QString &home);

// The words of a request as a card shows them: visible text on one line, at most maxChars (with
// an ellipsis when cut).
QString shown(const QString &request, qsizetype maxChars = 300);

} // namespace Countersign::RequestNames
