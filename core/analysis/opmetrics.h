#pragma once

// Op metrics databases (FORMATS.md 2.8): per-op time, self time, occurrences, FLOPs and bytes,
// for the host (framework ops on host threads) and for the devices (GPU kernels rolled up to
// HLO or framework ops; TPU `XLA Ops` nesting), plus the device peaks (PerfEnv, 1.8) and the run
// environment (2.0). Every op-level tool (op profile, framework op stats, kernel stats, overview,
// input pipeline) reads these.
//
// The functions are pure: they read an immutable Trace and return plain values, so they may run
// on any thread. Each makes single linear passes over the Row columns and resolves names per
// EventKind (kinds are few), never per event.
//
// Invariants of an OpMetricsDb: `metrics` holds one entry per distinct (name, category) op,
// sorted by selfTimePs descending; selfTimePs <= timePs for every op; the IDLE op (when present)
// has name and category "IDLE"; totalOpTimePs = sum of non-IDLE op times (device) or of op self
// times (host); idleTimePs = max(0, totalTimePs - totalOpTimePs).

#include "core/analysis/analysiscache.h"
#include "core/model/trace.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core::analysis {

inline constexpr const char *kIdleOpName = "IDLE";

// Half-open [begin, end) in trace time; an event counts when its start lies inside.
struct TimeRange
{
    TimePs begin = 0;
    TimePs end = 0;
    bool contains(TimePs t) const { return t >= begin && t < end; }
};

// An op's bytes by memory space (OpMetrics::memoryBytes).
struct OpMemoryBytes
{
    double hbm = 0;            // read and written
    double cmemRead = 0, cmemWrite = 0;
    double vmemRead = 0, vmemWrite = 0;
};

struct OpMetrics
{
    std::string name;              // HLO op / framework op name / `<tf op>/<kernel>` / "IDLE"
    std::string longName;          // HLO expression or the full framework `name:type`
    std::string category;          // HLO category or framework op type ("Dataset", "MemcpyHToD")
    std::string provenance;        // framework op (`name:type`) that produced the op
    std::string deduplicatedName;  // canonical instruction this one duplicates, if any
    std::string layout;            // shape / layout text where known
    std::string hloModule;         // module name (device ops with a program), else empty
    std::string source;            // Python source line (`file:line`) where the profile has it
    bool isEager = false;
    int64_t hloModuleId = 0;       // program id; 0 when unknown
    int64_t occurrences = 0;
    TimePs timePs = 0;
    TimePs selfTimePs = 0;
    TimePs minTimePs = 0;          // shortest single occurrence
    double flops = 0;              // total over all occurrences
    double modelFlops = 0;
    double bytesAccessed = 0;      // total over all occurrences
    // Bytes by memory space, totals over all occurrences, from the op's
    // `memory_access_breakdown` (TPU); none when the profile has no breakdown for it.
    std::optional<OpMemoryBytes> memoryBytes;
    std::vector<OpMetrics> children;   // fusion members when the HLO is known

    bool isIdle() const { return name == kIdleOpName && category == kIdleOpName; }
};

struct OpMetricsDb
{
    std::vector<OpMetrics> metrics;
    TimePs totalTimePs = 0;         // device: last kernel end - first start; host: sum over
                                    // threads of each thread's op span (XProf, per line)
    TimePs totalOpTimePs = 0;       // sum of op time (without IDLE)
    TimePs idleTimePs = 0;
    TimePs busyTimePs = 0;          // totalTimePs - idleTimePs
    TimePs compute16bitPs = 0;      // device: op time of 16-bit compute ops
    TimePs compute32bitPs = 0;      // device: op time of 32-bit compute ops
    TimePs totalHostInfeedEnqDurationPs = 0;   // host: sum of infeed-enqueue op time

    const OpMetrics *find(std::string_view name) const;
    const OpMetrics *idle() const;
};

// Peak numbers of the device (FORMATS.md 1.8). Bandwidth vector order: HBM_RW, SRAM_RD, SRAM_WR,
// then on TPU CMEM_RD, CMEM_WR, VMEM_RD, VMEM_WR.
struct PerfEnv
{
    double peakTeraFlopsPerSecond = 0;
    double peakHbmBwGigaBytesPerSecond = 0;
    double ridgePoint = 0;                   // FLOP per byte; 0 when a peak is unknown
    std::vector<double> peakBwsGigaBytesPerSecond;
    bool hasCmem = false;
    bool hasMergedVmem = false;
    bool hasMegacore = false;
};

struct DeviceCapabilities
{
    double clockRateGhz = 0;
    uint32_t numCores = 0;
    uint64_t memorySizeBytes = 0;
    uint64_t memoryBandwidthBytesPerSecond = 0;
    int computeCapMajor = 0;
    int computeCapMinor = 0;
    std::string vendor;             // "Nvidia", "AMD", or empty
    std::string deviceName;         // gpu_device_name / device_type_string
};

enum class HardwareType : uint8_t { Unknown, CpuOnly, Gpu, Tpu };

struct RunEnvironment
{
    std::vector<std::string> hosts;
    int hostCount = 0;
    std::string deviceType;          // "Nvidia GPU (Volta)", "AMD GPU - gfx942", "TPU v6 Lite"
    int deviceCoreCount = 0;         // GPU planes / TensorCore planes
    HardwareType hardwareType = HardwareType::Unknown;
    DeviceCapabilities capabilities; // of the first device plane that has any
};

// One GPU kernel launch configuration aggregated per (kernel, dims, registers, shmem, op)
// (FORMATS.md 2.11).
struct KernelReport
{
    std::string name;
    std::string opName;
    uint32_t registersPerThread = 0;
    uint32_t staticShmemBytes = 0;
    uint32_t dynamicShmemBytes = 0;
    uint32_t blockDim[3] = {1, 1, 1};
    uint32_t gridDim[3] = {1, 1, 1};
    bool isKernelUsingTensorCore = false;
    bool isOpTensorCoreEligible = false;
    float occupancyPct = 0;
    int64_t occurrences = 0;
    TimePs totalDurationPs = 0;
    TimePs minDurationPs = 0;
    TimePs maxDurationPs = 0;
};

struct KernelStatsDb
{
    std::vector<KernelReport> reports;   // sorted by total duration, descending; at most 1000
    size_t distinctRows = 0;             // rows before XProf's cap of 1000
};

// Everything the op-level tools share, computed once per trace through the AnalysisCache.
struct OpStats
{
    OpMetricsDb host;
    OpMetricsDb device;
    PerfEnv perfEnv;
    RunEnvironment runEnvironment;
    KernelStatsDb kernelStats;
};

// Host framework ops on host threads: `name:type` -> category type, `Iterator::...` -> "Dataset",
// memcpy and infeed-enqueue types; self time from a begin/end stack per thread; plus IDLE.
OpMetricsDb hostOpMetrics(const Trace &trace, std::optional<TimeRange> range = std::nullopt);
// All device planes combined (GPU kernels and TPU XLA Ops), plus IDLE.
OpMetricsDb deviceOpMetrics(const Trace &trace, std::optional<TimeRange> range = std::nullopt);
KernelStatsDb kernelStats(const Trace &trace, std::optional<TimeRange> range = std::nullopt);
PerfEnv perfEnv(const Trace &trace);
DeviceCapabilities deviceCapabilities(const Trace &trace);
RunEnvironment runEnvironment(const Trace &trace);

// Whole-trace results, shared through the cache.
std::shared_ptr<const OpStats> opStats(AnalysisCache &cache);
OpStats computeOpStats(const Trace &trace, std::optional<TimeRange> range = std::nullopt);

// Rates (FORMATS.md 2.8 helper formulas). Zero when time is zero.
double gigaFlopsPerSecond(const OpMetrics &op);
double gigaBytesPerSecond(const OpMetrics &op);

} // namespace tracedesk::core::analysis
