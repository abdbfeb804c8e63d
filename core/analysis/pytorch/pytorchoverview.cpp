#include "core/analysis/pytorch/pytorchoverview.h"

#include "core/analysis/framework.h"
#include "core/analysis/kernels/kernelclasses.h"
#include "core/analysis/pytorch/intervals.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_set>

namespace tracedesk::core::analysis::pytorch {

namespace {

bool isNvidiaName(std::string_view name)
{
    for (std::string_view w : {"NVIDIA", "Tesla", "GeForce", "Quadro", "TITAN"}) {
        if (name.find(w) != std::string_view::npos)
            return true;
    }
    return false;
}

constexpr int kRankedCategories = kBreakdownCategoryCount - 1; // all but Other

bool isCollectiveRangeName(std::string_view name)
{
    return name.starts_with("nccl:") || name.starts_with("gloo:") || name == "record_param_comms";
}

bool isDataLoaderName(std::string_view name)
{
    return (name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__")) ||
           name.starts_with("enumerate(DataPipe)#");
}

std::string percentText(double fraction)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", std::round(10000.0 * fraction) / 100.0);
    return buf;
}

struct CategoryRanges
{
    std::array<IntervalList, kRankedCategories> lists;
    IntervalList communicationKernels; // all of their time, overlapped or not
    IntervalList otherGpuWork;         // computation kernels, memcpy, memset
    bool hasGpuColumns = false;
    bool usesDp = false;
    bool usesDdp = false;
    bool seenNccl = false;
};

CategoryRanges collectRanges(const Trace &trace, const KinetoIndex &index, KernelClasses &classes)
{
    CategoryRanges out;
    auto &lists = out.lists;
    auto add = [&](BreakdownCategory c, TimePs s, TimePs e) { lists[size_t(c)].push_back({s, e}); };
    std::unordered_set<int64_t> collectiveIds;
    std::vector<const KinetoNode *> collectiveRanges;
    for (const KinetoNode &node : index.nodes) {
        if (node.role == SliceRole::PythonFunction)
            continue; // Python frames are not CPU Exec (upstream reads no python_function)
        const std::string_view name = trace.name(node.ref);
        out.usesDp = out.usesDp || name == "DataParallel.forward";
        out.usesDdp = out.usesDdp || name == "DistributedDataParallel.forward";
        if (isProfilerStepName(name))
            continue;
        if (isCollectiveRangeName(name)) {
            out.seenNccl = out.seenNccl || name.starts_with("nccl:");
            if (node.externalId != kNoValue)
                collectiveIds.insert(node.externalId);
            collectiveRanges.push_back(&node);
        } else if (isDataLoaderName(name)) {
            add(BreakdownCategory::DataLoader, node.start, node.end);
        } else {
            add(BreakdownCategory::CpuExec, node.start, node.end);
        }
    }
    for (const KinetoRuntime &rt : index.runtimes)
        add(BreakdownCategory::Runtime, rt.start, rt.end);
    for (const KinetoActivity &act : index.activities) {
        switch (act.role) {
        case SliceRole::Kernel: {
            const int64_t viaRuntime =
                act.runtime != kNoIndex ? index.runtimes[act.runtime].externalId : kNoValue;
            bool collective = classes.of(act.ref).family == KernelFamily::Communication;
            for (int64_t id : {act.externalId, viaRuntime}) {
                collective = collective || (id != kNoValue && collectiveIds.contains(id));
            }
            if (collective) {
                add(BreakdownCategory::Communication, act.start, act.end);
                out.communicationKernels.push_back({act.start, act.end});
            } else {
                add(BreakdownCategory::Kernel, act.start, act.end);
                out.otherGpuWork.push_back({act.start, act.end});
            }
            break;
        }
        case SliceRole::Memcpy:
            add(BreakdownCategory::Memcpy, act.start, act.end);
            out.otherGpuWork.push_back({act.start, act.end});
            break;
        case SliceRole::Memset:
            add(BreakdownCategory::Memset, act.start, act.end);
            out.otherGpuWork.push_back({act.start, act.end});
            break;
        default:
            break;
        }
    }
    // With communication kernels on the GPU they are the communication, and the CPU ranges
    // around them (launches, stream waits) are CPU work; without any (gloo, CPU collectives)
    // the CPU ranges are the communication itself.
    const bool gpuCommunication = !out.communicationKernels.empty();
    for (const KinetoNode *node : collectiveRanges)
        add(gpuCommunication ? BreakdownCategory::CpuExec : BreakdownCategory::Communication,
            node->start, node->end);
    out.hasGpuColumns = !index.runtimes.empty() || !index.activities.empty();
    for (IntervalList &list : lists)
        list = mergeIntervals(std::move(list));
    out.communicationKernels = mergeIntervals(std::move(out.communicationKernels));
    out.otherGpuWork = mergeIntervals(std::move(out.otherGpuWork));
    return out;
}

void computeBreakdown(const PyTorchSteps &steps, const CategoryRanges &ranges, PyTorchOverview &out)
{
    IntervalList stepRanges;
    for (const PyTorchStep &s : steps.steps)
        stepRanges.push_back({s.start, s.end});
    IntervalList slots = mergeIntervals(std::move(stepRanges));
    std::array<IntervalList, kBreakdownCategoryCount> exclusive;
    for (int c = 0; c < kRankedCategories; ++c) {
        exclusive[size_t(c)] = intersectIntervals(ranges.lists[size_t(c)], slots);
        slots = subtractIntervals(slots, exclusive[size_t(c)]);
    }
    exclusive[size_t(BreakdownCategory::Other)] = std::move(slots);
    const IntervalList overlapped =
        intersectIntervals(ranges.communicationKernels, ranges.otherGpuWork);

    for (const PyTorchStep &s : steps.steps) {
        StepBreakdown row;
        row.name = s.name;
        row.start = s.start;
        row.end = s.end;
        for (int c = 0; c < kBreakdownCategoryCount; ++c)
            row.cost[size_t(c)] = overlapLength(exclusive[size_t(c)], {s.start, s.end});
        row.communicationTotal = overlapLength(ranges.communicationKernels, {s.start, s.end});
        row.communicationOverlapped = overlapLength(overlapped, {s.start, s.end});
        out.steps.push_back(std::move(row));
    }
    if (out.steps.empty())
        return;
    for (const StepBreakdown &row : out.steps) {
        for (int c = 0; c < kBreakdownCategoryCount; ++c)
            out.average.cost[size_t(c)] += double(row.cost[size_t(c)]);
        out.average.total += double(row.total());
        out.average.communicationTotal += double(row.communicationTotal);
        out.average.communicationOverlapped += double(row.communicationOverlapped);
    }
    const double n = double(out.steps.size());
    for (double &v : out.average.cost)
        v /= n;
    out.average.total /= n;
    out.average.communicationTotal /= n;
    out.average.communicationOverlapped /= n;
}

// Σ min(Σ blocks per SM, 1) · length over [S, E]; the ranges are the sweep's elementary
// intervals where some kernel with blocks per SM > 0 runs. nullopt when none lies in [S, E].
std::optional<double> smEfficiency(const Trace &trace, const KinetoIndex &index,
                                   const std::vector<uint32_t> &kernels, TimePs S, TimePs E)
{
    std::vector<std::pair<TimePs, int64_t>> points; // (time, ±blocks per SM in millionths)
    for (uint32_t k : kernels) {
        const KinetoActivity &act = index.activities[k];
        const int64_t b = trace.side(act.ref, SideColumn::BlocksPerSm);
        if (b == kNoValue || b <= 0 || act.end <= act.start)
            continue;
        points.emplace_back(act.start, b);
        points.emplace_back(act.end, -b);
    }
    std::sort(points.begin(), points.end());
    double weighted = 0;
    bool any = false;
    int64_t sum = 0;
    for (size_t i = 0; i < points.size();) {
        const TimePs t0 = points[i].first;
        for (; i < points.size() && points[i].first == t0; ++i)
            sum += points[i].second;
        if (i == points.size() || sum <= 0)
            continue;
        const TimePs t1 = points[i].first;
        const TimePs inside = std::min(t1, E) - std::max(t0, S);
        if (inside <= 0)
            continue;
        any = true;
        weighted += double(std::min<int64_t>(sum, 1000000)) / 1e6 * double(inside);
    }
    if (!any)
        return std::nullopt;
    return weighted / double(E - S);
}

void computeGpuMetrics(const Trace &trace, const OperatorTree &tree, KernelClasses &classes,
                       PyTorchOverview &out)
{
    const KinetoIndex &index = *tree.index;
    const TimePs S = out.allStart;
    const TimePs E = out.allEnd;
    std::map<int64_t, std::vector<uint32_t>> kernelsByDevice;
    double tcAll = 0;      // sums of many durations: double, never an overflow
    double kernelAll = 0;
    auto isTensorCore = [&](SliceRef ref) { return classes.of(ref).tensorCore; };
    for (uint32_t a = 0; a < index.activities.size(); ++a) {
        const KinetoActivity &act = index.activities[a];
        if (act.role != SliceRole::Kernel)
            continue;
        kernelsByDevice[act.device].push_back(a);
        kernelAll += double(act.end - act.start);
        tcAll += isTensorCore(act.ref) ? double(act.end - act.start) : 0.0;
    }
    out.tensorCoreUsedRatio = kernelAll > 0 ? tcAll / kernelAll : 0.0;

    bool anyKernel = false;
    for (auto &[device, kernels] : kernelsByDevice) {
        PyTorchGpuMetrics g;
        g.device = device;
        // A process that sees one GPU lists it as device 0 while its kernels carry the
        // machine's index (HIP / CUDA_VISIBLE_DEVICES): the one listed GPU is that device.
        const auto &listed = trace.info.run.devices;
        const GpuDeviceInfo *info = trace.info.run.device(device);
        if (!info && listed.size() == 1 && kernelsByDevice.size() == 1)
            info = &listed.front();
        if (info) {
            g.name = info->name;
            g.memoryBytes = info->totalGlobalMemBytes;
            g.memoryGb =
                std::round(double(info->totalGlobalMemBytes) / (1024.0 * 1024.0 * 1024.0) * 100.0) /
                100.0;
            if (info->hasComputeCapability())
                g.computeCapability =
                    std::to_string(info->computeMajor) + "." + std::to_string(info->computeMinor);
        }
        if (E > S) {
            IntervalList busy;
            double occWeight = 0;
            double occSum = 0;
            for (uint32_t k : kernels) {
                const KinetoActivity &act = index.activities[k];
                busy.push_back({act.start, act.end});
                const int64_t occ = trace.side(act.ref, SideColumn::Occupancy);
                const TimePs clipped = std::min(act.end, E) - std::max(act.start, S);
                if (occ != kNoValue && occ >= 0 && clipped > 0) {
                    occWeight += double(clipped);
                    occSum += double(occ) * double(clipped);
                }
            }
            g.utilization =
                double(overlapLength(mergeIntervals(std::move(busy)), {S, E})) / double(E - S);
            g.smEfficiency = smEfficiency(trace, index, kernels, S, E);
            if (occWeight > 0)
                g.achievedOccupancy = occSum / occWeight;
        }
        TimePs tc = 0;
        TimePs all = 0;
        for (uint32_t k : kernels) {
            const KinetoActivity &act = index.activities[k];
            all += act.end - act.start;
            tc += isTensorCore(act.ref) ? act.end - act.start : 0;
        }
        if (all > 0) {
            anyKernel = true;
            g.tensorCoreRatio = double(tc) / double(all);
        }
        out.gpus.push_back(std::move(g));
    }
    if (anyKernel) {
        for (PyTorchGpuMetrics &g : out.gpus)
            g.tensorCoreRatio = g.tensorCoreRatio.value_or(0.0);
    }
}

// §2.5's TC-eligible kernel ratio: kernel self time of the "bottom" eligible nodes (eligible,
// nothing eligible below) over kernel self time of all operator nodes.
double tensorCoreEligibleRatio(const OperatorTree &tree)
{
    const KinetoIndex &index = *tree.index;
    std::vector<char> eligibleBelow(tree.nodes.size(), 0);
    TimePs bottom = 0;
    TimePs operators = 0;
    // Children have larger indices than their parents: reverse order sees children first.
    for (uint32_t id = uint32_t(tree.nodes.size()); id-- > 0;) {
        const OpNode &node = tree.nodes[id];
        if (node.mergedInto != kNoIndex || node.nodeClass == OpNodeClass::Root)
            continue;
        TimePs selfKernel = 0;
        for (uint32_t r : node.runtimes) {
            for (uint32_t a : index.activitiesOf(r)) {
                const KinetoActivity &act = index.activities[a];
                selfKernel += act.role == SliceRole::Kernel ? act.end - act.start : 0;
            }
        }
        operators += node.isOperator ? selfKernel : 0;
        if (node.tensorCoreEligible && !eligibleBelow[id])
            bottom += selfKernel;
        if (node.parent != kNoIndex && (node.tensorCoreEligible || eligibleBelow[id]))
            eligibleBelow[node.parent] = 1;
    }
    return operators > 0 ? double(bottom) / double(operators) : 0.0;
}

// Whether a device has tensor / matrix cores: NVIDIA from compute capability 7 (Volta), AMD
// Instinct (CDNA: MI100 and later).
bool hasTensorOrMatrixCores(const GpuDeviceInfo &d)
{
    if (d.name.find("Instinct") != std::string::npos || d.name.find("MI3") != std::string::npos ||
        d.name.find("MI2") != std::string::npos || d.name.find("MI1") != std::string::npos)
        return true;
    return isNvidiaName(d.name) && d.hasComputeCapability() && d.computeMajor >= 7;
}

// The checks the 2021 rules could not know: GEMMs on CUDA cores of a GPU that has tensor cores,
// and many short kernels launched one by one with no graph replay (decode without CUDA graphs).
void addWorkloadRecommendations(const Trace &trace, const KinetoIndex &index,
                                KernelClasses &classes, PyTorchOverview &out)
{
    const auto &devices = trace.info.run.devices;
    const bool matrixHardware = std::any_of(devices.begin(), devices.end(), hasTensorOrMatrixCores);
    const bool amd = std::any_of(devices.begin(), devices.end(), [](const GpuDeviceInfo &d) {
        return d.name.find("AMD") != std::string::npos || d.name.find("Instinct") != std::string::npos;
    });
    double kernelTime = 0, plainGemm = 0;
    std::vector<TimePs> durations;
    for (const KinetoActivity &act : index.activities) {
        if (act.role != SliceRole::Kernel)
            continue;
        const KernelClass &kc = classes.of(act.ref);
        const double d = double(act.end - act.start);
        kernelTime += d;
        durations.push_back(act.end - act.start);
        if (kc.family == KernelFamily::Gemm && !kc.tensorCore)
            plainGemm += d;
    }
    const bool ampAdvised =
        std::any_of(out.recommendations.begin(), out.recommendations.end(),
                    [](const PyTorchRecommendation &r) { return r.kind == RecommendationKind::EnableAmp; });
    if (matrixHardware && !ampAdvised && kernelTime > 0 && plainGemm / kernelTime > 0.1)
        out.recommendations.push_back(
            {RecommendationKind::GemmWithoutTensorCores,
             percentText(plainGemm / kernelTime) + " % of the kernel time is in GEMM kernels "
                 "that do not use " + std::string(amd ? "Matrix" : "Tensor") +
                 " Cores, although this GPU has them. FP32 matrix products run on the vector "
                 "units: bf16 / fp16 autocast, or TF32 (torch.backends.cuda.matmul."
                 "allow_tf32), moves them to the " + std::string(amd ? "Matrix" : "Tensor") +
                 " Cores."});

    bool graphLaunch = false;
    double launchTime = 0;
    for (uint32_t r = 0; r < index.runtimes.size(); ++r) {
        const KinetoRuntime &rt = index.runtimes[r];
        if (index.activitiesOf(r).empty())
            continue;
        graphLaunch = graphLaunch || trace.name(rt.ref).find("GraphLaunch") != std::string_view::npos;
        launchTime += double(rt.end - rt.start);
    }
    if (graphLaunch || durations.size() < 100 || kernelTime <= 0)
        return;
    std::nth_element(durations.begin(), durations.begin() + long(durations.size() / 2),
                     durations.end());
    const TimePs median = durations[durations.size() / 2];
    const bool lowUtilization = std::any_of(out.gpus.begin(), out.gpus.end(), [](const auto &g) {
        return g.utilization && *g.utilization < 0.7;
    });
    constexpr TimePs kShortKernel = 20 * 1000000; // 20 µs
    if (median <= kShortKernel && lowUtilization && launchTime >= 0.5 * kernelTime) {
        char text[512];
        std::snprintf(text, sizeof text,
                      "Launch-bound: %zu kernels with a median of %.1f µs; the CPU spends %.2f ms "
                      "in launch calls against %.2f ms of kernel time, and no CUDA / HIP graph is "
                      "replayed. Capturing the repeated step in a graph (CUDA graphs in the "
                      "serving engine, torch.compile mode=\"reduce-overhead\") removes the "
                      "per-kernel launch cost.",
                      durations.size(), double(median) / 1e6, launchTime / 1e9, kernelTime / 1e9);
        out.recommendations.push_back({RecommendationKind::LaunchBound, text});
    }
}

void addRecommendations(const Trace &trace, const CategoryRanges &ranges, const KinetoIndex &index,
                        KernelClasses &classes,
                        const PyTorchMemory &memory, PyTorchOverview &out)
{
    auto add = [&](RecommendationKind kind, std::string text) {
        out.recommendations.push_back({kind, std::move(text)});
    };
    const auto &devices = trace.info.run.devices;
    const double total = out.average.total;
    const double dataLoader = out.average[BreakdownCategory::DataLoader];
    if (total > 0 && dataLoader / total > 0.05)
        add(RecommendationKind::DataLoader,
            "The input pipeline takes " + percentText(dataLoader / total) +
                " % of the step time. Loading batches in worker processes (DataLoader "
                "num_workers > 0) lets data loading overlap with training.");
    if (ranges.usesDp && index.devices.size() > 1)
        add(RecommendationKind::UseDdp,
            "DataParallel drives " + std::to_string(index.devices.size()) +
                " GPUs from one process. DistributedDataParallel, with one process per GPU, "
                "usually scales better.");
    const bool ncclCapable =
        std::any_of(devices.begin(), devices.end(), [](const GpuDeviceInfo &d) {
            return d.hasComputeCapability() &&
                   (d.computeMajor > 3 || (d.computeMajor == 3 && d.computeMinor >= 5));
        });
    if (ranges.usesDdp && !ranges.seenNccl && ncclCapable)
        add(RecommendationKind::UseNccl,
            "DistributedDataParallel runs without NCCL collectives. On these GPUs the NCCL "
            "backend is usually the fastest for gradient communication.");
    const double comm = out.average[BreakdownCategory::Communication];
    if (total > 0 && comm / total > 0.1) {
        const double all = out.average.communicationTotal;
        const std::string hidden =
            all > 0 ? " (computation hides " + percentText(out.average.communicationOverlapped / all) +
                          " % of the communication kernels' time)"
                    : std::string();
        add(RecommendationKind::Communication,
            "Communication that no computation overlaps takes " + percentText(comm / total) +
                " % of the step time" + hidden +
                ". Overlapping it with computation (bucketed gradient reduction, prefetching "
                "parameters, splitting micro-batches), gradient accumulation or a larger batch "
                "size reduce its share.");
    }
    std::string low;
    for (const PyTorchGpuMetrics &g : out.gpus) {
        if (g.utilization && *g.utilization < 0.5)
            low += (low.empty() ? "" : ", ") + std::to_string(g.device) + " (" +
                   percentText(*g.utilization) + " %)";
    }
    if (!low.empty())
        add(RecommendationKind::LowGpuUtilization,
            "Low GPU utilization: GPU " + low +
                ". A larger batch size gives each kernel more work; the step breakdown shows "
                "where the GPU waits.");
    // The tensor-core kernel names are NVIDIA's, and so is compute capability 7 as the first
    // with tensor cores: on an AMD or other GPU neither test means anything.
    if (!devices.empty() && isNvidiaName(devices.front().name) && devices.front().computeMajor >= 7
        && out.tensorCoreUsedRatio == 0.0 &&
        out.tensorCoreEligibleRatio > 0) {
        // Shown rounded to whole percent like upstream, but a share that rounds to 0 says so.
        const long pct = std::lround(100 * out.tensorCoreEligibleRatio);
        const std::string eligible = pct > 0 ? std::to_string(pct) : std::string("under 1");
        add(RecommendationKind::EnableAmp,
            "No kernel uses Tensor Cores, yet " + eligible +
                " % of the operator kernel time is in operators that could. Automatic mixed "
                "precision (torch.autocast) enables them.");
    }
    addWorkloadRecommendations(trace, index, classes, out);
    // GPUs only: upstream also compared CPU peaks with the last GPU's memory (a quirk).
    for (const DeviceMemory &d : memory.devices) {
        const GpuDeviceInfo *info = d.deviceType == 1 ? trace.info.run.device(d.deviceId) : nullptr;
        if (!info || info->totalGlobalMemBytes == 0 ||
            double(d.peakAllocated) <= 0.9 * double(info->totalGlobalMemBytes))
            continue;
        const double gib = 1024.0 * 1024.0 * 1024.0;
        char gb[64];
        std::snprintf(gb, sizeof gb, "%.2f GB of %.2f GB", double(d.peakAllocated) / gib,
                      double(info->totalGlobalMemBytes) / gib);
        add(RecommendationKind::MemoryAtLimit,
            "Peak memory on " + d.name + " reaches " +
                percentText(double(d.peakAllocated) / double(info->totalGlobalMemBytes)) + " % (" +
                gb + "). Gradient checkpointing or mixed precision lower the peak.");
        break;
    }
}

double nearestRank(const std::vector<double> &sorted, double p)
{
    const size_t rank = size_t(std::ceil(p / 100.0 * double(sorted.size())));
    return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

void collectIterations(const PyTorchSteps &steps, PyTorchOverview &out)
{
    if (!steps.fromIterations)
        return;
    std::map<IterationKind, std::vector<double>> byKind;
    for (const PyTorchStep &step : steps.steps) {
        ServingIteration it;
        it.name = step.iterationLabel;
        it.kind = step.iteration.kind;
        it.latencyMs = double(step.hostDuration()) / 1e9;
        it.batchSize = step.iteration.batchSize;
        it.tokens = step.iteration.tokens;
        byKind[it.kind].push_back(it.latencyMs);
        out.iterations.push_back(std::move(it));
    }
    for (IterationKind kind : {IterationKind::Prefill, IterationKind::Decode, IterationKind::Mixed,
                               IterationKind::Unknown}) {
        auto found = byKind.find(kind);
        if (found == byKind.end())
            continue;
        std::vector<double> &v = found->second;
        std::sort(v.begin(), v.end());
        LatencyPercentiles p;
        p.count = int64_t(v.size());
        p.p50 = nearestRank(v, 50);
        p.p90 = nearestRank(v, 90);
        p.p99 = nearestRank(v, 99);
        out.iterationLatency.push_back(
            {kind == IterationKind::Unknown ? std::string("unknown") : iterationKindName(kind), p});
    }
}

} // namespace

const char *breakdownCategoryName(BreakdownCategory category)
{
    static const char *const names[kBreakdownCategoryCount] = {
        "Kernel",  "Memcpy",     "Memset",   "Communication",
        "Runtime", "DataLoader", "CPU Exec", "Other"};
    return int(category) < kBreakdownCategoryCount ? names[int(category)] : "";
}

const char *breakdownCategoryKey(BreakdownCategory category)
{
    static const char *const keys[kBreakdownCategoryCount] = {
        "kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec", "other"};
    return int(category) < kBreakdownCategoryCount ? keys[int(category)] : "";
}

bool PyTorchOverview::categoryPresent(BreakdownCategory c) const
{
    switch (c) {
    case BreakdownCategory::Kernel:
    case BreakdownCategory::Memcpy:
    case BreakdownCategory::Memset:
    case BreakdownCategory::Runtime:
        return hasGpuColumns;
    case BreakdownCategory::Communication:
        return hasCommunication;
    default:
        return c != BreakdownCategory::Count;
    }
}

PyTorchOverview computePyTorchOverview(const Trace &trace, const OperatorTree &tree,
                                       const PyTorchSteps &steps, const PyTorchMemory &memory)
{
    PyTorchOverview out;
    const KinetoIndex &index = *tree.index;
    KernelClasses classes(trace);
    const CategoryRanges ranges = collectRanges(trace, index, classes);
    computeBreakdown(steps, ranges, out);
    out.hasGpuColumns = ranges.hasGpuColumns;
    out.hasCommunication = !ranges.lists[size_t(BreakdownCategory::Communication)].empty();
    // Kernel, Memcpy, Memset and the communication kernels are all index activities.
    // The plugin's rule for PyTorch; another profiler's capture that lists its GPUs was taken
    // on them even when it recorded no GPU activity (an Nsight export without a kernel table).
    const bool listsGpus = !isPyTorchTrace(trace) && !trace.info.run.devices.empty();
    out.deviceType = index.activities.empty() && !listsGpus ? PyTorchDeviceType::Cpu
                                                            : PyTorchDeviceType::Gpu;
    out.usesDataParallel = ranges.usesDp;
    out.usesDistributedDataParallel = ranges.usesDdp;
    out.allStart = steps.allStart();
    out.allEnd = steps.allEnd();
    out.traceBegin = trace.begin;
    computeGpuMetrics(trace, tree, classes, out);
    out.tensorCoreEligibleRatio = tensorCoreEligibleRatio(tree);
    collectIterations(steps, out);
    addRecommendations(trace, ranges, index, classes, memory, out);
    return out;
}

PyTorchOverview computePyTorchOverview(const Trace &trace)
{
    const OperatorTree tree = buildOperatorTree(trace);
    return computePyTorchOverview(trace, tree, computePyTorchSteps(trace, *tree.index),
                                  computePyTorchMemory(trace, tree));
}

std::shared_ptr<const PyTorchOverview> pytorchOverview(AnalysisCache &cache)
{
    return cache.get<PyTorchOverview>([](AnalysisCache &c) {
        return computePyTorchOverview(c.trace(), *operatorTree(c), *pytorchSteps(c),
                                      *pytorchMemory(c));
    });
}

} // namespace tracedesk::core::analysis::pytorch
