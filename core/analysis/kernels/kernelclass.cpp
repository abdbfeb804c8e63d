#include "core/analysis/kernels/kernelclass.h"

#include "core/base/asciilower.h"

#include <algorithm>
#include <cctype>
#include <span>
#include <string>

namespace tracedesk::core::analysis {

namespace {

// torch-tb-profiler's list (NVIDIA PyProf, Volta to Ampere), kept whole so its results hold.
constexpr std::string_view kPluginTensorCorePatterns[] = {"h884",
                                                          "s884",
                                                          "h1688",
                                                          "s1688",
                                                          "hmma",
                                                          "i8816",
                                                          "16816",
                                                          "dgrad_1x1_stride_2x2",
                                                          "first_layer_wgrad_kernel",
                                                          "conv1x1",
                                                          "conv2d_c1_k1",
                                                          "direct_group",
                                                          "xmma_implicit_gemm",
                                                          "xmma_sparse_conv",
                                                          "xmma_warp_specialized_implicit_gemm",
                                                          "xmma_gemm",
                                                          "xmma_sparse_gemm",
                                                          "c1688"};

// Names of MMA instruction families and of the libraries' tensor-op kernels (lower case).
constexpr std::string_view kMmaMarkers[] = {
    "nvjet",           "tensorop", "wmma",   "gmma",   "tcgen05",   "umma", "hmma", "imma", "xmma",
    "warpspecialized", "sm90_",    "sm100_", "sm120_", "deep_gemm", "xdl",  "mfma", "gtcx"};

// Low-precision formats that only tensor / matrix cores compute in.
constexpr std::string_view kLowPrecisionMarkers[] = {"fp8",  "e4m3", "e5m2", "fp4",
                                                     "e2m1", "mxf8", "mxf4", "nvf4"};

constexpr std::string_view kAttentionMmaMarkers[] = {
    "flash_fwd", "flash_bwd", "flash::", "flashattn", "flash_attn", "flashattention", "flash_mla",
    "flashmla", "fmha", "flashinfer::", "sdpa",
    // AOTriton (PyTorch's FlashAttention on ROCm)
    "attn_fwd", "attn_bwd", "bwd_kernel_dk_dv", "bwd_kernel_dq"};

constexpr std::string_view kCommunicationMarkers[] = {"ncclkernel",
                                                      "nccldevkernel",
                                                      "msccl",
                                                      "nvshmem",
                                                      "deep_ep::",
                                                      "symmetric_memory",
                                                      "symm_mem",
                                                      "cross_device_reduce",
                                                      "custom_all_reduce",
                                                      "customallreduce",
                                                      "quickreduce",
                                                      "allreduce_fusion",
                                                      "oneshotallreduce",
                                                      "twoshotallreduce",
                                                      "one_shot_all_reduce",
                                                      "two_shot_all_reduce",
                                                      "multimem_all_reduce",
                                                      "multimem_all_gather",
                                                      "lamport",
                                                      "allgather_kernel",
                                                      "all_to_all_kernel"};

constexpr std::string_view kAttentionMarkers[] = {
    "flash_fwd",  "flash_bwd",      "flash::",          "flashattn",
    "flash_attn", "flashattention", "flashinfer",       "fmha",
    "mha_fwd",    "mha_bwd",        "attention",        "_attn",
    "attn_",      "sdpa",           "flash_mla",        "flashmla",
    "mla_decode", "decode_mla",     "bwd_kernel_dk_dv", "bwd_kernel_dq"};

constexpr std::string_view kGemmMarkers[] = {
    "gemm",   "gemv",      "nvjet",        "cijk_",
    "matmul", "mul_mat",   "splitkreduce", "fused_moe_kernel",
    "fmoe_",  "moe_gemm",  "grouped_mm",   "scaled_mm",
    "cublas", "hipblaslt", "gmma",         "wgmma",
    "_bmm",   "bmm_"};

constexpr std::string_view kConvolutionMarkers[] = {
    "convolution", "convolve",  "conv1d",    "conv2d",
    "conv3d",      "_conv_",    "conv_",     "_conv",
    "dgrad",       "wgrad",     "fprop",     "winograd",
    "igemm_fwd",   "igemm_bwd", "igemm_wrw", "miopensp3asmconv",
    "naive_conv"};

constexpr std::string_view kReductionMarkers[] = {
    "reduce",    "reduction", "softmax",       "layer_norm",  "layernorm",
    "rms_norm",  "rmsnorm",   "batch_norm",    "batchnorm",   "group_norm",
    "groupnorm", "bn_fw",     "bn_bw",         "norm_kernel", "_norm",
    "argmax",    "argmin",    "cross_entropy", "logsumexp",   "welford"};

constexpr std::string_view kElementwiseMarkers[] = {"elementwise",
                                                    "pointwise",
                                                    "triton_poi_",
                                                    "silu",
                                                    "gelu",
                                                    "relu",
                                                    "swiglu",
                                                    "act_and_mul",
                                                    "activation",
                                                    "rotary",
                                                    "rope_",
                                                    "fill_kernel",
                                                    "catarray",
                                                    "cat_array",
                                                    "vectorized_",
                                                    "unrolled_",
                                                    "multi_tensor_apply"};

bool containsAny(std::string_view s, std::span<const std::string_view> needles)
{
    return std::any_of(needles.begin(), needles.end(),
                       [&](std::string_view n) { return s.find(n) != std::string_view::npos; });
}

template<size_t N> bool containsAny(std::string_view s, const std::string_view (&needles)[N])
{
    return containsAny(s, std::span<const std::string_view>(needles, N));
}

// "convert" holds "conv": blank it out before the convolution words are looked for.
std::string withoutConvert(std::string s)
{
    for (size_t at = s.find("convert"); at != std::string::npos; at = s.find("convert", at))
        s.replace(at, 4, "____");
    return s;
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// Tensile / hipBLASLt encode the MFMA shape as MI<m>x<n>x<k>[x<b>]: "MI16x16x16", "MI32x32x8".
bool hasMfmaShape(std::string_view n)
{
    for (size_t at = n.find("mi"); at != std::string_view::npos; at = n.find("mi", at + 1)) {
        size_t i = at + 2;
        int numbers = 0;
        for (;;) {
            const size_t begin = i;
            while (i < n.size() && isDigit(n[i]))
                ++i;
            if (i == begin)
                break;
            ++numbers;
            if (i < n.size() && n[i] == 'x')
                ++i;
            else
                break;
        }
        if (numbers >= 3)
            return true;
    }
    return false;
}

// DeepEP and similar expert-parallel kernels live in an `ep::` namespace (`deep_ep::`,
// `ep::intranode::dispatch`): dispatch / combine / notify there are all-to-all traffic.
bool isExpertParallelComm(std::string_view n)
{
    for (size_t at = n.find("ep::"); at != std::string_view::npos; at = n.find("ep::", at + 1)) {
        const bool wordStart = at == 0 || !std::isalnum(static_cast<unsigned char>(n[at - 1]));
        const bool deepEp = at >= 5 && n.substr(at - 5, 5) == "deep_";
        if ((wordStart || deepEp) && (n.find("dispatch") != std::string_view::npos ||
                                      n.find("combine") != std::string_view::npos ||
                                      n.find("notify") != std::string_view::npos))
            return true;
    }
    return false;
}

bool isCommunicationLowered(std::string_view n)
{
    return n.starts_with("nccl") || n.starts_with("rccl") || n.starts_with("hccl") ||
           containsAny(n, kCommunicationMarkers) || isExpertParallelComm(n);
}

bool isMemoryLowered(std::string_view n)
{
    return n.starts_with("memcpy") || n.starts_with("memset") || n.starts_with("hipmemcpy") ||
           n.starts_with("hipmemset") || n.starts_with("dma") ||
           n.find("copybuffer") != std::string_view::npos ||
           n.find("fillbuffer") != std::string_view::npos;
}

KernelFamily familyLowered(std::string_view n)
{
    if (isCommunicationLowered(n))
        return KernelFamily::Communication;
    if (isMemoryLowered(n))
        return KernelFamily::Memory;
    // torch.compile (inductor) names its Triton kernels by kind.
    if (n.starts_with("triton_poi_"))
        return KernelFamily::Elementwise;
    if (n.starts_with("triton_red_") || n.starts_with("triton_per_"))
        return KernelFamily::Reduction;
    if (n.starts_with("triton_tem_"))
        return n.find("mm") != std::string_view::npos     ? KernelFamily::Gemm
               : n.find("conv") != std::string_view::npos ? KernelFamily::Convolution
                                                          : KernelFamily::Other;
    if (containsAny(n, kAttentionMarkers))
        return KernelFamily::Attention;
    if (containsAny(withoutConvert(std::string(n)), kConvolutionMarkers))
        return KernelFamily::Convolution;
    if (containsAny(n, kGemmMarkers) || hasMfmaShape(n))
        return KernelFamily::Gemm;
    if (containsAny(n, kReductionMarkers))
        return KernelFamily::Reduction;
    if (containsAny(n, kElementwiseMarkers))
        return KernelFamily::Elementwise;
    return KernelFamily::Other;
}

bool tensorCoreLowered(std::string_view n, KernelFamily family)
{
    if (containsAny(n, kPluginTensorCorePatterns))
        return true;
    switch (family) {
    case KernelFamily::Gemm:
    case KernelFamily::Convolution:
        return containsAny(n, kMmaMarkers) || containsAny(n, kLowPrecisionMarkers) ||
               hasMfmaShape(n);
    case KernelFamily::Attention:
        return containsAny(n, kAttentionMmaMarkers) || containsAny(n, kMmaMarkers) ||
               containsAny(n, kLowPrecisionMarkers);
    default:
        return false;
    }
}

} // namespace

const char *kernelFamilyName(KernelFamily family)
{
    static const char *const names[kKernelFamilyCount] = {
        "GEMM",   "Attention",   "Convolution",      "Communication",
        "Memory", "Elementwise", "Reduction / norm", "Other"};
    return int(family) < kKernelFamilyCount ? names[int(family)] : "";
}

KernelClass classifyKernel(std::string_view name, SliceRole role)
{
    if (role == SliceRole::Memcpy || role == SliceRole::Memset)
        return {KernelFamily::Memory, false};
    const std::string n = asciiLower(name);
    KernelClass out;
    out.family = familyLowered(n);
    out.tensorCore = tensorCoreLowered(n, out.family);
    return out;
}

KernelFamily kernelFamily(std::string_view name, SliceRole role)
{
    if (role == SliceRole::Memcpy || role == SliceRole::Memset)
        return KernelFamily::Memory;
    return familyLowered(asciiLower(name));
}

bool usesTensorOrMatrixCores(std::string_view kernelName)
{
    return classifyKernel(kernelName).tensorCore;
}

bool isCommunicationKernel(std::string_view kernelName)
{
    return isCommunicationLowered(asciiLower(kernelName));
}

} // namespace tracedesk::core::analysis
