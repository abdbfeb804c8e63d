#pragma once

// Synthetic ML-training-like traces for benchmarks and tests.
//
// generateTrace() writes about `events` events shaped like a TensorFlow GPU training profile:
// a host plane (/host:CPU) with a python thread (train_step > framework ops > smaller ops),
// tf.data iterator threads and one kernel-launch thread per GPU; one or two device planes
// (/device:GPU:N) with a Steps line, XLA Ops and Framework Ops lines and two kernel streams;
// launch -> kernel flows; memory counters (JSON only); stats and args. The same options give
// a byte-identical file. Output is streamed (bounded memory) and renamed into place at the end.

#include "core/base/result.h"
#include "core/model/types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tracedesk::core {

// Kineto: a PyTorch profiler trace, written by generateKinetoTrace() (kinetogenerator.h).
enum class GeneratedFormat { XSpace, ChromeJson, Kineto };

// The workload a Kineto trace records (kinetogenerator.h): a 2021-style training run, a MoE
// training step as recent Kineto writes it, or a serving engine replaying a CUDA graph.
enum class KinetoShape { Training, Moe, Serving };

struct GeneratorOptions
{
    uint64_t events = 100000;
    GeneratedFormat format = GeneratedFormat::XSpace;
    uint64_t seed = 1;
    KinetoShape kinetoShape = KinetoShape::Training; // Kineto only
    // Kineto serving only: also write the trace of the replayed graph's capture here.
    std::string capturePath;
};

struct GeneratedPlaneStats
{
    std::string name;
    uint64_t tracks = 0;          // lines / threads with at least one slice, plus counter series
    uint64_t slices = 0;
    uint64_t counterSamples = 0;
    uint64_t events() const { return slices + counterSamples; }
};

struct GeneratedTraceStats
{
    uint64_t events = 0;          // slices + counter samples
    uint64_t slices = 0;
    uint64_t counterSamples = 0;
    uint64_t flows = 0;           // launch -> kernel pairs
    uint64_t steps = 0;
    uint64_t fileBytes = 0;
    TimePs begin = 0;             // earliest start / latest end of anything written
    TimePs end = 0;
    std::vector<GeneratedPlaneStats> planes;   // planes that hold events
    // The graph-capture trace written beside a Kineto serving trace (GeneratorOptions::
    // capturePath); empty when none.
    std::string captureFile;
    uint64_t captureEvents = 0;
    uint64_t captureFileBytes = 0;
};

Result<GeneratedTraceStats> generateTrace(const GeneratorOptions &options, const std::string &path);

// "xspace" / "json" (also "chrome-json") / "kineto"; false for anything else.
bool parseGeneratedFormat(const std::string &text, GeneratedFormat *format);
// "training" / "moe" / "serving"; false for anything else.
bool parseKinetoShape(const std::string &text, KinetoShape *shape);

} // namespace tracedesk::core
