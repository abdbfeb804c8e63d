// Comparing two PyTorch profiler traces (core/compare/pytorchcomparison.h, `diff`): the
// expectations are counted from the raw JSON of the pairs in ../shared/fixtures/real/pairs:
// operator names in both files, each operator's GPU time by its launches, the ProfilerStep
// numbers the files share.

#include "support/clirun.h"
#include "support/compressbytes.h"
#include "support/kinetofixtures.h"
#include "support/rawoperators.h"

#include "core/analysis/analysiscache.h"
#include "core/compare/tracecomparison.h"
#include "core/io/traceloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

using namespace tracedesk::core;
using namespace tracedesk::core::compare;

namespace {

const QString kPairs = QString(TRACEDESK_SHARED_FIXTURES) + "/pairs/";
const QString kH100 = kPairs + "tracelens__falconsai_h100_vs_mi300/"
                               "h100__Falconsai_nsfw_image_detection__1016002.json.gz";
const QString kMi300 = kPairs + "tracelens__falconsai_h100_vs_mi300/"
                                "mi300__Falconsai_nsfw_image_detection__1016002.json.gz";
const QString kControl = kPairs + "hta__trace_diff/control.json.gz";
const QString kTest = kPairs + "hta__trace_diff/test.json.gz";

QJsonObject diffJson(const QStringList &args)
{
    const clitest::CliRun run = clitest::runCli(QStringList{"diff"} + args + QStringList{"--json"});
    if (run.exitCode != 0)
        qWarning("diff failed: %s", run.err.constData());
    return QJsonDocument::fromJson(run.out).object();
}

std::map<QString, QJsonObject> rowsByName(const QJsonObject &diff)
{
    std::map<QString, QJsonObject> rows;
    for (const QJsonValue &v : diff.value("operators").toArray()) {
        const QJsonObject r = v.toObject();
        if (r.value("calls_a").toInteger() > 0)
            rows.emplace(r.value("op_name").toString(), r);
        if (r.value("calls_b").toInteger() > 0)
            rows.emplace("B:" + r.value("op_name_b").toString(), r);
    }
    return rows;
}

// Every operator both files name is matched by name, and its device time on each side is what
// the operator's launches ran, counted from the file.
void checkOperators(const QJsonObject &diff, const testsupport::RawOperators &a, const testsupport::RawOperators &b)
{
    const std::map<QString, QJsonObject> rows = rowsByName(diff);
    int inBoth = 0;
    for (const QString &name : a.operatorNames) {
        if (!b.operatorNames.count(name))
            continue;
        ++inBoth;
        auto it = rows.find(name);
        QVERIFY2(it != rows.end(), qPrintable(name));
        QCOMPARE(it->second.value("match").toString(), QString("name"));
        const double rawA = a.deviceUs.count(name) ? a.deviceUs.at(name) : 0.0;
        const double rawB = b.deviceUs.count(name) ? b.deviceUs.at(name) : 0.0;
        const double codeA = it->second.value("device_self_us_a").toDouble();
        const double codeB = it->second.value("device_self_us_b").toDouble();
        QVERIFY2(qAbs(codeA - rawA) < 1e-3 && qAbs(codeB - rawB) < 1e-3,
                 qPrintable(QString("%1: A %2 (file %3), B %4 (file %5)")
                                .arg(name)
                                .arg(codeA)
                                .arg(rawA)
                                .arg(codeB)
                                .arg(rawB)));
        QVERIFY(qAbs(it->second.value("delta_us").toDouble() - (rawB - rawA)) < 2e-3);
    }
    QVERIFY(inBoth > 0);
    QCOMPARE(diff.value("operator_match").toObject().value("matched_by_name").toInt(), inBoth);
}

} // namespace

class TestPyTorchCompare : public QObject
{
    Q_OBJECT

private slots:
    void crossVendorOperatorsAndSteps()
    {
        TRACEDESK_REQUIRE_FIXTURE(kH100);
        TRACEDESK_REQUIRE_FIXTURE(kMi300);
        const testsupport::RawOperators a = testsupport::rawOperators(kH100), b = testsupport::rawOperators(kMi300);
        const QJsonObject diff = diffJson({kH100, kMi300});
        QCOMPARE(diff.value("framework").toString(), QString("pytorch"));
        checkOperators(diff, a, b);

        // The convolution runs as cuDNN on one and MIOpen on the other: the names exist on one
        // side each and meet through their place under aten::_convolution.
        std::set<QString> onlyA, onlyB;
        for (const QString &n : a.operatorNames)
            if (!b.operatorNames.count(n))
                onlyA.insert(n);
        for (const QString &n : b.operatorNames)
            if (!a.operatorNames.count(n))
                onlyB.insert(n);
        QVERIFY(onlyA.count("aten::cudnn_convolution"));
        QVERIFY(onlyB.count("aten::miopen_convolution"));
        const auto rows = rowsByName(diff);
        const QJsonObject conv = rows.at("aten::cudnn_convolution");
        QCOMPARE(conv.value("match").toString(), QString("call_path"));
        QCOMPARE(conv.value("op_name_b").toString(), QString("aten::miopen_convolution"));
        QVERIFY(conv.value("call_path").toString().endsWith("aten::_convolution"));
        // Kernels meet through the operator and their family.
        bool convolutionFamilyOnBoth = false;
        for (const QJsonValue &f : conv.value("families").toArray()) {
            const QJsonObject o = f.toObject();
            convolutionFamilyOnBoth |=
                o.value("count_a").toInt() > 0 && o.value("count_b").toInt() > 0;
        }
        QVERIFY(convolutionFamilyOnBoth);
        double kernelsA = 0;
        for (const QJsonValue &k : conv.value("kernels_a").toArray())
            kernelsA += k.toObject().value("time_us").toDouble();
        QVERIFY(qAbs(kernelsA - a.deviceUs.at("aten::cudnn_convolution")) < 1e-3);
        const QJsonObject m = diff.value("operator_match").toObject();
        QCOMPARE(m.value("matched_by_call_path").toInt(), 1);
        QCOMPARE(m.value("only_a").toInt(), int(onlyA.size()) - 1);
        QCOMPARE(m.value("only_b").toInt(), int(onlyB.size()) - 1);

        // Steps pair by number: the one step both files have, with the delta of the two
        // traces' own Overview step times.
        QCOMPARE(a.stepNames, b.stepNames);
        const QJsonArray steps = diff.value("steps").toArray();
        QCOMPARE(steps.size(), qsizetype(a.stepNames.size()));
        QCOMPARE(QString("ProfilerStep#%1").arg(steps[0].toObject().value("step").toInt()),
                 *a.stepNames.begin());
        auto overviewStep = [](const QString &path) {
            const clitest::CliRun run = clitest::runCli({"overview", path, "--json"});
            return QJsonDocument::fromJson(run.out)
                .object()
                .value("average_step_time_ms")
                .toDouble();
        };
        const double stepA = overviewStep(kH100), stepB = overviewStep(kMi300);
        QVERIFY(stepA > 0 && stepB > 0);
        QVERIFY(qAbs(diff.value("average_step_time_ms_a").toDouble() - stepA) < 1e-9);
        QVERIFY(qAbs(diff.value("average_step_time_delta_ms").toDouble() - (stepB - stepA)) < 1e-9);
        const QJsonObject s0 = steps[0].toObject();
        double categories = 0;
        for (const char *k : {"kernel", "memcpy", "memset", "communication", "runtime",
                              "dataloader", "cpu_exec", "other"})
            categories += s0.value(QString(k) + "_ms_a").toDouble();
        QVERIFY(qAbs(categories - s0.value("step_time_ms_a").toDouble()) < 1e-6);

        QVERIFY(diff.value("gpu_metrics_a").toObject().value("name").toString().contains("H100"));
        QVERIFY(diff.value("gpu_metrics_b").toObject().value("name").toString().contains("MI300"));
    }

    void twoRunsOperators()
    {
        TRACEDESK_REQUIRE_FIXTURE(kControl);
        TRACEDESK_REQUIRE_FIXTURE(kTest);
        const testsupport::RawOperators a = testsupport::rawOperators(kControl), b = testsupport::rawOperators(kTest);
        const QJsonObject diff = diffJson({kControl, kTest});
        checkOperators(diff, a, b);
        // Six ProfilerSteps with the same numbers in both runs, paired by number.
        QCOMPARE(a.stepNames, b.stepNames);
        const QJsonArray steps = diff.value("steps").toArray();
        QCOMPARE(steps.size(), qsizetype(a.stepNames.size()));
        std::set<QString> paired;
        for (const QJsonValue &s : steps)
            paired.insert(QString("ProfilerStep#%1").arg(s.toObject().value("step").toInt()));
        QCOMPARE(paired, a.stepNames);
        // Operators only one run has are listed as added / removed.
        const auto rows = rowsByName(diff);
        QCOMPARE(rows.at("B:CompiledFunction").value("match").toString(), QString("unmatched"));
        QCOMPARE(rows.at("B:CompiledFunction").value("change").toString(), QString("added"));
    }

    // A copy of A with every time stretched by 30 %: its step time is 30 % longer, the gate trips
    // at 10 % and holds at 40 %.
    void gateOnStepTime()
    {
        TRACEDESK_REQUIRE_FIXTURE(kH100);
        QJsonObject doc = testsupport::readFixtureObject(kH100);
        QJsonArray events = doc.value("traceEvents").toArray();
        for (qsizetype i = 0; i < events.size(); ++i) {
            QJsonObject e = events[i].toObject();
            for (const char *key : {"ts", "dur"}) {
                if (e.contains(key))
                    e.insert(key, e.value(key).toDouble() * 1.3);
            }
            events[i] = e;
        }
        doc.insert("traceEvents", events);
        QTemporaryDir dir;
        const QString slow = dir.filePath("slow.pt.trace.json");
        QFile f(slow);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(doc).toJson(QJsonDocument::Compact));
        f.close();

        const QJsonObject diff = diffJson({kH100, slow});
        const double pct = diff.value("average_step_time_delta_percent").toDouble();
        QVERIFY2(qAbs(pct - 30.0) < 0.5, qPrintable(QString::number(pct)));
        QCOMPARE(clitest::runCli({"diff", kH100, slow, "--fail-if-slower", "10"}).exitCode, 3);
        QCOMPARE(clitest::runCli({"diff", kH100, slow, "--fail-if-slower", "40"}).exitCode, 0);
    }

    // The plain-words summary reads the matched operators: the convolution moved from cuDNN to
    // MIOpen, it is not gone on one side and new on the other.
    void summaryFollowsTheMatch()
    {
        TRACEDESK_REQUIRE_FIXTURE(kH100);
        TRACEDESK_REQUIRE_FIXTURE(kMi300);
        auto a = loadTrace(kH100.toStdString()), b = loadTrace(kMi300.toStdString());
        QVERIFY(a && b);
        analysis::AnalysisCache ca(a.value()), cb(b.value());
        const TraceComparison c = compareTraces(ca, cb);
        std::string text;
        for (const std::string &line : summaryLines(c, OpLevel::Framework, 10))
            text += line + "\n";
        QVERIFY2(text.find("aten::cudnn_convolution <-> aten::miopen_convolution")
                     != std::string::npos,
                 text.c_str());
        QVERIFY2(text.find("is gone in B") == std::string::npos, text.c_str());
    }

    // The comparison the window shows: the step selector pairs ProfilerStep numbers and the op
    // diff has the operators' device rows.
    void comparisonForTheWindow()
    {
        TRACEDESK_REQUIRE_FIXTURE(kControl);
        TRACEDESK_REQUIRE_FIXTURE(kTest);
        auto a = loadTrace(kControl.toStdString()), b = loadTrace(kTest.toStdString());
        QVERIFY(a && b);
        analysis::AnalysisCache ca(a.value()), cb(b.value());
        const TraceComparison c = compareTraces(ca, cb);
        QVERIFY(c.pytorch);
        QVERIFY(c.alignment.byStep);
        QCOMPARE(c.steps.pairs.size(), size_t(6));
        QCOMPARE(c.steps.pairs[0].nameA, c.steps.pairs[0].nameB);
        // The alignment puts the first pair's starts at one x.
        QCOMPARE(c.alignment.anchorA, c.steps.pairs[0].beginA);
        QCOMPARE(c.alignment.anchorB, c.steps.pairs[0].beginB);
        const testsupport::RawOperators raw = testsupport::rawOperators(kControl);
        bool found = false;
        for (const OpDiffRow &r : c.diff(OpLevel::Framework).rows) {
            if (r.name == "aten::mm" && r.where == kWhereDevice) {
                found = true;
                QVERIFY(qAbs(double(r.selfA) / 1e6 - raw.deviceUs.at("aten::mm")) < 1e-2);
            }
        }
        QVERIFY(found);
        QCOMPARE(c.gate.what, std::string("average step time"));
    }
};

QTEST_GUILESS_MAIN(TestPyTorchCompare)
#include "tst_pytorchcompare.moc"
