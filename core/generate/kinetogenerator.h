#pragma once

// Synthetic PyTorch profiler (Kineto) traces for tests and benchmarks.
//
// generateKinetoTrace() writes about `options.events` traceEvents entries in the Kineto JSON
// dialect (PYTORCH.md section 1): one training process (rank 0 of a world of 1) that runs a
// small convolution + linear model split over two GPUs. Each step is a `ProfilerStep#N`
// user_annotation on the main thread holding a DataLoader range, the host-to-device copy, the
// forward cpu_op trees with their cudaLaunchKernel / cudaMemcpyAsync / cudaMemsetAsync calls,
// an `nccl:all_reduce`, `Optimizer.step#SGD.step`, `Optimizer.zero_grad#SGD.zero_grad` and
// `aten::item`; backward ops run on the autograd thread. Every launch has its GPU activity
// (kernels on several streams of both GPUs, memcpy, memset) joined by an ac2g flow whose id is
// the correlation; forward ops link to their backward ops with fwdbwd flows; every `[memory]`
// allocation is freed within its step (same Addr, negative Bytes). The last record-level events
// are the `PyTorch Profiler (0)` span and the Record Window End marker.
//
// The same options give a byte-identical file (the `traceName` member is fixed, not the output
// path). Output is streamed: memory stays flat whatever the event count. At least one step is
// written; the total overshoots `events` by less than one step (a few hundred entries).

#include "core/base/result.h"
#include "core/io/generator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tracedesk::core {

// What generateKinetoTrace() wrote. The per-kind counts add up to `events`; flows count pairs,
// each pair being two entries (one "s", one "f").
struct KinetoTraceStats
{
    uint64_t events = 0;          // every traceEvents entry
    uint64_t metadata = 0;        // ph "M"
    uint64_t userAnnotations = 0; // cat user_annotation
    uint64_t cpuOps = 0;          // cat cpu_op
    uint64_t runtime = 0;         // cat cuda_runtime
    uint64_t kernels = 0;         // cat kernel
    uint64_t memcpys = 0;         // cat gpu_memcpy
    uint64_t memsets = 0;         // cat gpu_memset
    uint64_t memoryEvents = 0;    // [memory] cpu_instant_event (allocations and frees)
    uint64_t ac2gFlows = 0;       // ac2g s/f pairs (one per GPU activity)
    uint64_t fwdbwdFlows = 0;     // fwdbwd s/f pairs
    uint64_t spans = 0;           // cat Trace ("PyTorch Profiler (0)")
    uint64_t globalInstants = 0;  // Iteration Start / Record Window End

    uint64_t steps = 0; // ProfilerStep#firstStep .. #firstStep+steps-1
    uint64_t firstStep = 0;
    uint64_t gpus = 0;                      // deviceProperties entries, GPU pids 0..gpus-1
    uint64_t streams = 0;                   // (device, stream) pairs with GPU activity
    std::vector<uint64_t> deviceActivities; // per GPU: kernels + memcpys + memsets
    std::vector<uint64_t> deviceStreams;    // per GPU: streams with activity
    int64_t cpuPid = 0;
    int64_t baseTimeNs = 0; // baseTimeNanoseconds
    int64_t beginNs = 0;    // capture window, relative to baseTimeNs
    int64_t endNs = 0;
    uint64_t fileBytes = 0;
};

Result<KinetoTraceStats> generateKinetoTrace(const GeneratorOptions &options,
                                             const std::string &path);

// The same trace summarised as generateTrace() reports it. Here `events` counts every
// traceEvents entry (metadata and flow records included), `slices` the X events plus the
// [memory] instants, `flows` the ac2g pairs; planes are "CPU", "GPU N" and "Spans".
Result<GeneratedTraceStats> generateKinetoTraceSummary(const GeneratorOptions &options,
                                                       const std::string &path);

} // namespace tracedesk::core
