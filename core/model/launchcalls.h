#pragma once

// The runtime and driver calls that queue work on a GPU stream: kernel, memcpy and memset
// launches of CUDA (runtime and driver) and HIP. A stream's launch queue counts these calls whose
// work has not started yet (PYTORCH.md §3.6).

#include <string_view>

namespace tracedesk::core {

namespace launchcalls {
inline bool upperAt(std::string_view n, size_t i)
{
    return n.size() > i && n[i] >= 'A' && n[i] <= 'Z';
}
// cuMemcpy..., cuLaunchKernel: the CUDA driver API (not the runtime's cuda...).
inline bool isCudaDriverName(std::string_view n)
{
    return n.starts_with("cu") && upperAt(n, 2);
}
} // namespace launchcalls

// A CUDA runtime or driver, HIP or HSA API call by its name (cudaMemcpy, cuMemcpyHtoD_v2,
// hipGraphLaunch, hsa_signal_wait ...), as opposed to a launch an older TensorFlow capture names
// after the kernel it launched.
inline bool isGpuApiCallName(std::string_view n)
{
    using namespace launchcalls;
    return (n.starts_with("cuda") && upperAt(n, 4)) || isCudaDriverName(n)
           || (n.starts_with("hip") && upperAt(n, 3)) || n.starts_with("hsa_");
}

// A CUDA driver or HIP copy or set queued on a stream (cuMemcpyHtoDAsync_v2, cuMemsetD32Async,
// hipMemcpyDtoDAsync ...): how XLA's GPU runtime moves memory. PyTorch queues its copies with
// cudaMemcpyAsync / hipMemcpyAsync, so HTA's lists have no need to name these.
inline bool isDriverAsyncTransfer(std::string_view n)
{
    if (!launchcalls::isCudaDriverName(n) && !n.starts_with("hip"))
        return false;
    const bool transfer = n.find("Memcpy") != std::string_view::npos
                          || n.find("Memset") != std::string_view::npos;
    return transfer && n.find("Async") != std::string_view::npos;
}

inline bool isQueueingLaunch(std::string_view n)
{
    return isDriverAsyncTransfer(n) || n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC"
           || n == "cudaMemcpyAsync" || n == "cudaMemsetAsync" || n == "cuLaunchKernel" || n == "cuLaunchKernelEx"
           || n == "hipLaunchKernel" || n == "hipExtModuleLaunchKernel"
           || n == "hipModuleLaunchKernel" || n == "hipMemcpyAsync" || n == "hipMemsetAsync"
           || n == "hipMemcpyWithStream";
}

} // namespace tracedesk::core
