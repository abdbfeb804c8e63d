// The Graph Viewer's core: an op's HLO neighbourhood on a JAX GPU capture whose modules are
// embedded in /host:metadata, checked against a breadth-first walk written here over the raw
// HloProto (operand ids and the users they imply); the DOT text and the Graphviz layout of it;
// the errors for a missing op or a profile without HLO.

#include "core/analysis/hlodot.h"
#include "core/analysis/hlograph.h"
#include "core/analysis/hlostats.h"
#include "core/graph/graphvizlayout.h"
#include "core/io/traceloader.h"
#include "support/clirun.h"
#include "support/kinetofixtures.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>

#include <map>
#include <set>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

namespace {

const QString kGemm =
    QString(TRACEDESK_SHARED_FIXTURES) + "/xspace/tracelens_jax08_gemm/tw003.xplane.pb";

// Names within `depth` edges of `op` in its computation, and the operand edges among them.
struct Expected
{
    std::set<std::string> names;
    size_t edges = 0;
    std::vector<std::string> fusions;
    size_t fusionMembers = 0;
};

Expected walk(const xla::HloModuleProto &module, const std::string &op, int depth)
{
    Expected out;
    for (const auto &c : module.computations()) {
        std::map<int64_t, const xla::HloInstructionProto *> byId;
        const xla::HloInstructionProto *centre = nullptr;
        for (const auto &i : c.instructions()) {
            byId[i.id()] = &i;
            if (i.name() == op)
                centre = &i;
        }
        if (!centre)
            continue;
        std::map<int64_t, int> seen{{centre->id(), 0}};
        for (int d = 0; d < depth; ++d) {
            std::vector<int64_t> frontier;
            for (const auto &[id, dist] : seen) {
                if (dist == d)
                    frontier.push_back(id);
            }
            for (int64_t id : frontier) {
                for (int64_t o : byId[id]->operand_ids())
                    seen.emplace(o, d + 1);
                for (const auto &i : c.instructions()) {
                    for (int64_t o : i.operand_ids()) {
                        if (o == id)
                            seen.emplace(i.id(), d + 1);
                    }
                }
            }
        }
        for (const auto &[id, dist] : seen) {
            out.names.insert(byId[id]->name());
            for (int64_t o : byId[id]->operand_ids())
                out.edges += seen.count(o);
            if (byId[id]->opcode() == "fusion") {
                out.fusions.push_back(byId[id]->name());
                for (const auto &body : module.computations()) {
                    if (body.id() == byId[id]->called_computation_ids(0))
                        out.fusionMembers += size_t(body.instructions_size());
                }
            }
        }
    }
    return out;
}

} // namespace

class TestHloGraph : public QObject
{
    Q_OBJECT
private slots:
    void neighbourhoodMatchesTheModule();
    void errorsSayWhatIsMissing();
    void cliWritesTheGraph();
};

void TestHloGraph::neighbourhoodMatchesTheModule()
{
    TRACEDESK_REQUIRE_FIXTURE(kGemm);
    auto trace = loadTrace(kGemm.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    const auto modules = traceHloModules(cache);
    QVERIFY(!modules->index->modules().empty());
    const auto stats = hloStats(cache);
    QVERIFY(!stats->rows.empty());
    const HloStatsRow &top = stats->rows.front();
    QVERIFY(!top.programId.empty());
    const uint64_t program = std::stoull(top.programId);
    const auto *module = modules->index->byProgramId(program);
    QVERIFY(module);
    xla::HloProto raw;
    QVERIFY(raw.ParseFromString(module->entry.bytes));

    for (int depth : {0, 1, 2, 3}) {
        HloGraphOptions options;
        options.depth = depth;
        auto graph = hloNeighbourhood(*modules->index, program, top.hloOpName, options);
        QVERIFY2(graph, graph ? "" : graph.message().c_str());
        const Expected e = walk(raw.hlo_module(), top.hloOpName, depth);
        std::set<std::string> names;
        for (const HloGraphNode &n : graph.value().nodes)
            names.insert(n.name);
        QCOMPARE(names, e.names);
        QCOMPARE(graph.value().nodes.size(), e.names.size());
        QCOMPARE(graph.value().edges.size(), e.edges);
        QCOMPARE(graph.value().nodes.front().name, top.hloOpName);
        QVERIFY(graph.value().nodes.front().isCentre);
        QVERIFY(!graph.value().truncated);

        // Expanded, each fusion in view brings its whole fused computation.
        options.expandFusions = true;
        auto expanded = hloNeighbourhood(*modules->index, program, top.hloOpName, options);
        QVERIFY(expanded);
        QCOMPARE(expanded.value().nodes.size(), e.names.size() + e.fusionMembers);
        size_t members = 0;
        for (const HloGraphNode &n : expanded.value().nodes)
            members += n.fusion.empty() ? 0 : 1;
        QCOMPARE(members, e.fusionMembers);

        // The DOT text names every node once; Graphviz places every node and edge inside the
        // drawing, and its SVG names the op.
        const std::string dot = hloGraphDot(expanded.value(), {{top.hloOpName, 0.5}});
        auto layout = graph::layoutDot(dot);
        QVERIFY2(layout, layout ? "" : layout.message().c_str());
        QCOMPARE(layout.value().nodes.size(), expanded.value().nodes.size());
        QCOMPARE(layout.value().edges.size(), expanded.value().edges.size());
        QCOMPARE(layout.value().clusters.size(), e.fusions.size());
        for (const auto &n : layout.value().nodes) {
            QVERIFY(n.x >= 0 && n.x <= layout.value().width + 0.5);
            QVERIFY(n.y >= 0 && n.y <= layout.value().height + 0.5);
            QVERIFY(n.width > 0 && n.height > 0);
        }
        auto svg = graph::renderDot(dot, "svg");
        QVERIFY(svg);
        QVERIFY(svg.value().find("<svg") != std::string::npos);
        // Graphviz's SVG writes '-' as a character reference.
        QString svgName = QString::fromStdString(top.hloOpName);
        svgName.replace(QLatin1Char('-'), QStringLiteral("&#45;"));
        QVERIFY(QString::fromStdString(svg.value()).contains(svgName));
    }
    // A fusion at depth 0, expanded: itself and its fused computation, in one cluster.
    const auto fusion = std::find_if(stats->rows.begin(), stats->rows.end(),
                                     [](const HloStatsRow &r) {
                                         return r.category.find("fusion") != std::string::npos;
                                     });
    QVERIFY(fusion != stats->rows.end());
    const auto *fusionModule = modules->index->byProgramId(std::stoull(fusion->programId));
    QVERIFY(fusionModule);
    xla::HloProto fusionRaw;
    QVERIFY(fusionRaw.ParseFromString(fusionModule->entry.bytes));
    const Expected f = walk(fusionRaw.hlo_module(), fusion->hloOpName, 0);
    QCOMPARE(f.fusions.size(), size_t(1));
    QVERIFY(f.fusionMembers > 0);
    HloGraphOptions expand;
    expand.depth = 0;
    expand.expandFusions = true;
    auto fused = hloNeighbourhood(*modules->index, std::stoull(fusion->programId),
                                  fusion->hloOpName, expand);
    QVERIFY(fused);
    QCOMPARE(fused.value().nodes.size(), 1 + f.fusionMembers);
    auto fusedLayout = graph::layoutDot(hloGraphDot(fused.value(), {}));
    QVERIFY(fusedLayout);
    QCOMPARE(fusedLayout.value().clusters.size(), size_t(1));
    QCOMPARE(fusedLayout.value().clusters.front().label, fusion->hloOpName);

    // The op's share colours its node; no time is white.
    QCOMPARE(hloShareColour(0), std::string("#ffffff"));
    QCOMPARE(hloShareColour(1), std::string("#d62728"));
}

void TestHloGraph::errorsSayWhatIsMissing()
{
    const hlo::HloModuleIndex empty;
    auto none = hloNeighbourhood(empty, 0, "dot.1");
    QVERIFY(!none);
    QVERIFY(QString::fromStdString(none.message()).contains("no HLO modules"));

    TRACEDESK_REQUIRE_FIXTURE(kGemm);
    auto trace = loadTrace(kGemm.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    const auto modules = traceHloModules(cache);
    auto missing = hloNeighbourhood(*modules->index, 0, "no-such-op.7");
    QVERIFY(!missing);
    QVERIFY(QString::fromStdString(missing.message()).contains("no-such-op.7"));
    auto program = hloNeighbourhood(*modules->index, 12345, "dot");
    QVERIFY(!program);
    QVERIFY(QString::fromStdString(program.message()).contains("12345"));
    // A broken DOT text is an error, not a crash.
    QVERIFY(!graph::layoutDot("digraph { a -> "));
}

void TestHloGraph::cliWritesTheGraph()
{
    TRACEDESK_REQUIRE_FIXTURE(kGemm);
    auto trace = loadTrace(kGemm.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    const HloStatsRow top = hloStats(cache)->rows.front();
    const auto *module = traceHloModules(cache)->index->byProgramId(std::stoull(top.programId));
    QVERIFY(module);
    xla::HloProto raw;
    QVERIFY(raw.ParseFromString(module->entry.bytes));
    const Expected e = walk(raw.hlo_module(), top.hloOpName, 1);

    const QString op = QString::fromStdString(top.hloOpName);
    const QString program = QString::fromStdString(top.programId);
    auto run = clitest::runCli({"hlo-graph", kGemm, "--op", op, "--program", program, "--depth",
                                "1", "--format", "json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject o = QJsonDocument::fromJson(run.out).object();
    std::set<std::string> names;
    for (const QJsonValue &v : o.value("nodes").toArray())
        names.insert(v.toObject().value("name").toString().toStdString());
    QCOMPARE(names, e.names);
    QCOMPARE(size_t(o.value("edges").toArray().size()), e.edges);
    QVERIFY(o.value("module").toString().endsWith("(" + program + ")"));

    run = clitest::runCli({"hlo-graph", kGemm, "--op", op, "--program", program, "--format",
                           "svg"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.out.contains("<svg"));
    run = clitest::runCli({"hlo-graph", kGemm, "--op", op, "--program", program});
    QVERIFY(run.out.startsWith("digraph"));

    // Bad requests say what is wrong and fail.
    run = clitest::runCli({"hlo-graph", kGemm, "--op", op, "--format", "png"});
    QVERIFY(run.exitCode != 0);
    QVERIFY(run.err.contains("--format"));
    run = clitest::runCli({"hlo-graph", kGemm, "--op", "no-such-op.3"});
    QVERIFY(run.exitCode != 0);
    QVERIFY(run.err.contains("no-such-op.3"));
}

QTEST_MAIN(TestHloGraph)
#include "tst_hlograph.moc"
