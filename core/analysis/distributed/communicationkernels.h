#pragma once

// Communication kernels: which GPU kernels of a PyTorch profiler (Kineto) trace are collective
// communication, what kind of collective they run and how many bytes they move. Which kernels
// communicate is the shared classification's rule (core/analysis/kernels/kernelclass.h: NCCL,
// RCCL, HCCL, MSCCL++, NVSHMEM, DeepEP, symmetric memory, custom all-reduce), so the
// Distributed panel and the Overview count the same kernels.
//
// Pure functions, no state; safe from any thread.

#include <cstdint>
#include <string>
#include <string_view>

namespace tracedesk::core::analysis::distributed {

bool isCommunicationKernelName(std::string_view name);

// The kernel name without its argument list ("ncclDevKernel_AllReduce_Sum_f16_RING_LL").
std::string_view kernelBaseName(std::string_view name);

// The collective a communication kernel runs, read from its name: the word after
// `ncclKernel_` / `ncclDevKernel_` ("AllReduce", "SendRecv", "AllGather", "Generic"...), else the
// base name. Used when the trace carries no "Collective name" arg.
std::string collectiveKindFromName(std::string_view name);

// Communication among the device ops of a trace without PyTorch kernel records (XSpace GPU
// streams, TPU XLA ops), by name, case-insensitive: the kernel rule above, or a collective's
// HLO / library name — all-reduce, all-gather, reduce-scatter, all-to-all,
// collective-permute (also written without the dash or with `_`), and send / recv ops (`send`,
// `recv-done.3`). The same words TraceDesk's pod viewer would file under collectives.
bool isCommunicationOpName(std::string_view name);

// Bytes of one element of a PyTorch dtype as record_param_comms writes it ("Float", "BFloat16",
// "Half", "Long", "Int", "Byte", "Bool", "Double", ...); 0 when unknown.
int64_t dtypeBytes(std::string_view dtype);

} // namespace tracedesk::core::analysis::distributed
