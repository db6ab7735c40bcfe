#include "networkcommands.h"

#include "argtools.h"

#include <QRegularExpression>
#include <QUrl>

#include <algorithm>
#include <optional>

namespace Countersign::Shell::NetworkCommands {

using namespace ArgTools;

namespace {

// What the line of an HTTP client asks for: whether it is a plain request (readHttpOption says
// which options keep it one), what curl -T sends, and the URLs it names.
struct HttpClientLine final
{
    bool plain = true;
    // curl's upload (-T FILE): it sends FILE, to a host or, through a file: URL, into a file.
    std::optional<Arg> upload;
    QList<Arg> urls;
};

// curl reads -w @FILE and -H @FILE (and prints them: -w @~/.ssh/id_rsa shows the key
// whatever the request does), and writes what -w %output{FILE} names.
void readCurlValue(CommandCatalog &c, const QList<Arg> &args, qsizetype k, HttpClientLine &request)
{
    const Arg &a = args.at(k);
    const Arg value = a.text.startsWith(QLatin1String("--")) && a.text.contains(QLatin1Char('='))
                          ? Arg{a.text.section(QLatin1Char('='), 1), a.known, false, {}}
                          : args.value(k + 1);
    if (!value.known)
        request.plain = false;
    if (value.text.startsWith(QLatin1Char('@'))) {
        request.plain = false;
        c.addPath(Effect::Kind::Reads, QStringLiteral("curl reads %1").arg(value.text.mid(1)),
                  Arg{value.text.mid(1), value.known, false, {}});
    }
    if (value.text.contains(QLatin1String("%output{"), Qt::CaseInsensitive))
        c.unknown(QStringLiteral("curl -w %output{...} writes the file it names"));
}

// One option of an HTTP client (option: its name before any '='): the file -o or -O writes, and
// whether the request stays plain. k moves past a value given as the next argument.
void readHttpOption(CommandCatalog &c, const QString &program, const QList<Arg> &args, qsizetype &k,
                    const QString &option, HttpClientLine &request)
{
    // Runs with no card only as a plain request to this machine: every option one that neither
    // sends data, nor reads a file, nor goes through a proxy, nor writes anywhere but -o FILE
    // (judged as a write). Anything else is the network.
    static const QStringList flags = words({"-s",
                                            "-S",
                                            "-f",
                                            "-L",
                                            "-i",
                                            "-I",
                                            "-v",
                                            "-k",
                                            "-q",
                                            "-sS",
                                            "-fsS",
                                            "-sf",
                                            "-fs",
                                            "-sL",
                                            "-fsSL",
                                            "-sSL",
                                            "-Ss",
                                            "-sI",
                                            "-si",
                                            "-fL",
                                            "-qO-",
                                            "--silent",
                                            "--show-error",
                                            "--fail",
                                            "--location",
                                            "--include",
                                            "--head",
                                            "--verbose",
                                            "--insecure",
                                            "--quiet",
                                            "--no-progress-meter",
                                            "--compressed",
                                            "--fail-with-body",
                                            "--no-verbose",
                                            "-nv"});
    static const QStringList valued = words({"-m", "--max-time", "--connect-timeout", "-H", "--header", "-w",
                                             "--write-out", "-A", "--user-agent", "--retry", "-o", "--output",
                                             "-O", "--output-document", "-T", "--timeout", "-t", "--tries"});
    const bool curl = program == QLatin1String("curl");
    const bool wget = program == QLatin1String("wget");
    const Arg &a = args.at(k);
    const bool writesTo =
        (curl && (option == QLatin1String("-o") || option == QLatin1String("--output"))) ||
        (wget && (option == QLatin1String("-O") || option == QLatin1String("--output-document")));
    if (writesTo) {
        const Arg out = a.text.contains(QLatin1Char('='))
                            ? Arg{a.text.section(QLatin1Char('='), 1), a.known, false, {}}
                            : args.value(k + 1);
        if (out.text != QLatin1String("-") && out.text != QLatin1String("/dev/null"))
            c.addReplace(QStringLiteral("%1 writes %2").arg(program, out.text), out);
    } else if (curl && option == QLatin1String("-O")) {
        c.add(Effect::Kind::Writes, QStringLiteral("curl -O writes the download here"), c.how().cwd,
              !c.how().cwd.isEmpty());
        return;
    } else if (!flags.contains(a.text) && !valued.contains(option)) {
        request.plain = false; // a body, a file, a proxy, a config, a method...
    } else if (option == QLatin1String("-o") || option == QLatin1String("-O") ||
               option == QLatin1String("-T")) {
        // -o and -O and -T are wget's log file, output and timeout: only the ones above
        if (wget && option == QLatin1String("-o"))
            request.plain = false;
    }
    if (valued.contains(option) && !a.text.contains(QLatin1Char('=')))
        ++k;
}

// The arguments of an HTTP client, read into request; an argument that expands makes it no plain
// request.
void readHttpArgs(CommandCatalog &c, const QString &program, const QList<Arg> &args, HttpClientLine &request)
{
    const bool curl = program == QLatin1String("curl");
    for (qsizetype k = 1; k < args.size(); ++k) {
        const Arg &a = args.at(k);
        if (!a.known) {
            request.plain = false;
            continue;
        }
        const QString option = a.text.section(QLatin1Char('='), 0, 0);
        if (curl && (option == QLatin1String("-T") || option == QLatin1String("--upload-file"))) {
            request.upload = a.text.contains(QLatin1Char('='))
                                 ? Arg{a.text.section(QLatin1Char('='), 1), a.known, false, {}}
                                 : args.value(k + 1);
            request.plain = false;
            if (!a.text.contains(QLatin1Char('=')))
                ++k;
            continue;
        }
        if (curl && (option == QLatin1String("-w") || option == QLatin1String("--write-out") ||
                     option == QLatin1String("-H") || option == QLatin1String("--header")))
            readCurlValue(c, args, k, request);
        if (CommandCatalog::isOption(a)) {
            readHttpOption(c, program, args, k, option, request);
            continue;
        }
        request.urls.append(a);
    }
}

// What the request does: the files its file: URLs read or write, each host it reaches (a plain
// request to this machine only asks it), and the download wget writes here.
void httpEffects(CommandCatalog &c, const QString &program, const QList<Arg> &args, HttpClientLine &request)
{
    const bool curl = program == QLatin1String("curl");
    const bool wget = program == QLatin1String("wget");
    QStringList hosts;
    // The scheme decides what a URL is: a file: URL is a read of the file it names (a write
    // with -T), http and https reach their host, and every other scheme (gopher:, dict:,
    // ftp:, ldap:, ...) is the network even on this machine (gopher://127.0.0.1:6379 speaks
    // to a database).
    bool otherScheme = false;
    for (const Arg &a : request.urls) {
        const QString url =
            a.text.contains(QLatin1String("://")) ? a.text : QStringLiteral("http://") + a.text;
        const QString scheme = url.section(QLatin1String("://"), 0, 0).toLower();
        if (curl && scheme == QLatin1String("file")) {
            const Arg file{QUrl(url).path(), a.known, false, {}};
            if (request.upload)
                c.addReplace(QStringLiteral("curl -T writes %1 (a file: URL)").arg(file.text), file);
            else
                c.addPath(Effect::Kind::Reads, QStringLiteral("curl reads %1 (a file: URL)").arg(file.text),
                          file);
            continue;
        }
        if (scheme != QLatin1String("http") && scheme != QLatin1String("https"))
            otherScheme = true;
        hosts.append(hostOf(url));
    }
    if (request.upload)
        c.addPath(Effect::Kind::Reads, QStringLiteral("curl -T sends %1").arg(request.upload->text),
                  *request.upload);
    if (otherScheme)
        request.plain = false;
    if (hosts.isEmpty() && !request.urls.isEmpty())
        return; // file: URLs only: what they read and write is judged above
    if (hosts.isEmpty())
        hosts.append(QString());
    for (const QString &host : hosts) {
        if (request.plain && !host.isEmpty() && isLocalHost(host))
            c.add(Effect::Kind::Reads, QStringLiteral("%1 asks %2 (this machine)").arg(program, host));
        else
            c.add(Effect::Kind::Network,
                  QStringLiteral("%1 reaches %2")
                      .arg(program, host.isEmpty() ? QStringLiteral("a host not known yet") : host),
                  host, !host.isEmpty());
    }
    if (wget && !hasOption(args, QLatin1Char('O'), words({"--output-document"})))
        c.add(Effect::Kind::Writes, QStringLiteral("wget writes the download here"), c.how().cwd,
              !c.how().cwd.isEmpty());
}

void network(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    const bool curl = program == QLatin1String("curl");
    const bool wget = program == QLatin1String("wget");
    if (curl || wget || program == QLatin1String("http") || program == QLatin1String("https") ||
        program == QLatin1String("xh")) {
        HttpClientLine request;
        readHttpArgs(c, program, args, request);
        httpEffects(c, program, args, request);
        return;
    }
    if (program == QLatin1String("rsync") || program == QLatin1String("scp") ||
        program == QLatin1String("sftp")) {
        bool remote = program == QLatin1String("sftp");
        const QList<Arg> ops = operands(args, words({"-e", "--rsh", "-i", "-P", "-o", "-F", "-c", "-l", "-S",
                                                     "--exclude", "--include", "--filter"}));
        for (const Arg &a : ops)
            remote = remote || !a.known || !hostOf(a.text).isEmpty();
        if (remote) {
            c.add(Effect::Kind::Network, QStringLiteral("%1 copies to or from another machine").arg(program));
            return;
        }
        QList<Arg> local = ops;
        if (local.isEmpty())
            return;
        const Arg target = local.takeLast();
        for (const Arg &s : local)
            c.addPath(Effect::Kind::Reads, QStringLiteral("%1 reads %2").arg(program, s.text), s);
        // Any option that deletes: --delete and its kinds (--delete-delay, --del), --remove-source-files,
        // whatever spelling rsync takes next.
        if (std::any_of(args.cbegin() + 1, args.cend(), [](const Arg &a) {
                return !a.known || a.text.startsWith(QLatin1String("--del")) ||
                       a.text.startsWith(QLatin1String("--remove")) ||
                       a.text.startsWith(QLatin1String("--max-del"));
            }))
            c.addPath(Effect::Kind::Deletes,
                      QStringLiteral("%1 --delete deletes what is not in the source").arg(program), target);
        else
            c.addPath(Effect::Kind::Writes, QStringLiteral("%1 writes %2").arg(program, target.text), target);
        return;
    }
    c.add(Effect::Kind::Network, QStringLiteral("%1 talks to another machine or service").arg(program));
}

// What only asks the local container daemon or a cluster the user set up, and prints what it
// lists (docker ps, kubectl get pods): a read. A secret's data, another host or context, and
// every other subcommand are not.
bool localRead(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    // Settings in front (DOCKER_HOST=, KUBECONFIG=) choose where it goes and what it runs.
    if (!c.how().assigned.isEmpty())
        return false;
    QStringList words;
    for (const Arg &a : args.mid(1)) {
        if (!a.known || a.text.contains(QLatin1String("secret"), Qt::CaseInsensitive))
            return false;
        words.append(a.text);
    }
    const QString line = words.join(QLatin1Char(' '));
    if (program == QLatin1String("docker") || program == QLatin1String("podman")) {
        static const QRegularExpression reading(QStringLiteral(
            "^(ps|images|version|info|container ls|container list|image ls|image list|network ls|"
            "volume ls|system df|compose ps|compose ls|compose images)"
            "( (-a|--all|-q|--quiet|--no-trunc))*$"));
        if (!reading.match(line).hasMatch())
            return false;
        c.add(Effect::Kind::Reads,
              QStringLiteral("%1 %2 lists what the local daemon holds").arg(program, words.value(0)));
        return true;
    }
    if (program == QLatin1String("kubectl")) {
        // Resources by name, and only the options that say which and how much to list.
        static const QRegularExpression reading(QStringLiteral(
            "^(get|describe|top|api-resources|version|cluster-info|config current-context|"
            "config get-contexts)"
            "( ([a-z0-9][a-z0-9./-]*|-n [a-z0-9-]+|--namespace[= ][a-z0-9-]+|-A|--all-namespaces|"
            "-l [A-Za-z0-9_.=,!-]+|--selector[= ][A-Za-z0-9_.=,!-]+|--show-labels|--no-headers|"
            "-o wide|--client))*$"));
        if (!reading.match(line).hasMatch())
            return false;
        c.add(Effect::Kind::Reads,
              QStringLiteral("kubectl %1 prints what the cluster you use lists").arg(words.value(0)));
        return true;
    }
    return false;
}

} // namespace

QString hostOf(const QString &operand)
{
    if (operand.contains(QLatin1String("://"))) {
        const QUrl url(operand);
        return url.host();
    }
    // user@host:path or host:path (scp, rsync); not a:b with a slash before the colon.
    static const QRegularExpression remote(QStringLiteral("^(?:[^@/:]+@)?([A-Za-z0-9.\\-\\[\\]]+):"));
    const auto m = remote.match(operand);
    return m.hasMatch() ? m.captured(1) : QString();
}

bool isLocalHost(const QString &host)
{
    const QString h = host.toLower();
    return h == QLatin1String("localhost") || h == QLatin1String("127.0.0.1") || h == QLatin1String("::1") ||
           h == QLatin1String("[::1]") || h.endsWith(QLatin1String(".localhost"));
}

bool read(CommandCatalog &c, const QString &program, const QList<Arg> &args)
{
    static const QStringList networked = words({"curl",        "wget",
                                                "http",        "https",
                                                "xh",          "ssh",
                                                "scp",         "sftp",
                                                "rsync",       "nc",
                                                "ncat",        "netcat",
                                                "telnet",      "ftp",
                                                "socat",       "ping",
                                                "dig",         "nslookup",
                                                "host",        "whois",
                                                "gh",          "hub",
                                                "glab",        "aws",
                                                "gcloud",      "gsutil",
                                                "az",          "kubectl",
                                                "helm",        "terraform",
                                                "tofu",        "pulumi",
                                                "ansible",     "ansible-playbook",
                                                "docker",      "podman",
                                                "vagrant",     "heroku",
                                                "vercel",      "netlify",
                                                "fly",         "flyctl",
                                                "firebase",    "psql",
                                                "mysql",       "mariadb",
                                                "mongo",       "mongosh",
                                                "redis-cli",   "sqlite3",
                                                "mail",        "sendmail",
                                                "mutt",        "lftp",
                                                "s3cmd",       "rclone",
                                                "doctl",       "wrangler",
                                                "supabase",    "sam",
                                                "cdk",         "serverless",
                                                "eksctl",      "minikube",
                                                "kind",        "skaffold",
                                                "tailscale",   "ngrok",
                                                "cloudflared", "openssl"});
    if (networked.contains(program)) {
        if (!localRead(c, program, args))
            network(c, program, args);
        return true;
    }
    return false;
}

} // namespace Countersign::Shell::NetworkCommands
