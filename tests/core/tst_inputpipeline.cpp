// Input pipeline: input-op categories, the InputTimeBreakdown formulas on hand numbers, and the
// input ops of the real GPU file against an independent count of its tf.data events.

#include "core/analysis/inputpipeline.h"
#include "core/io/traceloader.h"

#include "xplane.pb.h"

#include <QtTest>

#include <fstream>
#include <map>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

namespace {
OpMetrics op(const std::string &name, const std::string &category, TimePs self = 0)
{
    OpMetrics m;
    m.name = name;
    m.category = category;
    m.selfTimePs = self;
    m.timePs = self;
    m.occurrences = 1;
    return m;
}
} // namespace

class TestInputPipeline : public QObject
{
    Q_OBJECT

private slots:
    void categories();
    void breakdownFormulas();
    void opDetailsPercentages();
    void gpuFixtureInputOps();
};

void TestInputPipeline::categories()
{
    QCOMPARE(inputOpCategory(op("InfeedEnqueueTuple", "InfeedEnqueueTuple")), std::string(kInputEnqueue));
    QCOMPARE(inputOpCategory(op("MEMCPYHToD", "MemcpyHToD")), std::string(kInputEnqueue));
    QCOMPARE(inputOpCategory(op("Iterator::Root::TFRecord", "Dataset")), std::string(kInputDemandedFileRead));
    QCOMPARE(inputOpCategory(op("Iterator::Prefetch::TFRecord", "Dataset")), std::string(kInputAdvancedFileRead));
    QCOMPARE(inputOpCategory(op("Iterator::Interleave::ArrayRecord", "Dataset")), std::string(kInputAdvancedFileRead));
    QCOMPARE(inputOpCategory(op("Iterator::Map", "Dataset")), std::string(kInputPreprocessing));
    QCOMPARE(inputOpCategory(op("x", "enqueue")), std::string(kInputEnqueue));
    QCOMPARE(inputOpCategory(op("x", "read")), std::string(kInputDemandedFileRead));
    QCOMPARE(inputOpCategory(op("x", "preprocessing")), std::string(kInputPreprocessing));
    QCOMPARE(inputOpCategory(op("x", "unknown")), std::string(kInputUnknown));
    QVERIFY(inputOpCategory(op("IteratorGetNext", "IteratorGetNext")).empty());
    QVERIFY(inputOpCategory(op("model/MatMul", "MatMul")).empty());
}

void TestInputPipeline::breakdownFormulas()
{
    std::vector<InputOpDetails> ops = {
        {"e", 1, 0, 0, 0.4, 0, kInputEnqueue},           // 400 us
        {"d", 1, 0, 0, 0.1, 0, kInputDemandedFileRead},  // 100 us
        {"a", 1, 0, 0, 0.3, 0, kInputAdvancedFileRead},  // 300 us
        {"p", 1, 0, 0, 0.6, 0, kInputPreprocessing},     // 600 us
    };
    // r = 2 / 10 = 0.2 -> non-enqueue = 400 x 0.8 / 0.2 = 1600 us, split 1:3:6 of 1000.
    InputTimeBreakdown b = inputTimeBreakdown(ops, 2.0, 10.0);
    QCOMPARE(b.enqueueUs, 400.0);
    QVERIFY(std::abs(b.demandedFileReadUs - 160.0) < 1e-9);
    QVERIFY(std::abs(b.advancedFileReadUs - 480.0) < 1e-9);
    QVERIFY(std::abs(b.preprocessingUs - 960.0) < 1e-9);
    QVERIFY(std::abs(b.unclassifiedNonEnqueueUs) < 1e-9);
    // r = 0 -> non-enqueue = the three categories' total, unscaled.
    b = inputTimeBreakdown(ops, 0.0, 10.0);
    QVERIFY(std::abs(b.demandedFileReadUs - 100.0) < 1e-9);
    QVERIFY(std::abs(b.preprocessingUs - 600.0) < 1e-9);
    // Ratio capped at 1 -> non-enqueue 0.
    b = inputTimeBreakdown(ops, 20.0, 10.0);
    QCOMPARE(b.demandedFileReadUs + b.advancedFileReadUs + b.preprocessingUs, 0.0);
    // No file/preprocessing ops: everything non-enqueue is unclassified.
    b = inputTimeBreakdown({ops[0]}, 2.0, 10.0);
    QVERIFY(std::abs(b.unclassifiedNonEnqueueUs - 1600.0) < 1e-9);
}

void TestInputPipeline::opDetailsPercentages()
{
    OpMetricsDb db;
    db.metrics = {op("Iterator::Map", "Dataset", 3000000000), op("MatMul", "MatMul", 9000000000),
                  op("Iterator::Root::TFRecord", "Dataset", 1000000000), op("IDLE", "IDLE", 5)};
    const auto details = inputOpDetails(db);
    QCOMPARE(details.size(), size_t(2));
    QCOMPARE(details[0].opName, std::string("Iterator::Map"));
    QCOMPARE(details[0].selfTimeMs, 3.0);
    QCOMPARE(details[0].selfTimePercent, 75.0);
    QCOMPARE(details[1].selfTimePercent, 25.0);
    QCOMPARE(details[1].category, std::string(kInputDemandedFileRead));
}

void TestInputPipeline::gpuFixtureInputOps()
{
    const QString path = QStringLiteral(TRACEDESK_SHARED_FIXTURES)
                         + "/xspace/xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";
    if (!QFile::exists(path))
        QSKIP("shared GPU fixture not found (shared/fixtures/real)");
    // Independent: every host event whose name starts with "Iterator::" is a dataset op.
    tensorflow::profiler::XSpace space;
    std::ifstream in(path.toStdString(), std::ios::binary);
    QVERIFY(space.ParseFromIstream(&in));
    std::map<std::string, int64_t> expected;
    for (const auto &p : space.planes()) {
        if (p.name() != "/host:CPU")
            continue;
        for (const auto &l : p.lines())
            for (const auto &e : l.events()) {
                const std::string &n = p.event_metadata().at(e.metadata_id()).name();
                if (n.rfind("Iterator::", 0) == 0)
                    ++expected[n];
            }
    }
    QVERIFY(!expected.empty());
    auto trace = loadTrace(path.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    auto a = inputPipeline(cache);
    std::map<std::string, int64_t> got;
    double percent = 0;
    for (const InputOpDetails &d : a->inputOps) {
        got[d.opName] += d.count;
        QCOMPARE(d.category, std::string(kInputPreprocessing));
        percent += d.selfTimePercent;
    }
    QCOMPARE(got, expected);
    QVERIFY(std::abs(percent - 100.0) < 1e-9);
    QVERIFY(a->inputTimeBreakdown.preprocessingUs > 0);
    QCOMPARE(a->generic.steps.size(), stepDb(cache)->steps.size());
    QCOMPARE(a->bottleneck.inputClassification == "host" || a->bottleneck.inputClassification == "both",
             a->inputBound());
}

QTEST_GUILESS_MAIN(TestInputPipeline)
#include "tst_inputpipeline.moc"
