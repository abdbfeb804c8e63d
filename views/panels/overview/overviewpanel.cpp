#include "views/panels/overview/overviewpanel.h"

#include "core/analysis/framework.h"

#include "views/common/qtconvert.h"
#include "views/panels/overview/analysistablemodel.h"
#include "views/panels/overview/steptimechart.h"
#include "views/panels/pytorch/frameworkpages.h"
#include "views/panels/pytorch/pytorchoverviewview.h"

#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace tracedesk::views {

using namespace core::analysis;

namespace {

// Sorts by the clicked column; equal values keep the ranked order the rows came in, whichever
// way the column is sorted, so ties never shuffle the ranks.
class RankedSortProxy : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override
    {
        if (QSortFilterProxyModel::lessThan(left, right))
            return true;
        if (QSortFilterProxyModel::lessThan(right, left))
            return false;
        // Qt reverses the order for a descending sort: pre-reverse the tie-break.
        return sortOrder() == Qt::AscendingOrder ? left.row() < right.row()
                                                 : left.row() > right.row();
    }
};

QString pct(double v) { return QString::number(v, 'f', 1) + QLatin1Char('%'); }

QLabel *wrapLabel(QWidget *parent)
{
    auto *l = new QLabel(parent);
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    // Never squeezed below its text by the charts and tables that share the column.
    l->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    return l;
}

QString hardwareName(StepHardware h)
{
    switch (h) {
    case StepHardware::CpuOnly: return QStringLiteral("CPU");
    case StepHardware::Gpu: return QStringLiteral("GPU");
    case StepHardware::Tpu: return QStringLiteral("TPU");
    case StepHardware::None: break;
    }
    return QStringLiteral("unknown");
}

} // namespace

QWidget *makeCard(const QString &title, QWidget *content, QWidget *parent)
{
    auto *box = new QGroupBox(title, parent);
    auto *l = new QVBoxLayout(box);
    l->addWidget(content);
    return box;
}

StepChartData inputStepChart(const InputPipelineAnalysis &a, const QString &title)
{
    QStringList labels, categories;
    std::vector<std::vector<double>> values;
    if (a.tpu) {
        for (const TpuCategory &c : kTpuCategories)
            categories << QString::fromUtf8(c.label);
        values.assign(kTpuCategories.size(), {});
        for (const TpuStepRow &r : a.tpuSteps.steps) {
            labels << QString::fromStdString(r.stepName);
            for (size_t c = 0; c < kTpuCategories.size(); ++c)
                values[c].push_back(r.*kTpuCategories[c].ms);
        }
    } else {
        for (const StepCategory &c : kGenericCategories)
            categories << QString::fromUtf8(c.label);
        values.assign(kGenericCategories.size(), {});
        for (const GenericStepDetails &d : a.generic.steps) {
            labels << QString::fromStdString(d.stepName);
            for (size_t c = 0; c < kGenericCategories.size(); ++c)
                values[c].push_back(d.*kGenericCategories[c].ms);
        }
    }
    return prepareStepChart(title, std::move(labels), std::move(categories), std::move(values));
}

OverviewPanel::OverviewPanel(QWidget *parent) : QWidget(parent)
{
    // PyTorch traces get their own page; the panel's own content is the classic page.
    auto *classic = new QWidget(this);
    m_pytorch = new PyTorchOverviewView(this);
    connect(m_pytorch, &PyTorchOverviewView::timeActivated, this, &OverviewPanel::timeActivated);
    connect(m_pytorch, &PyTorchOverviewView::computed, this, &OverviewPanel::computed);
    m_pages = new FrameworkPages(this, classic, m_pytorch,
                                 [this](const AnalysisCachePtr &c) { m_pytorch->setAnalyses(c); });
    // Another profiler's GPU capture (Nsight Systems) has no XLA steps or ops: its GPU work reads
    // like a PyTorch trace's, so it gets that page too.
    m_pages->setPageFor(
        [](const core::Trace &trace) { return core::analysis::readsGpuWorkByRole(trace); });
    auto *outer = new QVBoxLayout(classic);
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
    m_summary = wrapLabel(body);
    m_environment = wrapLabel(body);
    row->addWidget(makeCard(tr("Performance summary"), m_summary, body), 3);
    row->addWidget(makeCard(tr("Run environment"), m_environment, body), 2);
    layout->addLayout(row);
    m_recommendation = wrapLabel(body);
    layout->addWidget(makeCard(tr("Recommendation for next step"), m_recommendation, body));
    m_chart = new StepTimeChart(body);
    m_chart->setMinimumHeight(300);
    m_chartCard = makeCard(tr("Step-time graph"), m_chart, body);
    layout->addWidget(m_chartCard);

    m_topOps = new AnalysisTableModel({tr("Op"), tr("Type"), tr("Occurrences"), tr("Self time (%)"),
                                       tr("Cumulative (%)"), tr("GFLOP/s"),
                                       tr("TC eligible"), tr("Uses TC")},
                                      this);
    m_topOps->setDecimals(3, 1);
    m_topOps->setDecimals(4, 1);
    m_topOps->setDecimals(5, 1);
    m_proxy = new RankedSortProxy(this);
    m_proxy->setSourceModel(m_topOps);
    m_proxy->setSortRole(AnalysisTableModel::kSortRole);
    m_table = new QTableView(body);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->setMinimumHeight(330);
    m_table->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Minimum);
    layout->addWidget(makeCard(tr("Top 10 device operations (by self time)"), m_table, body));
    m_diagnostics = wrapLabel(body);
    layout->addWidget(makeCard(tr("Diagnostics"), m_diagnostics, body));
    layout->addStretch(1);

    auto activate = [this](const QModelIndex &index) {
        const QModelIndex source = m_proxy->mapToSource(index);
        emit opActivated(m_topOps->value(source.row(), 0).toString());
    };
    connect(m_table, &QTableView::clicked, this, activate);
    connect(m_table, &QTableView::activated, this, activate);
    connect(m_chart, &StepTimeChart::stepClicked, this, [this](int step) {
        if (!m_page || !m_page->input)
            return;
        const auto &in = *m_page->input;
        if (in.tpu && size_t(step) < in.tpuSteps.steps.size())
            emit timeActivated(in.tpuSteps.steps[size_t(step)].begin);
        else if (!in.tpu && size_t(step) < in.generic.steps.size())
            emit timeActivated(in.generic.steps[size_t(step)].begin);
    });
}

OverviewPanel::~OverviewPanel() = default;

void OverviewPanel::setAnalyses(AnalysisCachePtr cache)
{
    cache = m_pages->route(std::move(cache));
    m_compute.cancel();
    m_cache = std::move(cache);
    m_page.reset();
    if (!m_cache) {
        m_status->setText(tr("No trace loaded."));
        showPage({});
        return;
    }
    m_status->setText(tr("Computing..."));
    auto c = m_cache;
    m_compute.start([c] {
        Computed out{overviewPage(*c), std::make_shared<StepChartData>()};
        if (out.page->input)
            *out.chart = inputStepChart(*out.page->input, tr("Step time by category (ms)"));
        return out;
    });
}

void OverviewPanel::showComputed(Computed result)
{
    m_page = std::move(result.page);
    m_status->setText(tr("Overview of %1.").arg(countOf(quint64(m_page->stepCount), "step", "steps")));
    showPage(std::move(*result.chart));
    emit computed();
}

bool OverviewPanel::isComputing() const
{
    return m_compute.busy() || (m_pages->showsPyTorch() && m_pytorch->isComputing());
}

QString OverviewPanel::statusText() const { return m_status->text(); }
QString OverviewPanel::summaryText() const { return m_summary->text(); }
QString OverviewPanel::recommendationText() const { return m_recommendation->text(); }
QString OverviewPanel::environmentText() const { return m_environment->text(); }
QString OverviewPanel::diagnosticsText() const { return m_diagnostics->text(); }

void OverviewPanel::showPage(StepChartData chart)
{
    if (!m_page) {
        m_summary->clear();
        m_environment->clear();
        m_recommendation->clear();
        m_diagnostics->clear();
        m_topOps->setRows({});
        m_chart->clear();
        return;
    }
    const OverviewPage &p = *m_page;
    QString s = p.stepCount == 0
                    ? tr("No steps found, so no step time (see Diagnostics).<br>")
                    : tr("Average step time: <b>%1 ms</b> (standard deviation %2 ms, %3 steps)<br>")
                          .arg(p.averageStepTimeMs, 0, 'f', 3)
                          .arg(p.stepTimeStdDevMs, 0, 'f', 3)
                          .arg(p.stepCount);
    s += QStringLiteral("<table>");
    for (const auto &[label, ms] : p.averageBreakdownMs) {
        if (ms > 0)
            s += QStringLiteral("<tr><td>%1</td><td align=right>&nbsp;%2 ms</td></tr>")
                     .arg(QString::fromStdString(label)).arg(ms, 0, 'f', 3);
    }
    s += QStringLiteral("</table>");
    if (p.hasPeaks && p.deviceGflopsPerSecond <= 0)
        s += tr("FLOP rate: not available (the profile carries no FLOP counts)<br>");
    else if (p.hasPeaks)
        s += tr("FLOP rate: %1 GFLOP/s (%2 of peak); memory bandwidth: %3 GB/s (%4 of peak)<br>")
                 .arg(p.deviceGflopsPerSecond, 0, 'f', 1).arg(pct(p.flopRateUtilizationPercent))
                 .arg(p.deviceGbytesPerSecond, 0, 'f', 1).arg(pct(p.memoryBwUtilizationPercent));
    if (p.hardware == StepHardware::Tpu)
        s += tr("Device duty cycle: %1<br>").arg(pct(p.deviceDutyCyclePercent));
    s += tr("Device compute precision: 16-bit %1, 32-bit %2<br>")
             .arg(pct(p.deviceCompute16bitPercent), pct(p.deviceCompute32bitPercent));
    s += tr("Ops placed on host %1, on device %2; eager op time: host %3, device %4")
             .arg(pct(p.hostTfOpPercent), pct(p.deviceTfOpPercent), pct(p.hostOpTimeEagerPercent),
                  pct(p.deviceOpTimeEagerPercent));
    if (p.inferenceLatency.available) {
        s += tr("<br>Latency of %1: %2 runs, average %3 ms")
                 .arg(QString::fromStdString(p.inferenceLatency.source))
                 .arg(p.inferenceLatency.count).arg(p.inferenceLatency.averageMs, 0, 'f', 3);
        for (const auto &[q, ms] : p.inferenceLatency.percentiles)
            s += QStringLiteral(", p%1 %2 ms").arg(int(q)).arg(ms, 0, 'f', 3);
    }
    m_summary->setText(s);

    const RunEnvironment &env = p.runEnvironment;
    QStringList hosts;
    for (const auto &h : env.hosts)
        hosts << QString::fromStdString(h);
    m_environment->setText(tr("Hardware: %1<br>Hosts: %2 (%3)<br>Device type: %4<br>"
                              "Device cores: %5")
                               .arg(hardwareName(p.hardware)).arg(env.hostCount)
                               .arg(hosts.join(QStringLiteral(", ")).toHtmlEscaped())
                               .arg(QString::fromStdString(env.deviceType).toHtmlEscaped())
                               .arg(env.deviceCoreCount));

    QString r = tr("Bottleneck: <b>%1</b><br>%2")
                    .arg(QString::fromStdString(p.bottleneck),
                         QString::fromStdString(p.statement).toHtmlEscaped());
    for (const std::string *t : {&p.outputStatement, &p.kernelLaunchStatement, &p.allOtherStatement,
                                 &p.deviceCollectivesStatement, &p.precisionStatement,
                                 &p.eagerStatement, &p.tpuStatement}) {
        if (!t->empty())
            r += QStringLiteral("<br>") + QString::fromStdString(*t).toHtmlEscaped();
    }
    if (p.input)
        r += QStringLiteral("<br><i>%1</i>")
                 .arg(QString::fromStdString(p.input->bottleneck.summaryNextStep).toHtmlEscaped());
    m_recommendation->setText(r);

    std::vector<std::vector<QVariant>> rows;
    for (const OverviewTopOp &op : p.topDeviceOps)
        rows.push_back({QString::fromStdString(op.name), QString::fromStdString(op.category),
                        qlonglong(op.occurrences), 100.0 * op.selfTimeFraction,
                        100.0 * op.cumulativeTimeFraction,
                        // No FLOP counts in the profile: a 0.0 rate would read as a measurement.
                        op.flopRate > 0 ? QVariant(op.flopRate) : QVariant(tr("not available")),
                        op.isOpTensorCoreEligible, op.isOpUsingTensorCore});
    m_topOps->setRows(std::move(rows));
    // The rows come ranked (self time, then name): a proxy sort on the rounded percentages
    // would shuffle ties and make the cumulative column go up and down. Clicking a header
    // still sorts.
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::DescendingOrder);
    m_proxy->sort(-1);

    QStringList d;
    for (const auto &e : p.diagnostics.errors)
        d << tr("Error: %1").arg(QString::fromStdString(e).toHtmlEscaped());
    for (const auto &w : p.diagnostics.warnings)
        d << tr("Warning: %1").arg(QString::fromStdString(w).toHtmlEscaped());
    for (const auto &i : p.diagnostics.info)
        d << QString::fromStdString(i).toHtmlEscaped();
    m_diagnostics->setText(d.isEmpty() ? tr("No diagnostics.") : d.join(QStringLiteral("<br>")));
    // A profile without steps gets no empty chart: the summary already says why.
    m_chartCard->setVisible(p.input && p.stepCount > 0);
    if (p.input)
        m_chart->setData(std::move(chart));
}

} // namespace tracedesk::views
