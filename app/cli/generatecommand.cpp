#include "commands.h"
#include "jsonout.h"
#include "options.h"

#include "core/generate/generator.h"
#include "core/generate/kinetorungenerator.h"
#include "core/generate/xspacerungenerator.h"

#include <cstdio>
#include <filesystem>

namespace tracedesk::cli {

const char *const kGenerateUsage =
    "  generate --events N --format xspace|json|kineto [--seed S] [--force] [--json] OUT\n"
    "      Write a deterministic synthetic training trace of about N events (N may end in k or\n"
    "      M). The same seed gives a byte-identical file. Refuses to overwrite OUT without\n"
    "      --force. kineto writes a PyTorch profiler trace (*.pt.trace.json content: steps,\n"
    "      ops, CUDA launches, kernels on two GPUs, memory events, flows); its event count\n"
    "      includes metadata and flow records.\n"
    "  generate --format kineto --shape training|moe|serving [--capture FILE] --events N\n"
    "           [--seed S] [--force] [--json] OUT\n"
    "      The workload the Kineto trace records. training (default): the trace above. moe: a\n"
    "      MoE training step as recent Kineto writes it on an H800 (ProfilerStep#N; every\n"
    "      launch's External id is its correlation id; FP8 grouped GEMMs, FlashAttention-3;\n"
    "      DeepEP dispatch / combine kernels on their own stream, launched from Python under\n"
    "      dispatch(F) / combine(F) annotations with no operator around them). serving: an\n"
    "      SGLang-style server on a B300, no ProfilerStep: each iteration is a\n"
    "      step[DECODE bs=N] (every 8th step[EXTEND bs=N toks=T]) annotation holding one\n"
    "      cudaGraphLaunch from CUDAGraph.replay, its kernels sharing its correlation.\n"
    "      --capture FILE (serving only) also writes the trace of that graph's capture:\n"
    "      cudaStreamBeginCapture, one cudaLaunchKernel per graph kernel under the operator\n"
    "      that recorded it (no kernel events), cudaStreamEndCapture; open the pair with\n"
    "      kernel-stats OUT --capture FILE. Refuses an existing FILE without --force.\n"
    "  generate --format kineto --ranks N [--slow-rank R] --events E [--seed S] [--force]\n"
    "           [--json] OUTDIR\n"
    "      Write a distributed run: N Kineto rank traces OUTDIR/rank-<i>.<stamp>.pt.trace.json\n"
    "      of about E events each (the run holds about N x E). Every rank has distributedInfo\n"
    "      (nccl, rank i of N), its own clock origin, and the same NCCL all-gather / all-reduce\n"
    "      collectives; rank R (default N/2) computes 30% longer before each collective, so it\n"
    "      arrives last at every one and the others wait. Refuses existing files without\n"
    "      --force.\n"
    "  generate --format xspace --ranks N [--slow-rank R] --events E [--seed S] [--force] OUTDIR\n"
    "      The same run as N XSpace hosts OUTDIR/worker<i>.xplane.pb (an XProf run folder):\n"
    "      per host a GPU plane with Steps, compute and NCCL all-reduce streams, and its own\n"
    "      profile start time.";

namespace {

// The line both run formats print: what was written, per rank (`unit`: rank or host).
void printRunSummary(const std::string &dir, size_t files, const char *unit, int slowRank,
                     uint64_t steps, uint64_t collectivesPerRank, uint64_t events,
                     uint64_t fileBytes)
{
    std::printf("%s: %zu %ss (slow %s %d), %llu steps, %llu collectives per %s, %llu events, "
                "%llu bytes\n",
                dir.c_str(), files, unit, unit, slowRank, static_cast<unsigned long long>(steps),
                static_cast<unsigned long long>(collectivesPerRank), unit,
                static_cast<unsigned long long>(events),
                static_cast<unsigned long long>(fileBytes));
}

// --ranks with --format xspace: one host's XSpace per rank in a folder.
int generateXSpaceRun(const ParsedArgs &args, const core::RankRunOptions &run)
{
    const std::string dir = args.positional.front();
    auto stats = core::generateXSpaceRun(run, dir);
    if (!stats)
        return fail(stats.message());
    const core::XSpaceRunStats &s = stats.value();
    if (!args.has("json")) {
        printRunSummary(dir, s.files.size(), "host", s.slowRank, s.steps, s.collectivesPerRank,
                        s.events, s.fileBytes);
        return kExitOk;
    }
    JsonOut json;
    json.beginObject().value("dir", dir).value("ranks", uint64_t(s.files.size()))
        .value("slow_rank", int64_t(s.slowRank)).value("steps", s.steps)
        .value("collectives_per_rank", s.collectivesPerRank).value("events", s.events)
        .value("file_bytes", s.fileBytes).beginArray("files");
    for (const std::string &f : s.files)
        json.value({}, f);
    json.endArray().endObject();
    std::printf("%s\n", json.text().c_str());
    return kExitOk;
}

// --ranks with --format kineto: one PyTorch profiler trace per rank in a folder.
int generateKinetoRun(const ParsedArgs &args, const core::RankRunOptions &run)
{
    const std::string dir = args.positional.front();
    auto stats = core::generateKinetoRun(run, dir);
    if (!stats)
        return fail(stats.message());
    const core::KinetoRunStats &s = stats.value();
    if (!args.has("json")) {
        printRunSummary(dir, s.files.size(), "rank", s.slowRank, s.steps, s.collectivesPerRank,
                        s.events, s.fileBytes);
        return kExitOk;
    }
    JsonOut json;
    json.beginObject()
        .value("dir", dir)
        .value("ranks", uint64_t(s.files.size()))
        .value("slow_rank", int64_t(s.slowRank))
        .value("steps", s.steps)
        .value("collectives_per_rank", s.collectivesPerRank)
        .value("events", s.events)
        .value("file_bytes", s.fileBytes)
        .beginArray("files");
    for (size_t r = 0; r < s.files.size(); ++r) {
        json.beginObject()
            .value("rank", uint64_t(r))
            .value("file", s.files[r])
            .value("events", s.ranks[r].events)
            .value("file_bytes", s.ranks[r].fileBytes)
            .endObject();
    }
    json.endArray().endObject();
    std::printf("%s\n", json.text().c_str());
    return kExitOk;
}

int generateRun(const ParsedArgs &args, const core::GeneratorOptions &options)
{
    unsigned long long ranks = 0, slow = 0;
    if (!parseCount(args.value("ranks"), &ranks) || ranks == 0 || ranks > 4096)
        return fail("generate: --ranks wants a number from 1 to 4096", kExitUsage);
    if (options.format != core::GeneratedFormat::XSpace
        && options.format != core::GeneratedFormat::Kineto)
        return fail("generate: --ranks writes Kineto or XSpace runs (--format kineto|xspace)",
                    kExitUsage);
    core::RankRunOptions run;
    run.ranks = int(ranks);
    if (args.has("slow-rank")) {
        if (!parseCount(args.value("slow-rank"), &slow) || slow >= ranks)
            return fail("generate: --slow-rank wants a rank below --ranks", kExitUsage);
        run.slowRank = int(slow);
    }
    run.eventsPerRank = options.events;
    run.seed = options.seed;
    run.overwrite = args.has("force");
    return options.format == core::GeneratedFormat::XSpace ? generateXSpaceRun(args, run)
                                                           : generateKinetoRun(args, run);
}

} // namespace

int runGenerate(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    const std::vector<OptionSpec> specs = {{"events", true}, {"format", true},    {"seed", true},
                                           {"force", false}, {"json", false},     {"help", false},
                                           {"ranks", true},  {"slow-rank", true}, {"shape", true},
                                           {"capture", true}};
    if (!parseArgs(argc, argv, 2, specs, &args, &error))
        return fail("generate: " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("Usage:\n%s\n", kGenerateUsage);
        return kExitOk;
    }
    if (args.positional.size() != 1)
        return fail("generate: expected exactly one output file or, with --ranks, folder (try "
                    "generate --help)",
                    kExitUsage);
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

    if (args.has("shape")) {
        if (options.format != core::GeneratedFormat::Kineto)
            return fail("generate: --shape needs --format kineto", kExitUsage);
        if (!core::parseKinetoShape(args.value("shape"), &options.kinetoShape))
            return fail("generate: unknown --shape '" + args.value("shape")
                            + "' (training, moe or serving)",
                        kExitUsage);
        if (args.has("ranks") && options.kinetoShape != core::KinetoShape::Training)
            return fail("generate: --ranks writes training runs only (no --shape)", kExitUsage);
    }
    if (args.has("capture")) {
        if (options.kinetoShape != core::KinetoShape::Serving)
            return fail("generate: --capture needs --format kineto --shape serving", kExitUsage);
        options.capturePath = args.value("capture");
        if (options.capturePath.empty() || options.capturePath == args.positional.front())
            return fail("generate: --capture needs a file other than OUT", kExitUsage);
    }

    if (args.has("slow-rank") && !args.has("ranks"))
        return fail("generate: --slow-rank needs --ranks", kExitUsage);
    if (args.has("ranks"))
        return generateRun(args, options);

    const std::string out = args.positional.front();
    std::error_code ec;
    if (std::filesystem::exists(out, ec) && !args.has("force"))
        return fail(out + ": already exists (use --force to overwrite)");
    if (!options.capturePath.empty() && std::filesystem::exists(options.capturePath, ec)
        && !args.has("force"))
        return fail(options.capturePath + ": already exists (use --force to overwrite)");
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
            .value("time_span_ps", s.end - s.begin);
        if (!s.captureFile.empty()) {
            json.value("capture_file", s.captureFile)
                .value("capture_events", s.captureEvents)
                .value("capture_file_bytes", s.captureFileBytes);
        }
        json.beginArray("plane_list");
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
        if (!s.captureFile.empty())
            std::printf("%s: graph capture, %llu events, %llu bytes\n", s.captureFile.c_str(),
                        static_cast<unsigned long long>(s.captureEvents),
                        static_cast<unsigned long long>(s.captureFileBytes));
    }
    return kExitOk;
}

} // namespace tracedesk::cli
