#pragma once

// Roofline Model: the device's rooflines and where the profile's work sits under them.
//
// Rooflines: peak FLOP rate and one bandwidth line per memory the profile reports (HBM always;
// on-chip SRAM, CMEM and VMEM read/write when the device plane gives their peaks). Each memory's
// ridge point is peak FLOP rate / its bandwidth, in FLOP per byte.
//
// Points: the whole profile ("Total"), each step, and the top ops by self time. A point is
// (operational intensity = flops / bytes accessed, FLOP rate). Ops use XProf's per-op rule
// (flops / op time); the whole profile and each step use their summed FLOPs over their summed op
// self time, i.e. the rate while the device runs ops (idle gaps would otherwise pull every
// aggregate down the same way). Bound-by follows the HBM ridge point as in HloStats.
//
// Plain value computed from an immutable trace; any thread.

#include "core/analysis/analysiscache.h"
#include "core/analysis/hlostats.h"
#include "core/analysis/opmetrics.h"

#include <optional>
#include <string>
#include <vector>

namespace tracedesk::core::analysis {

struct Roofline
{
    std::string memory;                 // "HBM", "SRAM read", "VMEM write", ...
    double peakGigaBytesPerSecond = 0;
    double ridgePoint = 0;              // FLOP per byte
};

struct RooflinePoint
{
    enum class Kind : uint8_t { Total, Step, Op };
    Kind kind = Kind::Op;
    std::string step;                   // "Total", or the step's name; for ops the scope
    std::string category;               // ops: HLO category; aggregates: "Program"
    std::string name;                   // op name, "Total" or "Step <name>"
    int64_t occurrences = 0;
    double totalTimeUs = 0;
    double totalSelfTimeUs = 0;
    double selfTimePercent = 0;         // of all op self time, 0-100
    std::optional<double> flops;
    std::optional<double> bytesAccessed;
    std::optional<double> gflopsPerSecond;
    std::optional<double> hbmBwGibPerSecond;
    std::optional<double> operationalIntensity;
    std::string boundBy;
};

struct RooflineModel
{
    std::string deviceType;
    double peakGigaFlopsPerSecond = 0;  // 0 when unknown
    std::vector<Roofline> rooflines;    // HBM first
    std::vector<RooflinePoint> points;  // Total, steps in order, then ops by self time
    std::string source;                 // "profile" or the tool file read
    std::string note;                   // why points or lines are missing, if they are
};

struct RooflineOptions
{
    int topOps = 100;                   // ops listed, by self time
    int maxSteps = 200;                 // each step costs one scan of the device ops
};

struct RooflineStep
{
    std::string name;
    TimeRange range;
};

// `table`: the profile's HLO Op Stats (its op points, and the whole profile's costs when they are
// estimated). `steps` are scanned in order, at most options.maxSteps of them.
RooflineModel buildRoofline(const Trace &trace, const OpStats &stats, const HloStats &table,
                            const std::vector<RooflineStep> &steps,
                            const RooflineOptions &options = {});
std::shared_ptr<const RooflineModel> rooflineModel(AnalysisCache &cache);

} // namespace tracedesk::core::analysis
