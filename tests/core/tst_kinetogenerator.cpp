// Synthetic Kineto traces: valid JSON, byte-identical per seed, the per-kind counts the generator
// reports recounted from the JSON, launch flows and External ids that bind, paired memory
// events, and the store's view of the file (one device plane per GPU, the steps).

#include "core/io/chromejsonreader.h"
#include "core/io/generator.h"
#include "core/io/kinetogenerator.h"
#include "core/io/kinetojsonwriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <map>
#include <set>

using namespace tracedesk::core;

namespace {

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// Kineto's µs with three decimals, back to integer ns.
int64_t ns(const QJsonValue &v)
{
    return qRound64(v.toDouble() * 1000.0);
}

struct Generated
{
    KinetoTraceStats stats;
    std::string bytes;
    QJsonObject top;
    QJsonArray events;
};

Generated generate(uint64_t events, uint64_t seed)
{
    QTemporaryDir dir;
    GeneratorOptions options;
    options.events = events;
    options.seed = seed;
    options.format = GeneratedFormat::Kineto;
    const std::string path = dir.filePath("gen.pt.trace.json").toStdString();
    Generated g;
    auto r = generateKinetoTrace(options, path);
    if (!r) {
        qWarning("%s", r.message().c_str());
        return g;
    }
    g.stats = r.value();
    g.bytes = readAll(path);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(g.bytes), &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("JSON error at %d: %s", error.offset, qPrintable(error.errorString()));
    g.top = doc.object();
    g.events = g.top.value("traceEvents").toArray();
    return g;
}

bool isGpuActivity(const QString &cat)
{
    return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
}

} // namespace

class TestKinetoGenerator : public QObject
{
    Q_OBJECT

private slots:
    void micros()
    {
        std::string s;
        appendKinetoMicros(s, 1234567);
        QCOMPARE(s, std::string("1234.567"));
        s.clear();
        appendKinetoMicros(s, 5);
        QCOMPARE(s, std::string("0.005"));
        s.clear();
        appendKinetoMicros(s, 2000);
        QCOMPARE(s, std::string("2.000"));
        s.clear();
        appendKinetoMicros(s, -1500);
        QCOMPARE(s, std::string("-1.500"));
        KinetoArgs a;
        a.number("x", 564.0 / 132.0).integer("n", -3).raw("g", "[1,2,3]").append("\"e\":1");
        QCOMPARE(a.text(), std::string("\"x\":4.272727,\"n\":-3,\"g\":[1,2,3],\"e\":1"));
    }

    void formatName()
    {
        GeneratedFormat f = GeneratedFormat::XSpace;
        QVERIFY(parseGeneratedFormat("kineto", &f));
        QCOMPARE(f, GeneratedFormat::Kineto);
        QVERIFY(!parseGeneratedFormat("pytorch", &f));
    }

    void deterministic()
    {
        QTemporaryDir dir;
        GeneratorOptions options;
        options.events = 4000;
        options.seed = 11;
        options.format = GeneratedFormat::Kineto;
        const std::string a = dir.filePath("a.pt.trace.json").toStdString();
        const std::string b = dir.filePath("b.pt.trace.json").toStdString();
        QVERIFY(generateTrace(options, a).ok());
        QVERIFY(generateTrace(options, b).ok());
        QCOMPARE(readAll(a), readAll(b));
        options.seed = 12;
        QVERIFY(generateTrace(options, b).ok());
        QVERIFY(readAll(a) != readAll(b));
        QVERIFY(!QFile::exists(QString::fromStdString(a + ".partial")));
    }

    void topLevel()
    {
        const Generated g = generate(2000, 3);
        QVERIFY(!g.events.isEmpty());
        QCOMPARE(g.top.value("schemaVersion").toInt(), 1);
        const QJsonArray devices = g.top.value("deviceProperties").toArray();
        QCOMPARE(uint64_t(devices.size()), g.stats.gpus);
        QVERIFY(g.stats.gpus >= 2);
        for (int i = 0; i < devices.size(); ++i) {
            const QJsonObject d = devices[i].toObject();
            QCOMPARE(d.value("id").toInt(), i);
            QVERIFY(!d.value("name").toString().isEmpty());
            QVERIFY(d.value("totalGlobalMem").toInteger() > 0);
            QVERIFY(d.value("numSms").toInt() > 0);
            QVERIFY(d.value("maxThreadsPerMultiprocessor").toInt() > 0);
            QVERIFY(d.contains("computeMajor") && d.contains("computeMinor"));
        }
        const QJsonObject dist = g.top.value("distributedInfo").toObject();
        QCOMPARE(dist.value("rank").toInt(), 0);
        QCOMPARE(dist.value("world_size").toInt(), 1);
        QCOMPARE(dist.value("backend").toString(), QString("nccl"));
        QCOMPARE(g.top.value("displayTimeUnit").toString(), QString("ms"));
        QCOMPARE(g.top.value("baseTimeNanoseconds").toInteger(), g.stats.baseTimeNs);
        QVERIFY(g.top.value("traceName").toString().endsWith(".pt.trace.json"));
        // libkineto's key order: traceName is the last member.
        const size_t name = g.bytes.rfind("\"traceName\"");
        QVERIFY(name != std::string::npos && name > g.bytes.rfind("\"traceEvents\""));
    }

    void countsMatch_data()
    {
        QTest::addColumn<int>("events");
        QTest::addColumn<int>("seed");
        QTest::newRow("small") << 500 << 1;
        QTest::newRow("deep model") << 6000 << 2;
        QTest::newRow("wide batch") << 9000 << 7;
    }

    void countsMatch()
    {
        QFETCH(int, events);
        QFETCH(int, seed);
        const Generated g = generate(uint64_t(events), uint64_t(seed));
        const KinetoTraceStats &s = g.stats;
        QCOMPARE(uint64_t(g.events.size()), s.events);
        // About N: at least N, and less than one step (< 1000 entries) over.
        QVERIFY(s.events >= uint64_t(events));
        QVERIFY(s.events < uint64_t(events) + 1000);

        std::map<std::pair<QString, QString>, uint64_t> byKind;
        uint64_t memory = 0;
        for (const QJsonValue &v : g.events) {
            const QJsonObject e = v.toObject();
            ++byKind[{e.value("ph").toString(), e.value("cat").toString()}];
            memory += e.value("name").toString() == "[memory]";
        }
        const auto count = [&](const char *ph, const char *cat) {
            return byKind[{QString(ph), QString(cat)}];
        };
        QCOMPARE(count("M", ""), s.metadata);
        QCOMPARE(count("X", "user_annotation"), s.userAnnotations);
        QCOMPARE(count("X", "cpu_op"), s.cpuOps);
        QCOMPARE(count("X", "cuda_runtime"), s.runtime);
        QCOMPARE(count("X", "kernel"), s.kernels);
        QCOMPARE(count("X", "gpu_memcpy"), s.memcpys);
        QCOMPARE(count("X", "gpu_memset"), s.memsets);
        QCOMPARE(count("i", "cpu_instant_event"), s.memoryEvents);
        QCOMPARE(memory, s.memoryEvents);
        QCOMPARE(count("s", "ac2g"), s.ac2gFlows);
        QCOMPARE(count("f", "ac2g"), s.ac2gFlows);
        QCOMPARE(count("s", "fwdbwd"), s.fwdbwdFlows);
        QCOMPARE(count("f", "fwdbwd"), s.fwdbwdFlows);
        QCOMPARE(count("X", "Trace"), s.spans);
        QCOMPARE(count("i", ""), s.globalInstants);
        uint64_t sum = 0;
        for (const auto &[kind, n] : byKind)
            sum += n;
        QCOMPARE(sum, s.events);
        QCOMPARE(s.metadata + s.userAnnotations + s.cpuOps + s.runtime + s.kernels + s.memcpys +
                     s.memsets + s.memoryEvents + 2 * s.ac2gFlows + 2 * s.fwdbwdFlows + s.spans +
                     s.globalInstants,
                 s.events);
        // Every GPU activity has its launch flow; the sync calls are the only runtime without.
        QCOMPARE(s.ac2gFlows, s.kernels + s.memcpys + s.memsets);
        QVERIFY(s.fwdbwdFlows > 0 && s.memsets > 0 && s.memcpys > 0);

        // Steps: ProfilerStep#first.. consecutive, each with one DataLoader range and one
        // all-reduce inside it.
        std::vector<std::pair<int64_t, int64_t>> steps;
        std::set<QString> stepNames;
        std::vector<int64_t> loaders, allReduces;
        for (const QJsonValue &v : g.events) {
            const QJsonObject e = v.toObject();
            const QString name = e.value("name").toString();
            if (e.value("ph").toString() != "X")
                continue;
            if (name.startsWith("ProfilerStep#")) {
                QCOMPARE(e.value("cat").toString(), QString("user_annotation"));
                steps.push_back({ns(e.value("ts")), ns(e.value("ts")) + ns(e.value("dur"))});
                stepNames.insert(name);
            } else if (name == "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__") {
                loaders.push_back(ns(e.value("ts")));
            } else if (name == "nccl:all_reduce") {
                allReduces.push_back(ns(e.value("ts")));
            }
        }
        QCOMPARE(uint64_t(steps.size()), s.steps);
        QVERIFY(s.steps >= 1);
        for (uint64_t i = 0; i < s.steps; ++i)
            QVERIFY(stepNames.count(QString("ProfilerStep#%1").arg(s.firstStep + i)));
        for (const auto &list : {loaders, allReduces}) {
            QCOMPARE(uint64_t(list.size()), s.steps);
            for (const int64_t t : list) {
                int inside = 0;
                for (const auto &[b, e] : steps)
                    inside += t >= b && t < e;
                QCOMPARE(inside, 1);
            }
        }
    }

    void flowsAndIds()
    {
        const Generated g = generate(5000, 4);
        std::map<int64_t, QJsonObject> activityByCorrelation, runtimeByCorrelation;
        std::set<int64_t> opExternalIds;
        std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> activityAt; // pid,tid,ts -> corr
        std::set<std::pair<int64_t, int64_t>> kernelQueues;
        std::set<int64_t> kernelDevices;
        bool sm80 = false, volta = false, nccl = false, cat = false;
        for (const QJsonValue &v : g.events) {
            const QJsonObject e = v.toObject();
            const QString c = e.value("cat").toString();
            const QJsonObject args = e.value("args").toObject();
            if (e.value("ph").toString() != "X")
                continue;
            if (c == "cpu_op")
                QVERIFY(opExternalIds.insert(args.value("External id").toInteger()).second);
            if (c == "cuda_runtime")
                runtimeByCorrelation[args.value("correlation").toInteger()] = e;
            if (!isGpuActivity(c))
                continue;
            const int64_t corr = args.value("correlation").toInteger();
            QVERIFY(activityByCorrelation.emplace(corr, e).second);
            activityAt[{e.value("pid").toInteger(), e.value("tid").toInteger(),
                        ns(e.value("ts"))}] = corr;
            if (c == "kernel") {
                const QString name = e.value("name").toString();
                sm80 |= name.startsWith("sm80_xmma_gemm");
                volta |= name.startsWith("volta_h884gemm");
                nccl |= name.startsWith("ncclKernel_AllReduce");
                cat |= name.contains("CatArrayBatchedCopy");
                kernelQueues.insert({e.value("pid").toInteger(), e.value("tid").toInteger()});
                kernelDevices.insert(e.value("pid").toInteger());
                QCOMPARE(args.value("device").toInteger(), e.value("pid").toInteger());
                QCOMPARE(args.value("stream").toInteger(), e.value("tid").toInteger());
                // blocks per SM = grid blocks / SMs; warps per SM = that * threads / 32.
                const QJsonArray grid = args.value("grid").toArray();
                const QJsonArray block = args.value("block").toArray();
                const double blocks = grid[0].toDouble() * grid[1].toDouble() * grid[2].toDouble();
                const double threads =
                    block[0].toDouble() * block[1].toDouble() * block[2].toDouble();
                const double numSms = g.top.value("deviceProperties")
                                          .toArray()[0]
                                          .toObject()
                                          .value("numSms")
                                          .toDouble();
                QVERIFY(qAbs(args.value("blocks per SM").toDouble() - blocks / numSms) < 1e-6);
                QVERIFY(qAbs(args.value("warps per SM").toDouble() -
                             blocks / numSms * threads / 32) < 1e-6);
                const int occupancy = args.value("est. achieved occupancy %").toInt(-1);
                QVERIFY(occupancy >= 0 && occupancy <= 100);
                QVERIFY(args.contains("registers per thread") && args.contains("shared memory"));
            } else {
                QVERIFY(args.value("bytes").toInteger() > 0);
                QVERIFY(args.value("memory bandwidth (GB/s)").toDouble() > 0);
            }
        }
        QVERIFY(sm80 && volta && nccl && cat);
        QCOMPARE(uint64_t(kernelDevices.size()), g.stats.gpus);
        QVERIFY(kernelQueues.size() >= 3);

        // Every kernel's External id names a cpu_op; the runtime call with the same
        // correlation carries the same External id and starts no later than the GPU work.
        for (const auto &[corr, e] : activityByCorrelation) {
            const int64_t ext = e.value("args").toObject().value("External id").toInteger();
            QVERIFY2(opExternalIds.count(ext), qPrintable(e.value("name").toString()));
            QVERIFY(runtimeByCorrelation.count(corr));
            const QJsonObject &rt = runtimeByCorrelation[corr];
            QCOMPARE(rt.value("args").toObject().value("External id").toInteger(), ext);
            QVERIFY(ns(rt.value("ts")) <= ns(e.value("ts")));
        }

        // ac2g: each s sits on a runtime call with correlation == id; each id has exactly one
        // f, bound ("bp":"e") to a GPU activity at the same pid/tid/ts whose correlation == id.
        std::map<int64_t, int> starts, finishes;
        for (const QJsonValue &v : g.events) {
            const QJsonObject e = v.toObject();
            if (e.value("cat").toString() != "ac2g")
                continue;
            const int64_t id = e.value("id").toInteger();
            if (e.value("ph").toString() == "s") {
                ++starts[id];
                QVERIFY(runtimeByCorrelation.count(id));
                QCOMPARE(ns(runtimeByCorrelation[id].value("ts")), ns(e.value("ts")));
            } else {
                ++finishes[id];
                QCOMPARE(e.value("bp").toString(), QString("e"));
                const auto at = activityAt.find(
                    {e.value("pid").toInteger(), e.value("tid").toInteger(), ns(e.value("ts"))});
                QVERIFY(at != activityAt.end());
                QCOMPARE(at->second, id);
            }
        }
        QCOMPARE(uint64_t(starts.size()), g.stats.ac2gFlows);
        for (const auto &[id, n] : starts) {
            QCOMPARE(n, 1);
            QCOMPARE(finishes[id], 1);
        }
        QCOMPARE(finishes.size(), starts.size());
    }

    void memoryPairs()
    {
        const Generated g = generate(5000, 5);
        std::map<std::pair<int64_t, int64_t>, int64_t> live; // (device, addr) -> bytes
        std::map<int64_t, int64_t> totals;                   // device -> Total Allocated
        uint64_t allocations = 0, frees = 0;
        std::set<int64_t> deviceTypes;
        for (const QJsonValue &v : g.events) {
            const QJsonObject e = v.toObject();
            if (e.value("name").toString() != "[memory]")
                continue;
            QCOMPARE(e.value("s").toString(), QString("t"));
            const QJsonObject a = e.value("args").toObject();
            const int64_t device = a.value("Device Id").toInteger();
            const int64_t bytes = a.value("Bytes").toInteger();
            const std::pair key{device, a.value("Addr").toInteger()};
            deviceTypes.insert(a.value("Device Type").toInteger());
            QCOMPARE(a.value("Device Type").toInteger(), device < 0 ? 0 : 1);
            if (bytes > 0) {
                ++allocations;
                QVERIFY(live.emplace(key, bytes).second);
            } else {
                ++frees;
                const auto it = live.find(key);
                QVERIFY(it != live.end());
                QCOMPARE(it->second, -bytes);
                live.erase(it);
            }
            // The allocator totals move by exactly Bytes, and reserved covers allocated.
            const int64_t total = a.value("Total Allocated").toInteger();
            if (totals.count(device))
                QCOMPARE(total - totals[device], bytes);
            totals[device] = total;
            QVERIFY(a.value("Total Reserved").toInteger() >= total);
        }
        QVERIFY(allocations > 0);
        QCOMPARE(frees, allocations);
        QVERIFY(live.empty());
        QCOMPARE(deviceTypes, (std::set<int64_t>{0, 1}));
    }

    void loadsIntoStore()
    {
        const Generated g = generate(6000, 6);
        auto r = readChromeJsonBytes("gen.pt.trace.json", g.bytes.data(), g.bytes.size(), nullptr,
                                     LoadOptions{});
        QVERIFY2(r, r ? "" : r.message().c_str());
        const Trace &t = *r.value();
        QCOMPARE(t.info.run.framework, std::string("pytorch"));
        QCOMPARE(uint64_t(t.info.run.devices.size()), g.stats.gpus);
        QVERIFY(t.info.run.distributed.present);
        QCOMPARE(t.info.run.distributed.worldSize, int64_t(1));

        std::set<int64_t> devicePlanes;
        for (const Plane &p : t.planes) {
            if (p.kind != PlaneKind::Device)
                continue;
            QVERIFY(devicePlanes.insert(p.id).second);
            uint64_t streams = 0;
            for (uint32_t tr : p.tracks)
                streams += !t.tracks[tr].empty();
            QCOMPARE(streams, g.stats.deviceStreams[size_t(p.id)]);
        }
        std::set<int64_t> expected;
        for (uint64_t d = 0; d < g.stats.gpus; ++d)
            expected.insert(int64_t(d));
        QCOMPARE(devicePlanes, expected);

        uint64_t steps = 0, kernels = 0;
        for (const Track &track : t.tracks) {
            const bool host = t.planes[track.plane].kind == PlaneKind::Host;
            for (const Row &row : track.rows) {
                for (uint32_t k : row.kind) {
                    const EventKind &kind = t.kinds[k];
                    kernels += kind.role == SliceRole::Kernel;
                    steps += host && kind.role == SliceRole::UserAnnotation &&
                             t.string(kind.name).rfind("ProfilerStep#", 0) == 0;
                }
            }
        }
        QCOMPARE(steps, g.stats.steps);
        QCOMPARE(kernels, g.stats.kernels);
        uint64_t launchFlows = 0;
        for (const Flow &f : t.flows)
            launchFlows += t.string(f.category) == "ac2g";
        QCOMPARE(launchFlows, g.stats.ac2gFlows);
    }

    void summaryForCli()
    {
        QTemporaryDir dir;
        GeneratorOptions options;
        options.events = 3000;
        options.seed = 9;
        options.format = GeneratedFormat::Kineto;
        auto summary = generateTrace(options, dir.filePath("s.json").toStdString());
        auto full = generateKinetoTrace(options, dir.filePath("f.json").toStdString());
        QVERIFY(summary.ok() && full.ok());
        const GeneratedTraceStats &s = summary.value();
        const KinetoTraceStats &k = full.value();
        QCOMPARE(s.events, k.events);
        QCOMPARE(s.flows, k.ac2gFlows);
        QCOMPARE(s.steps, k.steps);
        QCOMPARE(s.fileBytes, k.fileBytes);
        uint64_t slices = 0;
        for (const GeneratedPlaneStats &p : s.planes)
            slices += p.slices;
        QCOMPARE(slices, s.slices);
        QCOMPARE(s.planes.size(), size_t(k.gpus + 2)); // CPU, the GPUs, Spans
    }

    void unwritableOutputIsAnError()
    {
        GeneratorOptions options;
        options.events = 10;
        options.format = GeneratedFormat::Kineto;
        auto r = generateTrace(options, "/nonexistent-dir/out.pt.trace.json");
        QVERIFY(!r.ok());
        QVERIFY(r.message().find("/nonexistent-dir/out.pt.trace.json") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestKinetoGenerator)
#include "tst_kinetogenerator.moc"
