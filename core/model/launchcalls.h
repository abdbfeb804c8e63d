#pragma once

// The runtime and driver calls that queue work on a GPU stream: kernel, memcpy and memset
// launches of CUDA (runtime and driver) and HIP. A stream's launch queue counts these calls whose
// work has not started yet (PYTORCH.md §3.6).

#include <string_view>

namespace tracedesk::core {

// A CUDA driver or HIP copy or set queued on a stream (cuMemcpyHtoDAsync_v2, cuMemsetD32Async,
// hipMemcpyDtoDAsync ...): how XLA's GPU runtime moves memory. PyTorch queues its copies with
// cudaMemcpyAsync / hipMemcpyAsync, so HTA's lists have no need to name these.
inline bool isDriverAsyncTransfer(std::string_view n)
{
    const bool driver = n.size() > 2 && n.starts_with("cu") && n[2] >= 'A' && n[2] <= 'Z';
    if (!driver && !n.starts_with("hip"))
        return false;
    const bool transfer = n.find("Memcpy") != std::string_view::npos
                          || n.find("Memset") != std::string_view::npos;
    return transfer && n.find("Async") != std::string_view::npos;
}

inline bool isQueueingLaunch(std::string_view n)
{
    return isDriverAsyncTransfer(n) || n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC" || n == "cudaMemcpyAsync"
           || n == "cudaMemsetAsync" || n == "cuLaunchKernel" || n == "cuLaunchKernelEx"
           || n == "hipLaunchKernel" || n == "hipExtModuleLaunchKernel"
           || n == "hipModuleLaunchKernel" || n == "hipMemcpyAsync" || n == "hipMemsetAsync"
           || n == "hipMemcpyWithStream";
}

} // namespace tracedesk::core
