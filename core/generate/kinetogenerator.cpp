// The synthetic workload behind generateKinetoTrace(): a convolution + linear classifier split
// over two GPUs (convolutions on GPU 0, the linear head and the loss on GPU 1), trained one step
// at a time so memory stays flat whatever the event count. The model's shape comes from the
// seed; every step has the same structure with fresh durations.

#include "core/generate/kinetogenerator.h"

#include "core/generate/kinetoemitter.h"
#include "core/generate/kinetomodel.h"
#include "core/generate/kinetoshapes.h"

#include <algorithm>

namespace tracedesk::core {

namespace {

using namespace generator;

constexpr int kGpus = 2;
constexpr uint64_t kFirstStep = 3;     // after a wait step and two warm-up steps
constexpr int64_t kUs = 1000;
constexpr HostThread M = HostThread::Main;
constexpr HostThread A = HostThread::Autograd;
constexpr GpuQueue kConvQueue{0, 7}, kCopyQueue{0, 13}, kNcclQueue{0, 20}, kHeadQueue{1, 7};
constexpr std::string_view kDataLoader =
    "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
constexpr std::string_view kConvTypes =
    "[\"float\",\"float\",\"float\",\"ScalarList\",\"ScalarList\",\"ScalarList\",\"Scalar\"]";

// The autograd node a forward op records; its backward runs on the autograd thread.
enum class Node : uint8_t { Conv, Relu, Cat, ToCopy, Addmm, LogSoftmax, NllLoss };

struct BackwardNames
{
    std::string_view node, evaluate;
};

// Indexed by Node.
constexpr BackwardNames kBackwardNames[] = {
    {"ConvolutionBackward0", "autograd::engine::evaluate_function: ConvolutionBackward0"},
    {"ReluBackward0", "autograd::engine::evaluate_function: ReluBackward0"},
    {"CatBackward0", "autograd::engine::evaluate_function: CatBackward0"},
    {"ToCopyBackward0", "autograd::engine::evaluate_function: ToCopyBackward0"},
    {"AddmmBackward0", "autograd::engine::evaluate_function: AddmmBackward0"},
    {"LogSoftmaxBackward0", "autograd::engine::evaluate_function: LogSoftmaxBackward0"},
    {"NllLossBackward0", "autograd::engine::evaluate_function: NllLossBackward0"},
};

struct Pending
{
    Node node;
    int layer; // index into the conv or linear layers
    int device;
    int64_t sequence;
    uint64_t flow;
    Allocation activation; // the forward output, released by the backward node
};

class Workload
{
public:
    Workload(const GeneratorOptions &options, KinetoJsonWriter &writer, KinetoTraceStats &stats);
    void run();

private:
    void writeMetadata();
    void step(uint64_t number);
    void dataLoading();
    void forward();
    void head();
    void backward();
    void backwardBody(const Pending &p);
    void collectives();
    void optimizer();
    void finishStep();

    void op(HostThread t, std::string_view name, std::string_view dims = {},
            std::string_view types = {})
    {
        OpArgs args;
        args.inputDims = dims;
        args.inputTypes = types;
        m_emit.open(t, name, OpCategory::CpuOp, args);
    }
    void annotation(std::string_view name) { m_emit.open(M, name, OpCategory::UserAnnotation); }
    void close(HostThread t, int count = 1)
    {
        for (int i = 0; i < count; ++i)
            m_emit.close(t);
    }
    // A forward op that records an autograd node: a sequence number and a fwdbwd flow start.
    Pending &forwardNode(std::string_view name, std::string_view dims, std::string_view types,
                         Node node, int layer, int device);
    // The newest input gradient replaces (and frees) the previous one.
    void setGrad(const Allocation &grad);

    const GeneratorOptions &m_options;
    KinetoJsonWriter &m_writer;
    KinetoTraceStats &m_stats;
    const KinetoModel m_model;
    const int64_t m_pid;
    const int64_t m_startNs;
    KinetoEmitter m_emit;

    std::string m_stepName;
    int64_t m_sequence = 0;
    std::vector<Pending> m_pending;
    std::vector<Allocation> m_weightGrads;
    Allocation m_input, m_grad;
    bool m_hasGrad = false;
};

Workload::Workload(const GeneratorOptions &options, KinetoJsonWriter &writer,
                   KinetoTraceStats &stats)
    : m_options(options)
    , m_writer(writer)
    , m_stats(stats)
    , m_model(makeKinetoModel(options.seed))
    , m_pid(stats.cpuPid)
    , m_startNs(stats.beginNs)
    , m_emit(writer, stats, kA100, options.seed, m_pid, m_startNs)
{
    m_pending.reserve(2 * (m_model.convs.size() + m_model.linears.size()) + 4);
}

void Workload::writeMetadata()
{
    m_emit.processMetadata(m_pid, "CPU", m_pid);
    for (const HostThread t : {M, A}) {
        const int64_t tid = m_emit.tid(t);
        m_emit.threadMetadata(m_pid, tid, "thread " + std::to_string(tid) + " (python)");
    }
    for (int d = 0; d < kGpus; ++d) {
        m_emit.processMetadata(d, "GPU " + std::to_string(d), 5000000 + d);
        for (const GpuQueue q : {kConvQueue, kCopyQueue, kNcclQueue, kHeadQueue}) {
            if (q.device == d)
                m_emit.threadMetadata(d, q.stream, "stream " + std::to_string(q.stream));
        }
    }
    m_emit.windowStart();
}

void Workload::run()
{
    writeMetadata();
    m_stats.steps = runStepsUntil(m_writer, m_options.events, kFirstStep,
                                  [this](uint64_t n) { step(n); });
    m_stats.endNs = m_emit.endWindowAfterWork(M);
}

Pending &Workload::forwardNode(std::string_view name, std::string_view dims, std::string_view types,
                               Node node, int layer, int device)
{
    const int64_t sequence = m_sequence++;
    OpArgs args;
    args.inputDims = dims;
    args.inputTypes = types;
    args.sequence = sequence;
    m_emit.open(M, name, OpCategory::CpuOp, args);
    m_pending.push_back({node, layer, device, sequence, m_emit.fwdbwdStart(M), {}});
    return m_pending.back();
}

void Workload::step(uint64_t number)
{
    m_emit.rewindArenas();
    m_pending.clear();
    m_stepName = "ProfilerStep#" + std::to_string(number);
    annotation(m_stepName);
    dataLoading();
    forward();
    head();
    backward();
    collectives();
    optimizer();
    finishStep();
    close(M);
    m_emit.advance(M, m_emit.random().ns(5 * kUs, 40 * kUs));
}

void Workload::dataLoading()
{
    const KinetoModel &m = m_model;
    constexpr std::string_view toTypes = "[\"float\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]";
    annotation(kDataLoader);
    op(M, "aten::stack", m.stackDims, "[\"TensorList\",\"Scalar\"]");
    const Allocation batch = m_emit.allocate(M, -1, m.inputBytes);
    m_emit.advance(M, m_emit.random().ns(30 * kUs, 150 * kUs)); // collating the samples
    close(M, 2);
    op(M, "aten::to", m.toDims, toTypes);
    op(M, "aten::_to_copy", m.toDims, toTypes);
    op(M, "aten::empty_strided");
    m_input = m_emit.allocate(M, 0, m.inputBytes);
    close(M);
    op(M, "aten::copy_", m.copyDims, "[\"float\",\"float\",\"Scalar\"]");
    m_emit.memcpy(M, kCopyQueue, "Memcpy HtoD (Pageable -> Device)", m.inputBytes, 11.5);
    close(M, 3);
    m_emit.release(M, batch);
}

void Workload::forward()
{
    for (int i = 0; i < int(m_model.convs.size()); ++i) {
        const ConvLayer &c = m_model.convs[size_t(i)];
        op(M, "aten::conv2d", c.convDims, kConvTypes);
        Pending &conv = forwardNode("aten::convolution", c.convDims, kConvTypes, Node::Conv, i, 0);
        op(M, "aten::_convolution", c.convDims, kConvTypes);
        op(M, "aten::cudnn_convolution", c.convDims, kConvTypes);
        conv.activation = m_emit.allocate(M, 0, c.outBytes);
        m_emit.kernel(M, kConvQueue, i % 2 ? kConvForwardNchw : kConvForward, c.grid);
        close(M);
        op(M, "aten::add_", c.addDims, "[\"float\",\"float\",\"Scalar\"]");
        m_emit.kernel(M, kConvQueue, kAddForward, elementwiseGrid(c.outElements));
        close(M, 4);
        Pending &relu = forwardNode("aten::relu", c.reluDims, "[\"float\"]", Node::Relu, i, 0);
        relu.activation = m_emit.allocate(M, 0, c.outBytes);
        m_emit.kernel(M, kConvQueue, kRelu, elementwiseGrid(c.outElements));
        close(M);
    }
    Pending &cat =
        forwardNode("aten::cat", m_model.catDims, "[\"TensorList\",\"Scalar\"]", Node::Cat, 0, 0);
    cat.activation = m_emit.allocate(M, 0, m_model.featureBytes);
    m_emit.kernel(M, kConvQueue, kCat, {ceilDiv(m_model.featureBytes / 4, 2048), 2, 1});
    close(M);
    op(M, "aten::flatten", m_model.flatDims, "[\"float\",\"Scalar\",\"Scalar\"]");
    op(M, "aten::view", m_model.flatDims, "[\"float\",\"ScalarList\"]");
    close(M, 2);
    Pending &peer = forwardNode("aten::to", m_model.peerDims, {}, Node::ToCopy, 0, 1);
    op(M, "aten::_to_copy", m_model.peerDims);
    op(M, "aten::empty_strided");
    peer.activation = m_emit.allocate(M, 1, m_model.featureBytes);
    close(M);
    op(M, "aten::copy_");
    m_emit.memcpy(M, kHeadQueue, "Memcpy PtoP (Device -> Device)", m_model.featureBytes, 180.0, 0);
    close(M, 3);
}

void Workload::head()
{
    for (int j = 0; j < int(m_model.linears.size()); ++j) {
        const LinearLayer &l = m_model.linears[size_t(j)];
        op(M, "aten::linear", l.linearDims, "[\"float\",\"float\",\"float\"]");
        op(M, "aten::t", l.tDims, "[\"float\"]");
        op(M, "aten::transpose", l.transposeDims, "[\"float\",\"Scalar\",\"Scalar\"]");
        op(M, "aten::as_strided");
        close(M, 3);
        Pending &mm =
            forwardNode("aten::addmm", l.addmmDims,
                        "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]", Node::Addmm, j, 1);
        mm.activation = m_emit.allocate(M, 1, m_model.batch * l.out * 4);
        m_emit.kernel(M, kHeadQueue, j % 2 ? kGemmVolta : kGemmTensor,
                      {ceilDiv(l.out, 64), ceilDiv(m_model.batch, 64), 4});
        close(M, 2);
        if (j + 1 < int(m_model.linears.size())) {
            Pending &relu = forwardNode("aten::relu", l.reluDims, "[\"float\"]", Node::Relu, j, 1);
            relu.activation = m_emit.allocate(M, 1, m_model.batch * l.out * 4);
            m_emit.kernel(M, kHeadQueue, kRelu, elementwiseGrid(m_model.batch * l.out));
            close(M);
        }
    }

    op(M, "aten::cross_entropy_loss", m_model.lossDims);
    op(M, "aten::log_softmax", m_model.softmaxDims, "[\"float\",\"Scalar\",\"\"]");
    Pending &softmax = forwardNode("aten::_log_softmax", m_model.softmaxDims,
                                   "[\"float\",\"Scalar\",\"Scalar\"]", Node::LogSoftmax, 0, 1);
    softmax.activation = m_emit.allocate(M, 1, m_model.batch * m_model.classes * 4);
    m_emit.kernel(M, kHeadQueue, kLogSoftmax, {m_model.batch, 1, 1});
    close(M, 2);
    op(M, "aten::nll_loss_nd", m_model.nllDims);
    op(M, "aten::nll_loss", m_model.nllDims);
    Pending &nll =
        forwardNode("aten::nll_loss_forward", m_model.nllDims,
                    "[\"float\",\"long int\",\"\",\"Scalar\",\"Scalar\"]", Node::NllLoss, 0, 1);
    nll.activation = m_emit.allocate(M, 1, 4);
    m_emit.kernel(M, kHeadQueue, kNllForward, {1, 1, 1});
    close(M, 4);
}

void Workload::setGrad(const Allocation &grad)
{
    if (m_hasGrad)
        m_emit.release(A, m_grad);
    m_grad = grad;
    m_hasGrad = true;
}

void Workload::backward()
{
    m_emit.join(A, M);
    for (auto it = m_pending.rbegin(); it != m_pending.rend(); ++it) {
        const Pending &p = *it;
        const BackwardNames &names = kBackwardNames[size_t(p.node)];
        OpArgs args;
        args.sequence = p.sequence;
        args.backward = true;
        m_emit.open(A, names.evaluate, OpCategory::CpuOp, args);
        m_emit.fwdbwdEnd(A, p.flow);
        m_emit.open(A, names.node, OpCategory::CpuOp, args);
        backwardBody(p);
        close(A);
        m_emit.release(A, p.activation);
        close(A);
    }
    if (m_hasGrad)
        m_emit.release(A, m_grad);
    m_hasGrad = false;
    m_emit.join(M, A);
}

void Workload::backwardBody(const Pending &p)
{
    const GpuQueue queue = p.device == 0 ? kConvQueue : kHeadQueue;
    switch (p.node) {
    case Node::NllLoss:
        op(A, "aten::nll_loss_backward", m_model.nllDims);
        setGrad(m_emit.allocate(A, 1, m_model.batch * m_model.classes * 4));
        op(A, "aten::zero_");
        op(A, "aten::fill_");
        m_emit.memset(A, queue, m_model.batch * m_model.classes * 4);
        close(A, 2);
        m_emit.kernel(A, queue, kNllBackward, {1, 1, 1});
        close(A);
        break;
    case Node::LogSoftmax:
        op(A, "aten::_log_softmax_backward_data", m_model.softmaxDims);
        setGrad(m_emit.allocate(A, 1, m_model.batch * m_model.classes * 4));
        m_emit.kernel(A, queue, kLogSoftmaxBackward, {m_model.batch, 1, 1});
        close(A);
        break;
    case Node::Relu: {
        const int64_t elements = p.device == 0
                                     ? m_model.convs[size_t(p.layer)].outElements
                                     : m_model.batch * m_model.linears[size_t(p.layer)].out;
        op(A, "aten::threshold_backward");
        setGrad(m_emit.allocate(A, p.device, elements * 4));
        m_emit.kernel(A, queue, kReluBackward, elementwiseGrid(elements));
        close(A);
        break;
    }
    case Node::Addmm: {
        const LinearLayer &l = m_model.linears[size_t(p.layer)];
        op(A, "aten::t", l.tDims, "[\"float\"]");
        close(A);
        op(A, "aten::mm", l.mmDims, "[\"float\",\"float\"]");
        setGrad(m_emit.allocate(A, 1, m_model.batch * l.in * 4));
        m_emit.kernel(A, queue, kGemmBackward, {ceilDiv(l.in, 128), ceilDiv(m_model.batch, 64), 1});
        close(A);
        op(A, "aten::mm", l.mmWeightDims, "[\"float\",\"float\"]");
        m_weightGrads.push_back(m_emit.allocate(A, 1, l.in * l.out * 4));
        m_emit.kernel(A, queue, kGemmWeight, {ceilDiv(l.in, 64), ceilDiv(l.out, 32), 1});
        close(A);
        op(A, "aten::sum", l.sumDims);
        m_weightGrads.push_back(m_emit.allocate(A, 1, l.out * 4));
        m_emit.kernel(A, queue, kBiasGrad, {l.out, 1, 1});
        close(A);
        break;
    }
    case Node::ToCopy:
        op(A, "aten::_to_copy", m_model.peerDims);
        op(A, "aten::empty_strided");
        setGrad(m_emit.allocate(A, 0, m_model.featureBytes));
        close(A);
        op(A, "aten::copy_");
        m_emit.memcpy(A, kConvQueue, "Memcpy PtoP (Device -> Device)", m_model.featureBytes, 180.0,
                      1);
        close(A, 2);
        break;
    case Node::Cat:
        // The gradients of a concatenation are views: no memory, no kernel.
        op(A, "aten::narrow");
        op(A, "aten::slice");
        op(A, "aten::as_strided");
        close(A, 3);
        break;
    case Node::Conv: {
        const ConvLayer &c = m_model.convs[size_t(p.layer)];
        op(A, "aten::convolution_backward", c.backwardDims);
        if (p.layer > 0) { // the images need no gradient
            setGrad(m_emit.allocate(A, 0, m_model.batch * c.in * c.height * c.width * 4));
            m_emit.kernel(A, queue, kConvDgrad, c.grid);
        }
        m_weightGrads.push_back(m_emit.allocate(A, 0, c.out * c.in * 9 * 4));
        m_emit.kernel(A, queue, kConvWgrad, {ceilDiv(c.out * c.in * 9, 4096), 1, 1});
        m_weightGrads.push_back(m_emit.allocate(A, 0, c.out * 4));
        m_emit.kernel(A, queue, kBiasGrad, {c.out, 1, 1});
        close(A);
        break;
    }
    }
}

void Workload::collectives()
{
    // DDP's gradient all-reduce: the kernel's External id is record_param_comms's.
    annotation("nccl:all_reduce");
    OpArgs comms;
    comms.inputDims = "[[]]";
    comms.inputTypes = "[\"TensorList\"]";
    comms.extra = m_model.collectiveOpArgs;
    m_emit.open(M, "record_param_comms", OpCategory::CpuOp, comms);
    m_emit.kernel(M, kNcclQueue, kNcclAllReduce, {2, 1, 1}, m_model.collectiveKernelArgs);
    close(M, 2);
}

void Workload::optimizer()
{
    annotation("Optimizer.step#SGD.step");
    for (const GpuQueue q : {kConvQueue, kHeadQueue}) {
        op(M, "aten::_foreach_add_", "[[],[],[]]", "[\"TensorList\",\"TensorList\",\"Scalar\"]");
        m_emit.kernel(M, q, kMultiTensorAdd,
                      {std::min<int64_t>(ceilDiv(m_model.parameters, 65536), 320), 1, 1});
        close(M);
    }
    close(M);
    // set_to_none: the gradients are released, not zeroed.
    annotation("Optimizer.zero_grad#SGD.zero_grad");
    for (const Allocation &g : m_weightGrads)
        m_emit.release(M, g);
    m_weightGrads.clear();
    close(M);
}

void Workload::finishStep()
{
    // loss.item(): a 4-byte copy back and a wait for the head GPU.
    op(M, "aten::item", "[[]]", "[\"float\"]");
    op(M, "aten::_local_scalar_dense", "[[]]", "[\"float\"]");
    m_emit.memcpy(M, kHeadQueue, "Memcpy DtoH (Device -> Pageable)", 4, 0.002);
    m_emit.streamSync(M, kHeadQueue);
    close(M, 2);
    m_emit.release(M, m_input);
}

} // namespace

Result<KinetoTraceStats> generateKinetoTrace(const GeneratorOptions &options,
                                             const std::string &path)
{
    switch (options.kinetoShape) {
    case KinetoShape::Moe:
        return generator::generateKinetoMoeTrace(options, path);
    case KinetoShape::Serving:
        return generator::generateKinetoServingTrace(options, path);
    case KinetoShape::Training:
        break;
    }
    if (!options.capturePath.empty())
        return fileError(options.capturePath, "is written only with the serving shape");
    KinetoTraceStats stats;
    stats.firstStep = kFirstStep;
    stats.gpus = kGpus;
    stats.baseTimeNs = 1700000000000000000ll + int64_t(options.seed % 86400) * 1000000000ll;
    stats.cpuPid = 1000 + int64_t(options.seed * 7919 % 60000);
    stats.beginNs = 1000 * kUs + int64_t(options.seed % 1000) * kUs;
    KinetoJsonWriter writer(path);
    Workload workload(options, writer, stats);
    auto opened = writer.open(kinetoHeader(kGpus, stats.baseTimeNs));
    if (!opened)
        return opened.error();
    workload.run();
    auto written = writer.finish(kinetoTrailer(stats.cpuPid, stats.baseTimeNs + stats.beginNs));
    if (!written)
        return written.error();
    stats.events = writer.events();
    stats.fileBytes = written.value();
    return stats;
}

} // namespace tracedesk::core
