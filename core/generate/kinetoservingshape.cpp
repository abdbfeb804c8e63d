// The synthetic workload behind KinetoShape::Serving: an SGLang-style server running a
// decoder-only model on one Blackwell GPU. Each scheduler iteration copies its inputs in,
// replays the model's forward pass as one CUDA graph, samples and copies the tokens back; the
// graph was captured once at start-up, and generateKinetoGraphCapture() writes the trace of that
// capture. The model (layers, sizes, the graph's kernels) comes from the seed, so a replay and
// its capture written with one seed belong together: the k-th launch between
// cudaStreamBeginCapture and cudaStreamEndCapture is the k-th kernel of every replay.

#include "core/generate/kinetoshapes.h"

#include "core/generate/kinetoemitter.h"
#include "core/generate/kinetomodel.h"

#include <algorithm>

namespace tracedesk::core {

namespace {

using namespace generator;

constexpr int64_t kUs = 1000;
constexpr int kPrefillEvery = 8;       // every 8th iteration admits new requests
constexpr int64_t kGraphId = 3;        // the graph of the largest captured batch size
constexpr HostThread M = HostThread::Main;
constexpr GpuQueue kForwardQueue{0, 7};
constexpr int kCbidStreamBeginCapture = 315;
constexpr int kCbidStreamEndCapture = 319;
constexpr int kCbidGraphInstantiateWithFlags = 418;

constexpr KernelSpec kRmsNorm = {
    "void vllm::rms_norm_kernel<c10::BFloat16, 8, 2>(c10::BFloat16*, c10::BFloat16 const*, long, "
    "long, long, long, long, c10::BFloat16 const*, float, int, int)",
    {256, 1, 1},
    32,
    32,
    2,
    5};
constexpr KernelSpec kFusedAddRmsNorm = {
    "std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
    "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, "
    "c10::BFloat16 const*, float, int, int)",
    {256, 1, 1},
    30,
    32,
    2,
    6};
constexpr KernelSpec kQkvGemm = {
    "nvjet_tst_64x16_64x16_2x4_2cta_h_bz_bias_TNT", {384, 1, 1}, 168, 199680, 5, 14};
constexpr KernelSpec kOutGemm = {
    "nvjet_tst_64x64_64x16_2x1_2cta_v_bz_TNT", {384, 1, 1}, 168, 196608, 4, 11};
constexpr KernelSpec kGateUpGemm = {
    "nvjet_tst_144x128_64x6_2x1_v_bz_TNN", {384, 1, 1}, 168, 215040, 9, 24};
constexpr KernelSpec kDownGemm = {
    "nvjet_tst_192x8_64x8_4x1_v_bz_TNT", {384, 1, 1}, 168, 180224, 6, 17};
constexpr KernelSpec kLmHeadGemm = {
    "nvjet_tst_256x128_64x4_2x1_v_bz_TNT", {384, 1, 1}, 168, 221184, 18, 40};
constexpr KernelSpec kRotary = {
    "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, "
    "c10::BFloat16*, c10::BFloat16 const*, int, long, long, long, int, int, int)",
    {512, 1, 1},
    28,
    0,
    2,
    5};
constexpr KernelSpec kReshapeAndCache = {
    "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, unsigned char, "
    "(vllm::Fp8KVCacheDataType)1>(__nv_bfloat16 const*, __nv_bfloat16 const*, unsigned char*, "
    "unsigned char*, long const*, long, long, long, long, long, int, int, int, float const*, "
    "float const*)",
    {512, 1, 1},
    30,
    0,
    2,
    5};
constexpr KernelSpec kAttention = {
    "fmhaSm100aKernel_QkvE4m3OBfloat16H128PagedKvCausalP32VarSeqQ8Kv128PersistentSwapsAbForGen",
    {512, 1, 1},
    128,
    180224,
    8,
    28};
constexpr KernelSpec kSiluAndMul = {
    "void vllm::act_and_mul_kernel<c10::BFloat16, &(c10::BFloat16 vllm::silu_kernel<c10::"
    "BFloat16>(c10::BFloat16 const&)), true>(c10::BFloat16*, c10::BFloat16 const*, int)",
    {1024, 1, 1},
    24,
    0,
    2,
    6};
constexpr KernelSpec kCopyLogits = {
    "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::"
    "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()"
    "#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::"
    "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()"
    "#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1}>(int, at::native"
    "::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda"
    "()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::"
    "TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()"
    "#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)"
    "::{lambda(int)#1})",
    {128, 1, 1},
    26,
    0,
    3,
    8};
// Outside the graph: sampling, and the prefill's position bookkeeping.
constexpr KernelSpec kArgmax = {
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<"
    "float>, unsigned int, long, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, "
    "unsigned int, long, 4>)",
    {32, 16, 1},
    40,
    16,
    3,
    9};
constexpr KernelSpec kCumsum = {
    "void at::native::tensor_kernel_scan_innermost_dim<int, std::plus<int> >(int*, int const*, "
    "unsigned int, unsigned int, int, std::plus<int>)",
    {16, 32, 1},
    32,
    1024,
    2,
    5};
constexpr KernelSpec kGather = {
    "void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, long, "
    "long, long, bool)",
    {128, 1, 1},
    24,
    0,
    2,
    5};

// One kernel node of the forward graph and the op that recorded it at capture.
struct ForwardNode
{
    std::string_view outerOp; // the op around `op`, e.g. aten::linear above aten::mm; may be ""
    std::string_view op;
    std::string dims; // the op's Input Dims
    GraphNode node;
};

struct ServingModel
{
    int layers = 0;
    int64_t hidden = 0;
    int64_t vocab = 152064;
    int64_t batch = 0; // the captured batch size, and the decode batch it starts from
    std::vector<ForwardNode> forward;
    std::vector<GraphNode> graph; // forward[k].node, in capture order
};

std::string dimsText(std::initializer_list<std::initializer_list<int64_t>> shapes)
{
    std::string s = "[";
    for (const auto &shape : shapes) {
        s += s.size() > 1 ? ",[" : "[";
        bool first = true;
        for (const int64_t d : shape) {
            s += (first ? "" : ",") + std::to_string(d);
            first = false;
        }
        s += ']';
    }
    return s + "]";
}

ServingModel makeServingModel(uint64_t seed)
{
    ServingModel m;
    m.layers = 2 + int(seed % 3);
    m.hidden = 2048 + 1024 * int64_t(seed / 3 % 3);
    m.batch = int64_t(16) << (seed / 9 % 3);
    const int64_t h = m.hidden, b = m.batch, heads = h / 128;
    const int64_t qkv = h + 2 * 1024, ffn = 3 * h;
    auto add = [&](std::string_view outer, std::string_view op, std::string dims,
                   const KernelSpec &k, std::array<int64_t, 3> grid) {
        m.forward.push_back({outer, op, std::move(dims), {&k, grid}});
    };
    auto mm = [&](const KernelSpec &k, int64_t n) {
        add("aten::linear", "aten::mm", dimsText({{b, h}, {h, n}}), k, {ceilDiv(n, 128), 1, 1});
    };
    for (int layer = 0; layer < m.layers; ++layer) {
        if (layer == 0)
            add({}, "_C::rms_norm", dimsText({{b, h}, {b, h}, {h}, {}}), kRmsNorm, {b, 1, 1});
        else
            add({}, "_C::fused_add_rms_norm", dimsText({{b, h}, {b, h}, {h}, {}}), kFusedAddRmsNorm,
                {b, 1, 1});
        mm(kQkvGemm, qkv);
        add({}, "_C::rotary_embedding", dimsText({{b}, {b, h}, {b, 1024}, {}, {}, {}}), kRotary,
            {b, 1, 1});
        add({}, "_C_cache_ops::reshape_and_cache_flash", dimsText({{b, 8, 128}, {b, 8, 128}}),
            kReshapeAndCache, {b, 1, 1});
        add({}, "vllm::unified_attention_with_output", dimsText({{b, h}, {b, 1024}, {b, 1024}}),
            kAttention, {heads, ceilDiv(b, 8), 1});
        mm(kOutGemm, h);
        add({}, "_C::fused_add_rms_norm", dimsText({{b, h}, {b, h}, {h}, {}}), kFusedAddRmsNorm,
            {b, 1, 1});
        mm(kGateUpGemm, 2 * ffn);
        add({}, "_C::silu_and_mul", dimsText({{b, ffn}, {b, 2 * ffn}}), kSiluAndMul, {b, 1, 1});
        mm(kDownGemm, h);
    }
    add({}, "_C::fused_add_rms_norm", dimsText({{b, h}, {b, h}, {h}, {}}), kFusedAddRmsNorm,
        {b, 1, 1});
    mm(kLmHeadGemm, m.vocab);
    add({}, "aten::copy_", dimsText({{b, m.vocab}, {b, m.vocab}, {}}), kCopyLogits,
        {elementwiseGrid(b * m.vocab)[0], 1, 1});
    for (const ForwardNode &f : m.forward)
        m.graph.push_back(f.node);
    return m;
}

KinetoHeaderSpec servingHeader()
{
    KinetoHeaderSpec spec;
    spec.gpu = &kB300;
    spec.cudaRuntimeVersion = 12090;
    spec.cudaDriverVersion = 13000;
    spec.cuptiVersion = 28;
    spec.profileMemory = false;
    spec.withStack = true;
    spec.ncclVersion = "2.27.5";
    return spec;
}

void writeMetadata(KinetoEmitter &emit, int64_t pid)
{
    emit.processMetadata(pid, "CPU", pid);
    emit.threadMetadata(pid, emit.tid(M), "thread " + std::to_string(emit.tid(M)) + " (python)");
    emit.processMetadata(0, "GPU 0", 5000000);
    emit.threadMetadata(0, kForwardQueue.stream, "stream " + std::to_string(kForwardQueue.stream));
    emit.windowStart();
}

class Server
{
public:
    Server(const GeneratorOptions &options, const ServingModel &model, KinetoJsonWriter &writer,
           KinetoTraceStats &stats)
        : m_options(options)
        , m_model(model)
        , m_writer(writer)
        , m_stats(stats)
        , m_emit(writer, stats, kB300, options.seed, stats.cpuPid, stats.beginNs)
        , m_batch(model.batch / 2 + int64_t(options.seed % 7))
    {}

    void run()
    {
        writeMetadata(m_emit, m_stats.cpuPid);
        m_stats.iterations = runStepsUntil(m_writer, m_options.events, 0,
                                           [this](uint64_t n) { iteration(n); });
        m_stats.endNs = m_emit.endWindowAfterWork(M);
    }

private:
    void iteration(uint64_t n);
    void op(std::string_view name, std::string_view dims = {})
    {
        OpArgs args;
        args.inputDims = dims;
        m_emit.open(M, name, OpCategory::CpuOp, args);
    }
    void python(std::string_view name) { m_emit.open(M, name, OpCategory::PythonFunction); }
    void close(int count = 1)
    {
        for (int i = 0; i < count; ++i)
            m_emit.close(M);
    }

    const GeneratorOptions &m_options;
    const ServingModel &m_model;
    KinetoJsonWriter &m_writer;
    KinetoTraceStats &m_stats;
    KinetoEmitter m_emit;
    int64_t m_batch;
    std::string m_name;
};

void Server::iteration(uint64_t n)
{
    SplitMix &random = m_emit.random();
    const bool prefill = n % kPrefillEvery == 0;
    int64_t batch = 0, tokens = 0;
    int scale = 100;
    if (prefill) {
        batch = 1 + int64_t(random.below(8));
        tokens = batch * random.ns(128, 2048);
        scale = 200 + int(std::min<int64_t>(tokens / 16, 1300));
        m_name =
            "step[EXTEND bs=" + std::to_string(batch) + " toks=" + std::to_string(tokens) + "]";
    } else {
        // Requests finish and join: the decode batch drifts within the captured size.
        m_batch = std::clamp<int64_t>(m_batch + random.ns(-2, 2), 1, m_model.batch);
        batch = m_batch;
        scale = 100 + int(batch * 50 / m_model.batch);
        m_name = "step[DECODE bs=" + std::to_string(batch) + "]";
    }
    const std::string ids = dimsText({{prefill ? tokens : batch}});
    m_emit.open(M, m_name, OpCategory::UserAnnotation);
    python("sglang/srt/model_executor/model_runner.py(1781): forward");
    op("aten::copy_", ids);
    m_emit.memcpy(M, kForwardQueue, "Memcpy HtoD (Pinned -> Device)",
                  (prefill ? tokens : batch) * 8, 24.0);
    close();
    if (prefill) {
        op("aten::cumsum", ids);
        m_emit.kernel(M, kForwardQueue, kCumsum, {1, 1, 1});
        close();
        op("aten::index_select", ids);
        m_emit.kernel(M, kForwardQueue, kGather, {256, 1, 1});
        close();
    }
    python("sglang/srt/model_executor/cuda_graph_runner.py(812): replay");
    python("CUDAGraph.replay");
    m_emit.graphLaunch(M, kForwardQueue, m_model.graph, kGraphId, scale);
    ++m_stats.graphLaunches;
    close(3);
    // Sampling over the logits of the padded batch the graph ran, then the tokens back to the
    // host; the copy waits for the GPU.
    op("aten::argmax", dimsText({{m_model.batch, m_model.vocab}, {}, {}}));
    m_emit.kernel(M, kForwardQueue, kArgmax, {m_model.batch, 1, 1});
    close();
    op("aten::to", dimsText({{batch}}));
    op("aten::_to_copy", dimsText({{batch}}));
    op("aten::copy_", dimsText({{batch}, {batch}, {}}));
    m_emit.memcpy(M, kForwardQueue, "Memcpy DtoH (Device -> Pinned)", batch * 8, 2.0);
    m_emit.streamSync(M, kForwardQueue);
    close(4);
    // The scheduler's own Python work between iterations.
    m_emit.advance(M, random.ns(15 * kUs, 60 * kUs));
}

KinetoTraceStats initialStats(uint64_t seed)
{
    KinetoTraceStats stats;
    stats.firstStep = 0;
    stats.gpus = 1;
    stats.hostThreads = 1;
    stats.graphKernels = 0;
    stats.baseTimeNs = 1767000000000000000ll + int64_t(seed % 86400) * 1000000000ll;
    stats.cpuPid = 3000 + int64_t(seed * 7919 % 60000);
    stats.beginNs = 800 * kUs + int64_t(seed % 1000) * kUs;
    return stats;
}

} // namespace

namespace generator {

Result<KinetoTraceStats> generateKinetoServingTrace(const GeneratorOptions &options,
                                                    const std::string &path)
{
    KinetoTraceStats stats = initialStats(options.seed);
    if (!options.capturePath.empty()) {
        auto capture = generateKinetoGraphCapture(options, options.capturePath);
        if (!capture)
            return capture.error();
        stats.captureEvents = capture.value().events;
        stats.captureFileBytes = capture.value().fileBytes;
    }
    const ServingModel model = makeServingModel(options.seed);
    stats.graphKernels = model.graph.size();
    KinetoJsonWriter writer(path);
    Server server(options, model, writer, stats);
    auto opened = writer.open(kinetoHeader(servingHeader(), stats.baseTimeNs));
    if (!opened)
        return opened.error();
    server.run();
    auto written =
        writer.finish(kinetoTrailer(stats.cpuPid, stats.baseTimeNs + stats.beginNs, "sglang"));
    if (!written)
        return written.error();
    stats.events = writer.events();
    stats.fileBytes = written.value();
    return stats;
}

} // namespace generator

Result<KinetoTraceStats> generateKinetoGraphCapture(const GeneratorOptions &options,
                                                    const std::string &path)
{
    const ServingModel model = makeServingModel(options.seed);
    // The same process as the replay, a minute and a half earlier: start-up, not serving.
    KinetoTraceStats stats = initialStats(options.seed);
    stats.baseTimeNs -= 90ll * 1000000000ll;
    stats.graphKernels = model.graph.size();
    KinetoJsonWriter writer(path);
    KinetoEmitter emit(writer, stats, kB300, options.seed ^ 0x5eed, stats.cpuPid, stats.beginNs);
    auto opened = writer.open(kinetoHeader(servingHeader(), stats.baseTimeNs));
    if (!opened)
        return opened.error();
    writeMetadata(emit, stats.cpuPid);
    emit.open(M, "sglang/srt/model_executor/cuda_graph_runner.py(598): capture_one_batch_size",
              OpCategory::PythonFunction);
    emit.runtimeCall(M, "cudaStreamBeginCapture", kCbidStreamBeginCapture);
    emit.open(M, "sglang/srt/models/qwen3.py(402): forward", OpCategory::PythonFunction);
    for (const ForwardNode &f : model.forward) {
        OpArgs args;
        args.inputDims = f.dims;
        if (!f.outerOp.empty())
            emit.open(M, f.outerOp, OpCategory::CpuOp, args);
        emit.open(M, f.op, OpCategory::CpuOp, args);
        // Recorded into the graph instead of running: no kernel event.
        emit.capturedLaunch(M);
        ++stats.capturedLaunches;
        emit.close(M);
        if (!f.outerOp.empty())
            emit.close(M);
    }
    emit.close(M);
    emit.runtimeCall(M, "cudaStreamEndCapture", kCbidStreamEndCapture);
    emit.runtimeCall(M, "cudaGraphInstantiateWithFlags", kCbidGraphInstantiateWithFlags);
    emit.close(M);
    const int64_t end = emit.now(M) + 10 * kUs;
    emit.windowEnd(end);
    stats.endNs = end;
    auto written =
        writer.finish(kinetoTrailer(stats.cpuPid, stats.baseTimeNs + stats.beginNs, "sglang"));
    if (!written)
        return written.error();
    stats.events = writer.events();
    stats.fileBytes = written.value();
    return stats;
}

} // namespace tracedesk::core
