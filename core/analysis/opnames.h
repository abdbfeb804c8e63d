#pragma once

// Name parsing shared by the op analyses (FORMATS.md 1.6, 2.11): framework op full names
// (`name:type`), tf.data and memcpy ops, kernel launch details and tensor-core heuristics.
// Pure functions over strings; called once per event kind or per distinct string, never per
// event.

#include <cstdint>
#include <string>
#include <string_view>

namespace tracedesk::core::analysis {

enum class FrameworkOpKind : uint8_t { Unknown, Tf, Jax, Dataset, Memcpy };

struct FrameworkOp
{
    FrameworkOpKind kind = FrameworkOpKind::Unknown;
    std::string_view name;   // op name (whole text for Dataset ops)
    std::string_view type;   // op type, "Dataset", or the memcpy direction ("MemcpyHToD")
};

// Drops a TraceMe metadata suffix (`name#k=v,...#`).
std::string_view stripTraceMeMetadata(std::string_view text);
// Parses `name:type`, `Iterator::...` and `MEMCPYHToD...`; anything else is Unknown.
FrameworkOp parseFrameworkOp(std::string_view fullName);
// The op name XProf keeps from a `tf_op` value (ParseTfOpFullname in tsl tf_op_utils.cc): split
// at the first ':', the part before it when the rest is a TF or JAX op type (or empty);
// otherwise, and for a value without a colon, the whole value (a bare name).
std::string_view tfOpName(std::string_view tfOpFullname);

// The innermost level of a nested HLO op name (`outer::inner` -> `inner`).
std::string_view innermostHloOp(std::string_view hloOp);
// `name.12` -> `name`: the instruction name without its uniquifying suffix.
std::string_view hloNameStem(std::string_view hloOp);
// `module(123)` -> ("module", 123); false when the text does not end in a number in brackets.
bool parseModuleName(std::string_view text, std::string_view *module, int64_t *programId);

struct KernelLaunchParams
{
    uint32_t registers = 0;
    uint32_t staticShared = 0;
    uint32_t dynamicShared = 0;
    uint32_t block[3] = {1, 1, 1};
    uint32_t grid[3] = {1, 1, 1};
    float occupancyPct = 0;
};

// `regs:N static_shared:N dynamic_shared:N grid:X,Y,Z block:X,Y,Z occ_pct:F`; unknown keys
// (old `shm:`, AMD `private_mem:`/`group_mem:`) are ignored, missing dims stay 1.
KernelLaunchParams parseKernelDetails(std::string_view details);
bool isKernelUsingTensorCore(std::string_view kernelName);
// XProf's IsOpTensorCoreEligible (xprof/utils/kernel_stats_utils.cc), on the op name (no type):
// suffixes of the conv, depthwise, `/MatMul`, FusedMatMul, `/CudnnRNN` and XlaDot ops,
// BatchMatMul / CudnnRNNV / CudnnRNNForward / CudnnRNNBackprop anywhere; case-sensitive.
bool isOpTensorCoreEligible(std::string_view opName);
// XProf's IsEinsumTensorCoreEligible: an `equation` stat of two operands (`ab,bc->ac`).
bool isEinsumTensorCoreEligible(std::string_view equation);

// 16 or 32 when the text names a 16-bit or 32-bit float type first (`f32[`, `bf16[`, `half`,
// `float`), else 0. Used for the compute precision split.
int floatPrecisionBits(std::string_view text);

} // namespace tracedesk::core::analysis
