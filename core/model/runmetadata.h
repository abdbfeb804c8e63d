#pragma once

// RunMetadata: what a profile says about the run that produced it, beyond its events — the
// framework that wrote it, the GPUs it saw (Kineto `deviceProperties`), the process group
// (`distributedInfo`) and the other top-level scalar keys, kept as text for display.
//
// Filled by the reader at load, stored with the trace (and its cache), read by the analyses.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tracedesk::core {

struct GpuDeviceInfo
{
    int64_t id = 0;
    std::string name;
    uint64_t totalGlobalMemBytes = 0;
    int64_t computeMajor = -1;            // -1: unknown
    int64_t computeMinor = -1;
    int64_t numSms = 0;
    int64_t maxThreadsPerMultiprocessor = 0;
    int64_t warpSize = 0;

    bool hasComputeCapability() const { return computeMajor >= 0 && computeMinor >= 0; }
};

struct DistributedInfo
{
    bool present = false;
    std::string backend;
    int64_t rank = -1;
    int64_t worldSize = 0;
};

struct RunMetadata
{
    // "pytorch" for Kineto traces; empty when the reader could not tell.
    std::string framework;
    // Where the trace's time 0 lies on the writer's own clock, in nanoseconds (epoch ns for
    // Kineto): what puts several files of one run on one clock. 0 when the file's times were
    // used as they are.
    int64_t clockOriginNs = 0;
    std::vector<GpuDeviceInfo> devices;
    DistributedInfo distributed;
    // Other top-level scalar keys as written (e.g. cuda_runtime_version), in file order.
    std::vector<std::pair<std::string, std::string>> properties;

    const GpuDeviceInfo *device(int64_t id) const
    {
        for (const GpuDeviceInfo &d : devices) {
            if (d.id == id)
                return &d;
        }
        return nullptr;
    }
};

} // namespace tracedesk::core
