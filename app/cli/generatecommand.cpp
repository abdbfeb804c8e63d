#include "commands.h"
#include "jsonout.h"
#include "options.h"

#include "core/io/generator.h"

#include <cstdio>
#include <filesystem>

namespace tracedesk::cli {

const char *const kGenerateUsage =
    "  generate --events N --format xspace|json|kineto [--seed S] [--force] [--json] OUT\n"
    "      Write a deterministic synthetic training trace of about N events (N may end in k or\n"
    "      M). The same seed gives a byte-identical file. Refuses to overwrite OUT without\n"
    "      --force. kineto writes a PyTorch profiler trace (*.pt.trace.json content: steps,\n"
    "      ops, CUDA launches, kernels on two GPUs, memory events, flows); its event count\n"
    "      includes metadata and flow records.";

int runGenerate(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    const std::vector<OptionSpec> specs = {{"events", true}, {"format", true}, {"seed", true},
                                           {"force", false}, {"json", false},  {"help", false}};
    if (!parseArgs(argc, argv, 2, specs, &args, &error))
        return fail("generate: " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("Usage:\n%s\n", kGenerateUsage);
        return kExitOk;
    }
    if (args.positional.size() != 1)
        return fail("generate: expected exactly one output file (try generate --help)", kExitUsage);
    core::GeneratorOptions options;
    unsigned long long n = 0;
    if (!args.has("events") || !parseCount(args.value("events"), &n) || n == 0)
        return fail("generate: --events needs a positive count, e.g. --events 1M", kExitUsage);
    options.events = n;
    if (!core::parseGeneratedFormat(args.value("format", "xspace"), &options.format))
        return fail("generate: unknown --format '" + args.value("format")
                        + "' (xspace, json or kineto)",
                    kExitUsage);
    unsigned long long seed = 1;
    if (args.has("seed") && !parseCount(args.value("seed"), &seed))
        return fail("generate: --seed needs a non-negative integer", kExitUsage);
    options.seed = seed;

    const std::string out = args.positional.front();
    std::error_code ec;
    if (std::filesystem::exists(out, ec) && !args.has("force"))
        return fail(out + ": already exists (use --force to overwrite)");
    auto stats = core::generateTrace(options, out);
    if (!stats)
        return fail(stats.message());
    const core::GeneratedTraceStats &s = stats.value();
    if (args.has("json")) {
        JsonOut json;
        json.beginObject()
            .value("file", out)
            .value("file_bytes", s.fileBytes)
            .value("events", s.events)
            .value("slices", s.slices)
            .value("counter_samples", s.counterSamples)
            .value("flows", s.flows)
            .value("steps", s.steps)
            .value("time_span_ps", s.end - s.begin)
            .beginArray("plane_list");
        for (const auto &p : s.planes) {
            json.beginObject()
                .value("name", p.name)
                .value("tracks", p.tracks)
                .value("events", p.events())
                .endObject();
        }
        json.endArray().endObject();
        std::printf("%s\n", json.text().c_str());
    } else {
        std::printf("%s: %llu events (%llu steps, %llu flows), %llu bytes\n", out.c_str(),
                    static_cast<unsigned long long>(s.events),
                    static_cast<unsigned long long>(s.steps),
                    static_cast<unsigned long long>(s.flows),
                    static_cast<unsigned long long>(s.fileBytes));
    }
    return kExitOk;
}

} // namespace tracedesk::cli
