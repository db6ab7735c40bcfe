#include "gitcommand.h"

#include "argtools.h"

#include <QRegularExpression>

#include <algorithm>

namespace Countersign::Shell::GitCommand {

void config(CommandCatalog &c, const QList<Arg> &rest, const QString &cwd)
{
    const bool cwdKnown = !cwd.isEmpty();
    const auto reads = [&](const QString &what) { c.add(Effect::Kind::Reads, what, cwd, cwdKnown); };
    // Reading forms only: --get*, --list/-l, "get", "list", or one name with no value.
    static const QStringList readOptions = ArgTools::words(
        {"--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin", "--show-scope", "--name-only",
         "--local", "--worktree", "--type", "--bool", "--int", "--null", "-z", "--default", "--includes"});
    int operandCount = 0;
    bool reading = true;
    for (const Arg &a : rest) {
        if (a.text.startsWith(QLatin1Char('-'))) {
            if (!readOptions.contains(a.text.section(QLatin1Char('='), 0, 0)))
                reading = false;
        } else {
            ++operandCount;
        }
    }
    const QString first = rest.value(0).text;
    if (first == QLatin1String("get") || first == QLatin1String("list"))
        operandCount -= 1;
    const bool named = std::any_of(rest.cbegin(), rest.cend(),
                                   [](const Arg &a) { return a.text.startsWith(QLatin1String("--get")); });
    // A listing that takes in the user's and the system's files prints what ~/.gitconfig holds
    // (tokens in URLs, credential helpers' arguments): a secret, as cat ~/.gitconfig is.
    const bool lists =
        first == QLatin1String("list") || std::any_of(rest.cbegin(), rest.cend(), [](const Arg &a) {
            return a.text == QLatin1String("-l") || a.text == QLatin1String("--list") ||
                   a.text.startsWith(QLatin1String("--get-regexp"));
        });
    const bool localOnly = std::any_of(rest.cbegin(), rest.cend(), [](const Arg &a) {
        return a.text == QLatin1String("--local") || a.text == QLatin1String("--worktree");
    });
    // One key that holds a credential is a secret read too (credential.helper's arguments,
    // http.extraHeader, a password or a token in a section of its own).
    static const QRegularExpression secretKey(QStringLiteral("^credential\\.|extraheader|pass|token|secret"),
                                              QRegularExpression::CaseInsensitiveOption);
    const bool secretRead = std::any_of(rest.cbegin(), rest.cend(), [](const Arg &a) {
        return !a.text.startsWith(QLatin1Char('-')) && secretKey.match(a.text).hasMatch();
    });
    if (reading && secretRead)
        c.add(Effect::Kind::Secret, QStringLiteral("git config prints a setting that holds a credential"));
    else if (reading && lists && !localOnly)
        c.add(
            Effect::Kind::Secret,
            QStringLiteral("git config lists every setting, ~/.gitconfig's tokens and credentials included"));
    else if (reading && (operandCount <= 1 || named))
        reads(QStringLiteral("git config prints settings"));
    else
        c.add(Effect::Kind::Writes, QStringLiteral("git config changes settings"),
              cwdKnown ? cwd + QStringLiteral("/.git/config") : QString(), cwdKnown);
}

} // namespace Countersign::Shell::GitCommand
