#pragma once

// KinetoModel: the network the synthetic Kineto workload trains (kinetogenerator.cpp) — layer
// shapes, the "Input Dims" text of each op, buffer sizes — plus the GPU it runs on, the CUDA
// kernels it launches and the top-level members of the trace. Derived from the seed alone, built
// once, read-only afterwards.

#include "core/generate/kinetoemitter.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tracedesk::core::generator {

inline constexpr GpuModel kA100 = {"NVIDIA A100-SXM4-80GB",
                                   85031714816ull,
                                   8,
                                   0,
                                   1024,
                                   2048,
                                   65536,
                                   65536,
                                   32,
                                   49152,
                                   167936,
                                   166912,
                                   108};
// The GPUs of the MoE training (kinetomoeshape.cpp) and serving (kinetoservingshape.cpp) shapes.
inline constexpr GpuModel kH800 = {"NVIDIA H800",
                                   85045493760ull,
                                   9,
                                   0,
                                   1024,
                                   2048,
                                   65536,
                                   65536,
                                   32,
                                   49152,
                                   233472,
                                   232448,
                                   132};
inline constexpr GpuModel kB300 = {"NVIDIA B300",
                                   287537299456ull,
                                   10,
                                   3,
                                   1024,
                                   2048,
                                   65536,
                                   65536,
                                   32,
                                   49152,
                                   233472,
                                   232448,
                                   148};

// Tensor-core kernels are named as cuBLAS / cuDNN name them (sm80_xmma_*, volta_h884*), so
// name-based tensor-core detection finds them; the others are ordinary ATen / NCCL kernels.
inline constexpr KernelSpec kConvForward = {
    "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_"
    "warpsize2x2x1_g1_tensor16x8x8_kernel_cudnn",
    {128, 1, 1},
    232,
    81920,
    40,
    140};
inline constexpr KernelSpec kConvForwardNchw = {
    "void cudnn::cnn::conv2d_grouped_direct_kernel<false, true, false, false, 0, 0, int, float, "
    "float, float, float, float, float>(cudnn::cnn::GroupedDirectFpropParams, float const*, float "
    "const*, float*, float, float*, float const*, float const*, float)",
    {256, 1, 1},
    40,
    8192,
    50,
    160};
inline constexpr KernelSpec kConvDgrad = {
    "sm80_xmma_dgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_"
    "warpsize2x2x1_g1_tensor16x8x8_kernel_cudnn",
    {128, 1, 1},
    232,
    81920,
    50,
    160};
inline constexpr KernelSpec kConvWgrad = {
    "sm80_xmma_wgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_"
    "warpsize2x2x1_g1_tensor16x8x8_kernel_cudnn",
    {128, 1, 1},
    232,
    81920,
    60,
    180};
inline constexpr KernelSpec kAddForward = {
    "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::"
    "CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> "
    "const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_"
    "add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)::{lambda("
    "int)#1})",
    {128, 1, 1},
    28,
    0,
    4,
    16};
inline constexpr KernelSpec kRelu = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_"
    "clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::"
    "ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda("
    "float)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::launch_clamp_"
    "scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)"
    "::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, "
    "std::array<char*, 2ul>)",
    {128, 1, 1},
    24,
    0,
    4,
    18};
inline constexpr KernelSpec kReluBackward = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::"
    "threshold_kernel_impl<float>(at::TensorIteratorBase&, float, float)::{lambda(float, float)"
    "#1}, std::array<char*, 3ul> >(int, at::native::(anonymous namespace)::threshold_kernel_impl"
    "<float>(at::TensorIteratorBase&, float, float)::{lambda(float, float)#1}, std::array<char*, "
    "3ul>)",
    {128, 1, 1},
    26,
    0,
    5,
    22};
inline constexpr KernelSpec kBiasGrad = {
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_"
    "t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{"
    "lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::"
    "func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::"
    "TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4>)",
    {32, 16, 1},
    32,
    16,
    4,
    20};
inline constexpr KernelSpec kCat = {
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous "
    "namespace)::OpaqueType<4u>, unsigned int, 4, 128, 1>(at::native::(anonymous namespace)::"
    "OpaqueType<4u>*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::("
    "anonymous namespace)::OpaqueType<4u>, unsigned int, 128, 1>, at::native::(anonymous "
    "namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
    {512, 1, 1},
    32,
    0,
    6,
    25};
inline constexpr KernelSpec kGemmTensor = {
    "sm80_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x16_stage4_warpsize2x2x1_tensor16x8x8_"
    "execute_kernel_trt",
    {128, 1, 1},
    230,
    65536,
    10,
    45};
inline constexpr KernelSpec kGemmVolta = {
    "volta_h884gemm_64x64_ldg8_nn", {128, 1, 1}, 126, 32768, 8, 35};
inline constexpr KernelSpec kGemmBackward = {
    "volta_sgemm_128x64_nt", {256, 1, 1}, 127, 12544, 12, 50};
inline constexpr KernelSpec kGemmWeight = {
    "ampere_sgemm_64x32_sliced1x4_tn", {128, 1, 1}, 120, 16384, 10, 45};
inline constexpr KernelSpec kLogSoftmax = {
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::"
    "native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
    {256, 1, 1},
    37,
    0,
    3,
    10};
inline constexpr KernelSpec kLogSoftmaxBackward = {
    "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, at::"
    "native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float "
    "const*, int)",
    {256, 1, 1},
    40,
    0,
    3,
    10};
inline constexpr KernelSpec kNllForward = {
    "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, "
    "long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
    {32, 1, 1},
    30,
    2048,
    3,
    8};
inline constexpr KernelSpec kNllBackward = {
    "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>"
    "(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)",
    {32, 1, 1},
    28,
    0,
    2,
    6};
inline constexpr KernelSpec kNcclAllReduce = {
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
    {512, 1, 1},
    96,
    42024,
    25,
    90};
inline constexpr KernelSpec kMultiTensorAdd = {
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlpha"
    "Functor<float, 2, 2, 0>, std::plus<float>, float>(at::native::(anonymous namespace)::"
    "TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, "
    "2, 0>, std::plus<float>, float)",
    {512, 1, 1},
    32,
    0,
    8,
    30};

struct ConvLayer
{
    int64_t in = 0, out = 0, height = 0, width = 0; // input channels and size; output is half
    int64_t outBytes = 0, outElements = 0;
    std::array<int64_t, 3> grid{};
    std::string convDims, addDims, reluDims, backwardDims;
};

struct LinearLayer
{
    int64_t in = 0, out = 0;
    std::string linearDims, tDims, transposeDims, addmmDims, reluDims, mmDims, mmWeightDims,
        sumDims;
};

struct KinetoModel
{
    int64_t batch = 32;
    int64_t classes = 100;
    int64_t parameters = 0;
    int64_t inputBytes = 0;           // one batch of images
    int64_t featureBytes = 0;         // the concatenated features copied to the head GPU
    std::vector<ConvLayer> convs;     // on GPU 0
    std::vector<LinearLayer> linears; // on GPU 1
    std::string stackDims, toDims, copyDims, catDims, flatDims, peerDims, lossDims, softmaxDims,
        nllDims;
    std::string collectiveOpArgs, collectiveKernelArgs; // KinetoArgs members
};

KinetoModel makeKinetoModel(uint64_t seed);

int64_t ceilDiv(int64_t a, int64_t b);
std::array<int64_t, 3> elementwiseGrid(int64_t elements);

// What the top-level members say about the run that was profiled.
struct KinetoHeaderSpec
{
    const GpuModel *gpu = &kA100;
    int gpus = 1;
    int rank = 0;
    int worldSize = 1;
    int cudaRuntimeVersion = 12040;
    int cudaDriverVersion = 12080;
    int cuptiVersion = 22;
    bool profileMemory = true;
    bool withStack = false; // the Python tracer ran (python_function events)
    const char *ncclVersion = "2.21.5";
};

// The top-level members before traceEvents: schemaVersion, deviceProperties (one per GPU),
// distributedInfo (`rank` of `worldSize`, nccl, one process group of every rank), a few run
// properties, displayTimeUnit, baseTimeNanoseconds.
std::string kinetoHeader(const KinetoHeaderSpec &spec, int64_t baseTimeNs);
// The A100 training runs' header.
std::string kinetoHeader(int gpus, int64_t baseTimeNs, int rank = 0, int worldSize = 1);
// "[0,1,...,worldSize-1]".
std::string rankListJson(int worldSize);
// The member after traceEvents: a traceName made from the worker name, the pid and the
// window's epoch start, not the output path, so the bytes depend on the options alone.
std::string kinetoTrailer(int64_t pid, int64_t stampNs, std::string_view worker = "trainer");

} // namespace tracedesk::core::generator
