#pragma once

// The workloads generateKinetoTrace() writes besides the 2021-style training run
// (kinetogenerator.cpp): one file each, sharing KinetoEmitter and KinetoModel's helpers.
//
// - MoE training (kinetomoeshape.cpp): recent Kineto's External ids (each launch and its GPU work
//   carry their correlation id), FP8 grouped GEMMs, FlashAttention-3, and DeepEP all-to-all
//   kernels launched from Python code under `dispatch(F)` / `combine(F)` annotations with no
//   operator around them.
// - Serving (kinetoservingshape.cpp): SGLang-style scheduler iterations, each replaying one CUDA
//   graph; generateKinetoGraphCapture() writes the trace of that graph's capture.
//
// Both are deterministic per seed and stream their output like the training run.

#include "core/generate/kinetogenerator.h"

namespace tracedesk::core::generator {

Result<KinetoTraceStats> generateKinetoMoeTrace(const GeneratorOptions &options,
                                                const std::string &path);
// Also writes options.capturePath, when set, with generateKinetoGraphCapture().
Result<KinetoTraceStats> generateKinetoServingTrace(const GeneratorOptions &options,
                                                    const std::string &path);

} // namespace tracedesk::core::generator
