#pragma once

// The runtime and driver calls that queue work on a GPU stream: kernel, memcpy and memset
// launches of CUDA (runtime and driver) and HIP. A stream's launch queue counts these calls whose
// work has not started yet (PYTORCH.md §3.6).

#include <string_view>

namespace tracedesk::core {

inline bool isQueueingLaunch(std::string_view n)
{
    return n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC" || n == "cudaMemcpyAsync"
           || n == "cudaMemsetAsync" || n == "cuLaunchKernel" || n == "cuLaunchKernelEx"
           || n == "hipLaunchKernel" || n == "hipExtModuleLaunchKernel"
           || n == "hipModuleLaunchKernel" || n == "hipMemcpyAsync" || n == "hipMemsetAsync"
           || n == "hipMemcpyWithStream";
}

} // namespace tracedesk::core
