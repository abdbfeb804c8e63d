#include "views/compare/comparecharts.h"

#include "core/compare/tracecomparison.h"
#include "views/common/chartownership.h"
#include "views/common/niceaxis.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarLegendMarker>
#include <QBarSet>
#include <QGraphicsLayout>
#include <QLegend>
#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace tracedesk::views {

namespace {

const QColor kColorA(0x3a, 0x7b, 0xd5);
const QColor kColorB(0xe0, 0x7b, 0x2a);
constexpr int kMaxTicks = 7;

// A categorical palette for the step-time categories.
QColor categoryColor(int i)
{
    static const QColor kColors[] = {
        QColor(0x4e, 0x79, 0xa7), QColor(0x59, 0xa1, 0x4f), QColor(0x9c, 0x75, 0x5f),
        QColor(0xe1, 0x57, 0x59), QColor(0xf2, 0x8e, 0x2b), QColor(0xed, 0xc9, 0x48),
        QColor(0xb0, 0x7a, 0xa1), QColor(0x76, 0xb7, 0xb2), QColor(0xff, 0x9d, 0xa7),
        QColor(0xba, 0xb0, 0xac)};
    return kColors[i % 10];
}

// Nothing to draw: the view shrinks to a one-line message instead of an empty plot area.
void showMessage(QChartView *view, const QString &text)
{
    auto *chart = new QChart;
    chart->setTitle(text);
    chart->legend()->hide();
    chart->setMargins(QMargins());
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setMinimumSize(0, 0);
    replaceChart(view, chart);
    view->setFixedHeight(3 * view->fontMetrics().lineSpacing());
}

// Data again: the view takes its chart height back.
void showChart(QChartView *view, QChart *chart, int minimumHeight)
{
    view->setMinimumHeight(minimumHeight);
    view->setMaximumHeight(QWIDGETSIZE_MAX);
    replaceChart(view, chart);
}

constexpr int kStepChartHeight = 220;
constexpr int kHistogramHeight = 200;

} // namespace

StepCompareChart::StepCompareChart(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(kStepChartHeight);
    clear();
}

void StepCompareChart::clear()
{
    m_labels.clear();
    m_series.clear();
    showMessage(this, tr("Step time: no steps to compare"));
}

void StepCompareChart::setComparison(const core::compare::StepComparison &steps,
                                     const QString &nameA, const QString &nameB)
{
    if (!steps.hasSteps()) {
        clear();
        return;
    }
    m_labels.clear();
    m_series.clear();
    // Bars: average A, average B, then A and B of the first pairs.
    std::vector<std::vector<double>> columns;
    m_labels << tr("avg A") << tr("avg B");
    columns.push_back(steps.averageCategoryMsA);
    columns.push_back(steps.averageCategoryMsB);
    const int pairs = std::min(int(steps.pairs.size()), kMaxPairs);
    for (int k = 0; k < pairs; ++k) {
        const core::compare::StepPair &p = steps.pairs[size_t(k)];
        m_labels << QStringLiteral("%1 A").arg(k + 1) << QStringLiteral("%1 B").arg(k + 1);
        columns.push_back(p.categoriesA);
        columns.push_back(p.categoriesB);
    }
    auto *series = new QStackedBarSeries;
    // A's bars (even columns) in the category's colour, B's (odd columns) in a lighter, hatched
    // shade of it, so the two sides read apart while a category keeps its hue. One legend entry
    // per category: the B set's marker is hidden.
    std::vector<QBarSet *> bSets;
    double maxTotal = 0;
    std::vector<double> totals(columns.size(), 0.0);
    for (size_t c = 0; c < steps.categories.size(); ++c) {
        bool any = false;
        for (const auto &col : columns)
            any = any || (c < col.size() && col[c] > 0);
        if (!any)
            continue;
        const QString name = QString::fromStdString(steps.categories[c]);
        auto *setA = new QBarSet(name);
        auto *setB = new QBarSet(name + tr(" (B)"));
        setA->setColor(categoryColor(int(c)));
        QBrush brushB(categoryColor(int(c)).lighter(135), Qt::Dense3Pattern);
        setB->setBrush(brushB);
        setB->setBorderColor(categoryColor(int(c)));
        for (size_t k = 0; k < columns.size(); ++k) {
            const double v = c < columns[k].size() ? columns[k][c] : 0.0;
            *setA << (k % 2 == 0 ? v : 0.0);
            *setB << (k % 2 == 1 ? v : 0.0);
            totals[k] += v;
        }
        series->append(setA);
        series->append(setB);
        bSets.push_back(setB);
        m_series << name;
    }
    for (double t : totals)
        maxTotal = std::max(maxTotal, t);
    series->setBarWidth(0.8);
    auto *chart = new QChart;
    chart->addSeries(series);
    for (QLegendMarker *marker : chart->legend()->markers(series)) {
        auto *barMarker = qobject_cast<QBarLegendMarker *>(marker);
        if (barMarker
            && std::find(bSets.begin(), bSets.end(), barMarker->barset()) != bSets.end())
            marker->setVisible(false);
    }
    chart->setTitle(tr("Step time by category (ms): A = %1 (solid), B = %2 (hatched) (%3)")
                        .arg(nameA, nameB,
                             QString::fromStdString(
                                 core::compare::formatPercent(steps.deltaPercent))));
    auto *x = new QBarCategoryAxis;
    x->append(m_labels);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    auto *y = new QValueAxis;
    y->setTitleText(tr("ms"));
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
    applyNiceAxis(y, 0, maxTotal > 0 ? maxTotal : 1);
    chart->legend()->setAlignment(Qt::AlignRight);
    showChart(this, chart, kStepChartHeight);
}

DurationHistogram::DurationHistogram(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(kHistogramHeight);
    clear();
}

void DurationHistogram::clear()
{
    m_op.clear();
    m_a.clear();
    m_b.clear();
    m_countsA.clear();
    m_countsB.clear();
    showMessage(this, tr("Select an op to see its durations in A and B"));
}

void DurationHistogram::setDurations(const QString &op, std::vector<core::TimePs> a,
                                     std::vector<core::TimePs> b, const QString &nameA,
                                     const QString &nameB)
{
    m_op = op;
    m_a = std::move(a);
    m_b = std::move(b);
    m_nameA = nameA;
    m_nameB = nameB;
    rebuild();
}

void DurationHistogram::setLogAxes(bool log)
{
    if (log == m_log)
        return;
    m_log = log;
    if (!m_op.isEmpty())
        rebuild();
}

void DurationHistogram::rebuild()
{
    m_countsA.assign(kBins, 0);
    m_countsB.assign(kBins, 0);
    double lo = 0, hi = 0;
    bool any = false;
    for (const auto *v : {&m_a, &m_b}) {
        for (core::TimePs d : *v) {
            const double us = double(d) / 1e6;
            if (m_log && us <= 0)
                continue;
            lo = any ? std::min(lo, us) : us;
            hi = any ? std::max(hi, us) : us;
            any = true;
        }
    }
    if (!any) {
        showMessage(this, tr("%1: no occurrences").arg(m_op));
        return;
    }
    if (!m_log)
        lo = 0;
    if (hi <= lo)
        hi = lo > 0 ? lo * 1.5 : 1.0;
    if (!m_log)
        hi = niceScale(0, hi, kMaxTicks).max;   // bin edges and axis ticks on nice values
    if (m_log && hi / lo < 1.01) {
        lo /= 1.2;
        hi *= 1.2;
    }
    auto edge = [&](int i) {
        const double f = double(i) / kBins;
        return m_log ? lo * std::pow(hi / lo, f) : lo + (hi - lo) * f;
    };
    auto binOf = [&](double us) {
        const double f = m_log ? std::log(us / lo) / std::log(hi / lo) : (us - lo) / (hi - lo);
        return std::clamp(int(f * kBins), 0, kBins - 1);
    };
    for (core::TimePs d : m_a) {
        if (!m_log || d > 0)
            ++m_countsA[size_t(binOf(double(d) / 1e6))];
    }
    for (core::TimePs d : m_b) {
        if (!m_log || d > 0)
            ++m_countsB[size_t(binOf(double(d) / 1e6))];
    }
    const int maxCount = std::max(*std::max_element(m_countsA.begin(), m_countsA.end()),
                                  *std::max_element(m_countsB.begin(), m_countsB.end()));
    // Empty bins sit on the floor of a log axis, which cannot show zero.
    const double floor = m_log ? 0.5 : 0.0;

    auto *chart = new QChart;
    chart->setTitle(tr("%1: durations of each occurrence (A: %2, B: %3)")
                        .arg(m_op)
                        .arg(m_a.size())
                        .arg(m_b.size()));
    QAbstractAxis *x = nullptr;
    QAbstractAxis *y = nullptr;
    if (m_log) {
        auto *lx = new QLogValueAxis;
        lx->setRange(lo, hi);
        lx->setLabelFormat(QStringLiteral("%.3g"));
        auto *ly = new QLogValueAxis;
        ly->setRange(floor, std::max(2.0, maxCount * 1.5));
        ly->setLabelFormat(QStringLiteral("%g"));
        x = lx;
        y = ly;
    } else {
        auto *vx = new QValueAxis;
        applyNiceAxis(vx, lo, hi, kMaxTicks);
        auto *vy = new QValueAxis;
        // Counts are whole: no more ticks than counts, so no step below 1.
        applyNiceAxis(vy, 0, std::max(1, maxCount), std::clamp(maxCount + 1, 2, kMaxTicks));
        x = vx;
        y = vy;
    }
    x->setTitleText(tr("duration (us)"));
    y->setTitleText(tr("occurrences"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    auto addSide = [&](const std::vector<int> &counts, const QString &name, QColor color) {
        auto *line = new QLineSeries;
        line->append(edge(0), floor);
        for (int i = 0; i < kBins; ++i) {
            const double c = counts[size_t(i)] > 0 ? double(counts[size_t(i)]) : floor;
            line->append(edge(i), c);
            line->append(edge(i + 1), c);
        }
        line->append(edge(kBins), floor);
        QPen pen(color);
        pen.setWidthF(2.0);
        if (m_log) {
            line->setName(name);
            line->setPen(pen);
            chart->addSeries(line);
            line->attachAxis(x);
            line->attachAxis(y);
            return;
        }
        auto *area = new QAreaSeries(line);
        area->setName(name);
        area->setPen(pen);
        QColor fill = color;
        fill.setAlpha(80);
        area->setBrush(fill);
        addAreaSeries(chart, area);
        area->attachAxis(x);
        area->attachAxis(y);
    };
    addSide(m_countsA, tr("A: %1").arg(m_nameA), kColorA);
    addSide(m_countsB, tr("B: %1").arg(m_nameB), kColorB);
    chart->legend()->setAlignment(Qt::AlignBottom);
    showChart(this, chart, kHistogramHeight);
}

} // namespace tracedesk::views
