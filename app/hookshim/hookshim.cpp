#include "hookshim.h"

#include "hookformat.h"
#include "hookwire.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace Countersign {

namespace {

using json = nlohmann::json;

using HookWire::kMaxPayloadBytes;
// The answer may wait for the human up to the console's hook hold (hookHoldSeconds, at most 3600),
// which the setup keeps under the client's own hook timeout; a console silent for longer is gone.
constexpr int kAnswerMs = 3'610'000;

int print(const std::string &out, const std::string &err, int code)
{
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fwrite(err.data(), 1, err.size(), stderr);
    std::fflush(stdout);
    std::fflush(stderr);
    return code;
}

// A deny every client reads as one: in its own format when the client is known; otherwise exit 2
// with the reason on stderr (which Claude Code, Codex, Qwen Code and Gemini CLI all take as a block).
int deny(std::optional<HookClient> client, HookEvent event, const std::string &reason)
{
    if (!client)
        return print({}, "Countersign: " + reason + "\n", 2);
    return print(HookFormat::deny(*client, event, "Countersign: " + reason), {}, 0);
}

bool writeAll(int fd, const std::string &bytes)
{
    for (size_t sent = 0; sent < bytes.size();) {
        const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        sent += size_t(n);
    }
    return true;
}

// One line from fd (without its newline), or nothing when it ends first or says nothing in time.
std::optional<std::string> readLine(int fd, int answerMs)
{
    std::string got;
    char buffer[65536];
    for (;;) {
        if (const size_t end = got.find('\n'); end != std::string::npos)
            return got.substr(0, end);
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, answerMs);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            return std::nullopt;
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return std::nullopt;
        got.append(buffer, size_t(n));
    }
}

} // namespace

int runHookShim(int argc, char **argv, int first, const std::string &defaultSocket)
{
    const std::string clientName = argc > first ? argv[first] : "";
    std::string socketPath = defaultSocket;
    std::string tokenFile;
    for (int i = first + 1; i + 1 < argc; ++i) {
        if (!std::strcmp(argv[i], "--socket"))
            socketPath = argv[i + 1];
        else if (!std::strcmp(argv[i], "--token-file"))
            tokenFile = argv[i + 1];
    }
    const std::optional<HookClient> client = hookClientNamed(clientName);
    if (!client)
        return deny(std::nullopt, HookEvent::Pre,
                    "usage: countersign-hook claude-code|codex|gemini|qwen --socket PATH [--token-file FILE] "
                    "(\"" +
                        clientName.substr(0, 64) + "\" is none of them), so nothing is allowed");

    std::string input;
    char buffer[65536];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0 && input.size() <= kMaxPayloadBytes)
        input.append(buffer, n);
    HookEvent event = HookEvent::Pre;
    if (input.size() > kMaxPayloadBytes)
        return deny(client, event, "the hook payload is larger than 4 MiB; nothing is allowed");
    const json payload = json::parse(input, nullptr, false);
    if (payload.is_discarded() || !payload.is_object())
        return deny(client, event, "the hook payload is not a JSON object; nothing is allowed");
    if (payload.value("hook_event_name", json()) == "PermissionRequest")
        event = HookEvent::Permission;

    // COUNTERSIGN_TOKEN, else the file `hooks install` wrote (some clients strip *TOKEN* variables
    // from their hooks' environment: Gemini CLI with its redaction on).
    std::string token;
    if (const char *variable = std::getenv("COUNTERSIGN_TOKEN"))
        token = variable;
    if (token.empty() && !tokenFile.empty()) {
        std::ifstream file(tokenFile);
        std::getline(file, token);
    }
    while (!token.empty() && (token.back() == '\r' || token.back() == ' '))
        token.pop_back();
    if (token.empty())
        return deny(
            client, event,
            "COUNTERSIGN_TOKEN is not set for this hook, so nothing is allowed (run: countersign hooks "
            "install " +
                clientName + ")");

    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (socketPath.empty() || socketPath.size() >= sizeof address.sun_path || fd < 0)
        return deny(client, event,
                    "Countersign is not running, so nothing is allowed. Start it, then call again.");
    std::memcpy(address.sun_path, socketPath.c_str(), socketPath.size() + 1);
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0) {
        ::close(fd);
        return deny(client, event,
                    "Countersign is not running, so nothing is allowed. Start it, then call again.");
    }
    const json hello = {{"countersign", HookWire::kHello},
                        {"token", token},
                        {"client", std::string(hookClientSpec(*client).name)}};
    // The answer is read even when the payload could not all be sent: a refused hello is answered
    // before the payload is read.
    if (writeAll(fd, hello.dump() + '\n'))
        (void)writeAll(fd, payload.dump(-1, ' ', false, json::error_handler_t::replace) + '\n');
    // A client whose hook timeout is fixed lets the call through when it lapses: deny 5 s before.
    const int fixed = hookClientSpec(*client).fixedTimeoutSeconds;
    const std::optional<std::string> line = readLine(fd, fixed > 0 ? (fixed - 5) * 1000 : kAnswerMs);
    ::close(fd);
    if (!line)
        return deny(client, event,
                    "Countersign ended the connection without an answer, so nothing is allowed");
    const json answer = json::parse(*line, nullptr, false);
    if (answer.is_object() && answer.value("ok", json()) == false)
        return deny(client, event, answer.value("error", std::string("refused")) + "; nothing is allowed");
    if (!answer.is_object() || !answer.value("stdout", json()).is_string() ||
        !answer.value("stderr", json()).is_string() || !answer.value("exit", json()).is_number_integer())
        return deny(client, event, "Countersign's answer was unreadable; nothing is allowed");
    return print(answer.at("stdout").get<std::string>(), answer.at("stderr").get<std::string>(),
                 answer.at("exit").get<int>());
}

} // namespace Countersign
