#pragma once

// Synthetic PyTorch profiler (Kineto) traces for tests and benchmarks.
//
// generateKinetoTrace() writes about `options.events` traceEvents entries in the Kineto JSON
// dialect (PYTORCH.md section 1), recording the workload `options.kinetoShape` names. The
// `moe` and `serving` shapes are described in kinetoshapes.h; the default, `training`, is one
// training process (rank 0 of a world of 1) that runs a
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
// path). Output is streamed: memory stays flat whatever the event count. At least one step (or
// serving iteration) is written; the total overshoots `events` by less than one of them (a few
// hundred entries).

#include "core/base/result.h"
#include "core/generate/generator.h"

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
    uint64_t pythonFunctions = 0; // cat python_function
    uint64_t runtime = 0;         // cat cuda_runtime
    uint64_t kernels = 0;         // cat kernel
    uint64_t memcpys = 0;         // cat gpu_memcpy
    uint64_t memsets = 0;         // cat gpu_memset
    uint64_t memoryEvents = 0;    // [memory] cpu_instant_event (allocations and frees)
    uint64_t ac2gFlows = 0;       // ac2g "s" records: one per launch (with or without GPU work)
    uint64_t ac2gFlowEnds = 0;    // ac2g "f" records: one per GPU activity, so more than
                                  // ac2gFlows where a graph launch ran several kernels, fewer
                                  // where captured launches ran none
    uint64_t fwdbwdFlows = 0;     // fwdbwd s/f pairs
    uint64_t spans = 0;           // cat Trace ("PyTorch Profiler (0)")
    uint64_t globalInstants = 0;  // Iteration Start / Record Window End

    uint64_t steps = 0; // ProfilerStep#firstStep .. #firstStep+steps-1
    uint64_t firstStep = 0;
    uint64_t iterations = 0;       // serving: step[DECODE ...] / step[EXTEND ...] annotations
    uint64_t graphLaunches = 0;    // serving: cudaGraphLaunch calls
    uint64_t graphKernels = 0;     // serving: kernels per graph replay (and captured launches)
    uint64_t capturedLaunches = 0; // graph capture: launches between begin and end capture
    uint64_t hostThreads = 2;      // CPU threads with events
    uint64_t gpus = 0;                      // deviceProperties entries, GPU pids 0..gpus-1
    uint64_t streams = 0;                   // (device, stream) pairs with GPU activity
    std::vector<uint64_t> deviceActivities; // per GPU: kernels + memcpys + memsets
    std::vector<uint64_t> deviceStreams;    // per GPU: streams with activity
    int64_t cpuPid = 0;
    int64_t baseTimeNs = 0; // baseTimeNanoseconds
    int64_t beginNs = 0;    // capture window, relative to baseTimeNs
    int64_t endNs = 0;
    uint64_t fileBytes = 0;
    uint64_t captureEvents = 0;    // the capture trace written beside (options.capturePath)
    uint64_t captureFileBytes = 0;
};

// Also writes options.capturePath (serving shape only; an error for the others) with
// generateKinetoGraphCapture(), before the trace itself.
Result<KinetoTraceStats> generateKinetoTrace(const GeneratorOptions &options,
                                             const std::string &path);

// The trace of the serving shape's CUDA graph capture for the same seed: the serving process
// at start-up calling cudaStreamBeginCapture, then one cudaLaunchKernel per graph kernel in
// graph order, each under the cpu_op that records it (aten::mm, vllm::unified_attention_with_
// output, _C::rms_norm, ...) and with no kernel event (captured launches do not run), then
// cudaStreamEndCapture and cudaGraphInstantiateWithFlags. The k-th captured launch is the k-th
// kernel, by start time, of every cudaGraphLaunch in the serving trace. Its size is fixed by the
// graph; `options.events` does not apply.
Result<KinetoTraceStats> generateKinetoGraphCapture(const GeneratorOptions &options,
                                                    const std::string &path);

// The same trace summarised as generateTrace() reports it. Here `events` counts every
// traceEvents entry (metadata and flow records included), `slices` the X events plus the
// [memory] instants, `flows` the ac2g "f" records (launch -> GPU activity links); planes are
// "CPU", "GPU N" and "Spans".
Result<GeneratedTraceStats> generateKinetoTraceSummary(const GeneratorOptions &options,
                                                       const std::string &path);

} // namespace tracedesk::core
