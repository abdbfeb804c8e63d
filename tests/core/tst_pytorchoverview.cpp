// PyTorch overview (PYTORCH.md §2.3-2.5): tiny Kineto traces written here pin the breakdown's
// category priority, the averages, the GPU metrics (utilization, SM efficiency with min(v, 1)
// clipping of overlapping kernels, duration-weighted occupancy, tensor-core share of operator
// kernels) and which recommendations fire; every expected number is worked out by hand in the
// comments. The real Kineto fixtures check that each step's categories add up to its length.

#include "core/analysis/pytorch/intervals.h"
#include "core/analysis/pytorch/pytorchoverview.h"
#include "core/io/chromejsonreader.h"

#include <QtTest>

#include <cmath>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;
using namespace tracedesk::core::analysis::pytorch;

namespace {

constexpr TimePs kUs = 1000000;
using C = BreakdownCategory;

std::string x(const char *cat, const char *name, int pid, int tid, double ts, double dur,
              const std::string &args = {})
{
    char buf[640];
    std::snprintf(
        buf, sizeof buf,
        R"({"ph":"X","cat":"%s","name":"%s","pid":%d,"tid":%d,"ts":%.3f,"dur":%.3f,"args":{%s}},)",
        cat, name, pid, tid, ts, dur, args.c_str());
    return buf;
}

std::string ext(int id)
{
    return id ? "\"External id\":" + std::to_string(id) : std::string("\"x\":0");
}

// A launch on the host thread (pid 1, tid 1).
std::string rt(double ts, double dur, int corr, int extId = 0)
{
    return x("cuda_runtime", "cudaLaunchKernel", 1, 1, ts, dur,
             "\"correlation\":" + std::to_string(corr) + "," + ext(extId));
}

// A GPU activity on device `dev`, stream `stream`; `more` adds args (with a leading comma).
std::string gpu(const char *cat, const char *name, int dev, int stream, double ts, double dur,
                int corr, int extId = 0, const std::string &more = {})
{
    return x(cat, name, dev, stream, ts, dur,
             "\"device\":" + std::to_string(dev) + ",\"stream\":" + std::to_string(stream) +
                 ",\"correlation\":" + std::to_string(corr) + "," + ext(extId) + more);
}

std::string memory(double ts, long long bytes, long long addr, long long total, long long reserved,
                   int type, int id)
{
    char buf[512];
    std::snprintf(
        buf, sizeof buf,
        R"({"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":%.3f,)"
        R"("args":{"Total Reserved":%lld,"Total Allocated":%lld,"Bytes":%lld,"Addr":%lld,"Device Id":%d,"Device Type":%d}},)",
        ts, reserved, total, bytes, addr, id, type);
    return buf;
}

std::shared_ptr<Trace> load(std::string events, const std::string &devices = "[]")
{
    if (!events.empty() && events.back() == ',')
        events.pop_back();
    const std::string json = R"({"schemaVersion":1,"deviceProperties":)" + devices +
                             R"(,"traceEvents":[)" + events + "]}";
    auto r = readChromeJsonBytes("tiny.json", json.data(), json.size(), nullptr, LoadOptions{});
    if (!r) {
        qWarning("%s", r.message().c_str());
        return nullptr;
    }
    return r.value();
}

std::vector<RecommendationKind> kinds(const PyTorchOverview &o)
{
    std::vector<RecommendationKind> out;
    for (const PyTorchRecommendation &r : o.recommendations)
        out.push_back(r.kind);
    return out;
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

} // namespace

class TestPyTorchOverview : public QObject
{
    Q_OBJECT

private slots:
    // The interval helpers behind the breakdown, on lists worked out by hand.
    void intervalAlgebra()
    {
        // Unsorted, overlapping, touching and empty ranges.
        const IntervalList a =
            mergeIntervals({{50, 60}, {0, 10}, {5, 20}, {20, 30}, {40, 40}, {35, 45}});
        QCOMPARE(a, (IntervalList{{0, 30}, {35, 45}, {50, 60}}));
        QCOMPARE(totalLength(a), TimePs(50));
        // One range of b spans a gap of a and cuts two of its ranges.
        const IntervalList b = mergeIntervals({{25, 52}, {58, 70}, {-5, 2}});
        QCOMPARE(intersectIntervals(a, b),
                 (IntervalList{{0, 2}, {25, 30}, {35, 45}, {50, 52}, {58, 60}}));
        QCOMPARE(subtractIntervals(a, b), (IntervalList{{2, 25}, {52, 58}}));
        QCOMPARE(subtractIntervals(b, a), (IntervalList{{-5, 0}, {30, 35}, {45, 50}, {60, 70}}));
        QCOMPARE(overlapLength(a, {8, 52}), TimePs(22 + 10 + 2));
        QCOMPARE(overlapLength(a, {30, 35}), TimePs(0));
        QCOMPARE(overlapLength(a, {60, 50}), TimePs(0));
    }

    // Two steps, [0, 100] and [100, 140] µs (all GPU work launched inside them, so the
    // adjustment keeps them). Category ranges:
    //   Kernel [10,30] [115,125] | Memcpy [25,45] | Memset [50,55]
    //   Communication: the kernel [72,80] of nccl:all_reduce (External id 21); the CPU range
    //   [60,70] itself is CPU Exec, since the trace has communication kernels
    //   Runtime [5,8] [20,22] [48,49] [65,66] [110,112] | DataLoader [82,90]
    //   CPU Exec: aten::mm [2,40], aten::add [44,58], nccl:all_reduce [60,70],
    //   aten::relu [105,135]
    //   not CPU Exec: the python frame [92,96], the GPU annotations [0,100] and [91,99].
    // Step 1: Kernel 20; Memcpy [30,45] = 15; Memset 5; Communication 8;
    //   Runtime 3 + 0 + 1 + 1 = 5; DataLoader 8; CPU Exec [2,5] [8,10] [45,48] [49,50] [55,58]
    //   [60,65] [66,70] = 21; Other 100 - 82 = 18.
    // Step 2: Kernel 10; Runtime 2; CPU Exec 30 - 12 = 18; Other 10.
    void breakdownPriority()
    {
        std::string e;
        e += x("user_annotation", "ProfilerStep#1", 1, 1, 0, 100, ext(1));
        e += x("cpu_op", "aten::mm", 1, 1, 2, 38, ext(11));
        e += rt(5, 3, 101, 11) + rt(20, 2, 102, 11);
        e += x("cpu_op", "aten::add", 1, 1, 44, 14, ext(12)) + rt(48, 1, 103, 12);
        e += x("user_annotation", "nccl:all_reduce", 1, 1, 60, 10, ext(21)) + rt(65, 1, 104, 21);
        e += x("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 1, 82, 8,
               ext(31));
        e += x("python_function", "f.py(1): f", 1, 1, 92, 4);
        e += x("user_annotation", "ProfilerStep#2", 1, 1, 100, 40, ext(2));
        e += x("cpu_op", "aten::relu", 1, 1, 105, 30, ext(41)) + rt(110, 2, 105, 41);
        e += gpu("kernel", "volta_sgemm_128x64_nn", 0, 7, 10, 20, 101, 11);
        e += gpu("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 8, 25, 20, 102, 11);
        e += gpu("gpu_memset", "Memset (Device)", 0, 7, 50, 5, 103, 12);
        e += gpu("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 0, 9, 72, 8, 104, 21);
        for (int i = 0; i < 4; ++i) // one launch, four kernels: 115-118-121-124-125
            e += gpu("kernel", "vectorized_elementwise_kernel", 0, 7, 115 + 3 * i, i == 3 ? 1 : 3,
                     105, 41);
        e += x("gpu_user_annotation", "ProfilerStep#1", 0, 10, 0, 100, ext(1));
        e += x("gpu_user_annotation", "fwd", 0, 11, 91, 8);
        auto trace = load(
            e,
            R"([{"id":0,"name":"NVIDIA Test GPU","totalGlobalMem":17179869184,"computeMajor":7,"computeMinor":0,"numSms":80}])");
        QVERIFY(trace);
        AnalysisCache cache(trace);
        const auto overview = pytorchOverview(cache);
        const PyTorchOverview &o = *overview;
        QCOMPARE(o.steps.size(), size_t(2));
        const StepBreakdown &s1 = o.steps[0];
        QCOMPARE(s1.total(), 100 * kUs);
        QCOMPARE(s1[C::Kernel], 20 * kUs);
        QCOMPARE(s1[C::Memcpy], 15 * kUs);
        QCOMPARE(s1[C::Memset], 5 * kUs);
        QCOMPARE(s1[C::Communication], 8 * kUs);
        QCOMPARE(s1[C::Runtime], 5 * kUs);
        QCOMPARE(s1[C::DataLoader], 8 * kUs);
        QCOMPARE(s1[C::CpuExec], 21 * kUs);
        QCOMPARE(s1[C::Other], 18 * kUs);
        // All 8 µs of the NCCL kernel lie in step 1 and nothing else runs beside it.
        QCOMPARE(s1.communicationTotal, 8 * kUs);
        QCOMPARE(s1.communicationOverlapped, TimePs(0));
        const StepBreakdown &s2 = o.steps[1];
        QCOMPARE(s2.name, std::string("2"));
        QCOMPARE(s2.total(), 40 * kUs);
        QCOMPARE(s2[C::Kernel], 10 * kUs);
        QCOMPARE(s2[C::Runtime], 2 * kUs);
        QCOMPARE(s2[C::CpuExec], 18 * kUs);
        QCOMPARE(s2[C::Other], 10 * kUs);
        QCOMPARE(s2[C::Memcpy] + s2[C::Memset] + s2[C::Communication] + s2[C::DataLoader],
                 TimePs(0));
        // Averages: (step 1 + step 2) / 2.
        QVERIFY(near(o.average.total, 70.0 * kUs));
        QVERIFY(near(o.average[C::Kernel], 15.0 * kUs));
        QVERIFY(near(o.average[C::Memcpy], 7.5 * kUs));
        QVERIFY(near(o.average[C::Communication], 4.0 * kUs));
        QVERIFY(near(o.average[C::CpuExec], 19.5 * kUs));
        QVERIFY(near(o.average[C::Other], 14.0 * kUs));
        QVERIFY(o.hasGpuColumns && o.hasCommunication);
        QVERIFY(o.categoryPresent(C::Kernel) && o.categoryPresent(C::Communication));
        QVERIFY(o.deviceType == PyTorchDeviceType::Gpu);

        // GPU 0 busy 20 + 8 + 10 = 38 of [0, 140]. Tensor cores: none used; aten::mm is
        // eligible with 20 µs of kernels of the 30 µs operator kernel time (aten::add has only a
        // memset, the NCCL kernel belongs to a collective annotation, not an operator).
        QCOMPARE(o.gpus.size(), size_t(1));
        QVERIFY(near(*o.gpus[0].utilization, 38.0 / 140.0));
        QCOMPARE(o.tensorCoreUsedRatio, 0.0);
        QVERIFY(near(o.tensorCoreEligibleRatio, 20.0 / 30.0));
        QVERIFY(near(*o.gpus[0].tensorCoreRatio, 0.0));
        // DataLoader 4 / 70 = 5.71 % > 5 %; Communication 4 / 70 = 5.71 % < 10 %; GPU 0 at
        // 27.14 % < 50 %; AMP: capability 7.0, no TC kernel, eligible share 67 % (which
        // covers the plain sgemm, so no second GEMM hint).
        QCOMPARE(kinds(o), (std::vector<RecommendationKind>{RecommendationKind::DataLoader,
                                                            RecommendationKind::LowGpuUtilization,
                                                            RecommendationKind::EnableAmp}));
        QVERIFY(o.recommendations[0].text.find("5.71") != std::string::npos);
        QVERIFY(o.recommendations[1].text.find("27.14") != std::string::npos);
        QVERIFY(o.recommendations[2].text.find("67 %") != std::string::npos);

        // The same run on an AMD GPU: NVIDIA's tensor-core kernel names say nothing there, so
        // no mixed-precision advice.
        auto amd = load(
            e, R"([{"id":0,"name":"AMD Instinct MI300X","totalGlobalMem":205822885888,"computeMajor":9,"computeMinor":4,"numSms":304}])");
        QVERIFY(amd);
        AnalysisCache amdCache(amd);
        for (const PyTorchRecommendation &r : pytorchOverview(amdCache)->recommendations)
            QVERIFY(r.kind != RecommendationKind::EnableAmp);
    }

    // Current PyTorch: the collective's kernels hang off `record_param_comms`, or carry no
    // External id at all. Step [0, 100]: record_param_comms [10,20] launches A [30,40]; B
    // [50,60] is an NCCL kernel without any id; C [70,80] is a plain kernel.
    // Communication [30,40] + [50,60] = 20; Kernel 10; Runtime [12,13] [22,23] [24,25] = 3;
    // CPU Exec: record_param_comms [10,20] less its launch = 9 (its kernel stands for it);
    // Other 58.
    void communicationKernels()
    {
        std::string e;
        e += x("user_annotation", "ProfilerStep#1", 1, 1, 0, 100, ext(1));
        e += x("cpu_op", "record_param_comms", 1, 1, 10, 10, ext(5)) + rt(12, 1, 1, 5);
        e += rt(22, 1, 2) + rt(24, 1, 3);
        e += gpu("kernel", "generic_collective_kernel", 0, 7, 30, 10, 1);
        e += gpu("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 0, 8, 50, 10, 2);
        e += gpu("kernel", "sgemm", 0, 7, 70, 10, 3);
        auto trace = load(e);
        QVERIFY(trace);
        const PyTorchOverview o = computePyTorchOverview(*trace);
        QCOMPARE(o.steps.size(), size_t(1));
        const StepBreakdown &s = o.steps[0];
        QCOMPARE(s[C::Communication], 20 * kUs);
        QCOMPARE(s[C::Kernel], 10 * kUs);
        QCOMPARE(s[C::Runtime], 3 * kUs);
        QCOMPARE(s[C::CpuExec], 9 * kUs);
        QCOMPARE(s[C::Other], 58 * kUs);
        QCOMPARE(s.communicationTotal, 20 * kUs);
        QCOMPARE(s.communicationOverlapped, TimePs(0));
        QVERIFY(o.hasCommunication);
    }

    // One step [0, 100] µs. GPU 0 kernels (blocks per SM, occupancy %):
    //   K1 [10,50] (0.6, 40) from aten::mm, tensor-core name   K2 [30,70] (0.7, 60) from aten::add
    //   K3 [80,90] (2.5, 20) launched under the step marker    K4 [92,96] ("inf", none), no op
    //   K5 [98,120] (0.5, 50) launched after the step (not matched)
    // GPU 1: K6 [20,40], no metrics, no op.
    // Utilization GPU 0: [10,70] [80,90] [92,96] [98,100] = 76 / 100.
    // SM efficiency: [10,30] 0.6, [30,50] min(1.3,1), [50,70] 0.7, [80,90] min(2.5,1),
    //   [98,100] 0.5 -> (12 + 20 + 14 + 10 + 1) / 100 = 0.57 (0.78 without clipping).
    // Occupancy: (40·40 + 60·40 + 20·10 + 50·2) / (40 + 40 + 10 + 2) = 4300 / 92.
    // Tensor cores, over every kernel of the device (the Kernel Stats set): GPU 0
    //   K1 / (K1..K5) = 40 / 116; GPU 1 none -> 0.
    void gpuMetrics()
    {
        auto m = [](double blocks, int occ) {
            std::string s = ",\"blocks per SM\":" + std::to_string(blocks);
            if (occ >= 0)
                s += ",\"est. achieved occupancy %\":" + std::to_string(occ);
            return s;
        };
        std::string e;
        e += x("user_annotation", "ProfilerStep#1", 1, 1, 0, 100, ext(1));
        e += x("cpu_op", "DataParallel.forward", 1, 1, 1, 98, ext(2));
        e += x("cpu_op", "aten::mm", 1, 1, 2, 18, ext(11)) + rt(3, 1, 1, 11);
        e += x("cpu_op", "aten::add", 1, 1, 21, 19, ext(12)) + rt(22, 1, 2, 12);
        e += rt(41, 1, 3, 1) + rt(43, 1, 4) + rt(45, 1, 6) + rt(101, 1, 5);
        e += gpu("kernel", "volta_h884gemm_64x64", 0, 7, 10, 40, 1, 11, m(0.6, 40));
        e += gpu("kernel", "elementwise_kernel", 0, 8, 30, 40, 2, 12, m(0.7, 60));
        e += gpu("kernel", "reduce_kernel", 0, 7, 80, 10, 3, 1, m(2.5, 20));
        e += gpu("kernel", "copy_kernel", 0, 7, 92, 4, 4, 0, ",\"blocks per SM\":\"inf\"");
        e += gpu("kernel", "late_kernel", 0, 9, 98, 22, 5, 0, m(0.5, 50));
        e += gpu("kernel", "other_kernel", 1, 7, 20, 20, 6);
        auto trace = load(
            e,
            R"([{"id":0,"name":"NVIDIA Test GPU A","totalGlobalMem":17179869184,"computeMajor":8,"computeMinor":0},)"
            R"({"id":1,"name":"NVIDIA Test GPU B","totalGlobalMem":34089730048,"computeMajor":7,"computeMinor":5}])");
        QVERIFY(trace);
        const PyTorchOverview o = computePyTorchOverview(*trace);
        QCOMPARE(o.allStart - trace->begin, TimePs(0));
        QCOMPARE(o.allEnd - trace->begin, 100 * kUs);
        QCOMPARE(o.traceBegin, trace->begin);   // the panel shows the window from here
        QCOMPARE(o.gpus.size(), size_t(2));
        const PyTorchGpuMetrics &g0 = o.gpus[0];
        QCOMPARE(g0.device, int64_t(0));
        QCOMPARE(g0.name, std::string("NVIDIA Test GPU A"));
        QCOMPARE(g0.memoryGb, 16.0);
        QCOMPARE(g0.computeCapability, std::string("8.0"));
        QVERIFY(near(*g0.utilization, 0.76));
        QVERIFY(g0.smEfficiency && near(*g0.smEfficiency, 0.57));
        QVERIFY(g0.achievedOccupancy && near(*g0.achievedOccupancy, 4300.0 / 92.0));
        QVERIFY(near(*g0.tensorCoreRatio, 40.0 / 116.0));
        const PyTorchGpuMetrics &g1 = o.gpus[1];
        QCOMPARE(g1.memoryGb, 31.75); // 34089730048 / 1024^3 = 31.748...
        QCOMPARE(g1.computeCapability, std::string("7.5"));
        QVERIFY(near(*g1.utilization, 0.2));
        QVERIFY(!g1.smEfficiency && !g1.achievedOccupancy);
        QVERIFY(g1.tensorCoreRatio && *g1.tensorCoreRatio == 0.0);
        // Whole file: 40 of 40 + 40 + 10 + 4 + 22 + 20 µs of kernels use tensor cores.
        QVERIFY(near(o.tensorCoreUsedRatio, 40.0 / 136.0));
        // DataParallel over two devices; GPU 1 at 20 %; tensor cores are used, so no AMP.
        QCOMPARE(kinds(o), (std::vector<RecommendationKind>{
                               RecommendationKind::UseDdp, RecommendationKind::LowGpuUtilization}));
        QVERIFY(o.recommendations[1].text.find("GPU 1 (20.00 %)") != std::string::npos);
    }

    // CPU-only trace: device type CPU, no GPU columns. DDP without NCCL on a 7.0 GPU, and a GPU
    // peak of 950000 > 0.9 x 1000000 bytes; the CPU peak (5e6) is not compared with any GPU.
    void cpuOnlyAndMemoryAdvice()
    {
        std::string e;
        e += x("cpu_op", "ProfilerStep#1", 1, 1, 0, 50);
        e += x("cpu_op", "DistributedDataParallel.forward", 1, 1, 5, 40);
        e += x("cpu_op", "aten::add", 1, 1, 10, 10);
        e += memory(12, 950000, 64, 950000, 1048576, 1, 0);
        e += memory(15, 5000000, 128, 5000000, 5000000, 0, -1);
        auto trace = load(
            e,
            R"([{"id":0,"name":"NVIDIA Small","totalGlobalMem":1000000,"computeMajor":7,"computeMinor":0}])");
        QVERIFY(trace);
        const PyTorchOverview o = computePyTorchOverview(*trace);
        QVERIFY(o.deviceType == PyTorchDeviceType::Cpu);
        QVERIFY(!o.hasGpuColumns && !o.hasCommunication);
        QVERIFY(!o.categoryPresent(C::Kernel) && !o.categoryPresent(C::Runtime));
        QVERIFY(o.categoryPresent(C::CpuExec) && o.categoryPresent(C::Other));
        QCOMPARE(o.steps.size(), size_t(1));
        QCOMPARE(o.steps[0][C::CpuExec], 40 * kUs);
        QCOMPARE(o.steps[0][C::Other], 10 * kUs);
        QVERIFY(o.gpus.empty());
        QCOMPARE(kinds(o), (std::vector<RecommendationKind>{RecommendationKind::UseNccl,
                                                            RecommendationKind::MemoryAtLimit}));
        QVERIFY(o.recommendations[1].text.find("GPU0") != std::string::npos);
        QVERIFY(o.recommendations[1].text.find("95.00") != std::string::npos);
    }

    void realFixtures()
    {
        const QDir dir(QStringLiteral(TRACEDESK_SHARED_FIXTURES) + "/chrome_json");
        if (!dir.exists())
            QSKIP("shared real fixtures (chrome_json/) are not available");
        const QStringList prefixes = {"kineto__resnet50", "tracelens__h100", "tracelens__b200",
                                      "hta__", "tracelens__mi300"};
        int checked = 0;
        for (const QString &file : dir.entryList(QDir::Files, QDir::Name)) {
            if (!std::any_of(prefixes.begin(), prefixes.end(),
                             [&](const QString &p) { return file.startsWith(p); }))
                continue;
            auto r = readChromeJson(dir.filePath(file).toStdString(), nullptr, LoadOptions{});
            QVERIFY2(r, qPrintable(file));
            AnalysisCache cache(r.value());
            const auto steps = pytorchSteps(cache);
            const auto o = pytorchOverview(cache);
            QVERIFY2(o->steps.size() == steps->steps.size(), qPrintable(file));
            for (const StepBreakdown &s : o->steps) {
                TimePs sum = 0;
                for (TimePs c : s.cost) {
                    QVERIFY2(c >= 0, qPrintable(file));
                    sum += c;
                }
                QVERIFY2(sum == s.total(),
                         qPrintable(file + " step " + QString::fromStdString(s.name)));
            }
            double avg = 0;
            for (double c : o->average.cost)
                avg += c;
            QVERIFY2(near(avg, o->average.total), qPrintable(file));
            for (const PyTorchGpuMetrics &g : o->gpus) {
                if (g.utilization)
                    QVERIFY2(*g.utilization >= 0 && *g.utilization <= 1, qPrintable(file));
                if (g.smEfficiency)
                    QVERIFY2(*g.smEfficiency >= 0 && *g.smEfficiency <= 1, qPrintable(file));
            }
            ++checked;
        }
        QVERIFY(checked >= 5);
    }
};

QTEST_GUILESS_MAIN(TestPyTorchOverview)
#include "tst_pytorchoverview.moc"
