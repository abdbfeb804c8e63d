// capture: a live capture from profiler servers into a logdir; serve: a profiler server that
// answers with a recorded XSpace, for demos and tests.

#include "commands.h"
#include "options.h"

#include "core/capture/capturesession.h"
#include "core/capture/capturetext.h"
#include "core/capture/recordedprofilerserver.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>

namespace tracedesk::cli {

namespace capture = core::capture;

const char *const kCaptureUsage =
    "  capture ADDRS --duration-ms N [--logdir DIR] [--delay-ms N] [--host-level L]\n"
    "          [--device-level L] [--python-level L] [--retries N] [--option key=value ...]\n"
    "          [--run NAME] [--deadline-ms N] [--quiet]\n"
    "      Capture a trace from running profiler servers (tf.profiler.experimental.server.start,\n"
    "      jax.profiler.start_server). ADDRS is host:port[,host:port...], captured in parallel.\n"
    "      Saves DIR/plugins/profile/<run>/<host>.xplane.pb (DIR defaults to '.'). Levels:\n"
    "      host 0-3 (default 2), device 0-1 (1), python 0-1 (0); retries default 3. Options\n"
    "      other than the standard names go to the server as advanced configuration.\n"
    "      Exits 1 with the reason unless every host was saved.";

const char *const kServeUsage =
    "  serve FILE --port P [--bind ADDR] [--empty] [--fail TEXT] [--hang] [--unavailable]\n"
    "        [--server-side-write]\n"
    "      Run a profiler server that answers every capture with the XSpace FILE after the\n"
    "      requested duration (port 0 picks a free port and prints it). ADDR defaults to\n"
    "      127.0.0.1. The flags make it answer with an empty trace, an error, never, or\n"
    "      UNAVAILABLE, or save on its own disk like older servers. Stops on Ctrl-C.";

namespace {

bool parseLevel(const ParsedArgs &args, const char *name, uint32_t max, uint32_t *out,
                std::string *error)
{
    if (!args.has(name))
        return true;
    unsigned long long v = 0;
    if (!parseCount(args.value(name), &v) || v > max) {
        *error = std::string("--") + name + " must be a number from 0 to " + std::to_string(max);
        return false;
    }
    *out = uint32_t(v);
    return true;
}

bool parseNumber(const ParsedArgs &args, const char *name, uint64_t *out, std::string *error)
{
    if (!args.has(name))
        return true;
    unsigned long long v = 0;
    if (!parseCount(args.value(name), &v)) {
        *error = std::string("--") + name + " needs a number";
        return false;
    }
    *out = v;
    return true;
}

} // namespace

int runCapture(int argc, char **argv)
{
    // --option may repeat, which the shared parser does not keep; collect those first.
    std::vector<char *> rest;
    capture::CaptureOptions options;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        std::string value;
        if (i >= 2 && arg == "--option") {
            if (i + 1 >= argc)
                return fail("option '--option' needs a value", kExitUsage);
            value = argv[++i];
        } else if (i >= 2 && arg.rfind("--option=", 0) == 0) {
            value = arg.substr(9);
        } else {
            rest.push_back(argv[i]);
            continue;
        }
        core::Result<capture::AdvancedOption> o = capture::parseAdvancedOption(value);
        if (!o)
            return fail(o.message(), kExitUsage);
        options.advanced.push_back(o.value());
    }
    const std::vector<OptionSpec> specs = {
        {"duration-ms", true}, {"logdir", true},       {"delay-ms", true},
        {"host-level", true},  {"device-level", true}, {"python-level", true},
        {"retries", true},     {"run", true},          {"deadline-ms", true},
        {"quiet", false},      {"help", false}};
    ParsedArgs args;
    std::string error;
    if (!parseArgs(int(rest.size()), rest.data(), 2, specs, &args, &error))
        return fail("capture: " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("%s\n", kCaptureUsage);
        return kExitOk;
    }
    if (args.positional.size() != 1 || !args.has("duration-ms"))
        return fail("capture: expected ADDRS and --duration-ms N (see --help)", kExitUsage);
    core::Result<std::vector<std::string>> addresses =
        capture::parseAddresses(args.positional[0]);
    if (!addresses)
        return fail("capture: " + addresses.message(), kExitUsage);
    options.addresses = addresses.value();
    options.logdir = args.value("logdir", ".");
    options.runName = args.value("run");
    uint64_t retries = uint64_t(options.retries);
    if (!parseNumber(args, "duration-ms", &options.durationMs, &error) ||
        !parseNumber(args, "delay-ms", &options.delayMs, &error) ||
        !parseNumber(args, "deadline-ms", &options.deadlineMs, &error) ||
        !parseNumber(args, "retries", &retries, &error) ||
        !parseLevel(args, "host-level", 3, &options.hostTracerLevel, &error) ||
        !parseLevel(args, "device-level", 1, &options.deviceTracerLevel, &error) ||
        !parseLevel(args, "python-level", 1, &options.pythonTracerLevel, &error))
        return fail("capture: " + error, kExitUsage);
    if (retries > 100)
        return fail("capture: --retries must be at most 100", kExitUsage);
    options.retries = int(retries);
    core::Result<bool> valid = capture::validateOptions(options);
    if (!valid)
        return fail("capture: " + valid.message(), kExitUsage);

    capture::CaptureSession session(options);
    const bool quiet = args.has("quiet");
    std::vector<capture::CaptureState> shown(options.addresses.size(),
                                             capture::CaptureState::Idle);
    session.setProgressCallback([&](const capture::CaptureSnapshot &s) {
        for (size_t i = 0; i < s.hosts.size() && !quiet; ++i) {
            const capture::HostProgress &h = s.hosts[i];
            if (h.state == shown[i] || capture::isFinal(h.state))
                continue;
            shown[i] = h.state;
            std::fprintf(stderr, "%s: %s (attempt %d)\n", h.address.c_str(),
                         capture::stateName(h.state), h.attempt);
        }
    });
    const capture::CaptureResult result = session.run();
    if (result.hosts.empty())
        return fail("capture: " + result.message);
    std::fputs(capture::resultReport(result).c_str(), stdout);
    if (result.savedCount() == int(result.hosts.size()))
        return kExitOk;
    return fail("capture: " + std::to_string(result.hosts.size() - result.savedCount()) +
                " of " + std::to_string(result.hosts.size()) + " host(s) not captured");
}

int runServe(int argc, char **argv)
{
    const std::vector<OptionSpec> specs = {
        {"port", true},         {"bind", true},   {"empty", false},
        {"fail", true},         {"hang", false},  {"unavailable", false},
        {"server-side-write", false}, {"help", false}};
    ParsedArgs args;
    std::string error;
    if (!parseArgs(argc, argv, 2, specs, &args, &error))
        return fail("serve: " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("%s\n", kServeUsage);
        return kExitOk;
    }
    unsigned long long port = 0;
    if (args.positional.size() != 1 || !args.has("port") ||
        !parseCount(args.value("port"), &port) || port > 65535)
        return fail("serve: expected FILE and --port P (0 to 65535)", kExitUsage);
    capture::ServeOptions options;
    options.xspacePath = args.positional[0];
    options.port = int(port);
    options.bindAddress = args.value("bind", "127.0.0.1");
    int modes = 0;
    auto mode = [&](const char *flag, capture::ServeMode m) {
        if (args.has(flag)) {
            options.mode = m;
            ++modes;
        }
    };
    mode("empty", capture::ServeMode::Empty);
    mode("fail", capture::ServeMode::Fail);
    mode("hang", capture::ServeMode::Hang);
    mode("unavailable", capture::ServeMode::Unavailable);
    mode("server-side-write", capture::ServeMode::ServerSideWrite);
    if (modes > 1)
        return fail("serve: choose at most one of --empty, --fail, --hang, --unavailable, "
                    "--server-side-write", kExitUsage);
    if (args.has("fail"))
        options.failText = args.value("fail");
    options.log = [](const std::string &line) {
        std::fprintf(stderr, "serve: %s\n", line.c_str());
    };

    // Wait for Ctrl-C / SIGTERM with sigwait: the mask is set before gRPC starts its threads so
    // the signal always reaches this one.
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGINT);
    sigaddset(&stopSignals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

    capture::RecordedProfilerServer server(options);
    core::Result<int> started = server.start();
    if (!started)
        return fail("serve: " + started.message());
    std::printf("listening on %s:%d\n", options.bindAddress.c_str(), started.value());
    std::fflush(stdout);
    int signal = 0;
    sigwait(&stopSignals, &signal);
    std::fprintf(stderr, "serve: stopping (%d Profile calls answered)\n", server.profileCalls());
    server.stop();
    return kExitOk;
}

} // namespace tracedesk::cli
