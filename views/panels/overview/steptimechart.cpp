#include "views/panels/overview/steptimechart.h"

#include "views/common/chartownership.h"
#include "views/common/niceaxis.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QGraphicsLayout>
#include <QLegend>
#include <QPainter>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>

namespace tracedesk::views {

namespace {
constexpr int kMaxStepLabels = 30;
}

StepTimeChart::StepTimeChart(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(240);
    chart()->legend()->setAlignment(Qt::AlignBottom);
    m_emptyText = tr("No steps in this profile, so there is no step-time chart.");
}

void StepTimeChart::showEmpty()
{
    if (!m_empty)
        m_chartMinHeight = minimumHeight();
    m_empty = true;
    auto *chart = new QChart;
    chart->legend()->hide();
    // QChartView keeps itself at least as tall as its chart's minimum (margins, title area):
    // an empty chart must not ask for any room.
    chart->setMargins(QMargins());
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setMinimumSize(0, 0);
    replaceChart(this, chart);
    setFixedHeight(2 * fontMetrics().lineSpacing());
    viewport()->update();
}

void StepTimeChart::drawForeground(QPainter *painter, const QRectF &rect)
{
    QChartView::drawForeground(painter, rect);
    if (!m_labels.isEmpty() || m_pending)
        return;
    painter->save();
    painter->resetTransform();
    painter->setPen(palette().color(QPalette::PlaceholderText));
    painter->drawText(viewport()->rect().adjusted(6, 0, -6, 0), Qt::AlignLeft | Qt::AlignVCenter,
                      m_emptyText);
    painter->restore();
}

QString StepTimeChart::hoverText(int step) const
{
    if (step < 0 || step >= m_labels.size())
        return {};
    QString text = tr("Step %1").arg(m_labels[step]);
    double total = 0;
    for (size_t c = 0; c < m_values.size(); ++c) {
        const double v = m_values[c][size_t(step)];
        total += v;
        if (v > 0)
            text += QStringLiteral("\n%1: %2 ms").arg(m_categories[int(c)]).arg(v, 0, 'f', 3);
    }
    return text + tr("\nTotal: %1 ms").arg(total, 0, 'f', 3);
}

int StepTimeChart::barCount() const
{
    return (int(m_labels.size()) + m_perBar - 1) / m_perBar;
}

QString StepTimeChart::barText(int bar) const
{
    if (m_perBar == 1)
        return hoverText(bar);
    const int first = bar * m_perBar;
    const int last = std::min(int(m_labels.size()), first + m_perBar) - 1;
    if (bar < 0 || first > last)
        return {};
    const double n = double(last - first + 1);
    QString text = tr("Steps %1 to %2 (%3 steps), mean per step")
                       .arg(m_labels[first], m_labels[last])
                       .arg(last - first + 1);
    double total = 0;
    for (size_t c = 0; c < m_values.size(); ++c) {
        double sum = 0;
        for (int s = first; s <= last; ++s)
            sum += m_values[c][size_t(s)];
        total += sum / n;
        if (sum > 0)
            text += QStringLiteral("\n%1: %2 ms")
                        .arg(m_categories[int(c)])
                        .arg(sum / n, 0, 'f', 3);
    }
    return text + tr("\nTotal: %1 ms").arg(total, 0, 'f', 3);
}

void StepTimeChart::clear()
{
    m_labels.clear();
    m_categories.clear();
    m_values.clear();
    m_perBar = 1;
    m_pending = true;
    showEmpty();
}

void StepTimeChart::setSteps(const QString &title, const QStringList &stepLabels,
                             const QStringList &categories,
                             const std::vector<std::vector<double>> &values)
{
    m_pending = false;
    m_labels = stepLabels;
    m_categories = categories;
    m_values = values;
    if (stepLabels.isEmpty()) {
        showEmpty();
        return;
    }
    if (m_empty) {
        m_empty = false;
        setMinimumHeight(m_chartMinHeight);
        setMaximumHeight(QWIDGETSIZE_MAX);
    }
    const int steps = int(stepLabels.size());
    m_perBar = steps > kMaxBars ? (steps + kMaxBars - 1) / kMaxBars : 1;
    const int bars = barCount();
    QStringList barLabels;
    for (int b = 0; b < bars; ++b) {
        const int first = b * m_perBar, last = std::min(steps, first + m_perBar) - 1;
        barLabels << (first == last ? stepLabels[first]
                                    : QStringLiteral("%1–%2").arg(stepLabels[first],
                                                                   stepLabels[last]));
    }
    auto *chart = new QChart;
    chart->setTitle(m_perBar == 1 ? title
                                  : tr("%1 (mean of every %2 steps)").arg(title).arg(m_perBar));
    chart->legend()->setAlignment(Qt::AlignBottom);
    auto *series = new QStackedBarSeries;
    double maxTotal = 0;
    std::vector<double> totals(size_t(bars), 0.0);
    for (int c = 0; c < categories.size(); ++c) {
        const auto &column = values[size_t(c)];
        if (std::all_of(column.begin(), column.end(), [](double v) { return v <= 0; }))
            continue;   // empty categories only clutter the legend
        auto *set = new QBarSet(categories[c]);
        for (int b = 0; b < bars; ++b) {
            const size_t first = size_t(b) * size_t(m_perBar);
            const size_t last = std::min(column.size(), first + size_t(m_perBar));
            double sum = 0;
            for (size_t s = first; s < last; ++s)
                sum += column[s];
            const double mean = last > first ? sum / double(last - first) : 0.0;
            *set << mean;
            totals[size_t(b)] += mean;
        }
        series->append(set);
    }
    for (double t : totals)
        maxTotal = std::max(maxTotal, t);
    chart->addSeries(series);
    auto *x = new QBarCategoryAxis;
    x->append(barLabels);
    x->setTitleText(tr("Step"));
    auto *y = new QValueAxis;
    y->setTitleText(tr("Milliseconds"));
    applyNiceAxis(y, 0, maxTotal > 0 ? maxTotal : 1);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    // Hundreds of steps: every k-th label, so the ones drawn do not overlap.
    thinCategoryLabels(chart, series, x, barLabels, kMaxStepLabels);
    connect(series, &QStackedBarSeries::hovered, this, [this](bool on, int index, QBarSet *) {
        if (on)
            QToolTip::showText(QCursor::pos(), barText(index), this);
        else
            QToolTip::hideText();
    });
    connect(series, &QStackedBarSeries::clicked, this,
            [this](int index, QBarSet *) { emit stepClicked(index * m_perBar); });
    replaceChart(this, chart);
}

} // namespace tracedesk::views
