#include "views/panels/inputpipeline/inputpipelinepanel.h"

#include "views/common/qtconvert.h"
#include "views/panels/overview/analysistablemodel.h"
#include "views/panels/overview/overviewpanel.h"
#include "views/panels/overview/steptimechart.h"
#include "views/panels/pytorch/frameworkpages.h"

#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace tracedesk::views {

using namespace core::analysis;

InputPipelinePanel::InputPipelinePanel(QWidget *parent) : QWidget(parent)
{
    // PyTorch traces get their own page; the panel's own content is the classic page.
    auto *classic = new QWidget(this);
    m_pytorch = new NotApplicableView(
        tr("Input Pipeline analyses the input ops of an XProf profile; this PyTorch "
           "profile has none — see Overview for the DataLoader share of each step."),
        this);
    m_pages = new FrameworkPages(this, classic, m_pytorch,
                                 [this](const AnalysisCachePtr &c) { m_pytorch->setAnalyses(c); });
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
    m_summary = new QLabel(body);
    m_summary->setWordWrap(true);
    m_summary->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    layout->addWidget(makeCard(tr("Summary"), m_summary, body));
    m_chart = new StepTimeChart(body);
    m_chart->setMinimumHeight(300);
    m_device = new QLabel(body);
    m_device->setWordWrap(true);
    // Its text's height, never more: spare room goes to the op table below.
    m_device->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    auto *deviceBox = new QWidget(body);
    auto *dl = new QVBoxLayout(deviceBox);
    dl->setContentsMargins(0, 0, 0, 0);
    dl->addWidget(m_chart);
    dl->addWidget(m_device);
    layout->addWidget(makeCard(tr("Device-side analysis"), deviceBox, body));

    m_host = new AnalysisTableModel({tr("Category"), tr("Time (us)"), tr("Share (%)")}, this);
    m_host->setDecimals(1, 1);
    m_host->setDecimals(2, 1);
    auto *hostView = new QTableView(body);
    hostView->setModel(m_host);
    hostView->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    hostView->setFixedHeight(190);
    layout->addWidget(makeCard(tr("Host-side analysis: input time by category"), hostView, body));

    m_ops = new AnalysisTableModel({tr("Input op"), tr("Count"), tr("Total time (ms)"),
                                    tr("Total (%)"), tr("Self time (ms)"), tr("Self (%)"),
                                    tr("Category")},
                                   this);
    for (int c : {2, 4})
        m_ops->setDecimals(c, 3);
    for (int c : {3, 5})
        m_ops->setDecimals(c, 1);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_ops);
    m_proxy->setSortRole(AnalysisTableModel::kSortRole);
    m_table = new QTableView(body);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->setMinimumHeight(300);
    layout->addWidget(makeCard(tr("Input op statistics"), m_table, body));

    auto activate = [this](const QModelIndex &index) {
        emit opActivated(m_ops->value(m_proxy->mapToSource(index).row(), 0).toString());
    };
    connect(m_table, &QTableView::clicked, this, activate);
    connect(m_table, &QTableView::activated, this, activate);
    connect(m_chart, &StepTimeChart::stepClicked, this, [this](int step) {
        if (!m_result)
            return;
        if (m_result->tpu && size_t(step) < m_result->tpuSteps.steps.size())
            emit timeActivated(m_result->tpuSteps.steps[size_t(step)].begin);
        else if (!m_result->tpu && size_t(step) < m_result->generic.steps.size())
            emit timeActivated(m_result->generic.steps[size_t(step)].begin);
    });
}

InputPipelinePanel::~InputPipelinePanel() = default;

void InputPipelinePanel::setAnalyses(AnalysisCachePtr cache)
{
    cache = m_pages->route(std::move(cache));
    m_compute.cancel();
    m_cache = std::move(cache);
    m_result.reset();
    if (!m_cache) {
        m_status->setText(tr("No trace loaded."));
        showResult({});
        return;
    }
    m_status->setText(tr("Computing..."));
    auto c = m_cache;
    m_compute.start([c] {
        Computed out{inputPipeline(*c), std::make_shared<StepChartData>()};
        const InputPipelineAnalysis &a = *out.analysis;
        *out.chart = inputStepChart(a, a.tpu ? tr("Step time: input (infeed) and other time (ms)")
                                             : tr("Step time: input and other time (ms)"));
        return out;
    });
}

void InputPipelinePanel::showAnalysis(Computed result)
{
    m_result = std::move(result.analysis);
    m_status->setText(tr("Input pipeline analysis of %1.")
                             .arg(countOf(quint64(m_result->stepTimeSummary.count), "step",
                                          "steps")));
    showResult(std::move(*result.chart));
    emit computed();
}

QString InputPipelinePanel::statusText() const { return m_status->text(); }
QString InputPipelinePanel::summaryText() const { return m_summary->text(); }
QString InputPipelinePanel::deviceText() const { return m_device->text(); }

void InputPipelinePanel::showResult(StepChartData chart)
{
    if (!m_result) {
        m_summary->clear();
        m_device->clear();
        m_host->setRows({});
        m_ops->setRows({});
        m_chart->clear();
        return;
    }
    const InputPipelineAnalysis &a = *m_result;
    const BottleneckAnalysis &b = a.bottleneck;
    const bool steps = a.stepTimeSummary.count > 0;
    QString s;
    if (!steps) {
        // Without a step time there is no input share: "not input-bound, 0 %" would read as
        // measured.
        s = tr("<b>Input-bound or not: unknown</b>: this profile has no steps, so there is no "
               "step time to weigh input time against.");
    } else {
        s = a.inputBound() ? tr("<b>Input-bound</b> (%1): %2% of the step time is spent on input.")
                           : tr("<b>Not input-bound</b> (%1): %2% of the step time is spent on input.");
        s = s.arg(QString::fromStdString(b.inputClassification)).arg(b.inputPercent, 0, 'f', 1);
    }
    s += QStringLiteral("<br>") + QString::fromStdString(b.inputStatement).toHtmlEscaped();
    s += QStringLiteral("<br><i>") + QString::fromStdString(b.summaryNextStep).toHtmlEscaped()
         + QStringLiteral("</i>");
    for (const auto &w : a.diagnostics.warnings)
        s += QStringLiteral("<br>") + tr("Warning: %1").arg(QString::fromStdString(w).toHtmlEscaped());
    m_summary->setText(s);

    m_chart->setData(std::move(chart));
    const StepSummary &st = a.stepTimeSummary;
    const StepSummary &ip = a.inputPercentSummary;
    m_device->setText(tr("Step time: average %1 ms, standard deviation %2 ms, minimum %3 ms, "
                         "maximum %4 ms (%5 steps)<br>Input share per step: average %6%, "
                         "standard deviation %7%, minimum %8%, maximum %9%")
                          .arg(st.average, 0, 'f', 3).arg(st.standardDeviation, 0, 'f', 3)
                          .arg(st.minimum, 0, 'f', 3).arg(st.maximum, 0, 'f', 3).arg(st.count)
                          .arg(ip.average, 0, 'f', 1).arg(ip.standardDeviation, 0, 'f', 1)
                          .arg(ip.minimum, 0, 'f', 1).arg(ip.maximum, 0, 'f', 1));
    if (st.count == 0)   // zeros would read as measured
        m_device->setText(tr("No steps, so no step-time chart and no step-time or input-share "
                             "statistics."));
    m_chart->setVisible(steps);

    const InputTimeBreakdown &t = a.inputTimeBreakdown;
    const double total = t.demandedFileReadUs + t.advancedFileReadUs + t.preprocessingUs
                         + t.enqueueUs + t.unclassifiedNonEnqueueUs;
    auto share = [&](double v) { return total > 0 ? 100.0 * v / total : 0.0; };
    m_host->setRows({{tr("Demanded file read"), t.demandedFileReadUs, share(t.demandedFileReadUs)},
                     {tr("Advanced file read"), t.advancedFileReadUs, share(t.advancedFileReadUs)},
                     {tr("Preprocessing"), t.preprocessingUs, share(t.preprocessingUs)},
                     {tr("Enqueue"), t.enqueueUs, share(t.enqueueUs)},
                     {tr("Unclassified"), t.unclassifiedNonEnqueueUs,
                      share(t.unclassifiedNonEnqueueUs)}});

    std::vector<std::vector<QVariant>> rows;
    for (const InputOpDetails &d : a.inputOps)
        rows.push_back({QString::fromStdString(d.opName), qlonglong(d.count), d.timeMs,
                        d.timePercent, d.selfTimeMs, d.selfTimePercent,
                        QString::fromStdString(d.category)});
    m_ops->setRows(std::move(rows));
    m_table->sortByColumn(4, Qt::DescendingOrder);
}

} // namespace tracedesk::views
