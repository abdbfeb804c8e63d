// The synthetic data-parallel job behind generateKinetoRun(): an MLP of a few square layers, its
// parameters sharded (an all-gather before the forward pass) and its gradients all-reduced in
// buckets during the backward pass. The ranks advance together one collective at a time so
// that each collective's end can depend on when the last rank arrives.

#include "core/generate/kinetorungenerator.h"

#include "core/generate/kinetoemitter.h"
#include "core/generate/kinetomodel.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>

namespace tracedesk::core {

namespace {

using namespace generator;

constexpr uint64_t kFirstStep = 1;
constexpr int64_t kUs = 1000;
constexpr int kMaxRanks = 4096;
constexpr HostThread M = HostThread::Main;
constexpr GpuQueue kComputeQueue{0, 7}, kNcclQueue{0, 20};
constexpr double kSlowFactor = 1.30;  // the slow rank's compute
constexpr int64_t kJitterPpm = 30000; // every rank's compute: nominal ±3 %
constexpr int64_t kBytesPerNs = 80;   // NCCL bus bandwidth (80 GB/s)
constexpr int64_t kBatch = 64;

constexpr KernelSpec kNcclAllGather = {
    "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
    {512, 1, 1},
    96,
    42024,
    0,
    0};

enum class Collective : uint8_t { AllGather, AllReduce };

struct ComputeKernel
{
    std::string_view op;
    const KernelSpec *spec;
    std::array<int64_t, 3> grid;
    int64_t nominalNs;
};

// The compute a rank does before a collective, and the collective.
struct Segment
{
    std::vector<ComputeKernel> compute;
    Collective kind = Collective::AllReduce;
    int64_t inElements = 0;
    int64_t outElements = 0;
    int64_t transferNs = 0;
};

// The network, the same on every rank (from the seed).
struct RunModel
{
    int64_t hidden = 0;
    int layers = 0;
    int buckets = 0;
    int64_t layerParameters() const { return hidden * hidden + hidden; }
};

// One rank's process: its writer, its counts and the emitter writing through both.
struct RankProcess
{
    RankProcess(const std::string &path, const KinetoTraceStats &initial, uint64_t seed)
        : writer(path)
        , stats(initial)
        , emit(writer, stats, kA100, seed, initial.cpuPid, initial.beginNs)
    {}
    KinetoJsonWriter writer;
    KinetoTraceStats stats;
    KinetoEmitter emit;
    int rank = 0;
    int64_t offsetNs = 0; // this rank's clock origin after the run's: absolute = local + offset
    double factor = 1.0;  // the slow rank's compute factor
    std::unique_ptr<SplitMix> jitter;
    KernelLaunch pending;   // the collective launched, not yet placed
    int64_t readyLocal = 0; // when it could start on this rank's GPU
};

class Run
{
public:
    Run(const KinetoRunOptions &options, int64_t runBaseNs)
        : m_options(options)
        , m_base(runBaseNs)
    {
        m_model.hidden = 1024 + 512 * int64_t(options.seed % 4);
        m_model.layers = 6 + int(options.seed % 3);
        m_model.buckets = 3;
    }

    Result<bool> open(const std::vector<std::string> &paths, int slowRank);
    void run();
    Result<KinetoRunStats> finish(const std::vector<std::string> &paths, int slowRank);

private:
    void step(uint64_t number);
    std::vector<Segment> planStep();
    void compute(RankProcess &p, const ComputeKernel &k);
    void collective(const Segment &s);
    std::string collectiveArgs(const Segment &s, int rank) const;

    const KinetoRunOptions &m_options;
    const int64_t m_base;
    RunModel m_model;
    SplitMix m_plan{0};
    std::vector<std::unique_ptr<RankProcess>> m_ranks;
    std::string m_rankList;
    uint64_t m_steps = 0;
    uint64_t m_collectives = 0;
};

Result<bool> Run::open(const std::vector<std::string> &paths, int slowRank)
{
    const int n = m_options.ranks;
    m_plan = SplitMix(m_options.seed * 0x2545f4914f6cdd1dull + 17);
    m_rankList = rankListJson(n);
    for (int r = 0; r < n; ++r) {
        auto jitter = std::make_unique<SplitMix>(m_options.seed * 1000003ull + uint64_t(r) + 1);
        KinetoTraceStats initial;
        initial.firstStep = kFirstStep;
        initial.gpus = 1;
        const int64_t offset = jitter->ns(-250 * kUs, 250 * kUs);
        initial.baseTimeNs = m_base + offset;
        initial.cpuPid = 3000 + 97 * int64_t(r) + int64_t(m_options.seed % 89);
        // The profilers start within 50 µs of one another on the absolute clock.
        initial.beginNs = 1000 * kUs - offset + jitter->ns(0, 50 * kUs);
        auto p = std::make_unique<RankProcess>(paths[size_t(r)], initial,
                                               m_options.seed * 7919 + uint64_t(r));
        p->rank = r;
        p->offsetNs = offset;
        p->factor = r == slowRank ? kSlowFactor : 1.0;
        p->jitter = std::move(jitter);
        auto opened = p->writer.open(kinetoHeader(1, initial.baseTimeNs, r, n));
        if (!opened)
            return opened.error();
        KinetoEmitter &e = p->emit;
        const int64_t pid = initial.cpuPid;
        e.processMetadata(pid, "CPU", pid);
        e.threadMetadata(pid, e.tid(M), "thread " + std::to_string(e.tid(M)) + " (python)");
        e.processMetadata(0, "GPU 0", 5000000);
        for (const GpuQueue q : {kComputeQueue, kNcclQueue})
            e.threadMetadata(0, q.stream, "stream " + std::to_string(q.stream));
        e.windowStart();
        m_ranks.push_back(std::move(p));
    }
    return true;
}

void Run::run()
{
    m_steps = runStepsUntil(m_ranks.front()->writer, m_options.eventsPerRank, kFirstStep,
                            [this](uint64_t n) { step(n); });
}

std::vector<Segment> Run::planStep()
{
    const RunModel &m = m_model;
    const int64_t n = m_options.ranks;
    const std::array<int64_t, 3> gemmGrid{ceilDiv(m.hidden, 64), ceilDiv(kBatch, 64), 4};
    const std::array<int64_t, 3> elementwise = elementwiseGrid(kBatch * m.hidden);
    std::vector<Segment> plan;

    // Normalise the batch, then gather the parameter shards (BFloat16). The compute is long
    // enough that the slow rank's 30 % outweighs the ranks' host-side jitter after the step's
    // synchronisation (a few µs), so it arrives last here too.
    Segment gather;
    gather.compute.push_back(
        {"aten::layer_norm", &kAddForward, elementwise, m_plan.ns(150 * kUs, 300 * kUs)});
    gather.kind = Collective::AllGather;
    gather.inElements = ceilDiv(m.layerParameters() * m.layers, n);
    gather.outElements = gather.inElements * n;
    gather.transferNs =
        2 * gather.outElements * (n - 1) / n / kBytesPerNs + m_plan.ns(8 * kUs, 20 * kUs);
    plan.push_back(std::move(gather));

    // Forward, then the backward layer by layer; a bucket's all-reduce once its layers are done.
    Segment s;
    for (int l = 0; l < m.layers; ++l) {
        s.compute.push_back({"aten::addmm", l % 2 ? &kGemmVolta : &kGemmTensor, gemmGrid,
                             m_plan.ns(120 * kUs, 300 * kUs)});
        if (l + 1 < m.layers)
            s.compute.push_back({"aten::relu", &kRelu, elementwise, m_plan.ns(10 * kUs, 25 * kUs)});
    }
    const int perBucket = (m.layers + m.buckets - 1) / m.buckets;
    for (int b = 0; b < m.buckets; ++b) {
        const int first = m.layers - 1 - b * perBucket;
        const int last = std::max(0, first - perBucket + 1);
        for (int l = first; l >= last; --l) {
            s.compute.push_back(
                {"aten::mm", &kGemmBackward, gemmGrid, m_plan.ns(150 * kUs, 350 * kUs)});
            s.compute.push_back(
                {"aten::mm", &kGemmWeight, gemmGrid, m_plan.ns(150 * kUs, 350 * kUs)});
        }
        s.kind = Collective::AllReduce;
        s.inElements = m.layerParameters() * (first - last + 1);
        s.outElements = s.inElements;
        s.transferNs =
            2 * 4 * s.inElements * (n - 1) / n / kBytesPerNs + m_plan.ns(10 * kUs, 30 * kUs);
        plan.push_back(std::move(s));
        s = Segment();
    }
    return plan;
}

void Run::compute(RankProcess &p, const ComputeKernel &k)
{
    KinetoEmitter &e = p.emit;
    e.open(M, k.op, OpCategory::CpuOp);
    const KernelLaunch launch = e.launchKernel(M);
    const int64_t start = e.readyAt(kComputeQueue, launch.earliest) + p.jitter->ns(800, 2500);
    const int64_t ppm = 1000000 + p.jitter->ns(-kJitterPpm, kJitterPpm);
    const int64_t duration = int64_t(double(k.nominalNs) * p.factor) * ppm / 1000000;
    e.placeKernel(launch, kComputeQueue, *k.spec, k.grid, start, duration);
    e.close(M);
}

std::string Run::collectiveArgs(const Segment &s, int rank) const
{
    KinetoArgs a;
    a.string("Collective name", s.kind == Collective::AllGather ? "allgather" : "allreduce")
        .string("dtype", s.kind == Collective::AllGather ? "BFloat16" : "Float")
        .integer("In msg nelems", s.inElements)
        .integer("Out msg nelems", s.outElements)
        .integer("Group size", m_options.ranks)
        .string("Process Group Name", "0")
        .string("Process Group Description", "default_pg")
        .string("Process Group Ranks", m_rankList);
    if (rank >= 0)
        a.integer("Rank", rank);
    return a.text();
}

// Every rank launches the collective; it ends on all of them `transferNs` after the last one
// could start it (absolute clock), so each rank's kernel spans its own wait plus the transfer.
void Run::collective(const Segment &s)
{
    const bool gather = s.kind == Collective::AllGather;
    const KernelSpec &spec = gather ? kNcclAllGather : kNcclAllReduce;
    int64_t lastArrival = INT64_MIN;
    for (auto &p : m_ranks) {
        for (const ComputeKernel &k : s.compute)
            compute(*p, k);
        const std::string opArgs = collectiveArgs(s, p->rank);
        OpArgs comms;
        comms.inputDims = "[[]]";
        comms.inputTypes = "[\"TensorList\"]";
        comms.extra = opArgs;
        p->emit.open(M, gather ? "nccl:all_gather" : "nccl:all_reduce", OpCategory::UserAnnotation);
        p->emit.open(M, "record_param_comms", OpCategory::CpuOp, comms);
        p->pending = p->emit.launchKernel(M);
        p->readyLocal = p->emit.readyAt(kNcclQueue, p->pending.earliest);
        lastArrival = std::max(lastArrival, p->readyLocal + p->offsetNs);
    }
    const int64_t end = lastArrival + s.transferNs;
    const std::string kernelArgs = collectiveArgs(s, -1);
    for (auto &p : m_ranks) {
        // The ranks see the last chunk land within a few µs of one another.
        const int64_t start = p->readyLocal;
        const int64_t rankEnd = end - p->offsetNs + p->jitter->ns(0, 3 * kUs);
        p->emit.placeKernel(p->pending, kNcclQueue, spec, {2, 1, 1}, start, rankEnd - start,
                            kernelArgs);
        p->emit.close(M);
        p->emit.close(M);
    }
    ++m_collectives;
}

void Run::step(uint64_t number)
{
    const std::vector<Segment> plan = planStep();
    const std::string name = "ProfilerStep#" + std::to_string(number);
    for (auto &p : m_ranks)
        p->emit.open(M, name, OpCategory::UserAnnotation);
    for (const Segment &s : plan)
        collective(s);
    const std::array<int64_t, 3> grid{
        std::min<int64_t>(ceilDiv(m_model.layerParameters(), 65536), 320), 1, 1};
    const ComputeKernel update{"aten::_foreach_add_", &kMultiTensorAdd, grid,
                               m_plan.ns(30 * kUs, 60 * kUs)};
    const int64_t pause = m_plan.ns(5 * kUs, 20 * kUs); // the same on every rank
    for (auto &p : m_ranks) {
        p->emit.open(M, "Optimizer.step#SGD.step", OpCategory::UserAnnotation);
        compute(*p, update);
        p->emit.close(M);
        // loss.item(): the host waits for the GPU once per step.
        p->emit.open(M, "aten::item", OpCategory::CpuOp);
        p->emit.streamSync(M, kComputeQueue);
        p->emit.close(M);
        p->emit.close(M); // the step
        p->emit.advance(M, pause);
    }
}

Result<KinetoRunStats> Run::finish(const std::vector<std::string> &paths, int slowRank)
{
    KinetoRunStats out;
    out.files = paths;
    out.slowRank = slowRank;
    out.steps = m_steps;
    out.collectivesPerRank = m_collectives;
    for (auto &p : m_ranks) {
        KinetoEmitter &e = p->emit;
        p->stats.endNs = e.endWindowAfterWork(M);
        p->stats.steps = m_steps;
        auto written = p->writer.finish(
            kinetoTrailer(p->stats.cpuPid, p->stats.baseTimeNs + p->stats.beginNs));
        if (!written)
            return written.error();
        p->stats.events = p->writer.events();
        p->stats.fileBytes = written.value();
        out.events += p->stats.events;
        out.fileBytes += p->stats.fileBytes;
        out.ranks.push_back(p->stats);
        p.reset(); // closes nothing more; frees the write buffer
    }
    return out;
}

} // namespace

std::string kinetoRankFileName(int rank, int64_t stamp)
{
    return "rank-" + std::to_string(rank) + "." + std::to_string(stamp) + ".pt.trace.json";
}

Result<KinetoRunStats> generateKinetoRun(const KinetoRunOptions &options, const std::string &dir)
{
    namespace fs = std::filesystem;
    if (options.ranks < 1 || options.ranks > kMaxRanks)
        return Error{"ranks must be between 1 and " + std::to_string(kMaxRanks)};
    const int slowRank = options.slowRank < 0 ? options.ranks / 2 : options.slowRank;
    if (slowRank >= options.ranks)
        return Error{"the slow rank " + std::to_string(slowRank) + " is not below the " +
                     std::to_string(options.ranks) + " ranks"};
    const int64_t runBase = 1700000000000000000ll + int64_t(options.seed % 86400) * 1000000000ll;
    const int64_t stamp = runBase / 1000000; // ms, as Kineto names its files
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        return Error{dir + ": " + ec.message()};
    std::vector<std::string> paths;
    for (int r = 0; r < options.ranks; ++r) {
        paths.push_back((fs::path(dir) / kinetoRankFileName(r, stamp)).string());
        if (!options.overwrite && fs::exists(paths.back(), ec))
            return Error{paths.back() + ": already exists (use --force to overwrite)"};
    }
    Run run(options, runBase);
    auto opened = run.open(paths, slowRank);
    if (!opened)
        return opened.error();
    run.run();
    return run.finish(paths, slowRank);
}

} // namespace tracedesk::core
