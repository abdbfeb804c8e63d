// Synthetic Kineto traces: valid JSON, byte-identical per seed, the per-kind counts the generator
// reports recounted from the JSON, launch flows and External ids that bind, paired memory
// events, and the store's view of the file (one device plane per GPU, the steps). The MoE and
// serving shapes and the serving graph's capture are checked on their own terms: External ids
// that mirror correlations, DeepEP launches owned by annotations only, iterations instead of
// steps, graph launches shared by their kernels, captured launches that never run.

#include "core/generate/generator.h"
#include "core/generate/kinetogenerator.h"
#include "core/generate/kinetojsonwriter.h"
#include "core/io/chromejsonreader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <QRegularExpression>

#include <algorithm>
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
    std::string captureBytes; // with a graph capture written beside
    QJsonArray captureEvents;
};

QJsonObject parse(const std::string &bytes)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(bytes), &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("JSON error at %d: %s", error.offset, qPrintable(error.errorString()));
    return doc.object();
}

Generated generate(uint64_t events, uint64_t seed, KinetoShape shape = KinetoShape::Training,
                   bool capture = false)
{
    QTemporaryDir dir;
    GeneratorOptions options;
    options.events = events;
    options.seed = seed;
    options.format = GeneratedFormat::Kineto;
    options.kinetoShape = shape;
    if (capture)
        options.capturePath = dir.filePath("capture.pt.trace.json").toStdString();
    const std::string path = dir.filePath("gen.pt.trace.json").toStdString();
    Generated g;
    auto r = generateKinetoTrace(options, path);
    if (!r) {
        qWarning("%s", r.message().c_str());
        return g;
    }
    g.stats = r.value();
    g.bytes = readAll(path);
    g.top = parse(g.bytes);
    g.events = g.top.value("traceEvents").toArray();
    if (capture) {
        g.captureBytes = readAll(options.capturePath);
        g.captureEvents = parse(g.captureBytes).value("traceEvents").toArray();
    }
    return g;
}

// The X events of `events` on the thread of `e` that enclose it, outermost first.
std::vector<QJsonObject> enclosing(const QJsonArray &events, const QJsonObject &e)
{
    const int64_t begin = ns(e.value("ts")), end = begin + ns(e.value("dur"));
    std::vector<QJsonObject> out;
    for (const QJsonValue &v : events) {
        const QJsonObject o = v.toObject();
        const int64_t b = ns(o.value("ts"));
        if (o.value("ph").toString() != "X" || o == e || o.value("tid") != e.value("tid") ||
            o.value("pid") != e.value("pid") || b > begin || b + ns(o.value("dur")) < end)
            continue;
        out.push_back(o);
    }
    std::stable_sort(out.begin(), out.end(), [](const QJsonObject &a, const QJsonObject &b) {
        return ns(a.value("ts")) < ns(b.value("ts"));
    });
    return out;
}

bool hasCategory(const std::vector<QJsonObject> &list, const QString &cat)
{
    return std::any_of(list.begin(), list.end(),
                       [&](const QJsonObject &o) { return o.value("cat").toString() == cat; });
}

int64_t arg(const QJsonObject &e, const char *key, int64_t absent = -1)
{
    return e.value("args").toObject().value(key).toInteger(absent);
}

// The counts generateKinetoTrace() reports, recounted from the JSON; they add up to `events`.
void verifyKindCounts(const QJsonArray &events, const KinetoTraceStats &s)
{
    std::map<std::pair<QString, QString>, uint64_t> byKind;
    uint64_t memory = 0;
    for (const QJsonValue &v : events) {
        const QJsonObject e = v.toObject();
        ++byKind[{e.value("ph").toString(), e.value("cat").toString()}];
        memory += e.value("name").toString() == "[memory]";
    }
    const auto count = [&](const char *ph, const char *cat) {
        return byKind[{QString(ph), QString(cat)}];
    };
    QCOMPARE(uint64_t(events.size()), s.events);
    QCOMPARE(count("M", ""), s.metadata);
    QCOMPARE(count("X", "user_annotation"), s.userAnnotations);
    QCOMPARE(count("X", "cpu_op"), s.cpuOps);
    QCOMPARE(count("X", "python_function"), s.pythonFunctions);
    QCOMPARE(count("X", "cuda_runtime"), s.runtime);
    QCOMPARE(count("X", "kernel"), s.kernels);
    QCOMPARE(count("X", "gpu_memcpy"), s.memcpys);
    QCOMPARE(count("X", "gpu_memset"), s.memsets);
    QCOMPARE(count("i", "cpu_instant_event"), s.memoryEvents);
    QCOMPARE(memory, s.memoryEvents);
    QCOMPARE(count("s", "ac2g"), s.ac2gFlows);
    QCOMPARE(count("f", "ac2g"), s.ac2gFlowEnds);
    QCOMPARE(count("s", "fwdbwd"), s.fwdbwdFlows);
    QCOMPARE(count("f", "fwdbwd"), s.fwdbwdFlows);
    QCOMPARE(count("X", "Trace"), s.spans);
    QCOMPARE(count("i", ""), s.globalInstants);
    uint64_t sum = 0;
    for (const auto &[kind, n] : byKind)
        sum += n;
    QCOMPARE(sum, s.events);
    QCOMPARE(s.metadata + s.userAnnotations + s.cpuOps + s.pythonFunctions + s.runtime + s.kernels +
                 s.memcpys + s.memsets + s.memoryEvents + s.ac2gFlows + s.ac2gFlowEnds +
                 2 * s.fwdbwdFlows + s.spans + s.globalInstants,
             s.events);
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
        KinetoShape shape = KinetoShape::Training;
        QVERIFY(parseKinetoShape("moe", &shape) && shape == KinetoShape::Moe);
        QVERIFY(parseKinetoShape("serving", &shape) && shape == KinetoShape::Serving);
        QVERIFY(parseKinetoShape("training", &shape) && shape == KinetoShape::Training);
        QVERIFY(!parseKinetoShape("inference", &shape));
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
        // About N: at least N, and less than one step (< 1000 entries) over.
        QVERIFY(s.events >= uint64_t(events));
        QVERIFY(s.events < uint64_t(events) + 1000);
        verifyKindCounts(g.events, s);
        QCOMPARE(s.pythonFunctions, uint64_t(0));
        // Every GPU activity has its launch flow; the sync calls are the only runtime without.
        QCOMPARE(s.ac2gFlowEnds, s.ac2gFlows);
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
            uint64_t queues = 0; // each stream's launch queue counter track
            for (uint32_t tr : p.tracks) {
                const bool slices = t.tracks[tr].type == TrackType::Slices;
                streams += slices && !t.tracks[tr].empty();
                queues += !slices;
            }
            QCOMPARE(streams, g.stats.deviceStreams[size_t(p.id)]);
            QCOMPARE(queues, streams);
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

    void shapesDeterministic()
    {
        for (const KinetoShape shape : {KinetoShape::Moe, KinetoShape::Serving}) {
            const bool capture = shape == KinetoShape::Serving;
            const Generated a = generate(3000, 21, shape, capture);
            const Generated b = generate(3000, 21, shape, capture);
            const Generated c = generate(3000, 22, shape, capture);
            QCOMPARE(a.bytes, b.bytes);
            QCOMPARE(a.captureBytes, b.captureBytes);
            QVERIFY(a.bytes != c.bytes);
            // About N: at least N, and less than one step or iteration over.
            QVERIFY(a.stats.events >= 3000 && a.stats.events < 3000 + 1500);
            // The project's reader loads them (and the capture) without a warning.
            for (const auto &[bytes, kernels] :
                 {std::pair{a.bytes, a.stats.kernels}, {a.captureBytes, uint64_t(0)}}) {
                if (bytes.empty())
                    continue;
                auto r = readChromeJsonBytes("shape.pt.trace.json", bytes.data(), bytes.size(),
                                             nullptr, LoadOptions{});
                QVERIFY2(r, r ? "" : r.message().c_str());
                QCOMPARE(r.value()->info.warningCount, uint64_t(0));
                uint64_t loaded = 0, python = 0;
                for (const Track &track : r.value()->tracks) {
                    for (const Row &row : track.rows) {
                        for (uint32_t kind : row.kind) {
                            loaded += r.value()->kinds[kind].role == SliceRole::Kernel;
                            python += r.value()->kinds[kind].role == SliceRole::PythonFunction;
                        }
                    }
                }
                QCOMPARE(loaded, kernels);
                QVERIFY(python > 0);
            }
        }
    }

    void moeShape()
    {
        const Generated g = generate(5000, 5, KinetoShape::Moe);
        QVERIFY(!g.events.isEmpty());
        verifyKindCounts(g.events, g.stats);
        const QJsonObject device = g.top.value("deviceProperties").toArray()[0].toObject();
        QCOMPARE(device.value("name").toString(), QString("NVIDIA H800"));
        QCOMPARE(device.value("computeMajor").toInt(), 9);

        // Every launch and its GPU work carry their correlation id as External id; the ops keep
        // ids of their own that name no launch.
        std::map<int64_t, QJsonObject> runtimeByCorrelation;
        std::set<int64_t> opIds, launchIds;
        std::vector<QJsonObject> kernels;
        uint64_t steps = 0;
        for (const QJsonValue &v : g.events) {
            const QJsonObject e = v.toObject();
            const QString c = e.value("cat").toString();
            if (e.value("ph").toString() != "X")
                continue;
            steps += e.value("name").toString().startsWith("ProfilerStep#");
            if (c == "cpu_op" || c == "user_annotation")
                QVERIFY(opIds.insert(arg(e, "External id")).second);
            if (c == "cuda_runtime" || isGpuActivity(c)) {
                QVERIFY(arg(e, "correlation") > 0);
                QCOMPARE(arg(e, "External id"), arg(e, "correlation"));
                launchIds.insert(arg(e, "External id"));
            }
            if (c == "cuda_runtime")
                runtimeByCorrelation[arg(e, "correlation")] = e;
            if (c == "kernel")
                kernels.push_back(e);
        }
        QCOMPARE(steps, g.stats.steps);
        for (const int64_t id : opIds)
            QVERIFY(!launchIds.count(id));

        // The kernels, and who owns DeepEP's: in the forward pass only the `dispatch(F)` /
        // `combine(F)` annotation around the Python frame that launched them, no cpu_op.
        bool grouped = false, flash = false, dispatch = false, combine = false, notify = false,
             nvshmem = false;
        uint64_t forwardComm = 0;
        std::set<int64_t> commStreams, computeStreams;
        for (const QJsonObject &k : kernels) {
            const QString name = k.value("name").toString();
            grouped |= name.contains("MainloopSm90TmaGmmaWarpSpecializedCooperativeFP8BlockScaled"
                                     "Accum") &&
                       name.contains("grouped_gemm");
            flash |= name.startsWith("void flash::flash_fwd_kernel<Flash_fwd_kernel_traits_fp8<");
            dispatch |= name.startsWith("void deep_ep::intranode::dispatch<8, 768, 8192>(");
            combine |= name.startsWith("void deep_ep::intranode::combine<");
            notify |= name.startsWith("void deep_ep::intranode::notify_dispatch<8>(");
            nvshmem |= name.contains("nvshmem");
            const bool comm = name.contains("deep_ep::") || name.contains("nvshmem");
            (comm ? commStreams : computeStreams).insert(k.value("tid").toInteger());
            if (!comm)
                continue;
            QVERIFY(runtimeByCorrelation.count(arg(k, "correlation")));
            const std::vector<QJsonObject> around =
                enclosing(g.events, runtimeByCorrelation[arg(k, "correlation")]);
            std::set<QString> annotations;
            for (const QJsonObject &o : around) {
                if (o.value("cat").toString() == "user_annotation")
                    annotations.insert(o.value("name").toString());
            }
            QVERIFY(hasCategory(around, "python_function"));
            if (annotations.count("dispatch(F)") || annotations.count("combine(F)")) {
                QVERIFY2(!hasCategory(around, "cpu_op"), qPrintable(name));
                QCOMPARE(around.back().value("cat").toString(), QString("user_annotation"));
                ++forwardComm;
            } else {
                QVERIFY(annotations.count("dispatch(B)") || annotations.count("combine(B)"));
            }
        }
        QVERIFY(grouped && flash && dispatch && combine && notify && nvshmem);
        QVERIFY(forwardComm > 0);
        for (const int64_t stream : commStreams)
            QVERIFY(!computeStreams.count(stream));
    }

    void servingShape()
    {
        const Generated g = generate(5000, 4, KinetoShape::Serving);
        QVERIFY(!g.events.isEmpty());
        verifyKindCounts(g.events, g.stats);
        const QJsonObject device = g.top.value("deviceProperties").toArray()[0].toObject();
        QCOMPARE(device.value("name").toString(), QString("NVIDIA B300"));
        QCOMPARE(device.value("computeMajor").toInt(), 10);

        // No ProfilerStep: SGLang's iteration annotations, a prefill every 8th.
        const QRegularExpression decode("^step\\[DECODE bs=\\d+\\]$");
        const QRegularExpression extend("^step\\[EXTEND bs=\\d+ toks=\\d+\\]$");
        std::vector<QJsonObject> iterations, graphLaunches;
        std::map<int64_t, std::vector<QJsonObject>> kernelsByCorrelation;
        std::map<std::pair<QString, int64_t>, int> flows; // (ph, id) -> records
        bool nvjet = false, fmha = false, norm = false;
        for (const QJsonValue &v : g.events) {
            const QJsonObject e = v.toObject();
            const QString name = e.value("name").toString();
            QVERIFY(!name.contains("ProfilerStep"));
            if (e.value("cat").toString() == "ac2g")
                ++flows[{e.value("ph").toString(), e.value("id").toInteger()}];
            if (e.value("ph").toString() != "X")
                continue;
            if (e.value("cat").toString() == "user_annotation")
                iterations.push_back(e);
            if (name == "cudaGraphLaunch")
                graphLaunches.push_back(e);
            if (e.value("cat").toString() == "kernel") {
                kernelsByCorrelation[arg(e, "correlation")].push_back(e);
                nvjet |= name.startsWith("nvjet_tst_");
                fmha |= name.startsWith("fmhaSm100aKernel_");
                norm |= name.contains("vllm::fused_add_rms_norm_kernel");
            }
        }
        QVERIFY(nvjet && fmha && norm);
        QCOMPARE(uint64_t(iterations.size()), g.stats.iterations);
        QVERIFY(iterations.size() > 8);
        for (size_t i = 0; i < iterations.size(); ++i) {
            const QString name = iterations[i].value("name").toString();
            QVERIFY2((i % 8 == 0 ? extend : decode).match(name).hasMatch(), qPrintable(name));
        }

        // One graph launch per iteration, its correlation shared by the graph's K kernels on one
        // stream, none with an External id; CUDAGraph.replay is the only frame that owns it.
        const uint64_t k = g.stats.graphKernels;
        QVERIFY(k > 10);
        QCOMPARE(uint64_t(graphLaunches.size()), g.stats.iterations);
        for (const QJsonObject &launch : graphLaunches) {
            const int64_t corr = arg(launch, "correlation");
            QCOMPARE(arg(launch, "External id"), int64_t(-1));
            const std::vector<QJsonObject> &kernels = kernelsByCorrelation[corr];
            QCOMPARE(uint64_t(kernels.size()), k);
            std::set<std::pair<int64_t, int64_t>> streams;
            for (const QJsonObject &kernel : kernels) {
                QCOMPARE(arg(kernel, "External id"), int64_t(-1));
                QVERIFY(ns(kernel.value("ts")) >= ns(launch.value("ts")));
                streams.insert({kernel.value("pid").toInteger(), kernel.value("tid").toInteger()});
            }
            QCOMPARE(streams.size(), size_t(1));
            const int starts = flows[{QString("s"), corr}], ends = flows[{QString("f"), corr}];
            QCOMPARE(starts, 1);
            QCOMPARE(uint64_t(ends), k);
            const std::vector<QJsonObject> around = enclosing(g.events, launch);
            QVERIFY(!hasCategory(around, "cpu_op"));
            QCOMPARE(around.back().value("name").toString(), QString("CUDAGraph.replay"));
            QCOMPARE(around.front().value("cat").toString(), QString("user_annotation"));
        }
    }

    void servingGraphCapture()
    {
        const Generated g = generate(2500, 6, KinetoShape::Serving, true);
        QVERIFY(!g.captureEvents.isEmpty());
        QCOMPARE(uint64_t(g.captureEvents.size()), g.stats.captureEvents);
        // What tells a capture trace from its replay when both are opened together.
        QVERIFY(g.captureBytes.find("GraphLaunch\"") == std::string::npos);
        QVERIFY(g.bytes.find("StreamBeginCapture") == std::string::npos);

        std::vector<QJsonObject> begins, ends, launches;
        for (const QJsonValue &v : g.captureEvents) {
            const QJsonObject e = v.toObject();
            const QString name = e.value("name").toString();
            QVERIFY(!isGpuActivity(e.value("cat").toString())); // captured launches never run
            if (name == "cudaStreamBeginCapture")
                begins.push_back(e);
            else if (name == "cudaStreamEndCapture")
                ends.push_back(e);
            else if (name == "cudaLaunchKernel")
                launches.push_back(e);
        }
        QCOMPARE(begins.size(), size_t(1));
        QCOMPARE(ends.size(), size_t(1));
        QCOMPARE(begins[0].value("tid"), ends[0].value("tid"));
        const int64_t open = ns(begins[0].value("ts")), close = ns(ends[0].value("ts"));
        std::stable_sort(launches.begin(), launches.end(), [](const auto &a, const auto &b) {
            return ns(a.value("ts")) < ns(b.value("ts"));
        });
        QCOMPARE(uint64_t(launches.size()), g.stats.graphKernels);
        std::vector<QString> ops;
        for (const QJsonObject &launch : launches) {
            QVERIFY(ns(launch.value("ts")) > open && ns(launch.value("ts")) < close);
            QCOMPARE(launch.value("tid"), begins[0].value("tid"));
            const std::vector<QJsonObject> around = enclosing(g.captureEvents, launch);
            QVERIFY(!around.empty());
            const QJsonObject &op = around.back();
            QCOMPARE(op.value("cat").toString(), QString("cpu_op"));
            QCOMPARE(arg(op, "External id"), arg(launch, "External id"));
            ops.push_back(op.value("name").toString());
        }

        // The k-th captured launch records the k-th kernel of every replay.
        const auto recordedBy = [](const QString &kernel) -> QString {
            const std::pair<const char *, const char *> rules[] = {
                {"nvjet_", "aten::mm"},
                {"fmhaSm100aKernel_", "vllm::unified_attention_with_output"},
                {"vllm::rms_norm_kernel<", "_C::rms_norm"},
                {"vllm::fused_add_rms_norm_kernel<", "_C::fused_add_rms_norm"},
                {"vllm::rotary_embedding_kernel<", "_C::rotary_embedding"},
                {"vllm::reshape_and_cache_flash_kernel<", "_C_cache_ops::reshape_and_cache_flash"},
                {"vllm::act_and_mul_kernel<", "_C::silu_and_mul"},
                {"direct_copy_kernel_cuda", "aten::copy_"}};
            for (const auto &[marker, op] : rules) {
                if (kernel.contains(marker))
                    return op;
            }
            return {};
        };
        std::map<int64_t, std::vector<QJsonObject>> replays;
        for (const QJsonValue &v : g.events) {
            const QJsonObject e = v.toObject();
            if (e.value("cat").toString() == "kernel" && arg(e, "External id") < 0)
                replays[arg(e, "correlation")].push_back(e);
        }
        QCOMPARE(uint64_t(replays.size()), g.stats.graphLaunches);
        for (auto &[corr, kernels] : replays) {
            std::stable_sort(kernels.begin(), kernels.end(), [](const auto &a, const auto &b) {
                return ns(a.value("ts")) < ns(b.value("ts"));
            });
            QCOMPARE(kernels.size(), ops.size());
            for (size_t i = 0; i < ops.size(); ++i)
                QCOMPARE(recordedBy(kernels[i].value("name").toString()), ops[i]);
        }
    }

    void unwritableOutputIsAnError()
    {
        GeneratorOptions options;
        options.events = 10;
        options.format = GeneratedFormat::Kineto;
        auto r = generateTrace(options, "/nonexistent-dir/out.pt.trace.json");
        QVERIFY(!r.ok());
        QVERIFY(r.message().find("/nonexistent-dir/out.pt.trace.json") != std::string::npos);
        // Only the serving shape has a graph to capture.
        options.kinetoShape = KinetoShape::Moe;
        options.capturePath = "/nonexistent-dir/capture.json";
        QVERIFY(generateTrace(options, "out.json").message().find("serving") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestKinetoGenerator)
#include "tst_kinetogenerator.moc"
