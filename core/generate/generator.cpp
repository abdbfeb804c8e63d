// The synthetic workload behind generateTrace(): a data-parallel training loop, one step at a
// time, so memory stays flat whatever the event count.

#include "core/generate/generator.h"
#include "core/generate/generatorsink.h"
#include "core/generate/kinetogenerator.h"

#include <algorithm>
#include <array>

namespace tracedesk::core {

namespace {

using namespace generator;

constexpr TimePs kUs = 1000000;
constexpr TimePs kNs = 1000;
constexpr int kStreams = 2;
constexpr int64_t kDerivedLineBase = int32_t(0xdeadbeef);

// splitmix64: tiny, fast and identical on every platform, so a seed always gives the same file.
class Random
{
public:
    explicit Random(uint64_t seed) : m_state(seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull) {}
    uint64_t next()
    {
        uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return next() % n; }
    // A duration in whole nanoseconds within [lo, hi] microseconds.
    TimePs micros(int64_t lo, int64_t hi) { return (lo * 1000 + TimePs(below(uint64_t((hi - lo) * 1000 + 1)))) * kNs; }

private:
    uint64_t m_state;
};

struct FrameworkOp
{
    const char *name;
    std::array<int, 3> kernels;     // indices into kKernels
};

const KernelInfo kKernels[] = {
    {"volta_sgemm_128x64_nn", "dot.1", 268435456, 3145728},
    {"ampere_sgemm_64x32_sliced1x4_tn", "dot.2", 134217728, 2097152},
    {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)", "dot.3",
     536870912, 4194304},
    {"loop_add_fusion", "add.4", 1048576, 3145728},
    {"input_reduce_fusion_3", "reduce.5", 524288, 1048576},
    {"fusion_12", "fusion.12", 2097152, 2097152},
    {"void tensorflow::functor::BiasNHWCKernel<float>(int, float const*, float const*, float*, int)",
     "add.6", 262144, 1048576},
    {"redzone_checker", "custom-call.7", 0, 65536},
    {"void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, true>",
     "convolution.8", 1073741824, 8388608},
    {"relu_fusion", "fusion.9", 262144, 2097152},
    {"softmax_fusion_2", "fusion.10", 393216, 1572864},
    {"adam_update_fusion", "fusion.11", 786432, 6291456},
};
constexpr int kKernelCount = int(std::size(kKernels));

const FrameworkOp kOps[] = {
    {"model/conv2d/Conv2D:Conv2D", {8, 3, 7}},
    {"model/conv2d/BiasAdd:BiasAdd", {6, 3, 4}},
    {"model/conv2d/Relu:Relu", {9, 3, 5}},
    {"model/flatten/Reshape:Reshape", {5, 7, 3}},
    {"model/dense/MatMul:MatMul", {0, 2, 3}},
    {"model/dense/BiasAdd:BiasAdd", {6, 5, 4}},
    {"model/dense_1/MatMul:MatMul", {1, 0, 5}},
    {"model/dense_1/Softmax:Softmax", {10, 4, 3}},
    {"sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits:"
     "SparseSoftmaxCrossEntropyWithLogits",
     {10, 4, 5}},
    {"gradient_tape/model/dense/MatMul/MatMul_1:MatMul", {2, 1, 3}},
    {"gradient_tape/model/conv2d/Conv2DBackpropFilter:Conv2DBackpropFilter", {8, 4, 5}},
    {"Adam/Adam/update/ResourceApplyAdam:ResourceApplyAdam", {11, 3, 5}},
};
constexpr int kOpCount = int(std::size(kOps));

class Workload
{
public:
    Workload(const GeneratorOptions &options, Sink &sink)
        : m_options(options), m_sink(sink), m_random(options.seed)
    {}

    Result<GeneratedTraceStats> run();

private:
    uint32_t name(std::string text)
    {
        m_layout.names.push_back(std::move(text));
        return uint32_t(m_layout.names.size() - 1);
    }
    uint32_t line(uint32_t plane, int64_t xlineId, int64_t tid, std::string lineName)
    {
        m_layout.lines.push_back({plane, xlineId, tid, std::move(lineName)});
        m_lineHasEvents.push_back(0);
        return uint32_t(m_layout.lines.size() - 1);
    }
    void build();
    void emit(const Event &e);
    void step(int64_t index);

    const GeneratorOptions &m_options;
    Sink &m_sink;
    Random m_random;
    Layout m_layout;
    GeneratedTraceStats m_stats;
    std::vector<uint8_t> m_lineHasEvents;
    bool m_any = false;

    int m_gpus = 1;
    uint32_t m_python = 0;
    std::array<uint32_t, 2> m_iterators{};
    std::vector<uint32_t> m_launch, m_steps, m_xlaOps, m_frameworkOps;
    std::vector<std::array<uint32_t, kStreams>> m_streams;
    uint32_t m_trainStep = 0, m_eager = 0, m_prefetch = 0, m_prefetchMap = 0, m_launchName = 0;
    uint32_t m_memory = 0, m_firstOp = 0, m_firstKernel = 0, m_firstHloOp = 0;

    TimePs m_time = 1000 * kUs;
    std::array<TimePs, 2> m_iteratorFree{};
    std::vector<std::array<TimePs, kStreams>> m_streamFree;
    int64_t m_correlation = 1;
};

void Workload::build()
{
    m_gpus = m_options.events >= 4000 ? 2 : 1;
    m_layout.hloModule = "jit_train_step";
    m_layout.profileStartNs = 1700000000000000000ll + int64_t(m_options.seed % 1000000) * 1000;
    for (const KernelInfo &k : kKernels) {
        // Every kernel a GPU profiler records carries its launch configuration; XProf's kernel
        // stats take only such events for kernels.
        const size_t i = m_layout.kernels.size();
        KernelInfo withDetails = k;
        withDetails.launchDetails = "regs:" + std::to_string(32 + 8 * (i % 5)) +
                                    " static_shared:" + std::to_string((i % 3) * 4096) +
                                    " dynamic_shared:" + std::to_string(i % 4 == 0 ? 49152 : 0) +
                                    " grid:" + std::to_string(80 * (i + 1)) + ",1,1" +
                                    " block:" + std::to_string(i % 2 == 0 ? 256 : 128) + ",1,1";
        m_layout.kernels.push_back(std::move(withDetails));
    }

    m_layout.planes.push_back({"/host:CPU", 1000, 701, false});
    for (int g = 0; g < m_gpus; ++g)
        m_layout.planes.push_back({"/device:GPU:" + std::to_string(g), g, 1 + g, true});

    m_python = line(0, 1001, 1001, "python");
    for (int i = 0; i < 2; ++i)
        m_iterators[i] = line(0, 1002 + i, 1002 + i, "tf_data_iterator_" + std::to_string(i));
    for (int g = 0; g < m_gpus; ++g)
        m_launch.push_back(line(0, 1010 + g, 1010 + g, "gpu_launch_" + std::to_string(g)));
    for (int g = 0; g < m_gpus; ++g) {
        const auto plane = uint32_t(1 + g);
        m_steps.push_back(line(plane, kDerivedLineBase, 1, "Steps"));
        m_xlaOps.push_back(line(plane, kDerivedLineBase + 5, 2, "XLA Ops"));
        m_frameworkOps.push_back(line(plane, kDerivedLineBase + 3, 3, "Framework Ops"));
        std::array<uint32_t, kStreams> streams{};
        const int streamIds[kStreams] = {7, 13};
        for (int s = 0; s < kStreams; ++s) {
            streams[s] = line(plane, streamIds[s], streamIds[s],
                              "Stream #" + std::to_string(streamIds[s]) + "(Kernel)");
        }
        m_streams.push_back(streams);
        m_streamFree.push_back({});
    }

    m_trainStep = name("train_step");
    m_eager = name("EagerExecute");
    m_prefetch = name("Iterator::Prefetch");
    m_prefetchMap = name("Iterator::Prefetch::Map");
    m_launchName = name("cudaLaunchKernel");
    m_memory = name("Memory");
    m_firstOp = uint32_t(m_layout.names.size());
    for (const FrameworkOp &op : kOps)
        name(op.name);
    m_firstKernel = uint32_t(m_layout.names.size());
    for (const KernelInfo &k : kKernels)
        name(k.name);
    m_firstHloOp = uint32_t(m_layout.names.size());
    for (const KernelInfo &k : kKernels)
        name(k.hloOp);
}

void Workload::emit(const Event &e)
{
    m_sink.slice(e);
    ++m_stats.slices;
    m_lineHasEvents[e.line] = 1;
    const TimePs end = e.start + e.duration;
    m_stats.begin = m_any ? std::min(m_stats.begin, e.start) : e.start;
    m_stats.end = m_any ? std::max(m_stats.end, end) : end;
    m_any = true;
    ++m_stats.planes[m_layout.lines[e.line].plane].slices;
}

void Workload::step(int64_t s)
{
    const TimePs stepStart = m_time;
    const uint32_t stepName = name(std::to_string(s));

    if (m_sink.writesCounters()) {
        // Not drawn from m_random: both formats must produce the same slices.
        const double bytes = 2.0e9 + double(Random(m_options.seed ^ uint64_t(s)).below(1000000)) * 1024.0;
        m_sink.counter(0, m_memory, stepStart, bytes);
        ++m_stats.counterSamples;
        ++m_stats.planes[0].counterSamples;
    }

    // Host side: plan the framework ops and their launches first; train_step spans them all.
    struct Launch
    {
        TimePs start, duration;
        int kernel;
    };
    struct Op
    {
        int op;
        TimePs start, end;
        std::vector<Launch> launches;
    };
    std::vector<Op> ops(6 + m_random.below(8));
    TimePs cursor = stepStart + 3 * kUs;
    for (Op &op : ops) {
        op.op = int(m_random.below(kOpCount));
        op.start = cursor + m_random.micros(1, 5);
        TimePs t = op.start + 2 * kUs;
        const int kernels = 1 + int(m_random.below(4));
        for (int k = 0; k < kernels; ++k) {
            const TimePs d = m_random.micros(3, 8);
            op.launches.push_back({t, d, kOps[op.op].kernels[size_t(k % 3)]});
            t += d + m_random.micros(0, 2) + kNs;
        }
        op.end = t + 2 * kUs;
        cursor = op.end;
    }
    const TimePs trainEnd = cursor + 5 * kUs;
    emit({m_python, m_trainStep, -1, stepStart, trainEnd - stepStart, s, s, -1, FlowRole::None});
    for (const Op &op : ops) {
        emit({m_python, m_firstOp + uint32_t(op.op), -1, op.start, op.end - op.start, s, -1, -1,
              FlowRole::None});
        emit({m_python, m_eager, -1, op.start + kUs, op.end - op.start - 2 * kUs, -1, -1, -1,
              FlowRole::None});
    }
    for (int i = 0; i < 2; ++i) {
        const TimePs start = std::max(m_iteratorFree[i], stepStart + m_random.micros(1, 20));
        const TimePs duration = m_random.micros(20, 200);
        emit({m_iterators[i], m_prefetch, -1, start, duration, -1, -1, -1, FlowRole::None});
        emit({m_iterators[i], m_prefetchMap, -1, start + kUs, duration - 2 * kUs, -1, -1, -1,
              FlowRole::None});
        m_iteratorFree[i] = start + duration + kUs;
    }

    // Device side: every GPU runs the same kernels (data parallel), op j on stream j % 2.
    TimePs deviceEnd = trainEnd;
    for (int g = 0; g < m_gpus; ++g) {
        TimePs first = 0, last = 0;
        bool any = false;
        for (size_t j = 0; j < ops.size(); ++j) {
            const int stream = int(j % kStreams);
            TimePs opFirst = 0, opLast = 0;
            for (size_t k = 0; k < ops[j].launches.size(); ++k) {
                const Launch &l = ops[j].launches[k];
                const int64_t correlation = m_correlation++;
                emit({m_launch[size_t(g)], m_launchName, -1, l.start, l.duration, s, -1, correlation,
                      FlowRole::Out});
                TimePs &free = m_streamFree[size_t(g)][size_t(stream)];
                const TimePs start = std::max(l.start + l.duration + 4 * kUs, free + kUs);
                const TimePs duration = m_random.below(10) == 0 ? kUs : m_random.micros(1, 50);
                emit({m_streams[size_t(g)][size_t(stream)], m_firstKernel + uint32_t(l.kernel),
                      l.kernel, start, duration, s, -1, correlation, FlowRole::In});
                ++m_stats.flows;
                free = start + duration;
                if (stream == 0) {
                    emit({m_xlaOps[size_t(g)], m_firstHloOp + uint32_t(l.kernel), -1, start,
                          duration, -1, -1, -1, FlowRole::None});
                }
                opFirst = k == 0 ? start : opFirst;
                opLast = free;
                first = any ? std::min(first, start) : start;
                last = any ? std::max(last, free) : free;
                any = true;
            }
            if (stream == 0) {
                emit({m_frameworkOps[size_t(g)], m_firstOp + uint32_t(ops[j].op), -1, opFirst,
                      opLast - opFirst, s, -1, -1, FlowRole::None});
            }
        }
        emit({m_steps[size_t(g)], stepName, -1, first, last - first, s, -1, -1, FlowRole::None});
        deviceEnd = std::max(deviceEnd, last);
    }
    m_time = std::max(trainEnd + 10 * kUs, deviceEnd + 5 * kUs);
}

Result<GeneratedTraceStats> Workload::run()
{
    build();
    for (const PlaneSpec &p : m_layout.planes)
        m_stats.planes.push_back({p.name, 0, 0, 0});
    auto begun = m_sink.begin(m_layout);
    if (!begun)
        return begun.error();
    int64_t s = 0;
    do {
        step(s++);
    } while (m_stats.slices < m_options.events); // slices only: same steps in both formats
    m_stats.steps = uint64_t(s);
    m_stats.events = m_stats.slices + m_stats.counterSamples;

    auto written = m_sink.finish(m_stats.end);
    if (!written)
        return written.error();
    m_stats.fileBytes = written.value();
    for (size_t i = 0; i < m_layout.lines.size(); ++i)
        m_stats.planes[m_layout.lines[i].plane].tracks += m_lineHasEvents[i];
    if (m_stats.counterSamples > 0)
        ++m_stats.planes[0].tracks;
    return m_stats;
}

} // namespace

bool parseGeneratedFormat(const std::string &text, GeneratedFormat *format)
{
    if (text == "xspace") {
        *format = GeneratedFormat::XSpace;
        return true;
    }
    if (text == "json" || text == "chrome-json") {
        *format = GeneratedFormat::ChromeJson;
        return true;
    }
    if (text == "kineto") {
        *format = GeneratedFormat::Kineto;
        return true;
    }
    return false;
}

Result<GeneratedTraceStats> generateKinetoTraceSummary(const GeneratorOptions &options,
                                                       const std::string &path)
{
    auto generated = generateKinetoTrace(options, path);
    if (!generated)
        return generated.error();
    const KinetoTraceStats &k = generated.value();
    GeneratedTraceStats s;
    const uint64_t host =
        k.cpuOps + k.userAnnotations + k.pythonFunctions + k.runtime + k.memoryEvents;
    s.events = k.events;
    s.slices = host + k.kernels + k.memcpys + k.memsets + k.spans;
    s.flows = k.ac2gFlowEnds;
    s.steps = options.kinetoShape == KinetoShape::Serving ? k.iterations : k.steps;
    s.fileBytes = k.fileBytes;
    s.begin = k.beginNs * 1000;
    s.end = k.endNs * 1000;
    if (!options.capturePath.empty()) {
        s.captureFile = options.capturePath;
        s.captureEvents = k.captureEvents;
        s.captureFileBytes = k.captureFileBytes;
    }
    s.planes.push_back({"CPU", k.hostThreads, host, 0});
    for (size_t d = 0; d < k.deviceActivities.size(); ++d)
        s.planes.push_back(
            {"GPU " + std::to_string(d), k.deviceStreams[d], k.deviceActivities[d], 0});
    s.planes.push_back({"Spans", 1, k.spans, 0});
    return s;
}

bool parseKinetoShape(const std::string &text, KinetoShape *shape)
{
    if (text == "training")
        *shape = KinetoShape::Training;
    else if (text == "moe")
        *shape = KinetoShape::Moe;
    else if (text == "serving")
        *shape = KinetoShape::Serving;
    else
        return false;
    return true;
}

Result<GeneratedTraceStats> generateTrace(const GeneratorOptions &options, const std::string &path)
{
    if (options.format == GeneratedFormat::Kineto)
        return generateKinetoTraceSummary(options, path);
    std::unique_ptr<Sink> sink = options.format == GeneratedFormat::XSpace
                                     ? makeXSpaceSink(path)
                                     : makeChromeJsonSink(path);
    Workload workload(options, *sink);
    return workload.run();
}

} // namespace tracedesk::core
