// The synthetic workload behind KinetoShape::Moe: one rank of an expert-parallel MoE training
// job (8 ranks, DeepEP intranode all-to-all) on a Hopper GPU, traced by a recent PyTorch. Each
// ProfilerStep#N runs the transformer layers forward on the main thread (FP8 projections,
// FlashAttention-3, a bf16 router, FP8 grouped expert GEMMs), the loss, the backward pass on
// the autograd thread and a fused AdamW step.
//
// Two things make it a 2026 trace rather than a 2021 one. Every launch and its GPU work carry
// their correlation id as External id, so the id names no op (the ops keep their own, smaller
// ids). And the token dispatch and combine are Python autograd functions: their DeepEP kernels
// are launched from Python under `dispatch(F)` / `combine(F)` annotations with no cpu_op around
// them, so only the annotation can own them. Their backward runs under the autograd engine's
// evaluate_function op like any other node.

#include "core/generate/kinetoshapes.h"

#include "core/generate/kinetoemitter.h"
#include "core/generate/kinetomodel.h"
#include "core/generate/kinetomoekernels.h"

#include <algorithm>

namespace tracedesk::core {

namespace {

using namespace generator;
using namespace generator::moe;

constexpr uint64_t kFirstStep = 10;
constexpr int64_t kUs = 1000;
constexpr int kEpRanks = 8;
constexpr int64_t kCommSms = 24; // the SMs DeepEP's kernels occupy
constexpr HostThread M = HostThread::Main;
constexpr HostThread A = HostThread::Autograd;
constexpr GpuQueue kComputeQueue{0, 7}, kCommQueue{0, 24};

// A layer's steps in forward order; the backward pass walks them in reverse.
enum class Stage : uint8_t {
    AttentionNorm,
    QkvProj,
    Attention,
    OutProj,
    MoeNorm,
    Router,
    Softmax,
    TopK,
    Dispatch,
    GateUp,
    Silu,
    Down,
    Combine,
    Loss
};
constexpr Stage kLayerStages[] = {
    Stage::AttentionNorm, Stage::QkvProj, Stage::Attention, Stage::OutProj,  Stage::MoeNorm,
    Stage::Router,        Stage::Softmax, Stage::TopK,      Stage::Dispatch, Stage::GateUp,
    Stage::Silu,          Stage::Down,    Stage::Combine};

struct MoeModel
{
    int layers = 0;
    int64_t tokens = 0; // per micro-batch on this rank
    int64_t hidden = 7168;
    int64_t heads = 56;
    int64_t expertFfn = 2048;
    int64_t experts = 32; // local experts (256 over 8 ranks)
    int64_t topK = 8;
    int64_t vocab = 129280;
    std::string normDims, qkvDims, attentionDims, outDims, routerDims, softmaxDims, topKDims,
        gateUpDims, siluDims, downDims, lossDims;
};

std::string shapeText(std::initializer_list<int64_t> dims)
{
    std::string s = "[";
    for (const int64_t d : dims)
        s += (s.size() > 1 ? "," : "") + std::to_string(d);
    return s + "]";
}

MoeModel makeMoeModel(uint64_t seed)
{
    MoeModel m;
    m.layers = 2 + int(seed % 3);
    m.tokens = int64_t(4096) << (seed / 3 % 2);
    const std::string x = shapeText({m.tokens, m.hidden});
    const std::string routed = shapeText({m.tokens * m.topK, m.hidden});
    m.normDims = "[" + x + "," + shapeText({m.hidden}) + ",[],[]]";
    m.qkvDims = "[" + x + "," + shapeText({m.hidden, 3 * m.hidden}) + ",[],[],[],[]]";
    m.attentionDims = "[" + shapeText({1, m.tokens, m.heads, 128}) + "," +
                      shapeText({1, m.tokens, m.heads, 128}) + "," +
                      shapeText({1, m.tokens, m.heads, 128}) + ",[],[]]";
    m.outDims = "[" + x + "," + shapeText({m.hidden, m.hidden}) + ",[],[],[],[]]";
    m.routerDims = "[" + x + "," + shapeText({m.hidden, 256}) + "]";
    m.softmaxDims = "[" + shapeText({m.tokens, 256}) + ",[],[]]";
    m.topKDims = "[" + shapeText({m.tokens, 256}) + ",[],[],[],[]]";
    m.gateUpDims = "[" + routed + "," + shapeText({m.experts, m.hidden, 2 * m.expertFfn}) +
                   ",[],[]," + shapeText({m.experts}) + "]";
    m.siluDims = "[" + shapeText({m.tokens * m.topK, m.expertFfn}) + "]";
    m.downDims = "[" + shapeText({m.tokens * m.topK, m.expertFfn}) + "," +
                 shapeText({m.experts, m.expertFfn, m.hidden}) + ",[],[]," +
                 shapeText({m.experts}) + "]";
    m.lossDims = "[" + shapeText({m.tokens, m.vocab}) + "," + shapeText({m.tokens}) + "]";
    return m;
}

// A forward node whose backward is still to run.
struct Pending
{
    Stage stage;
    int64_t sequence;
    uint64_t flow; // fwdbwd id, 0 for the Python functions (no forward op to start it)
};

class Trainer
{
public:
    Trainer(const GeneratorOptions &options, KinetoJsonWriter &writer, KinetoTraceStats &stats)
        : m_options(options)
        , m_writer(writer)
        , m_stats(stats)
        , m_model(makeMoeModel(options.seed))
        , m_emit(writer, stats, kH800, options.seed, stats.cpuPid, stats.beginNs)
    {
        m_emit.mirrorExternalIds();
        m_emit.startCorrelationsAt(120000 + int64_t(options.seed % 1000) * 16);
    }

    void run();

private:
    void writeMetadata();
    void step(uint64_t number);
    void forward(Stage s);
    void backward(const Pending &p);
    void backwardBody(Stage s);
    // A Python autograd function's DeepEP launches: a Python frame around a user annotation.
    void allToAll(HostThread t, std::string_view frame, std::string_view annotation,
                  bool dispatchKernels);

    void op(HostThread t, std::string_view name, std::string_view dims = {})
    {
        OpArgs args;
        args.inputDims = dims;
        m_emit.open(t, name, OpCategory::CpuOp, args);
    }
    void close(HostThread t, int count = 1)
    {
        for (int i = 0; i < count; ++i)
            m_emit.close(t);
    }
    // A forward op recording an autograd node: a sequence number and a fwdbwd flow start.
    void node(Stage s, std::string_view name, std::string_view dims)
    {
        OpArgs args;
        args.inputDims = dims;
        args.sequence = m_sequence++;
        m_emit.open(M, name, OpCategory::CpuOp, args);
        m_pending.push_back({s, args.sequence, m_emit.fwdbwdStart(M)});
    }
    void compute(HostThread t, const KernelSpec &k, std::array<int64_t, 3> grid)
    {
        m_emit.kernel(t, kComputeQueue, k, grid);
    }

    const GeneratorOptions &m_options;
    KinetoJsonWriter &m_writer;
    KinetoTraceStats &m_stats;
    const MoeModel m_model;
    KinetoEmitter m_emit;
    int64_t m_sequence = 0;
    std::vector<Pending> m_pending;
};

void Trainer::writeMetadata()
{
    const int64_t pid = m_stats.cpuPid;
    m_emit.processMetadata(pid, "CPU", pid);
    for (const HostThread t : {M, A}) {
        const int64_t tid = m_emit.tid(t);
        m_emit.threadMetadata(pid, tid, "thread " + std::to_string(tid) + " (python)");
    }
    m_emit.processMetadata(0, "GPU 0", 5000000);
    for (const GpuQueue q : {kComputeQueue, kCommQueue})
        m_emit.threadMetadata(0, q.stream, "stream " + std::to_string(q.stream));
    m_emit.windowStart();
}

void Trainer::run()
{
    writeMetadata();
    m_stats.steps = runStepsUntil(m_writer, m_options.events, kFirstStep,
                                  [this](uint64_t n) { step(n); });
    m_stats.endNs = m_emit.endWindowAfterWork(M);
}

void Trainer::step(uint64_t number)
{
    m_pending.clear();
    const std::string name = "ProfilerStep#" + std::to_string(number);
    m_emit.open(M, name, OpCategory::UserAnnotation);
    m_emit.open(M, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
                OpCategory::UserAnnotation);
    m_emit.advance(M, m_emit.random().ns(20 * kUs, 90 * kUs));
    close(M);
    const std::string tokens = "[" + shapeText({1, m_model.tokens}) + ",[],[],[],[]]";
    op(M, "aten::to", tokens);
    op(M, "aten::_to_copy", tokens);
    op(M, "aten::copy_");
    m_emit.memcpy(M, kComputeQueue, "Memcpy HtoD (Pinned -> Device)", m_model.tokens * 8, 24.0);
    close(M, 3);

    for (int layer = 0; layer < m_model.layers; ++layer) {
        for (const Stage s : kLayerStages)
            forward(s);
    }
    forward(Stage::Loss);

    m_emit.join(A, M);
    for (auto it = m_pending.rbegin(); it != m_pending.rend(); ++it)
        backward(*it);
    m_emit.join(M, A);

    m_emit.open(M, "Optimizer.step#AdamW.step", OpCategory::UserAnnotation);
    op(M, "aten::_fused_adamw_", "[[],[],[],[],[],[],[],[],[],[],[],[],[],[],[]]");
    compute(M, kFusedAdamW, {kCommSms * 11, 1, 1});
    close(M, 2);
    m_emit.open(M, "Optimizer.zero_grad#AdamW.zero_grad", OpCategory::UserAnnotation);
    close(M);
    // loss.item(): the step ends when the GPU has caught up.
    op(M, "aten::item", "[[]]");
    op(M, "aten::_local_scalar_dense", "[[]]");
    m_emit.memcpy(M, kComputeQueue, "Memcpy DtoH (Device -> Pageable)", 4, 0.002);
    m_emit.streamSync(M, kComputeQueue);
    close(M, 3);
    m_emit.advance(M, m_emit.random().ns(30 * kUs, 120 * kUs));
}

void Trainer::allToAll(HostThread t, std::string_view frame, std::string_view annotation,
                       bool dispatchKernels)
{
    m_emit.open(t, frame, OpCategory::PythonFunction);
    m_emit.open(t, annotation, OpCategory::UserAnnotation);
    if (dispatchKernels) {
        m_emit.kernel(t, kCommQueue, kNvshmemBarrier, {1, 1, 1});
        m_emit.kernel(t, kCommQueue, kNotifyDispatch, {1 + kEpRanks, 1, 1});
        m_emit.kernel(t, kCommQueue, kDispatch, {kCommSms, 1, 1});
    } else {
        m_emit.kernel(t, kCommQueue, kCombine, {kCommSms, 1, 1});
    }
    close(t, 2);
}

void Trainer::forward(Stage s)
{
    const MoeModel &m = m_model;
    const int64_t routed = m.tokens * m.topK;
    switch (s) {
    case Stage::AttentionNorm:
    case Stage::MoeNorm:
        node(s, "aten::_fused_rms_norm", m.normDims);
        compute(M, kRmsNorm, {m.tokens, 1, 1});
        close(M);
        break;
    case Stage::QkvProj:
    case Stage::OutProj:
        node(s, "aten::_scaled_mm", s == Stage::QkvProj ? m.qkvDims : m.outDims);
        compute(M, kDenseGemm, {132, 1, 1});
        close(M);
        break;
    case Stage::Attention:
        node(s, "flash_attn_3::fwd", m.attentionDims);
        compute(M, kFlashForward, {ceilDiv(m.tokens, 128), m.heads, 1});
        close(M);
        break;
    case Stage::Router:
        op(M, "aten::linear", m.routerDims);
        op(M, "aten::matmul", m.routerDims);
        node(s, "aten::mm", m.routerDims);
        compute(M, kRouterGemm, {4, ceilDiv(m.tokens, 64), 1});
        close(M, 3);
        break;
    case Stage::Softmax:
        node(s, "aten::_softmax", m.softmaxDims);
        compute(M, kSoftmax, {m.tokens, 1, 1});
        close(M);
        break;
    case Stage::TopK: // its indices carry no gradient
        op(M, "aten::topk", m.topKDims);
        compute(M, kTopK, {m.tokens, 1, 1});
        close(M);
        break;
    case Stage::Dispatch:
        m_pending.push_back({s, m_sequence++, 0});
        allToAll(M, "megatron/core/transformer/moe/fused_a2a.py(92): forward", "dispatch(F)", true);
        break;
    case Stage::Combine:
        m_pending.push_back({s, m_sequence++, 0});
        allToAll(M, "megatron/core/transformer/moe/fused_a2a.py(151): forward", "combine(F)",
                 false);
        break;
    case Stage::GateUp:
    case Stage::Down:
        node(s, "aten::_scaled_grouped_mm", s == Stage::GateUp ? m.gateUpDims : m.downDims);
        compute(M, kGroupedGemm, {132, 1, 1});
        close(M);
        break;
    case Stage::Silu:
        node(s, "aten::silu", m.siluDims);
        compute(M, kSilu, elementwiseGrid(routed * m.expertFfn));
        close(M);
        break;
    case Stage::Loss:
        op(M, "aten::cross_entropy_loss", m.lossDims);
        node(s, "aten::_log_softmax", m.lossDims);
        compute(M, kLogSoftmax, {m.tokens, 1, 1});
        close(M);
        op(M, "aten::nll_loss_forward", m.lossDims);
        compute(M, kNllForward, {1, 1, 1});
        close(M, 2);
        break;
    }
}

constexpr std::string_view backwardNodeName(Stage s)
{
    switch (s) {
    case Stage::AttentionNorm:
    case Stage::MoeNorm:
        return "FusedRmsNormBackward0";
    case Stage::QkvProj:
    case Stage::OutProj:
        return "matmul_with_hp_or_float8_argsBackward";
    case Stage::Attention:
        return "FlashAttnFuncBackward";
    case Stage::Router:
        return "MmBackward0";
    case Stage::Softmax:
        return "SoftmaxBackward0";
    case Stage::TopK:
        return "TopkBackward0";
    case Stage::Dispatch:
        return "FusedDispatchBackward";
    case Stage::GateUp:
    case Stage::Down:
        return "_Float8GroupedMMBackward";
    case Stage::Silu:
        return "SiluBackward0";
    case Stage::Combine:
        return "FusedCombineBackward";
    case Stage::Loss:
        return "LogSoftmaxBackward0";
    }
    return {};
}

void Trainer::backward(const Pending &p)
{
    const std::string_view name = backwardNodeName(p.stage);
    const std::string evaluate = "autograd::engine::evaluate_function: " + std::string(name);
    OpArgs args;
    args.sequence = p.sequence;
    args.backward = true;
    m_emit.open(A, evaluate, OpCategory::CpuOp, args);
    if (p.flow != 0)
        m_emit.fwdbwdEnd(A, p.flow);
    if (p.stage == Stage::Dispatch || p.stage == Stage::Combine) {
        // The backward of a dispatch combines, and the backward of a combine dispatches.
        if (p.stage == Stage::Dispatch)
            allToAll(A, "megatron/core/transformer/moe/fused_a2a.py(121): backward", "dispatch(B)",
                     false);
        else
            allToAll(A, "megatron/core/transformer/moe/fused_a2a.py(176): backward", "combine(B)",
                     true);
    } else {
        m_emit.open(A, name, OpCategory::CpuOp, args);
        backwardBody(p.stage);
        close(A);
    }
    close(A);
}

void Trainer::backwardBody(Stage s)
{
    const MoeModel &m = m_model;
    switch (s) {
    case Stage::AttentionNorm:
    case Stage::MoeNorm:
        op(A, "aten::_fused_rms_norm_backward", m.normDims);
        compute(A, kRmsNormBackward, {m.tokens, 1, 1});
        close(A);
        break;
    case Stage::QkvProj:
    case Stage::OutProj:
    case Stage::GateUp:
    case Stage::Down: {
        // The input gradient, then the weight gradient.
        const bool grouped = s == Stage::GateUp || s == Stage::Down;
        for (int i = 0; i < 2; ++i) {
            op(A, grouped ? "aten::_scaled_grouped_mm" : "aten::_scaled_mm");
            compute(A, grouped ? kGroupedGemm : kDenseGemm, {132, 1, 1});
            close(A);
        }
        break;
    }
    case Stage::Attention:
        op(A, "flash_attn_3::bwd", m.attentionDims);
        compute(A, kFlashBackward, {ceilDiv(m.tokens, 128), m.heads, 1});
        close(A);
        break;
    case Stage::Router:
        for (int i = 0; i < 2; ++i) {
            op(A, "aten::mm");
            compute(A, kRouterGemm, {4, ceilDiv(m.tokens, 64), 1});
            close(A);
        }
        break;
    case Stage::Softmax:
        op(A, "aten::_softmax_backward_data", m.softmaxDims);
        compute(A, kSoftmaxBackward, {m.tokens, 1, 1});
        close(A);
        break;
    case Stage::Silu:
        op(A, "aten::silu_backward", m.siluDims);
        compute(A, kSiluBackward, elementwiseGrid(m.tokens * m.topK * m.expertFfn));
        close(A);
        break;
    case Stage::Loss:
        op(A, "aten::nll_loss_backward", m.lossDims);
        compute(A, kNllBackward, {1, 1, 1});
        close(A);
        op(A, "aten::_log_softmax_backward_data", m.lossDims);
        compute(A, kLogSoftmaxBackward, {m.tokens, 1, 1});
        close(A);
        break;
    case Stage::TopK:
    case Stage::Dispatch:
    case Stage::Combine:
        break;
    }
}

} // namespace

namespace generator {

Result<KinetoTraceStats> generateKinetoMoeTrace(const GeneratorOptions &options,
                                                const std::string &path)
{
    if (!options.capturePath.empty())
        return fileError(options.capturePath, "is written only with the serving shape");
    KinetoTraceStats stats;
    stats.firstStep = kFirstStep;
    stats.gpus = 1;
    stats.hostThreads = 2;
    stats.baseTimeNs = 1772000000000000000ll + int64_t(options.seed % 86400) * 1000000000ll;
    stats.cpuPid = 2000 + int64_t(options.seed * 7919 % 60000);
    stats.beginNs = 600 * kUs + int64_t(options.seed % 1000) * kUs;
    KinetoJsonWriter writer(path);
    Trainer trainer(options, writer, stats);
    KinetoHeaderSpec header;
    header.gpu = &kH800;
    header.worldSize = kEpRanks;
    header.cudaRuntimeVersion = 12080;
    header.cudaDriverVersion = 12090;
    header.cuptiVersion = 26;
    header.profileMemory = false;
    header.withStack = true;
    header.ncclVersion = "2.26.2";
    auto opened = writer.open(kinetoHeader(header, stats.baseTimeNs));
    if (!opened)
        return opened.error();
    trainer.run();
    auto written = writer.finish(kinetoTrailer(stats.cpuPid, stats.baseTimeNs + stats.beginNs));
    if (!written)
        return written.error();
    stats.events = writer.events();
    stats.fileBytes = written.value();
    return stats;
}

} // namespace generator

} // namespace tracedesk::core
