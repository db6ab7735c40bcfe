#include "codestrings.h"

#include <QRegularExpression>

namespace Countersign::Shell::CodeStrings {

QString source(const QString &origin, int line, const QStringList &lines)
{
    return QStringLiteral("%1, line %2 (%3)")
        .arg(origin)
        .arg(line)
        .arg(quoted(lines.value(line - 1).trimmed()));
}

QString quoted(const QString &code)
{
    if (code.size() <= 100)
        return code;
    return code.left(60) + QStringLiteral("...") + code.right(37);
}

Effect effect(Effect::Kind kind, const QString &source, const QString &what, const QString &path, bool known,
              bool replaces)
{
    Effect e;
    e.kind = kind;
    e.source = source;
    e.what = QStringLiteral("%1: %2").arg(source, what);
    e.path = path;
    e.pathKnown = known && !path.isEmpty();
    e.replaces = replaces;
    return e;
}

Named named(const QString &s)
{
    if (s.isEmpty() || s.size() > 512 || s.contains(QLatin1Char('\n')) || s.contains(QLatin1Char(' ')))
        return Named::Nothing;
    if (!s.contains(QLatin1Char('/')) && !s.startsWith(QLatin1Char('.')) && !s.startsWith(QLatin1Char('~')) &&
        !s.startsWith(QLatin1String("id_")))
        return Named::Nothing;
    static const QRegularExpression url(QStringLiteral("^[a-z][a-z0-9+.-]*://"));
    if (url.match(s).hasMatch())
        return Named::Nothing;
    static const QRegularExpression secretPiece(QStringLiteral(
        "(^|/)(\\.ssh|\\.aws|\\.gnupg|\\.kube|\\.docker|\\.netrc|\\.git-credentials|\\.npmrc|"
        "\\.pypirc|id_(rsa|dsa|ecdsa|ed25519)|\\.env(\\.[a-z]+)?|\\.password-store|\\.vault-token|"
        "\\.boto|\\.s3cfg)(/|$)"));
    static const QRegularExpression example(QStringLiteral("\\.(example|sample|template|dist)$"));
    if (secretPiece.match(s).hasMatch() && !example.match(s).hasMatch() && !s.startsWith(QLatin1Char('/')) &&
        !s.startsWith(QLatin1Char('~')))
        return Named::SecretPiece;
    const bool pathLike = s.startsWith(QLatin1Char('/')) || s.startsWith(QLatin1Char('~')) ||
                          s.startsWith(QLatin1String("..")) || s.contains(QLatin1String("/../"));
    return pathLike ? Named::Path : Named::Nothing;
}

} // namespace Countersign::Shell::CodeStrings
