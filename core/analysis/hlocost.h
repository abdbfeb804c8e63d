#pragma once

// An estimate of what one execution of an HLO instruction costs, from the compiled HLO alone,
// for profiles whose events carry no `flops` / `bytes_accessed` (GPU captures). The rules follow
// XLA's HLO cost analysis:
// - dot: 2 x result elements x the product of the lhs contracting dimensions;
// - convolution (also cuDNN's `__cudnn$conv*` custom calls): 2 x output elements x (kernel
//   elements / kernel output features), i.e. one multiply-add per input feature of its group and
//   per window position;
// - cuBLAS GEMM custom calls (`__cublas$gemm`, `__cublas$lt$matmul`): as a dot, with the
//   contracting dimensions read from the gemm backend config;
// - Transformer Engine's fused attention calls: their matrix products over the pairs the mask
//   keeps, from the call's attributes (fusedattentioncost.h);
// - elementwise arithmetic, comparisons and selects: one FLOP per result element; reduce and
//   reduce-window: one per input element; data movement (copy, transpose, slice, ...): none;
// - a fusion: the sum over its fused computation.
// Bytes: the instruction's operands plus its result (a fusion: its own, not its members').
// Pure function of immutable protos; any thread.

#include "core/hlo/hlomodules.h"

#include <memory>

namespace tracedesk::core::analysis {

struct HloCost
{
    double flops = 0;
    double bytes = 0;
};

// Indexes one module once; cost() of each of its instructions then looks operands and fused
// computations up in it.
class HloCostModel
{
public:
    explicit HloCostModel(const xla::HloModuleProto &module);
    ~HloCostModel();
    HloCostModel(const HloCostModel &) = delete;
    HloCostModel &operator=(const HloCostModel &) = delete;

    HloCost cost(const xla::HloInstructionProto &inst) const;

private:
    class Estimator;
    std::unique_ptr<Estimator> m_estimator;
};

} // namespace tracedesk::core::analysis
