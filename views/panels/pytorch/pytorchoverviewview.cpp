#include "views/panels/pytorch/pytorchoverviewview.h"

#include "core/analysis/framework.h"
#include "views/common/qtconvert.h"
#include "views/panels/common/panellinks.h"
#include "views/panels/common/rowtable.h"
#include "views/panels/overview/overviewpanel.h"
#include "views/panels/overview/steptimechart.h"
#include "views/panels/pytorch/pytorchstepmodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableView>
#include <QVBoxLayout>

namespace tracedesk::views {

using namespace core::analysis;
using namespace core::analysis::pytorch;

namespace {

QLabel *textLabel(QWidget *parent)
{
    auto *l = new QLabel(parent);
    l->setWordWrap(true);
    l->setTextFormat(Qt::RichText);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    l->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    return l;
}

QString notAvailable() { return QObject::tr("not available"); }

QString percentOr(const std::optional<double> &fraction)
{
    return fraction ? QString::number(100.0 * *fraction, 'f', 2) + QStringLiteral(" %")
                    : notAvailable();
}

// One colour per category whatever else the chart shows, so Kernel looks the same in every
// profile (the chart drops empty categories, which would shift its default colours).
void colourByCategory(StepTimeChart *chart)
{
    static const QColor kColours[kBreakdownCategoryCount] = {
        QColor(0x42, 0x85, 0xf4), QColor(0x7e, 0x57, 0xc2), QColor(0x26, 0xa6, 0x9a),
        QColor(0xef, 0x6c, 0x00), QColor(0xfb, 0xc0, 0x2d), QColor(0xe5, 0x39, 0x35),
        QColor(0x66, 0xbb, 0x6a), QColor(0xbd, 0xbd, 0xbd)};
    for (int c = 0; c < kBreakdownCategoryCount; ++c) {
        chart->setCategoryColour(QString::fromUtf8(breakdownCategoryName(BreakdownCategory(c))),
                                 kColours[c]);
    }
}

QString escaped(const std::string &s) { return QString::fromStdString(s).toHtmlEscaped(); }

QString cell(const QString &text, bool right = false)
{
    return QStringLiteral("<td nowrap style='padding:1px 12px 1px 0'%1>%2</td>")
        .arg(right ? QStringLiteral(" align=right") : QString(), text);
}

} // namespace

PyTorchOverviewView::PyTorchOverviewView(QWidget *parent) : QWidget(parent)
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    outer->addWidget(scroll);
    auto *body = new QWidget(scroll);
    scroll->setWidget(body);
    auto *layout = new QVBoxLayout(body);

    m_status = new QLabel(tr("No trace loaded."), body);
    layout->addWidget(m_status);
    auto *row = new QHBoxLayout;
    m_summary = textLabel(body);
    m_environment = textLabel(body);
    row->addWidget(makeCard(tr("Performance summary"), m_summary, body), 3);
    row->addWidget(makeCard(tr("Run environment"), m_environment, body), 2);
    layout->addLayout(row);
    m_gpus = textLabel(body);
    layout->addWidget(makeCard(tr("GPU summary"), m_gpus, body));
    m_recommendations = textLabel(body);
    layout->addWidget(makeCard(tr("Recommendations"), m_recommendations, body));
    m_chart = new StepTimeChart(body);
    m_chart->setMinimumHeight(320);
    layout->addWidget(makeCard(tr("Step-time graph"), m_chart, body));

    m_model = new PyTorchStepModel(this);
    m_proxy = new PinnedLastProxy(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(PyTorchStepModel::kSortRole);
    m_table = makeRowTable(m_proxy, body);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(makeCard(tr("Step-time breakdown"), m_table, body));
    layout->addStretch(1);

    connect(m_chart, &StepTimeChart::stepClicked, this, [this](int step) {
        if (m_result.overview && step >= 0 && size_t(step) < m_result.overview->steps.size())
            emit timeActivated(m_result.overview->steps[size_t(step)].start);
    });
    auto activate = [this](const QModelIndex &index) {
        const int row = m_proxy->mapToSource(index).row();
        if (m_result.overview && row >= 0 && size_t(row) < m_result.overview->steps.size())
            emit timeActivated(m_result.overview->steps[size_t(row)].start);
    };
    onRowActivated(m_table, this, activate);
}

PyTorchOverviewView::~PyTorchOverviewView() = default;

void PyTorchOverviewView::setAnalyses(AnalysisCachePtr cache)
{
    m_compute.cancel();
    m_cache = std::move(cache);
    m_result = {};
    clear();
    if (!m_cache) {
        m_status->setText(tr("No trace loaded."));
        return;
    }
    m_status->setText(tr("Computing the PyTorch overview..."));
    AnalysisCachePtr c = m_cache;
    m_compute.start([c] {
        const KinetoScope scope = kinetoIndex(*c)->scope;
        const std::vector<std::string> &hosts = c->trace().info.hosts;
        const bool ranked = !scope.wholeTrace && scope.section < hosts.size();
        const std::string host = ranked ? hosts[scope.section] : std::string();
        return Result{pytorchOverview(*c), pytorchSteps(*c), scope.scopeLabel, host,
                      core::analysis::isPyTorchTrace(c->trace())};
    });
}

void PyTorchOverviewView::showResult(Result result)
{
    m_result = std::move(result);
    show(m_result);
    emit computed();
}

QString PyTorchOverviewView::statusText() const { return m_status->text(); }
QString PyTorchOverviewView::summaryText() const { return m_summary->text(); }
QString PyTorchOverviewView::environmentText() const { return m_environment->text(); }
QString PyTorchOverviewView::gpuText() const { return m_gpus->text(); }
QString PyTorchOverviewView::recommendationText() const { return m_recommendations->text(); }

void PyTorchOverviewView::clear()
{
    for (QLabel *l : {m_summary, m_environment, m_gpus, m_recommendations})
        l->clear();
    m_model->setOverview(nullptr);
    m_chart->clear();
}

void PyTorchOverviewView::show(const Result &result)
{
    const PyTorchOverview &o = *result.overview;
    const PyTorchSteps &steps = *result.steps;
    QString status = (result.pytorch ? tr("PyTorch profile, %1") : tr("GPU profile, %1"))
                         .arg(countOf(o.steps.size(), "step", "steps"));
    // A merged run of several ranks: the PyTorch views describe one rank's process.
    if (!result.scopeLabel.empty())
        status = tr("PyTorch profile of %1, %2")
                     .arg(QString::fromStdString(result.scopeLabel),
                          countOf(o.steps.size(), "step", "steps"));
    if (steps.fromMarkers && steps.trimmedSteps > 0)
        status += tr(" (%1 ProfilerStep markers; the last %n had too little GPU work and are left "
                     "out)", nullptr, int(steps.trimmedSteps)).arg(steps.hostStepCount);
    else if (steps.fromNumberedRanges)
        status += (steps.trimmedSteps > 0
                       ? tr(" (no ProfilerStep markers: each step is one of the numbered \"%1 N\" "
                            "ranges; the last %2 had too little GPU work and are left out)")
                             .arg(QString::fromStdString(steps.numberedWord))
                             .arg(steps.trimmedSteps)
                       : tr(" (no ProfilerStep markers: each step is one of the numbered \"%1 N\" "
                            "ranges)")
                             .arg(QString::fromStdString(steps.numberedWord)));
    else if (steps.fromIterations)
        status += tr(" (no ProfilerStep markers: each step is one serving-engine iteration, "
                     "from its %1 annotations)")
                      .arg(steps.iterationEngine == IterationEngine::SGLang ? tr("SGLang step[...]")
                           : steps.iterationEngine == IterationEngine::Vllm
                               ? tr("vLLM execute_...")
                               : tr("repeated top-level"));
    else if (steps.fromRuntimeCalls && !o.steps.empty())
        status += tr(" (no step markers and no CPU operators: one step spans the runtime calls "
                     "and the GPU work they launched)");
    else if (!steps.fromMarkers && !o.steps.empty())
        status += tr(" (no ProfilerStep markers: one step spans the CPU operators)");
    m_status->setText(status + QLatin1Char('.'));

    // Summary: the average step and its breakdown.
    QString s;
    if (o.steps.empty()) {
        s = tr("No steps and no CPU operators, so no step time.");
    } else {
        s = tr("Average step time: <b>%1 ms</b> over %2")
                .arg(o.average.total / 1e9, 0, 'f', 3)
                .arg(countOf(o.steps.size(), "step", "steps"));
        s += QStringLiteral("<table>");
        for (int c = 0; c < kBreakdownCategoryCount; ++c) {
            const auto category = BreakdownCategory(c);
            if (!o.categoryPresent(category))
                continue;
            const double ms = o.average[category] / 1e9;
            const double pct =
                o.average.total > 0 ? 100.0 * o.average[category] / o.average.total : 0;
            s += QStringLiteral("<tr>") + cell(QString::fromUtf8(breakdownCategoryName(category)))
                 + cell(QString::number(ms, 'f', 3) + QStringLiteral(" ms"), true)
                 + cell(QString::number(pct, 'f', 2) + QStringLiteral(" %"), true)
                 + QStringLiteral("</tr>");
        }
        s += QStringLiteral("</table>");
        if (o.hasCommunication && o.average.communicationTotal > 0)
            s += tr("<small>Communication is the communication-kernel time no other GPU work "
                    "overlaps. Per step on average the communication kernels run %1 ms, "
                    "%2 ms (%3 %) of it hidden behind computation.</small>")
                     .arg(o.average.communicationTotal / 1e9, 0, 'f', 3)
                     .arg(o.average.communicationOverlapped / 1e9, 0, 'f', 3)
                     .arg(100.0 * o.average.communicationOverlapped / o.average.communicationTotal,
                          0, 'f', 1);
        s += iterationText(o);
    }
    m_summary->setText(s);
    m_environment->setText(environment(o, result.scopeHost, result.pytorch));

    // GPU summary, one row per device that ran kernels.
    if (o.gpus.empty()) {
        m_gpus->setText(tr("No GPU kernels in this profile, so no GPU metrics."));
    } else {
        QString g = QStringLiteral("<table><tr>");
        for (const QString &h :
             {tr("GPU"), tr("Name"), tr("Memory"), tr("Compute capability"), tr("GPU utilization"),
              tr("Est. SM efficiency"), tr("Est. achieved occupancy"),
              tr("Kernel time on Tensor / Matrix Cores (all kernels)")})
            g += cell(QStringLiteral("<b>%1</b>").arg(h));
        g += QStringLiteral("</tr>");
        for (const PyTorchGpuMetrics &m : o.gpus) {
            g += QStringLiteral("<tr>") + cell(QString::number(m.device)) +
                 cell(m.name.empty() ? notAvailable() : escaped(m.name)) +
                 cell(m.memoryBytes == 0
                          ? notAvailable()
                          : QString::number(m.memoryGb, 'f', 2) + QStringLiteral(" GB")) +
                 cell(m.computeCapability.empty() ? notAvailable() : escaped(m.computeCapability)) +
                 cell(percentOr(m.utilization), true) + cell(percentOr(m.smEfficiency), true) +
                 cell(m.achievedOccupancy
                          ? QString::number(*m.achievedOccupancy, 'f', 2) + QStringLiteral(" %")
                          : notAvailable(),
                      true) +
                 cell(percentOr(m.tensorCoreRatio), true) + QStringLiteral("</tr>");
        }
        g += QStringLiteral("</table>");
        if (o.allEnd > o.allStart)
            g += tr("<small>Utilization, SM efficiency and occupancy are measured over all steps, "
                    "%1 ms to %2 ms.</small>")
                     .arg(double(o.allStart - o.traceBegin) / 1e9, 0, 'f', 3)
                     .arg(double(o.allEnd - o.traceBegin) / 1e9, 0, 'f', 3);
        m_gpus->setText(g);
    }

    QStringList r;
    for (const PyTorchRecommendation &rec : o.recommendations)
        r << QStringLiteral("&bull; ") + escaped(rec.text);
    m_recommendations->setText(r.isEmpty() ? tr("None: no check found a problem in this profile.")
                                           : r.join(QStringLiteral("<br>")));

    // Chart and table.
    QStringList labels, categories;
    std::vector<std::vector<double>> values;
    for (int c = 0; c < kBreakdownCategoryCount; ++c) {
        if (!o.categoryPresent(BreakdownCategory(c)))
            continue;
        categories << QString::fromUtf8(breakdownCategoryName(BreakdownCategory(c)));
        values.emplace_back();
        for (const StepBreakdown &step : o.steps)
            values.back().push_back(double(step[BreakdownCategory(c)]) / 1e9);
    }
    for (const StepBreakdown &step : o.steps)
        labels << QString::fromStdString(step.name);
    m_chart->setSteps(tr("Step time by category (ms)"), labels, categories, values);
    colourByCategory(m_chart);
    m_model->setOverview(result.overview);
    m_table->sortByColumn(-1, Qt::AscendingOrder);   // steps in time order, average last
    const int rows = m_model->rowCount();
    const int rowHeight = m_table->verticalHeader()->defaultSectionSize();
    // Every row in view (up to 14) above the horizontal scroll bar wide tables get.
    m_table->setFixedHeight(std::min(rows, 14) * rowHeight
                              + m_table->horizontalHeader()->sizeHint().height()
                              + m_table->horizontalScrollBar()->sizeHint().height()
                              + 2 * m_table->frameWidth() + 4);
}

QString PyTorchOverviewView::iterationText(const PyTorchOverview &o)
{
    if (o.iterationLatency.empty())
        return {};
    QString t = tr("<br><b>Iteration latency</b> (each iteration's annotation, host side)<table>"
                   "<tr><td><b>Kind</b></td><td align=right><b>Iterations</b></td>"
                   "<td align=right><b>p50</b></td><td align=right><b>p90</b></td>"
                   "<td align=right><b>p99</b></td></tr>");
    for (const auto &[kind, p] : o.iterationLatency) {
        t += QStringLiteral("<tr>") + cell(QString::fromStdString(kind)) +
             cell(QString::number(p.count), true) +
             cell(QString::number(p.p50, 'f', 3) + QStringLiteral(" ms"), true) +
             cell(QString::number(p.p90, 'f', 3) + QStringLiteral(" ms"), true) +
             cell(QString::number(p.p99, 'f', 3) + QStringLiteral(" ms"), true) +
             QStringLiteral("</tr>");
    }
    return t + QStringLiteral("</table>");
}

QString PyTorchOverviewView::environment(const PyTorchOverview &o, const std::string &scopeHost,
                                         bool pytorch) const
{
    const core::RunMetadata &run = m_cache->trace().info.run;
    // Another profiler's capture (Nsight Systems) records GPU work, not which framework ran it.
    QString e = (pytorch ? tr("Framework: PyTorch (Kineto trace)<br>Device type: %1")
                         : tr("Framework: not recorded in this capture<br>Device type: %1"))
                    .arg(o.deviceType == PyTorchDeviceType::Gpu ? tr("GPU") : tr("CPU"));
    if (run.devices.empty()) {
        e += tr("<br>GPUs: none listed in the trace");
    } else {
        e += tr("<br>GPUs listed in the trace: %1").arg(run.devices.size());
        for (const core::GpuDeviceInfo &d : run.devices) {
            QStringList facts;
            if (d.totalGlobalMemBytes > 0)
                facts << QStringLiteral("%1 GB").arg(
                    double(d.totalGlobalMemBytes) / double(1ull << 30), 0, 'f', 2);
            if (d.hasComputeCapability())
                facts << tr("compute %1.%2").arg(d.computeMajor).arg(d.computeMinor);
            if (d.numSms > 0)
                facts << tr("%1 SMs").arg(d.numSms);
            e += QStringLiteral("<br>&nbsp;&nbsp;GPU %1: %2%3")
                     .arg(d.id)
                     .arg(d.name.empty() ? tr("(unnamed)") : escaped(d.name))
                     .arg(facts.isEmpty()
                              ? QString()
                              : QStringLiteral(" (%1)").arg(facts.join(QStringLiteral(", "))));
        }
    }
    // A merged run keeps the first rank's metadata: the rank shown is the picked section's.
    if (run.distributed.present) {
        e += tr("<br>Distributed: %1 of world size %2")
                 .arg(!scopeHost.empty()            ? escaped(scopeHost)
                      : run.distributed.rank < 0    ? tr("rank %1").arg(notAvailable())
                                                    : tr("rank %1").arg(run.distributed.rank))
                 .arg(run.distributed.worldSize > 0 ? QString::number(run.distributed.worldSize)
                                                    : notAvailable());
        if (!run.distributed.backend.empty())
            e += tr(", backend %1").arg(escaped(run.distributed.backend));
    }
    if (o.usesDistributedDataParallel)
        e += tr("<br>Parallelism: DistributedDataParallel");
    else if (o.usesDataParallel)
        e += tr("<br>Parallelism: DataParallel");
    return e;
}

} // namespace tracedesk::views
