// The Kineto (PyTorch profiler) dialect of Chrome JSON as the store sees it: ids by value, GPU
// activities on device planes, roles, typed side columns, launch flows by correlation id, run
// metadata; and every real Kineto fixture counted independently from its raw JSON.

#include "core/io/chromejsonreader.h"
#include "core/io/kinetodialect.h"
#include "support/kinetofixtures.h"

#include <QtTest>

#include <map>
#include <set>

using namespace tracedesk::core;

namespace {

using testsupport::loadText;

const Plane *planeNamed(const Trace &t, std::string_view name)
{
    for (const Plane &p : t.planes) {
        if (t.string(p.name) == name)
            return &p;
    }
    return nullptr;
}

std::optional<SliceRef> sliceNamed(const Trace &t, std::string_view name)
{
    for (uint32_t tr = 0; tr < t.tracks.size(); ++tr) {
        const Track &track = t.tracks[tr];
        for (uint32_t r = 0; r < track.rows.size(); ++r) {
            for (uint32_t i = 0; i < track.rows[r].size(); ++i) {
                const SliceRef ref{tr, r, i};
                if (t.name(ref) == name)
                    return ref;
            }
        }
    }
    return std::nullopt;
}

// A launch on thread "25738" (string) with flows written with the number, as the 2021 writer did;
// a CPU process with OS pid 1 next to GPU 1.
const char *kMixedIds = R"json({
 "schemaVersion": 1,
 "deviceProperties": [{"id": 0, "name": "Tesla V100-SXM2-16GB", "totalGlobalMem": 16945512448,
   "computeMajor": 7, "computeMinor": 0, "numSms": 80, "maxThreadsPerMultiprocessor": 2048},
   {"id": 1, "name": "Tesla V100-SXM2-16GB", "totalGlobalMem": 16945512448,
   "computeMajor": 7, "computeMinor": 0, "numSms": 80, "maxThreadsPerMultiprocessor": 2048}],
 "cuda_runtime_version": 11020,
 "traceEvents": [
  {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}},
  {"ph": "M", "name": "process_labels", "pid": 1, "tid": 0, "args": {"labels": "CPU"}},
  {"ph": "M", "name": "process_labels", "pid": 1, "tid": 0, "args": {"labels": "GPU 1"}},
  {"ph": "M", "name": "thread_name", "pid": 1, "tid": 7, "args": {"name": "stream 7 "}},
  {"ph": "X", "cat": "Operator", "name": "aten::mm", "pid": 1, "tid": "25738", "ts": 100, "dur": 50,
   "args": {"External id": 3, "Input Dims": [[2, 3], [3, 4]]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": "25738", "ts": 110, "dur": 10,
   "args": {"External id": 3, "correlation": 41}},
  {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 41, "pid": 1, "tid": 25738, "ts": 110},
  {"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 1, "tid": 7, "ts": 105, "dur": 30,
   "args": {"External id": 3, "device": 1, "stream": 7, "correlation": 41, "registers per thread": 72,
    "shared memory": 4096, "blocks per SM": 0.5, "warps per SM": 4, "grid": [40, 1, 1],
    "block": [256, 1, 1], "est. achieved occupancy %": 25}},
  {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 41, "pid": 1, "tid": 7, "ts": 105, "bp": "e"},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 25738, "ts": 200, "dur": 5,
   "args": {"correlation": 50}},
  {"ph": "X", "cat": "kernel", "name": "graph_kernel_a", "pid": 1, "tid": 7, "ts": 210, "dur": 5,
   "args": {"device": 1, "stream": 7, "correlation": 50, "blocks per SM": "inf"}},
  {"ph": "X", "cat": "kernel", "name": "graph_kernel_b", "pid": 1, "tid": 7, "ts": 216, "dur": 5,
   "args": {"device": 1, "stream": 7, "correlation": 50}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 1, "tid": 7,
   "ts": 230, "dur": 4, "args": {"device": 1, "stream": 7, "bytes": 4096}},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 7, "ts": 104, "dur": 200},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventQuery", "pid": 1, "tid": 25738, "ts": 300, "dur": 1,
   "args": {"correlation": 60}},
  {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 60, "pid": 1, "tid": 25738, "ts": 300, "bp": "e"},
  {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 25738, "ts": 120,
   "args": {"Bytes": -512, "Addr": 99, "Total Allocated": 1024, "Total Reserved": 2048, "Device Type": 1, "Device Id": 1}}
 ],
 "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8}
})json";

} // namespace

class TestKinetoReader : public QObject
{
    Q_OBJECT

private slots:
    void dialectHelpers()
    {
        QCOMPARE(kineto::roleOf("Kernel", "k"), SliceRole::Kernel);
        QCOMPARE(kineto::roleOf("cuda_driver", "cuLaunchKernel"), SliceRole::Runtime);
        QCOMPARE(kineto::roleOf("mtia_runtime", "x"), SliceRole::Runtime);
        QCOMPARE(kineto::roleOf("gpu_user_Annotation", "x"), SliceRole::GpuAnnotation);
        QCOMPARE(kineto::roleOf("cpu_instant_event", "[memory]"), SliceRole::MemoryEvent);
        QCOMPARE(kineto::roleOf("", "[memory]"), SliceRole::MemoryEvent);
        QCOMPARE(kineto::roleOf("benchmark", "x"), SliceRole::None);
        QCOMPARE(kineto::canonicalInteger("25738").value_or(0), int64_t(25738));
        QCOMPARE(kineto::canonicalInteger("-1").value_or(0), int64_t(-1));
        QVERIFY(!kineto::canonicalInteger("025738"));
        QVERIFY(!kineto::canonicalInteger("+5"));
        QVERIFY(!kineto::canonicalInteger("stream 7"));
        QCOMPARE(kineto::parseDim3("[40, 2, 3]").value_or(0), packDim3(40, 2, 3));
        QCOMPARE(kineto::parseDim3("[7]").value_or(0), packDim3(7, 1, 1));
        QVERIFY(!kineto::parseDim3("[1, 2, 3, 4]"));
        QVERIFY(!kineto::parseDim3("\"x\""));
    }

    void idsByValueAndDevicePlanes()
    {
        auto t = loadText(kMixedIds);
        QVERIFY(t);
        QCOMPARE(t->info.run.framework, std::string("pytorch"));
        // The OS process with pid 1 and GPU 1 are two planes.
        const Plane *gpu = planeNamed(*t, "GPU 1");
        const Plane *host = planeNamed(*t, "python");
        QVERIFY(gpu && host);
        QCOMPARE(gpu->kind, PlaneKind::Device);
        QCOMPARE(host->kind, PlaneKind::Host);
        QCOMPARE(gpu->id, int64_t(1));
        // Thread "25738" and 25738 are one track.
        QCOMPARE(host->tracks.size(), size_t(1));
        QCOMPARE(t->string(t->tracks[host->tracks[0]].name), std::string_view("Thread 25738"));
        // One track per stream, named from thread_name without its trailing space, and the
        // stream's launch queue as a counter track when its launches are bound.
        std::vector<uint32_t> streams;
        for (uint32_t tr : gpu->tracks) {
            if (t->tracks[tr].type == TrackType::Slices)
                streams.push_back(tr);
            else
                QCOMPARE(t->string(t->tracks[tr].name), std::string_view("stream 7 launch queue"));
        }
        QCOMPARE(streams.size(), size_t(1));
        const Track &stream = t->tracks[streams[0]];
        QCOMPARE(t->string(stream.name), std::string_view("stream 7"));
        QCOMPARE(stream.sourceId, int64_t(7));
        QCOMPARE(stream.sliceCount, uint64_t(5));
    }

    void rolesAndSideColumns()
    {
        auto t = loadText(kMixedIds);
        QVERIFY(t);
        const auto kernel = sliceNamed(*t, "volta_sgemm_128x64_nn");
        QVERIFY(kernel);
        QCOMPARE(t->kind(*kernel).role, SliceRole::Kernel);
        QCOMPARE(t->side(*kernel, SideColumn::CorrelationId), int64_t(41));
        QCOMPARE(t->side(*kernel, SideColumn::ExternalId), int64_t(3));
        QCOMPARE(t->side(*kernel, SideColumn::Device), int64_t(1));
        QCOMPARE(t->side(*kernel, SideColumn::Stream), int64_t(7));
        QCOMPARE(t->side(*kernel, SideColumn::BlocksPerSm), int64_t(500000));
        QCOMPARE(t->side(*kernel, SideColumn::WarpsPerSm), int64_t(4000000));
        QCOMPARE(t->side(*kernel, SideColumn::Occupancy), int64_t(25));
        QCOMPARE(t->side(*kernel, SideColumn::Registers), int64_t(72));
        QCOMPARE(t->side(*kernel, SideColumn::SharedMemory), int64_t(4096));
        QCOMPARE(dim3At(t->side(*kernel, SideColumn::Grid), 0), int64_t(40));
        QCOMPARE(dim3At(t->side(*kernel, SideColumn::Block), 0), int64_t(256));
        QCOMPARE(dim3At(t->side(*kernel, SideColumn::Block), 2), int64_t(1));
        // "inf" blocks per SM is unknown, not a number.
        const auto graphA = sliceNamed(*t, "graph_kernel_a");
        QVERIFY(graphA);
        QCOMPARE(t->side(*graphA, SideColumn::BlocksPerSm), kNoValue);

        const auto op = sliceNamed(*t, "aten::mm");
        QVERIFY(op);
        QCOMPARE(t->kind(*op).role, SliceRole::CpuOp);
        QCOMPARE(t->string(StringId(t->side(*op, SideColumn::InputShapes))),
                 std::string_view("[[2, 3], [3, 4]]"));
        const auto copy = sliceNamed(*t, "Memcpy HtoD (Pageable -> Device)");
        QVERIFY(copy);
        QCOMPARE(t->kind(*copy).role, SliceRole::Memcpy);
        QCOMPARE(t->side(*copy, SideColumn::Bytes), int64_t(4096));
        const auto memory = sliceNamed(*t, "[memory]");
        QVERIFY(memory);
        QCOMPARE(t->kind(*memory).role, SliceRole::MemoryEvent);
        QCOMPARE(t->side(*memory, SideColumn::Bytes), int64_t(-512));
        const auto annotation = sliceNamed(*t, "ProfilerStep#1");
        QVERIFY(annotation);
        QCOMPARE(t->kind(*annotation).role, SliceRole::GpuAnnotation);
        QCOMPARE(t->planes[t->tracks[annotation->track].plane].kind, PlaneKind::Device);
    }

    void launchFlowsByCorrelation()
    {
        auto t = loadText(kMixedIds);
        QVERIFY(t);
        // 41: one kernel that starts before its launch returns; 50: a graph launch with two
        // kernels. The flow end written on cudaEventQuery has no start and binds nothing.
        std::multiset<std::string> bound;
        for (const Flow &f : t->flows) {
            QCOMPARE(t->kind(f.from).role, SliceRole::Runtime);
            bound.insert(std::string(t->name(f.from)) + "->" + std::string(t->name(f.to)));
        }
        const std::multiset<std::string> expected{"cudaLaunchKernel->volta_sgemm_128x64_nn",
                                                  "cudaGraphLaunch->graph_kernel_a",
                                                  "cudaGraphLaunch->graph_kernel_b"};
        QCOMPARE(bound, expected);
        for (const std::string &w : t->info.warnings)
            QVERIFY2(w.find("flow") == std::string::npos, w.c_str());
    }

    void runMetadata()
    {
        auto t = loadText(kMixedIds);
        QVERIFY(t);
        const RunMetadata &run = t->info.run;
        QCOMPARE(run.devices.size(), size_t(2));
        QCOMPARE(run.devices[1].name, std::string("Tesla V100-SXM2-16GB"));
        QCOMPARE(run.devices[1].totalGlobalMemBytes, uint64_t(16945512448));
        QCOMPARE(run.devices[1].computeMajor, int64_t(7));
        QCOMPARE(run.devices[1].numSms, int64_t(80));
        QVERIFY(run.distributed.present);
        QCOMPARE(run.distributed.rank, int64_t(3));
        QCOMPARE(run.distributed.worldSize, int64_t(8));
        QCOMPARE(run.distributed.backend, std::string("nccl"));
        bool runtimeVersion = false;
        for (const auto &[k, v] : run.properties)
            runtimeVersion |= k == "cuda_runtime_version" && v == "11020";
        QVERIFY(runtimeVersion);
    }

    // The writer's clock: Kineto's baseTimeNanoseconds plus the whole microsecond the reader
    // made epoch times relative to.
    void clockOrigin()
    {
        auto based = loadText(R"({"schemaVersion": 1, "baseTimeNanoseconds": 1700000000000000000,
            "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1,
                             "ts": 5.5, "dur": 1}]})");
        QVERIFY(based);
        QCOMPARE(based->info.run.clockOriginNs, int64_t(1700000000000000000));
        auto epoch = loadText(R"({"schemaVersion": 1, "traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1,
             "ts": 1623143089861234.5, "dur": 1}]})");
        QVERIFY(epoch);
        QCOMPARE(epoch->info.run.clockOriginNs, int64_t(1623143089861234) * 1000);
        QCOMPARE(epoch->begin, TimePs(500000));
    }

    void plainChromeJsonIsNotPytorch()
    {
        // No schemaVersion / deviceProperties: Kineto-like categories alone do not make a
        // PyTorch trace (XProf-style exports use them too), and the process keeps its events.
        auto t = loadText(R"({"traceEvents": [
            {"ph": "M", "name": "process_labels", "pid": 3, "tid": 0, "args": {"labels": "GPU"}},
            {"ph": "X", "cat": "benchmark", "name": "a", "pid": 3, "tid": 1, "ts": 1, "dur": 2},
            {"ph": "X", "cat": "kernel", "name": "k", "pid": 3, "tid": 7, "ts": 1, "dur": 2,
             "args": {"correlation": 5}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 1,
             "ts": 0, "dur": 1, "args": {"correlation": 5}}]})");
        QVERIFY(t);
        QVERIFY(t->info.run.framework.empty());
        QCOMPARE(t->planes.size(), size_t(2));
        // Without Kineto, labels still make a device, as before.
        QCOMPARE(t->planes[0].kind, PlaneKind::Device);
        QCOMPARE(t->planes[0].tracks.size(), size_t(2));
        QCOMPARE(t->kinds[0].role, SliceRole::None);
        QVERIFY(t->flows.empty());
    }

    void realFixtures_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString &n : testsupport::kinetoFixtureNames())
            QTest::newRow(n.toUtf8().constData()) << n;
    }

    // Counted from the raw JSON: GPU activities per device, kernels, and launch -> activity pairs
    // by correlation id.
    void realFixtures()
    {
        QFETCH(QString, name);
        const QString path = testsupport::realChromeJsonDir() + name;
        TRACEDESK_REQUIRE_FIXTURE(path);
        const QJsonObject root = testsupport::readFixtureObject(path);
        const QJsonArray events = root.value("traceEvents").toArray();
        QVERIFY(!events.isEmpty());
        const std::set<QString> device{"kernel", "gpu_memcpy", "gpu_memset", "cuda_sync",
                                       "gpu_user_annotation", "mtia_ccp_events", "memcpy", "memset"};
        const std::set<QString> launchCats{"cuda_runtime", "runtime", "cuda_driver", "mtia_runtime",
                                           "xpu_runtime", "privateuse1_runtime"};
        uint64_t kernels = 0;
        std::map<int64_t, uint64_t> activitiesPerDevice;
        std::map<double, uint64_t> activitiesByCorrelation;
        std::set<double> launches;
        for (const QJsonValue &v : events) {
            const QJsonObject e = v.toObject();
            if (e.value("ph").toString() != "X")
                continue;
            const QString cat = e.value("cat").toString().toLower();
            const QJsonObject args = e.value("args").toObject();
            if (cat == "kernel" || cat == "mtia_ccp_events")
                ++kernels;
            if (device.count(cat)) {
                ++activitiesPerDevice[e.value("pid").toVariant().toLongLong()];
                if (cat != "gpu_user_annotation" && args.contains("correlation"))
                    ++activitiesByCorrelation[args.value("correlation").toDouble()];
            }
            if (launchCats.count(cat) && args.contains("correlation"))
                launches.insert(args.value("correlation").toDouble());
        }
        uint64_t expectedFlows = 0;
        for (const auto &[c, n] : activitiesByCorrelation)
            expectedFlows += launches.count(c) ? n : 0;

        LoadControl control;
        auto r = readChromeJson(path.toStdString(), &control, LoadOptions{});
        QVERIFY2(r, r ? "" : r.message().c_str());
        const Trace &t = *r.value();
        QCOMPARE(t.info.run.framework, std::string("pytorch"));

        uint64_t loadedKernels = 0;
        std::map<int64_t, uint64_t> loadedPerDevice;
        for (const Plane &p : t.planes) {
            uint64_t slices = 0;
            for (uint32_t tr : p.tracks) {
                const Track &track = t.tracks[tr];
                for (const Row &row : track.rows) {
                    for (uint32_t k : row.kind) {
                        const SliceRole role = t.kinds[k].role;
                        loadedKernels += role == SliceRole::Kernel;
                        if (kineto::isDeviceRole(role)) {
                            QCOMPARE(p.kind, PlaneKind::Device);
                            ++slices;
                        } else if (role != SliceRole::None && role != SliceRole::Marker) {
                            QCOMPARE(p.kind, PlaneKind::Host);
                        }
                    }
                }
            }
            if (p.kind == PlaneKind::Device) {
                const std::string planeName(t.string(p.name));
                QVERIFY2(planeName.rfind("GPU ", 0) == 0 || planeName.rfind("MTIA ", 0) == 0,
                         planeName.c_str());
                loadedPerDevice[p.id] += slices;
            }
        }
        QCOMPARE(loadedKernels, kernels);
        QCOMPARE(loadedPerDevice, activitiesPerDevice);
        uint64_t launchFlows = 0;
        for (const Flow &f : t.flows)
            launchFlows += t.string(f.category) == "ac2g";
        QCOMPARE(launchFlows, expectedFlows);
        for (const std::string &w : t.info.warnings)
            QVERIFY2(w.find("matched no slice") == std::string::npos, w.c_str());
    }
};

QTEST_GUILESS_MAIN(TestKinetoReader)
#include "tst_kinetoreader.moc"
