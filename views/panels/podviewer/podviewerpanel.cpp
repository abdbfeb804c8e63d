#include "views/panels/podviewer/podviewerpanel.h"

#include "views/common/chartownership.h"
#include "views/common/niceaxis.h"
#include "views/common/qtconvert.h"
#include "views/panels/pytorch/frameworkpages.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QSlider>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>

namespace tracedesk::views {

using namespace core::analysis;

PodViewerPanel::PodViewerPanel(QWidget *parent) : QWidget(parent)
{
    // PyTorch traces get their own page; the panel's own content is the classic page.
    auto *classic = new QWidget(this);
    m_pytorch = new NotApplicableView(
        tr("Pod Viewer compares the TPU workers of a pod; this PyTorch profile has none — "
           "see Overview for its steps and run environment."),
        this);
    m_pages = new FrameworkPages(this, classic, m_pytorch,
                                 [this](const AnalysisCachePtr &c) { m_pytorch->setAnalyses(c); });
    auto *layout = new QVBoxLayout(classic);
    m_status = new QLabel(tr("No trace loaded."), this);
    m_diagnostics = new QLabel(this);
    m_diagnostics->setWordWrap(true);
    m_diagnostics->setStyleSheet(QStringLiteral("color: #a04000;"));
    m_diagnostics->hide();
    auto *stepRow = new QHBoxLayout;
    m_stepLabel = new QLabel(this);
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setEnabled(false);
    stepRow->addWidget(m_stepLabel);
    stepRow->addWidget(m_slider, 1);
    auto *body = new QHBoxLayout;
    m_chart = new QChartView(this);
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumHeight(300);
    m_card = new QLabel(this);
    m_card->setTextFormat(Qt::PlainText);
    m_card->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_card->setFixedWidth(330);
    m_card->setWordWrap(true);
    m_card->setFrameShape(QFrame::StyledPanel);
    m_card->setMargin(8);
    m_card->setText(tr("Hover a column for its step breakdown."));
    body->addWidget(m_chart, 1);
    body->addWidget(m_card);
    layout->addWidget(m_status);
    layout->addWidget(m_diagnostics);
    layout->addLayout(stepRow);
    layout->addLayout(body, 1);
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        if (v != m_step) {
            m_step = v;
            showStep();
        }
    });
    showData();   // nothing loaded yet: no chart, only the status line
}

PodViewerPanel::~PodViewerPanel() = default;

void PodViewerPanel::setAnalyses(AnalysisCachePtr cache)
{
    cache = m_pages->route(std::move(cache));
    m_compute.cancel();
    m_cache = std::move(cache);
    m_data.reset();
    if (!m_cache) {
        m_status->setText(tr("No trace loaded."));
        showData();
        return;
    }
    m_status->setText(tr("Computing..."));
    showData();
    auto c = m_cache;
    m_compute.start([c] { return podViewer(*c); });
}

void PodViewerPanel::setData(std::shared_ptr<const PodViewerData> data)
{
    m_data = std::move(data);
    showData();
    if (m_data)
        emit computed();
}

QString PodViewerPanel::statusText() const { return m_status->text(); }
QString PodViewerPanel::diagnosticsText() const { return m_diagnostics->text(); }
QString PodViewerPanel::detailsText() const { return m_card->text(); }
int PodViewerPanel::stepCount() const { return m_data ? int(m_data->steps.size()) : 0; }

void PodViewerPanel::setCurrentStep(int index)
{
    if (index >= 0 && index < stepCount())
        m_slider->setValue(index);
}

void PodViewerPanel::showData()
{
    m_step = -1;
    QStringList lines;
    m_maxTotal = 0;
    if (m_data) {
        for (const auto &m : m_data->diagnostics.errors)
            lines << tr("Error: %1").arg(QString::fromStdString(m));
        for (const auto &m : m_data->diagnostics.warnings)
            lines << tr("Warning: %1").arg(QString::fromStdString(m));
        for (const auto &m : m_data->diagnostics.info)
            lines << QString::fromStdString(m);
        m_seriesUsed.assign(m_data->series.size(), false);
        for (const PodStep &s : m_data->steps) {
            for (const PodRecord &r : s.records) {
                m_maxTotal = std::max(m_maxTotal, r.totalUs);
                for (size_t i = 0; i < r.valuesUs.size() && i < m_seriesUsed.size(); ++i)
                    m_seriesUsed[i] = m_seriesUsed[i] || r.valuesUs[i] > 0;
            }
        }
        const int hosts = int(m_data->hosts.size());
        m_status->setText(
            tr("Pod viewer: %1, %2")
                .arg(QString::fromStdString(m_data->deviceType.empty() ? "unknown device"
                                                                       : m_data->deviceType),
                     countOf(m_data->steps.size(), "step", "steps"))
            + (hosts > 1 ? tr(", %1 hosts").arg(hosts) : QString())
            + (m_data->legacy ? tr(" (legacy file)") : QString()));
        if (!m_data->steps.empty())
            m_step = 0;
    }
    m_diagnostics->setText(lines.join('\n'));
    m_diagnostics->setVisible(!lines.isEmpty());
    const QSignalBlocker block(m_slider);
    m_slider->setRange(0, std::max(0, stepCount() - 1));
    m_slider->setValue(std::max(0, m_step));
    m_slider->setEnabled(stepCount() > 1);
    m_slider->setVisible(stepCount() > 1);
    showStep();
}

const PodRecord *PodViewerPanel::record(int column) const
{
    if (!m_data || m_step < 0 || column < 0 || column >= int(m_order.size()))
        return nullptr;
    return &m_data->steps[size_t(m_step)].records[m_order[size_t(column)]];
}

QStringList PodViewerPanel::columnLabels() const
{
    QStringList labels;
    for (int c = 0; c < int(m_order.size()); ++c)
        labels << QString::fromStdString(podColumnLabel(*m_data, *record(c)));
    return labels;
}

QString PodViewerPanel::columnHost(int column) const
{
    const PodRecord *r = record(column);
    return r ? QString::fromStdString(m_data->hostOf(*r)) : QString();
}

std::vector<double> PodViewerPanel::columnValues(int column) const
{
    const PodRecord *r = record(column);
    return r ? r->valuesUs.toVector() : std::vector<double>();
}

void PodViewerPanel::showStep()
{
    m_order.clear();
    if (!m_data || m_step < 0) {
        // No empty chart: the line above it says why there is nothing to draw.
        if (!m_data)
            m_stepLabel->clear();
        else if (m_data->emptyIntersection)
            m_stepLabel->setText(tr("No step is common to all hosts, so there is no step "
                                    "breakdown to draw."));
        else
            m_stepLabel->setText(tr("The profile has no steps, so there is no step breakdown "
                                    "to draw."));
        m_chart->hide();
        m_card->hide();
        return;
    }
    m_chart->show();
    m_card->show();
    auto *chart = new QChart;
    chart->legend()->setAlignment(Qt::AlignTop);
    const PodStep &step = m_data->steps[size_t(m_step)];
    m_stepLabel->setText(tr("Selected step: %1").arg(step.stepNum));
    for (size_t i = 0; i < step.records.size(); ++i)
        m_order.push_back(i);
    const bool tpu = m_data->tpu;
    std::stable_sort(m_order.begin(), m_order.end(), [&](size_t a, size_t b) {
        const PodRecord &x = step.records[a], &y = step.records[b];
        if (tpu)
            return std::pair(x.chipId, x.nodeId) < std::pair(y.chipId, y.nodeId);
        return m_data->hostOf(x) < m_data->hostOf(y);
    });
    chart->setTitle(tpu ? tr("Step breakdown (x-axis: global chip id, node id, y-axis: time(us))")
                        : tr("Step breakdown (x-axis: hostname, y-axis: time(us))"));
    auto *series = new QStackedBarSeries;
    for (size_t s = 0; s < m_data->series.size(); ++s) {
        auto *set = new QBarSet(QString::fromStdString(m_data->series[s]));
        for (size_t c = 0; c < m_order.size(); ++c) {
            const auto &v = step.records[m_order[c]].valuesUs;
            *set << (s < v.size() ? v[s] : 0.0);
        }
        series->append(set);
    }
    chart->addSeries(series);
    // Series without time in any step only crowd the legend.
    const auto markers = chart->legend()->markers(series);
    for (size_t s = 0; s < m_data->series.size() && s < size_t(markers.size()); ++s)
        markers[qsizetype(s)]->setVisible(m_seriesUsed[s]);
    auto *x = new QBarCategoryAxis;
    x->append(columnLabels());
    if (m_order.size() > 12)
        x->setLabelsAngle(-90);
    auto *y = new QValueAxis;
    y->setTitleText(tr("Time (us)"));
    applyNiceAxis(y, 0, m_maxTotal > 0 ? m_maxTotal : 1);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    connect(series, &QStackedBarSeries::hovered, this, [this](bool on, int index, QBarSet *) {
        if (on)
            showDetails(index);
    });
    connect(series, &QStackedBarSeries::clicked, this,
            [this](int index, QBarSet *) { activateColumn(index); });
    replaceChart(m_chart, chart);
    m_chart->setMinimumWidth(std::min(1200, std::max(500, 50 * int(m_order.size()))));
    if (!m_order.empty())
        showDetails(0);
}

void PodViewerPanel::showDetails(int column)
{
    const PodRecord *r = record(column);
    if (!r)
        return;
    QString text = m_data->tpu ? tr("Step breakdown of chip %1\nHostname: %2")
                                     .arg(r->chipId)
                                     .arg(QString::fromStdString(m_data->hostOf(*r)))
                               : tr("Step breakdown of %1")
                                     .arg(QString::fromStdString(m_data->hostOf(*r)));
    text += tr("\nStep: %1 (host step %2)").arg(r->stepNum).arg(r->hostStep);
    text += tr("\nTotal: %1 us").arg(r->totalUs, 0, 'f', 2);
    if (r->totalUs > 0) {
        for (size_t s = 0; s < m_data->series.size() && s < r->valuesUs.size(); ++s) {
            const double v = r->valuesUs[s];
            text += QStringLiteral("\n%1: %2 us (%3%)")
                        .arg(QString::fromStdString(m_data->series[s]))
                        .arg(v, 0, 'f', 2)
                        .arg(100.0 * v / r->totalUs, 0, 'f', 2);
        }
    }
    m_card->setText(text);
}

void PodViewerPanel::activateColumn(int column)
{
    const PodRecord *r = record(column);
    if (r) {
        const std::string &host = m_data->hostOf(*r);
        emit hostActivated(QString::fromStdString(host.empty() ? "localhost" : host));
    }
}

} // namespace tracedesk::views
