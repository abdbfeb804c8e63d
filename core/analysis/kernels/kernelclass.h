#pragma once

// KernelClass: the one classification of GPU kernels every panel uses (Overview, Kernel Stats,
// Op Stats, the Distributed panel, comparison, SQL `kernels`): a family and whether the kernel
// runs on Tensor Cores (NVIDIA) or Matrix Cores (AMD MFMA). The rules and the evidence behind
// each are listed in README.md beside this file; every rule is a test with real kernel names.
//
// Design note. Kineto writes no instruction mix for a kernel, so the rules read the name, which
// for library kernels encodes the instruction family: cuBLAS/cuDNN `xmma`, `s1688`, `gmma`,
// `nvjet`, CUTLASS `tensorop` and its warpgroup (`Sm90`, `Gmma`, `tcgen05`) main loops, Tensile /
// hipBLASLt `MI<m>x<n>x<k>` (the MFMA shape), Composable Kernel `xdl` / `wmma`. FP8 and FP4
// kernels only exist on tensor / matrix cores, and FlashAttention-2/3, FlashInfer, cuDNN SDPA and
// CK / aiter fmha kernels all issue MMA instructions. A role other than Kernel (memcpy, memset)
// decides the family before any name rule.
//
// Order matters: communication first (an all-to-all called `dispatch` is not a GEMM), then
// memory, attention, convolution, GEMM, reduction / normalization, elementwise, other.
//
// Pure functions, no state; safe from any thread.

#include "core/model/types.h"

#include <cstdint>
#include <string_view>

namespace tracedesk::core::analysis {

enum class KernelFamily : uint8_t {
    Gemm,
    Attention,
    Convolution,
    Communication,
    Memory, // copies and sets, whether DMA (memcpy / memset activities) or copy kernels
    Elementwise,
    Reduction, // reductions and normalizations (softmax, layer / RMS / batch / group norm)
    Other,
    Count
};
inline constexpr int kKernelFamilyCount = int(KernelFamily::Count);

// "GEMM", "Attention", "Convolution", "Communication", "Memory", "Elementwise",
// "Reduction / norm", "Other".
const char *kernelFamilyName(KernelFamily family);

struct KernelClass
{
    KernelFamily family = KernelFamily::Other;
    bool tensorCore = false; // Tensor Core (NVIDIA) or Matrix Core (AMD MFMA) instructions
};

// The class of a GPU activity with this role (Kernel, Memcpy, Memset) and name.
KernelClass classifyKernel(std::string_view name, SliceRole role = SliceRole::Kernel);
KernelFamily kernelFamily(std::string_view name, SliceRole role = SliceRole::Kernel);
bool usesTensorOrMatrixCores(std::string_view kernelName);
// Collective or point-to-point communication kernels: NCCL / RCCL / HCCL, MSCCL++, NVSHMEM,
// DeepEP, PyTorch symmetric memory, vLLM / SGLang / TensorRT-LLM custom all-reduce.
bool isCommunicationKernel(std::string_view kernelName);

} // namespace tracedesk::core::analysis
