// The shared kernel classification (core/analysis/kernels/kernelclass.h): one test per family
// with real kernel names (from the shared fixtures, public traces and library sources), and two
// checks against evidence the code does not produce: TraceLens's own categories of the kernels
// of a real trace, and the operators that launched the GEMM, attention and convolution kernels
// of the real Hopper / Blackwell / MI300X traces, read from their raw JSON.

#include "core/analysis/kernels/kernelclass.h"

#include <QtTest>

#include "support/kinetofixtures.h"

#include <algorithm>
#include <map>
#include <set>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

namespace {

struct Case
{
    const char *name;
    KernelFamily family;
    bool tensorCore;
};

// Each name is a kernel a real trace holds (fixture file in the comment) or a library writes.
const Case kCases[] = {
    // GEMM: cuBLAS (Volta .. Hopper), cuBLASLt nvjet, CUTLASS 2 and 3, FP8 grouped, DeepGEMM,
    // hipBLASLt / Tensile (MFMA shape), Composable Kernel, llama.cpp, Triton MoE.
    {"volta_sgemm_128x64_nn", KernelFamily::Gemm, false}, // resnet50
    {"volta_h884gemm_64x64_ldg8_nn", KernelFamily::Gemm, true},
    {"ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn", KernelFamily::Gemm, true},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     KernelFamily::Gemm, true},                                                 // h100 timesformer
    {"nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT", KernelFamily::Gemm, true}, // h100 falconsai
    {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_32x1_nn_align8>("
     "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_32x1_nn_align8::Params)",
     KernelFamily::Gemm, true},
    {"void cutlass::Kernel<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_simt_sgemm_"
     "128x32_8x5_nn_align1::Params)",
     KernelFamily::Gemm, false},
    {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::"
     "GroupProblemShape<cute::tuple<int, int, int> >, cutlass::gemm::collective::CollectiveMma<"
     "cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedCooperativeFP8BlockScaledAccum, "
     "cutlass::float_e4m3_t> > >(grouped_gemm_fp8_params)",
     KernelFamily::Gemm, true},
    {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_dptp_gemm_kernel<128, 128> >("
     "Params)",
     KernelFamily::Gemm, true}, // DeepSeek-V3 FP8 grouped GEMM
    {"void deep_gemm::fp8_gemm_kernel<4096u, 7168u, 128u, 160u, 128u, 1u, 8u, 128u, 128u>("
     "__nv_bfloat16*, float*, int*, unsigned int)",
     KernelFamily::Gemm, true},
    {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x256x32_MI16x16x1_SN_LDSB1_AFC1",
     KernelFamily::Gemm, true}, // MI300X sglang
    {"Cijk_Ailk_Bljk_BBS_BH_MT32x32x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0", KernelFamily::Gemm, true},
    {"_ZN2ck16tensor_operation6device37kernel_batched_gemm_xdlops_bwd_weightINS_47GridwiseGemm",
     KernelFamily::Gemm, true}, // MI300X act checkpoint
    {"void magma_sgemmEx_kernel<float, float, float, true, false, 6, 4, 6, 3, 4>(int, int, int)",
     KernelFamily::Gemm, false},
    {"void gemmk1_kernel<float, 256, 5, false, false, false, false, cublasGemvTensorStridedBatched"
     "<float const> >(cublasGemvParams)",
     KernelFamily::Gemm, false},
    {"fused_moe_kernel", KernelFamily::Gemm, false},
    {"mul_mat_q<(ggml_type)8, 128, 8, false>", KernelFamily::Gemm, false}, // llama.cpp rocprof
    // Attention: FlashAttention 2/3, cuDNN / TRT-LLM fmha, CK fmha, FlashInfer, paged attention.
    {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, "
     "false, false, cutlass::bfloat16_t> >(pytorch_flash::Flash_fwd_params)",
     KernelFamily::Attention, true},
    {"void flash::flash_fwd_kernel<Flash_fwd_kernel_traits_fp8<128, 128, 176, 4, 2, false, 1, "
     "cutlass::float_e4m3_t> >(Flash_fwd_params)",
     KernelFamily::Attention, true}, // FlashAttention-3
    {"void cutlass::device_kernel<flash::FlashAttnBwd<flash::CollectiveMainloopBwd<3, "
     "cute::tuple<cute::C<64>, cute::C<128> > > > >(Params)",
     KernelFamily::Attention, true},
    {"void flash::compute_attn_ws<Flash_fwd_kernel_traits<192, 128, 128, 16, 2, false, 1, "
     "cutlass::bfloat16_t>, true>(flash::Flash_fwd_params)",
     KernelFamily::Attention, true},
    {"void cuda::per_token_cast_to_fp8<__nv_bfloat16, 128>(__nv_fp8_e4m3*, float*)",
     KernelFamily::Other, false},
    {"fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext",
     KernelFamily::Attention, true},
    {"_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelINS_40BlockFmhaBatch",
     KernelFamily::Attention, true},
    {"void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2u>("
     "flashinfer::Params)",
     KernelFamily::Attention, true},
    {"void paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, __hip_bfloat16>(float)",
     KernelFamily::Attention, true},
    {"void vllm::paged_attention_v1_kernel<__nv_bfloat16, __nv_bfloat16, 128, 16, 128>(float*)",
     KernelFamily::Attention, false}, // CUDA cores
    {"kernel_unified_attention_2d", KernelFamily::Attention, false},
    {"attn_fwd", KernelFamily::Attention, true}, // AOTriton, MI300X bert (flash attention op)
    {"bwd_kernel_dk_dv", KernelFamily::Attention, true},
    // Convolution: cuDNN (implicit GEMM, xmma, CUTLASS), MIOpen (xdlops iGEMM), CK.
    {"void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>(int)",
     KernelFamily::Convolution, false},
    {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16",
     KernelFamily::Convolution, true},
    {"void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688dgrad_optimized_tf32_64x128_32x3_"
     "nhwc_align4>(Params)",
     KernelFamily::Convolution, true},
    {"cudnn_infer_volta_scudnn_128x64_3dconv_fprop_medium_nn_v1", KernelFamily::Convolution, false},
    {"igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2",
     KernelFamily::Convolution, true},
    {"_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3",
     KernelFamily::Convolution, true},
    // Communication: NCCL (old and new), RCCL, MSCCL++, NVSHMEM, DeepEP, symmetric memory,
    // custom all-reduce.
    {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", KernelFamily::Communication, false},
    {"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", KernelFamily::Communication, false},
    {"void mscclpp::allreduce7<__nv_bfloat16>(mscclpp::DeviceHandle)", KernelFamily::Communication,
     false},
    {"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*)",
     KernelFamily::Communication, false},
    {"void deep_ep::internode::combine<false, 8, 16>(int4*, float*)", KernelFamily::Communication,
     false},
    {"void deep_ep::intranode::notify_dispatch<8>(int const*, int*)", KernelFamily::Communication,
     false},
    {"void ep::internode_ll::dispatch<false, 8, 3, 7168>(void*)", KernelFamily::Communication,
     false},
    {"void nvshmemi_transfer_rma_nbi(nvshmemi_op_t)", KernelFamily::Communication, false},
    // The DeepSeek-V3 step's own names (DeepEP built into a `dpsk` namespace).
    {"void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 1>(int4*, float*)",
     KernelFamily::Communication, false},
    {"void dpsk::ep::internode::cached_notify<false>(int, int, int, int)",
     KernelFamily::Communication, false},
    {"void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*, float*, int*)",
     KernelFamily::Communication, false},
    {"void c10d::symmetric_memory::one_shot_all_reduce_kernel<__nv_bfloat16, 16, 8>(long)",
     KernelFamily::Communication, false},
    {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*)",
     KernelFamily::Communication, false},
    {"void sglang::cross_device_reduce_2stage<__nv_bfloat16, 8>(sglang::RankData*)",
     KernelFamily::Communication, false},
    // Memory: copy and set kernels of the runtimes.
    {"__amd_rocclr_copyBuffer", KernelFamily::Memory, false},
    {"__amd_rocclr_fillBufferAligned", KernelFamily::Memory, false},
    // Elementwise, reduction / normalization: PyTorch, inductor, vLLM, CK.
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >(int)",
     KernelFamily::Elementwise, false},
    {"triton_poi_fused__scaled_dot_product_flash_attention_cat_transpose_view_10",
     KernelFamily::Elementwise, false},
    {"void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel>(c10::BFloat16*)",
     KernelFamily::Elementwise, false},
    {"triton_red_fused__unsafe_view_add_clone_convolution_native_layer_norm_slice_transpose_view_4",
     KernelFamily::Reduction, false},
    {"void at::native::batch_norm_backward_kernel<c10::BFloat16, c10::BFloat16, float, int>(int)",
     KernelFamily::Reduction, false},
    {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float>(int)",
     KernelFamily::Reduction, false},
    {"vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*)", KernelFamily::Reduction,
     false},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float> >(float)",
     KernelFamily::Reduction, false},
    // Other.
    {"batched_transpose_16x32_half", KernelFamily::Other, false},
    {"void at::native::(anonymous namespace)::max_pool_forward_nchw<c10::BFloat16>(int)",
     KernelFamily::Other, false},
};

// Operators whose kernels are GEMMs, attention or convolutions (PyTorch and vLLM names).
bool isMatrixOperator(const QString &op)
{
    static const QStringList exact{"aten::mm",
                                   "aten::addmm",
                                   "aten::bmm",
                                   "aten::baddbmm",
                                   "aten::linear",
                                   "aten::matmul",
                                   "aten::convolution",
                                   "aten::_convolution",
                                   "aten::cudnn_convolution",
                                   "aten::miopen_convolution",
                                   "aten::_scaled_mm"};
    return exact.contains(op) || op.startsWith("aten::_flash_attention") ||
           op.startsWith("aten::_scaled_dot_product_flash") ||
           op.startsWith("aten::_efficient_attention");
}

// The kernels a matrix operator runs beside its matrix product: layout transposes, casts and
// fills, split-K reductions, and matrix-vector products (which no library runs on tensor cores).
bool isHelperKernel(const QString &name)
{
    static const QStringList words{
        "transpose", "SubTensorOp",  "elementwise",  "Fill", "fill", "copy",         "cast",
        "Cast",      "ReduceSplitK", "splitKreduce", "gemv", "Gemv", "reduce_kernel"};
    return std::any_of(words.begin(), words.end(),
                       [&](const QString &w) { return name.contains(w); });
}

} // namespace

class TestKernelClass : public QObject
{
    Q_OBJECT

private slots:
    void families_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("family");
        QTest::addColumn<bool>("tensorCore");
        for (const Case &c : kCases)
            QTest::newRow(c.name) << QString(c.name) << int(c.family) << c.tensorCore;
    }

    void families()
    {
        QFETCH(QString, name);
        QFETCH(int, family);
        QFETCH(bool, tensorCore);
        const std::string n = name.toStdString();
        const KernelClass k = classifyKernel(n);
        QCOMPARE(kernelFamilyName(k.family), kernelFamilyName(KernelFamily(family)));
        QCOMPARE(k.tensorCore, tensorCore);
        QCOMPARE(usesTensorOrMatrixCores(n), tensorCore);
        QCOMPARE(isCommunicationKernel(n), KernelFamily(family) == KernelFamily::Communication);
    }

    // Memcpy and memset activities are memory whatever their name says.
    void rolesDecide()
    {
        QCOMPARE(classifyKernel("Memcpy HtoD (Pageable -> Device)", SliceRole::Memcpy).family,
                 KernelFamily::Memory);
        QCOMPARE(classifyKernel("gemm-looking name", SliceRole::Memset).family,
                 KernelFamily::Memory);
        QVERIFY(!classifyKernel("xmma_gemm", SliceRole::Memcpy).tensorCore);
        // "convert" holds "conv" and is no convolution.
        QVERIFY(classifyKernel("void at::native::convert_fp8_kernel<float>(int)").family !=
                KernelFamily::Convolution);
    }

    // TraceLens's kernel summary of the H100 timesformer trace files each kernel under its
    // parent operator's category: every kernel it calls GEMM is a GEMM here too, and uses the
    // Tensor Cores (bf16 on Hopper).
    void agreesWithTraceLensGemms()
    {
        const QString csv = QString(TRACEDESK_SHARED_FIXTURES) +
                            "/golden_csvs/tracelens__h100_timesformer/kernel_summary.csv";
        TRACEDESK_REQUIRE_FIXTURE(csv);
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        int gemms = 0;
        for (const QByteArray &line : lines.mid(1)) {
            if (!line.startsWith("GEMM,"))
                continue;
            // Category, parent op, kernel name (quoted when it holds commas), ...
            const int nameStart = line.indexOf(',', 5) + 1;
            QByteArray name;
            if (line.at(nameStart) == '"')
                name = line.mid(nameStart + 1, line.indexOf('"', nameStart + 1) - nameStart - 1);
            else
                name = line.mid(nameStart, line.indexOf(',', nameStart) - nameStart);
            const KernelClass k = classifyKernel(name.toStdString());
            QVERIFY2(k.family == KernelFamily::Gemm, name.constData());
            // Matrix-vector products run on the CUDA cores; every matrix product on Hopper
            // in bf16 runs on the tensor cores.
            QVERIFY2(k.tensorCore != name.contains("gemv"), name.constData());
            ++gemms;
        }
        QVERIFY(gemms >= 2);
    }

    // On the Hopper, Blackwell and MI300X traces, the kernels that matrix operators launched
    // (operator read from the raw JSON: the kernel's External id, else its launch's) are at
    // least 90 % of their time flagged as tensor / matrix core kernels.
    void matrixOperatorsUseTensorCores()
    {
        const QString dir = QString(TRACEDESK_SHARED_FIXTURES) + "/chrome_json/";
        TRACEDESK_REQUIRE_FIXTURE(dir);
        QStringList names = testsupport::kinetoFixtureNames();
        names << "tracelens__h100_timesformer__facebook_timesformer-base-finetuned-k400__1016002."
                 "json.gz"
              << "tracelens__inference_sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode.json.gz"
              << "tracelens__inference_xdit_sd_3.5__profile_trace_rank_0.json.gz"
              << "tracelens__mi300_resnet_act_checkpoint__resnet_act_checkpoint.json.gz"
              << "tracelens__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz";
        int checked = 0;
        for (const QString &name : names) {
            const QJsonObject root = testsupport::readFixtureObject(dir + name);
            const QString device = root.value("deviceProperties")
                                       .toArray()
                                       .first()
                                       .toObject()
                                       .value("name")
                                       .toString();
            const bool modern = device.contains("H100") || device.contains("H200") ||
                                device.contains("B200") || device.contains("B300") ||
                                device.contains("MI300");
            if (!modern && !name.contains("mi300") && !name.contains("sglang"))
                continue;
            std::map<qint64, QString> opById;
            std::map<qint64, qint64> extByCorrelation;
            std::vector<QJsonObject> kernels;
            for (const QJsonValue &v : root.value("traceEvents").toArray()) {
                const QJsonObject e = v.toObject();
                const QString cat = e.value("cat").toString().toLower();
                const QJsonObject args = e.value("args").toObject();
                if (cat == "cpu_op" && args.contains("External id"))
                    opById.emplace(args.value("External id").toInteger(),
                                   e.value("name").toString());
                else if ((cat == "cuda_runtime" || cat == "cuda_driver") &&
                         args.contains("External id"))
                    extByCorrelation[args.value("correlation").toInteger()] =
                        args.value("External id").toInteger();
                else if (cat == "kernel")
                    kernels.push_back(e);
            }
            double all = 0, flagged = 0;
            for (const QJsonObject &k : kernels) {
                const QJsonObject args = k.value("args").toObject();
                qint64 ext = args.value("External id").toInteger(-1);
                if (auto it = extByCorrelation.find(args.value("correlation").toInteger());
                    ext < 0 && it != extByCorrelation.end())
                    ext = it->second;
                auto op = opById.find(ext);
                if (op == opById.end() || !isMatrixOperator(op->second) ||
                    isHelperKernel(k.value("name").toString()))
                    continue;
                const double dur = k.value("dur").toDouble();
                all += dur;
                flagged +=
                    usesTensorOrMatrixCores(k.value("name").toString().toStdString()) ? dur : 0.0;
            }
            if (all <= 0)
                continue;
            QVERIFY2(
                flagged >= 0.9 * all,
                qPrintable(QString("%1: %2 of %3 us flagged").arg(name).arg(flagged).arg(all)));
            ++checked;
        }
        QVERIFY(checked >= 3);
    }
};

QTEST_GUILESS_MAIN(TestKernelClass)
#include "tst_kernelclass.moc"
