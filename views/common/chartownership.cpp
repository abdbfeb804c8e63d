#include "views/common/chartownership.h"

#include "views/common/chartpalette.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QLineSeries>

namespace tracedesk::views {

void replaceChart(QChartView *view, QChart *chart)
{
    QChart *old = view->chart();
    if (old == chart)
        return;
    view->setChart(chart);
    delete old;
    followPalette(view);
}

void addAreaSeries(QChart *chart, QAreaSeries *area)
{
    // The chart takes the area from its upper series first; reparenting the boundaries to the
    // area before that would make the area and its upper series each other's parent.
    chart->addSeries(area);
    if (area->chart() != chart)
        return;   // refused (e.g. already on another chart): ownership stays with the caller
    for (QLineSeries *line : {area->upperSeries(), area->lowerSeries()}) {
        if (line && line->parent() != area)
            line->setParent(area);
    }
}

} // namespace tracedesk::views
