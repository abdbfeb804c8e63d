#pragma once

// Collective args: what a PyTorch profiler (Kineto) trace says about the collective a
// communication kernel runs — its kind, element counts, dtype and size in bytes.
//
// Design note. Kineto versions write the collective's description in different places; each
// field takes the first of these that has it:
//   1. the kernel's own args ("Collective name", "In msg nelems", "Out msg nelems", "dtype",
//      which current PyTorch copies from record_param_comms onto NCCL kernels);
//   2. the CPU op with the kernel's External id (or its launch's), record_param_comms first;
//   3. the CPU nodes enclosing the kernel's launch call on its thread, innermost first, that
//      record a collective — record_param_comms and the `nccl:` / `gloo:` annotations — read
//      as in 1;
//   4. no size yet: the first of those enclosing nodes whose "Input Dims" and "Input type"
//      give one: the sum over its inputs of (product of dims) x element size, as
//      torch-tb-profiler sizes communication ops (../shared/PYTORCH.md §2.9), with the element
//      sizes of every PyTorch scalar type. Inputs nested deeper (a TensorList) or of an
//      unknown type count 0; a total of 0 is no size. `inElements` is then that node's element
//      count and `dtype` its first input's type as written ("c10::Half").
// Older traces (the real DLRM and Megatron runs) have only 3 and 4: their kernels' External
// ids are the correlation ids, so no CPU op carries them, and their record_param_comms carry no
// msg fields. The kind falls back to the word in the kernel name. bytes = inElements x the
// element size of dtype, when both are known (from 1-3), else the size of 4.
//
// Pure functions over an immutable trace and its index; safe from any thread.

#include "core/analysis/distributed/ranksummary.h"
#include "core/analysis/pytorch/kinetoindex.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tracedesk::core::analysis::distributed {

// Fills `out`'s kind, inElements, outElements, dtype and bytes for the communication kernel
// `activity` of `index`.
void describeCollective(const Trace &trace, const pytorch::KinetoIndex &index,
                        const pytorch::KinetoActivity &activity, CollectiveRecord *out);

// Bytes of one element of a PyTorch scalar type as "Input type" writes it ("float",
// "c10::Half", "long int", "unsigned char", ...) or as record_param_comms' "dtype" does
// ("Float", "Half", "Long", ...); 0 when unknown (also "Scalar", "TensorList", "").
int64_t elementBytes(std::string_view type);

// The size of an op's inputs from its "Input Dims" and "Input type" texts (JSON lists as
// written): sum over inputs of product(dims) x elementBytes(type). Also the element count
// (sum of the products of sized inputs) and the first sized input's type. nullopt when the
// texts do not parse or nothing has a size.
struct InputSize
{
    int64_t bytes = 0;
    int64_t elements = 0;
    std::string_view type;
};
std::optional<InputSize> inputSize(std::string_view dims, std::string_view types);

} // namespace tracedesk::core::analysis::distributed
