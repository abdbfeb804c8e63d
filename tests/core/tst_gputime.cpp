// The GPU time breakdowns (HolisticTraceAnalysis's definitions, PYTORCH.md §3) on real Kineto
// traces, each expectation derived here from the raw JSON: interval unions of the GPU events,
// gaps classified by the stated thresholds with the launch found by correlation id, and the
// launch queue replayed from the launch calls and their kernels' starts.

#include "core/analysis/gputime/gputime.h"
#include "core/io/traceloader.h"
#include "support/clirun.h"
#include "support/kinetofixtures.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

namespace {

const QString kAlexnet =
    QString(TRACEDESK_SHARED_FIXTURES)
    + "/chrome_json/hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz";
const QString kResnet = QString(TRACEDESK_SHARED_FIXTURES)
                        + "/chrome_json/kineto__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz";

struct Ev
{
    double ts = 0, end = 0;
    QString name, cat;
    qint64 device = 0, stream = 0, correlation = -1;
};

struct Raw
{
    std::vector<Ev> gpu;                  // kernels, memcpys, memsets
    std::map<qint64, Ev> runtimeByCorrelation;
};

Raw readRaw(const QString &path)
{
    static const std::set<QString> gpuCats = {"kernel", "Kernel", "gpu_memcpy", "Memcpy",
                                              "gpu_memset", "Memset"};
    Raw raw;
    for (const QJsonValue &v : testsupport::readFixtureObject(path).value("traceEvents").toArray()) {
        const QJsonObject e = v.toObject();
        if (e.value("ph").toString() != "X")
            continue;
        const QJsonObject args = e.value("args").toObject();
        Ev ev;
        ev.ts = e.value("ts").toDouble();
        ev.end = ev.ts + e.value("dur").toDouble();
        ev.name = e.value("name").toString();
        ev.cat = e.value("cat").toString();
        ev.device = args.value("device").toInteger(0);
        ev.stream = args.value("stream").toInteger(-1);
        ev.correlation = args.value("correlation").toInteger(-1);
        if (gpuCats.count(ev.cat))
            raw.gpu.push_back(ev);
        else if ((ev.cat == "cuda_runtime" || ev.cat == "cuda_driver" || ev.cat == "Runtime")
                 && ev.correlation >= 0)
            raw.runtimeByCorrelation.emplace(ev.correlation, ev);
    }
    return raw;
}

// Total length of the union of [ts, end) ranges.
double unionLength(std::vector<std::pair<double, double>> r)
{
    std::sort(r.begin(), r.end());
    double total = 0, start = 0, end = -1;
    bool open = false;
    for (const auto &[s, e] : r) {
        if (!open || s > end) {
            if (open)
                total += end - start;
            start = s;
            end = e;
            open = true;
        } else {
            end = std::max(end, e);
        }
    }
    return open ? total + end - start : 0.0;
}

bool isCompute(const Ev &e)
{
    return (e.cat == "kernel" || e.cat == "Kernel") && !e.name.startsWith("nccl")
           && !e.name.contains("ncclKernel");
}

} // namespace

class TestGpuTime : public QObject
{
    Q_OBJECT

private slots:
    // Kernels by name within each type, from the raw events: per name the count and the sum,
    // max, min, mean and sample std of its durations; past ten names, HTA's cut (the running
    // totals' 0.8 quantile, linear interpolation) and one "others" row of the rest.
    void kernelsByName()
    {
        TRACEDESK_REQUIRE_FIXTURE(kResnet);
        const Raw raw = readRaw(kResnet);
        struct Stat
        {
            qint64 count = 0;
            double sum = 0, max = 0, min = 1e300;
            std::vector<double> durations;
        };
        std::map<QString, std::map<QString, Stat>> byType;
        for (const Ev &g : raw.gpu) {
            const QString type = isCompute(g) ? "COMPUTATION" : "MEMORY";
            Stat &st = byType[type][g.name];
            const double d = g.end - g.ts;
            ++st.count;
            st.sum += d;
            st.max = std::max(st.max, d);
            st.min = std::min(st.min, d);
            st.durations.push_back(d);
        }
        auto load = loadTrace(kResnet.toStdString());
        QVERIFY(load);
        const auto index = pytorch::buildKinetoIndex(*load.value());
        const auto report = gputime::gpuTimeReport(*load.value(), index);
        size_t row = 0;
        for (const QString type : {"COMPUTATION", "MEMORY"}) {
            std::vector<std::pair<QString, Stat>> names(byType[type].begin(), byType[type].end());
            std::stable_sort(names.begin(), names.end(), [](const auto &a, const auto &b) {
                return a.second.sum > b.second.sum;
            });
            size_t kept = names.size();
            if (names.size() > 10) {
                std::vector<double> running;
                double total = 0;
                for (const auto &n : names)
                    running.push_back(total += n.second.sum);
                const double position = 0.8 * double(running.size() - 1);
                const size_t lo = size_t(position);
                const double limit = running[lo] + (running[lo + 1] - running[lo]) * (position - double(lo));
                kept = 0;
                while (kept < 10 && running[kept] <= limit)
                    ++kept;
            }
            Stat others;
            for (size_t i = 0; i < names.size(); ++i) {
                if (i >= kept) {
                    others.count += names[i].second.count;
                    others.sum += names[i].second.sum;
                    others.max = std::max(others.max, names[i].second.max);
                    others.min = std::min(others.min, names[i].second.min);
                    continue;
                }
                QVERIFY(row < report.kernelNames.size());
                const gputime::KernelNameTime &k = report.kernelNames[row++];
                const Stat &st = names[i].second;
                QCOMPARE(QString::fromStdString(k.type), type);
                QCOMPARE(QString::fromStdString(k.name), names[i].first);
                QCOMPARE(k.count, st.count);
                QVERIFY(std::abs(k.sumUs - st.sum) < 1e-3);
                QVERIFY(std::abs(k.maxUs - st.max) < 1e-6 && std::abs(k.minUs - st.min) < 1e-6);
                QVERIFY(std::abs(k.meanUs - st.sum / double(st.count)) < 1e-6);
                double squares = 0;
                for (double d : st.durations)
                    squares += (d - k.meanUs) * (d - k.meanUs);
                const double std = st.count > 1 ? std::sqrt(squares / double(st.count - 1)) : 0;
                QVERIFY2(std::abs(k.stdUs - std) < 1e-6 * std::max(1.0, std),
                         qPrintable(QString("%1 vs %2").arg(k.stdUs).arg(std)));
            }
            if (others.count) {
                QVERIFY(row < report.kernelNames.size());
                const gputime::KernelNameTime &k = report.kernelNames[row++];
                QCOMPARE(QString::fromStdString(k.name), QString("others"));
                QCOMPARE(k.count, others.count);
                QVERIFY(std::abs(k.sumUs - others.sum) < 1e-3);
                QCOMPARE(k.maxUs, others.max);
                QCOMPARE(k.minUs, others.min);
            }
        }
        QCOMPARE(row, report.kernelNames.size());
    }

    void temporalAndIdle_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("alexnet") << kAlexnet;
        QTest::newRow("resnet50") << kResnet;
    }

    void temporalAndIdle()
    {
        QFETCH(QString, path);
        TRACEDESK_REQUIRE_FIXTURE(path);
        const Raw raw = readRaw(path);
        QVERIFY(!raw.gpu.empty());
        auto loaded = loadTrace(path.toStdString());
        QVERIFY(loaded);
        const Trace &trace = *loaded.value();
        const auto index = pytorch::buildKinetoIndex(trace);
        const gputime::GpuTimeReport report = gputime::gpuTimeReport(trace, index);

        // Temporal breakdown per device.
        std::map<qint64, std::vector<const Ev *>> byDevice;
        for (const Ev &e : raw.gpu)
            byDevice[e.device].push_back(&e);
        QCOMPARE(report.temporal.size(), byDevice.size());
        for (const gputime::TemporalBreakdown &t : report.temporal) {
            const auto &events = byDevice.at(t.device);
            std::vector<std::pair<double, double>> all, compute;
            double first = events.front()->ts, last = events.front()->end;
            for (const Ev *e : events) {
                all.push_back({e->ts, e->end});
                if (isCompute(*e))
                    compute.push_back({e->ts, e->end});
                first = std::min(first, e->ts);
                last = std::max(last, e->end);
            }
            const double total = last - first;
            const double idle = total - unionLength(all);
            QVERIFY2(std::abs(t.totalUs - total) < 0.01, qPrintable(QString::number(t.totalUs - total)));
            QVERIFY(std::abs(t.idleUs - idle) < 0.5);
            QVERIFY(std::abs(t.computeUs - unionLength(compute)) < 0.5);
            QVERIFY(std::abs(t.idlePct() - 100.0 * idle / total) < 0.01);
            QVERIFY(std::abs(t.nonComputeUs - (total - unionLength(compute) - idle)) < 1.0);
        }

        // Idle gaps per stream, classified by the launch's time and the 30 us threshold.
        std::map<std::pair<qint64, qint64>, std::vector<const Ev *>> byStream;
        for (const Ev &e : raw.gpu)
            byStream[{e.device, e.stream}].push_back(&e);
        QCOMPARE(report.idle.size(), byStream.size());
        for (const gputime::IdleBreakdown &row : report.idle) {
            auto events = byStream.at({row.device, row.stream});
            std::stable_sort(events.begin(), events.end(),
                             [](const Ev *a, const Ev *b) { return a->ts < b->ts; });
            double host = 0, kernel = 0, other = 0;
            for (size_t i = 1; i < events.size(); ++i) {
                const double gap = events[i]->ts - events[i - 1]->end;
                if (gap <= 0)
                    continue;
                const auto launch = raw.runtimeByCorrelation.find(events[i]->correlation);
                if (launch != raw.runtimeByCorrelation.end() && launch->second.ts > events[i - 1]->end)
                    host += gap;
                else if (gap < gputime::kKernelWaitThresholdUs)
                    kernel += gap;
                else
                    other += gap;
            }
            QVERIFY2(std::abs(row.hostWaitUs - host) < 0.5,
                     qPrintable(QString("%1 vs %2").arg(row.hostWaitUs).arg(host)));
            QVERIFY2(std::abs(row.kernelWaitUs - kernel) < 0.5,
                     qPrintable(QString("%1 vs %2").arg(row.kernelWaitUs).arg(kernel)));
            QVERIFY(std::abs(row.otherUs - other) < 0.5);
        }

        // Kernel types partition the GPU-busy time; computation counts every compute kernel.
        double typed = 0;
        int64_t computeKernels = 0;
        for (const gputime::KernelTypeTime &k : report.kernelTypes) {
            typed += k.sumUs;
            if (k.type == "COMPUTATION")
                computeKernels = k.count;
        }
        std::vector<std::pair<double, double>> everything;
        int64_t rawCompute = 0;
        for (const Ev &e : raw.gpu) {
            everything.push_back({e.ts, e.end});
            rawCompute += isCompute(e);
        }
        // Busy time summed over devices (a type's time is the union across them).
        QVERIFY(std::abs(typed - unionLength(everything)) < 1.0);
        QCOMPARE(computeKernels, rawCompute);
    }

    // The launch queue of the resnet50 trace's stream 7, replayed from the raw launch calls:
    // its statistics and its counter track.
    void queueLengthAndLaunches()
    {
        TRACEDESK_REQUIRE_FIXTURE(kResnet);
        const Raw raw = readRaw(kResnet);
        static const std::set<QString> queueing = {"cudaLaunchKernel", "cudaLaunchKernelExC",
                                                   "cudaMemcpyAsync", "cudaMemsetAsync",
                                                   "cuLaunchKernel", "cuLaunchKernelEx"};
        std::vector<std::pair<double, int>> points;
        double maxDelay = 0;
        size_t launches = 0;
        for (const Ev &g : raw.gpu) {
            const auto launch = raw.runtimeByCorrelation.find(g.correlation);
            if (launch == raw.runtimeByCorrelation.end() || !queueing.count(launch->second.name))
                continue;
            points.push_back({launch->second.ts, +1});
            points.push_back({g.ts, -1});
            ++launches;
            maxDelay = std::max(maxDelay, std::max(0.0, g.ts - launch->second.end));
        }
        std::stable_sort(points.begin(), points.end(), [](const auto &a, const auto &b) {
            return a.first != b.first ? a.first < b.first : a.second > b.second;
        });
        std::vector<double> values;
        double length = 0, sum = 0;
        for (const auto &p : points) {
            length += p.second;
            values.push_back(length);
            sum += length;
        }
        const double mean = sum / double(values.size());

        auto loaded = loadTrace(kResnet.toStdString());
        QVERIFY(loaded);
        const auto index = pytorch::buildKinetoIndex(*loaded.value());
        const gputime::GpuTimeReport report = gputime::gpuTimeReport(*loaded.value(), index);
        QCOMPARE(report.queueLength.size(), size_t(1));
        const gputime::QueueLength &q = report.queueLength.front();
        QCOMPARE(q.count, int64_t(values.size()));
        QVERIFY(std::abs(q.mean - mean) < 1e-9);
        QCOMPARE(q.max, *std::max_element(values.begin(), values.end()));
        QCOMPARE(q.min, *std::min_element(values.begin(), values.end()));
        QCOMPARE(q.blockedUs, 0.0); // never near CUDA's 1,024 queued launches
        double squares = 0;
        for (double v : values)
            squares += (v - mean) * (v - mean);
        QVERIFY(std::abs(q.std - std::sqrt(squares / double(values.size() - 1))) < 1e-9);
        std::vector<double> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        const size_t n = sorted.size();
        QCOMPARE(q.p50, n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2);

        // The same step function as the stream's counter track on the timeline: one sample per
        // instant, the length after all of that instant's changes.
        std::vector<std::pair<double, double>> expected; // (us, length)
        for (size_t i = 0; i < points.size(); ++i) {
            if (i + 1 < points.size() && points[i + 1].first == points[i].first)
                continue;
            expected.push_back({points[i].first, values[i]});
        }
        const Trace &trace = *loaded.value();
        const Track *counter = nullptr;
        for (const Track &t : trace.tracks) {
            if (t.type == TrackType::Counter && trace.string(t.name) == "stream 7 launch queue")
                counter = &t;
        }
        QVERIFY(counter);
        QCOMPARE(counter->counter.size(), expected.size());
        for (size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(counter->counter.value[i], expected[i].second);
            const double us = double(counter->counter.time[i] - counter->counter.time[0]) / 1e6;
            QVERIFY(std::abs(us - (expected[i].first - expected[0].first)) < 1e-3);
        }

        QCOMPARE(report.launches.size(), launches);
        double reportedMax = 0;
        for (const gputime::LaunchStat &l : report.launches)
            reportedMax = std::max(reportedMax, l.launchDelayUs);
        QVERIFY(std::abs(reportedMax - maxDelay) < 0.01);
    }

    // Each launch belongs to the latest-starting aten:: operator on its thread that holds it
    // (of two starting together, the inner one); the operator's launched kernels, in launch
    // order, make its sequence. Counted here from the raw events.
    void opKernelSequences()
    {
        TRACEDESK_REQUIRE_FIXTURE(kResnet);
        struct Op
        {
            double ts, end;
            QString name;
        };
        std::map<QString, std::vector<Op>> opsByThread;
        struct Launch
        {
            double ts, end;
            QString thread;
            qint64 correlation;
        };
        std::vector<Launch> launches;
        std::map<qint64, std::vector<std::pair<double, QString>>> kernelsByCorrelation;
        static const std::set<QString> gpuCats = {"kernel", "Kernel", "gpu_memcpy", "Memcpy",
                                                  "gpu_memset", "Memset"};
        for (const QJsonValue &v : testsupport::readFixtureObject(kResnet).value("traceEvents").toArray()) {
            const QJsonObject e = v.toObject();
            if (e.value("ph").toString() != "X")
                continue;
            const QString cat = e.value("cat").toString();
            const QString thread = e.value("pid").toVariant().toString() + "/"
                                   + e.value("tid").toVariant().toString();
            const double ts = e.value("ts").toDouble(), end = ts + e.value("dur").toDouble();
            const qint64 correlation = e.value("args").toObject().value("correlation").toInteger(-1);
            if ((cat == "Operator" || cat == "cpu_op") && e.value("name").toString().startsWith("aten::"))
                opsByThread[thread].push_back({ts, end, e.value("name").toString()});
            else if (cat == "Runtime" || cat == "cuda_runtime")
                launches.push_back({ts, end, thread, correlation});
            else if (gpuCats.count(cat))
                kernelsByCorrelation[correlation].push_back({ts, e.value("name").toString()});
        }
        // Operator instance -> its kernels in launch order.
        std::map<std::pair<QString, size_t>, std::vector<std::pair<double, QString>>> byInstance;
        for (const Launch &l : launches) {
            const auto kernels = kernelsByCorrelation.find(l.correlation);
            if (kernels == kernelsByCorrelation.end())
                continue;
            const auto &ops = opsByThread[l.thread];
            size_t best = SIZE_MAX;
            for (size_t i = 0; i < ops.size(); ++i) {
                if (ops[i].ts <= l.ts && ops[i].end >= l.end
                    && (best == SIZE_MAX || ops[i].ts > ops[best].ts
                        || (ops[i].ts == ops[best].ts && ops[i].end < ops[best].end)))
                    best = i;
            }
            if (best == SIZE_MAX)
                continue;
            auto &seq = byInstance[{l.thread, best}];
            for (const auto &k : kernels->second)
                seq.push_back({l.ts, k.second});
        }
        std::map<std::pair<QString, QStringList>, qint64> expected;
        for (auto &[instance, seq] : byInstance) {
            std::stable_sort(seq.begin(), seq.end(),
                             [](const auto &a, const auto &b) { return a.first < b.first; });
            QStringList names;
            for (const auto &k : seq)
                names << k.second;
            ++expected[{opsByThread[instance.first][instance.second].name, names}];
        }

        auto loaded = loadTrace(kResnet.toStdString());
        QVERIFY(loaded);
        const auto index = pytorch::buildKinetoIndex(*loaded.value());
        const gputime::GpuTimeReport report = gputime::gpuTimeReport(*loaded.value(), index);
        std::map<std::pair<QString, QStringList>, qint64> got;
        for (const gputime::OpKernelSequence &o : report.opKernels) {
            QStringList names;
            for (const std::string &k : o.kernels)
                names << QString::fromStdString(k);
            got[{QString::fromStdString(o.op), names}] = o.occurrences;
        }
        QCOMPARE(got.size(), expected.size());
        QVERIFY(got == expected);
    }

    // The CLI's JSON keys (a contract read by scripts) and a step window.
    void cliJson()
    {
        TRACEDESK_REQUIRE_FIXTURE(kResnet);
        const auto run = clitest::runCli({"gpu-time", kResnet, "--step", "7", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(o.value("window").toString(), QString("ProfilerStep#7"));
        const QJsonObject t = o.value("temporal").toArray().first().toObject();
        for (const char *key : {"device", "rank", "total_us", "idle_us", "compute_us",
                                "non_compute_us", "idle_pct", "compute_pct", "non_compute_pct"})
            QVERIFY2(t.contains(key), key);
        QVERIFY(std::abs(t.value("idle_pct").toDouble() + t.value("compute_pct").toDouble()
                         + t.value("non_compute_pct").toDouble() - 100.0) < 1e-6);
        for (const char *key : {"host_wait_us", "kernel_wait_us", "other_us"})
            QVERIFY2(o.value("idle").toArray().first().toObject().contains(key), key);
        for (const char *key : {"type", "sum_us", "count"})
            QVERIFY2(o.value("kernel_types").toArray().first().toObject().contains(key), key);
        for (const char *key : {"correlation", "cpu_duration_us", "gpu_duration_us", "launch_delay_us"})
            QVERIFY2(o.value("launches").toArray().first().toObject().contains(key), key);
        for (const char *key : {"device", "stream", "count", "mean", "std", "min", "p50", "max", "blocked_us"})
            QVERIFY2(o.value("queue_length").toArray().first().toObject().contains(key), key);
        // A step that is not there is an error naming the file.
        const auto missing = clitest::runCli({"gpu-time", kResnet, "--step", "999"});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.contains("ProfilerStep#999"));
    }
};

QTEST_MAIN(TestGpuTime)
#include "tst_gputime.moc"
