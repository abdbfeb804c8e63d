#include "core/generate/xspacerungenerator.h"

#include "core/generate/kinetoemitter.h"
#include "core/generate/xspacewriter.h"

#include <algorithm>
#include <filesystem>
#include <memory>

namespace tracedesk::core {

namespace {

using generator::SplitMix;

constexpr int kMaxRanks = 4096;
constexpr int64_t kUs = 1000;             // ns
constexpr int kBucketsPerStep = 4;
constexpr int kKernelsPerBucket = 8;
constexpr uint64_t kEventsPerStep = 1 + kBucketsPerStep * (kKernelsPerBucket + 1);
constexpr int64_t kRunStartNs = 1000'000'000'000; // 1000 s: relative, so picoseconds fit
constexpr const char *kComputeNames[] = {"volta_sgemm_128x64_nn", "elementwise_kernel",
                                         "vectorized_layer_norm_kernel", "softmax_warp_forward"};
constexpr const char *kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

struct Host
{
    std::unique_ptr<XSpaceWriter> writer;
    std::unique_ptr<SplitMix> jitter;
    int64_t startNs = 0; // absolute start of the host's clock
    int64_t nowNs = 0;   // absolute time the host has reached
    uint32_t gpu = 0, steps = 0, compute = 0, comm = 0, task = 0;
    int64_t computeKinds[4] = {};
    int64_t commKind = 0;
    uint64_t events = 0;

    void add(uint32_t line, int64_t kind, int64_t startNs, int64_t endNs)
    {
        writer->addEvent(line, kind, (startNs - this->startNs) * 1000, (endNs - startNs) * 1000);
        ++events;
    }
};

} // namespace

std::string xspaceRankFileName(int rank)
{
    return "worker" + std::to_string(rank) + ".xplane.pb";
}

Result<XSpaceRunStats> generateXSpaceRun(const XSpaceRunOptions &options, const std::string &dir)
{
    namespace fs = std::filesystem;
    if (options.ranks < 1 || options.ranks > kMaxRanks)
        return Error{"ranks must be between 1 and " + std::to_string(kMaxRanks)};
    const int slowRank = options.slowRank < 0 ? options.ranks / 2 : options.slowRank;
    if (slowRank >= options.ranks)
        return Error{"the slow rank " + std::to_string(slowRank) + " is not below the "
                     + std::to_string(options.ranks) + " ranks"};
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        return Error{dir + ": " + ec.message()};
    XSpaceRunStats stats;
    stats.slowRank = slowRank;
    for (int r = 0; r < options.ranks; ++r) {
        stats.files.push_back((fs::path(dir) / xspaceRankFileName(r)).string());
        if (!options.overwrite && fs::exists(stats.files.back(), ec))
            return Error{stats.files.back() + ": already exists (use --force to overwrite)"};
    }

    std::vector<Host> hosts(size_t(options.ranks));
    for (int r = 0; r < options.ranks; ++r) {
        Host &h = hosts[size_t(r)];
        h.writer = std::make_unique<XSpaceWriter>(stats.files[size_t(r)]);
        if (auto opened = h.writer->open(); !opened)
            return opened.error();
        h.jitter = std::make_unique<SplitMix>(options.seed * 1000003ull + uint64_t(r) + 1);
        h.startNs = kRunStartNs + h.jitter->ns(-250 * kUs, 250 * kUs);
        // Every host begins its first step a little after the run starts.
        h.nowNs = kRunStartNs + 300 * kUs + h.jitter->ns(0, 50 * kUs);
        const uint32_t gpu = h.gpu = h.writer->addPlane(1, "/device:GPU:0");
        h.steps = h.writer->addLine(gpu, 1, "Steps", 0);
        h.compute = h.writer->addLine(gpu, 7, "Stream #7(Compute)", 0);
        h.comm = h.writer->addLine(gpu, 20, "Stream #20(nccl)", 0);
        for (int k = 0; k < 4; ++k)
            h.computeKinds[k] = h.writer->eventMetadata(gpu, kComputeNames[k]);
        h.commKind = h.writer->eventMetadata(gpu, kAllReduce);
        h.task = h.writer->addPlane(100, "Task Environment");
        h.writer->addHostname("worker" + std::to_string(r));
    }

    SplitMix plan(options.seed * 0x2545f4914f6cdd1dull + 17);
    const uint64_t steps = std::max<uint64_t>(1, options.eventsPerRank / kEventsPerStep);
    std::vector<int64_t> arrival(hosts.size());
    for (uint64_t s = 0; s < steps; ++s) {
        std::vector<int64_t> stepStart(hosts.size());
        for (size_t r = 0; r < hosts.size(); ++r)
            stepStart[r] = hosts[r].nowNs;
        for (int b = 0; b < kBucketsPerStep; ++b) {
            // The bucket's nominal kernel times, the same on every host.
            int64_t nominal[kKernelsPerBucket];
            for (int64_t &n : nominal)
                n = plan.ns(20 * kUs, 120 * kUs);
            const int64_t transfer = plan.ns(150 * kUs, 400 * kUs);
            for (size_t r = 0; r < hosts.size(); ++r) {
                Host &h = hosts[r];
                for (int k = 0; k < kKernelsPerBucket; ++k) {
                    int64_t d = nominal[k] + nominal[k] * h.jitter->ns(-30, 30) / 1000;
                    if (int(r) == slowRank)
                        d = d * 13 / 10;
                    const int64_t start = h.nowNs + h.jitter->ns(1 * kUs, 3 * kUs);
                    h.add(h.compute, h.computeKinds[k % 4], start, start + d);
                    h.nowNs = start + d;
                }
                arrival[r] = h.nowNs + h.jitter->ns(2 * kUs, 6 * kUs);
            }
            const int64_t end = *std::max_element(arrival.begin(), arrival.end()) + transfer;
            for (size_t r = 0; r < hosts.size(); ++r) {
                Host &h = hosts[r];
                const int64_t hostEnd = end + h.jitter->ns(0, 3 * kUs);
                h.add(h.comm, h.commKind, arrival[r], hostEnd);
                h.nowNs = hostEnd;
            }
        }
        for (size_t r = 0; r < hosts.size(); ++r) {
            Host &h = hosts[r];
            h.nowNs += h.jitter->ns(5 * kUs, 15 * kUs);
            const int64_t kind = h.writer->eventMetadata(h.gpu, std::to_string(s + 1));
            h.add(h.steps, kind, stepStart[r], h.nowNs);
        }
    }

    for (Host &h : hosts) {
        XStatList env;
        env.addUInt(h.writer->statMetadata(h.task, "profile_start_time"), uint64_t(h.startNs));
        env.addUInt(h.writer->statMetadata(h.task, "profile_stop_time"),
                    uint64_t(h.nowNs + 1000 * kUs));
        h.writer->setPlaneStats(h.task, env);
        auto written = h.writer->finish();
        if (!written)
            return written.error();
        stats.fileBytes += written.value();
        stats.events += h.events;
    }
    stats.steps = steps;
    stats.collectivesPerRank = steps * kBucketsPerStep;
    return stats;
}

} // namespace tracedesk::core
