// GPU time and the critical path on XSpace GPU profiles (JAX on ROCm, TensorFlow on CUDA). Each
// expectation is derived here from the raw protobuf, decoded with the protobuf library, not the
// reader under test: the events of the `Stream #` lines of each `/device:GPU:N` plane, the host
// calls that carry their correlation ids, interval unions, HTA's gap classes and queue rule.

#include "core/analysis/framework.h"
#include "core/analysis/gputime/criticalpath.h"
#include "core/analysis/gputime/criticalpathgraph.h"
#include "core/analysis/gputime/gputime.h"
#include "core/analysis/gputime/stepwindows.h"
#include "core/analysis/pytorch/kinetoindex.h"
#include "core/io/traceloader.h"
#include "support/kinetofixtures.h"

#include "xplane.pb.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;
namespace pb = tensorflow::profiler;

namespace {

const QString kXSpace = QString(TRACEDESK_SHARED_FIXTURES) + "/xspace/";
const QString kJaxGemm = kXSpace + "tracelens_jax08_gemm/tw003.xplane.pb";
const QString kTeAttention = kXSpace + "tracelens_te_fused_attn/934987a2fc2f.xplane.pb";
const QString kTfMultiWorker = kXSpace + "xprof_GPU-multi-worker/34.83.195.179_6003.xplane.pb";

struct RawEvent
{
    double start = 0, end = 0; // us on the file's own clock
    std::string name;
    int64_t correlation = -1;
    int64_t device = 0, stream = 0;
};

struct RawGpu
{
    std::vector<RawEvent> activities;                // stream events of GPU planes
    std::map<int64_t, RawEvent> launchByCorrelation; // host events with a correlation id
};

int64_t statInt(const pb::XStat &s)
{
    if (s.value_case() == pb::XStat::kInt64Value)
        return s.int64_value();
    if (s.value_case() == pb::XStat::kUint64Value)
        return int64_t(s.uint64_value());
    return -1;
}

RawGpu readRaw(const QString &path)
{
    RawGpu raw;
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    pb::XSpace space;
    if (!space.ParseFromString(bytes.str()))
        return raw;
    for (const pb::XPlane &plane : space.planes()) {
        const bool gpu = plane.name().starts_with("/device:GPU:");
        const bool host = plane.name().starts_with("/host:") && plane.name() != "/host:metadata";
        if (!gpu && !host)
            continue;
        int64_t correlationStat = -1;
        for (const auto &[id, m] : plane.stat_metadata())
            if (m.name() == "correlation_id")
                correlationStat = id;
        for (const pb::XLine &line : plane.lines()) {
            if (gpu && !line.name().starts_with("Stream #"))
                continue;
            for (const pb::XEvent &e : line.events()) {
                RawEvent r;
                r.start = (double(line.timestamp_ns()) * 1000.0 + double(e.offset_ps())) / 1e6;
                r.end = r.start + double(e.duration_ps()) / 1e6;
                r.name = plane.event_metadata().at(e.metadata_id()).name();
                for (const pb::XStat &s : e.stats())
                    if (s.metadata_id() == correlationStat)
                        r.correlation = statInt(s);
                if (gpu) {
                    r.device = std::stoll(plane.name().substr(std::string("/device:GPU:").size()));
                    r.stream = line.id();
                    raw.activities.push_back(r);
                } else if (r.correlation >= 0) {
                    raw.launchByCorrelation.emplace(r.correlation, r);
                }
            }
        }
    }
    std::sort(raw.activities.begin(), raw.activities.end(),
              [](const RawEvent &a, const RawEvent &b) { return a.start < b.start; });
    return raw;
}

double unionLength(std::vector<std::pair<double, double>> v)
{
    std::sort(v.begin(), v.end());
    double total = 0, start = 0, end = -1e300;
    for (const auto &[s, e] : v) {
        if (s > end) {
            if (end > start)
                total += end - start;
            start = s;
            end = e;
        } else {
            end = std::max(end, e);
        }
    }
    if (end > start)
        total += end - start;
    return total;
}

// HTA's COMPUTATION rule (PYTORCH.md §3): a GPU event whose name matches none of
// (^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)|(^hip),
// spelled out as plain searches (a regex backtracks for seconds on a 3,000-character template
// kernel name).
bool htaComputation(const std::string &n)
{
    auto has = [&](const char *part) { return n.find(part) != std::string::npos; };
    const size_t cuda = n.find("cuda");
    return !(n.starts_with("nccl") || has("Memcpy") || has("Memset") || has("dma") || has("Sync") ||
             n.starts_with("Stream Wait Event") || n.starts_with("hip") ||
             (cuda != std::string::npos && n.find("LaunchKernel", cuda) != std::string::npos));
}

// The calls that queue work on a stream: HTA's queue list (PYTORCH.md §3.6) and the driver /
// HIP API's asynchronous copies and sets XLA calls.
bool queues(const std::string &n)
{
    static const std::regex driverTransfer("^(cu[A-Z]|hip).*(Memcpy|Memset).*Async");
    return n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC" || n == "cuLaunchKernel" ||
           n == "cuLaunchKernelEx" || n == "cudaMemcpyAsync" || n == "cudaMemsetAsync" ||
           n == "hipLaunchKernel" || n == "hipExtModuleLaunchKernel" ||
           n == "hipModuleLaunchKernel" || n == "hipMemcpyAsync" || n == "hipMemsetAsync" ||
           n == "hipMemcpyWithStream" || std::regex_search(n, driverTransfer);
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-3 + 1e-9 * std::abs(b);
}

} // namespace

class TstXSpaceGpuTime : public QObject
{
    Q_OBJECT

private slots:
    void breakdowns_data();
    void breakdowns();
    void criticalPathBounds_data() { breakdowns_data(); }
    void criticalPathBounds();
    void xprofViewsKeepTheirRules();
    void xprofStepsAsWindows();
};

void TstXSpaceGpuTime::breakdowns_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow("jax rocm gemm") << kJaxGemm;
    QTest::newRow("jax rocm te attention") << kTeAttention;
    QTest::newRow("tensorflow cuda multi-worker") << kTfMultiWorker;
}

void TstXSpaceGpuTime::breakdowns()
{
    QFETCH(QString, path);
    TRACEDESK_REQUIRE_FIXTURE(path);
    const RawGpu raw = readRaw(path);
    QVERIFY(!raw.activities.empty());
    auto loaded = loadTrace(path.toStdString(), nullptr);
    QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
    const Trace &trace = *loaded.value();
    QVERIFY(hasGpuActivityRoles(trace));
    const auto index = pytorch::buildKinetoIndex(trace);
    QCOMPARE(index.activities.size(), raw.activities.size());
    const gputime::GpuTimeReport report = gputime::gpuTimeReport(trace, index);
    QVERIFY(!report.htaLaunchCalls);

    // Temporal breakdown per device.
    std::map<int64_t, std::vector<std::pair<double, double>>> all, compute;
    for (const RawEvent &e : raw.activities) {
        all[e.device].push_back({e.start, e.end});
        if (htaComputation(e.name))
            compute[e.device].push_back({e.start, e.end});
    }
    QCOMPARE(report.temporal.size(), all.size());
    for (const gputime::TemporalBreakdown &t : report.temporal) {
        const auto &v = all.at(t.device);
        double first = 1e300, last = -1e300;
        for (const auto &[s, e] : v) {
            first = std::min(first, s);
            last = std::max(last, e);
        }
        const double busy = unionLength(v);
        QVERIFY2(near(t.totalUs, last - first), qPrintable(QString::number(t.totalUs)));
        QVERIFY(near(t.idleUs, last - first - busy));
        QVERIFY(near(t.computeUs, unionLength(compute[t.device])));
    }

    // Idle gaps per stream: host wait when the next activity's launch came after the stream
    // went idle, else kernel wait under 30 us, else other.
    std::map<std::pair<int64_t, int64_t>, std::vector<const RawEvent *>> byStream;
    for (const RawEvent &e : raw.activities)
        byStream[{e.device, e.stream}].push_back(&e);
    QCOMPARE(report.idle.size(), byStream.size());
    for (const gputime::IdleBreakdown &i : report.idle) {
        const auto &events = byStream.at({i.device, i.stream});
        double host = 0, kernel = 0, other = 0;
        for (size_t k = 1; k < events.size(); ++k) {
            const double gap = events[k]->start - events[k - 1]->end;
            if (gap <= 0)
                continue;
            const auto launch = raw.launchByCorrelation.find(events[k]->correlation);
            if (launch != raw.launchByCorrelation.end() &&
                launch->second.start > events[k - 1]->end)
                host += gap;
            else if (gap < gputime::kKernelWaitThresholdUs)
                kernel += gap;
            else
                other += gap;
        }
        QVERIFY2(near(i.hostWaitUs, host),
                 qPrintable(QString("%1 vs %2").arg(i.hostWaitUs).arg(host)));
        QVERIFY(near(i.kernelWaitUs, kernel));
        QVERIFY(near(i.otherUs, other));
    }

    // Launches: every host call bound to GPU work by correlation id that queues work on a
    // stream: a queueing API call, or (older TensorFlow) a call named after its kernel rather
    // than an API call (a synchronous copy is not a launch).
    static const std::regex api("^(cuda[A-Z]|cu[A-Z]|hip[A-Z]|hsa_)");
    std::map<int64_t, std::pair<const RawEvent *, const RawEvent *>> bound;
    for (const RawEvent &e : raw.activities) {
        const auto launch = raw.launchByCorrelation.find(e.correlation);
        if (launch != raw.launchByCorrelation.end() &&
            (queues(launch->second.name) || !std::regex_search(launch->second.name, api)))
            bound[e.correlation] = {&launch->second, &e};
    }
    QVERIFY(!bound.empty());
    QCOMPARE(report.launches.size(), bound.size());
    QCOMPARE(report.launchCount, int64_t(bound.size()));
    // A view that lists outliers keeps only those: over HTA's 50 us runtime or 100 us delay.
    size_t outliers = 0;
    for (const auto &[correlation, pair] : bound) {
        const auto &[call, work] = pair;
        outliers += call->end - call->start > gputime::kRuntimeOutlierUs
                    || work->start - call->end > gputime::kLaunchDelayOutlierUs;
    }
    const auto outliersOnly =
        gputime::gpuTimeReport(trace, index, std::nullopt, gputime::LaunchDetail::Outliers);
    QCOMPARE(outliersOnly.launchCount, int64_t(bound.size()));
    QCOMPARE(outliersOnly.launches.size(), outliers);
    for (const gputime::LaunchStat &l : report.launches) {
        const auto &[call, work] = bound.at(l.correlation);
        QCOMPARE(std::string(trace.name(l.call)), call->name);
        QVERIFY(near(l.cpuDurationUs, call->end - call->start));
        QVERIFY(near(l.gpuDurationUs, work->end - work->start));
        QVERIFY(near(l.launchDelayUs, std::max(0.0, work->start - call->end)));
    }

    // Queue length per stream: +1 at each queueing call, -1 when its work starts.
    std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<double, int>>> points;
    for (const auto &[correlation, pair] : bound) {
        if (!queues(pair.first->name))
            continue;
        auto &p = points[{pair.second->device, pair.second->stream}];
        p.push_back({pair.first->start, +1});
        p.push_back({pair.second->start, -1});
    }
    QCOMPARE(report.queueLength.size(), points.size());
    for (const gputime::QueueLength &q : report.queueLength) {
        auto p = points.at({q.device, q.stream});
        std::stable_sort(p.begin(), p.end(), [](const auto &a, const auto &b) {
            return a.first != b.first ? a.first < b.first : a.second > b.second;
        });
        double length = 0, sum = 0, most = 0;
        for (const auto &point : p) {
            length += point.second;
            sum += length;
            most = std::max(most, length);
        }
        QCOMPARE(q.count, int64_t(p.size()));
        QVERIFY(near(q.mean, sum / double(p.size())));
        QCOMPARE(q.max, most);
        QCOMPARE(q.min, 0.0);
    }
}

// The whole profile's critical path fits in the profile and is no shorter than any run of
// back-to-back work on one stream: activities each launched before the previous one ended and
// started under HTA's 1.5 ms kernel-to-kernel limit after it, which its rules chain with their
// waits. (XLA launches from threads that run no operator, so across a longer gap or a late
// launch nothing ties one run to the next.)
void TstXSpaceGpuTime::criticalPathBounds()
{
    QFETCH(QString, path);
    TRACEDESK_REQUIRE_FIXTURE(path);
    const RawGpu raw = readRaw(path);
    std::map<std::pair<int64_t, int64_t>, std::vector<const RawEvent *>> byStream;
    double first = 1e300, last = -1e300;
    for (const RawEvent &e : raw.activities)
        byStream[{e.device, e.stream}].push_back(&e);
    double busiest = 0;
    for (const auto &[key, events] : byStream) {
        double runStart = events.front()->start;
        for (size_t k = 0; k < events.size(); ++k) {
            if (k > 0) {
                const auto launch = raw.launchByCorrelation.find(events[k]->correlation);
                const bool late = launch != raw.launchByCorrelation.end() &&
                                  launch->second.start > events[k - 1]->end;
                if (late || events[k]->start - events[k - 1]->end >= 1500.0)
                    runStart = events[k]->start;
            }
            busiest = std::max(busiest, events[k]->end - runStart);
        }
    }
    for (const auto &[c, call] : raw.launchByCorrelation) {
        first = std::min(first, call.start);
        last = std::max(last, call.end);
    }
    for (const RawEvent &e : raw.activities) {
        first = std::min(first, e.start);
        last = std::max(last, e.end);
    }

    auto loaded = loadTrace(path.toStdString(), nullptr);
    QVERIFY(loaded);
    const Trace &trace = *loaded.value();
    const auto index = pytorch::buildKinetoIndex(trace);
    const auto graph = gputime::buildCriticalPathGraph(trace, index, std::nullopt);
    const gputime::CriticalPath cp = gputime::criticalPath(trace, graph);
    QVERIFY2(cp.error.empty(), cp.error.c_str());
    const double lengthUs = double(cp.length) / 1e6;
    QVERIFY2(lengthUs + 1e-3 >= busiest,
             qPrintable(QString("%1 us < longest run %2 us").arg(lengthUs).arg(busiest)));
    QVERIFY(lengthUs <= last - first + 1e-3);
    QCOMPARE(cp.cpu + cp.gpu + cp.launch + cp.wait + cp.sync, cp.length);
}

// Roles on an XSpace feed GPU time only: the overview, kernel, step and op views keep
// XProf's rules for it.
void TstXSpaceGpuTime::xprofViewsKeepTheirRules()
{
    TRACEDESK_REQUIRE_FIXTURE(kTfMultiWorker);
    auto loaded = loadTrace(kTfMultiWorker.toStdString(), nullptr);
    QVERIFY(loaded);
    QVERIFY(hasGpuActivityRoles(*loaded.value()));
    QVERIFY(!readsGpuWorkByRole(*loaded.value()));
    QVERIFY(!isPyTorchTrace(*loaded.value()));
}

// A TensorFlow profile has no ProfilerStep#N: its XProf steps are the windows, each the span of
// a step its `Steps` lines record, and a step's critical path fits in it.
void TstXSpaceGpuTime::xprofStepsAsWindows()
{
    TRACEDESK_REQUIRE_FIXTURE(kTfMultiWorker);
    std::ifstream in(kTfMultiWorker.toStdString(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    pb::XSpace space;
    QVERIFY(space.ParseFromString(bytes.str()));
    std::vector<int64_t> stepDurationsPs;
    for (const pb::XPlane &plane : space.planes())
        for (const pb::XLine &line : plane.lines())
            if (line.name() == "Steps")
                for (const pb::XEvent &e : line.events())
                    stepDurationsPs.push_back(e.duration_ps());
    QVERIFY(!stepDurationsPs.empty());

    auto loaded = loadTrace(kTfMultiWorker.toStdString(), nullptr);
    QVERIFY(loaded);
    auto cache = std::make_shared<AnalysisCache>(loaded.value());
    const auto index = pytorch::buildKinetoIndex(cache->trace());
    const auto windows = gputime::stepWindows(*cache, index);
    QVERIFY(!windows.empty());
    for (const gputime::TimeWindow &w : windows) {
        QVERIFY(w.name.starts_with("Step "));
        QVERIFY(std::find(stepDurationsPs.begin(), stepDurationsPs.end(), w.end - w.start)
                != stepDurationsPs.end());
    }
    const auto first = gputime::stepWindow(*cache, index, std::stoll(windows[0].name.substr(5)));
    QVERIFY(first);
    QCOMPARE(first->start, windows[0].start);
    QVERIFY(!gputime::stepWindow(*cache, index, 999999));

    const auto graph = gputime::buildCriticalPathGraph(cache->trace(), index, *first);
    const gputime::CriticalPath cp = gputime::criticalPath(cache->trace(), graph);
    QVERIFY(cp.error.empty());
    QVERIFY(cp.length > 0);
    QVERIFY(cp.length <= first->end - first->start);
}

QTEST_GUILESS_MAIN(TstXSpaceGpuTime)
#include "tst_xspacegputime.moc"
