#include "cardface.h"

#include "blastradiustext.h"

#include <QCoreApplication>
#include <QDir>
#include <QLocale>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace Countersign {

namespace {

using nlohmann::json;

QString tr(const char *text)
{
    return QCoreApplication::translate("CardFace", text);
}

QString str(const json &object, const char *key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

qint64 num(const json &object, const char *key)
{
    if (!object.is_object())
        return 0;
    const auto it = object.find(key);
    return it != object.end() && it->is_number_integer() ? it->get<qint64>() : 0;
}

json list(const json &object, const char *key)
{
    if (!object.is_object())
        return json::array();
    const auto it = object.find(key);
    return it != object.end() && it->is_array() ? *it : json::array();
}

QString counted(qint64 n, const char *one, const char *many)
{
    return (n == 1 ? tr(one) : tr(many)).arg(QLocale().toString(n));
}

QString size(qint64 bytes)
{
    return QLocale().formattedDataSize(bytes);
}

// A path as a person reads it: relative to the folder the command runs in, under ~ for the home
// folder, whole otherwise.
QString shown(const QString &path, const QString &folder)
{
    if (!folder.isEmpty() && path.startsWith(folder + QLatin1Char('/')))
        return path.mid(folder.size() + 1);
    const QString home = QDir::homePath();
    if (home.size() > 1 && path.startsWith(home + QLatin1Char('/')))
        return QStringLiteral("~") + path.mid(home.size());
    return path;
}

QString capitalised(QString text)
{
    if (!text.isEmpty())
        text[0] = text[0].toUpper();
    return text;
}

// One entry of what an agent's destructive command would lose (the server's "measured" list), as
// a headline: what happens to what, in a few words.
QString measuredHeadline(const json &m, const QString &folder)
{
    const QString kind = str(m, "kind");
    if (kind == QLatin1String("delete")) {
        const qint64 files = num(m, "files");
        if (files == 0 && num(m, "folders") == 0)
            return tr("Deletes %1, which is not there now").arg(shown(str(m, "path"), folder));
        return tr("Deletes %1: %2, %3")
            .arg(shown(str(m, "path"), folder), counted(files, "%1 file", "%1 files"), size(num(m, "bytes")));
    }
    if (kind == QLatin1String("discard")) {
        const json files = list(m, "files");
        qint64 added = 0, removed = 0;
        for (const json &f : files) {
            added += num(f, "added");
            removed += num(f, "removed");
        }
        if (files.empty())
            return tr("Discards no change: nothing is uncommitted now");
        const QString what = files.size() == 1 ? shown(str(files.front(), "path"), {})
                                               : counted(qint64(files.size()), "%1 file", "%1 files");
        return tr("Discards uncommitted changes to %1 (+%2 −%3)").arg(what).arg(added).arg(removed);
    }
    if (kind == QLatin1String("clean"))
        return tr("Deletes %1 in %2")
            .arg(counted(qint64(list(m, "files").size()), "%1 untracked file", "%1 untracked files"),
                 shown(str(m, "folder"), {}));
    if (kind == QLatin1String("stash"))
        return counted(qint64(list(m, "stashes").size()), "Drops %1 stash", "Drops %1 stashes");
    if (kind == QLatin1String("branch"))
        return tr("Deletes the branch %1 and %2 only it holds")
            .arg(str(m, "branch"), counted(num(m, "commits"), "%1 commit", "%1 commits"));
    if (kind == QLatin1String("push")) {
        for (const json &t : list(m, "targets")) {
            const QString where = str(t, "remote") + QLatin1Char('/') + str(t, "branch");
            const QString verb = t.is_object() && t.value("deleting", json(false)) == json(true)
                                     ? tr("Deletes")
                                     : tr("Overwrites");
            return tr("%1 %2: %3 lost")
                .arg(verb, where, counted(num(t, "commits"), "%1 commit", "%1 commits"));
        }
        return {};
    }
    if (kind == QLatin1String("write")) {
        const QString path = shown(str(m, "path"), folder);
        if (m.value("exists", json(true)) == json(false))
            return tr("Creates %1").arg(path);
        if (m.value("replaces", json(false)) != json(true))
            return tr("Adds to %1").arg(path);
        return tr("Replaces %1 (%2, %3)")
            .arg(path, counted(num(m, "lines"), "%1 line", "%1 lines"), size(num(m, "bytes")));
    }
    return {};
}

// Whether what it does can be taken back, said once at the end of the headline.
QString keepWords(const Plan &plan, bool destructive)
{
    if (plan.keptInFull())
        return tr("a copy is kept");
    if (plan.isIrreversible())
        return tr("it cannot be undone");
    return destructive ? tr("git can bring it back") : QString();
}

// Whether a reason the judge gave says only what the headline already says: its words, leaving
// out the command's own ("rm", "--hard") and small ones, all begin a word of the headline ("rm
// deletes old.log" under "Deletes old.log: 1 file"). A reason that adds something ("outside the
// workspace roots") stays.
bool saidByHeadline(const QString &reason, const QString &headline, const QString &command)
{
    static const QRegularExpression space(QStringLiteral("[\\s,:;()]+"));
    static const QSet<QString> small = {
        QStringLiteral("and"), QStringLiteral("all"), QStringLiteral("it"),    QStringLiteral("the"),
        QStringLiteral("a"),   QStringLiteral("of"),  QStringLiteral("every"), QStringLiteral("holds"),
        QStringLiteral("to"),  QStringLiteral("in"),  QStringLiteral("its")};
    const QStringList said = headline.toLower().split(space, Qt::SkipEmptyParts);
    // Of the command, its program and options alone: words the agent put anywhere else in its line
    // (a comment "# reads secret network") cannot hide a reason.
    QStringList commandWords;
    const QStringList lineWords = command.toLower().split(space, Qt::SkipEmptyParts);
    for (qsizetype i = 0; i < lineWords.size(); ++i) {
        if (i <= 1 || lineWords.at(i).startsWith(QLatin1Char('-')))
            commandWords.append(lineWords.at(i)); // "$", the program, its options
    }
    for (const QString &word : reason.toLower().split(space, Qt::SkipEmptyParts)) {
        if (small.contains(word) || commandWords.contains(word))
            continue;
        const bool found = std::any_of(said.cbegin(), said.cend(), [&word](const QString &w) {
            return w.startsWith(word) || (word.size() > 3 && w.endsWith(word)) ||
                   (w.size() > 3 && word.startsWith(w));
        });
        if (!found)
            return false;
    }
    return true;
}

QString compactArguments(const json &arguments)
{
    QString text = QString::fromStdString(arguments.dump(-1, ' ', false, json::error_handler_t::replace));
    constexpr qsizetype kMax = 300;
    if (text.size() > kMax)
        text = text.left(kMax) + QStringLiteral("…");
    return text;
}

QString doorOf(const Operation &op)
{
    if (op.tool == QLatin1String("agent:shell"))
        return tr("its own shell");
    if (op.tool.startsWith(QLatin1String("agent:")))
        return tr("its own %1 tool")
            .arg(str(op.arguments, "tool").isEmpty() ? op.tool.mid(6) : str(op.arguments, "tool"));
    return tr("MCP");
}

void addEvidence(CardFace &face, const Operation &op, const json &measured, const QString &folder)
{
    const Plan &plan = op.plan;
    if (!plan.diff.trimmed().isEmpty()) {
        face.evidence = CardFace::Evidence::Diff;
        face.evidenceTitle =
            op.tool.startsWith(QLatin1String("agent:")) && op.tool != QLatin1String("agent:shell")
                ? tr("The change")
                : tr("What it changes or loses");
        face.evidenceText = plan.diff;
        return;
    }
    QStringList files;
    for (const json &m : measured) {
        const QString kind = str(m, "kind");
        if (kind == QLatin1String("delete")) {
            const QString base = str(m, "path").section(QLatin1Char('/'), 0, -2);
            for (const json &f : list(m, "first"))
                files.append(f.is_string() ? shown(QDir(base).filePath(QString::fromStdString(f)), folder)
                                           : QString());
        } else if (kind == QLatin1String("clean")) {
            for (const json &f : list(m, "files"))
                files.append(f.is_string() ? QString::fromStdString(f.get<std::string>()) : QString());
        }
    }
    files.removeAll(QString());
    if (!files.isEmpty()) {
        face.evidence = CardFace::Evidence::Files;
        face.evidenceTitle = tr("Files it deletes");
        face.evidenceText = files.join(QLatin1Char('\n'));
        return;
    }
    QStringList targets;
    for (const QString &t : plan.targets) {
        if (t != folder && !face.headline.contains(shown(t, folder)))
            targets.append(shown(t, folder));
    }
    if (!targets.isEmpty()) {
        face.evidence = CardFace::Evidence::Targets;
        face.evidenceTitle = tr("What it acts on");
        face.evidenceText = targets.join(QLatin1Char('\n'));
    }
}

void addDetails(CardFace &face, const Operation &op)
{
    const Plan &plan = op.plan;
    auto add = [&face](const QString &name, const QString &value) {
        if (!value.trimmed().isEmpty())
            face.details.append({name, value});
    };
    add(tr("Targets"), plan.targets.join(QLatin1Char('\n')));
    add(tr("Measured"), BlastRadiusText::lines(plan.blastRadius).join(QLatin1Char('\n')));
    add(tr("In full"), plan.summary);
    add(tr("Asked as"), plan.prompt);
    add(tr("Rule"), op.rule);
    add(tr("Connection"), op.principal);
    add(tr("Arguments"),
        QString::fromStdString(op.arguments.dump(2, ' ', false, json::error_handler_t::replace)));
    add(tr("Plan digest"), op.planDigest);
    add(tr("Arguments digest"), op.argsDigest);
}

} // namespace

CardFace CardFace::of(const Operation &op)
{
    CardFace face;
    const Plan &plan = op.plan;
    const json &blast = plan.blastRadius;
    const bool agentTool = op.tool.startsWith(QLatin1String("agent:"));
    const bool shell = op.tool == QLatin1String("agent:shell");
    face.folder = shell ? str(op.arguments, "cwd") : QString();
    const json measured = list(blast, "measured");
    QStringList asks;
    for (const json &a : list(blast, "asks")) {
        if (a.is_string())
            asks.append(QString::fromStdString(a.get<std::string>()));
    }

    // What loses something first, whatever the order of the line ("rm -rf ./harmless ~/" says ~/).
    QStringList happens, losesNothing;
    for (const json &m : measured) {
        if (const QString line = measuredHeadline(m, face.folder); !line.isEmpty())
            (measuredLoses(m) ? happens : losesNothing).append(line);
    }
    happens += losesNothing;
    if (!happens.isEmpty()) {
        face.headline = happens.takeFirst();
        face.also = happens;
        face.why = asks;
    } else if (shell && !asks.isEmpty()) {
        // Nothing measured to lose: what makes it ask is what happens ("reaches the network: ...").
        face.headline = capitalised(asks.takeFirst());
        face.why = asks;
    } else {
        face.headline = plan.title.isEmpty() ? op.tool : plan.title;
        face.why = asks;
    }
    const bool destructive = !measured.empty() || plan.keptInFull() || plan.isIrreversible();
    if (const QString keep = keepWords(plan, destructive); !keep.isEmpty())
        face.headline += QStringLiteral("; ") + keep;

    face.request = plan.request;
    face.riskWords = riskName(plan.risk);
    face.riskWords = capitalised(face.riskWords) + tr(" risk");
    if (shell)
        face.command = QStringLiteral("$ ") + str(op.arguments, "command");
    else if (!agentTool)
        face.command = op.tool + QLatin1Char(' ') + compactArguments(op.arguments);
    // A tool's own words, when they add to the headline (workspace and upstream tools, actions).
    // Its sentence on the undo is the headline's end; in full under the details.
    if (!agentTool && !plan.summary.isEmpty() && !face.headline.contains(plan.summary)) {
        QString summary = plan.summary;
        for (const char *undo : {"Countersign keeps a copy of ", "It cannot be undone: "}) {
            if (const qsizetype at = summary.indexOf(QLatin1String(undo)); at >= 0)
                summary = summary.left(at).trimmed();
        }
        face.summary = summary;
    }

    QStringList why;
    for (const QString &reason : face.why) {
        if (!saidByHeadline(reason, face.headline, face.command))
            why.append(reason);
    }
    face.why = why;
    addEvidence(face, op, measured, face.folder);
    const QString client = op.clientName().isEmpty() ? tr("an unnamed client") : op.clientName();
    face.who = tr("%1 · %2 · connection \"%3\"").arg(client, doorOf(op), op.principal);
    face.typed = op.needsTypedConfirmation();
    face.typedText = face.typed ? op.confirmationText() : QString();
    addDetails(face, op);
    return face;
}

QString CardFace::listEntry() const
{
    return headline + QLatin1Char('\n') + who + QStringLiteral(" · ") + riskWords;
}

QStringList CardFace::shownSentences() const
{
    QStringList out;
    static const QRegularExpression breaks(QStringLiteral("(?:[.;] |\\n| · )"));
    for (const QString &text : QStringList{headline, command, summary, who, riskWords} + why + also) {
        for (const QString &part : text.split(breaks, Qt::SkipEmptyParts)) {
            const QString s = part.trimmed();
            if (!s.isEmpty())
                out.append(s);
        }
    }
    return out;
}

QStringList CardFace::problems(const Operation &op) const
{
    QStringList found;
    QSet<QString> seen;
    for (const QString &sentence : shownSentences()) {
        const QString key = sentence.toLower();
        if (key.size() > 3 && seen.contains(key))
            found.append(QStringLiteral("said twice: \"%1\"").arg(sentence));
        seen.insert(key);
    }
    const QString all = shownSentences().join(QLatin1Char('\n')).toLower();
    const bool keptCopy = all.contains(QLatin1String("copy is kept")) ||
                          all.contains(QLatin1String("keeps a copy")) || op.plan.keptInFull();
    if (keptCopy &&
        (all.contains(QLatin1String("irreversible")) || all.contains(QLatin1String("cannot be undone"))))
        found.append(QStringLiteral("called irreversible beside a kept copy"));
    if (typed && keptCopy)
        found.append(QStringLiteral("a typed confirmation for a change that is kept"));
    if (typed && typedText.contains(QLatin1Char('/')) && typedText.size() > 1)
        found.append(QStringLiteral("a path to type: \"%1\"").arg(typedText));
    if (headline.trimmed().isEmpty())
        found.append(QStringLiteral("no headline"));
    return found;
}

nlohmann::json CardFace::toJson() const
{
    static const char *kinds[] = {"none", "diff", "files", "targets"};
    json out = {{"request", request.toStdString()},
                {"headline", headline.toStdString()},
                {"risk", riskWords.toStdString()},
                {"command", command.toStdString()},
                {"folder", folder.toStdString()},
                {"summary", summary.toStdString()},
                {"who", who.toStdString()},
                {"evidence", kinds[int(evidence)]},
                {"evidenceTitle", evidenceTitle.toStdString()},
                {"evidenceText", evidenceText.toStdString()},
                {"typed", typed},
                {"typedText", typedText.toStdString()}};
    json whyList = json::array(), alsoList = json::array(), detailList = json::array();
    for (const QString &w : why)
        whyList.push_back(w.toStdString());
    for (const QString &a : also)
        alsoList.push_back(a.toStdString());
    for (const auto &[name, value] : details)
        detailList.push_back({{"name", name.toStdString()}, {"value", value.toStdString()}});
    out["why"] = whyList;
    out["also"] = alsoList;
    out["details"] = detailList;
    return out;
}

} // namespace Countersign
