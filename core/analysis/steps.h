#pragma once

// StepDb: the steps of a profile and where their time went (FORMATS.md 2.2-2.4).
//
// GPU/CPU: per step (group), the longest device step marker (`Steps` line; for a space grouped
// here, the Steps line XProf would derive from the groups) and the longest host step marker
// (`train*`/`test*`/`TraceContext`, or a group root with a step name) give the step span; host
// and device events of the step are swept into non-overlapping intervals where the
// higher-priority EventType owns overlapping time, clipped to the span; uncovered time is
// UnknownTime. TPU: the `Steps` line of each TensorCore plane, with the self time of its
// `XLA Ops` grouped by HLO category (tpubreakdown.h).
//
// Plain value; immutable once built and safe to share across threads. Invariants: steps are
// sorted by begin; for generic steps sum(typePs) == duration; only steps with device compute
// (or host compute without devices) are kept.

#include "core/analysis/analysiscache.h"
#include "core/analysis/eventgrouping.h"
#include "core/base/rarevalue.h"
#include "core/base/sparsearray.h"
#include "core/model/trace.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace tracedesk::core::analysis {

// XProf's EventType; the enum order is the priority (a later value wins an overlap).
enum class EventType : uint8_t {
    UnknownTime,
    HostCompute,
    HostPreprocess,
    HostPostprocess,
    HostBatchFormation,
    HostRuntime,
    HostCompile,
    HostToHost,
    HostToDevice,
    HostPrepare,
    DeviceCollectives,
    HostWaitInput,
    DeviceToDevice,
    DeviceToHost,
    DeviceCompute32,
    DeviceCompute16,
    DeviceWaitDevice,
    DeviceWaitHost,
    Count
};
inline constexpr int kEventTypeCount = int(EventType::Count);
const char *eventTypeName(EventType type);

struct Diagnostics
{
    std::vector<std::string> info;
    std::vector<std::string> warnings;
    std::vector<std::string> errors;
    bool empty() const { return info.empty() && warnings.empty() && errors.empty(); }
};

// Diagnostic texts (FORMATS.md 2.6).
extern const char *const kNoStepMarkerMessage;
extern const char *const kNoDeviceTraceMessage;
extern const char *const kIncompleteStepMessage;
std::string stepsDroppedMessage(int count);

enum class StepHardware : uint8_t { None, CpuOnly, Gpu, Tpu };

// TpuStepBreakdown of one TensorCore in one step (FORMATS.md 2.4), in picoseconds.
struct TpuCoreStep
{
    uint32_t plane = 0;             // index into Trace::planes
    int64_t coreId = 0;             // XPlane id of the TensorCore
    TimePs stepPs = 0;
    TimePs infeedPs = 0;
    TimePs hostOutfeedPs = 0;
    TimePs crsPs = 0;               // all-reduce / all-gather / all-to-all ...
    TimePs sendPs = 0;
    TimePs recvPs = 0;
    TimePs hostSendPs = 0;
    TimePs hostRecvPs = 0;
    TimePs highFlopsComputePs = 0;  // convolution and its fusions
    TimePs tcBusyPs = 0;            // sum of op self time
    TimePs tcIdlePs = 0;            // step - busy
    std::vector<std::pair<std::string, TimePs>> categoryPs;   // by HLO category, descending
};

// PerTpuStepDetails: one step across the TensorCores, in milliseconds.
struct TpuStepDetails
{
    double tcComputeMs = 0;
    double tcIdleMs = 0;
    double tcInfeedMs = 0;
    double tcOutfeedMs = 0;
    double infeedPercentAverage = 0;
    double infeedPercentMinimum = 0;
    double infeedPercentMaximum = 0;
    int64_t coreIdMaxInfeed = 0;
    std::string maxInfeedCoreName;
    double allReduceComputeMs = 0;
    double allReduceSyncMs = 0;
    double hostTransferMs = 0;
};

struct StepInfo
{
    int64_t groupId = 0;
    std::string name;               // step name (defaults to the group id)
    TimePs begin = 0;
    TimePs duration = 0;            // TPU: max over cores
    SparseArray<TimePs, kEventTypeCount> typePs;    // GPU/CPU only
    std::vector<TpuCoreStep> cores;                 // TPU only
    RareValue<TpuStepDetails> tpu;                  // TPU only (held when set)

    TimePs type(EventType t) const { return typePs[size_t(t)]; }
};

struct StepDb
{
    StepHardware hardware = StepHardware::None;
    bool hasDevice = false;
    bool groupedInFile = false;
    // The steps of one side of a comparison, in pair order: step i of one side is step i of the
    // other, so no step is skipped as incomplete when pairing.
    bool stepsArePaired = false;
    std::vector<StepInfo> steps;
    int droppedSteps = 0;
    TimePs compute16Ps = 0;         // DEVICE_COMPUTE_16 over kept steps (precision split)
    TimePs compute32Ps = 0;
    Diagnostics diagnostics;
};

struct StepDbOptions
{
    bool dropIncompleteSteps = false;   // XProf's maybe_drop_incomplete_steps (off by default)
    // The most spans the walk holds at a time (17 bytes each): the groups are swept in batches
    // of about this many (a group bigger than that is a batch of its own).
    uint64_t batchSpans = uint64_t(1) << 22;
};

StepDb computeStepDb(const Trace &trace, const StepGroups &groups, const StepDbOptions &options = {});
std::shared_ptr<const StepDb> stepDb(AnalysisCache &cache);

namespace detail {
// Memcpy direction of an activity name (XProf's MEMCPYHToD... prefixes, plus the CUPTI
// spellings MemcpyH2D/D2H/D2D/H2H); 0 none, 1 HToD, 2 DToH, 3 DToD, 4 HToH.
int memcpyKind(std::string_view name);
// TensorCore plane: `/device:TPU:<N>` exactly.
bool isTensorCorePlaneName(std::string_view name);
bool isDerivedLineId(int64_t id);
std::vector<StepInfo> computeTpuSteps(const Trace &trace, const StepGroups &groups);
} // namespace detail

} // namespace tracedesk::core::analysis
