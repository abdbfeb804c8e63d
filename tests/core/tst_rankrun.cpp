// Runs of PyTorch rank traces opened as one trace: sections per rank in rank order, one clock,
// flows within each rank, counts equal to the ranks' own, a broken rank named, the cache.

#include "core/io/rankrunloader.h"
#include "core/analysis/pytorch/kinetoindex.h"
#include "core/io/traceloader.h"
#include "support/kinetofixtures.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>

using namespace tracedesk::core;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kBaseNs = 1'700'000'000'000'000'000;

struct RankFile
{
    int64_t rank = 0;              // written into distributedInfo unless < 0
    int64_t baseNs = 0;            // baseTimeNanoseconds
    std::string kernelTs;          // the kernel's ts, µs as written
};

// A tiny Kineto trace: one CPU op launching one kernel (correlation 7 in every rank, so a flow
// bound across ranks would show), plus a second CPU op.
std::string kinetoJson(const RankFile &r)
{
    std::string json = "{\"schemaVersion\": 1,\n";
    if (r.rank >= 0)
        json += "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " + std::to_string(r.rank)
                + ", \"world_size\": 3},\n";
    json += "\"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU\", \"totalGlobalMem\": 1024,"
            " \"computeMajor\": 8, \"computeMinor\": 0, \"numSms\": 80}],\n";
    json += "\"baseTimeNanoseconds\": " + std::to_string(r.baseNs) + ",\n";
    json += "\"traceEvents\": [\n"
            "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 100, \"tid\": 100,"
            " \"ts\": 50.000, \"dur\": 20, \"args\": {\"External id\": 1}},\n"
            "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 100,"
            " \"tid\": 100, \"ts\": 51.000, \"dur\": 2, \"args\": {\"correlation\": 7, \"External id\": 1}},\n"
            "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 100, \"tid\": 100,"
            " \"ts\": 80.000, \"dur\": 5, \"args\": {\"External id\": 2}},\n"
            "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, \"tid\": 7,"
            " \"ts\": " + r.kernelTs + ", \"dur\": 4, \"args\": {\"correlation\": 7, \"device\": 0,"
            " \"stream\": 7, \"External id\": 1, \"note\": \"rank"
            + std::to_string(r.rank) + "\", \"Input Dims\": [[" + std::to_string(r.rank + 10) + "]]}}\n"
            "]}\n";
    return json;
}

void write(const fs::path &p, const std::string &content)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
}

// The kernel's start on the merged clock, and the host of its plane.
struct Found
{
    TimePs start = 0;
    std::string host;
};

std::vector<Found> kernels(const Trace &t, std::string_view name)
{
    std::vector<Found> out;
    for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
        const Track &track = t.tracks[ti];
        for (uint32_t ri = 0; ri < track.rows.size(); ++ri) {
            const Row &row = track.rows[ri];
            for (uint32_t i = 0; i < row.size(); ++i) {
                if (t.string(t.kinds[row.kind[i]].name) == name)
                    out.push_back({row.start[i],
                                   std::string(t.string(t.planes[track.plane].host))});
            }
        }
    }
    return out;
}

std::string hostOfTrack(const Trace &t, uint32_t track)
{
    return std::string(t.string(t.planes[t.tracks[track].plane].host));
}

LoadOptions noCache()
{
    LoadOptions o;
    o.useCache = false;
    return o;
}

uint64_t sumOfRanksAlone(const std::vector<std::string> &files)
{
    uint64_t n = 0;
    for (const std::string &f : files) {
        auto alone = loadTrace(f, nullptr, noCache());
        if (!alone)
            qWarning("%s", alone.message().c_str());
        n += alone ? alone.value()->sliceCount() : 0;
    }
    return n;
}

} // namespace

class TestRankRun : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    fs::path root() const { return fs::path(m_dir.path().toStdString()); }

    // Three ranks whose file names sort against their rank order; rank r's clock starts r ms
    // earlier, and its kernel is written so that it starts 3 µs (rank 1) and 7.5 µs (rank 2)
    // after rank 0's on the common clock.
    fs::path makeRun(const std::string &name)
    {
        const fs::path dir = root() / name;
        write(dir / "alpha.pt.trace.json", kinetoJson({2, kBaseNs - 2'000'000, "2107.750"}));
        write(dir / "beta.pt.trace.json", kinetoJson({0, kBaseNs, "100.250"}));
        write(dir / "gamma.pt.trace.json", kinetoJson({1, kBaseNs - 1'000'000, "1103.250"}));
        return dir;
    }

private slots:
    void folderOpensAsOneTrace()
    {
        const fs::path dir = makeRun("run");
        auto resolved = resolveSource(dir.string());
        QVERIFY2(resolved, resolved ? "" : resolved.message().c_str());
        QCOMPARE(resolved.value().format, SourceFormat::ChromeJson);
        QCOMPARE(resolved.value().files.size(), size_t(3));

        auto loaded = loadTrace(dir.string(), nullptr, noCache());
        QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        QCOMPARE(t.info.format, std::string("chrome-json"));
        QCOMPARE(t.info.sources.size(), size_t(3));
        QCOMPARE(t.info.hosts, (std::vector<std::string>{"rank 0", "rank 1", "rank 2"}));
        QCOMPARE(t.info.run.framework, std::string("pytorch"));
        QCOMPARE(t.info.run.distributed.rank, int64_t(0));
        QCOMPARE(t.info.run.devices.size(), size_t(1));
        QCOMPARE(t.info.run.clockOriginNs, kBaseNs - 2'000'000);   // the earliest rank's
        QCOMPARE(t.info.warningCount, uint64_t(0));

        // Sections in rank order, every plane named uniquely.
        std::vector<std::string> hostOrder;
        std::set<std::string> planeNames;
        for (const Plane &p : t.planes) {
            const std::string host(t.string(p.host));
            if (hostOrder.empty() || hostOrder.back() != host)
                hostOrder.push_back(host);
            QVERIFY2(planeNames.insert(std::string(t.string(p.name))).second,
                     std::string(t.string(p.name)).c_str());
        }
        QCOMPARE(hostOrder, (std::vector<std::string>{"rank 0", "rank 1", "rank 2"}));

        // One clock: absolute ns = baseTimeNanoseconds + ts * 1000, computed here by hand.
        const auto found = kernels(t, "gemm_kernel");
        QCOMPARE(found.size(), size_t(3));
        std::map<std::string, TimePs> startOf;
        for (const Found &f : found)
            startOf[f.host] = f.start;
        QCOMPARE(startOf["rank 1"] - startOf["rank 0"], TimePs(3'000'000));
        QCOMPARE(startOf["rank 2"] - startOf["rank 0"], TimePs(7'500'000));
        // Rank 0's kernel at 100.250 µs on a clock starting 2 ms after the run's origin.
        QCOMPARE(startOf["rank 0"], TimePs(2'000'000 + 100'250) * 1000);

        // Args and string side columns survive re-interning: each kernel keeps its own.
        for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
            for (uint32_t ri = 0; ri < t.tracks[ti].rows.size(); ++ri) {
                for (uint32_t i = 0; i < t.tracks[ti].rows[ri].size(); ++i) {
                    const SliceRef ref{ti, ri, i};
                    if (t.name(ref) != "gemm_kernel")
                        continue;
                    const std::string host = hostOfTrack(t, ti);
                    const std::string rank = host.substr(5);
                    std::string note;
                    t.forEachArg(ref, [&](const ArgValue &v) {
                        if (t.string(v.key) == "note")
                            note = std::string(v.type == ArgType::StringRef ? t.string(v.str) : v.s);
                    });
                    QCOMPARE(note, "rank" + rank);
                    const int64_t shapes = t.side(ref, SideColumn::InputShapes);
                    QVERIFY(shapes != kNoValue);
                    QCOMPARE(std::string(t.string(StringId(shapes))),
                             "[[" + std::to_string(std::stoi(rank) + 10) + "]]");
                    QCOMPARE(t.side(ref, SideColumn::CorrelationId), int64_t(7));
                }
            }
        }

        // Flows bind within each rank: one launch -> kernel flow per rank.
        int launchFlows = 0;
        for (const Flow &f : t.flows) {
            QCOMPARE(hostOfTrack(t, f.from.track), hostOfTrack(t, f.to.track));
            if (t.name(f.from) == "cudaLaunchKernel" && t.name(f.to) == "gemm_kernel")
                ++launchFlows;
        }
        QCOMPARE(launchFlows, 3);

        // Slice counts: the sum of the ranks loaded alone (4 slices each, by construction).
        const auto &files = resolved.value().files;
        QCOMPARE(t.sliceCount(), sumOfRanksAlone(files));
        QCOMPARE(t.sliceCount(), uint64_t(12));
        QVERIFY(t.begin <= startOf["rank 0"] && t.end >= startOf["rank 2"]);
    }

    void severalFilesGivenTogether()
    {
        const fs::path dir = makeRun("files");
        auto loaded = loadTraces({(dir / "gamma.pt.trace.json").string(),
                                  (dir / "beta.pt.trace.json").string()},
                                 nullptr, noCache());
        QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
        QCOMPARE(loaded.value()->info.hosts, (std::vector<std::string>{"rank 0", "rank 1"}));
        QCOMPARE(loaded.value()->sliceCount(), uint64_t(8));
    }

    // Every rank uses correlation id 7: the PyTorch views of the merged run read rank 0 alone
    // (its launch bound to its own kernel), and say so.
    void pytorchViewsCoverTheFirstRank()
    {
        const fs::path dir = makeRun("views");
        auto merged = loadTrace(dir.string(), nullptr, noCache());
        QVERIFY2(merged, merged ? "" : merged.message().c_str());
        auto alone = loadTrace((dir / "beta.pt.trace.json").string(), nullptr, noCache());
        QVERIFY(alone);
        const analysis::pytorch::KinetoIndex m = analysis::pytorch::buildKinetoIndex(*merged.value());
        const analysis::pytorch::KinetoIndex a = analysis::pytorch::buildKinetoIndex(*alone.value());
        QCOMPARE(m.scope.scopeLabel, std::string("rank 0 of 3"));
        QVERIFY(a.scope.scopeLabel.empty());
        QCOMPARE(m.activities.size(), a.activities.size());
        QCOMPARE(m.runtimes.size(), a.runtimes.size());
        QCOMPARE(m.nodes.size(), a.nodes.size());
        for (const auto &act : m.activities) {
            QCOMPARE(hostOfTrack(*merged.value(), act.ref.track), std::string("rank 0"));
            QCOMPARE(act.start, kernels(*merged.value(), std::string(merged.value()->name(act.ref)))
                                    .front().start);
        }
    }

    void rankFromFileNameAndContent()
    {
        // No distributedInfo, names without .pt.trace: Kineto by content, rank by name.
        const fs::path dir = root() / "named";
        write(dir / "job_rank-5.json", kinetoJson({-1, kBaseNs, "100.000"}));
        write(dir / "job_rank_2.json", kinetoJson({-1, kBaseNs, "100.000"}));
        auto loaded = loadTrace(dir.string(), nullptr, noCache());
        QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
        QCOMPARE(loaded.value()->info.hosts, (std::vector<std::string>{"rank 2", "rank 5"}));

        // Plain Chrome JSON files are no rank run: the folder still asks for one of them.
        const fs::path plain = root() / "plain";
        write(plain / "a.json", "{\"traceEvents\": []}");
        write(plain / "b.json", "{\"traceEvents\": []}");
        auto refused = loadTrace(plain.string(), nullptr, noCache());
        QVERIFY(!refused);
        QVERIFY2(refused.message().find("open one of them") != std::string::npos,
                 refused.message().c_str());
    }

    void brokenRankIsNamedOthersOpen()
    {
        const fs::path dir = makeRun("broken");
        write(dir / "delta.pt.trace.json", "this is not JSON at all");
        auto loaded = loadTrace(dir.string(), nullptr, noCache());
        QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        QCOMPARE(t.info.hosts.size(), size_t(3));
        QCOMPARE(t.info.sources.size(), size_t(4));
        bool named = false;
        for (const std::string &w : t.info.warnings)
            named = named || w.find("delta.pt.trace.json") != std::string::npos;
        QVERIFY(named);

        // Every rank broken: one error naming the folder.
        const fs::path bad = root() / "allbad";
        write(bad / "a.pt.trace.json", "nope");
        write(bad / "b.pt.trace.json", "nope either");
        auto failed = loadTrace(bad.string(), nullptr, noCache());
        QVERIFY(!failed);
        QVERIFY2(failed.message().find(bad.string()) != std::string::npos,
                 failed.message().c_str());
    }

    void cacheReopensTheSameTrace()
    {
        const fs::path dir = makeRun("cached");
        LoadOptions options;
        options.cacheDir = (root() / "cache").string();
        auto first = loadTrace(dir.string(), nullptr, options);
        QVERIFY2(first, first ? "" : first.message().c_str());
        QVERIFY(!first.value()->info.fromCache);
        auto second = loadTrace(dir.string(), nullptr, options);
        QVERIFY2(second, second ? "" : second.message().c_str());
        const Trace &a = *first.value();
        const Trace &b = *second.value();
        QVERIFY(b.info.fromCache);
        QCOMPARE(b.info.hosts, a.info.hosts);
        QCOMPARE(b.info.sources, a.info.sources);
        QCOMPARE(b.sliceCount(), a.sliceCount());
        QCOMPARE(b.flows.size(), a.flows.size());
        QCOMPARE(b.planes.size(), a.planes.size());
        for (size_t i = 0; i < a.planes.size(); ++i) {
            QCOMPARE(b.string(b.planes[i].name), a.string(a.planes[i].name));
            QCOMPARE(b.string(b.planes[i].host), a.string(a.planes[i].host));
        }
        const auto ka = kernels(a, "gemm_kernel");
        const auto kb = kernels(b, "gemm_kernel");
        QCOMPARE(kb.size(), ka.size());
        for (size_t i = 0; i < ka.size(); ++i)
            QCOMPARE(kb[i].start, ka[i].start);
        QCOMPARE(b.info.run.clockOriginNs, a.info.run.clockOriginNs);
    }

    void realDlrmRun()
    {
        const QString dir = QString(TRACEDESK_SHARED_FIXTURES "/multirank/param__dlrm_kineto");
        TRACEDESK_REQUIRE_FIXTURE(dir);
        LoadControl control;
        auto loaded = loadTrace(dir.toStdString(), &control, noCache());
        QVERIFY2(loaded, loaded ? "" : loaded.message().c_str());
        const Trace &t = *loaded.value();
        QCOMPARE(t.info.hosts.size(), size_t(8));
        std::vector<std::string> hostOrder;
        for (const Plane &p : t.planes) {
            const std::string host(t.string(p.host));
            if (hostOrder.empty() || hostOrder.back() != host)
                hostOrder.push_back(host);
        }
        QCOMPARE(hostOrder.size(), size_t(8));
        for (size_t r = 0; r < hostOrder.size(); ++r)
            QCOMPARE(hostOrder[r], "rank " + std::to_string(r));

        std::vector<std::string> files;
        for (const auto &e : fs::directory_iterator(dir.toStdString()))
            files.push_back(e.path().string());
        QCOMPARE(files.size(), size_t(8));
        QCOMPARE(t.sliceCount(), sumOfRanksAlone(files));
        // Progress summed over the ranks: everything that was announced was done.
        QVERIFY(control.total() > 0);
        QCOMPARE(control.done(), control.total());
    }
};

QTEST_GUILESS_MAIN(TestRankRun)
#include "tst_rankrun.moc"
