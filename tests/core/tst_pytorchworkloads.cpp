// Today's PyTorch workloads: launches whose External id names no operator (recent Kineto),
// communication as the exposed communication-kernel time, the tensor-core share over the
// kernels Kernel Stats flags, serving-engine iterations as steps, and the recommendations for
// these workloads. Expectations come from the raw JSON of the shared fixtures (sums, unions of
// intervals, counts) or from hand-made traces worked out in the comments.

#include "core/analysis/kernels/kernelclass.h"
#include "core/analysis/pytorch/kernelview.h"
#include "core/analysis/pytorch/numberedsteps.h"
#include "core/analysis/pytorch/pytorchoverview.h"
#include "core/analysis/pytorch/servingiterations.h"
#include "core/io/chromejsonreader.h"
#include "support/kinetofixtures.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <set>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;
using namespace tracedesk::core::analysis::pytorch;

namespace {

constexpr TimePs kUs = 1000000;

TracePtr loadJson(std::string events, const std::string &devices = "[]")
{
    if (!events.empty() && events.back() == ',')
        events.pop_back();
    const std::string json = R"({"schemaVersion":1,"deviceProperties":)" + devices +
                             R"(,"traceEvents":[)" + events + "]}";
    auto r = readChromeJsonBytes("tiny.json", json.data(), json.size(), nullptr, LoadOptions{});
    return r ? r.value() : nullptr;
}

std::string x(const char *cat, const std::string &name, int pid, int tid, double ts, double dur,
              const std::string &args = {})
{
    char buf[1024];
    std::snprintf(
        buf, sizeof buf,
        R"({"ph":"X","cat":"%s","name":"%s","pid":%d,"tid":%d,"ts":%.3f,"dur":%.3f,"args":{%s}},)",
        cat, name.c_str(), pid, tid, ts, dur, args.c_str());
    return buf;
}

std::string launch(const char *name, double ts, double dur, int corr)
{
    return x("cuda_runtime", name, 1, 1, ts, dur, "\"correlation\":" + std::to_string(corr));
}

std::string kernel(const std::string &name, double ts, double dur, int corr, int stream = 7)
{
    return x("kernel", name, 0, stream, ts, dur,
             "\"device\":0,\"stream\":" + std::to_string(stream) +
                 ",\"correlation\":" + std::to_string(corr));
}

struct Interval
{
    double start, end;
};

std::vector<Interval> merged(std::vector<Interval> v)
{
    std::sort(v.begin(), v.end(), [](auto a, auto b) { return a.start < b.start; });
    std::vector<Interval> out;
    for (const Interval &i : v) {
        if (!out.empty() && i.start <= out.back().end)
            out.back().end = std::max(out.back().end, i.end);
        else
            out.push_back(i);
    }
    return out;
}

// Length of `a` inside [lo, hi] and outside every range of `b` (both merged).
double exposedLength(const std::vector<Interval> &a, const std::vector<Interval> &b, double lo,
                     double hi)
{
    double total = 0;
    for (const Interval &i : a) {
        double s = std::max(i.start, lo), e = std::min(i.end, hi);
        if (s >= e)
            continue;
        double covered = 0;
        for (const Interval &j : b)
            covered += std::max(0.0, std::min(e, j.end) - std::max(s, j.start));
        total += (e - s) - covered;
    }
    return total;
}

const QString kMegatron = "/multirank/astrasim__megatron-tp8/megatron_kineto_0.json.gz";

} // namespace

class TestPyTorchWorkloads : public QObject
{
    Q_OBJECT

private slots:
    // Megatron rank 0: every launch's External id equals its correlation, so no operator
    // carries it. At least 95 % of the kernel time whose launch is in the file (by correlation,
    // counted here) must reach an operator, annotation or Python frame, never CallTreeRoot.
    void launchesWithoutOperatorIds()
    {
        const QString path = QString(TRACEDESK_SHARED_FIXTURES) + kMegatron;
        TRACEDESK_REQUIRE_FIXTURE(path);
        const QJsonObject root = testsupport::readFixtureObject(path);
        std::set<qint64> launched;
        std::vector<std::pair<qint64, double>> kernels; // correlation, dur
        for (const QJsonValue &v : root.value("traceEvents").toArray()) {
            const QJsonObject e = v.toObject();
            const QString cat = e.value("cat").toString();
            const qint64 corr = e.value("args").toObject().value("correlation").toInteger(-1);
            if (cat == "cuda_runtime" || cat == "cuda_driver")
                launched.insert(corr);
            else if (cat == "kernel")
                kernels.push_back({corr, e.value("dur").toDouble()});
        }
        double withLaunch = 0;
        for (const auto &[corr, dur] : kernels)
            withLaunch += launched.count(corr) ? dur : 0;
        QVERIFY(withLaunch > 0);

        auto r = readChromeJson(path.toStdString(), nullptr, LoadOptions{});
        QVERIFY(r);
        AnalysisCache cache(r.value());
        const auto view = kernelView(cache);
        double attributed = 0;
        for (const KernelNameRow &row : view->byNameOperator) {
            if (!row.operatorName.empty() && row.operatorName != kCallTreeRootName &&
                row.operatorName != kNoRecordedLaunchName)
                attributed += row.times.totalUs;
        }
        QVERIFY2(attributed >= 0.95 * withLaunch,
                 qPrintable(QString("%1 of %2 us attributed").arg(attributed).arg(withLaunch)));
        QVERIFY(view->kernelUsByRule[size_t(LaunchRule::ExternalId)] == 0.0); // ids are useless
        QVERIFY(std::abs(view->totalKernelUs - [&] {
                    double t = 0;
                    for (const auto &k : kernels)
                        t += k.second;
                    return t;
                }()) < 1.0);
    }

    // Megatron rank 0, step 3: Communication = NCCL-kernel time in the step that no other GPU
    // activity overlaps (union algebra on the raw JSON), within 0.5 ms; the step's total
    // communication is the union of the NCCL kernels in it. The Tensor Core share of the GPU
    // summary is the kernel-time share of the kernels Kernel Stats flags (±0.5 points).
    void communicationAndTensorCoreShare()
    {
        const QString path = QString(TRACEDESK_SHARED_FIXTURES) + kMegatron;
        TRACEDESK_REQUIRE_FIXTURE(path);
        const QJsonObject root = testsupport::readFixtureObject(path);
        std::vector<Interval> comm, other;
        double kernelTime = 0, flaggedTime = 0;
        for (const QJsonValue &v : root.value("traceEvents").toArray()) {
            const QJsonObject e = v.toObject();
            const QString cat = e.value("cat").toString();
            if (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset")
                continue;
            const double ts = e.value("ts").toDouble(), dur = e.value("dur").toDouble();
            const QString name = e.value("name").toString();
            if (cat == "kernel" && name.startsWith("nccl"))
                comm.push_back({ts, ts + dur});
            else
                other.push_back({ts, ts + dur});
            if (cat == "kernel") {
                kernelTime += dur;
                flaggedTime += usesTensorOrMatrixCores(name.toStdString()) ? dur : 0;
            }
        }
        comm = merged(comm);
        other = merged(other);

        auto r = readChromeJson(path.toStdString(), nullptr, LoadOptions{});
        QVERIFY(r);
        const TracePtr trace = r.value();
        AnalysisCache cache(trace);
        const auto o = pytorchOverview(cache);
        QCOMPARE(o->steps.size(), size_t(1));
        const StepBreakdown &s = o->steps[0];
        // Raw µs are absolute epoch times; the store's origin is the file's first event.
        const double lo = double(s.start) / 1e6, hi = double(s.end) / 1e6;
        const double base = [&] {
            double m = 1e300;
            for (const QJsonValue &v : root.value("traceEvents").toArray()) {
                const QJsonObject e = v.toObject();
                if (e.contains("ts") && e.value("ph").toString() == "X")
                    m = std::min(m, e.value("ts").toDouble());
            }
            return m;
        }();
        const double offset = base - double(trace->begin) / 1e6;
        const double exposed = exposedLength(comm, other, lo + offset, hi + offset);
        const double total = exposedLength(comm, {}, lo + offset, hi + offset);
        QVERIFY2(std::abs(double(s[BreakdownCategory::Communication]) / 1e6 - exposed) <= 500,
                 qPrintable(QString("communication %1 us, raw %2 us")
                                .arg(double(s[BreakdownCategory::Communication]) / 1e6)
                                .arg(exposed)));
        QVERIFY(std::abs(double(s.communicationTotal) / 1e6 - total) <= 500);
        QVERIFY(s.communicationOverlapped <= s.communicationTotal);

        const auto view = kernelView(cache);
        QCOMPARE(o->gpus.size(), size_t(1));
        const double share = 100.0 * *o->gpus[0].tensorCoreRatio;
        QVERIFY(std::abs(share - 100.0 * view->tensorCoreKernelUs / view->totalKernelUs) <= 0.5);
        QVERIFY(std::abs(share - 100.0 * flaggedTime / kernelTime) <= 0.5);
    }

    void iterationNames()
    {
        auto it = parseIterationName("step[DECODE bs=16]");
        QVERIFY(it && it->kind == IterationKind::Decode && it->batchSize == 16 && it->tokens < 0);
        it = parseIterationName("step[EXTEND bs=15 toks=15360]");
        QVERIFY(it && it->kind == IterationKind::Prefill && it->batchSize == 15 &&
                it->tokens == 15360 && it->engine == IterationEngine::SGLang);
        it = parseIterationName("step[MIXED bs=4 toks=900]");
        QVERIFY(it && it->kind == IterationKind::Mixed);
        it = parseIterationName(
            "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)");
        QVERIFY(it && it->kind == IterationKind::Decode && it->batchSize == 32 &&
                it->tokens == 32 && it->engine == IterationEngine::Vllm);
        it = parseIterationName(
            "execute_15360_context_15(sq15360sk15360sqsq15728640sqsk15728640)_generation_0(sq0sk0"
            "sqsq0sqsk0)");
        QVERIFY(it && it->kind == IterationKind::Prefill && it->batchSize == 15 &&
                it->tokens == 15360);
        it = parseIterationName("execute_40_context_2(x)_generation_6(y)");
        QVERIFY(it && it->kind == IterationKind::Mixed && it->batchSize == 8);
        QVERIFY(!parseIterationName("ProfilerStep#3"));
        QVERIFY(!parseIterationName("step[DECODE bs=16"));
        QVERIFY(!parseIterationName("execute_model"));
    }

    void numberedStepNames()
    {
        const std::pair<const char *, std::pair<const char *, int64_t>> good[] = {
            {"iteration10", {"iteration", 10}},     {"Iteration 3", {"iteration", 3}},
            {"step 12", {"step", 12}},              {"STEP_7", {"step", 7}},
            {"train_step_3", {"train_step", 3}},    {"training step 40", {"training step", 40}},
            {"Batch 0", {"batch", 0}},              {"iter 12/100", {"iter", 12}},
            {"iter 12 / 100", {"iter", 12}},        {"step 5 of 9", {"step", 5}},
            {"global_step=100", {"global_step", 100}}, {"  step#8 ", {"step", 8}},
        };
        for (const auto &[name, expected] : good) {
            const auto n = parseNumberedStepName(name);
            QVERIFY2(n, name);
            QCOMPARE(n->word, std::string(expected.first));
            QCOMPARE(n->number, expected.second);
        }
        for (const char *name : {"step[DECODE bs=16]", "ProfilerStep#3", "iteration_time",
                                 "steps 5", "iterator 3", "train 3", "batch_size 32", "step",
                                 "step 5x", "step 5/", "forward 3", "step 1234567890123456789"})
            QVERIFY2(!parseNumberedStepName(name), name);
    }

    // Without ProfilerStep#N, the numbered top-level ranges are the steps (the nested
    // "iteration" repeat and the differently named range are not), named by their numbers and
    // adjusted as markers are: iteration 8's kernel runs past its range, so its step ends with
    // the kernel and iteration 9 starts there. Times in us:
    //   iteration7 [0, 100)   launch at 10, kernel [20, 60)
    //   iteration8 [200, 300) launch at 210, kernel [220, 350)  -> step [200, 350)
    //   iteration9 [400, 500) launch at 410, kernel [420, 470)  -> step [400, 500)
    // A fourth range without GPU work is trimmed away; "forward 3" is no step word.
    void numberedRangesAreSteps()
    {
        std::string e;
        int corr = 1;
        const double kernelEnd[] = {60, 350, 470};
        for (int i = 0; i < 3; ++i) {
            const double t = i * 200.0;
            e += x("user_annotation", "iteration" + std::to_string(7 + i), 1, 1, t, 100);
            e += x("user_annotation", "iteration99", 1, 1, t + 50, 10);  // nested, not a step
            e += launch("cudaLaunchKernel", t + 10, 2, corr);
            e += kernel("k", t + 20, kernelEnd[i] - (t + 20), corr++);
        }
        e += x("user_annotation", "iteration10", 1, 1, 600, 100);
        e += x("user_annotation", "forward 3", 1, 1, 800, 100);
        const TracePtr trace = loadJson(e);
        QVERIFY(trace);
        AnalysisCache cache(trace);
        const auto steps = pytorchSteps(cache);
        QVERIFY(steps->fromNumberedRanges);
        QVERIFY(!steps->fromMarkers && !steps->fromIterations);
        QCOMPARE(steps->numberedWord, std::string("iteration"));
        QCOMPARE(std::string(stepsSourceName(*steps)), std::string("numbered_ranges"));
        QCOMPARE(steps->trimmedSteps, uint32_t(1));
        QCOMPARE(steps->steps.size(), size_t(3));
        const TimePs expected[3][2] = {{0, 100}, {200, 350}, {400, 500}};
        for (size_t i = 0; i < 3; ++i) {
            QCOMPARE(steps->steps[i].name, std::to_string(7 + i));
            QCOMPARE(steps->steps[i].iterationLabel, "iteration" + std::to_string(7 + i));
            QCOMPARE(steps->steps[i].start - trace->begin, expected[i][0] * kUs);
            QCOMPARE(steps->steps[i].end - trace->begin, expected[i][1] * kUs);
        }
        // Serving iterations are not reported for a training loop's steps.
        QVERIFY(pytorchOverview(cache)->iterations.empty());
    }

    // Ten decode iterations of 1..10 ms and two prefills of 20 and 30 ms, SGLang-named, each
    // launching one kernel: twelve steps; nearest-rank p50 / p90 / p99 of the decodes 5 / 9 /
    // 10 ms, of the prefills 20 / 30 / 30 ms.
    void iterationPercentiles()
    {
        std::string e;
        double t = 0;
        int corr = 1;
        auto iteration = [&](const std::string &name, double ms) {
            e += x("user_annotation", name, 1, 1, t, ms * 1000);
            e += launch("cudaLaunchKernel", t + 1, 1, corr);
            e += kernel("decode_kernel", t + 5, 2, corr++);
            t += ms * 1000 + 100;
        };
        iteration("step[EXTEND bs=2 toks=4096]", 20);
        for (int i = 1; i <= 10; ++i)
            iteration("step[DECODE bs=" + std::to_string(i) + "]", i);
        iteration("step[EXTEND bs=1 toks=100]", 30);
        const TracePtr trace = loadJson(e);
        QVERIFY(trace);
        AnalysisCache cache(trace);
        const auto o = pytorchOverview(cache);
        QCOMPARE(o->steps.size(), size_t(12));
        QCOMPARE(o->iterations.size(), size_t(12));
        QCOMPARE(o->iterations[0].kind, IterationKind::Prefill);
        QCOMPARE(o->iterations[0].tokens, int64_t(4096));
        QCOMPARE(o->iterations[3].batchSize, int64_t(3));
        QCOMPARE(o->iterations[3].latencyMs, 3.0);
        QCOMPARE(o->iterationLatency.size(), size_t(2));
        const auto &[prefillKind, prefill] = o->iterationLatency[0];
        const auto &[decodeKind, decode] = o->iterationLatency[1];
        QCOMPARE(prefillKind, std::string("prefill"));
        QCOMPARE(decodeKind, std::string("decode"));
        QCOMPARE(decode.count, int64_t(10));
        QCOMPARE(decode.p50, 5.0);
        QCOMPARE(decode.p90, 9.0);
        QCOMPARE(decode.p99, 10.0);
        QCOMPARE(prefill.p50, 20.0);
        QCOMPARE(prefill.p90, 30.0);
    }

    // No listed engine: the top-level user annotation that repeats (three `engine_step`, each
    // holding two `inner`) is the iteration; the nested one is not.
    void repeatedTopLevelAnnotation()
    {
        std::string e;
        for (int i = 0; i < 3; ++i) {
            const double t = i * 1000.0;
            e += x("user_annotation", "engine_step", 1, 1, t, 500);
            e += x("user_annotation", "inner", 1, 1, t + 10, 100);
            e += x("user_annotation", "inner", 1, 1, t + 200, 100);
            e += x("cpu_op", "aten::add", 1, 1, t + 20, 50);
        }
        const TracePtr trace = loadJson(e);
        QVERIFY(trace);
        AnalysisCache cache(trace);
        const auto o = pytorchOverview(cache);
        QCOMPARE(o->iterations.size(), size_t(3));
        QCOMPARE(o->iterations[1].name, std::string("engine_step"));
        QCOMPARE(o->iterations[1].kind, IterationKind::Unknown);
        QCOMPARE(o->iterations[1].latencyMs, 0.5);
        QCOMPARE(o->iterationLatency.front().first, std::string("unknown"));
    }

    // The SGLang and vLLM fixtures: their iterations are their annotations, latency = the
    // annotation's raw duration.
    void servingFixtures()
    {
        const QString base = QString(TRACEDESK_SHARED_FIXTURES);
        const QStringList files{
            "/chrome_json/"
            "tracelens__inference_sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode.json.gz",
            "/chrome_json/tracelens__inference__sglang_decode__sglang_Qwen3-8B_decode.json.gz",
            "/cudagraph/tracelens__vllm_decode_full/graph_execution.json.gz"};
        for (const QString &file : files) {
            TRACEDESK_REQUIRE_FIXTURE(base + file);
            // Raw: the SGLang step[...] annotations, else vLLM's execute_... ones.
            std::vector<std::pair<QString, double>> sglang, vllm;
            for (const QJsonValue &v :
                 testsupport::readFixtureObject(base + file).value("traceEvents").toArray()) {
                const QJsonObject ev = v.toObject();
                if (ev.value("cat").toString() != "user_annotation")
                    continue;
                const QString name = ev.value("name").toString();
                if (name.startsWith("step["))
                    sglang.push_back({name, ev.value("dur").toDouble()});
                else if (name.startsWith("execute_"))
                    vllm.push_back({name, ev.value("dur").toDouble()});
            }
            const auto &expected = sglang.empty() ? vllm : sglang;
            QVERIFY(!expected.empty());
            auto r = readChromeJson((base + file).toStdString(), nullptr, LoadOptions{});
            QVERIFY(r);
            AnalysisCache cache(r.value());
            const auto o = pytorchOverview(cache);
            QCOMPARE(o->iterations.size(), expected.size());
            for (size_t i = 0; i < expected.size(); ++i) {
                QCOMPARE(QString::fromStdString(o->iterations[i].name), expected[i].first);
                QVERIFY(std::abs(o->iterations[i].latencyMs - expected[i].second / 1000.0) < 1e-6);
            }
        }
    }

    // 200 kernels of 5 µs, each launched one by one with 20 µs launch calls and 40 µs gaps:
    // launch-bound. The same kernels from one graph launch: no such hint.
    void launchBoundDecode()
    {
        std::string eager, graphed;
        eager += x("user_annotation", "step[DECODE bs=1]", 1, 1, 0, 12000);
        graphed += x("user_annotation", "step[DECODE bs=1]", 1, 1, 0, 12000);
        graphed += launch("cudaGraphLaunch", 1, 20, 1);
        for (int i = 0; i < 200; ++i) {
            const double t = 10 + i * 60.0;
            eager += launch("cudaLaunchKernel", t, 20, i + 1);
            eager += kernel("void at::native::vectorized_elementwise_kernel<4>", t + 25, 5, i + 1);
            graphed += kernel("void at::native::vectorized_elementwise_kernel<4>", t + 25, 5, 1);
        }
        const std::string gpu =
            R"([{"id":0,"name":"NVIDIA B300","totalGlobalMem":1,"computeMajor":10,"computeMinor":3}])";
        auto kinds = [](const PyTorchOverview &o) {
            std::vector<RecommendationKind> k;
            for (const auto &r : o.recommendations)
                k.push_back(r.kind);
            return k;
        };
        const TracePtr a = loadJson(eager, gpu);
        const TracePtr b = loadJson(graphed, gpu);
        QVERIFY(a && b);
        const PyTorchOverview oa = computePyTorchOverview(*a);
        const PyTorchOverview ob = computePyTorchOverview(*b);
        const auto ka = kinds(oa), kb = kinds(ob);
        QVERIFY(std::count(ka.begin(), ka.end(), RecommendationKind::LaunchBound) == 1);
        QVERIFY(std::count(kb.begin(), kb.end(), RecommendationKind::LaunchBound) == 0);
    }

    // A process that sees one GPU lists it as id 0; its kernels carry the machine's index 9
    // (the SGLang MI300X trace does this): the GPU summary names the listed GPU.
    void oneVisibleDevice()
    {
        std::string e;
        e += x("user_annotation", "step[DECODE bs=1]", 1, 1, 0, 100);
        e += launch("hipLaunchKernel", 1, 2, 1);
        e += x("kernel", "Cijk_Ailk_Bljk_BBS_BH_MT64x64x64_MI16x16x16x1_SN", 9, 3, 10, 20,
               "\"device\":9,\"stream\":3,\"correlation\":1");
        const TracePtr t = loadJson(
            e,
            R"([{"id":0,"name":"AMD Instinct MI300X","totalGlobalMem":206141652992,"computeMajor":9,"computeMinor":4}])");
        QVERIFY(t);
        const PyTorchOverview o = computePyTorchOverview(*t);
        QCOMPARE(o.gpus.size(), size_t(1));
        QCOMPARE(o.gpus[0].device, int64_t(9));
        QCOMPARE(o.gpus[0].name, std::string("AMD Instinct MI300X"));
        QCOMPARE(o.gpus[0].computeCapability, std::string("9.4"));
        QCOMPARE(*o.gpus[0].tensorCoreRatio, 1.0); // an MFMA GEMM
    }

    // An A100 where plain FP32 GEMMs take 60 % of the kernel time beside a tensor-op GEMM: the
    // GEMM hint (not the AMP one: some kernel uses the Tensor Cores). On a V100-era GPU without
    // any tensor-core kernel the plugin's AMP hint stands alone.
    void gemmWithoutTensorCores()
    {
        std::string e;
        e += x("user_annotation", "ProfilerStep#1", 1, 1, 0, 1000);
        e += x("cpu_op", "aten::mm", 1, 1, 10, 500, "\"External id\":5");
        e += launch("cudaLaunchKernel", 20, 5, 1) + launch("cudaLaunchKernel", 40, 5, 2);
        e += kernel("ampere_sgemm_128x64_nn", 100, 60, 1);
        e += kernel("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn", 200, 40, 2);
        const TracePtr t = loadJson(
            e,
            R"([{"id":0,"name":"NVIDIA A100-SXM4-80GB","totalGlobalMem":1,"computeMajor":8,"computeMinor":0}])");
        QVERIFY(t);
        const PyTorchOverview o = computePyTorchOverview(*t);
        bool gemm = false;
        for (const auto &r : o.recommendations) {
            QVERIFY(r.kind != RecommendationKind::EnableAmp);
            if (r.kind == RecommendationKind::GemmWithoutTensorCores) {
                gemm = true;
                QVERIFY(r.text.find("60.00 %") != std::string::npos);
            }
        }
        QVERIFY(gemm);
        // The same kernels on a GPU without tensor cores: no hint.
        const TracePtr p = loadJson(
            e,
            R"([{"id":0,"name":"Tesla P100","totalGlobalMem":1,"computeMajor":6,"computeMinor":0}])");
        for (const auto &r : computePyTorchOverview(*p).recommendations)
            QVERIFY(r.kind != RecommendationKind::GemmWithoutTensorCores);
    }
};

QTEST_GUILESS_MAIN(TestPyTorchWorkloads)
#include "tst_pytorchworkloads.moc"
