#include "pathrules.h"

#include "workspace.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace Countersign::PathRules {

namespace {

// Relative to the home folder: files and folders whose reading hands over a credential.
const QStringList kHomeSecrets = {QStringLiteral(".ssh"),
                                  QStringLiteral(".aws"),
                                  QStringLiteral(".config/gh"),
                                  QStringLiteral(".gnupg"),
                                  QStringLiteral(".netrc"),
                                  QStringLiteral(".npmrc"),
                                  QStringLiteral(".pypirc"),
                                  QStringLiteral(".docker/config.json"),
                                  QStringLiteral(".kube"),
                                  QStringLiteral(".git-credentials"),
                                  QStringLiteral(".config/gcloud"),
                                  QStringLiteral(".azure"),
                                  QStringLiteral(".password-store"),
                                  QStringLiteral(".local/share/keyrings"),
                                  QStringLiteral(".config/hub"),
                                  QStringLiteral(".config/countersign"),
                                  QStringLiteral(".local/share/countersign"),
                                  QStringLiteral(".config/rclone"),
                                  QStringLiteral(".cargo/credentials"),
                                  QStringLiteral(".cargo/credentials.toml"),
                                  QStringLiteral(".gem/credentials"),
                                  QStringLiteral(".terraform.d/credentials.tfrc.json"),
                                  QStringLiteral(".vault-token"),
                                  QStringLiteral(".claude/.credentials.json"),
                                  QStringLiteral(".codex/auth.json"),
                                  QStringLiteral(".gemini/oauth_creds.json"),
                                  QStringLiteral(".qwen/oauth_creds.json"),
                                  QStringLiteral(".config/github-copilot"),
                                  QStringLiteral(".mozilla"),
                                  QStringLiteral(".config/google-chrome"),
                                  QStringLiteral(".config/chromium"),
                                  QStringLiteral(".pgpass"),
                                  QStringLiteral(".my.cnf")};

// Relative to the home folder: what runs at a login, a shell's start, or an agent's next call.
const QStringList kHomeProtected = {QStringLiteral(".bashrc"),
                                    QStringLiteral(".bash_profile"),
                                    QStringLiteral(".bash_login"),
                                    QStringLiteral(".bash_logout"),
                                    QStringLiteral(".profile"),
                                    QStringLiteral(".zshrc"),
                                    QStringLiteral(".zshenv"),
                                    QStringLiteral(".zprofile"),
                                    QStringLiteral(".zlogin"),
                                    QStringLiteral(".config/fish"),
                                    QStringLiteral(".inputrc"),
                                    QStringLiteral(".gitconfig"),
                                    QStringLiteral(".config/git"),
                                    QStringLiteral(".ssh"),
                                    QStringLiteral(".gnupg"),
                                    QStringLiteral(".config/autostart"),
                                    QStringLiteral(".config/systemd"),
                                    QStringLiteral(".local/bin"),
                                    QStringLiteral("bin"),
                                    QStringLiteral(".claude"),
                                    QStringLiteral(".claude.json"),
                                    QStringLiteral(".codex"),
                                    QStringLiteral(".gemini"),
                                    QStringLiteral(".qwen"),
                                    QStringLiteral(".config/opencode"),
                                    QStringLiteral(".pi"),
                                    QStringLiteral(".cline"),
                                    QStringLiteral(".copilot"),
                                    QStringLiteral(".config/github-copilot"),
                                    QStringLiteral("Documents/Cline"),
                                    QStringLiteral(".cursor"),
                                    QStringLiteral(".vscode"),
                                    QStringLiteral(".config/Code"),
                                    QStringLiteral(".config/countersign"),
                                    QStringLiteral(".local/share/countersign"),
                                    QStringLiteral(".npmrc"),
                                    QStringLiteral(".pypirc"),
                                    QStringLiteral(".aws"),
                                    QStringLiteral(".kube"),
                                    QStringLiteral(".docker"),
                                    QStringLiteral(".cargo/config.toml"),
                                    QStringLiteral(".cargo/config"),
                                    QStringLiteral(".pip"),
                                    QStringLiteral(".config/pip"),
                                    QStringLiteral(".pydistutils.cfg"),
                                    QStringLiteral(".Xresources"),
                                    QStringLiteral(".xprofile"),
                                    QStringLiteral(".xinitrc")};

// Anywhere: folders and files of a project whose change runs code elsewhere or steers an agent.
const QStringList kProjectProtected = {
    QStringLiteral(".git"), QStringLiteral(".github/workflows"), QStringLiteral(".gitlab-ci.yml"),
    QStringLiteral(".circleci"), QStringLiteral(".claude"), QStringLiteral(".gemini"),
    QStringLiteral(".codex"), QStringLiteral(".qwen"), QStringLiteral(".vscode"), QStringLiteral(".cursor"),
    QStringLiteral(".envrc"), QStringLiteral(".mcp.json"), QStringLiteral(".husky"),
    QStringLiteral(".pre-commit-config.yaml"), QStringLiteral(".opencode"), QStringLiteral("opencode.json"),
    QStringLiteral(".pi"), QStringLiteral(".clinerules"), QStringLiteral(".agents"),
    QStringLiteral(".devcontainer"), QStringLiteral(".gitattributes"), QStringLiteral(".gitmodules"),
    QStringLiteral(".npmrc"), QStringLiteral(".yarnrc"), QStringLiteral(".yarnrc.yml"),
    QStringLiteral("Jenkinsfile"), QStringLiteral(".travis.yml"), QStringLiteral("azure-pipelines.yml"),
    QStringLiteral(".buildkite"), QStringLiteral(".drone.yml"), QStringLiteral("CLAUDE.md"),
    QStringLiteral("CLAUDE.local.md"), QStringLiteral("AGENTS.md"), QStringLiteral("GEMINI.md"),
    QStringLiteral("QWEN.md"), QStringLiteral(".cursorrules"), QStringLiteral(".windsurfrules"),
    QStringLiteral(".roo"), QStringLiteral(".github/actions"),
    QStringLiteral(".github/copilot-instructions.md"), QStringLiteral("lefthook.yml"),
    QStringLiteral(".lefthook.yml"), QStringLiteral("mise.toml"), QStringLiteral(".mise.toml"),
    QStringLiteral(".tool-versions"), QStringLiteral(".continue"), QStringLiteral(".aider.conf.yml"),
    QStringLiteral(".kiro"), QStringLiteral(".amazonq"), QStringLiteral(".zed"), QStringLiteral(".idea"),
    QStringLiteral("bitbucket-pipelines.yml"), QStringLiteral(".gitea"), QStringLiteral(".forgejo"),
    QStringLiteral(".woodpecker.yml"), QStringLiteral(".woodpecker"), QStringLiteral("bunfig.toml"),
    QStringLiteral(".pnpmfile.cjs"), QStringLiteral(".gitlab"), QStringLiteral(".yarn/plugins"),
    QStringLiteral(".gemini"), QStringLiteral(".cargo/config.toml"), QStringLiteral(".cargo/config"),
    // the hooks and settings of the agents gated through them
    QStringLiteral(".github/hooks"), QStringLiteral(".copilot"), QStringLiteral("opencode.jsonc"),
    QStringLiteral(".cline"),
    // run by every Python that imports from their folder (PYTHONPATH=src and the like)
    QStringLiteral("sitecustomize.py"), QStringLiteral("usercustomize.py")};

} // namespace

bool under(const QString &path, const QString &folder)
{
    return path == folder || path.startsWith(folder + QLatin1Char('/'));
}

// The path's components from each ancestor: a/b/.git/hooks/x holds ".git" and ".git/hooks/x".
bool hasComponentPath(const QString &path, const QStringList &names)
{
    const QStringList parts = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    for (qsizetype i = 0; i < parts.size(); ++i) {
        for (const QString &name : names) {
            const int n = int(name.count(QLatin1Char('/'))) + 1;
            if (i + n <= parts.size() && QStringList(parts.mid(i, n)).join(QLatin1Char('/')) == name)
                return true;
        }
    }
    return false;
}

bool secretFileName(const QString &name)
{
    static const QRegularExpression secret(
        QStringLiteral("^(\\.env(\\..*)?|\\.envrc|id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.*\\.(pem|key|p12|pfx|jks|"
                       "keystore|kdbx|gpg|asc)|"
                       "credentials(\\.json|\\.toml)?|secrets?\\.(json|ya?ml|toml|env)|\\.(bash|zsh|python|"
                       "node_repl|psql|mysql|sqlite|lesshst)_?history|"
                       "service-account.*\\.json|\\.htpasswd|\\.pgpass|auth\\.json|token(s)?\\.json)$"));
    static const QStringList harmless = {QStringLiteral(".env.example"), QStringLiteral(".env.sample"),
                                         QStringLiteral(".env.template"), QStringLiteral(".env.dist"),
                                         QStringLiteral(".env.defaults")};
    return secret.match(name).hasMatch() && !harmless.contains(name) && !name.endsWith(QLatin1String(".pub"));
}

bool isDevice(const QString &path)
{
    static const QStringList devices = {QStringLiteral("/dev/null"),   QStringLiteral("/dev/stdout"),
                                        QStringLiteral("/dev/stderr"), QStringLiteral("/dev/tty"),
                                        QStringLiteral("/dev/zero"),   QStringLiteral("/dev/urandom"),
                                        QStringLiteral("/dev/random"), QStringLiteral("/dev/stdin")};
    return devices.contains(path) || path.startsWith(QLatin1String("/dev/fd/")) ||
           path.startsWith(QLatin1String("/proc/self/fd/"));
}

QString shortPath(const QString &path, const QString &home)
{
    if (!home.isEmpty() && under(path, home))
        return QStringLiteral("~") + path.mid(home.size());
    return path;
}

QString resolved(const QString &path)
{
    if (!path.split(QLatin1Char('/')).contains(QStringLiteral("..")))
        return QDir::cleanPath(path);
    QString real = QStringLiteral("/");
    for (const QString &part : path.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        if (part == QLatin1String("."))
            continue;
        if (part == QLatin1String("..")) {
            const QString here = QFileInfo(real).canonicalFilePath();
            real = QFileInfo(here.isEmpty() ? real : here).absolutePath();
            continue;
        }
        real = real == QLatin1String("/") ? real + part : real + QLatin1Char('/') + part;
        if (const QString canonical = QFileInfo(real).canonicalFilePath(); !canonical.isEmpty())
            real = canonical;
    }
    return QDir::cleanPath(real);
}

bool isNetworkDevice(const QString &path)
{
    return path.startsWith(QLatin1String("/dev/tcp/")) || path.startsWith(QLatin1String("/dev/udp/"));
}

bool isSecret(const QString &absolutePath, const QString &home)
{
    QStringList forms = {QDir::cleanPath(absolutePath)};
    if (const QString canonical = Workspace::canonicalOf(forms.first());
        !canonical.isEmpty() && canonical != forms.first())
        forms.append(canonical);
    for (const QString &path : forms) {
        for (const QString &s : kHomeSecrets) {
            if (!home.isEmpty() && under(path, home + QLatin1Char('/') + s))
                return true;
        }
        if (secretFileName(QFileInfo(path).fileName()))
            return true;
        if (path.startsWith(QLatin1String("/etc/shadow")) || path.startsWith(QLatin1String("/etc/sudoers")) ||
            QRegularExpression(QStringLiteral("^/proc/[^/]+/environ$")).match(path).hasMatch())
            return true;
    }
    return false;
}

bool isProtected(const QString &absolutePath, const QString &home)
{
    QStringList forms = {QDir::cleanPath(absolutePath)};
    if (const QString canonical = Workspace::canonicalOf(forms.first());
        !canonical.isEmpty() && canonical != forms.first())
        forms.append(canonical);
    for (const QString &path : forms) {
        for (const QString &p : kHomeProtected) {
            if (!home.isEmpty() && under(path, home + QLatin1Char('/') + p))
                return true;
        }
        if (hasComponentPath(path, kProjectProtected))
            return true;
    }
    return false;
}

} // namespace Countersign::PathRules
