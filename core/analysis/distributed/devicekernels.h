#pragma once

// Device kernels and steps of a trace without PyTorch kernel records — an XSpace host of a
// multi-host run — for the distributed summary, so such a run gets the same per-rank numbers.
//
// Kernels: the slices on the device planes' kernel lines — GPU streams (`Stream #...` lines)
// and TPU op lines (`XLA Ops`) — except memory copies and sets (names starting with Memcpy /
// Memset, any case). Steps: the slices of the first device plane's `Steps` line (XProf's step
// markers), named by the slice's name, in start order. Only the planes `scope` includes.
//
// Pure functions over an immutable Trace; safe from any thread.

#include "core/analysis/pytorch/kinetoindex.h"
#include "core/model/trace.h"

#include <string>
#include <vector>

namespace tracedesk::core::analysis::distributed {

struct DeviceKernel
{
    SliceRef ref;
    TimePs start = 0;
    TimePs end = 0;
};

struct DeviceStep
{
    std::string name;
    SliceRef ref;
    TimePs start = 0;
    TimePs end = 0;
};

std::vector<DeviceKernel> deviceKernels(const Trace &trace, const pytorch::KinetoScope &scope);
std::vector<DeviceStep> deviceSteps(const Trace &trace, const pytorch::KinetoScope &scope);

} // namespace tracedesk::core::analysis::distributed
