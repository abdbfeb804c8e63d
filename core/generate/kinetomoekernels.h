#pragma once

// The kernels of the MoE training shape (kinetomoeshape.cpp), named as the libraries that
// launch them name them on Hopper: CUTLASS FP8 block-scaled GEMMs (dense and grouped, as
// torch._scaled_mm / torch._scaled_grouped_mm run them), FlashAttention-3, DeepEP's intranode
// all-to-all and an NVSHMEM barrier, cuBLAS for the bf16 router, ATen for the rest.

#include "core/generate/kinetoemitter.h"

namespace tracedesk::core::generator::moe {

inline constexpr KernelSpec kRmsNorm = {
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float, "
    "true>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, "
    "float*, c10::BFloat16*)",
    {256, 1, 1},
    36,
    0,
    18,
    40};
inline constexpr KernelSpec kRmsNormBackward = {
    "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::"
    "BFloat16, float, true>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, float "
    "const*, c10::BFloat16 const*, c10::BFloat16*, int)",
    {256, 1, 1},
    48,
    0,
    30,
    70};
inline constexpr KernelSpec kDenseGemm = {
    "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, "
    "int>, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarp"
    "SpecializedCooperativeFP8BlockScaledAccum<4, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> "
    ">, cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8BlockScaledAccum>, cute::tuple<cute::"
    "C<128>, cute::C<128>, cute::C<128> >, cutlass::float_e4m3_t, cute::tuple<long, cute::C<1>, "
    "long>, cutlass::float_e4m3_t, cute::tuple<long, cute::C<1>, long> >, cutlass::epilogue::"
    "collective::CollectiveEpilogue<cutlass::epilogue::Sm90TmaWarpSpecialized<4, 2, 16, false, "
    "false> >, void> >(cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int> "
    ">::Params)",
    {384, 1, 1},
    168,
    213504,
    90,
    260};
inline constexpr KernelSpec kGroupedGemm = {
    "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::"
    "GroupProblemShape<cute::tuple<int, int, int> >, cutlass::gemm::collective::CollectiveMma<"
    "cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedCooperativeFP8BlockScaledAccum<4, cute::"
    "tuple<cute::C<2>, cute::C<1>, cute::C<1> >, cutlass::gemm::KernelPtrArrayTmaWarpSpecialized"
    "CooperativeFP8BlockScaledAccum>, cute::tuple<cute::C<128>, cute::C<128>, cute::C<128> >, "
    "cutlass::float_e4m3_t, cute::tuple<long, cute::C<1>, cute::C<0> >*, cutlass::float_e4m3_t, "
    "cute::tuple<long, cute::C<1>, cute::C<0> >*>, cutlass::epilogue::collective::"
    "CollectiveEpilogue<cutlass::epilogue::Sm90PtrArrayTmaWarpSpecialized<4, 2, 16, true, false, "
    "1> >, at::cuda::detail::grouped_gemm::GroupScheduler> >(cutlass::gemm::kernel::"
    "GemmUniversal<cutlass::gemm::GroupProblemShape<cute::tuple<int, int, int> > >::Params)",
    {384, 1, 1},
    168,
    221184,
    220,
    520};
inline constexpr KernelSpec kRouterGemm = {
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    {128, 1, 1},
    154,
    98304,
    12,
    30};
inline constexpr KernelSpec kFlashForward = {
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits_fp8<128, 128, 256, 12, 2, false, 1, "
    "cutlass::float_e4m3_t>, true, false, false, false, true, false>(flash::Flash_fwd_params)",
    {384, 1, 1},
    168,
    204800,
    260,
    640};
inline constexpr KernelSpec kFlashBackward = {
    "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnBwdSm90<cute::tuple<"
    "int, int, int, int, int>, flash::CollectiveMainloopBwdSm90<2, cute::tuple<cute::C<1>, cute::"
    "C<1>, cute::C<1> >, cute::tuple<cute::C<64>, cute::C<128>, cute::C<128> >, cutlass::"
    "bfloat16_t, float, cutlass::arch::Sm90, true, false, false, false, false, true, false, 2, 2, "
    "1, false, false>, flash::CollectiveEpilogueBwd<cute::tuple<cute::C<64>, cute::C<128>, cute::"
    "C<128> >, cutlass::bfloat16_t, cutlass::arch::Sm90, 256, false, true, 2, 1>, flash::"
    "SingleTileScheduler<false, false, true> > > >(flash::FlashAttnBwdSm90<cute::tuple<int, int, "
    "int, int, int> >::Params)",
    {384, 1, 1},
    128,
    221184,
    620,
    1400};
inline constexpr KernelSpec kTopK = {
    "void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(at::cuda::detail::"
    "TensorInfo<float const, unsigned int>, unsigned int, unsigned int, bool, unsigned int, "
    "unsigned int, at::cuda::detail::TensorInfo<float, unsigned int>, unsigned int, at::cuda::"
    "detail::TensorInfo<long, unsigned int>, unsigned int, unsigned int*)",
    {1024, 1, 1},
    40,
    1088,
    15,
    40};
inline constexpr KernelSpec kSoftmax = {
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, float, float, float, at::"
    "native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
    {256, 1, 1},
    37,
    0,
    8,
    20};
inline constexpr KernelSpec kSoftmaxBackward = {
    "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<8, float, float, float, at::"
    "native::(anonymous namespace)::SoftMaxBackwardEpilogue>(float*, float const*, float const*, "
    "int)",
    {256, 1, 1},
    40,
    0,
    10,
    24};
inline constexpr KernelSpec kSilu = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::silu_kernel(at::"
    "TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{"
    "lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::silu_kernel(at::"
    "TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{"
    "lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)",
    {128, 1, 1},
    24,
    0,
    40,
    90};
inline constexpr KernelSpec kSiluBackward = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::silu_backward_kernel(at::"
    "TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{"
    "lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul> >(int, at::native::silu_"
    "backward_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#4}::"
    "operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul>)",
    {128, 1, 1},
    28,
    0,
    60,
    130};
inline constexpr KernelSpec kNotifyDispatch = {
    "void deep_ep::intranode::notify_dispatch<8>(int const*, int*, int, int const*, int*, int, "
    "int, bool const*, int*, int*, int, int, int, int, void**, int**, int)",
    {128, 1, 1},
    40,
    0,
    8,
    30};
inline constexpr KernelSpec kDispatch = {
    "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*, float*, int*, "
    "int*, int4 const*, float const*, long const*, float const*, bool const*, int const*, int, "
    "int, int, int, int, int, int, int, void**, int, int, int)",
    {768, 1, 1},
    64,
    0,
    180,
    420};
inline constexpr KernelSpec kCombine = {
    "void deep_ep::intranode::combine<__nv_bfloat16, 8, 768, 4096>(__nv_bfloat16*, float*, "
    "__nv_bfloat16 const*, float const*, float const*, float const*, int const*, int const*, int "
    "const*, int*, int, int, int, int, int, int, void**, int, int, int)",
    {768, 1, 1},
    72,
    0,
    220,
    520};
inline constexpr KernelSpec kNvshmemBarrier = {
    "void nvshmemi_barrier_on_stream_kernel_threadgroup<(threadgroup_t)3>(int, int)",
    {32, 1, 1},
    16,
    0,
    4,
    14};
inline constexpr KernelSpec kFusedAdamW = {
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::"
    "FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float*, double, double, "
    "double, double, double, bool, float*, float*>(at::native::(anonymous namespace)::"
    "FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMath"
    "Functor<float, 4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, double, "
    "double, bool, float*, float*)",
    {512, 1, 1},
    64,
    0,
    300,
    700};

} // namespace tracedesk::core::generator::moe
