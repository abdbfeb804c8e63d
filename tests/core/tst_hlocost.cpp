// FLOPs and bytes estimated from the compiled HLO of JAX GPU captures that record none: the
// cuBLAS GEMM and the cuDNN convolution of the fixtures, each computed here from the raw
// HloProto (operand shapes, the GEMM's contracting dimensions read from its backend config with
// Qt's JSON parser, the kernel's output features), and HLO Op Stats using them, saying so.

#include "core/analysis/fusedattentioncost.h"
#include "core/analysis/hlocost.h"
#include "core/analysis/hlograph.h"
#include "core/analysis/hlostats.h"
#include "core/analysis/roofline.h"
#include "core/io/traceloader.h"
#include "support/kinetofixtures.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <QRegularExpression>

#include <cmath>
#include <map>

using namespace tracedesk::core;
using namespace tracedesk::core::analysis;

namespace {

const QString kXspace = QString(TRACEDESK_SHARED_FIXTURES) + "/xspace/";

double count(const xla::ShapeProto &s)
{
    double n = 1;
    for (int64_t d : s.dimensions())
        n *= double(d);
    return n;
}

double byteSize(const xla::ShapeProto &s)
{
    if (s.element_type() == xla::TUPLE) {
        double n = 0;
        for (const auto &p : s.tuple_shapes())
            n += byteSize(p);
        return n;
    }
    const std::map<int, double> width = {{xla::BF16, 2}, {xla::F16, 2}, {xla::F32, 4},
                                         {xla::S8, 1},   {xla::U8, 1},  {xla::S32, 4},
                                         {xla::PRED, 1}, {xla::F64, 8}, {xla::S64, 8}};
    return count(s) * width.at(s.element_type());
}

struct Found
{
    const xla::HloModuleProto *module = nullptr;
    const xla::HloInstructionProto *inst = nullptr;
    std::map<int64_t, const xla::HloInstructionProto *> byId;
};

// The first instruction of `opcode` (and custom-call target prefix) in any module.
Found find(const hlo::HloModuleIndex &index, std::vector<xla::HloProto> &keep,
           const std::string &opcode, const std::string &target)
{
    Found f;
    for (const auto &m : index.modules()) {
        keep.emplace_back();
        if (!keep.back().ParseFromString(m->entry.bytes))
            continue;
        const xla::HloModuleProto &module = keep.back().hlo_module();
        for (const auto &c : module.computations()) {
            for (const auto &i : c.instructions()) {
                if (i.opcode() == opcode && i.custom_call_target().rfind(target, 0) == 0
                    && !f.inst) {
                    f.module = &module;
                    f.inst = &i;
                }
            }
        }
        if (f.inst) {
            for (const auto &c : module.computations())
                for (const auto &i : c.instructions())
                    f.byId[i.id()] = &i;
            return f;
        }
    }
    return f;
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

} // namespace

class TestHloCost : public QObject
{
    Q_OBJECT
private slots:
    void cublasGemm();
    void cudnnConvolution();
    void fusedAttentionMasks();
    void transformerEngineAttention();
};

void TestHloCost::cublasGemm()
{
    const QString path = kXspace + "tracelens_jax08_gemm/tw003.xplane.pb";
    TRACEDESK_REQUIRE_FIXTURE(path);
    auto trace = loadTrace(path.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    const auto modules = traceHloModules(cache);
    std::vector<xla::HloProto> keep;
    keep.reserve(modules->index->modules().size());
    const Found f = find(*modules->index, keep, "custom-call", "__cublas$gemm");
    QVERIFY(f.inst);
    const xla::ShapeProto &lhs = f.byId.at(f.inst->operand_ids(0))->shape();
    const xla::ShapeProto &rhs = f.byId.at(f.inst->operand_ids(1))->shape();
    const QJsonObject config =
        QJsonDocument::fromJson(QByteArray::fromStdString(f.inst->backend_config())).object();
    const QJsonArray contracting = config.value("gemm_backend_config")
                                       .toObject()
                                       .value("dot_dimension_numbers")
                                       .toObject()
                                       .value("lhs_contracting_dimensions")
                                       .toArray();
    QVERIFY(!contracting.isEmpty());
    double k = 1;
    for (const QJsonValue &d : contracting)
        k *= double(lhs.dimensions(d.toString().toInt()));
    const xla::ShapeProto &out = f.inst->shape().element_type() == xla::TUPLE
                                     ? f.inst->shape().tuple_shapes(0)
                                     : f.inst->shape();
    const double flops = 2 * count(out) * k;
    const double bytes = byteSize(lhs) + byteSize(rhs) + byteSize(f.inst->shape());

    const HloCost cost = HloCostModel(*f.module).cost(*f.inst);
    QVERIFY(close(cost.flops, flops));
    QVERIFY(close(cost.bytes, bytes));

    // HLO Op Stats: that op's rows carry the estimate times their occurrences, and say so.
    const auto stats = hloStats(cache);
    QVERIFY(QString::fromStdString(stats->note).contains("estimated"));
    size_t checked = 0;
    for (const HloStatsRow &r : stats->rows) {
        QVERIFY(r.costEstimated);
        const auto *module = modules->index->byProgramId(std::stoull(r.programId));
        if (!module || r.hloOpName != f.inst->name())
            continue;
        const xla::HloInstructionProto *inst =
            modules->index->instruction(std::stoull(r.programId), r.hloOpName);
        QVERIFY(inst);
        if (inst->custom_call_target() != f.inst->custom_call_target())
            continue;
        const HloCost each = HloCostModel(module->proto.hlo_module()).cost(*inst);
        QVERIFY(r.flops && close(*r.flops, each.flops * double(r.occurrences)));
        QVERIFY(r.gflopsPerSecond
                && close(*r.gflopsPerSecond, *r.flops / (r.totalTimeUs * 1000.0)));
        ++checked;
    }
    QVERIFY(checked > 0);
    // The roofline places the ops and the whole profile.
    const auto roofline = rooflineModel(cache);
    QVERIFY(roofline->points.front().gflopsPerSecond);
    QVERIFY(QString::fromStdString(roofline->note).contains("estimated"));

    // Steps are placed from the same estimates: a step over the whole profile costs what the
    // whole profile does (the sum of HLO Op Stats' rows), and two halves split it.
    const Trace &t = *trace.value();
    const TimePs mid = t.begin + (t.end - t.begin) / 2;
    const std::vector<RooflineStep> steps = {{"all", {t.begin, t.end + 1}},
                                             {"first", {t.begin, mid}},
                                             {"second", {mid, t.end + 1}}};
    const RooflineModel m = buildRoofline(t, *opStats(cache), *stats, steps);
    const RooflinePoint &total = m.points[0];
    const RooflinePoint &all = m.points[1], &first = m.points[2], &second = m.points[3];
    QCOMPARE(all.kind, RooflinePoint::Kind::Step);
    QVERIFY(total.flops && all.flops && first.flops && second.flops);
    QVERIFY(close(*all.flops, *total.flops));
    QVERIFY(close(*all.bytesAccessed, *total.bytesAccessed));
    QVERIFY(close(*first.flops + *second.flops, *total.flops));
    QVERIFY(all.boundBy == "Compute" || all.boundBy == "HBM");
    // Each half is placed at its own rates: FLOPs over its ops' self time.
    for (const RooflinePoint *half : {&first, &second}) {
        QVERIFY(half->gflopsPerSecond && half->totalSelfTimeUs > 0);
        QVERIFY(close(*half->gflopsPerSecond, *half->flops / (half->totalSelfTimeUs * 1000.0)));
    }
}

void TestHloCost::cudnnConvolution()
{
    const QString path = kXspace + "tracelens_jax08_conv/tw003.xplane.pb";
    TRACEDESK_REQUIRE_FIXTURE(path);
    auto trace = loadTrace(path.toStdString());
    QVERIFY(trace);
    const hlo::HloModuleIndex index(hlo::hloModulesForTrace(*trace.value()));
    std::vector<xla::HloProto> keep;
    keep.reserve(index.modules().size());
    const Found f = find(index, keep, "custom-call", "__cudnn$conv");
    QVERIFY(f.inst);
    const xla::ShapeProto &input = f.byId.at(f.inst->operand_ids(0))->shape();
    const xla::ShapeProto &kernel = f.byId.at(f.inst->operand_ids(1))->shape();
    const int64_t outFeature =
        f.inst->convolution_dimension_numbers().kernel_output_feature_dimension();
    const xla::ShapeProto &out = f.inst->shape().tuple_shapes(0);
    // One multiply-add per output element, input feature and window position.
    const double flops =
        2 * count(out) * count(kernel) / double(kernel.dimensions(int(outFeature)));
    const HloCost cost = HloCostModel(*f.module).cost(*f.inst);
    QVERIFY(flops > 0);
    QVERIFY(close(cost.flops, flops));
    QVERIFY(close(cost.bytes, byteSize(input) + byteSize(kernel) + byteSize(f.inst->shape())));
}

// The pairs each mask keeps, counted by hand: 4 queries, 6 keys.
void TestHloCost::fusedAttentionMasks()
{
    auto flops = [](const char *target, const std::string &extra) {
        const std::string config = "{attn_heads = 3 : i64, input_batch = 2 : i64, "
                                   "q_max_seqlen = 4 : i64, kv_max_seqlen = 6 : i64, "
                                   "qk_head_dim = 8 : i64, v_head_dim = 4 : i64" + extra + "}";
        return fusedAttentionFlops(target, config);
    };
    const char *fwd = "te_fused_attn_forward_ffi";
    const char *bwd = "te_fused_attn_backward_ffi";
    // 2 x batch 2 x heads 3 x pairs x (8 + 4) forward, x (3 x 8 + 2 x 4) backward.
    auto forward = [](double pairs) { return 2.0 * 2 * 3 * pairs * 12; };
    QCOMPARE(*flops(fwd, ""), forward(24));                        // every pair
    QCOMPARE(*flops(bwd, ""), 2.0 * 2 * 3 * 24 * 32);
    QCOMPARE(*flops(fwd, ", mask_type = 2 : i64"), forward(1 + 2 + 3 + 4));   // top-left
    QCOMPARE(*flops(fwd, ", mask_type = 4 : i64"), forward(3 + 4 + 5 + 6));   // bottom-right
    // Window of 1 key back, causal top-left: query 0 sees 1 key, the others 2.
    QCOMPARE(*flops(fwd, ", mask_type = 2 : i64, window_size_left = 1 : i64"), forward(7));
    QVERIFY(!flops("__cudnn$fmhaSoftmax", ""));
    QVERIFY(!fusedAttentionFlops(fwd, "{attn_heads = 3 : i64}"));
    // A key inside another name is not that key.
    QVERIFY(!fusedAttentionFlops(fwd, "{xattn_heads = 3 : i64, input_batch = 2 : i64, "
                                      "q_max_seqlen = 4 : i64, kv_max_seqlen = 6 : i64, "
                                      "qk_head_dim = 8 : i64}"));
}

// The TE attention capture: its fused attention calls' rows in HLO Op Stats carry
// occurrences x the FLOPs of their recorded shapes, read here from each call's attributes
// (causal mask: S (S + 1) / 2 pairs), where they used to count none.
void TestHloCost::transformerEngineAttention()
{
    const QString path = kXspace + "tracelens_te_fused_attn/934987a2fc2f.xplane.pb";
    TRACEDESK_REQUIRE_FIXTURE(path);
    auto trace = loadTrace(path.toStdString());
    QVERIFY(trace);
    AnalysisCache cache(trace.value());
    const auto modules = traceHloModules(cache);
    const auto stats = hloStats(cache);
    auto number = [](const std::string &config, const char *key) {
        const QRegularExpression re(QStringLiteral("[{ ,]%1 = (-?\\d+) : i64").arg(key));
        const auto m = re.match(QString::fromStdString(config));
        return m.hasMatch() ? m.captured(1).toDouble() : -1.0;
    };
    size_t checked = 0;
    for (const HloStatsRow &r : stats->rows) {
        const xla::HloInstructionProto *inst =
            modules->index->instruction(std::stoull(r.programId), r.hloOpName);
        QVERIFY(inst);
        const std::string &target = inst->custom_call_target();
        if (target.rfind("te_fused_attn_", 0) != 0)
            continue;
        const std::string &c = inst->backend_config();
        const double b = number(c, "input_batch"), h = number(c, "attn_heads");
        const double s = number(c, "q_max_seqlen"), d = number(c, "qk_head_dim");
        const double dv = number(c, "v_head_dim");
        QCOMPARE(number(c, "kv_max_seqlen"), s);
        QCOMPARE(number(c, "mask_type"), 2.0);
        QCOMPARE(number(c, "window_size_left"), -1.0);
        const double pairs = s * (s + 1) / 2;
        const bool forward = target == "te_fused_attn_forward_ffi";
        const double each = 2 * b * h * pairs * (forward ? d + dv : 3 * d + 2 * dv);
        QVERIFY(r.flops);
        QVERIFY2(close(*r.flops, each * double(r.occurrences)), r.hloOpName.c_str());
        QCOMPARE(r.boundBy, std::string(*r.operationalIntensity >= stats->ridgePoint ? "Compute"
                                                                                      : "HBM"));
        ++checked;
    }
    QCOMPARE(checked, size_t(4));
}

QTEST_MAIN(TestHloCost)
#include "tst_hlocost.moc"
