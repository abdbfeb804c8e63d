#pragma once

// PyTorchOverview: the overview page of a PyTorch profiler (Kineto) trace, as torch-tb-profiler
// computed it (../shared/PYTORCH.md §2.3-2.5): the step-time breakdown, the GPU summary per
// device and the recommendations whose conditions hold.
//
// Design note (breakdown). Each category is a merged interval list over the whole trace, in
// priority order Kernel, Memcpy, Memset, Communication, Runtime, DataLoader, CPU Exec. Walking
// that order, a category keeps only the step time no earlier category took; what nobody took
// is Other. So per step the eight costs add up to the step length exactly. GPU work of all
// devices and streams is unioned. Choices (documented where upstream has a quirk):
// - Communication = the communication kernels: those of the shared classification
//   (core/analysis/kernels/kernelclass.h: NCCL, RCCL, MSCCL++, NVSHMEM, DeepEP, symmetric
//   memory, custom all-reduce) and those launched from a collective CPU range (CpuOp /
//   UserAnnotation named `nccl:*`, `gloo:*` or `record_param_comms`, by External id). The
//   collective CPU ranges count themselves only in a trace with no communication kernel (gloo,
//   CPU-side collectives); otherwise the kernels stand for them and the ranges (launches,
//   stream waits) are CPU Exec. So in a GPU trace the step's
//   Communication is the communication-kernel time no computation kernel, memcpy or memset
//   overlaps: the same kernels the Distributed panel counts. Upstream knew only five names and
//   the External id match (which loses every NCCL kernel of current PyTorch, pytorch/kineto#782)
//   and added the CPU ranges, which made Communication disagree with any GPU-side count.
//   `communicationTotal` / `communicationOverlapped` per step give all of the communication
//   kernels' time and the part computation hides.
// - CPU Exec = the other CpuOp / UserAnnotation slices on host threads except the step markers.
//   Device-side annotations (GpuAnnotation) are NOT CPU Exec (upstream counts them, which makes
//   every annotated stretch of GPU time look like CPU work); Python tracer frames are not either.
// - Runtime includes driver-API launches (cuda_driver), which carry role Runtime.
//
// Design note (GPU metrics), per device (a kernel's Device column, else its plane id), over the
// all-steps window [S, E] of pytorchsteps.h: utilization = busy kernel time / (E - S); est. SM
// efficiency sweeps kernel start/end points summing blocks per SM, clips each elementary
// interval's sum to 1, and integrates it over [S, E] / (E - S); est. achieved occupancy is the
// occupancy weighted by each kernel's duration clipped to [S, E]. Kernel time using tensor cores
// is over every kernel of the device, flagged by the shared classification, so it is the share
// Kernel Stats shows. (Upstream counted only kernels its External id rule tied to an operator,
// which reads 0 % on CUDA-graph replays and on traces whose launches carry no op's id.)
//
// Plain value; immutable once built, safe to share across threads.

#include "core/analysis/analysiscache.h"
#include "core/analysis/pytorch/operatortree.h"
#include "core/analysis/pytorch/pytorchmemory.h"
#include "core/analysis/pytorch/pytorchsteps.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core::analysis::pytorch {

// In priority order: an earlier category owns time it shares with a later one.
enum class BreakdownCategory : uint8_t {
    Kernel,
    Memcpy,
    Memset,
    Communication,
    Runtime,
    DataLoader,
    CpuExec,
    Other,
    Count
};
inline constexpr int kBreakdownCategoryCount = int(BreakdownCategory::Count);
const char *breakdownCategoryName(BreakdownCategory category); // "Kernel", ..., "CPU Exec"
// The category in JSON keys: "kernel", "memcpy", ..., "cpu_exec", "other".
const char *breakdownCategoryKey(BreakdownCategory category);

struct StepBreakdown
{
    std::string name;
    TimePs start = 0;
    TimePs end = 0;
    std::array<TimePs, kBreakdownCategoryCount> cost{}; // sums to total()
    TimePs communicationTotal = 0;      // communication kernels' time in the step, all of it
    TimePs communicationOverlapped = 0; // ... of which other GPU work overlaps (hidden)

    TimePs total() const { return end - start; }
    TimePs operator[](BreakdownCategory c) const { return cost[size_t(c)]; }
};

struct AverageBreakdown
{
    std::array<double, kBreakdownCategoryCount> cost{}; // mean over steps, ps
    double total = 0;
    double communicationTotal = 0;
    double communicationOverlapped = 0;

    double operator[](BreakdownCategory c) const { return cost[size_t(c)]; }
};

enum class PyTorchDeviceType : uint8_t { Cpu, Gpu };

struct PyTorchGpuMetrics
{
    int64_t device = 0;
    std::string name;                        // deviceProperties name, empty when unknown
    uint64_t memoryBytes = 0;                // totalGlobalMem, 0 when unknown
    double memoryGb = 0;                     // round(bytes / 1024^3, 2)
    std::string computeCapability;           // "major.minor", empty when unknown
    std::optional<double> utilization;       // fraction; absent without a step window
    std::optional<double> smEfficiency;      // fraction; absent when no range lies in [S, E]
    std::optional<double> achievedOccupancy; // percent; absent without weighted kernel time
    std::optional<double> tensorCoreRatio;   // fraction of the device's kernel time
};

enum class RecommendationKind : uint8_t {
    DataLoader,    // input pipeline dominates
    UseDdp,        // DataParallel on several devices
    UseNccl,       // DDP without NCCL on capable GPUs
    Communication, // communication dominates
    LowGpuUtilization,
    EnableAmp,    // tensor-core capable, eligible ops, no tensor-core kernels
    MemoryAtLimit, // peak allocated above 90 % of a GPU's memory
    GemmWithoutTensorCores, // GEMM time on CUDA cores of a GPU that has tensor / matrix cores
    LaunchBound             // short kernels, launch gaps, no graph launches
};

struct PyTorchRecommendation
{
    RecommendationKind kind = RecommendationKind::DataLoader;
    std::string text;
};

// One serving-engine iteration (pytorchsteps.h, servingiterations.h); latency = the length of
// its annotation on the host.
struct ServingIteration
{
    std::string name; // the annotation's name
    IterationKind kind = IterationKind::Unknown;
    double latencyMs = 0;
    int64_t batchSize = -1; // -1 when the name does not say
    int64_t tokens = -1;
};

// Nearest-rank percentiles of the iteration latencies of one kind.
struct LatencyPercentiles
{
    int64_t count = 0;
    double p50 = 0;
    double p90 = 0;
    double p99 = 0;
};

struct PyTorchOverview
{
    std::vector<StepBreakdown> steps; // the kept steps of pytorchsteps.h
    AverageBreakdown average;
    bool hasGpuColumns = false;    // any runtime, kernel, memcpy or memset
    bool hasCommunication = false; // the Communication category is non-empty
    PyTorchDeviceType deviceType = PyTorchDeviceType::Cpu;
    TimePs allStart = 0; // the GPU metrics window [S, E]
    TimePs allEnd = 0;
    TimePs traceBegin = 0; // the analysed trace's begin: the timeline's zero
    std::vector<PyTorchGpuMetrics> gpus; // devices with kernels, by id
    double tensorCoreUsedRatio = 0;      // TC kernel time / all kernel time (whole file)
    double tensorCoreEligibleRatio = 0;  // §2.5: bottom eligible nodes' kernel self time share
    bool usesDataParallel = false;
    bool usesDistributedDataParallel = false;
    std::vector<PyTorchRecommendation> recommendations;
    std::vector<ServingIteration> iterations; // serving traces without ProfilerStep#N
    // Per iteration kind ("prefill", "decode", "mixed", "unknown"), in that order.
    std::vector<std::pair<std::string, LatencyPercentiles>> iterationLatency;

    // Whether the column is shown: Other and CPU Exec always; the GPU ones with hasGpuColumns;
    // DataLoader always; Communication only when non-empty.
    bool categoryPresent(BreakdownCategory c) const;
};

PyTorchOverview computePyTorchOverview(const Trace &trace, const OperatorTree &tree,
                                       const PyTorchSteps &steps, const PyTorchMemory &memory);
PyTorchOverview computePyTorchOverview(const Trace &trace);
std::shared_ptr<const PyTorchOverview> pytorchOverview(AnalysisCache &cache);

} // namespace tracedesk::core::analysis::pytorch
