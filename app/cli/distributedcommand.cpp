#include "commands.h"
#include "distributedfiles.h"
#include "distributedmap.h"
#include "distributedtext.h"
#include "jsonout.h"
#include "options.h"

#include "core/analysis/distributed/distributedsummary.h"
#include "core/analysis/distributed/summaryreduce.h"
#include "core/io/runranks.h"

#include <cstdio>

namespace tracedesk::cli {

using namespace core::analysis::distributed;

const char *const kDistributedUsage =
    "  distributed DIR|FILES... [--json] [--jobs N] [--limit N] [--no-cache]\n"
    "              [--memory-limit BYTES] [--align-step N] [--ranks LIST]\n"
    "      Distributed summary of a run of PyTorch profiler rank traces (one file per rank;\n"
    "      DIR = every *.json, *.json.gz, *.json.zst in it, e.g. *.pt.trace.json.gz). Ranks load\n"
    "      one at a time (--jobs N: N at once), so a run larger than memory completes. Per\n"
    "      rank: steps, kernels, computation, communication, overlap, exposed communication and\n"
    "      idle kernel time (µs). Collectives: the k-th communication kernel of a name on every\n"
    "      rank is one collective; start / end spread across ranks, the last-arriving rank.\n"
    "      Stragglers: ranks by the waiting they caused. --json keys: ranks[] (rank, file,\n"
    "      step_count, kernel_count, communication_kernel_count, computation_us,\n"
    "      communication_us, overlap_us, exposed_communication_us, idle_us), collectives[]\n"
    "      (index, name, ranks = how many ranks have it, start_spread_us, end_spread_us,\n"
    "      last_rank), stragglers[] (rank, waiting_caused_us), errors[] (file, message).\n"
    "      Also: ranks[].steps[] (step, start_us, step_time_us and the same five times within\n"
    "      the step), collective_stats[] (name, kind, count, total_us, mean_us, bytes or null,\n"
    "      per_rank[]). --align-step N: move each rank so its ProfilerStep#N starts where the\n"
    "      earliest rank's does (when the ranks' clocks disagree).\n"
    "      An XSpace run folder (*.xplane.pb, one host each) is summarised the same way, one\n"
    "      rank per host (communication ops by name: nccl, all-reduce, all-gather, ...).\n"
    "      Without --json: tables of the ranks, of every rank's steps, of the collectives\n"
    "      (--limit N of them, default 20) and of the collective stats per name (sizes from the\n"
    "      kernels' collective args, else record_param_comms or the nccl: annotation that\n"
    "      launched them), then the stragglers. --memory-limit: the memory one rank's load\n"
    "      may take (BYTES may end in k or M = 10^3, 10^6; default: what the machine has\n"
    "      available). --ranks LIST: summarise only these ranks (e.g. 0-3,17; a rank is its\n"
    "      distributedInfo rank, else the one in the file name, else the file's position);\n"
    "      default: every rank.\n"
    "  distributed --map FILE --out DIR [--cache] [--memory-limit BYTES]\n"
    "      Map step for a run too big for one machine: summarise one rank's trace into\n"
    "      DIR/NAME.tdsummary (a small versioned JSON file: the trace's path, size and\n"
    "      modification time, its steps, kernel times and collectives). Run it once per rank,\n"
    "      anywhere the traces are (a Slurm array, GNU parallel, a Kubernetes indexed job; see\n"
    "      the README). --cache also keeps the rank's store in the store cache. A trace that\n"
    "      cannot be loaded still gets a summary holding its error; the exit status is then 1.\n"
    "  distributed --reduce DIR [--json] [--limit N] [--align-step N] [--jobs N]\n"
    "      Reduce step: the distributed summary of the run from the summary files in DIR,\n"
    "      without opening a trace; it equals `distributed` on the traces' folder. A summary\n"
    "      that is missing, damaged or of another version is listed in errors[] by its path.";

namespace {

double us(core::TimePs ps)
{
    return double(ps) / 1e6;
}

void printJson(const DistributedSummary &d)
{
    JsonOut j;
    j.beginObject().beginArray("ranks");
    for (const RankSummary &r : d.ranks) {
        j.beginObject().value("rank", r.rank).value("file", r.file)
            .value("rank_source", r.rankSource)
            .value("step_count", int64_t(r.stepCount)).value("kernel_count", r.kernelCount)
            .value("communication_kernel_count", r.communicationKernelCount)
            .value("computation_us", us(r.computation))
            .value("communication_us", us(r.communication))
            .value("overlap_us", us(r.overlap))
            .value("exposed_communication_us", us(r.exposedCommunication))
            .value("idle_us", us(r.idle))
            .value("clock_shift_us", us(r.clockShift)).beginArray("steps");
        for (const RankStep &st : r.steps) {
            j.beginObject().value("step", st.name)
                .value("start_us", us(st.start + r.clockShift))
                .value("step_time_us", us(st.duration()))
                .value("computation_us", us(st.computation))
                .value("communication_us", us(st.communication))
                .value("overlap_us", us(st.overlap))
                .value("exposed_communication_us", us(st.exposedCommunication))
                .value("idle_us", us(st.idle)).endObject();
        }
        j.endArray().endObject();
    }
    j.endArray().beginArray("collectives");
    for (const MatchedCollective &c : d.collectives) {
        j.beginObject().value("index", uint64_t(c.index)).value("name", c.name)
            .value("kind", c.kind).value("occurrence", uint64_t(c.occurrence))
            .value("ranks", uint64_t(c.ranks.size()))
            .value("start_spread_us", us(c.startSpread)).value("end_spread_us", us(c.endSpread))
            .value("last_rank", c.lastRank).value("waiting_caused_us", us(c.waitingCaused));
        if (c.bytes >= 0)
            j.value("bytes", c.bytes);
        else
            j.null("bytes");
        j.endObject();
    }
    j.endArray().beginArray("stragglers");
    for (const Straggler &s : d.stragglers) {
        j.beginObject().value("rank", s.rank).value("waiting_caused_us", us(s.waitingCaused))
            .value("collectives_last", uint64_t(s.collectivesLast)).endObject();
    }
    j.endArray().beginArray("collective_stats");
    auto counts = [&j](const CollectiveCount &c) {
        j.value("count", c.count).value("total_us", us(c.total)).value("mean_us", us(c.mean()));
        if (c.bytes >= 0)
            j.value("bytes", c.bytes);
        else
            j.null("bytes");
    };
    for (const CollectiveStats &s : d.collectiveStats) {
        j.beginObject().value("name", s.name).value("kind", s.kind);
        counts(s.all);
        j.beginArray("per_rank");
        for (const CollectiveCount &c : s.perRank) {
            j.beginObject().value("rank", c.rank);
            counts(c);
            j.endObject();
        }
        j.endArray().endObject();
    }
    j.endArray();
    if (d.alignStep.empty())
        j.null("align_step");
    else
        j.value("align_step", d.alignStep);
    j.beginArray("errors");
    for (const RankError &e : d.errors)
        j.beginObject().value("file", e.file).value("message", e.message).endObject();
    j.endArray().beginArray("warnings");
    for (const std::string &w : d.warnings)
        j.value({}, w);
    j.endArray().endObject();
    std::printf("%s\n", j.text().c_str());
}

} // namespace

int runDistributed(int argc, char **argv)
{
    ParsedArgs args;
    std::string error;
    const std::vector<OptionSpec> specs = {{"json", false},       {"jobs", true},
                                           {"limit", true},       {"no-cache", false},
                                           {"help", false},       {"memory-limit", true},
                                           {"align-step", true},  {"ranks", true},
                                           {"map", true},         {"out", true},
                                           {"cache", false},      {"reduce", true}};
    if (!parseArgs(argc, argv, 2, specs, &args, &error))
        return fail("distributed: " + error, kExitUsage);
    if (args.has("help")) {
        std::printf("%s\n", kDistributedUsage);
        return kExitOk;
    }
    if (args.has("map"))
        return runDistributedMap(args);
    if (args.has("out") || args.has("cache"))
        return fail("distributed: --out and --cache go with --map", kExitUsage);
    const bool reduce = args.has("reduce");
    if (!reduce && args.positional.empty())
        return fail("distributed: expected a DIR or one or more FILES", kExitUsage);
    unsigned long long jobs = 1;
    if (args.has("jobs") && (!parseCount(args.value("jobs"), &jobs) || jobs == 0 || jobs > 64))
        return fail("distributed: --jobs wants a number from 1 to 64", kExitUsage);
    unsigned long long limit = 20;
    if (args.has("limit") && !parseCount(args.value("limit"), &limit))
        return fail("distributed: --limit wants a number", kExitUsage);
    SummarizeOptions summarize;
    summarize.parallel = unsigned(jobs);
    if (args.has("align-step")) {
        summarize.alignStep = args.value("align-step");
        if (summarize.alignStep.empty())
            return fail("distributed: --align-step wants a step number", kExitUsage);
    }

    DistributedSummary summary;
    if (reduce) {
        if (args.has("ranks") || args.has("memory-limit") || args.has("no-cache"))
            return fail("distributed: --reduce reads summaries only; --ranks, --memory-limit and "
                        "--no-cache go with the traces",
                        kExitUsage);
        std::vector<std::string> paths{args.value("reduce")};
        paths.insert(paths.end(), args.positional.begin(), args.positional.end());
        std::vector<std::string> summaries;
        if (!collectSummaryFiles(paths, &summaries, &error))
            return fail("distributed: " + error);
        summary = reduceSummaries(summaries, summarize.alignStep, summarize.parallel);
    } else {
        std::vector<std::string> files;
        if (!collectRankFiles(args.positional, &files, &error))
            return fail("distributed: " + error);
        core::LoadOptions load = loadOptionsFrom(args);
        if (args.has("memory-limit")) {
            unsigned long long bytes = 0;
            if (!parseCount(args.value("memory-limit"), &bytes) || bytes == 0)
                return fail("distributed: --memory-limit wants a byte count, e.g. 512M",
                            kExitUsage);
            load.memoryLimitBytes = bytes;
        }
        if (args.has("ranks")) {
            auto ranks = core::parseRankList(args.value("ranks"));
            if (!ranks)
                return fail("distributed: --ranks: " + ranks.message(), kExitUsage);
            const std::string run = args.positional.size() == 1
                                        ? args.positional.front()
                                        : std::string("the files given");
            if (auto picked = core::selectRanks(core::runFiles(files), ranks.value(), run);
                !picked)
                return fail("distributed: " + picked.message());
            load.ranks = ranks.value();
        }
        summary = summarizeRun(files, nullptr, load, summarize);
    }
    if (args.has("json"))
        printJson(summary);
    else
        printDistributedText(summary, size_t(limit));
    if (summary.ranks.empty())
        return fail("distributed: no rank could be summarised");
    return kExitOk;
}

} // namespace tracedesk::cli
