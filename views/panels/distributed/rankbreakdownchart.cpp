#include "views/panels/distributed/rankbreakdownchart.h"

#include "views/common/chartownership.h"
#include "views/common/niceaxis.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>

namespace tracedesk::views {

using namespace core::analysis::distributed;

const std::array<const char *, RankBreakdownChart::kSeriesCount> RankBreakdownChart::kSeriesNames =
    {"Computation", "Exposed communication", "Overlap", "Idle"};

namespace {

double us(core::TimePs ps)
{
    return double(ps) / 1e6;
}

// Fixed colours: computation and communication keep their meaning across runs and themes.
const std::array<QColor, RankBreakdownChart::kSeriesCount> kColours = {
    QColor(0x42, 0x85, 0xf4), QColor(0xe5, 0x39, 0x35), QColor(0x7e, 0x57, 0xc2),
    QColor(0x9e, 0x9e, 0x9e)};

} // namespace

RankBreakdown rankBreakdown(const RankSummary &rank, const std::string &step)
{
    RankBreakdown b;
    for (const RankStep &s : rank.steps) {
        if (!step.empty() && s.name != step)
            continue;
        b.computationUs += us(s.computation - s.overlap);
        b.exposedCommunicationUs += us(s.exposedCommunication);
        b.overlapUs += us(s.overlap);
        b.idleUs += us(s.idle);
    }
    return b;
}

RankBreakdownChart::RankBreakdownChart(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(260);
    show(nullptr, {});
}

void RankBreakdownChart::show(const DistributedSummary *summary, const std::string &step)
{
    m_columns.clear();
    auto *chart = new QChart;
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setTitle(step.empty() ? tr("Kernel time per rank, all steps")
                                 : tr("Kernel time per rank, step %1")
                                       .arg(QString::fromStdString(step)));
    if (!summary || summary->ranks.empty()) {
        replaceChart(this, chart);
        return;
    }
    QStringList labels;
    for (const RankSummary &r : summary->ranks) {
        m_columns.push_back(rankBreakdown(r, step));
        labels << QString::number(r.rank);
    }
    auto *series = new QStackedBarSeries;
    double top = 0;
    for (const RankBreakdown &b : m_columns)
        top = std::max(top, b.computationUs + b.exposedCommunicationUs + b.overlapUs + b.idleUs);
    for (int s = 0; s < kSeriesCount; ++s) {
        auto *set = new QBarSet(tr(kSeriesNames[size_t(s)]));
        set->setColor(kColours[size_t(s)]);
        set->setBorderColor(kColours[size_t(s)]);
        for (const RankBreakdown &b : m_columns) {
            const double v[] = {b.computationUs, b.exposedCommunicationUs, b.overlapUs, b.idleUs};
            *set << v[s] / 1000.0;
        }
        series->append(set);
    }
    series->setBarWidth(0.7);
    chart->addSeries(series);
    auto *x = new QBarCategoryAxis;
    x->append(labels);
    x->setTitleText(tr("Rank"));
    if (labels.size() > 32)
        x->setLabelsAngle(-90);
    auto *y = new QValueAxis;
    y->setTitleText(tr("Time (ms)"));
    applyNiceAxis(y, 0, top > 0 ? top / 1000.0 : 1);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    connect(series, &QStackedBarSeries::clicked, this,
            [this](int index, QBarSet *) { emit rankClicked(index); });
    replaceChart(this, chart);
}

} // namespace tracedesk::views
