// The Kineto index, the operator tree and the operator view: a hand-made trace pins each rule
// of PYTORCH.md §2.1 / §2.6 and the choices documented in operatortree.h (expected numbers worked
// out by hand below), and the real Kineto fixtures are checked against their raw JSON.

#include "core/analysis/pytorch/kinetoindex.h"
#include "core/analysis/pytorch/operatorstats.h"
#include "core/analysis/pytorch/operatortree.h"
#include "core/io/chromejsonreader.h"
#include "support/kinetofixtures.h"

#include <QtTest>

#include <cmath>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;
using namespace tracedesk::core::analysis::pytorch;

namespace {

using testsupport::loadText;

// Two host threads (tid 100 written as number and as string, tid 200) and one GPU with streams
// 7 and 8. Times in µs.
const char *const kMiniTrace = R"json({"schemaVersion":1,
"deviceProperties":[{"id":0,"name":"Test GPU","totalGlobalMem":1024,"computeMajor":8,"computeMinor":0,"numSms":80,"maxThreadsPerMultiprocessor":2048}],
"traceEvents":[
{"ph":"M","name":"process_labels","pid":0,"tid":0,"args":{"labels":"GPU 0"}},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":100,"ts":0,"dur":1000,"args":{"External id":1}},
{"ph":"X","cat":"cpu_op","name":"custom::fused","pid":1,"tid":100,"ts":10,"dur":400,"args":{"External id":2}},
{"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":100,"ts":20,"dur":300,"args":{"External id":3,"Input Dims":[[4,8],[4,16],[16,8]]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":100,"ts":30,"dur":20,"args":{"External id":3,"correlation":10}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":100,"ts":60,"dur":10,"args":{"External id":3,"correlation":11}},
{"ph":"X","cat":"cpu_op","name":"aten::to","pid":1,"tid":"100","ts":500,"dur":100,"args":{"External id":4}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":"100","ts":502,"dur":3,"args":{"External id":4,"correlation":13}},
{"ph":"X","cat":"cpu_op","name":"aten::to","pid":1,"tid":"100","ts":510,"dur":80,"args":{"External id":5}},
{"ph":"X","cat":"cpu_op","name":"aten::_to_copy","pid":1,"tid":"100","ts":520,"dur":60,"args":{"External id":6}},
{"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":"100","ts":530,"dur":20,"args":{"External id":6,"correlation":12}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":"100","ts":582,"dur":5,"args":{"External id":5,"correlation":14}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":100,"ts":700,"dur":5,"args":{"correlation":15}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":100,"ts":710,"dur":5,"args":{"External id":0,"correlation":16}},
{"ph":"X","cat":"cpu_op","name":"triton_op","pid":1,"tid":100,"ts":800,"dur":50,"args":{"External id":7}},
{"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":1,"tid":100,"ts":810,"dur":10,"args":{"External id":7,"correlation":19}},
{"ph":"X","cat":"cpu_op","name":"graph_replay","pid":1,"tid":100,"ts":890,"dur":50,"args":{"External id":8}},
{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":100,"ts":900,"dur":10,"args":{"External id":8,"correlation":20}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":200,"ts":100,"dur":10,"args":{"External id":2,"correlation":17}},
{"ph":"X","cat":"user_annotation","name":"## forward ##","pid":1,"tid":200,"ts":190,"dur":240,"args":{"External id":22}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":200,"ts":195,"dur":2,"args":{"External id":22,"correlation":18}},
{"ph":"X","cat":"cpu_op","name":"aten::outer","pid":1,"tid":200,"ts":200,"dur":100,"args":{"External id":20}},
{"ph":"X","cat":"cpu_op","name":"aten::straddle","pid":1,"tid":200,"ts":250,"dur":100,"args":{"External id":21}},
{"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":200,"ts":400,"dur":20,"args":{"External id":23,"Input Dims":[[2,2]],"Call stack":"a.py(1): f;b.py(2): g"}},
{"ph":"X","cat":"kernel","name":"ampere_h1688gemm_128x128","pid":0,"tid":7,"ts":2000,"dur":100,"args":{"External id":3,"device":0,"stream":7,"correlation":10}},
{"ph":"X","cat":"kernel","name":"elementwise_kernel","pid":0,"tid":7,"ts":2100,"dur":50,"args":{"External id":3,"device":0,"stream":7,"correlation":11}},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":2200,"dur":30,"args":{"External id":6,"device":0,"stream":7,"correlation":12,"bytes":4096}},
{"ph":"X","cat":"kernel","name":"to_kernel","pid":0,"tid":7,"ts":2300,"dur":7,"args":{"device":0,"stream":7,"correlation":13}},
{"ph":"X","cat":"kernel","name":"to_kernel","pid":0,"tid":7,"ts":2310,"dur":4,"args":{"device":0,"stream":7,"correlation":14}},
{"ph":"X","cat":"kernel","name":"root_kernel","pid":0,"tid":7,"ts":2320,"dur":9,"args":{"device":0,"stream":7,"correlation":15}},
{"ph":"X","cat":"kernel","name":"root_kernel","pid":0,"tid":7,"ts":2330,"dur":11,"args":{"device":0,"stream":7,"correlation":16}},
{"ph":"X","cat":"kernel","name":"orphan_kernel","pid":0,"tid":7,"ts":2350,"dur":13,"args":{"device":0,"stream":7,"correlation":99}},
{"ph":"X","cat":"kernel","name":"elementwise_kernel","pid":0,"tid":7,"ts":2400,"dur":21,"args":{"device":0,"stream":7,"correlation":17}},
{"ph":"X","cat":"kernel","name":"annot_kernel","pid":0,"tid":7,"ts":2430,"dur":6,"args":{"device":0,"stream":7,"correlation":18}},
{"ph":"X","cat":"kernel","name":"triton_xmma_gemm_kernel","pid":0,"tid":7,"ts":2440,"dur":40,"args":{"device":0,"stream":7,"correlation":19}},
{"ph":"X","cat":"kernel","name":"graph_k1","pid":0,"tid":7,"ts":2500,"dur":15,"args":{"device":0,"stream":7,"correlation":20}},
{"ph":"X","cat":"kernel","name":"graph_k2","pid":0,"tid":8,"ts":2500,"dur":25,"args":{"device":0,"stream":8,"correlation":20}}
]})json";

constexpr TimePs kUs = 1000000;

// The live (not merged) tree node named `name` on the thread with tid `tid`.
uint32_t findNode(const Trace &trace, const OperatorTree &tree, std::string_view name, int64_t tid)
{
    for (uint32_t i = 0; i < tree.nodes.size(); ++i) {
        const OpNode &n = tree.nodes[i];
        if (n.mergedInto == kNoIndex && n.nodeClass != OpNodeClass::Root &&
            trace.string(n.name) == name && tree.index->threads[n.thread].tid == tid)
            return i;
    }
    return kNoIndex;
}

const OperatorRow *findRow(const std::vector<OperatorRow> &rows, std::string_view name,
                           std::string_view shapes = {})
{
    for (const OperatorRow &r : rows) {
        if (r.opName == name && (shapes.empty() || r.inputShapes == shapes))
            return &r;
    }
    return nullptr;
}

QString lowerCat(const QJsonObject &e)
{
    return e.value("cat").toString().toLower();
}

} // namespace

class TestPytorchOperators : public QObject
{
    Q_OBJECT

private slots:
    void index();
    void treeNesting();
    void treeTimes();
    void operatorView();
    void realFixtures();
};

void TestPytorchOperators::index()
{
    const TracePtr trace = loadText(kMiniTrace);
    QVERIFY(trace);
    const KinetoIndex idx = buildKinetoIndex(*trace);
    // tid 100 as number and as string is one thread; tid 200 holds only a runtime at first.
    QCOMPARE(idx.threads.size(), size_t(2));
    QCOMPARE(idx.threads[0].tid, int64_t(100));
    QCOMPARE(idx.threads[1].tid, int64_t(200));
    QVERIFY(idx.threads[0].hasProfilerStep);
    QVERIFY(!idx.threads[1].hasProfilerStep);
    QCOMPARE(idx.nodes.size(), size_t(12));    // 8 + 4 (the "## forward ##" annotation included)
    QCOMPARE(idx.runtimes.size(), size_t(11)); // cuLaunchKernel (cuda_driver) included
    QCOMPARE(idx.activities.size(), size_t(13));
    QCOMPARE(idx.devices, std::vector<int64_t>{0});
    QVERIFY(idx.hasKernels);
    // Nodes of a thread: parents first.
    QCOMPARE(trace->name(idx.nodes[idx.threads[0].nodeBegin].ref),
             std::string_view("ProfilerStep#1"));
    // 1:N: the graph launch owns both graph kernels, on two streams.
    const uint32_t graph = idx.runtimeForCorrelation(20);
    QVERIFY(graph != kNoIndex);
    QCOMPARE(trace->name(idx.runtimes[graph].ref), std::string_view("cudaGraphLaunch"));
    QCOMPARE(idx.activitiesOf(graph).size(), size_t(2));
    QCOMPARE(idx.activities[idx.activitiesOf(graph)[0]].stream, int64_t(7));
    QCOMPARE(idx.activities[idx.activitiesOf(graph)[1]].stream, int64_t(8));
    // The driver launch is a runtime too.
    QVERIFY(idx.runtimeForCorrelation(19) != kNoIndex);
    QCOMPARE(idx.activitiesOf(idx.runtimeForCorrelation(19)).size(), size_t(1));
    // No runtime for correlation 99: the orphan kernel has none.
    QCOMPARE(idx.runtimeForCorrelation(99), kNoIndex);
    int orphans = 0;
    for (const KinetoActivity &a : idx.activities)
        orphans += a.runtime == kNoIndex ? 1 : 0;
    QCOMPARE(orphans, 1);
    // External id 0 and a missing one both read as none; the memcpy has role Memcpy.
    QCOMPARE(idx.runtimes[idx.runtimeForCorrelation(15)].externalId, kNoValue);
    QCOMPARE(idx.runtimes[idx.runtimeForCorrelation(16)].externalId, kNoValue);
    QCOMPARE(idx.activities[idx.activitiesOf(idx.runtimeForCorrelation(12))[0]].role,
             SliceRole::Memcpy);
    // The cross-thread runtime (tid 200) carries the External id of an op on tid 100.
    const KinetoRuntime &cross = idx.runtimes[idx.runtimeForCorrelation(17)];
    QCOMPARE(idx.threads[cross.thread].tid, int64_t(200));
    QCOMPARE(idx.nodesForExternalId(2).size(), size_t(1));
    QCOMPARE(trace->name(idx.nodes[idx.nodesForExternalId(2)[0]].ref),
             std::string_view("custom::fused"));
    QCOMPARE(idx.nodesForExternalId(0).size(), size_t(0));
}

void TestPytorchOperators::treeNesting()
{
    const TracePtr trace = loadText(kMiniTrace);
    QVERIFY(trace);
    const OperatorTree tree = buildOperatorTree(*trace);
    const Trace &t = *trace;
    QCOMPARE(tree.roots.size(), size_t(2));
    const uint32_t root100 = tree.roots[0];
    const uint32_t root200 = tree.roots[1];
    QCOMPARE(tree.nodeName(t, root100), kCallTreeRootName);

    const uint32_t step = findNode(t, tree, "ProfilerStep#1", 100);
    const uint32_t fused = findNode(t, tree, "custom::fused", 100);
    const uint32_t addmm = findNode(t, tree, "aten::addmm", 100);
    const uint32_t to = findNode(t, tree, "aten::to", 100);
    const uint32_t toCopy = findNode(t, tree, "aten::_to_copy", 100);
    QVERIFY(step != kNoIndex && fused != kNoIndex && addmm != kNoIndex && to != kNoIndex &&
            toCopy != kNoIndex);
    QCOMPARE(tree.nodes[step].parent, root100);
    QCOMPARE(tree.nodes[step].nodeClass, OpNodeClass::ProfilerStep);
    QCOMPARE(tree.nodes[fused].parent, step);
    QCOMPARE(tree.nodes[addmm].parent, fused);
    // Duplicate collapse: the outer aten::to absorbed the inner one, whose child moved up.
    QCOMPARE(tree.collapsedCount, 1u);
    QCOMPARE(tree.nodes[toCopy].parent, to);
    QCOMPARE(tree.nodes[to].children, std::vector<uint32_t>{toCopy});
    QCOMPARE(tree.nodes[to].runtimes.size(), size_t(2)); // its own and the inner one's
    QCOMPARE(tree.nodes[tree.nodeOfRuntime[tree.index->runtimeForCorrelation(14)]].name,
             tree.nodes[to].name);
    QCOMPARE(tree.nodeOfRuntime[tree.index->runtimeForCorrelation(14)], to);

    // Runtime attachment: by External id across threads; a missing id and id 0 under no
    // operator go to the innermost enclosing annotation (here the step); an id naming a non-tree
    // annotation goes to the innermost annotation enclosing the launch, which becomes a node.
    const auto corr = [&](int64_t c) { return tree.index->runtimeForCorrelation(c); };
    QCOMPARE(tree.nodeOfRuntime[corr(17)], fused);
    QCOMPARE(tree.ruleOfRuntime[corr(17)], LaunchRule::ExternalId);
    QCOMPARE(tree.nodeOfRuntime[corr(15)], step);
    QCOMPARE(tree.nodeOfRuntime[corr(16)], step);
    QCOMPARE(tree.ruleOfRuntime[corr(15)], LaunchRule::EnclosingAnnotation);
    const uint32_t forward = findNode(t, tree, "## forward ##", 200);
    QVERIFY(forward != kNoIndex);
    QCOMPARE(tree.nodes[forward].nodeClass, OpNodeClass::Annotation);
    QCOMPARE(tree.nodes[forward].parent, root200);
    QVERIFY(!tree.nodes[forward].isOperator);
    QCOMPARE(tree.nodeOfRuntime[corr(18)], forward);
    QCOMPARE(tree.ruleOfRuntime[corr(18)], LaunchRule::EnclosingAnnotation);
    // The orphan kernel hangs under the root of the thread with ProfilerStep#.
    QCOMPARE(tree.orphanRoot, root100);
    QCOMPARE(tree.orphanActivities.size(), size_t(1));
    QCOMPARE(tree.nodeOfActivity(tree.orphanActivities[0]), root100);

    // Thread 200: the ops nest under the annotation; the straddling op stays, under aten::outer.
    const uint32_t outer = findNode(t, tree, "aten::outer", 200);
    const uint32_t straddle = findNode(t, tree, "aten::straddle", 200);
    QVERIFY(outer != kNoIndex && straddle != kNoIndex);
    QCOMPARE(tree.nodes[outer].parent, forward);
    QCOMPARE(tree.nodes[straddle].parent, outer);
    QVERIFY(tree.nodes[straddle].overflow);
    QCOMPARE(tree.overflowCount, 1u);
    // Operator set: the step is not an operator; ops are.
    QVERIFY(!tree.nodes[step].isOperator);
    QVERIFY(tree.nodes[fused].isOperator);
}

void TestPytorchOperators::treeTimes()
{
    const TracePtr trace = loadText(kMiniTrace);
    QVERIFY(trace);
    const OperatorTree tree = buildOperatorTree(*trace);
    const Trace &t = *trace;
    const OpNode &addmm = tree.nodes[findNode(t, tree, "aten::addmm", 100)];
    // 300 - runtimes 20 - 10; device 100 (TC gemm) + 50.
    QCOMPARE(addmm.hostTotal, 300 * kUs);
    QCOMPARE(addmm.hostSelf, 270 * kUs);
    QCOMPARE(addmm.deviceSelf, 150 * kUs);
    QCOMPARE(addmm.deviceTotal, 150 * kUs);
    QCOMPARE(addmm.tensorCoreSelf, 100 * kUs);
    QVERIFY(addmm.tensorCoreEligible);
    // 400 - child 300; the runtime on tid 200 is not host time of this thread. Device: own 21
    // (cross-thread launch) + child 150. Eligible through its child only.
    const OpNode &fused = tree.nodes[findNode(t, tree, "custom::fused", 100)];
    QCOMPARE(fused.hostSelf, 100 * kUs);
    QCOMPARE(fused.deviceSelf, 21 * kUs);
    QCOMPARE(fused.deviceTotal, 171 * kUs);
    QCOMPARE(fused.tensorCoreSelf, TimePs(0));
    QCOMPARE(fused.tensorCoreTotal, 100 * kUs);
    QVERIFY(fused.tensorCoreEligible);
    // Merged aten::to: 100 - child 60 - runtimes 3 and 5; device 7 + 4 own, + memcpy 30 below.
    const OpNode &to = tree.nodes[findNode(t, tree, "aten::to", 100)];
    QCOMPARE(to.hostTotal, 100 * kUs);
    QCOMPARE(to.hostSelf, 32 * kUs);
    QCOMPARE(to.deviceSelf, 11 * kUs);
    QCOMPARE(to.deviceTotal, 41 * kUs);
    QVERIFY(!to.tensorCoreEligible);
    const OpNode &toCopy = tree.nodes[findNode(t, tree, "aten::_to_copy", 100)];
    QCOMPARE(toCopy.hostSelf, 40 * kUs);
    QCOMPARE(toCopy.deviceSelf, 30 * kUs); // memcpy counts as device time
    // Driver launch of a TC kernel makes a non-listed op eligible.
    const OpNode &triton = tree.nodes[findNode(t, tree, "triton_op", 100)];
    QCOMPARE(triton.hostSelf, 40 * kUs);
    QCOMPARE(triton.deviceSelf, 40 * kUs);
    QVERIFY(triton.tensorCoreEligible);
    // 1:N graph launch: both kernels.
    const OpNode &graph = tree.nodes[findNode(t, tree, "graph_replay", 100)];
    QCOMPARE(graph.deviceSelf, 40 * kUs);
    // Step: 1000 - 400 - 100 - 50 - 50 - its own two launches 5 + 5; device = children
    // 171 + 41 + 40 + 40 + own launches 9 + 11.
    const OpNode &step = tree.nodes[findNode(t, tree, "ProfilerStep#1", 100)];
    QCOMPARE(step.hostSelf, 390 * kUs);
    QCOMPARE(step.deviceSelf, 20 * kUs);
    QCOMPARE(step.deviceTotal, 312 * kUs);
    // Root 100: the orphan 13.
    const OpNode &root100 = tree.nodes[tree.roots[0]];
    QCOMPARE(root100.deviceSelf, 13 * kUs);
    QCOMPARE(root100.deviceTotal, 325 * kUs);
    QCOMPARE(tree.nodes[tree.roots[1]].deviceSelf, TimePs(0));
    const OpNode &forward = tree.nodes[findNode(t, tree, "## forward ##", 200)];
    QCOMPARE(forward.deviceSelf, 6 * kUs);
    QCOMPARE(forward.hostSelf, (240 - 2 - 100 - 20) * kUs); // its launch, aten::outer, addmm
    // By rule: External id 150 + 30 + 7 + 4 + 21 + 40 + 40 = 292; the enclosing annotations
    // 9 + 11 + 6 = 26; no recorded launch 13.
    QCOMPARE(tree.deviceTimeByRule[size_t(LaunchRule::ExternalId)], 292 * kUs);
    QCOMPARE(tree.deviceTimeByRule[size_t(LaunchRule::EnclosingAnnotation)], 26 * kUs);
    QCOMPARE(tree.deviceTimeByRule[size_t(LaunchRule::EnclosingOperator)], TimePs(0));
    QCOMPARE(tree.deviceTimeWithoutLaunch, 13 * kUs);
    // Overflow: aten::outer is charged only the 50 µs of aten::straddle inside it.
    const OpNode &outer = tree.nodes[findNode(t, tree, "aten::outer", 200)];
    const OpNode &straddle = tree.nodes[findNode(t, tree, "aten::straddle", 200)];
    QCOMPARE(outer.hostSelf, 50 * kUs);
    QCOMPARE(straddle.hostSelf, 100 * kUs);
    // Every GPU activity is charged exactly once: 331 µs over both roots.
    QCOMPARE(root100.deviceTotal + tree.nodes[tree.roots[1]].deviceTotal, 331 * kUs);
}

void TestPytorchOperators::operatorView()
{
    const TracePtr trace = loadText(kMiniTrace);
    QVERIFY(trace);
    AnalysisCache cache(trace);
    const auto stats = operatorStats(cache);
    QVERIFY(stats->hasDeviceColumns);
    QCOMPARE(operatorStats(cache), stats); // cached
    const std::vector<OperatorRow> &rows = stats->byName;
    // Sorted by device self: addmm 150, graph_replay 40, triton_op 40 (ties by name),
    // _to_copy 30, custom::fused 21, aten::to 11, the annotation that launched 6, then the 0s
    // by name.
    QStringList names;
    for (const OperatorRow &r : rows)
        names << QString::fromStdString(r.opName);
    QCOMPARE(names, QStringList({"aten::addmm", "graph_replay", "triton_op", "aten::_to_copy",
                                 "custom::fused", "aten::to", "## forward ##", "aten::outer",
                                 "aten::straddle"}));
    QVERIFY(findRow(rows, "## forward ##")->annotation);
    QVERIFY(!findRow(rows, "aten::addmm")->annotation);
    QCOMPARE(stats->deviceUsByRule[size_t(LaunchRule::EnclosingAnnotation)], 26.0);
    QCOMPARE(stats->deviceUsWithoutLaunch, 13.0);
    const OperatorRow *addmm = findRow(rows, "aten::addmm");
    QCOMPARE(addmm->calls, int64_t(2));
    QCOMPARE(addmm->hostSelfUs, 290.0); // 270 + 20
    QCOMPARE(addmm->hostTotalUs, 320.0);
    QCOMPARE(addmm->deviceSelfUs, 150.0);
    QCOMPARE(addmm->deviceTotalUs, 150.0);
    QVERIFY(addmm->tensorCoreEligible);
    QCOMPARE(addmm->tensorCoreSelfPercent, 100.0 * 100.0 / 150.0);
    const OperatorRow *fused = findRow(rows, "custom::fused");
    QCOMPARE(fused->tensorCoreSelfPercent, 0.0);
    QCOMPARE(fused->tensorCoreTotalPercent, 100.0 * 100.0 / 171.0);
    QVERIFY(fused->tensorCoreEligible);
    const OperatorRow *to = findRow(rows, "aten::to");
    QCOMPARE(to->calls, int64_t(1)); // merged duplicate counted once
    QCOMPARE(findRow(rows, "aten::outer")->tensorCoreTotalPercent, 0.0);

    // By input shapes: the two aten::addmm split.
    const OperatorRow *big =
        findRow(stats->byNameInputShapes, "aten::addmm", "[[4,8],[4,16],[16,8]]");
    const OperatorRow *small = findRow(stats->byNameInputShapes, "aten::addmm", "[[2,2]]");
    QVERIFY(big && small);
    QCOMPARE(big->calls, int64_t(1));
    QCOMPARE(big->deviceSelfUs, 150.0);
    QCOMPARE(small->hostSelfUs, 20.0);
    QCOMPARE(small->deviceSelfUs, 0.0);
    QCOMPARE(stats->byNameInputShapes.size(), size_t(10));
    // By call stack: only the one op with a stack.
    QCOMPARE(stats->byNameCallStack.size(), size_t(1));
    QCOMPARE(stats->byNameCallStack[0].callStack, std::string("a.py(1): f;b.py(2): g"));
    QCOMPARE(stats->rows(OperatorGrouping::NameInputShapesCallStack).size(), size_t(1));
}

void TestPytorchOperators::realFixtures()
{
    // TRACEDESK_SHARED_FIXTURES already ends in fixtures/real.
    const QString dir = QString(TRACEDESK_SHARED_FIXTURES) + "/chrome_json/";
    if (!QDir(dir).exists())
        QSKIP(qPrintable("real fixtures missing: " + dir));
    const QSet<QString> nodeCats{"cpu_op", "operator", "user_annotation", "python_function",
                                 "python"};
    const QSet<QString> gpuCats{"kernel", "mtia_ccp_events", "gpu_memcpy",
                                "memcpy", "gpu_memset",      "memset"};
    int checked = 0;
    for (const QString &name : testsupport::kinetoFixtureNames()) {
        const QString path = dir + name;
        const QJsonObject root = testsupport::readFixtureObject(path);
        if (root.isEmpty()) {
            qWarning("raw JSON of %s does not parse with QJsonDocument; skipped", qPrintable(name));
            continue;
        }
        int64_t nodes = 0;
        int64_t gpuPs = 0;
        for (const QJsonValue &v : root.value("traceEvents").toArray()) {
            const QJsonObject e = v.toObject();
            if (e.value("ph").toString() != "X")
                continue;
            const QString cat = lowerCat(e);
            if (nodeCats.contains(cat))
                ++nodes;
            else if (gpuCats.contains(cat))
                gpuPs += std::llround(e.value("dur").toDouble() * 1e6);
        }
        LoadControl control;
        auto r = readChromeJson(path.toStdString(), &control, LoadOptions{});
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        const TracePtr trace = r.value();
        AnalysisCache cache(trace);
        const auto tree = operatorTree(cache);
        const auto stats = operatorStats(cache);
        QVERIFY2(int64_t(tree->index->nodes.size()) == nodes, qPrintable(name));
        // Every GPU activity is charged to exactly one node once some thread holds the orphans.
        if (tree->orphanRoot != kNoIndex || tree->orphanActivities.empty()) {
            TimePs device = 0;
            for (uint32_t rootNode : tree->roots)
                device += tree->nodes[rootNode].deviceTotal;
            QVERIFY2(std::llabs(device - gpuPs) <= int64_t(tree->index->activities.size()) * 1000,
                     qPrintable(
                         QString("%1: device %2 ps, raw %3 ps").arg(name).arg(device).arg(gpuPs)));
        }
        int64_t calls = 0;
        for (const OperatorRow &row : stats->byName) {
            calls += row.calls;
            QVERIFY(row.hostSelfUs <= row.hostTotalUs + 1e-9);
            QVERIFY(row.deviceSelfUs <= row.deviceTotalUs + 1e-9);
        }
        QVERIFY(calls <= nodes);
        for (const OpNode &n : tree->nodes)
            QVERIFY(n.hostSelf >= 0 && n.hostSelf <= n.hostTotal);
        ++checked;
    }
    QVERIFY(checked > 0);
}

QTEST_GUILESS_MAIN(TestPytorchOperators)
#include "tst_pytorchoperators.moc"
