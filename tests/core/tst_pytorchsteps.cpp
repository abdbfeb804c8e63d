// PyTorch steps (PYTORCH.md §2.2): tiny Kineto traces written here pin the host-step pick, the
// fallback step, the device-side adjustment (prev_end, GPU work past the host end, edge-crossing
// runtimes) and the tail trimming, with numbers worked out by hand from the rules; the real
// Kineto fixtures are checked against a count of host ProfilerStep#N events read with
// QJsonDocument.

#include "core/analysis/pytorch/pytorchsteps.h"
#include "core/io/chromejsonreader.h"
#include "support/kinetofixtures.h"

#include <QtTest>

#include <set>
#include <tuple>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis::pytorch;

namespace {

constexpr TimePs kUs = 1000000;

// One Kineto duration event; `args` is the inside of the args object.
std::string x(const char *cat, const char *name, int pid, int tid, double ts, double dur,
              const std::string &args = {})
{
    char buf[512];
    std::snprintf(
        buf, sizeof buf,
        R"({"ph":"X","cat":"%s","name":"%s","pid":%d,"tid":%d,"ts":%.3f,"dur":%.3f,"args":{%s}},)",
        cat, name, pid, tid, ts, dur, args.c_str());
    return buf;
}

std::string launch(double ts, double dur, int corr, int ext = 0)
{
    std::string args = "\"correlation\":" + std::to_string(corr);
    if (ext)
        args += ",\"External id\":" + std::to_string(ext);
    return x("cuda_runtime", "cudaLaunchKernel", 1, 1, ts, dur, args);
}

std::string kernel(double ts, double dur, int corr, int stream = 7, const char *cat = "kernel")
{
    return x(cat, "k", 0, stream, ts, dur,
             "\"device\":0,\"stream\":" + std::to_string(stream) +
                 ",\"correlation\":" + std::to_string(corr));
}

std::shared_ptr<Trace> load(std::string events)
{
    if (!events.empty() && events.back() == ',')
        events.pop_back();
    const std::string json =
        R"({"schemaVersion":1,"deviceProperties":[],"traceEvents":[)" + events + "]}";
    auto r = readChromeJsonBytes("tiny.json", json.data(), json.size(), nullptr, LoadOptions{});
    if (!r) {
        qWarning("%s", r.message().c_str());
        return nullptr;
    }
    return r.value();
}


const QStringList kKinetoPrefixes = {"kineto__resnet50", "tracelens__h100", "tracelens__b200",
                                     "hta__", "tracelens__mi300"};

} // namespace

class TestPyTorchSteps : public QObject
{
    Q_OBJECT

private slots:
    // Four host steps of 100 µs. Step 1's GPU work ends past its host end; a warm-up kernel that
    // ends before step 1's first kernel pushes step 1's start; a launch crossing step 1's end
    // counts for no step; step 3 has 1 activity against step 2's 2 (0.8 rule); step 4 none.
    void adjustmentAndTrimming()
    {
        std::string e;
        e += x("user_annotation", "ProfilerStep#1", 1, 1, 100, 100);
        e += x("user_annotation", "ProfilerStep#2", 1, 1, 200, 100);
        e += x("user_annotation", "ProfilerStep#3", 1, 1, 300, 100);
        e += x("user_annotation", "ProfilerStep#4", 1, 1, 400, 100);
        // Device-side copies of the step ranges: never steps.
        e += x("gpu_user_annotation", "ProfilerStep#1", 0, 9, 100, 130);
        e += x("gpu_user_annotation", "ProfilerStep#2", 0, 9, 230, 70);
        e += launch(50, 5, 1) + kernel(60, 50, 1);                   // warm-up: ends at 110
        e += launch(110, 10, 2) + kernel(120, 30, 2);                // step 1
        e += launch(150, 10, 3) + kernel(160, 70, 3);                // step 1, ends at 230 > 200
        e += launch(195, 10, 4) + kernel(240, 10, 4);                // crosses 200: no step
        e += launch(210, 10, 5) + kernel(260, 20, 5);                // step 2
        e += launch(220, 5, 6) + kernel(285, 5, 6, 7, "gpu_memcpy"); // step 2 (memcpy)
        e += launch(310, 10, 7) + kernel(320, 10, 7);                // step 3
        auto trace = load(e);
        QVERIFY(trace);
        const PyTorchSteps s = computePyTorchSteps(*trace);
        const TimePs o = trace->begin - 50 * kUs; // the earliest event is at 50 µs
        QCOMPARE(s.hostStepCount, 4u);
        QVERIFY(s.fromMarkers);
        QVERIFY(s.deviceAdjusted);
        // Last step with work is step 3 (index 2); 0.8 x 2 > 1 drops it too.
        QCOMPARE(s.trimmedSteps, 2u);
        QCOMPARE(s.steps.size(), size_t(2));
        QCOMPARE(s.steps[0].name, std::string("1"));
        QCOMPARE(s.steps[0].matchedActivities, 2u);
        QCOMPARE(s.steps[0].hostStart - o, 100 * kUs);
        QCOMPARE(s.steps[0].hostEnd - o, 200 * kUs);
        QCOMPARE(s.steps[0].start - o, 110 * kUs); // prev_end = warm-up kernel end
        QCOMPARE(s.steps[0].end - o, 230 * kUs);   // max(host end 200, device end 230)
        QCOMPARE(s.steps[1].name, std::string("2"));
        QCOMPARE(s.steps[1].matchedActivities, 2u);
        QCOMPARE(s.steps[1].start - o, 230 * kUs); // max(prev_end 230, host start 200)
        QCOMPARE(s.steps[1].end - o, 300 * kUs);   // device end 290 < host end 300
        QCOMPARE(s.allStart() - o, 110 * kUs);
        QCOMPARE(s.allEnd() - o, 300 * kUs);
    }

    // Same counts in the last step with work (no 0.8 drop); a trailing step without work goes.
    void trimmingKeepsFullLastStep()
    {
        std::string e;
        e += x("cpu_op", "ProfilerStep#7", 1, 1, 0, 100);
        e += x("cpu_op", "ProfilerStep#8", 1, 1, 100, 100);
        e += x("cpu_op", "ProfilerStep#9", 1, 1, 200, 100);
        e += launch(10, 5, 1) + kernel(20, 10, 1) + launch(20, 5, 2) + kernel(40, 10, 2);
        e += launch(110, 5, 3) + kernel(120, 10, 3) + launch(120, 5, 4) + kernel(140, 10, 4);
        e += launch(210, 5, 5) + kernel(290, 30, 5);
        auto trace = load(e);
        QVERIFY(trace);
        const PyTorchSteps s = computePyTorchSteps(*trace);
        // Step 9 has 1 activity, step 8 has 2: 1.6 > 1, so step 9 is dropped; 7 and 8 stay.
        QCOMPARE(s.steps.size(), size_t(2));
        QCOMPARE(s.trimmedSteps, 1u);
        QCOMPARE(s.steps[1].name, std::string("8"));

        // Now give step 9 two kernels (one launch, 1:N correlation): 1.6 <= 2, all kept, and
        // step 9 ends with its last kernel.
        e += kernel(320, 15, 5, 8);
        trace = load(e);
        QVERIFY(trace);
        const PyTorchSteps t = computePyTorchSteps(*trace);
        const TimePs o = trace->begin;
        QCOMPARE(t.steps.size(), size_t(3));
        QCOMPARE(t.trimmedSteps, 0u);
        QCOMPARE(t.steps[2].matchedActivities, 2u);
        QCOMPARE(t.steps[2].start - o, 200 * kUs);
        QCOMPARE(t.steps[2].end - o, 335 * kUs);
    }

    // No GPU work matched: host boundaries stay, nothing is trimmed.
    void noDeviceWork()
    {
        std::string e;
        e += x("user_annotation", "ProfilerStep#0", 1, 1, 0, 50);
        e += x("user_annotation", "ProfilerStep#1", 1, 1, 60, 40);
        e += x("cpu_op", "aten::add", 1, 1, 10, 5);
        auto trace = load(e);
        QVERIFY(trace);
        const PyTorchSteps s = computePyTorchSteps(*trace);
        QVERIFY(!s.deviceAdjusted);
        QCOMPARE(s.steps.size(), size_t(2));
        QCOMPARE(s.steps[1].start - trace->begin, 60 * kUs);
        QCOMPARE(s.steps[1].end - trace->begin, 100 * kUs);
    }

    // No ProfilerStep on the host (only a device-side copy): one step "0" over the CPU ops,
    // widened by the GPU work its runtimes launched. User annotations do not widen it.
    void fallbackStep()
    {
        std::string e;
        e += x("user_annotation", "outer", 1, 1, 0, 200);
        e += x("cpu_op", "aten::mm", 1, 1, 10, 40);
        e += x("cpu_op", "aten::add", 1, 1, 60, 30);
        e += x("gpu_user_annotation", "ProfilerStep#3", 0, 9, 0, 150);
        e += launch(20, 5, 1) + kernel(30, 90, 1);
        auto trace = load(e);
        QVERIFY(trace);
        const PyTorchSteps s = computePyTorchSteps(*trace);
        QVERIFY(!s.fromMarkers);
        QCOMPARE(s.hostStepCount, 0u);
        QCOMPARE(s.steps.size(), size_t(1));
        QCOMPARE(s.steps[0].name, std::string("0"));
        QCOMPARE(s.steps[0].hostStart - trace->begin, 10 * kUs);
        QCOMPARE(s.steps[0].hostEnd - trace->begin, 90 * kUs);
        QCOMPARE(s.steps[0].end - trace->begin, 120 * kUs);
    }

    void realFixtures()
    {
        const QDir dir(QStringLiteral(TRACEDESK_SHARED_FIXTURES) + "/chrome_json");
        if (!dir.exists())
            QSKIP("shared real fixtures (chrome_json/) are not available");
        int checked = 0;
        for (const QString &file : dir.entryList(QDir::Files, QDir::Name)) {
            if (!std::any_of(kKinetoPrefixes.begin(), kKinetoPrefixes.end(),
                             [&](const QString &p) { return file.startsWith(p); }))
                continue;
            const QByteArray bytes = testsupport::readMaybeGzip(dir.filePath(file));
            QVERIFY2(!bytes.isEmpty(), qPrintable(file));
            const QJsonArray events =
                QJsonDocument::fromJson(bytes).object().value("traceEvents").toArray();
            std::set<std::tuple<QString, QString, double, QString>> hostSteps;
            int cpuOps = 0;
            std::multiset<std::pair<QString, long long>> annotations; // (name, dur in ns)
            const QRegularExpression stepName("^ProfilerStep#\\d+$");
            for (const QJsonValue &v : events) {
                const QJsonObject o = v.toObject();
                const QString cat = o.value("cat").toString().toLower();
                if (o.value("ph").toString() != "X")
                    continue;
                const bool cpu = cat == "cpu_op" || cat == "operator";
                cpuOps += cpu ? 1 : 0;
                if (cat == "user_annotation")
                    annotations.insert({o.value("name").toString(),
                                        std::llround(o.value("dur").toDouble() * 1000)});
                if ((cpu || cat == "user_annotation") &&
                    stepName.match(o.value("name").toString()).hasMatch())
                    hostSteps.insert({o.value("pid").toVariant().toString(),
                                      o.value("tid").toVariant().toString(),
                                      o.value("ts").toDouble(), o.value("name").toString()});
            }
            auto trace = readChromeJson(dir.filePath(file).toStdString(), nullptr, LoadOptions{});
            QVERIFY2(trace, qPrintable(file));
            const PyTorchSteps s = computePyTorchSteps(*trace.value());
            QVERIFY2(s.hostStepCount == hostSteps.size(),
                     qPrintable(file + ": host steps " + QString::number(s.hostStepCount) + " vs " +
                                QString::number(hostSteps.size())));
            if (!hostSteps.empty()) {
                QVERIFY2(s.steps.size() + s.trimmedSteps == hostSteps.size(), qPrintable(file));
                QVERIFY2(!s.steps.empty(), qPrintable(file));
            } else if (s.fromIterations) {
                // Serving iterations: each is a user annotation of the file, its host span as
                // written (ts, dur in µs).
                for (const PyTorchStep &step : s.steps) {
                    const double durUs = double(step.hostDuration()) / 1e6;
                    QVERIFY2(annotations.count({QString::fromStdString(step.iterationLabel),
                                                std::llround(durUs * 1000)}) > 0,
                             qPrintable(file + ": " + QString::fromStdString(step.iterationLabel)));
                }
                QVERIFY2(!s.steps.empty(), qPrintable(file));
            } else {
                QVERIFY2(s.steps.size() == (cpuOps > 0 ? 1u : 0u), qPrintable(file));
            }
            for (size_t i = 0; i < s.steps.size(); ++i) {
                QVERIFY2(s.steps[i].start <= s.steps[i].end, qPrintable(file));
                if (i > 0)
                    QVERIFY2(s.steps[i - 1].end <= s.steps[i].start, qPrintable(file));
            }
            ++checked;
        }
        QVERIFY(checked >= 5);
    }
};

QTEST_GUILESS_MAIN(TestPyTorchSteps)
#include "tst_pytorchsteps.moc"
