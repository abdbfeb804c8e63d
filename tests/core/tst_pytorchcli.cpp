// tracedesk-cli on PyTorch (Kineto) traces: overview, op-stats, kernel-stats and memory-profile
// print the PyTorch views with the JSON keys outside scripts read; the overview's "framework"
// key (core/analysis/framework.h) names the framework of Kineto and XSpace profiles.
//
// The hand-made trace below has two steps; every expected number is worked out in the comments
// from the rules in PYTORCH.md (§2.2 steps, §2.3 breakdown, §2.4 GPU metrics, §2.5
// recommendations, §2.6 operators, §2.7 kernels, §2.8 memory). Times are µs in the file.

#include "support/clirun.h"
#include "support/kinetofixtures.h"

#include "core/analysis/framework.h"
#include "core/io/chromejsonreader.h"
#include "core/io/traceloader.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace {

// Host thread (pid 100, tid 1), GPU 0 stream 7. deviceProperties: 80 SMs, 16 GiB, cc 7.0.
//   ProfilerStep#1 [100,200]: DataLoader [102,108]; aten::mm [110,150] (ext 1) launching at
//     [120,130] (corr 11) gemm_kernel [135,165]; aten::add [160,180] (ext 2) launching at
//     [165,170] (corr 12) add_kernel [172,182].
//   ProfilerStep#2 [200,300]: DataLoader [202,208]; aten::mm [210,250] (ext 3) launching at
//     [220,230] (corr 13) gemm_kernel [235,265]; aten::add [260,280] (ext 4) with
//     cudaMemcpyAsync [265,270] (corr 14) -> memcpy [272,280]; cudaMemsetAsync [285,289]
//     (corr 15, no op) -> memset [290,292].
//   gemm_kernel: grid 160 / 80 SMs = 2 blocks per SM, occupancy 50 %; add_kernel: grid 40 ->
//     0.5 blocks per SM, occupancy 25 %.
//   [memory]: GPU0 allocated 1024, 5120, 4096, 12288 (peak, at 225), 4096; reserved 2 MiB then
//     4 MiB from 225. CPU allocated 64, 192 (peak, at 162), 128; reserved peak 192 at 162.
const char kTinyKineto[] = R"json({
"schemaVersion": 1,
"deviceProperties": [{"id": 0, "name": "NVIDIA Test GPU", "totalGlobalMem": 17179869184,
  "computeMajor": 7, "computeMinor": 0, "maxThreadsPerBlock": 1024,
  "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 32,
  "sharedMemPerBlock": 49152, "numSms": 80}],
"traceEvents": [
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":100,"tid":1,"ts":100,"dur":100,"args":{"External id":100}},
{"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":100,"tid":1,"ts":102,"dur":6,"args":{"External id":101}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":1,"ts":110,"dur":40,"args":{"External id":1,"Input Dims":[[4,4],[4,4]],"Call stack":"model.py(10): forward;train.py(5): <module>"}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":1,"ts":120,"dur":10,"args":{"External id":1,"correlation":11}},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":100,"tid":1,"ts":160,"dur":20,"args":{"External id":2,"Input Dims":[[4],[4]]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":1,"ts":165,"dur":5,"args":{"External id":2,"correlation":12}},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":100,"tid":1,"ts":200,"dur":100,"args":{"External id":200}},
{"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":100,"tid":1,"ts":202,"dur":6,"args":{"External id":201}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":1,"ts":210,"dur":40,"args":{"External id":3,"Input Dims":[[8,8],[8,8]]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":1,"ts":220,"dur":10,"args":{"External id":3,"correlation":13}},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":100,"tid":1,"ts":260,"dur":20,"args":{"External id":4,"Input Dims":[[4],[4]]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":100,"tid":1,"ts":265,"dur":5,"args":{"External id":4,"correlation":14}},
{"ph":"X","cat":"cuda_runtime","name":"cudaMemsetAsync","pid":100,"tid":1,"ts":285,"dur":4,"args":{"correlation":15}},
{"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":135,"dur":30,"args":{"External id":1,"device":0,"stream":7,"correlation":11,"registers per thread":32,"shared memory":1024,"blocks per SM":2.0,"warps per SM":8.0,"grid":[160,1,1],"block":[128,1,1],"est. achieved occupancy %":50}},
{"ph":"X","cat":"kernel","name":"add_kernel","pid":0,"tid":7,"ts":172,"dur":10,"args":{"External id":2,"device":0,"stream":7,"correlation":12,"registers per thread":16,"shared memory":0,"blocks per SM":0.5,"warps per SM":4.0,"grid":[40,1,1],"block":[256,1,1],"est. achieved occupancy %":25}},
{"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":235,"dur":30,"args":{"External id":3,"device":0,"stream":7,"correlation":13,"registers per thread":32,"shared memory":1024,"blocks per SM":2.0,"warps per SM":8.0,"grid":[160,1,1],"block":[128,1,1],"est. achieved occupancy %":50}},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":272,"dur":8,"args":{"External id":4,"device":0,"stream":7,"correlation":14,"bytes":1024}},
{"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":290,"dur":2,"args":{"device":0,"stream":7,"correlation":15,"bytes":512}},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":100,"tid":1,"ts":112,"args":{"Device Type":0,"Device Id":-1,"Addr":50,"Bytes":64,"Total Allocated":64,"Total Reserved":64}},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":100,"tid":1,"ts":125,"args":{"Device Type":1,"Device Id":0,"Addr":1000,"Bytes":1024,"Total Allocated":1024,"Total Reserved":2097152}},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":100,"tid":1,"ts":140,"args":{"Device Type":1,"Device Id":0,"Addr":2000,"Bytes":4096,"Total Allocated":5120,"Total Reserved":2097152}},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":100,"tid":1,"ts":162,"args":{"Device Type":0,"Device Id":-1,"Addr":60,"Bytes":128,"Total Allocated":192,"Total Reserved":192}},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":100,"tid":1,"ts":175,"args":{"Device Type":1,"Device Id":0,"Addr":1000,"Bytes":-1024,"Total Allocated":4096,"Total Reserved":2097152}},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":100,"tid":1,"ts":225,"args":{"Device Type":1,"Device Id":0,"Addr":3000,"Bytes":8192,"Total Allocated":12288,"Total Reserved":4194304}},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":100,"tid":1,"ts":262,"args":{"Device Type":0,"Device Id":-1,"Addr":50,"Bytes":-64,"Total Allocated":128,"Total Reserved":192}},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":100,"tid":1,"ts":275,"args":{"Device Type":1,"Device Id":0,"Addr":3000,"Bytes":-8192,"Total Allocated":4096,"Total Reserved":4194304}}
]})json";

QJsonObject parseObject(const QByteArray &text)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return {};
    return doc.object();
}

bool near(double actual, double expected)
{
    return std::abs(actual - expected) <= 1e-9 * std::max(1.0, std::abs(expected));
}

#define COMPARE_NEAR(actual, expected)                                                          \
    do {                                                                                        \
        const double a_ = (actual), e_ = (expected);                                            \
        if (!near(a_, e_))                                                                      \
            QFAIL(qPrintable(QString("%1 = %2, expected %3").arg(#actual).arg(a_, 0, 'g', 17)   \
                                 .arg(e_, 0, 'g', 17)));                                        \
    } while (false)

QString resnet50Path()
{
    return QStringLiteral(TRACEDESK_SHARED_FIXTURES "/chrome_json/"
                          "kineto__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz");
}

QString xspacePath(const char *run)
{
    const QDir dir(QStringLiteral(TRACEDESK_SHARED_FIXTURES "/xspace/") + run);
    const QStringList files = dir.entryList({"*.xplane.pb"}, QDir::Files, QDir::Name);
    return files.isEmpty() ? QString() : dir.filePath(files.front());
}

} // namespace

class TestPyTorchCli : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_tiny;

    QJsonObject runJson(const QStringList &args)
    {
        const clitest::CliRun r = clitest::runCli(args);
        if (r.exitCode != 0)
            qWarning("%s: exit %d: %s", qPrintable(args.join(' ')), r.exitCode, r.err.constData());
        return r.exitCode == 0 ? parseObject(r.out) : QJsonObject();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // The CLI caches loaded stores under XDG_CACHE_HOME; keep that inside the test.
        qputenv("XDG_CACHE_HOME", m_dir.filePath("cache").toLocal8Bit());
        m_tiny = m_dir.filePath("tiny.pt.trace.json");
        QFile f(m_tiny);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kTinyKineto);
    }

    // The `iterations` / `iteration_latency_ms` contract of `overview --json` on a generated
    // serving trace: one entry per `step[...]` annotation of the raw file, in order, each with
    // every key (null where unknown), its latency the annotation's duration; percentiles per
    // kind by nearest rank over those durations. And `kernel-stats --capture` on the pair.
    void servingIterationsContract()
    {
        const QString serving = m_dir.filePath("serving.pt.trace.json");
        const QString capture = m_dir.filePath("capture.pt.trace.json");
        const clitest::CliRun gen =
            clitest::runCli({"generate", "--format", "kineto", "--shape", "serving", "--capture",
                             capture, "--events", "3000", "--seed", "4", serving});
        QVERIFY2(gen.exitCode == 0, gen.err.constData());
        QFile raw(serving);
        QVERIFY(raw.open(QIODevice::ReadOnly));
        std::vector<std::pair<QString, double>> annotations; // name, dur ms
        std::set<qint64> graphLaunches;
        std::vector<qint64> gpuCorrelations;
        for (const QJsonValue &v : parseObject(raw.readAll()).value("traceEvents").toArray()) {
            const QJsonObject e = v.toObject();
            const QString cat = e.value("cat").toString();
            const qint64 corr = e.value("args").toObject().value("correlation").toInteger(-1);
            if (cat == "user_annotation" && e.value("name").toString().startsWith("step["))
                annotations.push_back({e.value("name").toString(), e.value("dur").toDouble() / 1e3});
            else if (cat == "cuda_runtime" && e.value("name").toString() == "cudaGraphLaunch")
                graphLaunches.insert(corr);
            else if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset")
                gpuCorrelations.push_back(corr);
        }
        const qint64 replayed = std::count_if(gpuCorrelations.begin(), gpuCorrelations.end(),
                                              [&](qint64 c) { return graphLaunches.count(c) > 0; });
        QVERIFY(annotations.size() >= 10);
        const QJsonObject o = runJson({"overview", serving, "--json"});
        const QJsonArray its = o.value("iterations").toArray();
        QCOMPARE(its.size(), qsizetype(annotations.size()));
        std::map<QString, std::vector<double>> byKind;
        for (qsizetype i = 0; i < its.size(); ++i) {
            const QJsonObject it = its[i].toObject();
            for (const char *key : {"name", "kind", "latency_ms", "batch_size", "tokens"})
                QVERIFY2(it.contains(key), key);
            QCOMPARE(it.value("name").toString(), annotations[size_t(i)].first);
            COMPARE_NEAR(it.value("latency_ms").toDouble(), annotations[size_t(i)].second);
            const bool decode = annotations[size_t(i)].first.startsWith("step[DECODE");
            QCOMPARE(it.value("kind").toString(), QString(decode ? "decode" : "prefill"));
            QVERIFY(it.value("batch_size").toInteger() > 0);
            QVERIFY(decode ? it.value("tokens").isNull() : it.value("tokens").toInteger() > 0);
            byKind[it.value("kind").toString()].push_back(annotations[size_t(i)].second);
        }
        const QJsonObject pct = o.value("iteration_latency_ms").toObject();
        QCOMPARE(pct.keys(), QStringList({"decode", "prefill"}));
        for (auto &[kind, latencies] : byKind) {
            std::vector<double> &v = latencies;
            std::sort(v.begin(), v.end());
            auto rank = [&v](double p) {
                return v[std::clamp<size_t>(size_t(std::ceil(p / 100 * double(v.size()))), 1,
                                            v.size()) -
                         1];
            };
            const QJsonObject k = pct.value(kind).toObject();
            COMPARE_NEAR(k.value("p50").toDouble(), rank(50));
            COMPARE_NEAR(k.value("p90").toDouble(), rank(90));
            COMPARE_NEAR(k.value("p99").toDouble(), rank(99));
        }

        // Every graph launch of the replay matches the capture; all its kernels are named.
        const QJsonObject ks = runJson({"kernel-stats", serving, "--capture", capture, "--json"});
        const QJsonObject g = ks.value("graph_capture").toObject();
        QCOMPARE(g.value("graph_launches").toInteger(), qint64(graphLaunches.size()));
        QCOMPARE(g.value("matched_launches").toInteger(), qint64(graphLaunches.size()));
        QCOMPARE(g.value("matched_kernels").toInteger(), replayed);
        qint64 captured = 0;
        for (const QJsonValue &r : g.value("rows").toArray())
            captured += r.toObject().value("occurrences").toInteger();
        QCOMPARE(captured, replayed); // the generated graphs replay kernels only
        // A capture that is not a trace is refused with its name.
        const clitest::CliRun bad =
            clitest::runCli({"kernel-stats", serving, "--capture", m_dir.filePath("nothing.json")});
        QVERIFY(bad.exitCode != 0);
        QVERIFY(bad.err.contains("nothing.json"));
    }

    void frameworkOfTinyTraces()
    {
        auto kineto = tracedesk::core::readChromeJsonBytes("tiny.json", kTinyKineto,
                                                           sizeof kTinyKineto - 1, nullptr, {});
        QVERIFY2(kineto.ok(), kineto.ok() ? "" : kineto.message().c_str());
        QCOMPARE(tracedesk::core::analysis::frameworkOf(*kineto.value()), std::string("pytorch"));
        const char plain[] = R"({"traceEvents":[{"ph":"X","name":"work","pid":1,"tid":1,"ts":0,"dur":5}]})";
        auto other = tracedesk::core::readChromeJsonBytes("plain.json", plain, sizeof plain - 1,
                                                          nullptr, {});
        QVERIFY(other.ok());
        QCOMPARE(tracedesk::core::analysis::frameworkOf(*other.value()), std::string("unknown"));
    }

    void overviewTiny()
    {
        const QJsonObject o = runJson({"overview", m_tiny, "--json", "--no-cache"});
        QCOMPARE(o.value("framework").toString(), QString("pytorch"));
        QCOMPARE(o.value("device_type").toString(), QString("GPU"));
        QCOMPARE(o.value("step_count").toInt(), 2);
        const QJsonArray steps = o.value("steps").toArray();
        QCOMPARE(steps.size(), 2);
        // Step 1 [100,200]: kernel 30+10; runtime 10+5; DataLoader 6; CPU exec = mm [110,150]
        // less runtime and kernel = 10+5, add [160,180] less kernel/runtime/kernel = 2 -> 17;
        // other = 100-40-15-6-17 = 22.
        // Step 2 [200,300]: kernel 30; memcpy 8; memset 2; runtime 10+5+4; DataLoader 6; CPU
        // exec 10+5 and 2; other = 100-30-8-2-19-6-17 = 18.
        const double expected[2][8] = {{0.100, 0.040, 0, 0, 0.015, 0.006, 0.017, 0.022},
                                       {0.100, 0.030, 0.008, 0.002, 0.019, 0.006, 0.017, 0.018}};
        const char *keys[] = {"step_time_ms", "kernel_ms", "memcpy_ms", "memset_ms", "runtime_ms",
                              "dataloader_ms", "cpu_exec_ms", "other_ms"};
        for (int s = 0; s < 2; ++s) {
            const QJsonObject step = steps[s].toObject();
            QCOMPARE(step.value("step_name").toString(), QString::number(s + 1));
            QVERIFY(!step.contains("communication_ms"));   // no collectives in this trace
            for (int k = 0; k < 8; ++k) {
                QVERIFY2(step.contains(keys[k]), keys[k]);
                COMPARE_NEAR(step.value(keys[k]).toDouble(), expected[s][k]);
            }
        }
        COMPARE_NEAR(o.value("average_step_time_ms").toDouble(), 0.100);
        const QJsonObject avg = o.value("average_breakdown_ms").toObject();
        const std::pair<const char *, double> averages[] = {
            {"kernel", 0.035}, {"memcpy", 0.004}, {"memset", 0.001}, {"communication", 0},
            {"runtime", 0.017}, {"dataloader", 0.006}, {"cpu_exec", 0.017}, {"other", 0.020}};
        for (const auto &[key, ms] : averages) {
            QVERIFY2(avg.contains(key), key);
            COMPARE_NEAR(avg.value(key).toDouble(), ms);
        }
        // GPU 0 over [S, E] = [100, 300]: busy kernel time 70 of 200; SM efficiency
        // (min(2,1)·30 + 0.5·10 + min(2,1)·30) / 200; occupancy (50·30 + 25·10 + 50·30) / 70;
        // no tensor-core kernel names.
        const QJsonArray gpus = o.value("gpu_metrics").toArray();
        QCOMPARE(gpus.size(), 1);
        const QJsonObject g = gpus[0].toObject();
        QCOMPARE(g.value("device").toInt(), 0);
        QCOMPARE(g.value("name").toString(), QString("NVIDIA Test GPU"));
        COMPARE_NEAR(g.value("memory_gb").toDouble(), 16.0);
        QCOMPARE(g.value("compute_capability").toString(), QString("7.0"));
        COMPARE_NEAR(g.value("gpu_utilization_percent").toDouble(), 35.0);
        COMPARE_NEAR(g.value("est_sm_efficiency_percent").toDouble(), 32.5);
        COMPARE_NEAR(g.value("est_achieved_occupancy_percent").toDouble(), 3250.0 / 70.0);
        QVERIFY(g.value("tensor_core_kernel_time_percent").isDouble());
        COMPARE_NEAR(g.value("tensor_core_kernel_time_percent").toDouble(), 0.0);
        // DataLoader 6 % > 5 %; utilization 0.35 < 0.5; an NVIDIA GPU of cc 7.0 runs no TC
        // kernel while aten::mm (eligible) has kernel time: three recommendations. Memory
        // (12 KiB) is far below 90 % of 16 GiB.
        const QJsonArray recs = o.value("recommendations").toArray();
        QCOMPARE(recs.size(), 3);
        for (const QJsonValue &r : recs)
            QVERIFY(r.isString() && !r.toString().isEmpty());
    }

    void opStatsTiny()
    {
        // Host self = total - own runtime time: mm 2·(40-10), add 2·(20-5). Device self =
        // own runtimes' GPU work: mm 30+30, add 10 (kernel) + 8 (memcpy).
        const QJsonObject byName = runJson({"op-stats", m_tiny, "--json"});
        const QJsonArray rows = byName.value("rows").toArray();
        QCOMPARE(rows.size(), 2);
        const QJsonObject mm = rows[0].toObject();   // most device self time first
        const QJsonObject add = rows[1].toObject();
        QCOMPARE(mm.value("op_name").toString(), QString("aten::mm"));
        QCOMPARE(mm.value("occurrences").toInt(), 2);
        COMPARE_NEAR(mm.value("host_self_time_us").toDouble(), 60);
        COMPARE_NEAR(mm.value("host_total_time_us").toDouble(), 80);
        COMPARE_NEAR(mm.value("device_self_time_us").toDouble(), 60);
        COMPARE_NEAR(mm.value("device_total_time_us").toDouble(), 60);
        QCOMPARE(mm.value("is_op_tensor_core_eligible").toBool(), true);
        QVERIFY(!mm.contains("input_shapes") && !mm.contains("call_stack"));
        QCOMPARE(add.value("op_name").toString(), QString("aten::add"));
        QCOMPARE(add.value("occurrences").toInt(), 2);
        COMPARE_NEAR(add.value("host_self_time_us").toDouble(), 30);
        COMPARE_NEAR(add.value("host_total_time_us").toDouble(), 40);
        COMPARE_NEAR(add.value("device_self_time_us").toDouble(), 18);
        COMPARE_NEAR(add.value("device_total_time_us").toDouble(), 18);
        QCOMPARE(add.value("is_op_tensor_core_eligible").toBool(), false);

        // By shapes: the two aten::mm calls differ, the two aten::add calls do not.
        const QJsonArray shapes = runJson({"op-stats", m_tiny, "--json", "--group-by", "shapes"})
                                      .value("rows").toArray();
        QCOMPARE(shapes.size(), 3);
        QSet<QString> mmShapes;
        for (const QJsonValue &v : shapes) {
            const QJsonObject r = v.toObject();
            QVERIFY(r.contains("input_shapes"));
            QCOMPARE(r.value("occurrences").toInt(), r.value("op_name").toString() == "aten::add" ? 2 : 1);
            if (r.value("op_name").toString() == "aten::mm") {
                mmShapes.insert(QString(r.value("input_shapes").toString()).remove(' '));
                COMPARE_NEAR(r.value("device_self_time_us").toDouble(), 30);
            }
        }
        QCOMPARE(mmShapes, (QSet<QString>{"[[4,4],[4,4]]", "[[8,8],[8,8]]"}));

        // By stack: only the first aten::mm has a call stack.
        const QJsonArray stacks = runJson({"op-stats", m_tiny, "--json", "--group-by", "stack"})
                                      .value("rows").toArray();
        QCOMPARE(stacks.size(), 1);
        QCOMPARE(stacks[0].toObject().value("call_stack").toString(),
                 QString("model.py(10): forward;train.py(5): <module>"));
        QCOMPARE(stacks[0].toObject().value("occurrences").toInt(), 1);

        QCOMPARE(clitest::runCli({"op-stats", m_tiny, "--group-by", "size"}).exitCode, 2);
        const clitest::CliRun text = clitest::runCli({"op-stats", m_tiny});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("aten::mm") && text.out.contains("Device self"));
    }

    void kernelStatsTiny()
    {
        const QJsonObject k = runJson({"kernel-stats", m_tiny, "--json"});
        QCOMPARE(k.value("grouping").toString(), QString("properties"));
        const QJsonArray reports = k.value("reports").toArray();
        QCOMPARE(reports.size(), 2);
        const QJsonObject gemm = reports[0].toObject();   // most total time first
        const QJsonObject add = reports[1].toObject();
        const char *keys[] = {"name", "op_name", "registers_per_thread", "static_shmem_bytes",
                              "dynamic_shmem_bytes", "block_dim", "grid_dim",
                              "is_kernel_using_tensor_core", "is_op_tensor_core_eligible",
                              "occurrences", "total_duration_ns", "min_duration_ns",
                              "max_duration_ns", "occupancy_pct", "mean_blocks_per_sm",
                              "mean_est_achieved_occupancy_pct"};
        for (const char *key : keys)
            QVERIFY2(gemm.contains(key) && add.contains(key), key);
        QCOMPARE(gemm.value("name").toString(), QString("gemm_kernel"));
        QCOMPARE(gemm.value("op_name").toString(), QString("aten::mm"));
        QCOMPARE(gemm.value("occurrences").toInt(), 2);
        COMPARE_NEAR(gemm.value("total_duration_ns").toDouble(), 60000);
        COMPARE_NEAR(gemm.value("min_duration_ns").toDouble(), 30000);
        COMPARE_NEAR(gemm.value("max_duration_ns").toDouble(), 30000);
        QCOMPARE(gemm.value("registers_per_thread").toInt(), 32);
        QCOMPARE(gemm.value("static_shmem_bytes").toInt() + gemm.value("dynamic_shmem_bytes").toInt(),
                 1024);
        QCOMPARE(gemm.value("grid_dim").toArray(), (QJsonArray{160, 1, 1}));
        QCOMPARE(gemm.value("block_dim").toArray(), (QJsonArray{128, 1, 1}));
        QCOMPARE(gemm.value("is_kernel_using_tensor_core").toBool(), false);
        QCOMPARE(gemm.value("is_op_tensor_core_eligible").toBool(), true);
        COMPARE_NEAR(gemm.value("mean_blocks_per_sm").toDouble(), 2.0);
        COMPARE_NEAR(gemm.value("mean_est_achieved_occupancy_pct").toDouble(), 50);
        QCOMPARE(add.value("name").toString(), QString("add_kernel"));
        QCOMPARE(add.value("op_name").toString(), QString("aten::add"));
        QCOMPARE(add.value("occurrences").toInt(), 1);
        COMPARE_NEAR(add.value("total_duration_ns").toDouble(), 10000);
        QCOMPARE(add.value("registers_per_thread").toInt(), 16);
        QCOMPARE(add.value("grid_dim").toArray(), (QJsonArray{40, 1, 1}));
        QCOMPARE(add.value("block_dim").toArray(), (QJsonArray{256, 1, 1}));
        QCOMPARE(add.value("is_op_tensor_core_eligible").toBool(), false);
        COMPARE_NEAR(add.value("mean_blocks_per_sm").toDouble(), 0.5);
        COMPARE_NEAR(add.value("mean_est_achieved_occupancy_pct").toDouble(), 25);
        const clitest::CliRun text = clitest::runCli({"kernel-stats", m_tiny});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("gemm_kernel") && text.out.contains("Blocks/SM"));
    }

    void kernelStatsByNameWithoutHostThreads()
    {
        // No host thread: the operator tree reaches no kernel, so the by-properties grouping
        // is empty and the reports fall back to one row per name, each kernel counted once.
        const char gpuOnly[] = R"json({"schemaVersion":1,"deviceProperties":[],"traceEvents":[
{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":5,"args":{"device":0,"stream":7,"correlation":1}},
{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":7,"args":{"device":0,"stream":7,"correlation":2}},
{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":8,"ts":12,"dur":3,"args":{"device":0,"stream":8,"correlation":3}}]})json";
        const QString path = m_dir.filePath("gpuonly.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(gpuOnly);
        f.close();
        const QJsonObject k = runJson({"kernel-stats", path, "--json"});
        QCOMPARE(k.value("grouping").toString(), QString("name"));
        const QJsonArray reports = k.value("reports").toArray();
        QCOMPARE(reports.size(), 2);
        QCOMPARE(reports[0].toObject().value("name").toString(), QString("k1"));
        QCOMPARE(reports[0].toObject().value("occurrences").toInt(), 2);
        COMPARE_NEAR(reports[0].toObject().value("total_duration_ns").toDouble(), 12000);
        COMPARE_NEAR(reports[0].toObject().value("min_duration_ns").toDouble(), 5000);
        COMPARE_NEAR(reports[0].toObject().value("max_duration_ns").toDouble(), 7000);
        QCOMPARE(reports[1].toObject().value("name").toString(), QString("k2"));
        QCOMPARE(reports[1].toObject().value("occurrences").toInt(), 1);
    }

    void memoryProfileTiny()
    {
        const QJsonArray devices =
            runJson({"memory-profile", m_tiny, "--json"}).value("devices").toArray();
        QCOMPARE(devices.size(), 2);
        const QJsonObject cpu = devices[0].toObject();
        const QJsonObject gpu = devices[1].toObject();
        QCOMPARE(cpu.value("device").toString(), QString("CPU"));
        QCOMPARE(cpu.value("record_count").toInt(), 3);
        QCOMPARE(cpu.value("peak_allocated_bytes").toInteger(), 192);
        COMPARE_NEAR(cpu.value("peak_allocated_time_ms").toDouble(), 0.162);
        QCOMPARE(cpu.value("peak_reserved_bytes").toInteger(), 192);
        COMPARE_NEAR(cpu.value("peak_reserved_time_ms").toDouble(), 0.162);
        QCOMPARE(gpu.value("device").toString(), QString("GPU0"));
        QCOMPARE(gpu.value("record_count").toInt(), 5);
        QCOMPARE(gpu.value("peak_allocated_bytes").toInteger(), 12288);
        COMPARE_NEAR(gpu.value("peak_allocated_time_ms").toDouble(), 0.225);
        QCOMPARE(gpu.value("peak_reserved_bytes").toInteger(), 4194304);
        COMPARE_NEAR(gpu.value("peak_reserved_time_ms").toDouble(), 0.225);
        const clitest::CliRun text = clitest::runCli({"memory-profile", m_tiny});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("GPU0") && text.out.contains("Peak allocated"));
    }

    void resnet50Fixture()
    {
        const QString path = resnet50Path();
        if (!QFile::exists(path))
            QSKIP(qPrintable("real Kineto fixture missing: " + path));
        const QJsonArray events =
            testsupport::readFixtureObject(path).value("traceEvents").toArray();
        QVERIFY(!events.isEmpty());
        // Independent counts: host-side ProfilerStep#N (CPU categories, not the GPU copies)
        // and kernel events (cat Kernel / kernel).
        QSet<QString> hostSteps;
        qint64 kernels = 0;
        for (const QJsonValue &v : events) {
            const QJsonObject e = v.toObject();
            const QString cat = e.value("cat").toString().toLower();
            if (e.value("ph").toString() != "X")
                continue;
            if (cat == "kernel")
                ++kernels;
            if ((cat == "operator" || cat == "cpu_op" || cat == "user_annotation")
                && e.value("name").toString().startsWith("ProfilerStep#"))
                hostSteps.insert(e.value("name").toString());
        }
        QVERIFY(kernels > 0);
        QVERIFY(!hostSteps.isEmpty());

        const QJsonObject o = runJson({"overview", path, "--json"});
        QCOMPARE(o.value("framework").toString(), QString("pytorch"));
        QCOMPARE(o.value("step_count").toInt(), int(hostSteps.size()));
        QCOMPARE(o.value("steps").toArray().size(), int(hostSteps.size()));
        for (const QJsonValue &s : o.value("steps").toArray())
            QVERIFY(hostSteps.contains("ProfilerStep#" + s.toObject().value("step_name").toString()));

        const QJsonArray reports = runJson({"kernel-stats", path, "--json"}).value("reports").toArray();
        qint64 occurrences = 0;
        for (const QJsonValue &r : reports)
            occurrences += r.toObject().value("occurrences").toInteger();
        QCOMPARE(occurrences, kernels);
    }

    void xspaceFramework_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<QString>("framework");
        // PROVENANCE.md: TensorFlow 2.x graph executor on V100; the others JAX (ROCm, TPU).
        QTest::newRow("tf gpu") << "xprof_GPU-multi-worker" << "tensorflow";
        QTest::newRow("jax rocm") << "tracelens_jax08_gemm" << "jax";
        QTest::newRow("jax legacy") << "tracelens_jax_conv_minimal_legacy" << "jax";
        QTest::newRow("jax te") << "tracelens_te_fused_attn" << "jax";
        QTest::newRow("jax tpu") << "xprof_tpu_inference_2" << "jax";
    }

    void xspaceFramework()
    {
        QFETCH(QString, run);
        QFETCH(QString, framework);
        const QString path = xspacePath(run.toUtf8().constData());
        if (path.isEmpty())
            QSKIP(qPrintable("real XSpace fixture missing: " + run));
        auto trace = tracedesk::core::loadTrace(path.toStdString());
        QVERIFY(trace.ok());
        QCOMPARE(QString::fromStdString(tracedesk::core::analysis::frameworkOf(*trace.value())),
                 framework);
    }

    void xspaceOverviewKeepsItsKeys()
    {
        const QString path = xspacePath("xprof_GPU-multi-worker");
        if (path.isEmpty())
            QSKIP("real XSpace fixture missing: xprof_GPU-multi-worker");
        const QJsonObject o = runJson({"overview", path, "--json"});
        QCOMPARE(o.value("framework").toString(), QString("tensorflow"));
        for (const char *key : {"hardware", "step_count", "average_step_time_ms",
                                "average_breakdown_ms", "top_device_ops", "run_environment",
                                "recommendation", "steps", "diagnostics"})
            QVERIFY2(o.contains(key), key);
    }
};

QTEST_GUILESS_MAIN(TestPyTorchCli)
#include "tst_pytorchcli.moc"
